#!/bin/sh
# man_example.sh CC SRCDIR BUILDDIR [CFLAGS] - the example program of pctr(3), as
# the page prints it, compiles in strict ISO C (-std=c99 -pedantic-errors,
# every warning an error: a count passed to the wrong conversion fails)
# and prints the 2048 page faults it causes (TAP).
set -u
cc=$1 src=$2 build=$3 extra=${4:-}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
echo "1..2"
# the lines between .EX and .EE after "The typical program", groff escapes
# undone: \e is a backslash, \- a minus
sed -n '/^The typical program/,/^\.EE/p' "$src/man/pctr.3" |
	sed -e '1,/^\.EX/d' -e '/^\.EE/d' -e 's/\\-/-/g' -e 's/\\e/\\/g' \
	>"$tmp/example.c"
if $cc $extra -std=c99 -pedantic-errors -Wall -Wextra -Wformat=2 -Werror \
	-I"$src/include" "$tmp/example.c" -L"$build/src" -lpctr \
	-o "$tmp/example" 2>"$tmp/why"; then
	echo "ok 1 - the example compiles"
else
	echo "not ok 1 - the example compiles"
	sed 's/^/# /' "$tmp/why" "$tmp/example.c"
	echo "not ok 2 - # not run"
	exit 1
fi
# run with transparent huge pages off (PR_SET_THP_DISABLE, 41, is kept
# across exec), whatever the machine's setting: 2048 small pages
LD_LIBRARY_PATH="$build/src" python3 -c '
import ctypes, os, sys
if ctypes.CDLL(None, use_errno=True).prctl(41, 1, 0, 0, 0) != 0:
    sys.exit("prctl(PR_SET_THP_DISABLE) failed")
os.execv(sys.argv[1], sys.argv[1:])' "$tmp/example" >"$tmp/out" 2>&1
rc=$?
faults=$(sed -n 's/^\([0-9]*\) page faults$/\1/p' "$tmp/out")
# 8 MiB from malloc is a mapping of its own, of fresh small pages:
# malloc's header write faults the first, the loop the 2047 others; a few
# more allowed for the C library between the reads.  Built with the
# sanitizers, the program's allocations and stores also fault
# AddressSanitizer's shadow and allocator pages (2820 in all here): the
# upper bound there is twice the pages, which a count of 0 or of a float
# reinterpreted still fails.
max=2056
[ -n "$extra" ] && max=4096
if [ $rc = 0 ] && [ "${faults:-0}" -ge 2048 ] && [ "$faults" -le $max ]; then
	echo "ok 2 - the example prints its 2048 page faults ($faults)"
else
	echo "not ok 2 - the example prints its 2048 page faults"
	sed 's/^/# /' "$tmp/out"
	exit 1
fi
