#!/bin/sh
# SPDX-License-Identifier: MIT
# Build FreeBSD's perfmon example from its unchanged source with nothing
# but the layer's pkg-config flags, and run it.  The source is not part of
# this project: point PCTR_FREEBSD_SRC at a checkout's usr.sbin/perfmon.
set -u
echo "1..3"
if [ -z "${PCTR_FREEBSD_SRC:-}" ] || [ ! -f "$PCTR_FREEBSD_SRC/perfmon.c" ]; then
	for i in 1 2 3; do
		echo "ok $i # SKIP PCTR_FREEBSD_SRC is not set to FreeBSD's usr.sbin/perfmon"
	done
	exit 0
fi
root=${PCTR_BUILD_ROOT:?}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export PKG_CONFIG_PATH="$root/meson-uninstalled"
export LD_LIBRARY_PATH="$root/src:$root/compat/freebsd"
flags=$(pkg-config --cflags --libs pctr-freebsd) || exit 1
no_pmu=1
ls /sys/bus/event_source/devices/ | grep -qE '^(cpu|cpu_core|cpu_atom|armv8_pmuv3.*)$' && no_pmu=0

# shellcheck disable=SC2086
if ${CC:-cc} -o "$tmp/perfmon" "$PCTR_FREEBSD_SRC/perfmon.c" $flags \
	>"$tmp/cc.log" 2>&1; then
	echo "ok 1 - perfmon.c builds unchanged"
else
	sed 's/^/# /' "$tmp/cc.log"
	echo "not ok 1 - perfmon.c builds unchanged"
	exit 0
fi

"$tmp/perfmon" -u -l 3 0xc0 >"$tmp/out" 2>&1
st=$?
if [ $no_pmu = 1 ]; then
	if [ $st = 1 ] && grep -q 'ioctl(PMIOSETUP): No such device' "$tmp/out"; then
		echo "ok 2 - perfmon -u 0xc0 fails with ENODEV without a PMU"
	else
		sed 's/^/# /' "$tmp/out"
		echo "not ok 2 - perfmon -u 0xc0 fails with ENODEV without a PMU"
	fi
elif [ $st = 0 ] && grep -q '^clocks (at ' "$tmp/out"; then
	echo "ok 2 - perfmon -u 0xc0 counts"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok 2 - perfmon -u 0xc0 counts"
fi

PCTR_BSD_EVENTS=c0=task-clock "$tmp/perfmon" -u -o -l 3 0xc0 >"$tmp/out" 2>&1
if [ $? = 0 ] && grep -q '^3: [1-9]' "$tmp/out" &&
	grep -q '^clocks (at [0-9]*-MHz): [1-9]' "$tmp/out"; then
	echo "ok 3 - perfmon samples an event mapped by PCTR_BSD_EVENTS"
else
	sed 's/^/# /' "$tmp/out"
	echo "not ok 3 - perfmon samples an event mapped by PCTR_BSD_EVENTS"
fi
