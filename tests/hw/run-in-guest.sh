#!/bin/bash
# tests/hw/run-in-guest.sh - run one static program in a throw-away QEMU
# guest whose emulated PMU counts exactly, print its output, return its
# exit status.
#
# usage: tests/hw/run-in-guest.sh --arch x86_64|aarch64 [options] PROGRAM [ARGS]
#   --arch A        the guest: aarch64 (PMUv3, Debian's qemu-system-arm) or
#                   x86_64 (Intel architectural PMU: needs QEMU built with
#                   tests/hw/qemu/*.patch, see tests/hw/README.md)
#   -s NAME=VALUE   set a sysctl before the program starts (repeatable)
#   -u UID          run as this uid/gid instead of root
#   -f FILE         also copy FILE into the guest's /hw (repeatable)
#   --perf          also Debian's perf, as /usr/bin/perf (tests/hw/perf.sh)
#   --root DIR      also copy the tree DIR into the guest's root (a
#                   dynamic program with its libraries at the paths the
#                   loader searches, as bench/python_read_guest.sh does)
#   -v              also print the guest's console outside the program
#   -h              this text
#
# PROGRAM must be a static executable for the guest's architecture (or one
# whose interpreter and libraries --root gives); it runs
# as /hw/NAME with cwd /tmp and PATH=/hw (tests/hw/hw_init.c is PID 1).
# The x86_64 guest also has /hw/msr.ko, the kernel's msr module, for
# programs that read MSRs through /dev/cpu/0/msr.
#
# Exit status: the program's, 128+N if a signal N killed it, 124 if the
# guest timed out, 125 if the guest could not run or died without a status.
#
# environment: PCTR_HW_CACHE (default /var/tmp/pctr-hw: kernels, PID 1),
#   PCTR_HW_QEMU (the qemu-system-* binary; for x86_64 the default is the
#   newest /var/tmp/pctr-qemu-*/bin/qemu-system-x86_64), PCTR_HW_KERNEL
#   (a kernel image to boot instead of Debian's), PCTR_HW_TIMEOUT (seconds
#   of CPU the guest's QEMU may use, default 600), PCTR_HW_STALL (seconds
#   it may use none, default 120), PCTR_HW_QEMU_ARGS (more QEMU options, e.g. "-trace
#   x86_pmu_wrmsr").
set -u

here=$(cd "$(dirname "$0")" && pwd)
. "$here/guest.sh" || exit 125
. "$here/perf.sh" || exit 125

arch= uid=- sysctls= files= verbose=0 perf=0 roots=

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-125}"; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift ;;
	-s) sysctls=${sysctls:+$sysctls,}$2; shift ;;
	-u) uid=$2; shift ;;
	-f) files="$files $2"; shift ;;
	-v) verbose=1 ;;
	--perf) perf=1 ;;
	--root) roots="$roots $2"; shift ;;
	-h | --help) usage 0 ;;
	--) shift; break ;;
	-*) usage ;;
	*) break ;;
	esac
	shift
done
[ $# -ge 1 ] || usage
case $arch in
x86_64 | aarch64) ;;
*) echo "run-in-guest.sh: --arch x86_64 or --arch aarch64" >&2; exit 125 ;;
esac
prog=$1
shift
[ -x "$prog" ] || { echo "run-in-guest.sh: $prog is not an executable" >&2; exit 125; }

guest_setup "$arch" || { echo "run-in-guest.sh: $guest_error" >&2; exit 125; }
if [ "$perf" = 1 ] && ! hw_perf_fetch "$arch"; then
	echo "run-in-guest.sh: $hw_perf_error" >&2
	exit 125
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/pctr-guest.XXXXXX") || exit 125
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/root/hw"
cp "$prog" "$work/root/hw/"
for f in $files; do cp "$f" "$work/root/hw/" || exit 125; done
[ "$perf" = 1 ] && hw_perf_install "$work/root"
for r in $roots; do cp -a "$r/." "$work/root/" || exit 125; done
printf 'run %s %s /hw/%s' "$uid" "${sysctls:--}" "$(basename "$prog")" >"$work/root/hw/plan"
for a in "$@"; do
	case $a in
	*[[:space:]]*) echo "run-in-guest.sh: arguments cannot contain blanks" >&2; exit 125 ;;
	esac
	printf ' %s' "$a" >>"$work/root/hw/plan"
done
echo >>"$work/root/hw/plan"

guest_boot "$work" "$work/console.log" ""
status=$?
[ "$verbose" = 1 ] && cat "$work/console.log"
[ "$status" = 124 ] && { echo "run-in-guest.sh: the guest $guest_why" >&2; exit 124; }
awk '
/^PCTR-HW-BEGIN run$/ { on = 1; next }
/^PCTR-HW-END run / { print $3 > "/dev/stderr"; exit }
on { print }' "$work/console.log" 2>"$work/status"
if [ ! -s "$work/status" ]; then
	[ "$verbose" = 1 ] || tail -20 "$work/console.log" >&2
	echo "run-in-guest.sh: the guest died without a status: $guest_why" >&2
	exit 125
fi
exit "$(cat "$work/status")"
