#!/bin/sh
# check.sh MODE - run the test suites; every mode ends with one line per
# tier and a last line "N passed, N failed, N skipped", counted test case by
# test case (scripts/summary.py; tests/README.md says how to read it).
#   fast      unit, system, compat and tool tests on the normal build
#   asan      the same under AddressSanitizer and UndefinedBehaviorSanitizer
#   valgrind  unit, system and compat tests (the C programs) under valgrind
#   hw        the hardware tests in the emulated-PMU guests, arm64 and x86-64
#   fuzz      every fuzz target for $FUZZ_SECONDS (default 60) each
#   package   the Debian packages, installed and used in a fresh Debian 12
#             chroot (make check-package; not in "all": it needs minutes and
#             the network, and make check keeps to 30 minutes)
#   all       fast, asan, valgrind with a short fuzz run beside it, and hw
#             (the guests' set-up beside the stages before it)
# With CI=true a tier that cannot run (no QEMU, no clang...) fails the run.
# --deps PROFILE first runs scripts/deps.sh PROFILE (make check does), timed
# with the stages: the summary prints how long each stage took.
set -u
cd "$(dirname "$0")/.." || exit 2
deps=
if [ "${1:-}" = --deps ]; then
	deps=${2:?check.sh: --deps wants a scripts/deps.sh profile}
	shift 2
fi
mode=${1:-all}
BUILD=${BUILD:-build}
ASAN_BUILD=${ASAN_BUILD:-build-asan}
logs=${BUILD}/check-logs
mkdir -p "$logs"
status=0

suites="--suite unit --suite sys --suite compat --suite tool --suite repro"

# A build directory made before (by "make demo", say) is configured again:
# what "scripts/deps.sh check" installed since (Open MPI for libpctr-mpi)
# is found, not left out as it was then.
setup() { # DIR ARGS...
	dir=$1; shift
	if [ -f "$dir/build.ninja" ]; then
		set -- --reconfigure "$@"
	else
		set -- -Dlibdir=lib "$@"
	fi
	meson setup "$dir" "$@" >"$logs/setup-$(basename "$dir").log" 2>&1 ||
		{ cat "$logs/setup-$(basename "$dir").log"; return 1; }
	ninja -C "$dir" >"$logs/ninja-$(basename "$dir").log" 2>&1 ||
		{ tail -40 "$logs/ninja-$(basename "$dir").log"; return 1; }
}

# Each stage leaves NAME.list (the programs meson was asked to run) and
# NAME.json (what they reported) in $logs: a program that never reports
# is a failure, not an absence.
run_meson() { # NAME DIR EXTRA...
	name=$1 dir=$2; shift 2
	echo "== $name"
	rm -f "$dir/meson-logs/check-$name.json" "$dir/meson-logs/check-$name"-*.json
	meson test -C "$dir" --list --no-rebuild "$@" >"$logs/$name.list" 2>/dev/null ||
		rm -f "$logs/$name.list"
	meson test -C "$dir" --logbase "check-$name" --print-errorlogs "$@" || status=1
	# with --wrapper, meson adds the wrapper's name: check-NAME-valgrind.json
	for f in "$dir/meson-logs/check-$name.json" "$dir/meson-logs/check-$name"-*.json; do
		[ -f "$f" ] && cp "$f" "$logs/$name.json" && break
	done
}

fast() {
	setup "$BUILD" || { status=1; return; }
	run_meson fast "$BUILD" $suites --suite pkg
	repro_figures "$logs/fast.json"
}

# The reproducers' figures (their "# " lines), which meson's TAP reader
# keeps to its logs: what the kernel did on this machine, in every run.
repro_figures() { # TESTLOG
	[ -f "$1" ] || return 0
	echo "== reproducers: what the kernel did here (tests/repro/README.md)"
	python3 - "$1" <<-'EOF'
	import json, sys
	for line in open(sys.argv[1]):
	    try:
	        t = json.loads(line)
	    except ValueError:
	        continue
	    if ':repro / ' not in t.get('name', ''):
	        continue
	    print(t['name'].split(' / ')[-1] + ':')
	    for l in (t.get('stdout') or '').splitlines():
	        if l.startswith(('# ', 'ok ', 'not ok ')):
	            print('  ' + l)
	EOF
}

asan() {
	setup "$ASAN_BUILD" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug || { status=1; return; }
	# verify_asan_link_order=0: tests that build legacy programs the way a
	# user would link them against these instrumented libraries.
	# no-asan: a reproducer whose kernel race the instrumentation hides
	# (tests/repro/meson.build says which and why).  tests/lsan.supp: the
	# leaks outside pctr, each with its reproducer.
	# intercept_tls_get_addr=0: the run-time's tracking of dynamic TLS
	# makes LeakSanitizer's scan die in pctr profile --call-graph dwarf
	# (libdw's thread-local error state; repro_lsan_dtls_libdw).
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0:intercept_tls_get_addr=0 \
	LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_meson asan "$ASAN_BUILD" $suites --no-suite no-asan
}

valgrind_run() {
	setup "$BUILD" || { status=1; return; }
	# the C programs only (not the shells of the script tests); every
	# test runs in a forked child, whose reports must be seen
	PCTR_TEST_VALGRIND=1 run_meson valgrind "$BUILD" --suite unit --suite sys \
		--suite compat --no-suite script --no-suite no-valgrind \
		--wrapper "valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --suppressions=$PWD/tests/valgrind.supp" \
		--timeout-multiplier 4
}

fuzz() {
	echo "== fuzz (${FUZZ_SECONDS:-60}s per target)"
	if [ -x tests/fuzz/run.sh ]; then
		$fuzz_nice tests/fuzz/run.sh "${FUZZ_SECONDS:-60}" "$logs/fuzz.tap" || status=1
	else
		echo "1..0 # SKIP tests/fuzz/run.sh is missing" | tee "$logs/fuzz.tap"
	fi
}

# In "all", fuzz runs beside valgrind: each target runs for a fixed time,
# so the stage costs no time of its own; niced, so that valgrind's tests
# keep the CPUs they ask for.  Its output comes after valgrind's.
fuzz_nice= fuzz_pid=
fuzz_start() {
	(
		t0=$(date +%s)
		fuzz_nice="nice -n 19" status=0
		fuzz >"$logs/fuzz.out" 2>&1
		echo "$status" >"$logs/fuzz.status"
		echo "fuzz $(($(date +%s) - t0)) beside valgrind" >"$logs/fuzz.time"
	) &
	fuzz_pid=$!
}
fuzz_wait() {
	wait "$fuzz_pid"
	cat "$logs/fuzz.out"
	[ "$(cat "$logs/fuzz.status" 2>/dev/null)" = 0 ] || status=1
	cat "$logs/fuzz.time" >>"$logs/times" 2>/dev/null
}

package() {
	echo "== package (tests/pkg/chroot-test.sh)"
	tests/pkg/chroot-test.sh >"$logs/package.tap" 2>&1 || status=1
	cat "$logs/package.tap"
}

# timed STAGE FUNCTION...: run it, and add "STAGE SECONDS [NOTE]" to
# $logs/times, which scripts/summary.py prints
timed() {
	local stage=$1 t0 qemu_before qemu_after note= rc
	shift
	t0=$(date +%s)
	qemu_before=$(ls -d /var/tmp/pctr-qemu-*/bin 2>/dev/null)
	"$@"
	rc=$?
	qemu_after=$(ls -d /var/tmp/pctr-qemu-*/bin 2>/dev/null)
	[ "$qemu_before" = "$qemu_after" ] || [ -n "$prepare_pid" ] ||
		note="QEMU built"
	echo "$stage $(($(date +%s) - t0)) $note" >>"$logs/times"
	return $rc
}

hw_arch() { # ARCH
	tests/hw/run.sh --arch "$1" "$logs/hw-$1.tap" || status=1
}

# The guests' set-up (packages, QEMU's build, the kernels, the guests'
# programs: minutes on a fresh machine) goes on beside the stages before
# hw, niced: the packages first, in the foreground (no package changes
# under a running test), the rest in the background.  hw waits for it and
# then finds it all done; what failed there, hw's own set-up says again.
prepare_pid=
hw_prepare_start() {
	[ -x tests/hw/run.sh ] || return 0
	for a in aarch64 x86_64; do
		tests/hw/run.sh --packages --arch $a "$logs/prepare-$a.out" \
			>"$logs/prepare-$a.log" 2>&1
	done
	(
		t0=$(date +%s)
		for a in aarch64 x86_64; do
			nice -n 19 tests/hw/run.sh --prepare --arch $a \
				"$logs/prepare-$a.out" >>"$logs/prepare-$a.log" 2>&1
		done
		echo "hw-prepare $(($(date +%s) - t0)) beside the stages before" \
			>"$logs/prepare.time"
	) &
	prepare_pid=$!
}
hw_prepare_wait() {
	[ -n "$prepare_pid" ] || return 0
	wait "$prepare_pid"
	cat "$logs/prepare.time" >>"$logs/times" 2>/dev/null
}

# tests/hw/run.sh and tests/fuzz/run.sh write their TAP even when they
# cannot run ("1..0 # SKIP why", or "not ok" with CI=true)
hw() {
	echo "== hw (emulated arm64 and x86 PMUs)"
	if [ -x tests/hw/run.sh ]; then
		timed hw-aarch64 hw_arch aarch64
		timed hw-x86_64 hw_arch x86_64
	else
		echo "1..0 # SKIP tests/hw/run.sh is missing" | tee "$logs/hw-aarch64.tap"
	fi
}

rm -f "$logs"/*.json "$logs"/*.list "$logs"/*.tap "$logs/times" \
	"$logs/prepare.time" "$logs/fuzz.time" "$logs/fuzz.status"
echo "start $(date +%s)" >"$logs/times"
if [ -n "$deps" ]; then
	timed deps scripts/deps.sh "$deps" || exit 1
fi
case $mode in
fast) timed fast fast; tiers=unit,sys,compat,tool,repro,pkg ;;
asan) timed asan asan; tiers=asan ;;
valgrind) timed valgrind valgrind_run; tiers=valgrind ;;
hw) hw; tiers=hw-aarch64,hw-x86_64 ;;
fuzz) timed fuzz fuzz; tiers=fuzz ;;
package) timed package package; tiers=package ;;
all)
	hw_prepare_start
	timed fast fast
	timed asan asan
	FUZZ_SECONDS=${FUZZ_SECONDS:-20} fuzz_start
	timed valgrind valgrind_run
	fuzz_wait
	hw_prepare_wait
	hw
	tiers=unit,sys,compat,tool,repro,pkg,asan,valgrind,fuzz,hw-aarch64,hw-x86_64
	;;
*) echo "check.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
echo "end $(date +%s)" >>"$logs/times"
echo "== summary"
python3 scripts/summary.py --expect "$tiers" "$logs" || status=1
exit $status
