#!/bin/bash
# tests/hw/qemu/build.sh - Debian 12's own QEMU, with the PMU fixes of this
# directory, built once and cached.
#
# usage: tests/hw/qemu/build.sh [-q]
#   -q   print nothing but the binary directory (progress goes to the log)
#
# Fetches the source of the installed qemu-system-arm (or, when it is not
# installed, of the version apt would install) with "apt-get source" from
# a private deb-src list (the host's apt sources are left alone), applies
# every tests/hw/qemu/*.patch in name order with patch -p1, builds the
# system emulators of $targets and installs each qemu-system-* into
# /var/tmp/pctr-qemu-<hash>/bin, where <hash> covers this script, the
# patches and the Debian source version.  Prints that bin directory on
# stdout.  A second run with the same inputs finds the directory and does
# nothing else; a build that failed or was interrupted leaves no directory.
#
# Build dependencies: scripts/deps.sh qemu (as root, or with sudo -n).
# Scratch space: about 700 MB under $PCTR_QEMU_SRC (default /var/tmp),
# removed afterwards.  Log: /var/tmp/pctr-qemu-<hash>.log.
#
# environment: PCTR_QEMU_ROOT (default /var/tmp: where the cache lives),
#   PCTR_QEMU_JOBS (default: number of CPUs).
set -euo pipefail

# System emulators to build; each gives bin/qemu-system-<arch>.
targets="aarch64-softmmu"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${PCTR_QEMU_ROOT:-/var/tmp}
jobs=${PCTR_QEMU_JOBS:-$(nproc 2>/dev/null || echo 2)}
quiet=0

[ "${1:-}" = -q ] && quiet=1
say() { [ "$quiet" = 1 ] || echo "qemu/build.sh: $*" >&2; }
die() { echo "qemu/build.sh: $*" >&2; exit 1; }

# The Debian source version: of the installed package when there is one
# (its data files, /usr/share/qemu, must match), else apt's candidate.
debian_version() {
	local v

	v=$(dpkg-query -W -f '${source:Version}' qemu-system-arm 2>/dev/null) || v=
	[ -n "$v" ] || v=$(apt-cache policy qemu-system-arm 2>/dev/null |
		awk '/Candidate:/ { print $2 }')
	[ -n "$v" ] && [ "$v" != "(none)" ] ||
		die "no qemu-system-arm known to apt: which Debian source to build?"
	echo "$v"
}

# Everything the binaries depend on, hashed: this script (targets and
# configure options included), each patch by name and content, the source.
input_hash() { # VERSION
	{
		echo "debian qemu $1"
		# contents only: every clone of the tree shares the build
		sha256sum <"$here/build.sh"
		for p in "$here"/*.patch; do
			[ -e "$p" ] || continue
			echo "patch ${p##*/}"
			sha256sum <"$p"
		done
	} | sha256sum | cut -c1-16
}

# "apt-get source" through a private list: no deb-src line on the host.
fetch_source() { # VERSION DIR
	local ver=$1 dir=$2 apt_opts

	mkdir -p "$dir/lists/partial" "$dir/cache/archives/partial" "$dir/src"
	cat >"$dir/sources.list" <<-'EOF'
	deb-src http://deb.debian.org/debian bookworm main
	deb-src http://deb.debian.org/debian bookworm-updates main
	deb-src http://deb.debian.org/debian-security bookworm-security main
	EOF
	apt_opts=(-o "Dir::Etc::SourceList=$dir/sources.list"
		-o "Dir::Etc::SourceParts=/nonexistent"
		-o "Dir::State::Lists=$dir/lists" -o "Dir::Cache=$dir/cache"
		-o "Debug::NoLocking=1")
	apt-get "${apt_opts[@]}" update &&
		(cd "$dir/src" &&
			apt-get "${apt_opts[@]}" source --download-only "qemu=$ver" &&
			dpkg-source -x ./qemu_"${ver#*:}".dsc qemu)
}

patch_source() { # SRC
	local p

	for p in "$here"/*.patch; do
		[ -e "$p" ] || continue
		echo "applying ${p##*/}"
		patch -d "$1" -p1 --forward --batch <"$p" ||
			{ echo "${p##*/} does not apply to Debian's QEMU $ver"; return 1; }
	done
}

# Only what a TCG guest with -kernel and -initrd needs; Debian's firmware
# search path, so that machines needing a BIOS find Debian's packages.
build_source() { # SRC
	local t bins=

	for t in $targets; do bins="$bins qemu-system-${t%-softmmu}"; done
	mkdir -p "$1/build"
	(cd "$1/build" &&
		../configure --target-list="${targets// /,}" \
			--without-default-features --enable-tcg --enable-fdt=system \
			--disable-werror --disable-docs --meson=meson \
			--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu &&
		ninja -j"$jobs" $bins)
}

install_bins() { # SRC DEST
	local t b

	mkdir -p "$2/bin"
	for t in $targets; do
		b=qemu-system-${t%-softmmu}
		strip -o "$2/bin/$b" "$1/build/$b"
		"$2/bin/$b" --version | head -n1
	done
}

main() {
	local ver hash dest tmp src log start

	ver=$(debian_version)
	hash=$(input_hash "$ver")
	dest=$root/pctr-qemu-$hash
	log=$root/pctr-qemu-$hash.log
	if [ -x "$dest/bin/qemu-system-${targets%%-softmmu*}" ]; then
		echo "$dest/bin"
		return
	fi
	mkdir -p "$root"
	# one build per input set at a time: a second caller waits for it
	exec 9>"$root/pctr-qemu-$hash.lock"
	flock 9
	if [ -x "$dest/bin/qemu-system-${targets%%-softmmu*}" ]; then
		echo "$dest/bin"
		return
	fi
	say "building Debian's QEMU $ver with $(ls "$here"/*.patch 2>/dev/null | wc -l) patch(es) for $targets, $jobs jobs (log: $log)"
	start=$SECONDS
	tmp=$(mktemp -d "$root/pctr-qemu-$hash.tmp.XXXXXX")
	src=$tmp/src/qemu
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp'" EXIT
	trap 'exit 130' INT TERM HUP
	{
		fetch_source "$ver" "$tmp" &&
			patch_source "$src" &&
			build_source "$src" &&
			install_bins "$src" "$tmp/out" &&
			{ echo "Debian qemu $ver"; ls "$here"/*.patch; } >"$tmp/out/VERSION"
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "build failed (log: $log)"; }
	rm -rf "$dest"
	mv "$tmp/out" "$dest"
	say "done in $((SECONDS - start)) s: $dest/bin"
	echo "$dest/bin"
}

main
