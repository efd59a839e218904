#!/bin/sh
# SPDX-License-Identifier: MIT
# Install the build into a temporary root, then build BSD programs the way
# a user would: cc prog.c $(pkg-config --cflags --libs pctr-openbsd).
# Usage: test_pkgconfig.sh SOURCE_ROOT BUILD_ROOT
set -u
src=$1
build=$2
echo "1..4"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
if ! meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" \
	>"$tmp/install.log" 2>&1; then
	sed 's/^/# /' "$tmp/install.log"
	for i in 1 2 3 4; do echo "not ok $i - install failed"; done
	exit 0
fi
prefix=$(sed -n 's/^prefix=//p' "$build/meson-private/pctr-openbsd.pc")
libdir=$(find "$tmp/root$prefix" -name pctr-openbsd.pc | sed 's|/pkgconfig/pctr-openbsd.pc$||')
export PKG_CONFIG_SYSROOT_DIR="$tmp/root"
export PKG_CONFIG_PATH="$libdir/pkgconfig"
export PKG_CONFIG_LIBDIR="$libdir/pkgconfig"
export LD_LIBRARY_PATH="$libdir"

# a sanitizer build's libraries need the sanitizer runtime in the program
san=
case ${PCTR_SANITIZE:-none} in
none | '') ;;
*) san=-fsanitize=$PCTR_SANITIZE ;;
esac

n=0
build_one() { # layer program.c output
	n=$((n + 1))
	flags=$(pkg-config --cflags --libs "$1") &&
	# shellcheck disable=SC2086
	${CC:-cc} -Wall $san -o "$3" "$2" $flags >"$tmp/cc.log" 2>&1
	if [ $? = 0 ] && ! grep -q warning "$tmp/cc.log"; then
		echo "ok $n - $(basename "$2") builds with pkg-config $1 from the installed tree"
	else
		sed 's/^/# /' "$tmp/cc.log"
		echo "not ok $n - $(basename "$2") builds with pkg-config $1 from the installed tree"
	fi
	case "$flags" in
	*"$tmp/root"*) ;;
	*) echo "# flags do not point into the installed tree: $flags" ;;
	esac
}

build_one pctr-openbsd "$src/tests/compat/openbsd/pctrstat.c" "$tmp/pctrstat"
n=$((n + 1))
if "$tmp/pctrstat" >"$tmp/out" 2>&1 && grep -q '^ ctr0 = ' "$tmp/out" &&
	PCTR_BSD_EVENTS=c0=task-clock "$tmp/pctrstat" -s 0 -f c0 >"$tmp/out2" 2>&1 &&
	grep -q '^ ctr0 = .*[1-9].*\[--ku c0' "$tmp/out2"; then
	echo "ok $n - the installed OpenBSD layer reads and counts"
else
	sed 's/^/# /' "$tmp/out" "$tmp/out2"
	echo "not ok $n - the installed OpenBSD layer reads and counts"
fi

build_one pctr-freebsd "$src/tests/compat/freebsd/pmcloop.c" "$tmp/pmcloop"
n=$((n + 1))
if PCTR_BSD_EVENTS=c0=task-clock "$tmp/pmcloop" -u -l 2 0xc0 >"$tmp/out" 2>&1 &&
	grep -q '^clocks (at ' "$tmp/out"; then
	echo "ok $n - the installed FreeBSD layer samples"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok $n - the installed FreeBSD layer samples"
fi
