# shellcheck shell=bash
# tests/hw/perf.sh - sourced by run.sh: Debian's perf (package linux-perf,
# unchanged) for a guest, the independent judge of test_hw_perf.
#
#   hw_perf_fetch ARCH      x86_64 or aarch64; sets hw_perf_tree, a
#                           directory holding usr/bin/perf, its program
#                           interpreter and every shared library it needs
#                           at the paths the loader searches, or returns 1
#                           with $hw_perf_error set
#   hw_perf_install ROOT    copies that tree into a guest's root, or writes
#                           the reason it is missing to ROOT/hw/perf-missing
#                           (the test fails with it)
#
# The packages come from apt with "apt-get download" (no root, nothing
# installed on the host), for the guest's Debian architecture (arm64 needs
# "dpkg --add-architecture arm64", which run.sh does for libpfm4-dev:arm64):
# linux-perf and the library packages it depends on, directly or not.  Only
# the libraries its DT_NEEDED entries name, recursively, go into the tree,
# so a library missing from them is an error, not a guest that cannot
# start perf.  Cached in $PCTR_HW_CACHE/perf-ARCH-VERSION.

hw_perf_tree='' hw_perf_error=''

hw_perf_fetch() { # ARCH
	local deb_arch triplet ver dir tmp libs p cache=${PCTR_HW_CACHE:-/var/tmp/pctr-hw}

	case $1 in
	aarch64) deb_arch=arm64 triplet=aarch64-linux-gnu ;;
	x86_64) deb_arch=amd64 triplet=x86_64-linux-gnu ;;
	*) hw_perf_error="no perf for architecture $1"; return 1 ;;
	esac
	ver=$(apt-cache policy "linux-perf:$deb_arch" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	# package lists never fetched on this machine: fetch them (run.sh's
	# as_root, when it is there to call)
	if [ -z "$ver" ] || [ "$ver" = '(none)' ] && declare -F as_root >/dev/null &&
		as_root apt-get -o DPkg::Lock::Timeout=300 update -qq >/dev/null 2>&1; then
		ver=$(apt-cache policy "linux-perf:$deb_arch" 2>/dev/null | sed -n 's/^ *Candidate: //p')
	fi
	case $ver in
	'' | '(none)')
		hw_perf_error="apt knows no linux-perf:$deb_arch (dpkg --add-architecture $deb_arch; apt-get update)"
		return 1
		;;
	esac
	dir=$cache/perf-$deb_arch-$ver
	if [ -f "$dir/ok" ]; then
		hw_perf_tree=$dir/root
		return 0
	fi
	if ! mkdir -p "$cache" || ! tmp=$(mktemp -d "$cache/perf-fetch.XXXXXX"); then
		hw_perf_error="cannot write to $cache"
		return 1
	fi
	# the library packages under linux-perf, without what only perf's
	# Perl and Python scripting would load (their standard libraries)
	libs=$(apt-cache depends --recurse --no-recommends --no-suggests \
		--no-conflicts --no-breaks --no-replaces --no-enhances \
		"linux-perf:$deb_arch" 2>/dev/null |
		grep -E '^(lib|zlib)' | grep -vE -- '-(stdlib|minimal)(:|$)' |
		sed 's/:.*//' | sort -u)
	# each for ARCH, but those of architecture "all" (configuration,
	# no library) as they are
	# shellcheck disable=SC2086
	libs=$(apt-cache show --no-all-versions $libs 2>/dev/null | awk -v a="$deb_arch" '
		/^Package: / { p = $2 }
		/^Architecture: / { print p ($2 == "all" ? "" : ":" a) }' | sort -u)
	# shellcheck disable=SC2086
	if ! (cd "$tmp" && apt-get download "linux-perf:$deb_arch" $libs) >"$tmp/log" 2>&1; then
		hw_perf_error="apt-get download linux-perf:$deb_arch and its libraries failed: $(grep -m1 -E '^E:' "$tmp/log")"
		rm -rf "$tmp"
		return 1
	fi
	for p in "$tmp"/*.deb; do
		dpkg-deb -x "$p" "$tmp/x" || { hw_perf_error="dpkg-deb -x $p failed"; rm -rf "$tmp"; return 1; }
	done
	if ! hw_perf_tree_of "$tmp/x" "$tmp/root" "$triplet"; then
		rm -rf "$tmp"
		return 1
	fi
	rm -rf "$dir"
	if ! mkdir -p "$dir" || ! mv "$tmp/root" "$dir/root" ||
		! echo "linux-perf:$deb_arch $ver" >"$dir/ok"; then
		hw_perf_error="cannot fill $dir"
		rm -rf "$tmp" "$dir"
		return 1
	fi
	rm -rf "$tmp"
	echo "# perf for the guest: linux-perf:$deb_arch $ver, $(du -sh "$dir/root" | cut -f1)" >&2
	hw_perf_tree=$dir/root
}

# usr/bin/perf of the extracted packages X, with its interpreter and the
# closure of its DT_NEEDED libraries, into ROOT (libraries in lib/TRIPLET)
hw_perf_tree_of() { # X ROOT TRIPLET
	local x=$1 root=$2 triplet=$3 interp todo f so found d

	[ -x "$x/usr/bin/perf" ] || { hw_perf_error="linux-perf has no usr/bin/perf"; return 1; }
	mkdir -p "$root/usr/bin" "$root/lib/$triplet" || { hw_perf_error="cannot write $root"; return 1; }
	cp "$x/usr/bin/perf" "$root/usr/bin/perf"
	interp=$(readelf -l "$x/usr/bin/perf" | sed -n 's/.*program interpreter: \(.*\)\]/\1/p')
	if [ -z "$interp" ] || [ ! -e "$x$interp" ]; then
		hw_perf_error="perf's interpreter '$interp' is in none of the packages"
		return 1
	fi
	mkdir -p "$root$(dirname "$interp")"
	cp -L "$x$interp" "$root$interp"
	todo=$root/usr/bin/perf
	while [ -n "$todo" ]; do
		f=${todo%% *}
		todo=${todo#"$f"}
		todo=${todo# }
		for so in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
			[ -e "$root/lib/$triplet/$so" ] && continue
			found=
			for d in "lib/$triplet" "usr/lib/$triplet" lib usr/lib; do
				[ -e "$x/$d/$so" ] && { found=$x/$d/$so; break; }
			done
			[ -n "$found" ] || { hw_perf_error="perf needs $so, in none of linux-perf's library packages"; return 1; }
			cp -L "$found" "$root/lib/$triplet/$so"
			todo="$todo $root/lib/$triplet/$so"
			todo=${todo# }
		done
	done
}

hw_perf_install() { # ROOT
	if [ -n "$hw_perf_tree" ]; then
		cp -a "$hw_perf_tree/." "$1/"
	else
		mkdir -p "$1/hw"
		echo "${hw_perf_error:-perf was not fetched}" >"$1/hw/perf-missing"
	fi
}
