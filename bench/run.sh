#!/bin/bash
# bench/run.sh - run every benchmark and write bench/RESULTS.md and the plots.
#
# usage: bench/run.sh [-q] [--no-hw]
#   -q       quick: fewer trials and cases (a smoke test, not for RESULTS.md)
#   --no-hw  do not boot the emulated-PMU guest; use bench/hw-read-cost.md
#            as it is
#
# Steps: build into build-bench; time the read paths, empty regions and
# thread scaling (bench_read, bench_scale); count the user-space
# instructions of one read exactly with callgrind; time whole-process
# start-up (bench/startup.sh if present, else hyperfine here); run
# region_cost and overflow_cost if they are built; the sampling overhead
# of pctr profile beside perf record (bench/profile_overhead.py); refresh the guest's
# instruction counts (tests/hw/run.sh --bench); then bench/report.py writes
# RESULTS.md and bench/plot.gp the SVG plots.  Raw figures stay in
# bench/data/ so that the report can be rebuilt without measuring again
# (bench/report.py bench/data).
#
# Runs in a few minutes on 2 cores.  Benchmarks never gate anything: a part
# that cannot run here is reported as such and the rest goes on.
#
# environment: PCTR_BENCH_BUILD (default build-bench), PCTR_BENCH_TRIALS
#   (default 31), PCTR_BENCH_HW=0 (same as --no-hw).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
build=${PCTR_BENCH_BUILD:-$top/build-bench}
trials=${PCTR_BENCH_TRIALS:-31}
hw=${PCTR_BENCH_HW:-1}
quick=
data=$here/data

while [ $# -gt 0 ]; do
	case $1 in
	-q) quick=-q ;;
	--no-hw) hw=0 ;;
	-h | --help) sed -n '2,/^set -u/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "usage: bench/run.sh [-q] [--no-hw]" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$quick" ] && data=$build/bench-quick

say() { echo "bench: $*" >&2; }

# ---- build ----------------------------------------------------------------

if [ ! -f "$build/build.ninja" ]; then
	meson setup "$build" "$top" -Dlibdir=lib --buildtype=release >/dev/null ||
		{ say "meson setup failed"; exit 1; }
fi
ninja -C "$build" >/dev/null || { say "build failed"; exit 1; }
bin=$build/bench
pctr_cmd=$build/tools/pctr
mkdir -p "$data"
rm -f "$data"/*.tsv "$data"/*.txt "$data"/*.json

# ---- the machine ----------------------------------------------------------

{
	echo "date	$(date -u '+%Y-%m-%d %H:%M UTC')"
	echo "commit	$(git -C "$top" rev-parse --short HEAD 2>/dev/null || echo '?')"
	echo "kernel	$(uname -sr)"
	echo "cpu	$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n1)"
	echo "cpus	$(nproc)"
	echo "virtualized	$(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)"
	echo "pmu	$(ls /sys/bus/event_source/devices | tr '\n' ' ')"
	echo "paranoid	$(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null)"
	echo "compiler	$(${CC:-cc} --version | head -n1)"
	echo "papi	$(dpkg-query -W -f='${Version}' libpapi-dev 2>/dev/null || echo absent)"
	echo "perf	$(perf --version 2>/dev/null || echo absent)"
	echo "loadavg	$(cut -d' ' -f1-3 /proc/loadavg)"
	echo "trials	$trials"
} >"$data/machine.tsv"

# ---- timed benchmarks -----------------------------------------------------

topt="-t $trials"
[ -n "$quick" ] && topt=-q
say "read paths and empty regions (bench_read $topt)"
"$bin/bench_read" $topt >"$data/read.tsv" || say "bench_read failed"
say "thread scaling (bench_scale)"
"$bin/bench_scale" $topt >"$data/scale.tsv" || say "bench_scale failed"

# ---- exact user-space instructions per read (callgrind) --------------------

# N and 2N reads under callgrind; the difference of the totals over N is
# what one read executes in user space (the kernel is not counted).
instr() { # METHOD EVENTS
	local n=1000 a b
	a=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin/bench_read" -I "$1" -e "$2" -n $n 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p')
	b=$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
		"$bin/bench_read" -I "$1" -e "$2" -n $((2 * n)) 2>&1 >/dev/null |
		sed -n 's/.*Collected : //p')
	[ -n "$a" ] && [ -n "$b" ] &&
		printf 'instr\t%s\t%s\t%s\t%s\t%s\t1\tuser-space instructions per read (callgrind)\n' \
			"$1" "$2" $(((b - a) / n)) $(((b - a) / n)) $n
}
if command -v valgrind >/dev/null 2>&1; then
	say "user-space instructions per read (callgrind)"
	for k in 1 4 8; do
		for m in pctr pctr_nouser raw_group raw_separate floor; do
			instr "$m" "$k"
		done
	done >"$data/instr.tsv"
else
	say "valgrind absent: no instruction counts"
fi

# ---- start-up -------------------------------------------------------------

if [ -x "$here/startup.sh" ]; then
	say "start-up (bench/startup.sh)"
	RUNS=200 "$here/startup.sh" "$pctr_cmd" >"$data/startup.txt" 2>&1 ||
		say "startup.sh failed"
fi
if command -v hyperfine >/dev/null 2>&1; then
	say "start-up (hyperfine)"
	runs=200
	[ -n "$quick" ] && runs=30
	cmds=("true")
	[ -x "$pctr_cmd" ] && cmds+=("$pctr_cmd stat -e task-clock -- true")
	command -v perf >/dev/null 2>&1 && cmds+=("perf stat -e task-clock -- true")
	hyperfine -N --warmup 20 --runs $runs --style none \
		--export-json "$data/startup.json" "${cmds[@]}" >/dev/null 2>&1 ||
		say "hyperfine failed"
	[ -x "$pctr_cmd" ] || echo "the pctr command is not built yet ($pctr_cmd)" >"$data/startup-missing.txt"
fi

# ---- other areas' benchmarks ----------------------------------------------

for b in region_cost overflow_cost; do
	if [ -x "$bin/$b" ]; then
		say "$b"
		timeout 120 "$bin/$b" >"$data/$b.txt" 2>&1 || say "$b failed (status $?)"
	fi
done

# ---- sampling overhead: pctr profile beside perf record ---------------------

if [ -x "$bin/profile_work" ] && [ -x "$pctr_cmd" ]; then
	say "sampling overhead (bench/profile_overhead.py)"
	ptrials=11
	[ -n "$quick" ] && ptrials=3
	timeout 900 python3 "$here/profile_overhead.py" "$pctr_cmd" \
		"$bin/profile_work" $ptrials >"$data/profile_overhead.txt" 2>&1 ||
		say "profile_overhead.py failed (status $?)"
fi

# ---- the emulated-PMU guest: exact instruction counts ----------------------

if [ "$hw" = 1 ] && [ -z "$quick" ] && [ -x "$top/tests/hw/run.sh" ] &&
	[ -f "$top/tests/hw/test_hw_bench.c" ]; then
	say "instruction counts in the arm64 guest (tests/hw/run.sh --bench)"
	PCTR_HW_BUILD=${PCTR_HW_BUILD:-$build-aarch64} timeout 900 \
		"$top/tests/hw/run.sh" --bench --only test_hw_cost,test_hw_bench \
		"$build/hw-bench.tap" >"$data/hw.txt" 2>&1 ||
		say "guest run failed (status $?): keeping bench/hw-read-cost.md as it is"
fi

# ---- report ---------------------------------------------------------------

say "writing the report"
out=$here
[ -n "$quick" ] && out=$data
python3 "$here/report.py" "$data" "$out" || { say "report.py failed"; exit 1; }
if command -v gnuplot >/dev/null 2>&1; then
	(cd "$data" && gnuplot -e "outdir='$out'" "$here/plot.gp") ||
		say "gnuplot failed"
else
	say "gnuplot absent: no plots"
fi
say "done: $out/RESULTS.md"
