#!/bin/bash
# python_read_guest.sh [BUILD] - bench/python_read.py in the x86-64 guest,
# where counters of hardware events are read in user space (rdpmc), the
# path the Python binding's target is stated for and the development host
# (no PMU) cannot take.
#
# The guest is tests/hw's x86-64 one (tests/hw/run-in-guest.sh: QEMU with
# tests/hw/qemu/*.patch, Debian's kernel, -icount shift=0), with Debian's
# python3.11 (this machine's /usr/bin/python3.11, its standard library and
# the shared libraries it and its extension modules need) and BUILD's
# pctr package and libpctr.so.  Under -icount shift=0 the guest's clock
# advances one nanosecond per instruction executed, so the "ns" of
# python_read.py's table there are instructions, user and kernel: an
# exact count of work rather than a time.
#
# usage: bench/python_read_guest.sh [BUILD] [python_read.py options]
#   BUILD defaults to build; python_read.py runs with --events hardware
#   (1 and 4 instructions:u counters) and -t 11 unless given others.
# Needs what tests/hw/run.sh --arch x86_64 --prepare leaves in its caches.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=build
if [ $# -gt 0 ] && [ -d "$1" ]; then
	build=$1
	shift
fi
build=$(cd "$build" && pwd)
py=/usr/bin/python3.11
pkg=$build/bindings/python/pctr
[ -x "$py" ] || { echo "python_read_guest.sh: no $py (apt-get install python3.11)" >&2; exit 1; }
[ -d "$pkg" ] || { echo "python_read_guest.sh: no $pkg (build first)" >&2; exit 1; }
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT

# FILE and the shared libraries it needs, at their paths
with_libs() {
	local f lib
	for f in "$@"; do
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
	done | sort -u | while read -r lib; do
		mkdir -p "$tree$(dirname "$lib")"
		[ -e "$tree$lib" ] || cp -L "$lib" "$tree$lib"
	done
}

stdlib=/usr/lib/python3.11
mkdir -p "$tree/usr/bin" "$tree$stdlib"
cp "$py" "$tree/usr/bin/"
# the standard library without what no benchmark imports
(cd "$stdlib" && tar -c --exclude=./test --exclude=./idlelib \
	--exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip \
	--exclude=./lib2to3 --exclude=./pydoc_data --exclude='./config-*' \
	--exclude=./site-packages --exclude=./dist-packages .) |
	(cd "$tree$stdlib" && tar -x)
with_libs "$py" "$stdlib"/lib-dynload/*.so "$pkg"/_pctr*.so "$build/src/libpctr.so.0"
cp -a "$pkg" "$tree$stdlib/pctr"
rm -rf "$tree$stdlib/pctr/"*.p
# libpctr where the loader looks without the build tree's RUNPATH
lib=$(dirname "$(ldd "$py" | awk '/libc.so/ { print $3 }')")
cp -L "$build/src/libpctr.so.0" "$tree$lib/"

launcher=$tree/pyread
cat >"$launcher" <<EOF
#!$py
import runpy, sys
sys.argv = ["python_read.py"] + sys.argv[1:]
runpy.run_path("/hw/python_read.py", run_name="__main__")
EOF
chmod +x "$launcher"
[ $# -gt 0 ] || set -- --events hardware -t 11
exec "$top/tests/hw/run-in-guest.sh" --arch x86_64 --root "$tree" \
	-f "$top/bench/python_read.py" "$launcher" "$@"
