#!/bin/sh
# startup.sh [PCTR] - whole-process wall time of
#   pctr stat -e task-clock -- true
#   perf stat -e task-clock -- true
#   true
# median of many runs (hyperfine when installed, else a timed loop), as a
# markdown table.  Target: pctr at most 0.25x perf.
#   RUNS=500 bench/startup.sh build/tools/pctr
set -eu
cd "$(dirname "$0")/.."
PCTR=${1:-${BUILD:-build}/tools/pctr}
RUNS=${RUNS:-300}
PERF=$(command -v perf || true)
TRUE=$(command -v true)
[ -x "$PCTR" ] || { echo "startup.sh: no $PCTR (build first)" >&2; exit 1; }

# median and minimum in milliseconds of $RUNS runs of "$@"
measure_loop() {
	i=0
	while [ $i -lt "$RUNS" ]; do
		a=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		b=$(date +%s%N)
		echo $((b - a))
		i=$((i + 1))
	done | sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f\n", m / 1e6, v[1] / 1e6 }'
}

measure_hyperfine() {
	out=$(mktemp)
	hyperfine -N --warmup 20 --runs "$RUNS" --export-json "$out" \
		"$*" >/dev/null 2>&1
	python3 -c 'import json,sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.3f %.3f" % (r["median"] * 1e3, r["min"] * 1e3))' "$out"
	rm -f "$out"
}

measure() {
	if command -v hyperfine >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1; then
		measure_hyperfine "$@"
	else
		measure_loop "$@"
	fi
}

tool=loop
command -v hyperfine >/dev/null 2>&1 && tool=hyperfine
set -- $(measure "$TRUE")
true_med=$1 true_min=$2
set -- $(measure "$PCTR" stat -e task-clock -- "$TRUE")
pctr_med=$1 pctr_min=$2
perf_med=- perf_min=-
if [ -n "$PERF" ] && "$PERF" stat -e task-clock -- "$TRUE" >/dev/null 2>&1; then
	set -- $(measure "$PERF" stat -e task-clock -- "$TRUE")
	perf_med=$1 perf_min=$2
fi

echo "Start-up: whole-process wall time, $RUNS runs each ($tool), $(uname -m), kernel $(uname -r)"
echo
echo "| command | median (ms) | min (ms) | vs perf (median) |"
echo "|---|---:|---:|---:|"
ratio() { [ "$perf_med" = - ] && echo - || awk -v a="$1" -v b="$perf_med" 'BEGIN { printf "%.3fx", a / b }'; }
echo "| \`true\` | $true_med | $true_min | $(ratio "$true_med") |"
echo "| \`pctr stat -e task-clock -- true\` | $pctr_med | $pctr_min | $(ratio "$pctr_med") |"
echo "| \`perf stat -e task-clock -- true\` | $perf_med | $perf_min | $( [ "$perf_med" = - ] && echo - || echo 1.000x) |"
if [ "$perf_med" != - ]; then
	awk -v a="$pctr_med" -v b="$perf_med" 'BEGIN {
		printf "\npctr / perf = %.3f (target <= 0.25): %s\n", a / b,
			a / b <= 0.25 ? "met" : "NOT met" }'
fi
