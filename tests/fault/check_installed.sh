#!/bin/sh
# check_installed.sh BUILD_DIR - install into a scratch directory and check
# that nothing installed is setuid or setgid, and nothing is writable by
# others: the library and the command need no privilege of their own.
set -u
build=$1
dest=$(mktemp -d)
trap 'rm -rf "$dest"' EXIT
echo "1..2"
if ! meson install -C "$build" --destdir "$dest" --no-rebuild --quiet >"$dest.log" 2>&1; then
	sed 's/^/# /' "$dest.log"
	rm -f "$dest.log"
	echo "not ok 1 - meson install --destdir"
	echo "not ok 2 - no setuid, setgid or world-writable file # not installed"
	exit 1
fi
rm -f "$dest.log"
n=$(find "$dest" -type f | wc -l)
echo "ok 1 - meson install --destdir ($n files)"
bad=$(find "$dest" \( -type f -o -type d \) \( -perm -4000 -o -perm -2000 -o -perm -0002 \))
if [ -n "$bad" ] || [ "$n" -eq 0 ]; then
	echo "$bad" | sed 's/^/# /'
	echo "not ok 2 - no setuid, setgid or world-writable file"
	exit 1
fi
echo "ok 2 - no setuid, setgid or world-writable file among $n"
