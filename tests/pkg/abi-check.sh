#!/bin/sh
# abi-check.sh SRCDIR BUILDDIR - each shared library's ABI (its exported
# functions and variables and every public type they reach) against the
# committed baseline abi/NAME.abi (TAP).  Any difference fails, with
# abidiff's report; if the change is intended, "make abi-update" records it.
set -u
src=$(cd "$1" && pwd) build=$(cd "$2" && pwd)
n=0 fail=0
echo "1..$(grep -vc '^#' "$src/abi/libs")"
while read -r name lib hdrs; do
	case $name in '#'*) continue ;; esac
	n=$((n + 1))
	# abidiff exits non-zero for any reported change (4) or an
	# incompatible one (8) as well as for errors
	if report=$(abidiff --headers-dir2 "$src/$hdrs" --drop-private-types \
		--fail-no-debug-info "$src/abi/$name.abi" "$build/$lib" 2>&1); then
		echo "ok $n - $name: ABI as in abi/$name.abi"
	else
		echo "not ok $n - $name: ABI differs from abi/$name.abi" \
			"(if intended: make abi-update, and review the diff)"
		echo "$report" | sed 's/^/# /'
		fail=1
	fi
done <"$src/abi/libs"
exit $fail
