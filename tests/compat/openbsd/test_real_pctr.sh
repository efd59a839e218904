#!/bin/sh
# SPDX-License-Identifier: MIT
# Build OpenBSD's own pctr(1) from its unchanged source with nothing but
# the layer's pkg-config flags, and run the three command lines of its
# manual.  The source is not part of this project: point
# PCTR_OPENBSD_SRC at a checkout's usr.sbin/pctr.
set -u
echo "1..4"
if [ -z "${PCTR_OPENBSD_SRC:-}" ] || [ ! -f "$PCTR_OPENBSD_SRC/pctr.c" ]; then
	for i in 1 2 3 4; do
		echo "ok $i # SKIP PCTR_OPENBSD_SRC is not set to OpenBSD's usr.sbin/pctr"
	done
	exit 0
fi
root=${PCTR_BUILD_ROOT:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$root/meson-uninstalled"
export LD_LIBRARY_PATH="$root/src:$root/compat/openbsd"
flags=$(pkg-config --cflags --libs pctr-openbsd) || exit 1
no_pmu=1
ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv8_pmuv3.*)$' && no_pmu=0

# shellcheck disable=SC2086
if ${CC:-cc} -o "$tmp/pctr" -I"$PCTR_OPENBSD_SRC" "$PCTR_OPENBSD_SRC/pctr.c" \
	$flags >"$tmp/cc.log" 2>&1; then
	echo "ok 1 - pctr.c builds unchanged"
else
	sed 's/^/# /' "$tmp/cc.log"
	echo "not ok 1 - pctr.c builds unchanged"
	exit 0
fi

if "$tmp/pctr" >"$tmp/out" 2>&1 && grep -q '^ ctr0 = ' "$tmp/out" &&
	grep -q '^  tsc = ' "$tmp/out"; then
	echo "ok 2 - pctr reads the counters and the TSC"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok 2 - pctr reads the counters and the TSC"
fi

if "$tmp/pctr" -l >"$tmp/out" 2>&1 && grep -q '^c0  ' "$tmp/out"; then
	echo "ok 3 - pctr -l lists the functions"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok 3 - pctr -l lists the functions"
fi

"$tmp/pctr" -s 0 -f c0 -u >"$tmp/out" 2>&1
st=$?
if [ $no_pmu = 1 ]; then
	if [ $st = 1 ] && grep -q 'pctr_set_cntr: No such device' "$tmp/out"; then
		echo "ok 4 - pctr -s 0 -f c0 -u fails with ENODEV without a PMU"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok 4 - pctr -s 0 -f c0 -u fails with ENODEV without a PMU"
	fi
elif [ $st = 0 ]; then
	echo "ok 4 - pctr -s 0 -f c0 -u programs counter 0"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok 4 - pctr -s 0 -f c0 -u programs counter 0"
fi
