#!/bin/sh
# test_count_twin.sh COUNT COUNT_FORTRAN - examples/count.f90 against its
# twin examples/count.c (TAP): the same lines, but for the figures that
# vary from run to run (task-clock, the elapsed time); the same page
# faults, 4096 for the 16 MiB touched; the same message on standard error
# (the no-PMU explanation on a machine without one) and exit status, with
# the default events, an explicit list and an unknown event.
c=$1 f=$2
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

check() { # DESCRIPTION, then the condition's status in $?
	st=$?
	n=$((n + 1))
	if [ "$st" = 0 ]; then
		echo "ok $n - $1"
	else
		echo "not ok $n - $1"
		fail=1
	fi
}

# the lines, with the figures of task-clock and the elapsed time blanked
shape() {
	sed -E 's/^ *[0-9]+  (task-clock|ns elapsed)/N  \1/' "$1"
}

run() { # NAME ARGS...
	name=$1
	shift
	"$c" "$@" >"$tmp/c.out" 2>"$tmp/c.err"
	echo $? >"$tmp/c.rc"
	"$f" "$@" >"$tmp/f.out" 2>"$tmp/f.err"
	echo $? >"$tmp/f.rc"
	for x in c f; do
		sed "s/^/# $x: /" "$tmp/$x.out" "$tmp/$x.err"
	done
	shape "$tmp/c.out" >"$tmp/c.shape"
	shape "$tmp/f.out" >"$tmp/f.shape"
	cmp -s "$tmp/c.shape" "$tmp/f.shape" &&
		cmp -s "$tmp/c.err" "$tmp/f.err" &&
		cmp -s "$tmp/c.rc" "$tmp/f.rc"
	check "$name: the same lines, message and status"
}

echo "1..5"
run "default events"
grep -qx '                4096  page-faults' "$tmp/f.out"
check "4096 page faults for 16 MiB, in count.c's format"
run "an explicit list" page-faults,task-clock
grep -qx '                4096  page-faults' "$tmp/f.out"
check "the list's page faults"
run "an unknown event" no-such-event
exit $fail
