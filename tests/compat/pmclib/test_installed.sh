#!/bin/sh
# SPDX-License-Identifier: MIT
#
# The libcpc and pmc_lib layers as a user gets them: the tree configured
# with a prefix, built and installed there (what "make install PREFIX=DIR"
# does), then programs built against the installed files only:
#   cc prog.c $(pkg-config --cflags --libs pctr-libcpc)
#   cc prog.c $(pkg-config --cflags --libs pctr-pmclib)
#   gcc -o menu8 -O `pmc_options` menu8.c -lpmc        (the seed's line)
#
# Usage: test_installed.sh SOURCE_ROOT
set -u
src=$1
cc=${CC:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

echo "1..5"
if ! { meson setup "$tmp/build" "$src" --prefix="$prefix" -Dlibdir=lib \
	-Dtests=false -Dtools=false &&
       ninja -C "$tmp/build" && meson install -C "$tmp/build" --quiet; } \
	> "$tmp/log" 2>&1; then
	tail -n 20 "$tmp/log" | sed 's/^/# /'
	for i in 1 2 3 4 5; do echo "not ok $i - install into a prefix"; done
	exit 1
fi
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
export PKG_CONFIG_LIBDIR="$prefix/lib/pkgconfig"
export PATH="$prefix/bin:$PATH"
failed=0
n=0
check() { # description, then a command that must succeed
	n=$((n + 1))
	desc=$1
	shift
	if "$@" > "$tmp/out" 2>&1; then
		echo "ok $n - $desc"
	else
		failed=1
		echo "not ok $n - $desc"
		sed 's/^/# /' "$tmp/out" | head -n 10
	fi
}

cat > "$tmp/cpc.c" <<'PROG'
#include <libcpc.h>
#include <stdio.h>

int
main(void)
{
	cpc_event_t a, b;
	volatile int i;

	if (cpc_strtoevent(cpc_getcpuver(), "pic0=task-clock", &a) != 0 ||
	    cpc_bind_event(&a, 0) != 0 || cpc_take_sample(&a) != 0)
		return 1;
	for (i = 0; i < 1000000; i++)
		;
	if (cpc_take_sample(&b) != 0)
		return 1;
	printf("%llu\n", (unsigned long long)(b.ce_pic[0] - a.ce_pic[0]));
	return b.ce_pic[0] > a.ce_pic[0] ? 0 : 1;
}
PROG
cat > "$tmp/pmc.c" <<'PROG'
#include <pmc_lib.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	pmc_control_t Ctl = pmc_control_null;
	pmc_data_t t0, t1;

	if (pmc_getargs(stderr, argv[0], &argc, &argv, &Ctl) == FALSE ||
	    pmc_open(0) == FALSE || pmc_select(&Ctl.counters[0]) == FALSE)
		exit(1);
	pmc_read(&t0);
	pmc_read(&t1);
	pmc_accumulate(&Ctl.counters[0], &t1, &t0);
	pmc_close();
	pmc_print_results(argc, argv, &Ctl);
	exit(0);
}
PROG

# shellcheck disable=SC2046
check "pkg-config pctr-libcpc: a libcpc program builds from the prefix" \
	$cc -Wall -Werror -o "$tmp/cpc" "$tmp/cpc.c" \
	$(pkg-config --cflags --libs pctr-libcpc) -Wl,-rpath,"$prefix/lib"
check "the installed libcpc counts" "$tmp/cpc"
# shellcheck disable=SC2046
check "pkg-config pctr-pmclib: a pmc_lib program builds from the prefix" \
	$cc -Wall -Werror -o "$tmp/pmc" "$tmp/pmc.c" \
	$(pkg-config --cflags --libs pctr-pmclib) -Wl,-rpath,"$prefix/lib"
# the seed's compile line, flags from the installed pmc_options
# shellcheck disable=SC2046
check "gcc -O \`pmc_options\` pmc.c -lpmc, as pmc_lib's pages say" \
	$cc -o "$tmp/pmc2" -O $(pmc_options) "$tmp/pmc.c" -lpmc
check "the installed pmc_lib counts and reports" \
	sh -c "'$tmp/pmc2' --e task-clock,page-faults | grep -q '^total  *1 '"
exit $failed
