#!/bin/sh
# chroot-test.sh [DEBDIR] - the Debian packages as a user gets them (TAP):
# built from this tree with dpkg-buildpackage (or taken from DEBDIR),
# checked with lintian, installed with apt in a fresh Debian 12 chroot, and
# used there: examples/count.c built with pkg-config pctr and run,
# examples/count.py run with python3-pctr, a libcpc
# program built with pkg-config pctr-libcpc, a pmc_lib program built with
# pmc_options, pctr --version, an MPI program built with pkg-config
# pctr-mpi and run on two ranks; examples/count.f90 built with gfortran and
# pkg-config pctr-fortran, and a Fortran MPI program's job report.
# Software events count in a chroot.
#
# The base chroot (debootstrap --variant=minbase bookworm, plus gcc and
# pkg-config) is cached as a tarball in $PCTR_CHROOT_CACHE (default
# /var/tmp/pctr-chroot), one per day so that it follows the archive; older
# ones are removed.  Needs root (debootstrap, mount, chroot) and the network
# (the mirror is $PCTR_DEBIAN_MIRROR, default deb.debian.org).
set -u
src=$(cd "$(dirname "$0")/../.." && pwd)
debs=${1:-}
cache=${PCTR_CHROOT_CACHE:-/var/tmp/pctr-chroot}
mirror=${PCTR_DEBIAN_MIRROR:-http://deb.debian.org/debian}
plan=13

if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		exec sudo -n "$0" "$@"
	fi
	echo "1..$plan"
	echo "not ok 1 - needs root for debootstrap, mount and chroot"
	exit 1
fi

tmp=$(mktemp -d /var/tmp/pctr-pkgtest.XXXXXX) || exit 1
root=$tmp/root
cleanup() {
	for m in dev sys proc; do
		mountpoint -q "$root/$m" 2>/dev/null && umount -l "$root/$m"
	done
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

n=0 fail=0 started=$(date +%s)
ok() { # STATUS DESCRIPTION; the log of a failure is $tmp/log
	n=$((n + 1)) last=$1
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		tail -n 30 "$tmp/log" | sed 's/^/# /'
		fail=1
	fi
}
# the remaining tests cannot run: say so and stop
bail() {
	while [ "$n" -lt "$plan" ]; do
		n=$((n + 1))
		echo "not ok $n - not run: $1"
	done
	exit 1
}
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root \
	LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive sh -c "$1"; }
# an MPI job: BUILD (a command in the chroot) makes /tmp/PROGRAM, run on
# two ranks under Open MPI's mpirun (root allowed: the chroot has no other
# user); its report, /tmp/PROGRAM.json, must have both ranks
mpi_job() { # BUILD PROGRAM DESCRIPTION
	in_root "$1 &&
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
	mpirun --oversubscribe -n 2 -x PCTR_EVENTS=page-faults \
		-x PCTR_REPORT=json:/tmp/$2.json ./$2 &&
	cat /tmp/$2.json && grep -q '\"size\":2' /tmp/$2.json" >"$tmp/log" 2>&1
	ok $? "$3"
	sed 's/^/#   /' "$tmp/log" | tail -n 5
}

echo "1..$plan"

# 1: the packages, from a copy of the tree (dpkg-buildpackage writes to ..)
if [ -z "$debs" ]; then
	debs=$tmp/debs
	mkdir -p "$debs/pctr"
	tar -C "$src" --exclude=./.git --exclude=./build --exclude='./build-*' \
		-cf - . | tar -C "$debs/pctr" -xf -
	(cd "$debs/pctr" && dpkg-buildpackage -us -uc -b -j2) >"$tmp/log" 2>&1
	ok $? "dpkg-buildpackage -us -uc -b"
	[ "$last" = 0 ] || bail "the packages did not build"
else
	debs=$(cd "$debs" && pwd)
	ls "$debs"/*.deb >"$tmp/log" 2>&1
	ok $? "packages in $debs"
fi

# 2: lintian at its default level (errors and warnings), overrides in
# debian/*.lintian-overrides say why
changes=$(ls "$debs"/*.changes 2>/dev/null | head -n 1)
if [ -n "$changes" ]; then
	lintian --fail-on error,warning "$changes" >"$tmp/log" 2>&1
else
	lintian --fail-on error,warning "$debs"/*.deb >"$tmp/log" 2>&1
fi
ok $? "lintian: no errors or warnings"

# 3: the base system, debootstrapped once a day
mkdir -p "$cache"
base=$cache/bookworm-$(date -u +%Y%m%d).tar.gz
(
	flock 9
	[ -s "$base" ] && exit 0
	rm -rf "$cache/new"
	debootstrap --variant=minbase --include=gcc,libc6-dev,pkg-config \
		bookworm "$cache/new" "$mirror" &&
	tar -C "$cache/new" -czf "$base.tmp" . && mv "$base.tmp" "$base" &&
	rm -rf "$cache/new" &&
	find "$cache" -name 'bookworm-*.tar.gz' ! -name "${base##*/}" -delete
) 9>"$cache/lock" >"$tmp/log" 2>&1
r=$?
mkdir -p "$root" && [ "$r" = 0 ] && tar -C "$root" -xzf "$base" 2>>"$tmp/log"
ok $? "a fresh Debian 12 (minbase) from ${base##*/}"
[ "$last" = 0 ] || bail "no chroot"

cp /etc/resolv.conf "$root/etc/resolv.conf"
mount -t proc proc "$root/proc" && mount --bind /sys "$root/sys" &&
	mount --bind /dev "$root/dev" || bail "cannot mount /proc, /sys, /dev"

# 4: apt installs the packages and what they depend on and recommend
mkdir -p "$root/tmp/debs"
for d in "$debs"/*.deb; do
	case $d in *-dbgsym_*) ;; *) cp "$d" "$root/tmp/debs/" ;; esac
done
in_root 'apt-get update -qq && apt-get install -y -qq /tmp/debs/*.deb' \
	>"$tmp/log" 2>&1
ok $? "apt-get install $(ls "$root/tmp/debs" | sed 's/_.*//' | tr '\n' ' ')"
in_root 'dpkg-query -W -f="\${Package} \${Status}\n" libpfm4 libdw1' \
	>"$tmp/log" 2>&1
sed 's/^/# recommended: /' "$tmp/log"

# 5, 6: examples/count.c as the README builds it; software events only (a
# chroot on a machine that may have no PMU); the page-faults of its 16 MiB
# of first touches must be counted
cp "$src/examples/count.c" "$root/tmp/count.c"
in_root 'cd /tmp && cc -Wall -Werror -o count count.c $(pkg-config --cflags --libs pctr)' \
	>"$tmp/log" 2>&1
ok $? "cc count.c \$(pkg-config --cflags --libs pctr)"
in_root '/tmp/count task-clock,page-faults' >"$tmp/log" 2>&1 &&
	awk '$2 == "page-faults" && $1 > 0 { pf = 1 }
	     $2 == "task-clock" && $1 > 0 { tc = 1 }
	     END { exit !(pf && tc) }' "$tmp/log"
ok $? "count task-clock,page-faults counts both"
sed 's/^/#   /' "$tmp/log"

# 7: a libcpc program through pkg-config pctr-libcpc
cp "$src/tests/compat/libcpc/installed_cpc.c" "$root/tmp/cpc.c"
in_root 'cd /tmp && cc -Wall -Werror -o cpc cpc.c $(pkg-config --cflags --libs pctr-libcpc) && ./cpc' \
	>"$tmp/log" 2>&1
ok $? "a libcpc program: pkg-config pctr-libcpc, runs and counts"

# 8: a pmc_lib program with the seed's compile line
cp "$src/tests/compat/pmclib/installed_pmc.c" "$root/tmp/pmc.c"
in_root 'cd /tmp && gcc -o pmc -O `pmc_options` pmc.c -lpmc && ./pmc --e task-clock,page-faults | grep "^total  *1 "' \
	>"$tmp/log" 2>&1
ok $? "a pmc_lib program: gcc -O \`pmc_options\` pmc.c -lpmc, runs"

# 9: the command
in_root 'pctr --version && pctr stat -- true' >"$tmp/log" 2>&1 &&
	grep -q "^pctr $(sed -n "s/^ *version : '\(.*\)',$/\1/p" "$src/meson.build")\$" "$tmp/log"
ok $? "pctr --version, pctr stat -- true"

# 10: libpctr-mpi: an MPI program built with mpicc and pkg-config
# pctr-mpi, two ranks under Open MPI's mpirun (root allowed: the chroot
# has no other user); the job's report, gathered over MPI by rank 0, has
# both ranks and the page faults of the 64 pages each touched
cat >"$root/tmp/mpi.c" <<'PROG'
#include <mpi.h>
#include <stdlib.h>

int
main(int argc, char **argv)
{
	volatile char *p;

	MPI_Init(&argc, &argv);
	p = calloc(64, 4096);
	for (int i = 0; p && i < 64; i++)
		p[i * 4096] = 1;
	MPI_Barrier(MPI_COMM_WORLD);
	MPI_Finalize();
	return 0;
}
PROG
mpi_job 'apt-get install -y -qq openmpi-bin libopenmpi-dev >/dev/null &&
	cd /tmp && mpicc -o mpi mpi.c $(pkg-config --cflags --libs pctr-mpi)' \
	mpi "an MPI program: pkg-config pctr-mpi, 2 ranks under mpirun, one report"

# 11: python3-pctr: examples/count.py, as the README runs it, counts the
# 4096 page faults of its 16 MiB as count.c does
cp "$src/examples/count.py" "$root/tmp/count.py"
in_root 'python3 /tmp/count.py task-clock,page-faults' >"$tmp/log" 2>&1 &&
	grep -Eq '^ +4096  page-faults$' "$tmp/log"
ok $? "python3-pctr: count.py counts the 4096 page faults of 16 MiB"
sed 's/^/#   /' "$tmp/log"

# 12: module pctr as the README builds it: gfortran (a dependency of
# libpctr-fortran-dev) and pkg-config pctr-fortran; its page faults counted
cp "$src/examples/count.f90" "$root/tmp/count.f90"
in_root 'cd /tmp && gfortran -o countf count.f90 $(pkg-config --cflags --libs pctr-fortran) &&
	./countf task-clock,page-faults' >"$tmp/log" 2>&1 &&
	awk '$2 == "page-faults" && $1 > 0 { pf = 1 } END { exit !pf }' "$tmp/log"
ok $? "gfortran count.f90 \$(pkg-config --cflags --libs pctr-fortran), counts"
sed 's/^/#   /' "$tmp/log"

# 13: a Fortran MPI program (use mpi) linked with -lpctr-mpi before
# mpifort's libraries: its MPI_INIT and MPI_FINALIZE give the job's report
cp "$src/tests/mpi/mpi_intercepted.f90" "$root/tmp/mpif.f90"
mpi_job 'cd /tmp && mpifort -o mpif mpif.f90 -lpctr-mpi' mpif \
	"a Fortran MPI program: mpifort -lpctr-mpi, 2 ranks, one report"

echo "# $(($(date +%s) - started)) s"
exit $fail
