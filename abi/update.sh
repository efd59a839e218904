#!/bin/sh
# abi/update.sh - regenerate the ABI baselines abi/*.abi from a debug build
# of the current tree (make abi-update).  Run it only for an ABI change
# that has been decided on: the diff of abi/*.abi goes into the same commit
# as the change, with the soname bumped if the change is incompatible.
set -eu
cd "$(dirname "$0")/.."
build=${ABI_BUILD:-build-abi}
[ -f "$build/build.ninja" ] ||
	meson setup "$build" -Dbuildtype=debug -Dtests=false -Dlibdir=lib >/dev/null
ninja -C "$build" >/dev/null
grep -v '^#' abi/libs | while read -r name lib hdrs; do
	# no paths, no DT_NEEDED, ids hashed from the types: the file changes
	# only when the ABI does, whichever directory it was built in
	abidw --headers-dir "$hdrs" --drop-private-types --no-corpus-path \
		--no-comp-dir-path --short-locs --no-elf-needed \
		--type-id-style hash --out-file "abi/$name.abi" "$build/$lib"
	echo "abi/$name.abi"
done
