#!/bin/sh
# exports.sh SRCDIR BUILDDIR - every shared library exports exactly the
# symbols its version script names, and those are exactly what its public
# headers declare (TAP).  For libpctr also exactly the PCTR_EXPORT functions
# in src/.  A new exported function is ABI only once it is in the map.
set -u
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
CC=${CC:-cc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0

ok() { # COND-STATUS DESCRIPTION (the diff is in $tmp/diff)
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		sed 's/^/# /' "$tmp/diff"
		fail=1
	fi
}

# same SETA SETB LABELA LABELB: the two sorted lists are equal
same() {
	diff "$1" "$2" | awk -v a="$3" -v b="$4" '
		/^</ { print "only in " a ": " $2 }
		/^>/ { print "only in " b ": " $2 }' >"$tmp/diff"
	[ -s "$tmp/diff" ] && return 1 || return 0
}

# the names in a version script's global: part (comments stripped)
map_names() {
	sed -e 's,/\*.*\*/,,' -e '/\/\*/,/\*\//d' "$1" |
		sed -n '/global:/,/local:/p' |
		grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;' |
		sort
}

# the dynamic symbols a library defines, without version suffixes
lib_names() {
	nm -D --defined-only "$1" |
		awk 'NF == 3 && $2 != "A" { sub(/@.*/, "", $3); print $3 }' | sort
}

# declared INCDIR HEADER...: the link names of the functions and data the
# headers under INCDIR declare.  The compiler lists the prototypes
# (-aux-info); referencing each one and reading the object's undefined
# symbols gives the names a program links to, asm labels included.
declared() {
	inc=$1; shift
	printf '#include <%s>\n' "$@" >"$tmp/h.c"
	$CC -D_GNU_SOURCE -I"$inc" -fsyntax-only -aux-info "$tmp/aux" \
		"$tmp/h.c" || return 1
	fns=$(grep -F "/* $inc/" "$tmp/aux" | grep -v '\*/ static ' |
		sed -E 's/ \(.*//; s/.*[ *]//')
	data=$(cd "$inc" && cat "$@" |
		sed -nE 's/^extern [^("]*[ *]([A-Za-z_][A-Za-z0-9_]*);$/\1/p')
	{
		cat "$tmp/h.c"
		echo 'void *ref[] = {'
		for f in $fns $data; do echo "(void *)&$f,"; done
		echo '};'
	} >"$tmp/r.c"
	$CC -D_GNU_SOURCE -I"$inc" -c "$tmp/r.c" -o "$tmp/r.o" || return 1
	nm -u "$tmp/r.o" | awk '{ print $2 }' | sort -u
}

# check NAME LIB MAP EXTRA INCDIR HEADER...: the library against its map,
# the map against the headers.  EXTRA: an egrep of exported names that are
# mechanism rather than declared API (the BSD layers' --wrap targets and
# devices); symbols the headers declare that libpctr defines are allowed.
check() {
	name=$1 lib=$2 map=$3 extra=$4; shift 4
	map_names "$map" >"$tmp/map"
	lib_names "$lib" >"$tmp/lib"
	same "$tmp/map" "$tmp/lib" "$(basename "$map")" "$(basename "$lib")"
	ok $? "$name: the library exports exactly the map"
	declared "$@" >"$tmp/decl" || { echo "Bail out! $name headers"; exit 1; }
	# declared here, defined by libpctr (e.g. pctr_tsc in <machine/pctr.h>)
	if [ "$name" = libpctr ]; then
		cp "$tmp/decl" "$tmp/decl.own"
	else
		grep -vxFf "$tmp/pctr" "$tmp/decl" >"$tmp/decl.own"
	fi
	grep -vE "^($extra)\$" "$tmp/map" >"$tmp/map.api"
	same "$tmp/map.api" "$tmp/decl.own" "$(basename "$map")" "headers"
	r=$?
	shift
	ok $r "$name: the map names exactly what $* declare"
}

# the command's objects, when it is built (-Dtools, the default)
objs=$(find "$build/tools/pctr.p" -name "*.o" 2>/dev/null)
if [ -n "$objs" ]; then echo "1..13"; else echo "1..12"; fi
lib_names "$build/src/libpctr.so" >"$tmp/pctr"
check libpctr "$build/src/libpctr.so" "$src/src/libpctr.map" '' \
	"$src/include" pctr.h
awk '/^PCTR_EXPORT/ { want = 1 }
     want && match($0, /[A-Za-z_][A-Za-z0-9_]*\(/) {
	print substr($0, RSTART, RLENGTH - 1); want = 0 }' \
	"$src"/src/*.c "$src"/src/*/*.c | sort >"$tmp/src"
same "$tmp/src" "$tmp/pctr" "PCTR_EXPORT in src/" "libpctr.so"
ok $? "libpctr: the PCTR_EXPORT functions in src/ are exactly the exports"

# The command links libpctr's static archive (src/meson.build), where the
# linker would also find the hidden functions: it may call only exports.
# What its objects use and do not define themselves, and the archive does.
if [ -n "$objs" ]; then
	# shellcheck disable=SC2086
	nm -u $objs | awk 'NF == 2 { print $2 }' | sort -u >"$tmp/tool.u"
	# shellcheck disable=SC2086
	nm --defined-only $objs | awk 'NF == 3 { print $3 }' | sort -u >"$tmp/tool.d"
	nm --defined-only "$build/src/libpctr.a" 2>/dev/null |
		awk 'NF == 3 && $2 ~ /[TDBR]/ { print $3 }' | sort -u >"$tmp/a.d"
	comm -23 "$tmp/tool.u" "$tmp/tool.d" | comm -12 - "$tmp/a.d" |
		comm -23 - "$tmp/pctr" |
		sed 's/^/the command calls hidden /' >"$tmp/diff"
	[ ! -s "$tmp/diff" ] && [ -s "$tmp/a.d" ]
	ok $? "pctr (the command) calls only libpctr's exports"
fi

# The naming rule (README.md, "The library in one page"): the prefix is the
# type of the first argument, so a function taking a struct pctr_X (or a
# struct pctr_X_config, the argument block of subsystem X) is pctr_X_*; and
# "set" after another prefix is only ever the verb at the end
# (pctr_stats_name_set), since everywhere else it is the noun.
printf '#include <pctr.h>\n' >"$tmp/h.c"
$CC -D_GNU_SOURCE -I"$src/include" -fsyntax-only -aux-info "$tmp/aux" \
	"$tmp/h.c" || { echo "Bail out! pctr.h"; exit 1; }
grep -F "/* $src/include/" "$tmp/aux" | sed -E 's,^/\*[^*]*\*/ ,,' | awk '
{
	if (!match($0, /pctr_[a-z0-9_]+ \(/))
		next
	name = substr($0, RSTART, RLENGTH - 2)
	rest = substr($0, RSTART + RLENGTH)
	if (match(rest, /^(const )?struct pctr_[a-z0-9_]+ \*/)) {
		t = substr(rest, RSTART, RLENGTH)
		sub(/^(const )?struct /, "", t); sub(/ \*$/, "", t)
		sub(/_config$/, "", t)
		if (index(name, t "_") != 1)
			print name ": its first argument is a struct " t
	}
	if (name ~ /^pctr_[a-z0-9]+_set_/ && name !~ /^pctr_set_/)
		print name ": a setter is pctr_X_ATTR_set, not pctr_X_set_ATTR"
}' >"$tmp/diff"
[ ! -s "$tmp/diff" ]
ok $? "libpctr: every function is named by the type of its first argument"

c=$build/compat
check libcpc "$c/libcpc/libcpc.so" "$src/compat/libcpc/libcpc.map" '' \
	"$src/include/compat" libcpc.h
check libpmc "$c/pmclib/libpmc.so" "$src/compat/pmclib/libpmc.map" '' \
	"$src/include/compat" pmc_lib.h
check libpctr-openbsd "$c/openbsd/libpctr-openbsd.so" \
	"$src/compat/openbsd/libpctr-openbsd.map" \
	'__wrap_[a-z0-9_]+|pctr_(openbsd|freebsd)_dev' \
	"$src/include/compat" machine/pctr.h stdlib.h sys/sysctl.h
check libpctr-freebsd "$c/freebsd/libpctr-freebsd.so" \
	"$src/compat/freebsd/libpctr-freebsd.map" \
	'__wrap_[a-z0-9_]+|pctr_(openbsd|freebsd)_dev' \
	"$src/include/compat" machine/perfmon.h stdlib.h
exit $fail
