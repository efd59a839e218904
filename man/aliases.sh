#!/bin/sh
# aliases.sh list SRCDIR
# aliases.sh install SRCDIR MAN3DIR
#
# Every function a library exports gets a page: "man pctr_set_read" finds
# pctr_set(3).  The functions are read from the version scripts (the export
# lists), the page from the NAME sections of man/*.3, so an exported
# function without a page is an error here, at build and test time.
# list prints "FUNCTION PAGE" lines; install writes FUNCTION.3 files that
# hold ".so man3/PAGE" into MAN3DIR (under $DESTDIR, from meson install).
set -eu
mode=$1 src=$2

# the names in a version script's global: part
map_names() {
	sed -e 's,/\*.*\*/,,' -e '/\/\*/,/\*\//d' "$1" |
		sed -n '/global:/,/local:/p' |
		grep -oE '^[[:space:]]*[A-Za-z_][A-Za-z0-9_]*;' | tr -d ' \t;'
}

# the page whose NAME section lists FUNCTION, else DEFAULT if it names it
page_of() { # FUNCTION DEFAULT
	for p in "$src"/man/*.3; do
		sed -n '/^\.SH NAME/,/^\.SH/p' "$p" | grep -qw -- "$1" &&
			{ basename "$p"; return 0; }
	done
	[ -n "$2" ] && grep -qw -- "$1" "$src/man/$2" && { echo "$2"; return 0; }
	return 1
}

# the exports and, for the compatibility libraries, the page that
# documents the whole legacy API; the BSD layers export no functions of
# their own (device emulation, --wrap targets): pctr_openbsd(4) and
# pctr_freebsd(4) document the devices
list() {
	bad=0
	while read -r map default; do
		for f in $(map_names "$src/$map"); do
			if p=$(page_of "$f" "$default"); then
				echo "$f $p"
			else
				echo "aliases.sh: $f ($map) is in no man page" >&2
				bad=1
			fi
		done
	done <<-LIST
	src/libpctr.map
	compat/libcpc/libcpc.map libcpc-compat.3
	compat/pmclib/libpmc.map pmc_lib-compat.3
	LIST
	return $bad
}

case $mode in
list) list ;;
install)
	dir=$3
	case $dir in /*) ;; *) dir=${MESON_INSTALL_PREFIX:-/usr/local}/$dir ;; esac
	dir=${DESTDIR:-}$dir
	mkdir -p "$dir"
	list >"$dir/.aliases.$$" || { rm -f "$dir/.aliases.$$"; exit 1; }
	while read -r f p; do
		[ "$f.3" = "$p" ] && continue
		echo ".so man3/$p" >"$dir/$f.3"
	done <"$dir/.aliases.$$"
	rm -f "$dir/.aliases.$$"
	;;
*) echo "usage: aliases.sh list|install SRCDIR [MAN3DIR]" >&2; exit 2 ;;
esac
