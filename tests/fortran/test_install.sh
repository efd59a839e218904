#!/bin/sh
# test_install.sh SRCDIR BUILDDIR - module pctr as installed (TAP): meson
# install into a scratch directory (as make install PREFIX=DIR does), then
# examples/count.f90 and a marked program built the way the README says,
# gfortran prog.f90 $(pkg-config --cflags --libs pctr-fortran), and run.
src=$1 build=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

ok() { # STATUS DESCRIPTION; the log of a failure is $tmp/log
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		tail -n 20 "$tmp/log" | sed 's/^/# /'
		fail=1
	fi
}

echo "1..5"
meson install -C "$build" --no-rebuild --quiet --tags runtime,devel \
	--destdir "$tmp/root" >"$tmp/log" 2>&1
ok $? "meson install --tags runtime,devel"
pc=$(find "$tmp/root" -name pctr-fortran.pc)
mod=$(find "$tmp/root" -path '*/fortran/gfortran-mod-*/pctr.mod')
{ [ -n "$pc" ] && [ -n "$mod" ] &&
	find "$tmp/root" -name libpctr-fortran.a | grep -q . &&
	find "$tmp/root" -name pctr_marker_f.h | grep -q .; } >"$tmp/log" 2>&1
ok $? "pctr-fortran.pc, pctr.mod, libpctr-fortran.a, pctr_marker_f.h"
echo "# ${pc#$tmp/root}, ${mod#$tmp/root}"

# the .pc files where they are, their prefix taken from there
export PKG_CONFIG_PATH="${pc%/*}" PKG_CONFIG_LIBDIR="${pc%/*}"
flags() { pkg-config --define-prefix "$@" pctr-fortran; }
export LD_LIBRARY_PATH="$(flags --variable=libdir)"
cd "$tmp" || exit 1
# MALLOC_PERTURB_ (meson sets it): glibc fills the freed 16 MiB, one page
# fault more (test_count_twin.sh)
gfortran "$src/examples/count.f90" -o count $(flags --cflags --libs) \
	>"$tmp/log" 2>&1 &&
	MALLOC_PERTURB_=0 ./count page-faults >"$tmp/log" 2>&1 &&
	grep -qx '                4096  page-faults' "$tmp/log"
ok $? "gfortran count.f90 \$(pkg-config --cflags --libs pctr-fortran): 4096 page faults"

cat >marked.F90 <<'PROG'
#include <pctr_marker_f.h>
program marked
  PCTR_MARKER_USE
  implicit none
  PCTR_MARKER_INIT()
  PCTR_REGION_BEGIN('solve')
  PCTR_REGION_END('solve')
end program
PROG
gfortran -DPCTR_ENABLE marked.F90 -o marked $(flags --cflags --libs) \
	>"$tmp/log" 2>&1 &&
	PCTR_REPORT=stderr ./marked >"$tmp/log" 2>&1 &&
	grep -q -- '--- solve ---' "$tmp/log"
ok $? "markers on: the region in the report at exit"
gfortran marked.F90 -o unmarked $(flags --cflags) >"$tmp/log" 2>&1 &&
	./unmarked >"$tmp/log" 2>&1 && ! nm unmarked | grep -qi pctr
ok $? "markers off: built without the library, nothing of it in the program"
exit $fail
