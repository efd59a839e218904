#!/bin/bash
# startup_guest.sh [PCTR...] - bench/startup.sh's three commands in the
# x86-64 guest of tests/hw, where the clock counts instructions:
#   pctr stat -e task-clock -- true   (for each PCTR: a command built
#                                      here; default build/tools/pctr)
#   perf stat -e task-clock -- true   (Debian's perf, tests/hw/perf.sh)
#   true
# taking turns (bench/startup_guest.py, Python as bench/guest_python.sh
# gives it).  Under -icount shift=0 the guest's clock advances one
# nanosecond per instruction executed (and jumps over idle time), so
# each figure is the exact work of a run, user and kernel: what the host's
# wall time measures, without the host's noise, on a machine whose
# instructions all cost the same.
#
# usage: bench/startup_guest.sh [PCTR...] [-- startup_guest.py options]
# A PCTR that needs libpctr.so.0 gets its build's copy in the guest's
# library directory: at most one such PCTR.
# Needs what tests/hw/run.sh --arch x86_64 --prepare leaves in its caches.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/bench/guest_python.sh"
pctrs=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
	pctrs+=("$(cd "$(dirname "$1")" && pwd)/$(basename "$1")")
	shift
done
[ "${1:-}" = -- ] && shift
[ ${#pctrs[@]} -gt 0 ] || pctrs=("$top/build/tools/pctr")
tree=$(mktemp -d)
trap 'rm -rf "$tree"' EXIT
guest_tree_python "$tree" || exit 1
guest_tree_launcher "$tree" startup_guest.py
guest_tree_libs "$tree" /usr/bin/true
mkdir -p "$tree/usr/bin"
cp /usr/bin/true "$tree/usr/bin/"
set -- "$@" true=/usr/bin/true perf=/usr/bin/perf,stat,-e,task-clock,--,/usr/bin/true
i=0
libdir=$(guest_tree_libdir)
for p in "${pctrs[@]}"; do
	[ -x "$p" ] || { echo "startup_guest.sh: no $p" >&2; exit 1; }
	i=$((i + 1))
	mkdir -p "$tree/opt/pctr$i"
	cp "$p" "$tree/opt/pctr$i/pctr"
	so=$(ldd "$p" | awk '/libpctr.so.0 => \// { print $3 }')
	if [ -n "$so" ]; then
		[ -e "$tree$libdir/libpctr.so.0" ] &&
			{ echo "startup_guest.sh: two commands want libpctr.so.0" >&2; exit 1; }
		cp -L "$so" "$tree$libdir/libpctr.so.0"
	fi
	guest_tree_libs "$tree" "$p"
	set -- "$@" "pctr$i=/opt/pctr$i/pctr,stat,-e,task-clock,--,/usr/bin/true"
done
for i in $(seq ${#pctrs[@]}); do echo "pctr$i: ${pctrs[$((i - 1))]}"; done
status=0
"$top/tests/hw/run-in-guest.sh" --arch x86_64 --perf --root "$tree" \
	-f "$top/bench/startup_guest.py" "$tree/run" "$@" || status=$?
exit $status
