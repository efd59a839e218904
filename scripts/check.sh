#!/bin/sh
# check.sh MODE - run the test suites; every mode ends with a summary line
# "N passed, N failed, N skipped" counted test case by test case.
#   fast      unit, system, compat and tool tests on the normal build
#   asan      the same under AddressSanitizer and UndefinedBehaviorSanitizer
#   valgrind  unit and system tests under valgrind memcheck
#   hw        the hardware tests in the emulated-PMU arm64 guest
#   fuzz      every fuzz target for $FUZZ_SECONDS (default 60) each
#   all       fast, asan, valgrind, a short fuzz run and hw
set -u
cd "$(dirname "$0")/.."
mode=${1:-all}
BUILD=${BUILD:-build}
ASAN_BUILD=${ASAN_BUILD:-build-asan}
logs=${BUILD}/check-logs
mkdir -p "$logs"
status=0

suites="--suite unit --suite sys --suite compat --suite tool --suite repro"

setup() { # DIR ARGS...
	dir=$1; shift
	[ -f "$dir/build.ninja" ] || meson setup "$dir" -Dlibdir=lib "$@" >"$logs/setup-$(basename "$dir").log" 2>&1 ||
		{ cat "$logs/setup-$(basename "$dir").log"; return 1; }
	ninja -C "$dir" >"$logs/ninja-$(basename "$dir").log" 2>&1 ||
		{ tail -40 "$logs/ninja-$(basename "$dir").log"; return 1; }
}

run_meson() { # NAME DIR EXTRA...
	name=$1 dir=$2; shift 2
	echo "== $name"
	meson test -C "$dir" $suites --print-errorlogs "$@" || status=1
	cp "$dir/meson-logs/testlog.json" "$logs/$name.json" 2>/dev/null
	[ -f "$dir/meson-logs/testlog.json" ] || true
}

fast() {
	setup "$BUILD" || { status=1; return; }
	run_meson fast "$BUILD"
}

asan() {
	setup "$ASAN_BUILD" -Db_sanitize=address,undefined -Db_lundef=false \
		-Dbuildtype=debug || { status=1; return; }
	# verify_asan_link_order=0: tests that build legacy programs the way a
	# user would link them against these instrumented libraries
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1:verify_asan_link_order=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		run_meson asan "$ASAN_BUILD"
}

valgrind_run() {
	setup "$BUILD" || { status=1; return; }
	echo "== valgrind"
	# the C programs only (not the shells of the script tests); every
	# test runs in a forked child, whose reports must be seen
	PCTR_TEST_VALGRIND=1 meson test -C "$BUILD" --suite unit --suite sys \
		--no-suite script --print-errorlogs \
		--wrapper "valgrind -q --error-exitcode=99 --leak-check=full --errors-for-leak-kinds=definite,indirect --suppressions=$PWD/tests/valgrind.supp" \
		--timeout-multiplier 4 || status=1
	cp "$BUILD/meson-logs/testlog-valgrind.json" "$logs/valgrind.json" 2>/dev/null
}

hw() {
	echo "== hw (emulated arm64 and x86 PMUs)"
	if [ -x tests/hw/run.sh ]; then
		tests/hw/run.sh "$logs/hw.tap" || status=1
		# skips in one line without the patched QEMU (tests/hw/qemu/)
		tests/hw/run.sh --arch x86_64 "$logs/hw-x86_64.tap" || status=1
	else
		echo "# SKIP hardware tests: tests/hw/run.sh is missing"
	fi
}

fuzz() {
	echo "== fuzz (${FUZZ_SECONDS:-60}s per target)"
	if [ -x tests/fuzz/run.sh ]; then
		tests/fuzz/run.sh "${FUZZ_SECONDS:-60}" "$logs/fuzz.tap" || status=1
	else
		echo "# SKIP fuzzing: tests/fuzz/run.sh is missing"
	fi
}

rm -f "$logs"/*.json "$logs"/*.tap
case $mode in
fast) fast ;;
asan) asan ;;
valgrind) valgrind_run ;;
hw) hw ;;
fuzz) fuzz ;;
all)
	fast
	asan
	valgrind_run
	FUZZ_SECONDS=${FUZZ_SECONDS:-20} fuzz
	hw
	;;
*) echo "check.sh: unknown mode '$mode'" >&2; exit 2 ;;
esac
python3 scripts/summary.py "$logs" || status=1
exit $status
