#!/bin/sh
# SPDX-License-Identifier: MIT
#
# hw_seeds.sh - the seeds' own programs for the guest, taken from
# ../shared/seeds at build time (third-party text stays out of the
# repository): the libcpc manual's Examples 1 and 2 (cpc_bind_event(3CPC))
# and pmc_lib's menu8.c.  The extraction is the one of
# tests/compat/libcpc/seed_examples.sh and tests/compat/pmclib/seed_menu8.sh,
# which build and run the same programs on the host; what is added is what
# the manual asks the reader to supply: error() and the computation (in
# seed_prelude.h, given to the compiler with -include).
#
# usage: hw_seeds.sh --find SEEDS   the two seed files, one a line; exit 1
#                                   with one line saying what is missing
#        hw_seeds.sh SEEDS OUTDIR   write OUTDIR/seed_prelude.h,
#                                   cpc_example1.c, cpc_example2.c, menu8.c
set -u

find_seeds() {
	cpc=$(grep -l 'cpc_take_sample(3CPC)' "$1"/*.txt 2>/dev/null | head -n 1)
	pmc=$(grep -l 'pmc_accumulate(&Ctl.counters\[0\]' "$1"/*.txt 2>/dev/null | head -n 1)
	if [ -z "$cpc" ] || [ -z "$pmc" ]; then
		echo "the libcpc and pmc_lib seeds are not in $1"
		return 1
	fi
}

if [ "${1:-}" = --find ]; then
	find_seeds "$2" || exit 1
	echo "$cpc"
	echo "$pmc"
	exit 0
fi
[ $# = 2 ] || { echo "usage: $0 SEEDS OUTDIR" >&2; exit 2; }
find_seeds "$1" >&2 || exit 1
out=$2

cat > "$out/seed_prelude.h" <<'PRELUDE'
/* what the libcpc manual leaves to the reader (tests/hw/hw_seeds.sh) */
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
static void
compute(void)
{
	for (volatile unsigned long i = 0; i < 25000; i++)
		;
}
PRELUDE

computation='s|/\* ==> Computation to be measured goes here <== \*/|compute();|'

# Example 1: the whole program
{
	sed -n '/^#include <inttypes.h>/,/^return (0);/p' "$cpc"
	echo '}'
} | sed "$computation" > "$out/cpc_example1.c"

# Example 2: the handler, then main() around the setup code
{
	sed -n '/^#include <inttypes.h>/,/^#include <libcpc.h>/p' "$cpc"
	sed -n '/^#define PRESET0/,/^and second the setup code/p' "$cpc" |
		sed '$d'
	printf 'int\nmain(int argc, char *argv[])\n{\n'
	sed -n '/^int cpuver, iter;/,/^char \*setting = NULL;/p' "$cpc"
	sed -n '/^struct sigaction act;/,/^\.\.\.$/p' "$cpc" | sed '$d'
	sed -n '/^if (cpc_version(CPC_VER_CURRENT)/,/^    error("can.t access perf counters/p' "$cpc"
	sed -n '/^struct sigaction act;/,/^cpc_bind_event(NULL, 0);/p' "$cpc" |
		sed '1,/^\.\.\.$/d'
	sed -n '/^free(setting);/,/^return (0);/p' "$cpc"	# Example 1's end
	printf '}\n'
} | sed "$computation" > "$out/cpc_example2.c"

# menu8.c
{
	sed -n '/^#include <pmc_lib.h>/,/^exit(0);/p' "$pmc"
	echo '}'
} > "$out/menu8.c"

for f in cpc_example1.c cpc_example2.c menu8.c; do
	[ -s "$out/$f" ] || { echo "$0: nothing extracted for $f" >&2; exit 1; }
done
