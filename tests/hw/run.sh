#!/bin/bash
# tests/hw/run.sh - the hardware tests, in throw-away QEMU guests whose
# emulated PMU counts instructions exactly: arm64 (PMUv3) or x86-64 (Intel
# architectural PMU, QEMU built with tests/hw/qemu/*.patch).
#
# usage: tests/hw/run.sh [options] [OUT.tap]
#   --arch A       aarch64 (default) or x86_64
#   --bench        also write bench/hw-read-cost.md from test_hw_cost's figures
#   --only LIST    run only these test programs (comma-separated names)
#   --case NAME    run only this test case of the chosen programs (TEST_ONLY)
#   -j N           guests booted at once (default: number of CPUs, at most 4)
#   -h             this text
#
# Steps: install what is missing (Debian 12, as root or with sudo -n):
# qemu-system-arm, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, cpio, and,
# with the arm64 dpkg architecture, libpfm4-dev:arm64; fetch Debian's arm64
# kernel into $PCTR_HW_CACHE; cross-build libpctr and tests/hw statically
# into build-aarch64 (tests/hw/aarch64.ini); boot one guest per test
# program (tests/hw/hw_init.c is its PID 1) and print every test case's TAP
# line, numbered across programs, to stdout and OUT.tap.  Console logs stay
# in build-aarch64/hw-logs/.  With --arch x86_64: libpfm4-dev, a static
# native build in build-x86_64, Debian's amd64 kernel, and the QEMU that
# tests/hw/qemu/build.sh installed (guest.sh says how each guest boots).
#
# When the guest cannot run here (no QEMU and no root to install it, no
# kernel to boot) it prints one line "# SKIP hardware tests: <why>" and exits
# 0.  A program whose guest dies or times out fails.  Exit 1 if any test
# case failed.
#
# environment: PCTR_HW_ARCH (default aarch64), PCTR_HW_CACHE (default
#   /var/tmp/pctr-hw: kernel cache), PCTR_HW_KERNEL (a kernel image to boot
#   instead), PCTR_HW_BUILD (default build-ARCH), PCTR_HW_QEMU (default
#   qemu-system-aarch64; for x86_64 the newest
#   /var/tmp/pctr-qemu-*/bin/qemu-system-x86_64), PCTR_HW_TIMEOUT (seconds
#   per guest, default 600).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${PCTR_HW_CACHE:-/var/tmp/pctr-hw}
arch=${PCTR_HW_ARCH:-aarch64}
guest_timeout=${PCTR_HW_TIMEOUT:-600}
bench=0 only= case_only= out=
. "$here/guest.sh" || exit 1
jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -gt 4 ] && jobs=4

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift ;;
	--bench) bench=1 ;;
	--only) only=$2; shift ;;
	--case) case_only=$2; shift ;;
	-j) jobs=$2; shift ;;
	-h | --help) usage 0 ;;
	-*) usage ;;
	*) out=$1 ;;
	esac
	shift
done
case $arch in
aarch64) qemu=${PCTR_HW_QEMU:-qemu-system-aarch64} ;;
x86_64) qemu=${PCTR_HW_QEMU:-$(guest_find_qemu qemu-system-x86_64)} ;;
*) usage ;;
esac
build=${PCTR_HW_BUILD:-$top/build-$arch}
out=${out:-$build/hw.tap}
mkdir -p "$(dirname "$out")"
rm -f "$out"

skip() {
	echo "# SKIP hardware tests: $*"
	exit 0
}

# ---- packages -------------------------------------------------------------

as_root() {
	if [ "$(id -u)" = 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
		sudo -n "$@"
	else
		return 126
	fi
}

can_root() { [ "$(id -u)" = 0 ] || { command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; }; }

installed() { dpkg-query -W -f='${Status}\n' "$1" 2>/dev/null | grep -q '^install ok installed'; }

ensure_packages() {
	local want="qemu-system-arm gcc-aarch64-linux-gnu libc6-dev-arm64-cross cpio meson ninja-build python3 libpfm4-dev:arm64"
	local missing= p log=$cache/apt.log

	[ "$arch" = x86_64 ] && want="gcc libc6-dev cpio meson ninja-build python3 libpfm4-dev qemu-system-data"

	command -v dpkg-query >/dev/null 2>&1 ||
		skip "not a Debian system: install qemu-system-aarch64, an aarch64 cross compiler and a static aarch64 libpfm by hand"
	for p in $want; do installed "$p" || missing="$missing $p"; done
	[ -z "$missing" ] && return 0
	can_root || skip "missing packages:$missing (run as root, or: sudo apt-get install$missing, after dpkg --add-architecture arm64)"
	mkdir -p "$cache"
	echo "# installing:$missing" >&2
	export DEBIAN_FRONTEND=noninteractive
	if [ "$arch" = aarch64 ] && ! dpkg --print-foreign-architectures | grep -qx arm64; then
		as_root dpkg --add-architecture arm64 || skip "dpkg --add-architecture arm64 failed"
	fi
	{
		as_root apt-get -o DPkg::Lock::Timeout=300 update -qq &&
			as_root apt-get -o DPkg::Lock::Timeout=300 install -y -qq \
				--no-install-recommends $missing
	} >"$log" 2>&1 || skip "apt-get could not install$missing (log: $log)"
}

# ---- guest kernel ---------------------------------------------------------

# Debian's kernel for the guest (guest.sh: whatever linux-image-ARCH
# depends on), and QEMU's options for it.
ensure_kernel() {
	PCTR_HW_QEMU=$qemu guest_setup "$arch" || skip "$guest_error"
	kernel=$guest_kernel
}

# ---- cross build ----------------------------------------------------------

# Prints "not ok" and exits 1: a build failure is a test failure.
build_fail() {
	echo "not ok 1 - build the $arch hardware tests: $1" | tee "$out"
	echo "1..1" | tee -a "$out"
	exit 1
}

cross_build() {
	local log=$build/hw-build.log targets

	local reconf=

	mkdir -p "$build"
	# reconfigure every time: meson.build lists tests that exist on disk
	[ -f "$build/build.ninja" ] && reconf=--reconfigure
	local cross=(--cross-file "$here/aarch64.ini")

	[ "$arch" = x86_64 ] && cross=()
	meson setup $reconf "$build" "$top" "${cross[@]}" \
		-Dstatic_deps=true -Ddefault_library=static -Dtools=false \
		>"$build/hw-setup.log" 2>&1 ||
		{ tail -30 "$build/hw-setup.log" >&2; build_fail "meson setup (log: $build/hw-setup.log)"; }
	# only the guest's programs: the rest of the tree is for the host
	# the programs of tests/hw, in the order meson.build lists them
	meson introspect --targets "$build" | python3 -c '
import json, sys, os
for t in json.load(sys.stdin):
    f = t["filename"][0]
    if t["type"] == "executable" and os.path.dirname(f).endswith("/tests/hw"):
        print(os.path.relpath(f, sys.argv[1]))' "$build" >"$build/hw-targets.txt" ||
		build_fail "meson introspect"
	targets=$(cat "$build/hw-targets.txt")
	# shellcheck disable=SC2086
	ninja -C "$build" $targets >"$log" 2>&1 || { tail -30 "$log" >&2; build_fail "ninja (log: $log)"; }
	hw_bin=$build/tests/hw
}

# ---- runs -----------------------------------------------------------------

# "hw-run:" lines in a test's source each add one run with their own options
# (uid=N, sysctl=a=1,b=2); a test without any runs once as root.
plan_lines() { # NAME
	local name=$1 src=$here/$1.c n=0 line uid sys tok

	while IFS= read -r line; do
		uid=- sys=-
		for tok in ${line#*hw-run:}; do
			case $tok in
			uid=*) uid=${tok#uid=} ;;
			sysctl=*) sys=${tok#sysctl=} ;;
			esac
		done
		n=$((n + 1))
		echo "$name.$n $uid $sys /hw/$name"
	done < <(grep -o 'hw-run:.*' "$src" 2>/dev/null | sed 's,\*/.*,,')
	[ "$n" = 0 ] && echo "$name - - /hw/$name"
}

# Boot one guest for test program NAME; its console goes to LOG.
boot() { # NAME LOG
	local name=$1 log=$2 work args= status

	work=$(mktemp -d "${TMPDIR:-/tmp}/pctr-hw.XXXXXX") || return 1
	mkdir -p "$work/root/hw"
	cp "$hw_bin/$name" "$hw_bin/hw_loop" "$work/root/hw/"
	plan_lines "$name" >"$work/root/hw/plan"
	[ -n "$case_only" ] && args="TEST_ONLY=$case_only"
	guest_init=$hw_bin/hw_init
	PCTR_HW_TIMEOUT=$guest_timeout guest_boot "$work" "$log" "$args"
	status=$?
	echo "# guest $name: $(plan_lines "$name" | wc -l) run(s), ${SECONDS}s since start, qemu status $status" >>"$log.status"
	rm -rf "$work"
}

# TAP of one guest, unnumbered ("ok - LABEL: case"); missing runs fail.
report() { # NAME LOG
	local labels

	labels=$(plan_lines "$1" | awk '{ print $1 }' | tr '\n' ' ')
	awk -v labels="$labels" -v logf="$2" '
	function close_run(why) {
		if (why != "")
			print "not ok - " run ": " why
		else if (res < plan)
			print "not ok - " run ": " plan - res " test case(s) did not report"
		else if (status != 0 && fails == 0)
			print "not ok - " run ": exited with status " status
		done[run] = 1
		run = ""
	}
	/^PCTR-HW-BEGIN / { run = $2; plan = 0; res = 0; fails = 0; status = 0; next }
	/^PCTR-HW-END / { status = $3; close_run(""); next }
	run == "" { next }
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
	/^not ok / { res++; fails++; sub(/^not ok [0-9]+ - /, ""); print "not ok - " run ": " $0; next }
	/^ok / { res++; sub(/^ok [0-9]+ - /, ""); print "ok - " run ": " $0; next }
	/^#/ { print; next }
	{ print "# " $0 }
	END {
		if (run != "")
			close_run("the guest died or timed out during this run (console: " logf ")")
		n = split(labels, want, " ")
		for (i = 1; i <= n; i++)
			if (!(want[i] in done))
				print "not ok - " want[i] ": never started: the guest died or timed out (console: " logf ")"
	}' "$2"
}

number() { # reads unnumbered TAP, continues the count in $count
	local line
	while IFS= read -r line; do
		case $line in
		"ok - "*) count=$((count + 1)); line="ok $count - ${line#ok - }" ;;
		"not ok - "*"# TODO"*) count=$((count + 1)); line="not ok $count - ${line#not ok - }" ;;
		"not ok - "*) count=$((count + 1)); failed=$((failed + 1)); line="not ok $count - ${line#not ok - }" ;;
		esac
		printf '%s\n' "$line" | tee -a "$out"
	done
}

write_bench() { # LOG of test_hw_cost
	local md=$top/bench/hw-read-cost.md
	{
		echo "# Cost of reading counters, in instructions (emulated arm64 PMU)"
		echo
		echo "Measured exactly inside a QEMU TCG guest (\`-cpu max -icount shift=0\`,"
		echo "Debian's arm64 kernel, \`randomize_kstack_offset=off\`) by"
		echo "\`tests/hw/test_hw_cost.c\`.  Regenerate with:"
		echo
		echo "    tests/hw/run.sh --bench --only test_hw_cost"
		echo
		echo "* **pair**: what the set's own user-mode count shows for"
		echo "  \`pctr_set_read(); pctr_set_read();\` with nothing between: the"
		echo "  constant every measurement carries."
		echo "* **per read, user / total**: instructions of one \`pctr_set_read()\`,"
		echo "  counted by a second set around K and 2K reads (difference taken),"
		echo "  user mode only / user and kernel (minimum over trials: a timer tick"
		echo "  adds thousands)."
		echo
		echo "| read path | events | pair | per read, user | per read, total |"
		echo "|---|---:|---:|---:|---:|"
		grep -a '^# cost|' "$1" | cut -d'|' -f2- | sed 's/^/| /; s/$/ |/'
		echo
		echo "Kernel: $(basename "$(readlink -f "$kernel")"); QEMU: $("$qemu" --version | head -n1)."
	} >"$md"
	echo "# wrote $md"
}

# ---- main -----------------------------------------------------------------

[ -n "$qemu" ] || skip "no qemu-system-x86_64 with the emulated PMU (build it: tests/hw/qemu/build.sh)"
command -v "$qemu" >/dev/null 2>&1 || can_root ||
	skip "no $qemu, and no root to install qemu-system-arm"
mkdir -p "$cache" 2>/dev/null || true
ensure_packages
command -v "$qemu" >/dev/null 2>&1 || skip "no $qemu after installing qemu-system-arm"
ensure_kernel
cross_build

names=$(sed -n 's,^tests/hw/\(test_hw_[A-Za-z0-9_]*\)$,\1,p' "$build/hw-targets.txt")
if [ -n "$only" ]; then
	names=$(for n in ${only//,/ }; do echo "$names" | grep -qx "$n" && echo "$n"; done)
	[ -n "$names" ] || build_fail "--only $only matches no built test program"
fi

logs=$build/hw-logs
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.status
echo "# hardware tests: $(echo $names | wc -w) program(s), $jobs guest(s) at a time, kernel $(basename "$(readlink -f "$kernel")")"
SECONDS=0
running=0
for n in $names; do
	if [ "$running" -ge "$jobs" ]; then
		wait -n
		running=$((running - 1))
	fi
	boot "$n" "$logs/$n.log" &
	running=$((running + 1))
done
wait

count=0 failed=0
for n in $names; do
	cat "$logs/$n.log.status" 2>/dev/null
	number < <(report "$n" "$logs/$n.log")
done
echo "1..$count" | tee -a "$out"
echo "# hardware tests: $count test case(s), $failed failed, ${SECONDS}s"
grep -aq '^# cost|' "$logs/test_hw_cost.log" 2>/dev/null && [ "$bench" = 1 ] &&
	write_bench "$logs/test_hw_cost.log"
[ "$failed" = 0 ]
