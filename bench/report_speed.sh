#!/bin/sh
# report_speed.sh [-s SIZE] [PCTR] - pctr report beside perf report
# --stdio on the same recordings of a Python workload, task-clock with
# call chains, one recorded by pctr record and one by perf record:
#   -s 10k    about 10,000 samples: every 100 us over 1 s of CPU
#   -s 540k   about 540,000 samples: every 10 us (the kernel's shortest
#             period of a software clock) over 5 s of CPU
# (both by default).  Each report to /dev/null: 3 warm-up runs, then
# $RUNS runs, each measured by GNU time as its CPU time (user + system:
# what the report costs, whatever else the machine runs) and its wall
# time; the median and minimum of each, and pctr's medians over perf's.
# Target: pctr at most perf's time.
#   RUNS=15 bench/report_speed.sh build/tools/pctr
set -eu
cd "$(dirname "$0")/.."
sizes=
while getopts s: o; do
	case $o in
	s) case $OPTARG in
	   10k | 540k) sizes="$sizes $OPTARG" ;;
	   *) echo "report_speed.sh: -s 10k or 540k" >&2; exit 2 ;;
	   esac ;;
	*) echo "usage: report_speed.sh [-s 10k|540k] [PCTR]" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
sizes=${sizes:-10k 540k}
PCTR=$(realpath "${1:-${BUILD:-build}/tools/pctr}")
RUNS=${RUNS:-15}
PERF=$(command -v perf || true)
[ -x "$PCTR" ] || { echo "report_speed.sh: no $PCTR (build first)" >&2; exit 1; }
[ -n "$PERF" ] || { echo "report_speed.sh: no perf (linux-perf)" >&2; exit 1; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT

# $1 s of CPU in Python: a few functions deep, so chains have something
work='
import sys, time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def mid(n):
    return leaf(n) + leaf(n // 2)
def top():
    end = time.process_time() + float(sys.argv[1])
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

echo "| recording | samples | report | CPU median (ms) | CPU min | wall median | wall min | CPU median vs perf |"
echo "|---|---:|---|---:|---:|---:|---:|---:|"
for size in $sizes; do
	case $size in
	10k) period=100000 cpu=1.0 ;;
	540k) period=10000 cpu=5.0 ;;
	esac
	"$PCTR" record -e task-clock -c $period -g -o "$dir/pctr.data" -- \
		python3 -c "$work" $cpu 2>"$dir/rec.err"
	"$PERF" record -q -e task-clock -c $period -g -o "$dir/perf.data" -- \
		python3 -c "$work" $cpu 2>>"$dir/rec.err"
	for rec in pctr perf; do
		f="$dir/$rec.data"
		n=$("$PERF" script -i "$f" -F time 2>/dev/null | wc -l)
		set -- $(measure "$PERF" report -i "$f" --stdio)
		perf_cpu=$1 perf_row="$1 | $2 | $3 | $4"
		set -- $(measure "$PCTR" report -i "$f")
		ratio=$(awk -v a="$1" -v b="$perf_cpu" \
			'BEGIN { printf "%.2f", a / b }')
		echo "| $rec record | $n | \`pctr report\` | $1 | $2 | $3 | $4 | $ratio |"
		echo "| $rec record | $n | \`perf report --stdio\` | $perf_row | 1 |"
	done
done
