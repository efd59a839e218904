#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The two examples of the libcpc manual page (cpc_bind_event(3CPC)), taken
# from the seed at test time, built unchanged against <libcpc.h> and run.
# Third-party text stays out of the repository: the seed is read from
# ../shared/seeds next to the source tree (or $PCTR_SEEDS).
#
# What the harness adds, as the manual asks the reader to:
#  - error(), "a user-provided routine analogous to printf() which also
#    performs an exit(2)", through -include;
#  - a computation where the manual says "Computation to be measured goes
#    here" (the one place the code is touched: that line is a comment);
#  - for Example 2, the two fragments put in one program: the handler, then
#    main() with Example 1's event selection where the fragment says "..."
#    and Example 1's end after it.
#
# Each case runs its example 100 times in a row (repeat()).
#
# Usage: seed_examples.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
cc=${CC:-cc}
san=${PCTR_SAN_FLAGS:-} # the sanitizers the libraries were built with
tmp=$(mktemp -d)
[ -n "${KEEP_TMP:-}" ] && echo "# tmp $tmp" || trap 'rm -rf "$tmp"' EXIT

seeds=${PCTR_SEEDS:-$src/../shared/seeds}
seed=$(grep -l 'cpc_take_sample(3CPC)' "$seeds"/*.txt 2>/dev/null | head -n 1)
if [ -z "$seed" ]; then
	echo "1..0 # SKIP libcpc seed not found in $seeds"
	exit 0
fi

has_pmu=0
for d in /sys/bus/event_source/devices/cpu /sys/bus/event_source/devices/cpu_core \
	 /sys/bus/event_source/devices/armv8_pmuv3*; do
	[ -e "$d/type" ] && has_pmu=1
done

n=0
failed=0
ok() {
	n=$((n + 1))
	echo "ok $n - $1"
}
not_ok() {
	n=$((n + 1))
	failed=$((failed + 1))
	echo "not ok $n - $1"
	shift
	for line in "$@"; do
		printf '%s\n' "$line" | sed 's/^/# /' # TAP: every line a comment
	done
}

cat > "$tmp/prelude.h" <<'PRELUDE'
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
static void
error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "example: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}
#include <sys/mman.h>
static size_t ex_pages = 500; /* $EX_PAGES */
/* user-mode arithmetic, and a page fault on each of ex_pages fresh pages */
__attribute__((noinline, section("ex_compute"))) static void
compute(void)
{
	size_t len = ex_pages * 4096;
	char *p = len ? mmap(NULL, len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) : MAP_FAILED;

	for (volatile unsigned long i = 0; i < 100000; i++)
		;
	for (size_t i = 0; p != MAP_FAILED && i < len; i += 4096)
		((volatile char *)p)[i] = 1;
	if (p != MAP_FAILED)
		munmap(p, len);
}
/*
 * How many pages compute() touches, from $EX_PAGES; where compute() is,
 * into the file $EX_COMPUTE names: "START END"
 */
extern const char __start_ex_compute[], __stop_ex_compute[];
__attribute__((constructor)) static void
where_compute(void)
{
	const char *name = getenv("EX_COMPUTE");
	const char *pages = getenv("EX_PAGES");
	FILE *f = name ? fopen(name, "w") : NULL;

	if (pages)
		ex_pages = strtoul(pages, NULL, 10);
	if (f) {
		fprintf(f, "%p %p\n", (void *)__start_ex_compute,
			(void *)__stop_ex_compute);
		fclose(f);
	}
}
PRELUDE

computation='s|/\* ==> Computation to be measured goes here <== \*/|compute();|'

# Example 1: the whole program
sed -n '/^#include <inttypes.h>/,/^return (0);/p' "$seed" > "$tmp/ex1.c"
echo '}' >> "$tmp/ex1.c"
sed -i "$computation" "$tmp/ex1.c"

# Example 2: the handler, then main() around the setup code
{
	sed -n '/^#include <inttypes.h>/,/^#include <libcpc.h>/p' "$seed"
	sed -n '/^#define PRESET0/,/^and second the setup code/p' "$seed" |
		sed '$d'
	printf 'int\nmain(int argc, char *argv[])\n{\n'
	sed -n '/^int cpuver, iter;/,/^char \*setting = NULL;/p' "$seed"
	sed -n '/^struct sigaction act;/,/^\.\.\.$/p' "$seed" | sed '$d'
	sed -n '/^if (cpc_version(CPC_VER_CURRENT)/,/^    error("can.t access perf counters/p' "$seed"
	sed -n '/^struct sigaction act;/,/^cpc_bind_event(NULL, 0);/p' "$seed" |
		sed '1,/^\.\.\.$/d'
	sed -n '/^free(setting);/,/^return (0);/p' "$seed"	# Example 1's end
	printf '}\n'
} | sed "$computation" > "$tmp/ex2.c"

echo "1..10"

build_one() {
	if $cc $san -Wall -include "$tmp/prelude.h" -I"$src/include/compat" \
		-I"$src/include" "$tmp/$1.c" -o "$tmp/$1" \
		-L"$build/compat/libcpc" -lcpc \
		-Wl,-rpath,"$build/compat/libcpc:$build/src" \
		> "$tmp/$1.cc" 2>&1; then
		ok "$1 (manual example) builds unchanged"
	else
		not_ok "$1 (manual example) builds unchanged" \
			"$(head -n 5 "$tmp/$1.cc")"
	fi
}
build_one ex1
build_one ex2

# run NAME PERFEVENTS: output in $tmp/out, $tmp/err, status in $rc;
# compute() touches $pages fresh pages a call
pages=500
run() {
	if [ -n "$2" ]; then
		EX_COMPUTE=$tmp/compute EX_PAGES=$pages PERFEVENTS=$2 \
			timeout 30 "$tmp/$1" > "$tmp/out" 2> "$tmp/err"
	else
		env -u PERFEVENTS timeout 30 "$tmp/$1" > "$tmp/out" \
			2> "$tmp/err"
	fi
	rc=$?
}

# Every case runs its example RUNS times in a row, as a user runs it again
# and again, and each run must pass: a failure names the run and why.
# repeat DESCRIPTION CHECK ARGS...: CHECK runs the example once and returns
# non-zero with $why set when that run is wrong; $got says what the last
# run did, for the description.
RUNS=100
[ -n "$san" ] && RUNS=10 # the sanitizers look for memory errors, not chance
repeat() {
	desc=$1
	shift
	i=1
	while [ $i -le $RUNS ]; do
		why=
		if ! "$@"; then
			not_ok "$desc: run $i of $RUNS: $why" \
				"$(head -n 4 "$tmp/out")" "$(tail -n 4 "$tmp/err")"
			return
		fi
		i=$((i + 1))
	done
	ok "$desc, $RUNS runs in a row${got:+ ($got)}"
}
signal_of() { # a status past 128: the signal's name
	[ "$1" -gt 128 ] && kill -l $(($1 - 128)) 2>/dev/null
}
status_why() {
	why="status $rc $(signal_of $rc)"
}

# the default events are UltraSPARC's: no processor here has them
refuses_default() { # EXAMPLE
	run "$1" ""
	got=
	[ $rc = 1 ] && grep -q "can't measure 'pic0=EC_ref,pic1=EC_hit' on this processor" "$tmp/err" ||
		{ status_why; return 1; }
}
for ex in ex1 ex2; do
	repeat "$ex: UltraSPARC default events refused as on any other CPU" \
		refuses_default $ex
done

# Example 1 with software events: 20 samples.  Its last check is
# "if (iter != 20)" after a loop that leaves iter at 21, so the program
# ends with "can't sample" even when all went well, on Solaris too.
ex1_samples() {
	run ex1 "pic0=task-clock,pic1=page-faults"
	lines=$(grep -cE '^ *[0-9]+: [0-9]+ [0-9]+$' "$tmp/out")
	busy=$(awk '$2 > 0' "$tmp/out" | wc -l)
	got=
	[ "$lines" = 20 ] && [ "$busy" = 20 ] && [ $rc = 1 ] &&
		grep -q "can't sample 'pic0=task-clock,pic1=page-faults'" "$tmp/err" ||
		{ status_why; why="$why, $lines lines, $busy busy"; return 1; }
}
repeat "ex1: 20 samples of task-clock, each non-zero" ex1_samples

# generic (PAPI) events: counted with a PMU, refused as documented without
ex1_papi() {
	run ex1 "pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc"
	got=
	if [ $has_pmu = 1 ]; then
		busy=$(awk '$2 > 0 && $3 > 0' "$tmp/out" | wc -l)
		[ "$busy" = 20 ] || { status_why; why="$why, $busy of 20 busy"; return 1; }
	else
		[ $rc = 1 ] && grep -q "can't measure 'pic0=PAPI_tot_ins,pic1=PAPI_tot_cyc' on this processor" "$tmp/err" &&
			grep -q "needs hardware counters" "$tmp/err" ||
			{ status_why; return 1; }
	fi
}
if [ $has_pmu = 1 ]; then
	repeat "ex1: PAPI_tot_ins and PAPI_tot_cyc counted" ex1_papi
else
	repeat "ex1: PAPI_tot_ins refused: no hardware counters here" ex1_papi
fi

# Example 2: overflow signals, si_addr is the PC.  The manual presets
# counter 0 to 1000 events short of its overflow and rebinds from the
# handler.  Each run must end by itself (an overflow signal that queued
# without limit ends in the kernel's fallback, SIGIO, which kills), every
# SIGEMT's si_addr is the interrupted PC, and every sample is just past
# the wrap: preset 2^64 - 1000 + the count.
# ex2_signals EVENTS MIN MAX [TAIL]: MIN to MAX signals in the run; with
# TAIL, an overflow may also come in the handler's own steps after its
# rebind (task-clock, whose timer fires wherever the program is).  That
# signal waits for the handler's return (SIGEMT is blocked in it), and its
# %pc is then the program's, its si_addr the handler's, as on Solaris.
# How many do is the machine's: here the ioctl that starts the counter
# takes 8 of the timer's 10 us, so an overflow comes in the next 2 us, the
# handler's return path, in a quarter of the rebinds under ASan, half on
# a CI run (tests/repro/repro_task_clock_enable_tail).  So each is judged
# where it is: a signal whose si_addr is not its %pc must be the first of
# the run (delivered at the bind's unblocking of SIGEMT) or be delivered
# where the one before it was (%pc and %sp the same: right after that
# handler returned), and its si_addr must be a user-space address outside
# compute(), the program's own work (the prelude's constructor writes
# where that is).  A notification delivered late, away from its overflow
# in compute(), fails.
ex2_signals() {
	run ex2 "$1"
	sigs=$(grep -c '^lwp[0-9]* - si_addr ' "$tmp/out")
	same=$(awk '/^lwp[0-9]* - si_addr / && $4 == $7' "$tmp/out" | wc -l)
	# a user-space address: 12 hex digits at most (a kernel one has 16)
	user=$(awk '/^lwp[0-9]* - si_addr 0x/ && length($4) <= 14' "$tmp/out" | wc -l)
	if [ -n "${4:-}" ]; then
		read -r lo hi < "$tmp/compute" || { lo=0x0 hi=0x0; }
		tails=$(awk -v lo="$lo" -v hi="$hi" '
			# hex addresses compared as strings, right-aligned
			function pad(a) { return sprintf("%16s", substr(a, 3)) }
			BEGIN { lo = pad(lo); hi = pad(hi) }
			/^lwp[0-9]* - si_addr / {
				if ($4 != $7 && $4 ~ /^0x/ && length($4) <= 14 &&
				    (n == 0 || ($7 == pc && $9 == sp)) &&
				    !(pad($4) >= lo && pad($4) < hi))
					t++
				pc = $7; sp = $9; n++
			}
			END { print t + 0 }' "$tmp/out")
		same=$((same + tails))
	fi
	big=$(awk '/^0x/ && length($1) > 12' "$tmp/out" | wc -l)
	vals=$(grep -c '^0x' "$tmp/out")
	got="$sigs signals in the last"
	if [ $rc != 0 ]; then
		status_why
		why="$why after $sigs signals"
	elif [ "$sigs" -lt "$2" ] || [ "$sigs" -gt "$3" ]; then
		why="$sigs signals, not $2 to $3"
	elif [ "$same" != "$sigs" ]; then
		why="si_addr is not %pc in $((sigs - same)) of $sigs signals${4:+ nor a handler's tail} ($user in user space)"
	elif [ "$vals" != "$sigs" ] || [ "$big" != 0 ]; then
		why="$vals samples for $sigs signals, $big before the wrap"
	fi
	[ -z "$why" ]
}
# Page faults, of which compute() makes 500 a call, 10000 in the 20 calls:
# 10 overflows, none in the handler (which faults on no new page once it
# has run), and one more for the program's own first faults after the
# bind (stdio's buffer).  libpctr asks for PERF_SAMPLE_PERIOD, with which
# the kernel makes every page fault an overflow
# (tests/repro/repro_swevent_sample_period): this fails with 10000 until
# the core stops asking for it on counting software events.
if [ $has_pmu = 1 ]; then
	repeat "ex2: overflow signals on PAPI_tot_cyc, si_addr == %pc" \
		ex2_signals pic0=PAPI_tot_cyc,pic1=PAPI_tot_ins 1 100000
else
	repeat "ex2: 10 overflow signals on page-faults, si_addr == %pc" \
		ex2_signals pic0=page-faults,pic1=task-clock 10 11
fi
# The seed's own parameters with task-clock, the event a user without a
# PMU gives: 1000 ns is below the kernel's 10 us minimum for its timer,
# so an overflow comes after 10 us of the program's time at the least;
# compute()'s 20 calls give it milliseconds of that: hundreds of
# overflows, at least one.  A notification without limit would go on
# through the handler's own time until the queue overflowed (SIGIO).
# Here compute() faults on no page: the timer at its floor, which fires
# in the kernel's work too, makes page faults 20 times slower on these
# VMs (tests/repro/repro_task_clock_fault_storm: 10,000 faults, 21 ms
# alone, 430 ms under it), and on a busy host seconds slower, past the
# run's 30 s.
pages=0
repeat "ex2: overflow signals on task-clock, si_addr == %pc but in the handler" \
	ex2_signals pic0=task-clock 1 100000 tail
repeat "ex2: overflow signals on task-clock, page-faults beside" \
	ex2_signals pic0=task-clock,pic1=page-faults 1 100000 tail
pages=500

# A Solaris program of the autoconf kind: configure probes <sys/time.h> for
# hrtime_t and gethrtime() and the program defines its own when they are
# absent; it includes <sys/lwp.h> and <libcpc.h> beside.  With the layer's
# flags the probe finds them, as on Solaris.  A program that also repeats
# Solaris's typedef itself (-DOWN_TYPEDEF) builds too: C11 allows the same
# typedef twice.
cat > "$tmp/probe.c" <<'PROBE'
#include <sys/time.h>
int main(void) { hrtime_t t = gethrtime(); return t < 0; }
PROBE
cat > "$tmp/solaris.c" <<'SOLARIS'
#include <sys/types.h>
#include <sys/time.h>
#include <sys/lwp.h>
#include <stdio.h>
#include <libcpc.h>
#ifdef OWN_TYPEDEF
typedef long long hrtime_t;
#endif
#ifndef HAVE_GETHRTIME
#include <time.h>
typedef long long hrtime_t;
static hrtime_t
gethrtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}
#endif
int
main(void)
{
	char name[CPC_MAX_EVENT_LEN];
	hrtime_t a = gethrtime(), b = gethrtime();

	snprintf(name, sizeof(name), "lwp%d", (int)_lwp_self());
	return b >= a && name[0] == 'l' ? 0 : 1;
}
SOLARIS
cflags="-Wall -Werror -I$src/include/compat -I$src/include"
libs="-L$build/compat/libcpc -lcpc -Wl,-rpath,$build/compat/libcpc:$build/src"
have=""
$cc $san $cflags "$tmp/probe.c" -o "$tmp/probe" $libs > "$tmp/probe.cc" 2>&1 &&
	have=-DHAVE_GETHRTIME
if [ -n "$have" ] &&
   $cc $san $cflags $have "$tmp/solaris.c" -o "$tmp/sol1" $libs > "$tmp/s1.cc" 2>&1 &&
   $cc $san $cflags $have -DOWN_TYPEDEF "$tmp/solaris.c" -o "$tmp/sol2" $libs \
	> "$tmp/s2.cc" 2>&1 &&
   "$tmp/sol1" && "$tmp/sol2"; then
	ok "Solaris program with its own gethrtime probe builds and runs"
else
	not_ok "Solaris program with its own gethrtime probe" "probe: $have" \
		"$(cat "$tmp/probe.cc" "$tmp/s1.cc" "$tmp/s2.cc" 2>/dev/null | head -n 6)"
fi

[ $failed = 0 ]
