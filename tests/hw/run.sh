#!/bin/bash
# tests/hw/run.sh - the hardware tests, in throw-away QEMU guests whose
# emulated PMU counts instructions exactly: arm64 (PMUv3) or x86-64 (Intel
# architectural PMU, QEMU built with tests/hw/qemu/*.patch).
#
# usage: tests/hw/run.sh [options] [OUT.tap]
#   --arch A       aarch64 (default) or x86_64
#   --bench        also write bench/hw-read-cost.md (x86_64:
#                  bench/hw-read-cost-x86_64.md) from test_hw_cost's figures
#   --only LIST    run only these test programs (comma-separated names)
#   --case NAME    run only this test case of the chosen programs (TEST_ONLY)
#   --repeat N     run each case N times in a row in its guest (TEST_REPEAT;
#                  the guest's CPU limit, PCTR_HW_TIMEOUT, is N times its
#                  default unless set)
#   -j N           guests booted at once (default: number of CPUs, at most 4)
#   --packages     install what is missing, then stop
#   --prepare      also build QEMU, fetch the kernel (and perf), build the
#                  guest's programs, then stop: make check does all that
#                  beside its other stages (scripts/check.sh)
#   -h             this text
#
# Steps: install what is missing (Debian 12, as root or with sudo -n):
# qemu-system-arm, gcc-aarch64-linux-gnu, libc6-dev-arm64-cross, cpio,
# QEMU's build dependencies and, with the arm64 dpkg architecture,
# libpfm4-dev:arm64; build Debian's QEMU with tests/hw/qemu/*.patch
# (tests/hw/qemu/build.sh, cached in /var/tmp/pctr-qemu-<hash>); fetch
# Debian's arm64 kernel into $PCTR_HW_CACHE; cross-build libpctr and
# tests/hw statically into build-aarch64 (tests/hw/aarch64.ini); boot one
# guest per test program (tests/hw/hw_init.c is its PID 1) and print every
# test case's TAP line, numbered across programs, to stdout and OUT.tap.
# Console logs stay in build-aarch64/hw-logs/.  With --arch x86_64:
# libpfm4-dev, a static native build in build-x86_64, Debian's amd64
# kernel, and qemu-system-x86_64 with the Intel architectural PMU of
# tests/hw/qemu/0002-*.patch (guest.sh says how each guest boots).
#
# When the guest cannot run here (no root to install what is missing, no
# QEMU, no kernel to boot) OUT.tap still says so: "1..0 # SKIP <why>" and
# exit 0, or with CI=true "not ok 1 - <why>" and exit 1.  A build failure
# (of QEMU too) is a "not ok".  When a guest dies or times out, every case
# of its program that did not report is a "not ok".  Exit 1 if any test
# case failed.
#
# environment: PCTR_HW_ARCH (default aarch64), PCTR_HW_CACHE (default
#   /var/tmp/pctr-hw: kernel cache), PCTR_HW_KERNEL (a kernel image to boot
#   instead), PCTR_HW_BUILD (default build-ARCH), PCTR_HW_QEMU (a
#   qemu-system-ARCH to use instead of the patched build; stock QEMU 7.2
#   fails the overflow cases on instructions on arm64 and has no x86 PMU),
#   PCTR_HW_TIMEOUT (seconds of CPU a guest's QEMU may use, default 600),
#   PCTR_HW_STALL (seconds a guest may use no CPU, default 120; see
#   guest_run_limited in guest.sh), CI.
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache=${PCTR_HW_CACHE:-/var/tmp/pctr-hw}
arch=${PCTR_HW_ARCH:-aarch64}
qemu=
bench=0 only= case_only= repeat=1 out= stop=
. "$here/guest.sh" || exit 1
. "$here/perf.sh" || exit 1
jobs=$(nproc 2>/dev/null || echo 1)
[ "$jobs" -gt 4 ] && jobs=4

usage() { sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-2}"; }

while [ $# -gt 0 ]; do
	case $1 in
	--arch) arch=$2; shift ;;
	--bench) bench=1 ;;
	--only) only=$2; shift ;;
	--case) case_only=$2; shift ;;
	--repeat) repeat=$2; shift ;;
	-j) jobs=$2; shift ;;
	--packages) stop=packages ;;
	--prepare) stop=prepare ;;
	-h | --help) usage 0 ;;
	-*) usage ;;
	*) out=$1 ;;
	esac
	shift
done
case $arch in
aarch64 | x86_64) ;;
*) usage ;;
esac
case $repeat in
'' | 0 | *[!0-9]*) echo "run.sh: --repeat wants a count of runs, not '$repeat'" >&2; exit 2 ;;
esac
[ "$repeat" != 1 ] && export PCTR_HW_TIMEOUT=${PCTR_HW_TIMEOUT:-$((600 * repeat))}
build=${PCTR_HW_BUILD:-$top/build-$arch}
out=${out:-$build/hw.tap}
mkdir -p "$(dirname "$out")"
rm -f "$out"

# The tier cannot run here: say so in OUT.tap, which scripts/summary.py
# reads; under CI that is a failure.
skip() {
	if [ "${CI:-}" = true ]; then
		printf 'not ok 1 - hardware tests cannot run: %s\n1..1\n' "$*" | tee "$out"
		exit 1
	fi
	echo "1..0 # SKIP hardware tests cannot run: $*" | tee "$out"
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
	local want="qemu-system-arm gcc-aarch64-linux-gnu gfortran-aarch64-linux-gnu libc6-dev-arm64-cross cpio meson ninja-build python3 libpfm4-dev:arm64"
	local missing= p log=$cache/apt.log

	[ "$arch" = x86_64 ] && want="gcc gfortran libc6-dev cpio meson ninja-build python3 libpfm4-dev qemu-system-data"
	# tests/hw/qemu/build.sh's, as scripts/deps.sh qemu lists them
	[ -z "${PCTR_HW_QEMU:-}" ] &&
		want="$want dpkg-dev xz-utils patch gcc libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev"

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

# ---- QEMU -----------------------------------------------------------------

# The patched build (cached: seconds once built), or $PCTR_HW_QEMU.
ensure_qemu() {
	local dir

	if [ -n "${PCTR_HW_QEMU:-}" ]; then
		command -v "$PCTR_HW_QEMU" >/dev/null 2>&1 ||
			skip "PCTR_HW_QEMU=$PCTR_HW_QEMU is not a program"
		qemu=$PCTR_HW_QEMU
		return
	fi
	dir=$("$here/qemu/build.sh" "$arch-softmmu") ||
		build_fail "tests/hw/qemu/build.sh: the patched QEMU did not build (log: /var/tmp/pctr-qemu-*.log)"
	qemu=$dir/qemu-system-$arch
	echo "# qemu: $qemu" >&2
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

# A test program's source: NAME.c, or NAME.f90 (test_hw_fortran)
source_of() { # NAME
	if [ -f "$here/$1.f90" ]; then
		echo "$here/$1.f90"
	else
		echo "$here/$1.c"
	fi
}

# "hw-run:" lines in a test's source each add one run with their own options
# (uid=N, sysctl=a=1,b=2); a test without any runs once as root.
plan_lines() { # NAME
	local name=$1 src n=0 line uid sys tok

	src=$(source_of "$name")

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
	# "hw-perf:" in a test's source: Debian's perf in the guest (perf.sh)
	grep -q 'hw-perf:' "$(source_of "$name")" 2>/dev/null && hw_perf_install "$work/root"
	[ -n "$case_only" ] && args="TEST_ONLY=$case_only"
	[ "$repeat" != 1 ] && args="$args TEST_REPEAT=$repeat"
	guest_init=$hw_bin/hw_init
	# "hw-smp: N" in a test's source: the guest has N CPUs (default 1)
	guest_smp=$(sed -n 's/.*hw-smp: *\([0-9][0-9]*\).*/\1/p' "$(source_of "$name")" | head -n1)
	guest_why=
	guest_boot "$work" "$log" "$args"
	status=$?
	guest_smp=
	echo "# guest $name: $(plan_lines "$name" | wc -l) run(s), ${SECONDS}s since start, qemu status $status" >>"$log.status"
	echo "$guest_why" >"$log.why"
	rm -rf "$work"
}

# The cases a run of NAME should report: TEST_CASE()/TEST_TODO() of its
# source, in order, or just --case.  Cases listed under "#ifdef
# __x86_64__" or "#ifndef __x86_64__" (and #else) count for that
# architecture only; other conditionals are taken as true.
case_names() { # NAME
	if [ -n "$case_only" ]; then
		echo "$case_only"
		return
	fi
	awk -v x86="$([ "$arch" = x86_64 ] && echo 1 || echo 0)" '
	function on() { for (i = 1; i <= n; i++) if (!keep[i]) return 0; return 1 }
	/^#[ \t]*ifdef[ \t]+__x86_64__/ { keep[++n] = x86; ours[n] = 1; next }
	/^#[ \t]*ifndef[ \t]+__x86_64__/ { keep[++n] = !x86; ours[n] = 1; next }
	/^#[ \t]*if/ { keep[++n] = 1; ours[n] = 0; next }
	/^#[ \t]*else/ { if (ours[n]) keep[n] = !keep[n]; next }
	/^#[ \t]*endif/ { n--; next }
	on() { print }' "$(source_of "$1")" |
		grep -o 'TEST_\(CASE\|TODO\)([A-Za-z0-9_]*' | sed 's/.*(//'
}

# TAP of one guest, unnumbered ("ok - LABEL: case").  Every case of a run
# that did not report (the program crashed, the guest died or timed out)
# is one "not ok"; so is a run that exited non-zero with no failed case.
report() { # NAME LOG
	local labels cases

	labels=$(plan_lines "$1" | awk '{ print $1 }' | tr '\n' ' ')
	cases=$(case_names "$1" | tr '\n' ' ')
	why=$(cat "$2.why" 2>/dev/null)
	awk -v labels="$labels" -v cases="$cases" -v logf="$2" -v ended="${why:-ended, no word of how}" '
	function close_run(why,    i, missing) {
		missing = 0
		for (i = 1; i <= ncase; i++)
			if (!((run, casev[i]) in got)) {
				print "not ok - " run ": " casev[i] ": never reported: " why
				missing++
			}
		if (missing == 0 && res == 0 && plan == 0 && ncase == 0)
			print "not ok - " run ": no case reported: " why
		else if (res < plan && missing < plan - res)
			print "not ok - " run ": " plan - res - missing " more planned case(s) never reported: " why
		else if (status != 0 && fails == 0 && missing == 0)
			print "not ok - " run ": exited with status " status
		done[run] = 1
		run = ""
	}
	function result(line, ok,    name) {
		res++
		sub(/^(not )?ok [0-9]+ - /, "", line)
		name = line
		sub(/ .*/, "", name)
		got[run, name] = 1
		if (!ok && line !~ /# TODO/)
			fails++
		print (ok ? "ok - " : "not ok - ") run ": " line
	}
	BEGIN {
		ncase = split(cases, casev, " ")
	}
	{ last[NR % 30] = $0 }
	NF { lastline = $0 }
	# a kernel that died: its first report and where (x86 "RIP:", arm64 "pc :")
	oops == "" && /(BUG:|Oops|general protection fault|Unable to handle|Internal error|invalid opcode|double fault)/ {
		oops = $0; sub(/^\[ *[0-9.]*\] */, "", oops)
	}
	oops != "" && where == "" && /(RIP: |pc : )/ { where = $0; sub(/^\[ *[0-9.]*\] */, "", where) }
	/^PCTR-HW-BEGIN / { run = $2; plan = 0; res = 0; fails = 0; status = 0; next }
	/^PCTR-HW-END / { status = $3; close_run("the program exited with status " status); next }
	run == "" { next }
	/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
	/^not ok / { result($0, 0); next }
	/^ok / { result($0, 1); next }
	/^#/ { print; next }
	{ print "# " $0 }
	END {
		# how the guest ended, and the last line of its console
		died = "the guest " ended "; its last console line: " \
			(lastline == "" ? "(none)" : "\"" lastline "\"") \
			(oops == "" ? "" : "; the kernel first said \"" oops "\"" \
			 (where == "" ? "" : " at \"" where "\"")) " (" logf ")"
		if (run != "") {
			close_run(died)
			dead = 1
		}
		n = split(labels, want, " ")
		for (i = 1; i <= n; i++) {
			if (want[i] in done)
				continue
			run = want[i]
			plan = res = status = 0
			fails = 1
			close_run("never started: " died)
			dead = 1
		}
		# the console is gone with the machine it ran on: its end
		# goes into the TAP, the only record CI keeps
		if (dead)
			for (i = (NR > 30 ? NR - 29 : 1); i <= NR; i++)
				print "# console " i ": " last[i % 30]
	}' "$2"
}

number() { # reads unnumbered TAP, continues the count in $count
	local line
	while IFS= read -r line; do
		case $line in
		# a known defect, seen as expected (tests/test.h: ASSERT_KNOWN)
		"not ok - "*"# TODO"*) count=$((count + 1)); line="not ok $count - ${line#not ok - }" ;;
		# the known defect is gone: the TODO must go
		"ok - "*"# TODO"*) count=$((count + 1)); failed=$((failed + 1)); line="ok $count - ${line#ok - }" ;;
		"ok - "*) count=$((count + 1)); line="ok $count - ${line#ok - }" ;;
		"not ok - "*) count=$((count + 1)); failed=$((failed + 1)); line="not ok $count - ${line#not ok - }" ;;
		esac
		printf '%s\n' "$line" | tee -a "$out"
	done
}

write_bench() { # LOG of test_hw_cost
	local md=$top/bench/hw-read-cost.md pmu="emulated arm64 PMU" opt=

	if [ "$arch" = x86_64 ]; then
		md=$top/bench/hw-read-cost-x86_64.md
		pmu="emulated x86-64 PMU"
		opt="--arch x86_64 "
	fi
	{
		echo "# Cost of reading counters, in instructions ($pmu)"
		echo
		echo "Measured exactly inside a QEMU TCG guest (\`-icount shift=0\`,"
		echo "Debian's kernel, \`randomize_kstack_offset=off\`) by"
		echo "\`tests/hw/test_hw_cost.c\`.  Regenerate with:"
		echo
		echo "    tests/hw/run.sh ${opt}--bench --only test_hw_cost"
		echo
		if grep -aq '^# cost|' "$1"; then
			echo "* **pair**: what the set's own user-mode count shows for"
			echo "  \`pctr_set_read(); pctr_set_read();\` with nothing between: the"
			echo "  constant every measurement carries."
			echo "* **per read, user / total**: instructions of one \`pctr_set_read()\`,"
			echo "  counted by a second set around K and 2K reads (difference taken),"
			echo "  user mode only / user and kernel (the least 2K run less the least"
			echo "  K run over the trials: a timer tick adds thousands to the run it"
			echo "  falls in)."
			echo
			echo "| read path | events | pair | per read, user | per read, total |"
			echo "|---|---:|---:|---:|---:|"
			grep -a '^# cost|' "$1" | cut -d'|' -f2- | sed 's/^/| /; s/$/ |/'
			echo
		fi
		echo "Read plans (src/plan.c) against the floor measured in the same"
		echo "boot (tests/hw/hw_floor.h floor_owned: the check that the caller"
		echo "is the thread the pages count, the mmap page's seqlock, the index"
		echo "checked, the counter of a register known when compiling, the"
		echo "offset added with the sign extension; without the check, a read"
		echo "that would crash on another thread, 14 and 57 on arm64, 20 and 77"
		echo "on x86-64), user-mode instructions of"
		echo "one call at a plain call site, less an empty function's; the"
		echo "limit is issue 14's target, asserted by the test."
		echo
		echo "| read | counters | events | floor | pctr | limit |"
		echo "|---|---|---:|---:|---:|---:|"
		grep -a '^# plan|' "$1" | cut -d'|' -f2- | sed 's/^/| /; s/$/ |/'
		echo
		echo "Kernel: $(basename "$(readlink -f "$kernel")"); QEMU: $("$qemu" --version | head -n1)."
	} >"$md"
	echo "# wrote $md"
}

# ---- main -----------------------------------------------------------------

mkdir -p "$cache" 2>/dev/null || true
ensure_packages
[ "$stop" = packages ] && exit 0
ensure_qemu
ensure_kernel
cross_build
# Debian's perf for the programs that compare with it; a test that needs
# it fails with the reason when it cannot be had
grep -qs 'hw-perf:' "$here"/test_hw_*.c && ! hw_perf_fetch "$arch" && echo "# perf: $hw_perf_error" >&2
if [ "$stop" = prepare ]; then
	echo "# prepared: $qemu, $(basename "$(readlink -f "$kernel")"), $build"
	exit 0
fi

names=$(sed -n 's,^tests/hw/\(test_hw_[A-Za-z0-9_]*\)$,\1,p' "$build/hw-targets.txt")
if [ -n "$only" ]; then
	names=$(for n in ${only//,/ }; do echo "$names" | grep -qx "$n" && echo "$n"; done)
	[ -n "$names" ] || build_fail "--only $only matches no built test program"
fi

logs=$build/hw-logs
mkdir -p "$logs"
rm -f "$logs"/*.log "$logs"/*.status
echo "# hardware tests: $(echo $names | wc -w) program(s), $jobs guest(s) at a time, kernel $(basename "$(readlink -f "$kernel")")"
# for the summary (scripts/summary.py): the image and the Debian version in its banner
echo "# guest kernel: $(basename "$(readlink -f "$kernel")")$(grep -a -o -m1 -E ' Debian [0-9][^ ]*' "$kernel" 2>/dev/null | head -n1 | sed 's/^ Debian \(.*\)/ (Debian \1)/')" | tee -a "$out"
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
grep -aqE '^# (cost|plan)\|' "$logs/test_hw_cost.log" 2>/dev/null && [ "$bench" = 1 ] &&
	write_bench "$logs/test_hw_cost.log"
[ "$failed" = 0 ]
