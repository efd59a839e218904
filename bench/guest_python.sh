# shellcheck shell=bash
# bench/guest_python.sh - sourced by the benchmarks that run Python in the
# x86-64 guest (tests/hw/run-in-guest.sh --root TREE): a tree of files to
# copy into the guest's root.
#
#   guest_tree_libs TREE FILE...   the shared libraries FILE needs (and
#                                  the loader), at their paths under TREE
#   guest_tree_libdir              where the loader looks first (the
#                                  directory of libc)
#   guest_tree_python TREE [BUILD] this machine's /usr/bin/python3.11 and
#                                  its standard library; with BUILD also its
#                                  pctr package and libpctr.so
#   guest_tree_launcher TREE SCRIPT
#                                  TREE/run: a program that runs /hw/SCRIPT
#                                  (given with -f) with its arguments

guest_py=/usr/bin/python3.11

guest_tree_libs() { # TREE FILE...
	local tree=$1 f lib
	shift
	for f in "$@"; do
		ldd "$f" 2>/dev/null | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'
	done | sort -u | while read -r lib; do
		mkdir -p "$tree$(dirname "$lib")"
		[ -e "$tree$lib" ] || cp -L "$lib" "$tree$lib"
	done
}

guest_tree_libdir() {
	dirname "$(ldd "$guest_py" | awk '/libc.so/ { print $3 }')"
}

guest_tree_python() { # TREE [BUILD]
	local tree=$1 build=${2:-} stdlib=/usr/lib/python3.11 pkg

	[ -x "$guest_py" ] || { echo "no $guest_py (apt-get install python3.11)" >&2; return 1; }
	mkdir -p "$tree/usr/bin" "$tree$stdlib"
	cp "$guest_py" "$tree/usr/bin/"
	# the standard library without what no benchmark imports
	(cd "$stdlib" && tar -c --exclude=./test --exclude=./idlelib \
		--exclude=./tkinter --exclude=./turtledemo --exclude=./ensurepip \
		--exclude=./lib2to3 --exclude=./pydoc_data --exclude='./config-*' \
		--exclude=./site-packages --exclude=./dist-packages .) |
		(cd "$tree$stdlib" && tar -x) || return 1
	guest_tree_libs "$tree" "$guest_py" "$stdlib"/lib-dynload/*.so
	[ -n "$build" ] || return 0
	pkg=$build/bindings/python/pctr
	[ -d "$pkg" ] || { echo "no $pkg (build first)" >&2; return 1; }
	guest_tree_libs "$tree" "$pkg"/_pctr*.so "$build/src/libpctr.so.0"
	cp -a "$pkg" "$tree$stdlib/pctr"
	rm -rf "$tree$stdlib/pctr/"*.p
	# libpctr where the loader looks without the build tree's RUNPATH
	cp -L "$build/src/libpctr.so.0" "$tree$(guest_tree_libdir)/"
}

guest_tree_launcher() { # TREE SCRIPT
	printf '#!%s\nimport runpy, sys\nsys.argv = ["%s"] + sys.argv[1:]\nrunpy.run_path("/hw/%s", run_name="__main__")\n' \
		"$guest_py" "$2" "$2" >"$1/run"
	chmod +x "$1/run"
}
