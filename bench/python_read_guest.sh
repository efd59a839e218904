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
. "$top/bench/guest_python.sh"
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
guest_tree_python "$tree" "$build" || exit 1
guest_tree_launcher "$tree" python_read.py
[ $# -gt 0 ] || set -- --events hardware -t 11
status=0
"$top/tests/hw/run-in-guest.sh" --arch x86_64 --root "$tree" \
	-f "$top/bench/python_read.py" "$tree/run" "$@" || status=$?
exit $status
