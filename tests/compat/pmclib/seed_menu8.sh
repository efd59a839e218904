#!/bin/sh
# SPDX-License-Identifier: MIT
#
# menu8.c, pmc_lib's example of pmc_select/read/accumulate, taken from the
# seed at test time (third-party text stays out of the repository), built
# unchanged against <pmc_lib.h> and run with the seed's command lines.
# The Pentium Pro lines need counters: without a PMU they must fail the
# way pmc_lib fails on a CPU without counters (pmc_open() is FALSE, exit 1).
#
# Usage: seed_menu8.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
cc=${CC:-cc}
san=${PCTR_SAN_FLAGS:-} # the sanitizers the libraries were built with
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seeds=${PCTR_SEEDS:-$src/../shared/seeds}
seed=$(grep -l 'pmc_accumulate(&Ctl.counters\[0\]' "$seeds"/*.txt 2>/dev/null | head -n 1)
if [ -z "$seed" ]; then
	echo "1..0 # SKIP pmc_lib seed not found in $seeds"
	exit 0
fi

x86_pmu=0
[ -e /sys/bus/event_source/devices/cpu/type ] && x86_pmu=1
[ -e /sys/bus/event_source/devices/cpu_core/type ] && x86_pmu=1

# The build is checked once; the seed's command lines (one_pass) run
# RUNS times in a row, and a pass's results are printed when one of its
# checks fails, naming the run, or after the last pass.
RUNS=100
[ -n "$san" ] && RUNS=10 # the sanitizers look for memory errors, not chance
n=0
failed=0
pass=0 # the build's
tap=$tmp/tap
ok() {
	n=$((n + 1))
	if [ $pass = 0 ]; then
		echo "ok $n - $1"
	else
		echo "ok $n - $1, $RUNS runs in a row" >> "$tap"
	fi
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	if [ $pass = 0 ]; then
		echo "not ok $n - $1"
	else
		echo "not ok $n - $1: run $pass of $RUNS" >> "$tap"
	fi
	shift
	for line in "$@"; do
		if [ $pass = 0 ]; then echo "# $line"; else echo "# $line" >> "$tap"; fi
	done
}

sed -n '/^#include <pmc_lib.h>/,/^exit(0);/p' "$seed" > "$tmp/menu8.c"
echo '}' >> "$tmp/menu8.c"

echo "1..10"

# the seed's compile line, with the flags pmc_options gives an installation
if $cc $san -o "$tmp/menu8" -O -I"$src/include/compat" -L"$build/compat/pmclib" \
	-Wl,-rpath,"$build/compat/pmclib:$build/src" "$tmp/menu8.c" -lpmc \
	> "$tmp/cc" 2>&1; then
	ok "menu8.c builds unchanged"
else
	not_ok "menu8.c builds unchanged" "$(head -n 5 "$tmp/cc")"
	exit 1
fi

run() {
	"$tmp/menu8" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
}

# the figures of the "total" row of the first pair: intervals cycles e0 e1
totals() {
	awk '/^total / { print $2, $3, $4, $5; exit }' "$tmp/out"
}
one_pass() {

run -g 0
set -- $(totals)
if [ $rc = 0 ] && [ "${1:-}" = 1 ] && grep -q '^--events task-clock,page-faults$' "$tmp/out"; then
	ok "menu8 -g 0: one interval of group 0 (software events)"
else
	not_ok "menu8 -g 0" "status $rc totals $*" "$(cat "$tmp/err")"
fi

run -g 0 100
set -- $(totals)
if [ $rc = 0 ] && [ "${1:-}" = 100 ] && grep -q '^Command executed: 100$' "$tmp/out"; then
	ok "menu8 -g 0 100: 100 intervals"
else
	not_ok "menu8 -g 0 100" "status $rc totals $*" "$(cat "$tmp/err")"
fi

# The Pentium Pro lines of the seed
for args in "--e 192,194" "--e 192,194 -Stats 2 100" "--e 0x43,0x5 100"; do
	run $args
	if [ $x86_pmu = 1 ]; then
		set -- $(totals)
		if [ $rc = 0 ] && [ -n "${1:-}" ]; then
			ok "menu8 $args: counted"
		else
			not_ok "menu8 $args: counted" "status $rc" "$(cat "$tmp/err")"
		fi
	elif [ $rc = 1 ] && [ ! -s "$tmp/out" ] &&
	     grep -q 'pmc_open: no performance-monitoring counters' "$tmp/err"; then
		ok "menu8 $args: fails at pmc_open, no counters here"
	else
		not_ok "menu8 $args: fails at pmc_open" "status $rc" \
			"$(cat "$tmp/err")" "$(head -n 3 "$tmp/out")"
	fi
done

# The report's layout, numbers masked, against the seed's sample
run --e task-clock,page-faults -Stats 2 100
sed -E 's/0x[0-9a-f]+/N/g; s/-?[0-9]+(\.[0-9]+)?/N/g; s/ +/ /g; s/ $//' "$tmp/out" |
	grep -v '^Host processor:' > "$tmp/layout"
cat > "$tmp/expected" <<'LAYOUT'
--------------------------- performance counters ---------------------------
Command executed: N
Options: --duration N,N --user N,N --os N,N
Options: --mesi N,N --bus_agent N,N --compare N,N --invert N,N
Options: --MMX N,N
Options: --Enable N,N --PC N,N --APIC N,N
Event Events Events/sec
---------------------------------------- ---------------- ----------------
task-clock N N
page-faults N N
--events task-clock,page-faults
N: task-clock, time the task ran, nanoseconds
N: page-faults, page faults
Events N N intervals cycles event N event N
total N N N N
minimum N N N
mean N N N
maximum N N N
std.dev. N N N
Events per cycle N N
minimum N N N
mean N N
maximum N N
std.dev. N N
Ratio, event N/N, event N/N
LAYOUT
if [ $rc = 0 ] && head -n "$(wc -l < "$tmp/expected")" "$tmp/layout" | diff -u "$tmp/expected" - > "$tmp/diff"; then
	ok "report laid out as the seed's sample"
else
	not_ok "report laid out as the seed's sample" "status $rc" \
		"$(head -n 20 "$tmp/diff")"
fi
# and the seed's option values are the defaults
if grep -q '^Options: --duration 0,0 --user 1,1 --os 1,1$' "$tmp/out" &&
   grep -q '^Options: --mesi 0xf,0xf --bus_agent 1,1 --compare 0,0 --invert 0,0$' "$tmp/out" &&
   grep -q '^Options: --MMX 0x3f,0x3f$' "$tmp/out" &&
   grep -q '^Options: --Enable 1,1 --PC 1,1 --APIC 0,0$' "$tmp/out"; then
	ok "default options as in the seed's sample"
else
	not_ok "default options as in the seed's sample" \
		"$(grep '^Options' "$tmp/out")"
fi

# -Clean: the overhead is measured and printed
run --e task-clock,page-faults -Clean 20 100
if [ $rc = 0 ] && grep -qE '^Overhead \(-Clean 20\) +cycles [1-9][0-9]* +event 0 [0-9]+ +event 1 0$' "$tmp/out"; then
	ok "-Clean 20: overhead measured and reported"
else
	not_ok "-Clean 20: overhead measured" "status $rc" \
		"$(grep -i overhead "$tmp/out")"
fi

run --bogus 1
if [ $rc = 1 ] && grep -q 'unknown option --bogus' "$tmp/err" && grep -q '^usage:' "$tmp/err"; then
	ok "unknown option: usage, exit 1"
else
	not_ok "unknown option" "status $rc" "$(cat "$tmp/err")"
fi

}
n0=$n failed0=$failed
pass=1
while :; do
	n=$n0 failed=$failed0
	: > "$tap"
	one_pass
	if [ $failed != $failed0 ] || [ $pass = $RUNS ]; then
		cat "$tap"
		break
	fi
	pass=$((pass + 1))
done

[ $failed = 0 ]
