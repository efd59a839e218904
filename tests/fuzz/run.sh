#!/bin/sh
# run.sh SECONDS [OUT.tap] - build every libFuzzer target (clang, ASan and
# UBSan, library compiled with coverage) and run each for SECONDS seconds,
# two at a time, starting from its committed corpus (tests/fuzz/corpus/NAME,
# which also holds every input that ever crashed).  Prints TAP, one line
# per target: ok if it ran without a crash.  Also writes it to OUT.tap.
# Environment: FUZZ_BUILD (default build-fuzz), FUZZ_JOBS (default 2),
# FUZZ_TARGETS (names to run, default all).
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
tap=${2:-/dev/null}
B=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-2}
CC=${FUZZ_CC:-clang}
mkdir -p "$B/obj" "$B/bin" "$B/log" "$B/work"

if ! command -v "$CC" >/dev/null 2>&1; then
	echo "1..0 # SKIP $CC is not installed (scripts/deps.sh check installs it)" | tee "$tap"
	exit 0
fi
case $(uname -m) in
x86_64) arch=x86_64 ;; aarch64) arch=aarch64 ;; *) arch=generic ;;
esac
SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
# the architecture's headers, then the generic ones (src/arch.h), and its
# name as src/meson.build gives it, through a header: no quoting to survive
printf '#define PCTR_ARCH_NAME "%s"\n' "$arch" >"$B/arch_name.h"
CFLAGS="-g -O1 -std=gnu11 -D_GNU_SOURCE -Iinclude -Iinclude/compat -Isrc -Isrc/text -Isrc/record -Isrc/arch/$arch -Isrc/arch/generic -include $B/arch_name.h -Itools $SAN"
LIBS="-lpfm -lm -lpthread $(pkg-config --libs libdw 2>/dev/null)"

# objects of the library (the list in src/meson.build) and of a layer
compile() { # OUTDIR SOURCES...
	out=$1; shift
	for f in "$@"; do
		o=$out/$(echo "$f" | tr / _).o
		[ "$o" -nt "$f" ] && [ "$o" -nt include/pctr.h ] && [ "$o" -nt src/internal.h ] && continue
		echo "$CC $CFLAGS -fsanitize=fuzzer-no-link -c $f -o $o"
	done
}
lib_src=$(sed -n "/pctr_src = files(/,/)/p" src/meson.build | grep -o "'[^']*\.c'" |
	tr -d "'" | sed 's|^|src/|')
lib_src="$lib_src $(ls src/arch/$arch/*.c 2>/dev/null)"
if ! compile "$B/obj" $lib_src | xargs -P "$jobs" -I{} sh -c '{}' >"$B/log/build.log" 2>&1; then
	echo "not ok 1 - building the library for fuzzing # see $B/log/build.log" | tee "$tap"
	tail -20 "$B/log/build.log"
	exit 1
fi
lib_obj=$(for f in $lib_src; do echo "$B/obj/$(echo "$f" | tr / _).o"; done)

# target NAME -> extra sources it needs (layers over the public API)
extra_src() {
	case $1 in
	# pctr merge and mpirun (json-c) are not what these targets fuzz
	fuzz_tool_*) ls tools/*.c | grep -v -e 'tools/pctr\.c' -e 'tools/cmd_stat\.c' \
		-e 'tools/cmd_merge\.c' -e 'tools/cmd_mpirun\.c' \
		-e 'tools/mpi_read\.c' ;;
	fuzz_cpc_*) ls compat/libcpc/*.c ;;
	fuzz_pmc_*) ls compat/pmclib/*.c ;;
	*) ;;
	esac
}

# a target whose layer is not in the tree yet
missing() {
	case $1 in
	fuzz_tool_*) [ ! -f tools/stat_options.c ] ;;
	fuzz_cpc_*) [ ! -f compat/libcpc/obsoleted.c ] ;;
	fuzz_pmc_*) [ ! -f compat/pmclib/getargs.c ] ;;
	*) false ;;
	esac
}

targets=${FUZZ_TARGETS:-$(ls tests/fuzz/fuzz_*.c | sed 's|.*/||; s|\.c$||')}
n=0
for t in $targets; do n=$((n + 1)); done
echo "1..$n" >"$B/log/all.tap"

build_target() { # NAME
	t=$1
	extra=$(extra_src "$t")
	[ -n "$extra" ] && { compile "$B/obj" $extra | sh -e || return 1; }
	eobj=$(for f in $extra; do echo "$B/obj/$(echo "$f" | tr / _).o"; done)
	$CC $CFLAGS -fsanitize=fuzzer -Itests/fuzz "tests/fuzz/$t.c" $lib_obj $eobj \
		$LIBS -o "$B/bin/$t"
}

run_target() { # NUMBER NAME
	i=$1 t=$2
	log=$B/log/$t.log
	if missing "$t"; then
		echo "ok $i - $t # SKIP what it fuzzes is not in the tree"
		return
	fi
	if ! build_target "$t" >"$log" 2>&1; then
		echo "not ok $i - $t # does not build, see $log"
		return
	fi
	mkdir -p "tests/fuzz/corpus/$t" "$B/work/$t" "$B/crash/$t"
	PCTR_FUZZ_FIXTURES=$PWD/tests/unit/fixtures \
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
	UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
		"$B/bin/$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 -close_fd_mask=3 \
		-artifact_prefix="$PWD/$B/crash/$t/" \
		"$PWD/$B/work/$t" "$PWD/tests/fuzz/corpus/$t" >>"$log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
	size=$(ls "$B/work/$t" | wc -l)
	if [ $rc -eq 0 ]; then
		echo "ok $i - $t ($secs s, ${runs:-?} runs, $size inputs in the working corpus)"
	else
		crash=$(ls -t "$B/crash/$t" 2>/dev/null | head -1)
		echo "not ok $i - $t # crashed (exit $rc): $B/crash/$t/$crash, log $log"
		grep -m3 -E 'ERROR|runtime error|SUMMARY' "$log" | sed 's/^/# /'
	fi
}

i=0
for t in $targets; do
	i=$((i + 1))
	run_target "$i" "$t" >"$B/log/$t.tap" &
	[ $((i % jobs)) -eq 0 ] && wait
done
wait
for t in $targets; do cat "$B/log/$t.tap"; done >>"$B/log/all.tap"
cp "$B/log/all.tap" "$tap"
cat "$B/log/all.tap"
! grep -q "^not ok" "$B/log/all.tap"
