/* SPDX-License-Identifier: MIT */
/*
 * pfm.c - CPU event tables through libpfm4.
 *
 * libpfm4 brings its own copy of struct perf_event_attr, so this file
 * includes its headers and <pctr.h> (which brings no kernel header), not
 * internal.h, and hands plain fields back to event.c.
 * LIBPFM_FORCE_PMU=<table> encodes for a CPU that is not this one; that is
 * how x86 encodings are tested on any host.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <perfmon/pfmlib_perf_event.h>

#include "pctr.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

/* from internal.h, which cannot be included next to pfmlib */
struct pctr__pfm_enc {
	uint32_t type;
	uint64_t config, config1, config2;
	uint32_t flags; /* PCTR_EVENT_* */
	uint32_t precise;
	char fstr[PCTR_NAME_MAX];
};
int pctr__error(int err, const char *fmt, ...);
int pctr__has_pmu(void);

/*
 * The shared library loads libpfm4 the first time an event name needs its
 * tables, not at start-up: its tables cost every program that links
 * libpctr about a millisecond of relocations otherwise.  Static builds
 * (the PMU guest's) call it directly.
 */
#ifdef PCTR_PFM_DLOPEN
#include <dlfcn.h>

#define PFM_FUNCS(X)                                                          \
	X(pfm_initialize)                                                     \
	X(pfm_get_os_event_encoding)                                          \
	X(pfm_strerror)                                                       \
	X(pfm_get_pmu_info)                                                   \
	X(pfm_get_event_next)                                                 \
	X(pfm_get_event_info)

static struct {
#define X(f) __typeof__(f) *f;
	PFM_FUNCS(X)
#undef X
} lib;

#define CALL(f) lib.f

static int
load(void)
{
	void *h = dlopen("libpfm.so.4", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return -1;
#define X(f)                                                                  \
	if (!(lib.f = (__typeof__(lib.f))dlsym(h, #f)))                       \
		return -1;
	PFM_FUNCS(X)
#undef X
	return 0;
}
#else
#define CALL(f) f

static int
load(void)
{
	return 0;
}
#endif

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_status;
static int missing;

static void
init(void)
{
	missing = load() < 0;
	init_status = missing ? PFM_ERR_NOINIT : CALL(pfm_initialize)();
}

/* 1 when libpfm4 could not be loaded: no CPU event tables by name */
int
pctr__pfm_missing(void)
{
	pthread_once(&once, init);
	return missing;
}

static int
ready(void)
{
	pthread_once(&once, init);
	return init_status == PFM_SUCCESS ? 0 : -ENODEV;
}

/*
 * What libpfm4's encoder wrote into the attr, every field of it: the
 * event (type, config, config1, config2), the privilege levels (u, k, h),
 * the virtualisation levels (mg, mh: exclude_guest by default), pinned,
 * excl and precise.  Its period= and freq= are sampling settings, which
 * an event does not carry: refused rather than dropped.
 */
static int
from_attr(const char *spec, const struct perf_event_attr *attr,
	  struct pctr__pfm_enc *enc)
{
	if (attr->sample_period || attr->freq)
		return pctr__error(EINVAL, "event '%s': a sampling period or "
					   "rate is not part of an event: "
					   "drop period=/freq= and give it "
					   "to pctr_set_sampling() (pctr "
					   "profile -c or -F)",
				   spec);
	enc->type = attr->type;
	enc->config = attr->config;
	enc->config1 = attr->config1;
	enc->config2 = attr->config2;
	enc->precise = attr->precise_ip;
	enc->flags = (attr->exclude_user ? PCTR_EVENT_EXCLUDE_USER : 0) |
		     (attr->exclude_kernel ? PCTR_EVENT_EXCLUDE_KERNEL : 0) |
		     (attr->exclude_hv ? PCTR_EVENT_EXCLUDE_HV : 0) |
		     (attr->exclude_guest ? PCTR_EVENT_EXCLUDE_GUEST : 0) |
		     (attr->exclude_host ? PCTR_EVENT_EXCLUDE_HOST : 0) |
		     (attr->pinned ? PCTR_EVENT_PINNED : 0) |
		     (attr->exclusive ? PCTR_EVENT_EXCLUSIVE : 0);
	return 0;
}

/*
 * libpfm4 names the guest and host modifiers in its full name by value
 * (":mg=0:mh=1" for its default, the host only), but reads them back by
 * presence: that name, parsed again, counts the guest too, so it would not
 * be canonical.  The modifiers are written again the way they are read:
 * none for the default, ":mg=1" for the guest only, ":mg=1:mh=1" for both.
 */
static void
guest_host_name(char *fstr, size_t len, const struct perf_event_attr *attr)
{
	static const char *const mods[] = { ":mg=0", ":mg=1", ":mh=0",
					     ":mh=1" };
	size_t end;

	for (size_t i = 0; i < sizeof(mods) / sizeof(mods[0]); i++) {
		char *p = strstr(fstr, mods[i]);
		size_t n = strlen(mods[i]);

		if (p && (p[n] == ':' || p[n] == '\0'))
			memmove(p, p + n, strlen(p + n) + 1);
	}
	end = strlen(fstr);
	if (!attr->exclude_guest)
		snprintf(fstr + end, len - end, "%s",
			 attr->exclude_host ? ":mg=1" : ":mg=1:mh=1");
}

int
pctr__pfm_encode(const char *spec, struct pctr__pfm_enc *enc)
{
	struct perf_event_attr attr;
	pfm_perf_encode_arg_t arg;
	char *fstr = NULL;
	int r;

	if (ready() < 0)
		return -ENOENT;
	memset(&attr, 0, sizeof(attr));
	memset(&arg, 0, sizeof(arg));
	arg.attr = &attr;
	arg.fstr = &fstr;
	arg.size = sizeof(arg);
	r = CALL(pfm_get_os_event_encoding)(spec, PFM_PLM0 | PFM_PLM3,
				      PFM_OS_PERF_EVENT_EXT, &arg);
	if (r == PFM_ERR_NOTFOUND || r == PFM_ERR_NOINIT)
		return -ENOENT;
	if (r != PFM_SUCCESS)
		return pctr__error(EINVAL, "event '%s': %s", spec,
				   CALL(pfm_strerror)(r));
	snprintf(enc->fstr, sizeof(enc->fstr), "%s", fstr ? fstr : spec);
	free(fstr);
	guest_host_name(enc->fstr, sizeof(enc->fstr), &attr);
	/*
	 * perf's ":u" and ":k" leave out the hypervisor too.  libpfm4 does
	 * so only for a PMU with an "h" modifier (a user's h=1 keeps it);
	 * elsewhere (Intel's tables) "INST_RETIRED.ANY_P:u" would differ
	 * from perf's r00c0:u in exclude_hv.
	 */
	if ((attr.exclude_user || attr.exclude_kernel) && !attr.exclude_hv &&
	    !strstr(enc->fstr, ":h=1"))
		attr.exclude_hv = 1;
	return from_attr(spec, &attr, enc);
}

static bool
listed_pmu(pfm_pmu_t p, pfm_pmu_info_t *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (CALL(pfm_get_pmu_info)(p, info) != PFM_SUCCESS || !info->is_present)
		return false;
	/* libpfm4's "perf" tables repeat the generic and software names */
	return p != PFM_PMU_PERF_EVENT && p != PFM_PMU_PERF_EVENT_RAW;
}

int
pctr__pfm_list(int (*cb)(const struct pctr_event_info *, void *), void *arg)
{
	char source[80], name[PCTR_NAME_MAX];
	pfm_pmu_info_t pinfo;
	pfm_event_info_t einfo;
	pfm_pmu_t p;
	int r;

	/*
	 * libpfm4 recognises the CPU from cpuid even where the kernel offers
	 * no PMU (a VM): its tables then list nothing that can be counted.
	 */
	if (ready() < 0 || (!pctr__has_pmu() && !secure_getenv("LIBPFM_FORCE_PMU")))
		return 0;
	pfm_for_all_pmus(p) {
		if (!listed_pmu(p, &pinfo))
			continue;
		snprintf(source, sizeof(source), "pfm:%s", pinfo.name);
		for (int i = pinfo.first_event; i != -1;
		     i = CALL(pfm_get_event_next)(i)) {
			struct pctr_event_info info = { source, name, "" };

			memset(&einfo, 0, sizeof(einfo));
			einfo.size = sizeof(einfo);
			if (CALL(pfm_get_event_info)(i, PFM_OS_PERF_EVENT_EXT,
					       &einfo) != PFM_SUCCESS)
				continue;
			snprintf(name, sizeof(name), "%s::%s", pinfo.name,
				 einfo.name);
			info.desc = einfo.desc ? einfo.desc : "";
			r = cb(&info, arg);
			if (r)
				return r;
		}
	}
	return 0;
}
