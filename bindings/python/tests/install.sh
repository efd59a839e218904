#!/bin/sh
# install.sh SRCDIR BUILDDIR PYTHON - the Python package as users install
# it (TAP): pip install --no-build-isolation from a copy of
# bindings/python against the libpctr pkg-config finds (the build's,
# through its uninstalled pctr.pc), with no network; and meson install
# (make install) into a staging directory.  Each installed package is
# imported from a clean directory and counts 256 page faults.
set -u
src=$1 build=$2 py=$3
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
n=0
ok() { # STATUS DESCRIPTION
	n=$((n + 1))
	if [ "$1" = 0 ]; then
		echo "ok $n - $2"
	else
		echo "not ok $n - $2"
		tail -n 20 "$tmp/log" | sed 's/^/# /'
	fi
}
count() { # SITEDIR: import pctr from SITEDIR and count 256 page faults
	(cd "$tmp" && PYTHONPATH=$1 "$py" -c '
import mmap, pctr, sys
assert pctr.__file__.startswith(sys.argv[1]), pctr.__file__
with pctr.count("page-faults") as c:
    m = mmap.mmap(-1, 256 * 4096)
    for i in range(0, 256 * 4096, 4096):
        m[i] = 1
assert c["page-faults"].value == 256, c["page-faults"]
' "$1") >"$tmp/log" 2>&1
}
echo "1..4"

cp -r "$src/bindings/python" "$tmp/src"
rm -rf "$tmp/src/build" "$tmp/src"/*.egg-info
(cd "$tmp/src" && PKG_CONFIG_PATH=$build/meson-uninstalled PIP_NO_INDEX=1 \
	"$py" -m pip install --no-build-isolation --no-deps --no-index \
	--disable-pip-version-check --target "$tmp/pip" .) >"$tmp/log" 2>&1
ok $? "pip install --no-build-isolation . against pkg-config's libpctr"
count "$tmp/pip"
ok $? "the pip-installed package counts 256 page faults"

meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" \
	>"$tmp/log" 2>&1
site=$(cd "$tmp/root" && find . -path '*/pctr/__init__.py' | head -1)
site=$tmp/root/${site#./}
site=${site%/pctr/__init__.py}
for f in __init__.py _pctr.pyi py.typed; do
	[ -f "$site/pctr/$f" ] || echo "missing: pctr/$f" >>"$tmp/log"
done
ls "$site"/pctr/_pctr*.so >>"$tmp/log" 2>&1 && ! grep -q missing "$tmp/log"
ok $? "meson install: the package, its extension, stubs and py.typed"
# staged, the extension's rpath (the prefix's libdir) is not there yet
lib=$(dirname "$(find "$tmp/root" -name 'libpctr.so.0' | head -1)")
LD_LIBRARY_PATH=$lib count "$site"
ok $? "the meson-installed package counts 256 page faults"
