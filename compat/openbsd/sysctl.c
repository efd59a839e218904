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
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

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

/* the processor's brand string, or the architecture's name */
static void
model(char *buf, size_t len)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned int r[12] = { 0 };
	const char *p;

	if (__get_cpuid(0x80000000, &r[0], &r[1], &r[2], &r[3]) &&
	    r[0] >= 0x80000004) {
		for (unsigned int i = 0; i < 3; i++)
			__get_cpuid(0x80000002 + i, &r[4 * i], &r[4 * i + 1],
				    &r[4 * i + 2], &r[4 * i + 3]);
		for (p = (const char *)r; *p == ' '; p++)
			;
		snprintf(buf, len, "%.*s", (int)(sizeof(r) - (p - (char *)r)),
			 p);
		return;
	}
#endif
	struct pctr_machine m = { .size = sizeof(m) };

	snprintf(buf, len, "%s", pctr_machine_get(&m) == 0 ? m.arch : "?");
}

static int
hw(int id, void *oldp, size_t *oldlenp)
{
	char buf[64];

	switch (id) {
	case HW_MACHINE:
#if defined(__x86_64__)
		return out_string(oldp, oldlenp, "amd64");
#elif defined(__aarch64__)
		return out_string(oldp, oldlenp, "arm64");
#elif defined(__i386__)
		return out_string(oldp, oldlenp, "i386");
#else
		return EOPNOTSUPP;
#endif
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
#if defined(__x86_64__) || defined(__i386__)
	unsigned int a = 0, b = 0, c = 0, d = 0;
	char vendor[13];

	switch (id) {
	case CPU_CPUVENDOR:
		__get_cpuid(0, &a, &b, &c, &d);
		memcpy(vendor, &b, 4);
		memcpy(vendor + 4, &d, 4);
		memcpy(vendor + 8, &c, 4);
		vendor[12] = '\0';
		return out_string(oldp, oldlenp, vendor);
	case CPU_CPUID:
		__get_cpuid(1, &a, &b, &c, &d);
		return out_int(oldp, oldlenp, (int)a);
	case CPU_CPUFEATURE:
		__get_cpuid(1, &a, &b, &c, &d);
		return out_int(oldp, oldlenp, (int)d);
	}
#endif
	return EOPNOTSUPP;
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
