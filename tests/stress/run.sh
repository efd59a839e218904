#!/bin/sh
# run.sh [SECONDS] - load tests of the pctr command (not part of make check;
# "make stress" runs them).  On a machine kept busy (a CPU burner per CPU,
# and a fork loop for context switches and page faults):
#   1. pctr stat -a -I 10 for SECONDS (default 60): every interval is
#      printed on time, the intervals add up to no more than the total, and
#      pctr's memory stays under STAT_RSS_KB (default 16384).
#   2. pctr profile at kernel.perf_event_max_sample_rate for SECONDS / 4:
#      samples arrive at the rate asked for (or the kernel's throttled
#      rate), lost samples are reported as such, and pctr's memory stays
#      under PROFILE_RSS_KB (default 65536).
# Prints TAP and the figures; exits 1 if a check fails.  Needs root (or
# perf_event_paranoid <= 0) for -a.  BUILD selects the build (default build).
set -u
cd "$(dirname "$0")/../.."
secs=${1:-60}
B=${BUILD:-build}
P=$B/tools/pctr
out=$B/stress
STAT_RSS_KB=${STAT_RSS_KB:-16384}
PROFILE_RSS_KB=${PROFILE_RSS_KB:-65536}
mkdir -p "$out"
[ -x "$P" ] || { echo "1..0 # SKIP $P is not built"; exit 0; }
ncpu=$(nproc)
fail=0
n=0

ok() { # COND DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 1 ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; fail=1; fi
}

loaders=
start_load() {
	for i in $(seq "$ncpu"); do
		sh -c 'while :; do :; done' &
		loaders="$loaders $!"
	done
	sh -c 'while :; do /bin/true; done' &
	loaders="$loaders $!"
}
stop_load() {
	for p in $loaders; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	loaders=
}
trap stop_load EXIT INT TERM

echo "1..8"
echo "# $ncpu CPUs, $(uptime | sed 's/.*load/load/')"
start_load

# ---- 1. pctr stat -a -I 10 ------------------------------------------------
/usr/bin/time -f '%M' -o "$out/stat.rss" \
	"$P" stat -a -I 10 --duration "$secs" -x , -o "$out/stat.csv" \
	-e task-clock,page-faults,context-switches
rc=$?
ok "$([ $rc = 0 ] && echo 1)" "pctr stat -a -I 10 --duration $secs exits 0"
python3 - "$out/stat.csv" "$secs" "$ncpu" >"$out/stat.txt" <<'PY'
import sys
rows = [l.rstrip("\n").split(",") for l in open(sys.argv[1]) if l.strip()]
secs, ncpu = float(sys.argv[2]), int(sys.argv[3])
iv = [r for r in rows if r[0] == "interval" and r[4] == "task-clock"]
times = [int(r[2]) for r in iv]
gaps = [(b - a) / 1e6 for a, b in zip(times, times[1:])]
tot = {r[4]: int(r[5]) for r in rows if r[0] == "total"}
sums = {}
for r in rows:
    if r[0] == "interval":
        sums[r[4]] = sums.get(r[4], 0) + int(r[5])
gaps.sort()
print("intervals %d expected %d" % (len(iv), int(secs * 100)))
print("gap_ms median %.2f p99 %.2f max %.2f" % (gaps[len(gaps) // 2],
      gaps[int(len(gaps) * 0.99)], gaps[-1]))
print("last_ms %.1f" % (times[-1] / 1e6))
for e in sorted(tot):
    print("event %s total %d intervals %d" % (e, tot[e], sums.get(e, 0)))
# task-clock of all CPUs: the CPUs' time, minus idle
print("cpu_busy %.3f" % (tot.get("task-clock", 0) / 1e9 / secs / ncpu))
PY
sed 's/^/# /' "$out/stat.txt"
intervals=$(awk '/^intervals/ {print $2}' "$out/stat.txt")
expected=$(awk '/^intervals/ {print $4}' "$out/stat.txt")
ok "$([ "${intervals:-0}" -ge $((expected * 95 / 100)) ] && echo 1)" \
	"at least 95% of the intervals printed ($intervals of $expected)"
last=$(awk '/^last_ms/ {print $2}' "$out/stat.txt")
ok "$(awk -v l="${last:-0}" -v s="$secs" 'BEGIN { print (l >= s * 1000 - 20 && l <= s * 1000 + 20) }')" \
	"no drift: the last interval ends at $last ms of $secs s"
# the last, partial interval is a row too: the rows add up to the totals
bad=$(awk '/^event/ && $6 != $4 { print $2 }' "$out/stat.txt")
ok "$([ -z "$bad" ] && echo 1)" "intervals add up to the totals ${bad:+(not: $bad)}"
rss=$(tail -1 "$out/stat.rss")
ok "$([ "${rss:-999999}" -le "$STAT_RSS_KB" ] && echo 1)" \
	"pctr stat peak memory ${rss} KB <= $STAT_RSS_KB KB"

# ---- 2. pctr profile at the maximum rate ----------------------------------
rate=$(cat /proc/sys/kernel/perf_event_max_sample_rate)
psecs=$((secs / 4 > 0 ? secs / 4 : 1))
/usr/bin/time -f '%M' -o "$out/profile.rss" \
	"$P" profile -F "$rate" -- \
	sh -c "end=\$((\$(date +%s) + $psecs)); while [ \$(date +%s) -lt \$end ]; do :; done" \
	2>"$out/profile.txt"
rc=$?
ok "$([ $rc = 0 ] && echo 1)" "pctr profile -F $rate for $psecs s exits 0"
head -1 "$out/profile.txt" | sed 's/^/# /'
samples=$(sed -n 's/^# \([0-9]*\) samples.*/\1/p' "$out/profile.txt")
lost=$(sed -n 's/.*, \([0-9]*\) lost$/\1/p' "$out/profile.txt")
echo "# $samples samples, ${lost:-?} lost, asked for about $((rate * psecs)); the kernel throttles to what its interrupts allow (dmesg: perf: interrupt took too long)"
ok "$([ -n "$samples" ] && [ -n "$lost" ] && [ "$samples" -gt $((psecs * 1000)) ] && echo 1)" \
	"samples and lost samples are reported, over 1000 samples a second"
rss=$(tail -1 "$out/profile.rss")
ok "$([ "${rss:-999999}" -le "$PROFILE_RSS_KB" ] && echo 1)" \
	"pctr profile peak memory ${rss} KB <= $PROFILE_RSS_KB KB"
stop_load
exit $fail
