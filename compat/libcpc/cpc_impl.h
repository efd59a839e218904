/* SPDX-License-Identifier: MIT */
/*
 * cpc_impl.h - libcpc internals shared by the CPCv2 core (cpc.c, set.c) and
 * the CPCv1 shim over it (obsoleted.c).  Uses libpctr's public API only.
 */
#ifndef CPC_IMPL_H
#define CPC_IMPL_H

#include <errno.h>
#include <libcpc.h>
#include <pctr.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>

#include "arch_tsc.h" /* the port's (src/arch.h) */

#define CPC_EXPORT __attribute__((visibility("default")))
#define CPC_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CPC_MAX_ATTRS 8

/*
 * A handle owns the sets and buffers created with it: cpc_close() unbinds
 * and frees those the program did not destroy, as Solaris's does.  @lock
 * guards the two lists (programs create sets in several threads).
 */
struct __cpc {
	int cpuver;
	cpc_errhndlr_t *errfn;
	pthread_mutex_t lock;
	struct __cpc_set *sets;
	struct __cpc_buf *bufs;
};

struct cpc_request {
	char event[PCTR_NAME_MAX];
	struct pctr_event ev; /* resolved, flags applied */
	uint_t flags;
	int nattrs;
	cpc_attr_t attrs[CPC_MAX_ATTRS]; /* ca_name points into attr_name */
	char attr_name[CPC_MAX_ATTRS][CPC_MAX_ATTR_LEN];
};

/*
 * A set is bound to at most one thread.  While bound it owns a libpctr set
 * counting that thread (and with CPC_BIND_LWP_INHERIT the threads it
 * creates later); cpc__bound (thread-local) points to it.
 */
struct __cpc_set {
	struct __cpc_set *next; /* in its handle's list */
	int nreq;
	struct cpc_request req[CPC_MAX_REQUESTS];
	uint64_t preset[CPC_MAX_REQUESTS]; /* the requests' presets */
	struct pctr_set *ps;
	uint_t bind_flags;
	pid_t tid; /* the binding LWP */
	/*
	 * The read plan: @tid when a sample is a plain read of @ps by @tid
	 * (bound, not inherited), else -1, which no cached thread id is;
	 * cpc__plan() sets it whenever ps, tid or bind_flags change.
	 */
	pid_t fast_tid;
	bool preset_any; /* a preset was ever nonzero: add them */
	int inst; /* the libpctr instance counting it */
	volatile sig_atomic_t stopped; /* frozen by an overflow */
	int cpu; /* bound by cpc_bind_cpu(): that CPU, else -1 */
	cpu_set_t old_affinity; /* the binder's, restored at unbind */
};

struct __cpc_buf {
	struct __cpc_buf *next; /* in its handle's list */
	int nreq;
	hrtime_t hrt;
	bool hrt_set; /* else hrt is cpc__hrtime_at(tick), not computed yet */
	uint64_t tick;
	uint64_t val[CPC_MAX_REQUESTS];
};

extern __thread struct __cpc_set *cpc__bound;

/* report an error through the handle's handler (or the default one) */
void cpc__err(cpc_t *cpc, const char *fn, int subcode, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* report why @event cannot be counted (@err from cpc__resolve()) */
void cpc__event_error(cpc_t *cpc, const char *fn, const char *event, int err);

/*
 * Resolve an event name: libcpc's generic names (PAPI_*), x86 event codes
 * ("0xc0", "192") with the x86 attributes, then libpctr's names.
 * Return: 0 or a negative errno (-ENOENT unknown, -ENODEV needs a PMU this
 * machine lacks, -EINVAL bad attribute).
 */
int cpc__resolve(const char *name, uint_t flags, int nattrs,
		 const cpc_attr_t *attrs, struct pctr_event *ev);

/* libpctr's name for a generic libcpc name, or NULL */
const char *cpc__generic(const char *name);
/* walk the generic names available on this machine */
void cpc__walk_generic(void *arg, void (*action)(void *arg, const char *name));
/* walk every event name usable in a request */
void cpc__walk_all(void *arg, void (*action)(void *arg, const char *name));

int cpc__cpuver(void);
/* once, before the first cpc__hrtime_at(): cpc_open() and the CPCv1 handle */
void cpc__clock_init(void);
hrtime_t cpc__monotonic(void);

/* the anchor of gethrtime() time (cpc.c); mult 0: no timestamp counter */
extern struct cpc__clock {
	uint64_t tick0, mult;
	hrtime_t ns0;
} cpc__clk;

/* timestamp counter ticks @tick as gethrtime() time */
static inline hrtime_t
cpc__hrtime_at(uint64_t tick)
{
	if (__builtin_expect(!cpc__clk.mult, 0))
		return cpc__monotonic();
	return cpc__clk.ns0 +
	       (hrtime_t)(((unsigned __int128)(tick - cpc__clk.tick0) *
			   cpc__clk.mult) >>
			  32);
}
/* gettid(), cached per thread (0: not yet; reset in a fork's child) */
extern __thread pid_t cpc__my_tid __attribute__((tls_model("initial-exec")));
pid_t cpc__tid_slow(void);

static inline pid_t
cpc__tid(void)
{
	return __builtin_expect(cpc__my_tid != 0, 1) ? cpc__my_tid
						      : cpc__tid_slow();
}

/* the read plan of @set (fast_tid) after its binding changed */
static inline void
cpc__plan(struct __cpc_set *set)
{
	set->fast_tid = set->ps && !(set->bind_flags & CPC_BIND_LWP_INHERIT)
				? set->tid
				: -1;
}

/* the timestamp counter, as pctr_tsc() reads it, without the call */
static inline uint64_t
cpc__tsc(void)
{
	return pctr__arch_tsc(PCTR_SERIAL_NONE);
}

int cpc__sample_slow(struct __cpc_set *set, uint64_t *val);

/*
 * cpc__sample() - the raw counts of bound @set (presets not added), for
 * cpc_set_sample() and cpc_take_sample(), which take the timestamp just
 * before, as libpctr does: no system call for a thread's own counters.
 * The plan's one comparison stands for "bound, by this LWP, not
 * inherited"; anything else is checked again the slow way.
 * Return: 0, -EINVAL (not bound, or bound by another LWP) or -EAGAIN (the
 * read failed).
 */
static inline int
cpc__sample(struct __cpc_set *set, uint64_t *val)
{
	if (__builtin_expect(set->fast_tid != cpc__my_tid, 0))
		return cpc__sample_slow(set, val);
	return __builtin_expect(pctr_set_read_values(set->ps, val) < 0, 0)
		       ? -EAGAIN
		       : 0;
}
void cpc__destroy_all(cpc_t *cpc);

#endif
