/* SPDX-License-Identifier: MIT */
/*
 * machine.c - what this machine offers, detected once: core PMUs (two on
 * hybrid CPUs), the knobs that gate counting and user-space reads, and the
 * timestamp counter.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <linux/hw_breakpoint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "arch.h"

static struct pctr_machine machine;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_once_t bp_once = PTHREAD_ONCE_INIT;
static pthread_once_t lost_once = PTHREAD_ONCE_INIT;
static bool format_lost;
static volatile long bp_probe_var;
static bool bp_fire;

int
pctr__read_int_file(const char *path, long *val)
{
	char buf[64], *end;
	int r = pctr__sysfs_read(path, buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	*val = strtol(buf, &end, 10);
	return errno || end == buf ? -EINVAL : 0;
}

bool
pctr__is_core_pmu_name(const char *pmu)
{
	return !strcmp(pmu, "cpu") || !strncmp(pmu, "cpu_", 4) ||
	       !strncmp(pmu, "armv8_", 6) || !strncmp(pmu, "armv9_", 6);
}

static void
find_core_pmus(struct pctr_machine *m)
{
	char path[512];
	struct dirent **names;
	int n;

	snprintf(path, sizeof(path), "%s/bus/event_source/devices",
		 pctr__sysfs_root());
	n = scandir(path, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		const char *name = names[i]->d_name;
		uint32_t type;

		if (m->nr_pmus < PCTR_MAX_PMUS && pctr__is_core_pmu_name(name) &&
		    pctr__sysfs_pmu_type(name, &type) == 0) {
			snprintf(m->pmu[m->nr_pmus], sizeof(m->pmu[0]), "%s",
				 name);
			m->pmu_type[m->nr_pmus++] = type;
		}
		free(names[i]);
	}
	if (n >= 0)
		free(names);
	m->has_pmu = m->nr_pmus > 0;
}

static int
user_access_knob(const struct pctr_machine *m)
{
	char path[512];
	long v;

	if (PCTR_ARCH_USER_ACCESS_SYSCTL)
		return pctr__read_int_file(PCTR_ARCH_USER_ACCESS_SYSCTL, &v) == 0
			       ? (int)v
			       : -1;
	for (int i = 0; i < m->nr_pmus; i++) {
		snprintf(path, sizeof(path),
			 "%s/bus/event_source/devices/%s/rdpmc",
			 pctr__sysfs_root(), m->pmu[i]);
		if (pctr__read_int_file(path, &v) == 0)
			return (int)v;
	}
	return -1;
}

static void
detect(void)
{
	struct pctr_machine *m = &machine;
	long v;

	m->size = sizeof(*m);
	find_core_pmus(m);
	m->paranoid = pctr__read_int_file("/proc/sys/kernel/perf_event_paranoid",
					  &v) == 0
			      ? (int)v
			      : INT32_MIN;
	m->user_access = user_access_knob(m);
	m->tsc_invariant = pctr__arch_tsc_invariant();
	m->virtualized = pctr__arch_virtualized();
	snprintf(m->arch, sizeof(m->arch), "%s", PCTR_ARCH_NAME);
}

const struct pctr_machine *
pctr__machine(void)
{
	pthread_once(&once, detect);
	return &machine;
}

/* for pfm.c, which cannot include internal.h next to libpfm4's headers */
int
pctr__has_pmu(void)
{
	return pctr__machine()->has_pmu;
}

/*
 * Whether the CPU's debug registers fire.  Some hypervisors accept a
 * breakpoint's perf_event_open() and never deliver its debug exception: the
 * counter then reads 0 whatever the program does, and gdb's hardware
 * watchpoints never stop either (tests/repro/repro_breakpoint_silent).  A
 * write breakpoint on a variable of ours, written twice by this thread,
 * tells: a machine whose debug registers work counts every write.  An open
 * or read that fails says nothing (the real open reports its own error).
 */
static void
probe_breakpoints(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a), .type = PERF_TYPE_BREAKPOINT,
		.bp_type = HW_BREAKPOINT_W, .bp_len = HW_BREAKPOINT_LEN_8,
		.bp_addr = (uintptr_t)&bp_probe_var,
		.exclude_kernel = 1, .exclude_hv = 1,
	};
	uint64_t n = 0;
	int fd = pctr__sys_perf_open(&a, 0, -1, -1, 0);

	bp_fire = true;
	if (fd < 0)
		return;
	bp_probe_var = 1;
	bp_probe_var = 2;
	if (pctr__sys_read(fd, &n, sizeof(n)) == sizeof(n) && n == 0)
		bp_fire = false;
	pctr__sys_close(fd);
}

bool
pctr__breakpoints_fire(void)
{
	pthread_once(&bp_once, probe_breakpoints);
	return bp_fire;
}

/* a kernel before 6.0 refuses the read format bit it does not know */
static void
probe_format_lost(void)
{
	struct perf_event_attr a = { .size = sizeof(a),
				     .type = PERF_TYPE_SOFTWARE,
				     .config = PERF_COUNT_SW_DUMMY,
				     .read_format = PERF_FORMAT_LOST,
				     .disabled = 1,
				     .exclude_kernel = 1,
				     .exclude_hv = 1 };
	int fd = pctr__sys_perf_open(&a, 0, -1, -1, 0);

	format_lost = fd >= 0;
	if (fd >= 0)
		pctr__sys_close(fd);
}

bool
pctr__format_lost(void)
{
	pthread_once(&lost_once, probe_format_lost);
	return format_lost;
}

PCTR_EXPORT int
pctr_machine_get(struct pctr_machine *m)
{
	const struct pctr__sized t = PCTR__SIZED(pctr_machine,
						 PCTR_MACHINE_SIZE_VER0);
	struct pctr_machine full;
	int r = pctr__struct_check(&t, m);

	if (r < 0)
		return r;
	full = *pctr__machine();
	full.tsc_hz = pctr_tsc_hz();
	return pctr__struct_out(&t, m, &full);
}
