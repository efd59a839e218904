/* SPDX-License-Identifier: MIT */
/*
 * cpc.c - the CPCv2 handle: processor identity, event names, errors.
 *
 * A cpc_t is cheap: it holds the processor version and the error handler.
 * The counters themselves live in bound sets (set.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cpc_impl.h"

/*
 * libcpc's generic events (the PAPI preset names of cpc_generic_events(3CPC))
 * and the libpctr event that counts each.
 */
static const struct {
	const char *papi;
	const char *pctr;
} generic[] = {
	{ "PAPI_tot_cyc", "cycles" },
	{ "PAPI_tot_ins", "instructions" },
	{ "PAPI_ref_cyc", "ref-cycles" },
	{ "PAPI_br_ins", "branches" },
	{ "PAPI_br_msp", "branch-misses" },
	{ "PAPI_l1_dca", "L1-dcache-loads" },
	{ "PAPI_l1_dcm", "L1-dcache-load-misses" },
	{ "PAPI_l1_ldm", "L1-dcache-load-misses" },
	{ "PAPI_l1_stm", "L1-dcache-store-misses" },
	{ "PAPI_l1_ica", "L1-icache-loads" },
	{ "PAPI_l1_icm", "L1-icache-load-misses" },
	{ "PAPI_ld_ins", "L1-dcache-loads" },
	{ "PAPI_sr_ins", "L1-dcache-stores" },
	{ "PAPI_l3_tca", "cache-references" },
	{ "PAPI_l3_tcm", "cache-misses" },
	{ "PAPI_tlb_dm", "dTLB-load-misses" },
	{ "PAPI_tlb_im", "iTLB-load-misses" },
	{ "PAPI_res_stl", "stalled-cycles-backend" },
	{ "PAPI_stl_icy", "stalled-cycles-frontend" },
};

/*
 * The UltraSPARC and Intel P6 names old Solaris programs hard-code.  Where
 * a generic event counts the same thing the name is that event; otherwise
 * the request is refused with the replacement (@hint) in the message.
 */
static const struct {
	const char *name;
	const char *pctr; /* NULL: refused */
	const char *hint;
} legacy[] = {
	{ "Cycle_cnt", "cycles", NULL },
	{ "Instr_cnt", "instructions", NULL },
	{ "DC_rd", "L1-dcache-loads", NULL },
	{ "DC_rd_miss", "L1-dcache-load-misses", NULL },
	{ "DC_miss", "L1-dcache-load-misses", NULL },
	{ "DC_wr", "L1-dcache-stores", NULL },
	{ "DC_wr_miss", "L1-dcache-store-misses", NULL },
	{ "IC_ref", "L1-icache-loads", NULL },
	{ "IC_miss", "L1-icache-load-misses", NULL },
	{ "IC_hit", NULL, "PAPI_l1_ica minus PAPI_l1_icm" },
	{ "EC_ref", "cache-references", NULL },
	{ "EC_miss", "cache-misses", NULL },
	{ "EC_hit", NULL, "PAPI_l3_tca minus PAPI_l3_tcm" },
	{ "ITLB_miss", "iTLB-load-misses", NULL },
	{ "DTLB_miss", NULL, "PAPI_tlb_dm (loads only)" },
	{ "Dispatch0_IC_miss", NULL, "PAPI_stl_icy" },
	{ "Load_use", NULL, "PAPI_res_stl" },
	{ "cpu_clk_unhalted", "cycles", NULL },
	{ "inst_retired", "instructions", NULL },
	{ "br_inst_retired", "branches", NULL },
	{ "br_miss_pred_retired", "branch-misses", NULL },
	{ "ifu_ifetch", "L1-icache-loads", NULL },
	{ "ifu_ifetch_miss", "L1-icache-load-misses", NULL },
	{ "itlb_miss", "iTLB-load-misses", NULL },
	{ "data_mem_refs", NULL, "PAPI_ld_ins plus PAPI_sr_ins" },
	{ "dcu_lines_in", NULL, "PAPI_l1_dcm" },
};

/* the legacy entry of @name, or -1 */
static int
legacy_index(const char *name)
{
	for (size_t i = 0; i < CPC_ARRAY_SIZE(legacy); i++)
		if (!strcmp(name, legacy[i].name))
			return (int)i;
	return -1;
}

static struct pctr_machine machine = { .size = sizeof(machine) };
static pthread_once_t machine_once = PTHREAD_ONCE_INIT;
static int machine_err;

static void
machine_init(void)
{
	machine_err = pctr_machine_get(&machine);
}

static const struct pctr_machine *
cpc__machine(void)
{
	pthread_once(&machine_once, machine_init);
	return machine_err < 0 ? NULL : &machine;
}

/*
 * -1 only when the kernel offers no counters at all (no perf_event_open):
 * without a hardware PMU the software events still count, and this is a
 * processor version of its own.
 */
int
cpc__cpuver(void)
{
	const struct pctr_machine *m = cpc__machine();

	if (!m)
		return -1;
	if (access("/proc/sys/kernel/perf_event_paranoid", F_OK) != 0)
		return -1;
	if (!m->has_pmu)
		return CPC_LINUX_SOFTWARE;
	if (!strcmp(m->arch, "x86_64"))
		return CPC_LINUX_X86_64;
	if (!strcmp(m->arch, "aarch64"))
		return CPC_LINUX_AARCH64;
	return CPC_LINUX_OTHER;
}

/*
 * hrtime: the timestamp counter on CLOCK_MONOTONIC's scale, as Solaris's
 * gethrtime() is the TSC scaled: CLOCK_MONOTONIC and the counter read once
 * together (the anchor), then ns = anchor + (ticks since) * mult >> 32.
 * A sample's time is its own timestamp converted, no clock read: a
 * clock_gettime() is 50 user instructions on arm64 and a system call where
 * the kernel's clocksource has no vDSO reader (the TSC declared unstable).
 * Without a timestamp counter (hz 0) each call reads CLOCK_MONOTONIC.
 */
struct cpc__clock cpc__clk;
static pthread_once_t clk_once = PTHREAD_ONCE_INIT;

hrtime_t
cpc__monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
clk_init(void)
{
	uint64_t hz = pctr_tsc_hz();

	if (hz == 0)
		return;
	cpc__clk.mult =
		(uint64_t)(((unsigned __int128)1000000000u << 32) / hz);
	cpc__clk.tick0 = pctr_tsc();
	cpc__clk.ns0 = cpc__monotonic();
}

void
cpc__clock_init(void)
{
	pthread_once(&clk_once, clk_init);
}

CPC_EXPORT hrtime_t
gethrtime(void)
{
	cpc__clock_init();
	return cpc__hrtime_at(pctr_tsc());
}

/*
 * The calling thread's id without a system call after the first: glibc's
 * gettid() asks the kernel every time.  A new thread starts with 0; the
 * child of fork() has a new id, so the atfork handler forgets the forking
 * thread's (the only thread of the child).
 */
__thread pid_t cpc__my_tid __attribute__((tls_model("initial-exec")));

static void
forget_tid(void)
{
	cpc__my_tid = 0;
}

__attribute__((constructor)) static void
tid_atfork(void)
{
	pthread_atfork(NULL, NULL, forget_tid);
}

pid_t
cpc__tid_slow(void)
{
	cpc__my_tid = gettid();
	return cpc__my_tid;
}

CPC_EXPORT int
_lwp_self(void)
{
	return (int)cpc__tid();
}

/* ---- errors ------------------------------------------------------------ */

static void
default_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void)subcode;
	fprintf(stderr, "libcpc: %s: ", fn);
	vfprintf(stderr, fmt, ap);
	if (*fmt && fmt[strlen(fmt) - 1] != '\n')
		fputc('\n', stderr);
}

void
cpc__err(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
{
	cpc_errhndlr_t *h = cpc && cpc->errfn ? cpc->errfn : default_errhndlr;
	va_list ap;

	va_start(ap, fmt);
	h(fn, subcode, fmt, ap);
	va_end(ap);
}

CPC_EXPORT int
cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn)
{
	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc->errfn = fn;
	return 0;
}

/* ---- the handle ---------------------------------------------------------- */

CPC_EXPORT cpc_t *
cpc_open(int ver)
{
	cpc_t *cpc;
	int cpuver;

	if (ver != CPC_VER_CURRENT) {
		errno = EINVAL;
		return NULL;
	}
	cpuver = cpc__cpuver();
	if (cpuver == -1) {
		errno = ENOSYS;
		return NULL;
	}
	cpc = calloc(1, sizeof(*cpc));
	if (!cpc)
		return NULL;
	cpc->cpuver = cpuver;
	pthread_mutex_init(&cpc->lock, NULL);
	cpc__clock_init();
	return cpc;
}

/* Solaris's: unbinds and frees every set and buffer made with @cpc */
CPC_EXPORT int
cpc_close(cpc_t *cpc)
{
	if (!cpc) {
		errno = EINVAL;
		return -1;
	}
	cpc__destroy_all(cpc);
	pthread_mutex_destroy(&cpc->lock);
	free(cpc);
	return 0;
}

/* sets hold up to CPC_MAX_REQUESTS; the kernel multiplexes beyond the PMU */
CPC_EXPORT uint_t
cpc_npic(cpc_t *cpc)
{
	return CPC_MAX_REQUESTS;
}

CPC_EXPORT uint_t
cpc_caps(cpc_t *cpc)
{
	return CPC_CAP_OVERFLOW_INTERRUPT;
}

CPC_EXPORT const char *
cpc_cciname(cpc_t *cpc)
{
	const struct pctr_machine *m = cpc__machine();
	static char name[96];

	if (!m || !m->has_pmu)
		return "Linux perf_event (software events only)";
	snprintf(name, sizeof(name), "Linux perf_event %s (%s)", m->pmu[0],
		 m->arch);
	return name;
}

CPC_EXPORT const char *
cpc_cpuref(cpc_t *cpc)
{
	return "See libcpc-compat(3) and pctr_event_parse(3); "
	       "\"pctr list\" shows the events of this machine.";
}

/* ---- event names --------------------------------------------------------- */

const char *
cpc__generic(const char *name)
{
	for (size_t i = 0; i < CPC_ARRAY_SIZE(generic); i++)
		if (!strcmp(generic[i].papi, name))
			return generic[i].pctr;
	return NULL;
}

static int
usable(const char *pctr_name)
{
	const struct pctr_machine *m = cpc__machine();
	struct pctr_event ev = { .size = sizeof(ev) };

	if (pctr_event_parse(pctr_name, &ev) < 0)
		return 0;
	return !ev.hardware || (m && m->has_pmu);
}

void
cpc__walk_generic(void *arg, void (*action)(void *arg, const char *name))
{
	for (size_t i = 0; i < CPC_ARRAY_SIZE(generic); i++)
		if (usable(generic[i].pctr))
			action(arg, generic[i].papi);
}

struct walk {
	void *arg;
	void (*action)(void *arg, const char *name);
};

/*
 * Solaris lists the processor's own events, some tens of names.  libpctr
 * also knows libpfm4's tables (thousands of names on a machine with a PMU),
 * every uncore PMU's events and the generic cache combinations: those stay
 * usable in requests but are not listed.  Listed: libpctr's generic and
 * software events and the core PMU's own (its sysfs "events" directory).
 */
static int
listed(const char *source)
{
	static const char *const core[] = { "sysfs:cpu", "sysfs:cpu_core",
					    "sysfs:cpu_atom", "sysfs:armv8" };

	if (!strcmp(source, "generic") || !strcmp(source, "software"))
		return 1;
	for (size_t i = 0; i < CPC_ARRAY_SIZE(core); i++)
		if (!strncmp(source, core[i], strlen(core[i])) &&
		    (source[strlen(core[i])] == '\0' || i == 3))
			return 1;
	return 0;
}

static int
walk_one(const struct pctr_event_info *info, void *arg)
{
	struct walk *w = arg;

	if (listed(info->source))
		w->action(w->arg, info->name);
	return 0;
}

void
cpc__walk_all(void *arg, void (*action)(void *arg, const char *name))
{
	struct walk w = { arg, action };

	cpc__walk_generic(arg, action);
	pctr_event_list(walk_one, &w);
}

CPC_EXPORT void
cpc_walk_events_all(cpc_t *cpc, void *arg,
		    void (*action)(void *arg, const char *event))
{
	cpc__walk_all(arg, action);
}

CPC_EXPORT void
cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
			    void (*action)(void *arg, const char *event))
{
	cpc__walk_generic(arg, action);
}

struct walk_pic {
	void *arg;
	uint_t picno;
	void (*action)(void *arg, uint_t picno, const char *event);
};

static void
walk_pic_one(void *arg, const char *name)
{
	struct walk_pic *w = arg;

	w->action(w->arg, w->picno, name);
}

/* every counter takes every event: perf schedules them */
CPC_EXPORT void
cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
		    void (*action)(void *arg, uint_t picno, const char *event))
{
	struct walk_pic w = { arg, picno, action };

	if (picno < CPC_MAX_REQUESTS)
		cpc__walk_all(&w, walk_pic_one);
}

/* ---- resolving a request's event ---------------------------------------- */

static int
attr_value(const cpc_attr_t *a, const char *name, uint64_t max, uint64_t *v)
{
	if (strcmp(a->ca_name, name))
		return 0;
	if (a->ca_val > max)
		return -EINVAL;
	*v = a->ca_val;
	return 1;
}

/*
 * The x86 attributes of a numeric event, translated one by one into the
 * counter function: umask, cmask, edge, noedge, inv.  pc and int drive the
 * external pins and the APIC, which the kernel owns: accepted, no effect.
 */
static int
x86_function(uint64_t code, int nattrs, const cpc_attr_t *attrs,
	     uint32_t *fn)
{
	uint64_t umask = 0, cmask = 0, edge = 0, noedge = 0, inv = 0, pin = 0;

	for (int i = 0; i < nattrs; i++) {
		const cpc_attr_t *a = &attrs[i];
		int r = 0;

		r = r ? r : attr_value(a, "umask", 0xff, &umask);
		r = r ? r : attr_value(a, "cmask", 0xff, &cmask);
		r = r ? r : attr_value(a, "edge", 1, &edge);
		r = r ? r : attr_value(a, "noedge", 1, &noedge);
		r = r ? r : attr_value(a, "inv", 1, &inv);
		r = r ? r : attr_value(a, "pc", 1, &pin);
		r = r ? r : attr_value(a, "int", 1, &pin);
		if (r <= 0)
			return -EINVAL;
	}
	*fn = (uint32_t)code | (uint32_t)umask << 8 | (uint32_t)cmask << 24 |
	      PCTR_FN_EN | PCTR_FN_USR;
	if (edge && !noedge)
		*fn |= PCTR_FN_EDGE;
	if (inv)
		*fn |= PCTR_FN_INV;
	return 0;
}

static int
parse_code(const char *name, uint64_t *code)
{
	char *end;

	if (!*name || !(name[0] >= '0' && name[0] <= '9'))
		return 0;
	errno = 0;
	*code = strtoull(name, &end, 0);
	return !*end && !errno && *code <= 0xff;
}

int
cpc__resolve(const char *name, uint_t flags, int nattrs,
	     const cpc_attr_t *attrs, struct pctr_event *ev)
{
	const struct pctr_machine *m = cpc__machine();
	const char *alias = cpc__generic(name);
	uint64_t code;
	uint32_t fn;
	int r;

	ev->size = sizeof(*ev);
	if (parse_code(name, &code)) {
		r = x86_function(code, nattrs, attrs, &fn);
		if (r == 0)
			r = pctr_event_from_x86(fn, ev);
	} else if (nattrs > 0) {
		r = -EINVAL; /* attributes belong to numeric x86 events */
	} else if (legacy_index(name) >= 0) {
		r = legacy[legacy_index(name)].pctr
			    ? pctr_event_parse(legacy[legacy_index(name)].pctr,
					       ev)
			    : -EXDEV;
	} else {
		r = pctr_event_parse(alias ? alias : name, ev);
	}
	if (r < 0)
		return r;
	if (ev->hardware && !(m && m->has_pmu))
		return -ENODEV;
	/* the request's flags decide the modes, whatever the name said */
	ev->flags &= ~(PCTR_EVENT_EXCLUDE_USER | PCTR_EVENT_EXCLUDE_KERNEL |
		       PCTR_EVENT_EXCLUDE_HV);
	ev->flags |=
		(flags & CPC_COUNT_USER ? 0 : PCTR_EVENT_EXCLUDE_USER) |
		(flags & CPC_COUNT_SYSTEM ? 0 : PCTR_EVENT_EXCLUDE_KERNEL) |
		(flags & CPC_COUNT_HV ? 0 : PCTR_EVENT_EXCLUDE_HV);
	return 0;
}

void
cpc__event_error(cpc_t *cpc, const char *fn, const char *event, int err)
{
	if (err == -EXDEV && legacy_index(event) < 0)
		err = -ENOENT;
	switch (err) {
	case -EXDEV:
		cpc__err(cpc, fn, CPC_INVALID_EVENT,
			 "'%s' has no equivalent on this processor: use %s",
			 event, legacy[legacy_index(event)].hint);
		break;
	case -ENODEV:
		cpc__err(cpc, fn, CPC_INVALID_EVENT,
			 "event '%s' needs hardware counters, which this "
			 "processor does not offer",
			 event);
		break;
	case -EINVAL:
		cpc__err(cpc, fn, CPC_INVALID_ATTRIBUTE,
			 "invalid attribute or value for event '%s'", event);
		break;
	default:
		cpc__err(cpc, fn, CPC_INVALID_EVENT, "%s", pctr_strerror(err));
		break;
	}
}

/* the attributes x86_function() accepts, in its order */
CPC_EXPORT void
cpc_walk_attrs(cpc_t *cpc, void *arg,
	       void (*action)(void *arg, const char *attr))
{
	static const char *const attrs[] = { "umask", "cmask", "edge",
					     "noedge", "inv", "pc", "int" };

	for (size_t i = 0; action && i < CPC_ARRAY_SIZE(attrs); i++)
		action(arg, attrs[i]);
}
