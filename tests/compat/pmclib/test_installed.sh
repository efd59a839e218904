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

# the programs a user writes (the same in tests/pkg/chroot-test.sh)
cpc_c=$src/tests/compat/libcpc/installed_cpc.c
pmc_c=$src/tests/compat/pmclib/installed_pmc.c

# shellcheck disable=SC2046
check "pkg-config pctr-libcpc: a libcpc program builds from the prefix" \
	$cc -Wall -Werror -o "$tmp/cpc" "$cpc_c" \
	$(pkg-config --cflags --libs pctr-libcpc) -Wl,-rpath,"$prefix/lib"
check "the installed libcpc counts" "$tmp/cpc"
# shellcheck disable=SC2046
check "pkg-config pctr-pmclib: a pmc_lib program builds from the prefix" \
	$cc -Wall -Werror -o "$tmp/pmc" "$pmc_c" \
	$(pkg-config --cflags --libs pctr-pmclib) -Wl,-rpath,"$prefix/lib"
# the seed's compile line, flags from the installed pmc_options
# shellcheck disable=SC2046
check "gcc -O \`pmc_options\` pmc.c -lpmc, as pmc_lib's pages say" \
	$cc -o "$tmp/pmc2" -O $(pmc_options) "$pmc_c" -lpmc
check "the installed pmc_lib counts and reports" \
	sh -c "'$tmp/pmc2' --e task-clock,page-faults | grep -q '^total  *1 '"
exit $failed
