#!/bin/sh
# SPDX-License-Identifier: MIT
#
# in_chroot.sh PROGRAM - run a reproducer that runs itself again (under
# valgrind, say) inside a chroot, as a user who runs make check in one
# does, and pass on its verdict.  The chroot: a private mount namespace,
# a tmpfs root holding the host's /usr, /etc, /dev, /proc and /tmp, a
# sysfs of its own (without tracefs mounted, as on a fresh machine) and
# the program's directory at /src.  A program that found itself again
# through the path readlink() gives for /proc/self/exe failed here: after
# it unshared its mount namespace to mount tracefs, that path named
# nothing in the chroot (tests/repro/repro.h, repro_self_for_exec()).
#
# Needs root and unshare(1): skipped without them, failed where CI=true.
prog=$1
name=$(basename "$prog")
echo "1..1"

cannot() {
	if [ "${CI:-}" = true ]; then
		echo "not ok 1 - $name in a chroot: $1 (CI=true: a tier that cannot run fails)"
		exit 1
	fi
	echo "ok 1 # SKIP $name in a chroot: $1"
	exit 0
}

[ "$(id -u)" = 0 ] || cannot "making a chroot needs root"
command -v unshare >/dev/null 2>&1 || cannot "no unshare(1)"
unshare -m true 2>/dev/null || cannot "unshare -m failed: no new mount namespace here"

out=$(unshare -m sh -c '
	set -e
	r=$(mktemp -d /tmp/pctr-chroot.XXXXXX)
	mount -t tmpfs root "$r"
	for d in usr etc dev proc tmp; do
		mkdir -p "$r/$d"
		mount --rbind "/$d" "$r/$d"
	done
	for l in bin sbin lib lib32 lib64; do
		if [ -L "/$l" ]; then
			ln -s "$(readlink "/$l")" "$r/$l"
		elif [ -d "/$l" ]; then
			mkdir "$r/$l" && mount --rbind "/$l" "$r/$l"
		fi
	done
	mkdir "$r/sys" "$r/src"
	mount -t sysfs sysfs "$r/sys"
	mount --bind "$(dirname "$0")" "$r/src"
	exec chroot "$r" "/src/$1"
' "$prog" "$name" 2>&1)
status=$?
printf '%s\n' "$out" | sed 's/^/# /'
verdict=$(printf '%s\n' "$out" | grep -E '^(not )?ok 1' | tail -n1)
case $verdict in
"ok 1 # SKIP"*) echo "ok 1 # SKIP $name in a chroot: ${verdict#ok 1 # SKIP }" ;;
"ok 1"*) [ "$status" = 0 ] && echo "ok 1 - $name in a chroot" ||
	echo "not ok 1 - $name in a chroot: it said ok but exited with $status" ;;
"not ok 1"*) echo "not ok 1 - $name in a chroot: ${verdict#not ok 1 - }" ;;
*) echo "not ok 1 - $name in a chroot: no verdict, exit status $status: $(printf '%s\n' "$out" | tail -n1)" ;;
esac
case $verdict in "not ok"*) exit 1 ;; "") exit 1 ;; esac
[ "$status" = 0 ] || case $verdict in "ok 1 # SKIP"*) ;; *) exit 1 ;; esac
exit 0
