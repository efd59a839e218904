/* SPDX-License-Identifier: MIT */
/*
 * topology.c - where a CPU sits, for pctr stat --per-core, --per-socket,
 * --per-node, --per-die, --per-cluster and --per-cache.
 *
 * The kernel says it in sysfs: a CPU's core and socket numbers are
 * /sys/devices/system/cpu/cpuN/topology/core_id and physical_package_id
 * (core_id is unique within its socket only, so a core is named by both),
 * its die topology/die_id (absent before Linux 5.2: one die a socket);
 * a NUMA node lists its CPUs in /sys/devices/system/node/nodeN/cpulist
 * ("0-3,8").  A kernel without NUMA has no node directory: every CPU is
 * then in node 0, as the kernel itself treats it.  Dies and clusters are
 * topology/die_id and cluster_id, and a last level cache is the id of the
 * highest level of cache/indexI; like cores, they are named within their
 * socket.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static long
read_number(const char *path)
{
	FILE *f = fopen(path, "re");
	long v = -1;

	if (!f)
		return -1;
	if (fscanf(f, "%ld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

static long
cpu_value(int cpu, const char *file)
{
	char path[128];

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/%s", cpu, file);
	return read_number(path);
}

/* is @cpu in the list "0-3,8"? */
static bool
in_cpulist(const char *list, int cpu)
{
	const char *p = list;

	while (*p >= '0' && *p <= '9') {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		if (cpu >= lo && cpu <= hi)
			return true;
		p = *end == ',' ? end + 1 : end;
	}
	return false;
}

static int
node_of(int cpu)
{
	DIR *d = opendir("/sys/devices/system/node");
	struct dirent *de;
	int node = -1;

	if (!d)
		return 0; /* no NUMA: one node */
	while (node < 0 && (de = readdir(d))) {
		char path[300], list[4096];
		FILE *f;
		int n;

		if (sscanf(de->d_name, "node%d", &n) != 1)
			continue;
		snprintf(path, sizeof(path),
			 "/sys/devices/system/node/%s/cpulist", de->d_name);
		f = fopen(path, "re");
		if (f && fgets(list, sizeof(list), f) && in_cpulist(list, cpu))
			node = n;
		if (f)
			fclose(f);
	}
	closedir(d);
	return node;
}

/*
 * @cpu's last level cache: the highest level among
 * /sys/devices/system/cpu/cpuN/cache/indexI (the L3 where there is one).
 * Its id returned; its level in *@level and, as newer perf names a cache,
 * the first CPU of its shared_cpu_list in *@first (-1 where sysfs does
 * not say).
 */
int
cpu_last_cache(int cpu, int *level, int *first)
{
	char path[128];
	long lv, best = -1, id = -1;
	int index = -1;

	for (int i = 0; i < 16; i++) {
		snprintf(path, sizeof(path),
			 "/sys/devices/system/cpu/cpu%d/cache/index%d/level",
			 cpu, i);
		lv = read_number(path);
		if (lv < 0)
			break;
		if (lv > best) {
			best = lv;
			index = i;
		}
	}
	*level = (int)best;
	*first = -1;
	if (index < 0)
		return -1;
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cache/index%d/id", cpu, index);
	id = read_number(path);
	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/cache/index%d/shared_cpu_list",
		 cpu, index);
	*first = (int)read_number(path); /* "0-3,8": 0 */
	return (int)id;
}

int
cpu_topology_id(int cpu, enum stat_aggr aggr, int *socket)
{
	int level, first;

	*socket = (int)cpu_value(cpu, "physical_package_id");
	switch (aggr) {
	case AGGR_CORE:
		return *socket < 0 ? -1 : (int)cpu_value(cpu, "core_id");
	case AGGR_SOCKET:
		return *socket;
	case AGGR_NODE:
		return node_of(cpu);
	case AGGR_DIE:
		return *socket < 0 ? -1 : cpu_die_id(cpu);
	case AGGR_CLUSTER:
		return *socket < 0 ? -1 : (int)cpu_value(cpu, "cluster_id");
	case AGGR_CACHE:
		return *socket < 0 ? -1 : cpu_last_cache(cpu, &level, &first);
	default:
		return cpu;
	}
}

int
cpu_die_id(int cpu)
{
	long die = cpu_value(cpu, "die_id");

	return die < 0 ? 0 : (int)die;
}
