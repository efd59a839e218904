#!/bin/bash
# tests/hw/qemu/build.sh - Debian 12's own QEMU, with the PMU fixes of this
# directory, built once and cached.
#
# usage: tests/hw/qemu/build.sh [-q] [TARGET...]
#   -q      print nothing but the binary directories (progress: the log)
#   TARGET  aarch64-softmmu, x86_64-softmmu (default: both)
#
# Fetches the source of the installed qemu-system-arm (or, when it is not
# installed, of the version apt would install) with "apt-get source" from
# a private deb-src list (the host's apt sources are left alone), applies
# tests/hw/qemu/*.patch in name order, and builds both system emulators in
# one tree, each with only its guest's machine (devices/TARGET.mak): the
# objects they share are compiled once, and the boards and devices no
# guest uses not at all (230 s on 2 idle CPUs, download included; a default
# build of each took 10 to 13).  Installs them into
# /var/tmp/pctr-qemu-<hash>/bin, where <hash> covers the configure
# options, the patches, the device lists and the Debian source version,
# and prints that directory once for each TARGET asked.  A second run with
# the same inputs finds the directory and does nothing else; a build that
# failed or was interrupted leaves no directory.
#
# Build dependencies: scripts/deps.sh qemu (as root, or with sudo -n).
# Scratch space: about 600 MB under $PCTR_QEMU_ROOT, removed afterwards.
# Log: /var/tmp/pctr-qemu-<hash>.log.
#
# environment: PCTR_QEMU_ROOT (default /var/tmp: where the cache lives),
#   PCTR_QEMU_JOBS (default: number of CPUs).
set -euo pipefail

# System emulators this directory knows; each gives bin/qemu-system-<arch>.
all_targets="aarch64-softmmu x86_64-softmmu"

# Only what a TCG guest with -kernel and -initrd needs: no optional
# feature, and of the devices only those of devices/TARGET.mak (copied into
# the source as configs/devices/TARGET/pctr.mak); Debian's firmware search
# path, so that machines needing a BIOS find Debian's packages.
configure_opts="--without-default-features --enable-tcg --enable-fdt=system
	--without-default-devices
	--disable-werror --disable-docs --meson=meson
	--firmwarepath=/usr/share/qemu:/usr/share/seabios:/usr/lib/ipxe/qemu"

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=${PCTR_QEMU_ROOT:-/var/tmp}
jobs=${PCTR_QEMU_JOBS:-$(nproc 2>/dev/null || echo 2)}
quiet=0

[ "${1:-}" = -q ] && quiet=1
say() { [ "$quiet" = 1 ] || echo "qemu/build.sh: $*" >&2; }
die() { echo "qemu/build.sh: $*" >&2; exit 1; }

# The Debian source version: of the installed package when there is one
# (its data files, /usr/share/qemu, must match), else that of apt's
# candidate.  A binary-only rebuild (1:7.2+dfsg-7+deb12u18+b3) names its
# source and version in its Source field, "qemu (1:7.2+dfsg-7+deb12u18)";
# "apt-get source" knows only the latter.
debian_version() {
	local v

	v=$(dpkg-query -W -f '${source:Version}' qemu-system-arm 2>/dev/null) || v=
	if [ -z "$v" ]; then
		v=$(apt-cache policy qemu-system-arm 2>/dev/null |
			awk '/Candidate:/ { print $2 }')
		[ -n "$v" ] && [ "$v" != "(none)" ] ||
			die "no qemu-system-arm known to apt: which Debian source to build?"
		v=$(apt-cache show "qemu-system-arm=$v" 2>/dev/null | awk -v v="$v" '
			/^Source:.*\(/ { sub(/.*\(/, ""); sub(/\).*/, ""); v = $0 }
			/^$/ { exit }
			END { print v }')
	fi
	echo "$v"
}

# Everything the binaries depend on, hashed: the targets, the configure
# options, each patch and device list by name and content, the source.
input_hash() { # VERSION
	local f

	{
		echo "debian qemu $1 targets $all_targets"
		echo "$configure_opts"
		for f in "$here"/*.patch "$here"/devices/*.mak; do
			echo "file ${f#"$here"/}"
			sha256sum <"$f"
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
	local p t

	for p in "$here"/*.patch; do
		echo "applying ${p##*/}"
		patch -d "$1" -p1 --forward --batch <"$p" ||
			{ echo "${p##*/} does not apply to Debian's QEMU $ver"; return 1; }
	done
	for t in $all_targets; do
		cp "$here/devices/$t.mak" "$1/configs/devices/$t/pctr.mak"
	done
}

build_source() { # SRC
	local t list='' devices=() bins=()

	for t in $all_targets; do
		list=${list:+$list,}$t
		devices+=("--with-devices-${t%-softmmu}=pctr")
		bins+=("qemu-system-${t%-softmmu}")
	done
	mkdir -p "$1/build"
	# shellcheck disable=SC2086
	(cd "$1/build" &&
		../configure --target-list="$list" $configure_opts "${devices[@]}" &&
		ninja -j"$jobs" "${bins[@]}")
}

install_bins() { # SRC DEST
	local t b

	mkdir -p "$2/bin"
	for t in $all_targets; do
		b=qemu-system-${t%-softmmu}
		strip -o "$2/bin/$b" "$1/build/$b"
		"$2/bin/$b" --version | head -n1
	done
}

# DIR holds every target's binary
built() { # DIR
	local t

	for t in $all_targets; do
		[ -x "$1/bin/qemu-system-${t%-softmmu}" ] || return 1
	done
}

build_all() { # VERSION
	local ver=$1 hash dest tmp src log start

	hash=$(input_hash "$ver")
	dest=$root/pctr-qemu-$hash
	log=$root/pctr-qemu-$hash.log
	if built "$dest"; then
		echo "$dest/bin"
		return
	fi
	mkdir -p "$root"
	# one build per input set at a time: a second caller waits for it
	exec 9>"$root/pctr-qemu-$hash.lock"
	flock 9
	if built "$dest"; then
		echo "$dest/bin"
		return
	fi
	say "building Debian's QEMU $ver ($all_targets) with $(ls "$here"/*.patch | wc -l) patches, $jobs jobs (log: $log)"
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
			{ echo "Debian qemu $ver, $all_targets"; ls "$here"/*.patch | sed 's|.*/||'; } >"$tmp/out/VERSION"
	} >"$log" 2>&1 || { tail -n 30 "$log" >&2; die "build failed (log: $log)"; }
	rm -rf "$dest"
	mv "$tmp/out" "$dest"
	rm -rf "$tmp"
	trap - EXIT
	exec 9>&-
	say "done in $((SECONDS - start)) s: $dest/bin"
	echo "$dest/bin"
}

main() {
	local ver t dir

	[ $# -gt 0 ] || set -- $all_targets
	for t; do
		case " $all_targets " in
		*" $t "*) ;;
		*) die "unknown target '$t' (known: $all_targets)" ;;
		esac
	done
	ver=$(debian_version)
	dir=$(build_all "$ver") || exit 1
	for t; do
		echo "$dir"
	done
}

[ "${1:-}" = -q ] && shift
main "$@"
