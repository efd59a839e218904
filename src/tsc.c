/* SPDX-License-Identifier: MIT */
/*
 * tsc.c - the timestamp counter and its frequency.
 *
 * The frequency comes, in order of trust, from the kernel's own conversion
 * in a perf mmap page (what it uses to extrapolate enabled/running; only
 * where that page's clock is this counter, PCTR_ARCH_TSC_IS_PERF_CLOCK), from
 * the CPU (CPUID 0x15, a hypervisor's timing leaf; arm64 CNTFRQ_EL0), or
 * from a 20 ms calibration against CLOCK_MONOTONIC_RAW.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "arch.h"

static uint64_t tsc_hz;
static pthread_once_t once = PTHREAD_ONCE_INIT;

uint64_t
pctr__tsc_hz_from_page(const struct perf_event_mmap_page *pc)
{
	if (!pc->cap_user_time || pc->time_mult == 0 || pc->time_shift > 63)
		return 0;
	return (uint64_t)(((unsigned __int128)1000000000u << pc->time_shift) /
			  pc->time_mult);
}

static uint64_t
from_kernel(void)
{
	struct perf_event_attr attr;
	struct perf_event_mmap_page *pc;
	uint64_t hz = 0;
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_DUMMY;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	fd = pctr__sys_perf_open(&attr, 0, -1, -1, 0);
	if (fd < 0)
		return 0;
	pc = pctr__sys_mmap(fd, page);
	if (pc) {
		hz = pctr__tsc_hz_from_page(pc);
		pctr__sys_munmap(pc, page);
	}
	pctr__sys_close(fd);
	return hz;
}

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + ts.tv_nsec;
}

/*
 * One reading of both clocks: the monotonic clock between two timestamp
 * counter reads, the tightest of a few tries, so that being preempted
 * between the reads does not skew the pair.
 */
static void
clock_pair(uint64_t *ns, uint64_t *tsc)
{
	uint64_t best = UINT64_MAX;

	for (int i = 0; i < 7; i++) {
		uint64_t t0 = pctr__arch_tsc(PCTR_SERIAL_FENCE);
		uint64_t n = now_ns();
		uint64_t t1 = pctr__arch_tsc(PCTR_SERIAL_FENCE);

		if (t1 - t0 < best) {
			best = t1 - t0;
			*ns = n;
			*tsc = t0 + (t1 - t0) / 2;
		}
	}
}

static uint64_t
calibrate(void)
{
	struct timespec nap = { 0, 20 * 1000 * 1000 };
	uint64_t t0, c0, t1, c1;

	clock_pair(&t0, &c0);
	nanosleep(&nap, NULL);
	clock_pair(&t1, &c1);
	if (t1 <= t0)
		return 1000000000u;
	return (uint64_t)((unsigned __int128)(c1 - c0) * 1000000000u /
			  (t1 - t0));
}

static void
detect(void)
{
	if (PCTR_ARCH_TSC_IS_PERF_CLOCK)
		tsc_hz = from_kernel();
	if (!tsc_hz)
		tsc_hz = pctr__arch_tsc_hz_hint();
	if (!tsc_hz)
		tsc_hz = calibrate();
}

PCTR_EXPORT uint64_t
pctr_tsc(void)
{
	return pctr__arch_tsc(PCTR_SERIAL_NONE);
}

PCTR_EXPORT uint64_t
pctr_tsc_hz(void)
{
	pthread_once(&once, detect);
	return tsc_hz;
}

PCTR_EXPORT uint64_t
pctr_tsc_to_ns(uint64_t ticks)
{
	uint64_t hz = pctr_tsc_hz();

	return (uint64_t)((unsigned __int128)ticks * 1000000000u / hz);
}
