#!/bin/sh
# report_speed.sh [PCTR] - pctr report beside perf report --stdio on the
# same recordings of a Python workload: 10,000 samples with call chains
# (task-clock every 100 us over 1 s of CPU), one recorded by pctr record
# and one by perf record.  Each report to /dev/null: 3 warm-up runs, then
# $RUNS runs, each measured by GNU time as its CPU time (user + system:
# what the report costs, whatever else the machine runs) and its wall
# time; the median and minimum of each, and pctr's medians over perf's.
# Target: pctr at most perf's time.
#   RUNS=15 bench/report_speed.sh build/tools/pctr
set -eu
cd "$(dirname "$0")/.."
PCTR=$(realpath "${1:-${BUILD:-build}/tools/pctr}")
RUNS=${RUNS:-15}
PERF=$(command -v perf || true)
[ -x "$PCTR" ] || { echo "report_speed.sh: no $PCTR (build first)" >&2; exit 1; }
[ -n "$PERF" ] || { echo "report_speed.sh: no perf (linux-perf)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# 1 s of CPU in Python: a few functions deep, so chains have something
work='
import time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(n):
    return leaf(n) + leaf(n // 2)
def top():
    end = time.process_time() + 1.0
    while time.process_time() < end:
        mid(2000)
top()
'

# "MEDIAN MIN" of the numbers on standard input
stats() {
	sort -n | awk '{ v[NR] = $1 } END {
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.0f %.0f", m, v[1] }'
}

# "CPU_MEDIAN CPU_MIN WALL_MEDIAN WALL_MIN" in ms of $RUNS runs of "$@"
measure() {
	i=0
	while [ $i -lt 3 ]; do "$@" >/dev/null 2>&1; i=$((i + 1)); done
	: >"$dir/runs"
	i=0
	while [ $i -lt "$RUNS" ]; do
		/usr/bin/time -f '%U %S %e' -a -o "$dir/runs" "$@" \
			>/dev/null 2>&1
		i=$((i + 1))
	done
	awk '{ print ($1 + $2) * 1000 }' "$dir/runs" | stats
	printf ' '
	awk '{ print $3 * 1000 }' "$dir/runs" | stats
	echo
}

"$PCTR" record -e task-clock -c 100000 -g -o "$dir/pctr.data" -- \
	python3 -c "$work" 2>"$dir/rec.err"
"$PERF" record -q -e task-clock -c 100000 -g -o "$dir/perf.data" -- \
	python3 -c "$work" 2>>"$dir/rec.err"

echo "| recording | samples | report | CPU median (ms) | CPU min | wall median | wall min | CPU median vs perf |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
for rec in pctr perf; do
	f="$dir/$rec.data"
	n=$("$PERF" script -i "$f" -F time 2>/dev/null | wc -l)
	set -- $(measure "$PERF" report -i "$f" --stdio)
	perf_cpu=$1 perf_row="$1 | $2 | $3 | $4"
	set -- $(measure "$PCTR" report -i "$f")
	ratio=$(awk -v a="$1" -v b="$perf_cpu" 'BEGIN { printf "%.2f", a / b }')
	echo "| $rec record | $n | \`pctr report\` | $1 | $2 | $3 | $4 | $ratio |"
	echo "| $rec record | $n | \`perf report --stdio\` | $perf_row | 1 |"
done
