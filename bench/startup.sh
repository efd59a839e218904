#!/bin/sh
# startup.sh [PCTR] - whole-process wall time of
#   pctr stat -e task-clock -- true
#   perf stat -e task-clock -- true
#   true
# as a markdown table.  Target: pctr at most 0.25x perf.
#   RUNS=300 ROUNDS=6 bench/startup.sh build/tools/pctr
#
# Estimator: the three commands take turns, ROUNDS rounds of RUNS/ROUNDS
# runs each (hyperfine -N when installed, after 20 warm-up runs in the
# first round; else a loop timed with date(1), whose own forks are then in
# every figure), so that a change in the machine's load falls on all three
# alike.  Each command's wall times of all rounds are pooled: median and
# minimum, and pctr's median over perf's (and minimum over minimum).
set -eu
cd "$(dirname "$0")/.."
PCTR=${1:-${BUILD:-build}/tools/pctr}
RUNS=${RUNS:-300}
ROUNDS=${ROUNDS:-6}
PERF=$(command -v perf || true)
TRUE=$(command -v true)
[ -x "$PCTR" ] || { echo "startup.sh: no $PCTR (build first)" >&2; exit 1; }
per=$(( (RUNS + ROUNDS - 1) / ROUNDS ))
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# $per runs of "$@", their wall times in ns appended to file $1
run_loop() {
	f=$1
	shift
	i=0
	while [ $i -lt "$per" ]; do
		a=$(date +%s%N)
		"$@" >/dev/null 2>&1 || true
		b=$(date +%s%N)
		echo $((b - a)) >>"$f"
		i=$((i + 1))
	done
}

run_hyperfine() {
	f=$1 warm=$2
	shift 2
	hyperfine -N --warmup "$warm" --runs "$per" --export-json "$dir/hf.json" \
		"$*" >/dev/null 2>&1
	python3 -c 'import json,sys
for t in json.load(open(sys.argv[1]))["results"][0]["times"]:
    print(round(t * 1e9))' "$dir/hf.json" >>"$f"
}

tool=loop
command -v hyperfine >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 && tool=hyperfine
have_perf=0
[ -n "$PERF" ] && "$PERF" stat -e task-clock -- "$TRUE" >/dev/null 2>&1 && have_perf=1
r=0
while [ $r -lt "$ROUNDS" ]; do
	warm=0
	[ $r = 0 ] && warm=20
	for c in true pctr perf; do
		case $c in
		true) set -- "$TRUE" ;;
		pctr) set -- "$PCTR" stat -e task-clock -- "$TRUE" ;;
		perf) [ $have_perf = 1 ] || continue
			set -- "$PERF" stat -e task-clock -- "$TRUE" ;;
		esac
		if [ $tool = hyperfine ]; then
			run_hyperfine "$dir/$c" $warm "$@"
		else
			run_loop "$dir/$c" "$@"
		fi
	done
	r=$((r + 1))
done

# median and minimum in ms of the times in file $1, or "- -"
stats() {
	[ -s "$1" ] || { echo "- -"; return; }
	sort -n "$1" | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f %.3f\n", m / 1e6, v[1] / 1e6 }'
}
set -- $(stats "$dir/true")
true_med=$1 true_min=$2
set -- $(stats "$dir/pctr")
pctr_med=$1 pctr_min=$2
set -- $(stats "$dir/perf")
perf_med=$1 perf_min=$2

echo "Start-up: whole-process wall time, $((per * ROUNDS)) runs each in $ROUNDS interleaved rounds ($tool), $(uname -m), kernel $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| command | median (ms) | min (ms) | median vs perf | min vs perf |"
echo "|---|---:|---:|---:|---:|"
ratio() { [ "$3" = - ] && echo - || awk -v a="$1" -v b="$3" 'BEGIN { printf "%.3f", a / b }'; }
echo "| \`true\` | $true_med | $true_min | | |"
echo "| \`pctr stat -e task-clock -- true\` | $pctr_med | $pctr_min | $(ratio "$pctr_med" x "$perf_med") | $(ratio "$pctr_min" x "$perf_min") |"
echo "| \`perf stat -e task-clock -- true\` | $perf_med | $perf_min | 1 | 1 |"
if [ "$perf_med" != - ]; then
	awk -v a="$pctr_med" -v b="$perf_med" 'BEGIN {
		printf "\npctr / perf = %.3f by the medians (target <= 0.25): %s\n", a / b,
			a / b <= 0.25 ? "met" : "NOT met" }'
fi
