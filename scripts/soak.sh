#!/bin/sh
# soak.sh [RUNS] - run "make check" RUNS times (default 5) on a loaded
# machine, the way tests/README.md asks before a change is called done: a
# test that fails once in these runs is a failing test.
#
# The load, for the whole soak, is $SOAK_LOAD processes (default 1) of
# each kind, so that the suite's own jobs share the CPUs with them:
#   - a user-mode spin (no system call), which takes CPU time from the
#     tests' workloads and delays their threads;
#   - a loop of short processes (fork, exec, exit, page faults), which
#     keeps the kernel busy, fills the run queues with new tasks and
#     migrates them.
# Each run's summary goes to $BUILD/soak/run-N.txt and one line per run to
# the terminal (a failed run also keeps $BUILD/check-logs as logs-N); the
# exit status is 0 only when every run passed.
set -u
cd "$(dirname "$0")/.." || exit 2
runs=${1:-5}
BUILD=${BUILD:-build}
out=$BUILD/soak
mkdir -p "$out"
load=${SOAK_LOAD:-1}

pids=
i=0
while [ "$i" -lt "$load" ]; do
	sh -c 'while :; do :; done' & pids="$pids $!"
	sh -c 'while :; do /bin/true; cat /proc/self/stat >/dev/null; done' & pids="$pids $!"
	i=$((i + 1))
done
# the load ends with the soak; a signal ends the soak (a trap that did not
# exit would go on to the next run)
trap 'kill $pids 2>/dev/null' EXIT
trap 'exit 130' INT TERM

echo "soak: $runs runs of make check on $(getconf _NPROCESSORS_ONLN) CPUs, load: $load user spin(s) and $load process loop(s)"
failed=0
n=1
while [ "$n" -le "$runs" ]; do
	start=$(date +%s)
	CI=true scripts/check.sh all >"$out/run-$n.log" 2>&1
	rc=$?
	# a failed run keeps every stage's logs for the note that explains it
	[ "$rc" -eq 0 ] || cp -r "$BUILD/check-logs" "$out/logs-$n"
	end=$(date +%s)
	avg=$(cut -d' ' -f1-3 /proc/loadavg)
	tail -20 "$out/run-$n.log" | sed -n '/^== summary/,$p' >"$out/run-$n.txt"
	printf 'run %d: exit %d, %d s, load %s: %s\n' "$n" "$rc" $((end - start)) \
		"$avg" "$(tail -1 "$out/run-$n.log")"
	[ "$rc" -eq 0 ] || failed=$((failed + 1))
	n=$((n + 1))
done
echo "soak: $((runs - failed)) of $runs runs passed"
[ "$failed" -eq 0 ]
