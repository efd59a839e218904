/* SPDX-License-Identifier: MIT */
/*
 * sysctl.c - OpenBSD's sysctl(3) for the machine and CPU nodes.
 *
 * Reads only: a new value is refused with EPERM.  Unknown names fail with
 * EOPNOTSUPP, as on OpenBSD.  Strings follow the kernel's rules: with a
 * NULL @oldp the length (with the NUL) is returned in *oldlenp; a buffer
 * too small gets ENOMEM.  Integers must be asked for with room for them.
 * Thread-safe.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysctl.h>
#include <machine/cpu.h>

#include "arch_bsd.h"
#include "arch_cpu.h"
#include "pctr.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

static int
out(void *oldp, size_t *oldlenp, const void *val, size_t len)
{
	if (!oldlenp)
		return oldp ? EINVAL : 0;
	if (oldp) {
		if (*oldlenp < len)
			return ENOMEM;
		memcpy(oldp, val, len);
	}
	*oldlenp = len;
	return 0;
}

static int
out_string(void *oldp, size_t *oldlenp, const char *s)
{
	return out(oldp, oldlenp, s, strlen(s) + 1);
}

static int
out_int(void *oldp, size_t *oldlenp, int v)
{
	return out(oldp, oldlenp, &v, sizeof(v));
}

/* the processor's brand string (cpuid), or the architecture's name */
static void
model(char *buf, size_t len)
{
	struct pctr_machine m = { .size = sizeof(m) };
	uint32_t r[12] = { 0 };
	const char *p;

	if (pctr__arch_cpuid_leaf(0x80000004u, r)) {
		for (uint32_t i = 0; i < 3; i++)
			pctr__arch_cpuid_leaf(0x80000002u + i, &r[4 * i]);
		for (p = (const char *)r; *p == ' '; p++)
			;
		snprintf(buf, len, "%.*s", (int)(sizeof(r) - (p - (char *)r)),
			 p);
		return;
	}
	snprintf(buf, len, "%s", pctr_machine_get(&m) == 0 ? m.arch : "?");
}

static int
hw(int id, void *oldp, size_t *oldlenp)
{
	char buf[64];

	switch (id) {
	case HW_MACHINE:
		if (!PCTR_ARCH_BSD_MACHINE)
			return EOPNOTSUPP;
		return out_string(oldp, oldlenp, PCTR_ARCH_BSD_MACHINE);
	case HW_MODEL:
		model(buf, sizeof(buf));
		return out_string(oldp, oldlenp, buf);
	case HW_NCPU:
		return out_int(oldp, oldlenp, (int)sysconf(_SC_NPROCESSORS_CONF));
	case HW_NCPUONLINE:
		return out_int(oldp, oldlenp, (int)sysconf(_SC_NPROCESSORS_ONLN));
	case HW_BYTEORDER:
		return out_int(oldp, oldlenp,
			       __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? 1234
									 : 4321);
	case HW_PAGESIZE:
		return out_int(oldp, oldlenp, (int)sysconf(_SC_PAGESIZE));
	}
	return EOPNOTSUPP;
}

/* the machdep nodes that are cpuid's leaves 0 and 1, where the CPU has them */
static int
cpuid_node(int id, void *oldp, size_t *oldlenp)
{
	uint32_t r[4];
	char vendor[13];

	switch (id) {
	case CPU_CPUVENDOR:
		if (!pctr__arch_cpuid_leaf(0, r))
			break;
		memcpy(vendor, &r[1], 4);
		memcpy(vendor + 4, &r[3], 4);
		memcpy(vendor + 8, &r[2], 4);
		vendor[12] = '\0';
		return out_string(oldp, oldlenp, vendor);
	case CPU_CPUID:
		if (!pctr__arch_cpuid_leaf(1, r))
			break;
		return out_int(oldp, oldlenp, (int)r[0]);
	case CPU_CPUFEATURE:
		if (!pctr__arch_cpuid_leaf(1, r))
			break;
		return out_int(oldp, oldlenp, (int)r[3]);
	}
	return EOPNOTSUPP;
}

static int
machdep(int id, void *oldp, size_t *oldlenp)
{
	struct pctr_machine m = { .size = sizeof(m) };
	uint64_t hz;

	switch (id) {
	case CPU_TSCFREQ:
		hz = pctr_tsc_hz();
		return out(oldp, oldlenp, &hz, sizeof(hz));
	case CPU_INVARIANTTSC:
		if (pctr_machine_get(&m) < 0)
			return EOPNOTSUPP;
		return out_int(oldp, oldlenp, m.tsc_invariant == 1);
	}
	return cpuid_node(id, oldp, oldlenp);
}

/* the symbol is pctr_openbsd_sysctl, by the label in <sys/sysctl.h> */
PCTR_EXPORT int
sysctl(const int *name, u_int namelen, void *oldp, size_t *oldlenp,
       void *newp, size_t newlen)
{
	int err;

	if (!name || namelen < 1 || namelen > CTL_MAXNAME)
		err = EINVAL;
	else if (newp || newlen)
		err = EPERM;
	else if (namelen != 2)
		err = name[0] == CTL_HW || name[0] == CTL_MACHDEP ? ENOTDIR
								  : EOPNOTSUPP;
	else if (name[0] == CTL_HW)
		err = hw(name[1], oldp, oldlenp);
	else if (name[0] == CTL_MACHDEP)
		err = machdep(name[1], oldp, oldlenp);
	else
		err = EOPNOTSUPP;
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}
