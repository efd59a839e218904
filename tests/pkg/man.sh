#!/bin/sh
# man.sh SRCDIR BUILDDIR PCTR - the man pages as installed (TAP): every
# function the libraries export has a page ("man FUNCTION" finds the page
# that documents it), and every page carries the version "pctr --version"
# prints; man pctr-stat finds its page, which names the installed format
# document.  Installs the pages and documents alone (meson install --tags
# man,doc) in a temporary directory.
set -u
src=$1 build=$2 pctr=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0 fail=0
ok() { # STATUS DESCRIPTION, details in $tmp/why
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		sed 's/^/# /' "$tmp/why" | head -n 40
		fail=1
	fi
	: >"$tmp/why"
}
: >"$tmp/why"

echo "1..6"
"$src/man/aliases.sh" list "$src" >"$tmp/aliases" 2>"$tmp/why"
ok $? "every exported function is in a man page"

meson install -C "$build" --no-rebuild --quiet --tags man,doc \
	--destdir "$tmp/root" >"$tmp/why" 2>&1
ok $? "meson install --tags man,doc"
man3=$(find "$tmp/root" -type d -name man3 | head -n 1)
mandir=$(dirname "${man3:-/nonexistent/x}")

# every function's file is the page, or a .so to a page of the same tree
while read -r f p; do
	if [ ! -f "$man3/$f.3" ]; then
		echo "$f: no $f.3 installed" >>"$tmp/why"
	elif [ "$f.3" != "$p" ] &&
	     [ "$(cat "$man3/$f.3")" != ".so man3/$p" ]; then
		echo "$f.3: not \".so man3/$p\"" >>"$tmp/why"
	elif [ ! -f "$man3/$p" ]; then
		echo "$f.3: $p is not installed" >>"$tmp/why"
	fi
done <"$tmp/aliases"
[ -s "$tmp/why" ]
ok $((! $?)) "$(wc -l <"$tmp/aliases") functions: FUNCTION.3 leads to its page"

# what a user types, through man(1)'s own .so resolution
MANWIDTH=80 man -M "$mandir" -P cat pctr_set_read >"$tmp/out" 2>"$tmp/why"
grep -q '^PCTR_SET(3)' "$tmp/out" && grep -qw 'pctr_set_read' "$tmp/out"
ok $? "man pctr_set_read shows pctr_set(3)"

version=$("$pctr" --version | sed -n 's/^pctr //p')
for p in "$mandir"/man*/*; do
	[ -f "$p" ] && head -n 1 "$p" | grep -q '^\.TH' || continue
	v=$(head -n 1 "$p" | sed -n 's/^\.TH [^ ]* [^ ]* [^ ]* "pctr \([^"]*\)".*/\1/p')
	[ "$v" = "$version" ] ||
		echo "$(basename "$p"): \"pctr $v\", pctr --version: $version" \
			>>"$tmp/why"
done
[ -n "$version" ] && [ ! -s "$tmp/why" ]
ok $? "every page's .TH says pctr $version, as pctr --version does"

# man pctr-stat, as man perf-stat; the format document it names installed
MANWIDTH=200 man -M "$mandir" -P cat pctr-stat >"$tmp/out" 2>"$tmp/why"
doc=$(grep -oE '/[^ ]*/json-schema\.md' "$tmp/out" | head -n 1)
grep -q '^PCTR-STAT(1)' "$tmp/out" && grep -q -- '--interval-count' \
	"$tmp/out" && [ -n "$doc" ] && [ -f "$tmp/root$doc" ] ||
	echo "pctr-stat(1) names '$doc'; installed: $(find "$tmp/root" \
		-name json-schema.md)" >>"$tmp/why"
ok $? "man pctr-stat shows the stat page and names the installed schema"
exit $fail
