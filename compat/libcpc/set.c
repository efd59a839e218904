/* SPDX-License-Identifier: MIT */
/*
 * set.c - CPCv2 sets, buffers, binding to the calling LWP, overflow.
 *
 * A bound set is a libpctr set counting the calling thread; with
 * CPC_BIND_LWP_INHERIT, counting also the threads it creates later.  Every
 * counter starts from its request's preset: a sample is preset + count,
 * modulo 2^64, as a preset hardware counter would read.
 *
 * Overflow protocol (requests with CPC_OVF_NOTIFY_EMT), over libpctr's
 * overflow notification; the kernel side of it (stop, reset, period,
 * start) is libpctr's pctr_set_overflow_restart(), this file never touches a
 * counter's descriptor:
 *  1. the event overflows once (PCTR_OVF_ONESHOT) after 2^64 - preset
 *     events, notified with signal CPC_SIGOVF_KERNEL to the bound thread;
 *  2. the library's callback, in that signal's handler, stops every
 *     counter of the set ("counting is disabled until the next bind or
 *     restart": pctr_set_overflow_restart(PCTR_OVF_STOP)) and queues SIGEMT
 *     to the same thread with si_code EMT_CPCOVF and si_addr the PC of the
 *     overflow, which the program's SIGEMT handler receives as on Solaris;
 *  3. cpc_set_restart() (or rebinding the same selection from that
 *     handler) zeroes the counts, gives each notified counter a full
 *     period from its current preset and starts every counter
 *     (pctr_set_overflow_restart()): no allocation, no lock, so it is safe in
 *     a signal handler.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpc_impl.h"

__thread struct __cpc_set *cpc__bound;

/* ---- sets and requests --------------------------------------------------- */

CPC_EXPORT cpc_set_t *
cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set;

	if (!cpc) {
		errno = EINVAL;
		return NULL;
	}
	set = calloc(1, sizeof(*set));
	if (!set)
		return NULL;
	set->cpu = -1;
	set->fast_tid = -1; /* not bound */
	pthread_mutex_lock(&cpc->lock);
	set->next = cpc->sets;
	cpc->sets = set;
	pthread_mutex_unlock(&cpc->lock);
	return set;
}

/* take @set off @cpc's list; 0 if it was there */
static int
unlink_set(cpc_t *cpc, cpc_set_t *set)
{
	int r = -1;

	pthread_mutex_lock(&cpc->lock);
	for (cpc_set_t **p = &cpc->sets; *p; p = &(*p)->next)
		if (*p == set) {
			*p = set->next;
			r = 0;
			break;
		}
	pthread_mutex_unlock(&cpc->lock);
	return r;
}

CPC_EXPORT int
cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	if (!cpc || !set || unlink_set(cpc, set) < 0) {
		errno = EINVAL;
		return -1;
	}
	if (set->ps)
		cpc_unbind(cpc, set);
	free(set);
	return 0;
}

static int
request_error(cpc_t *cpc, const char *event, int err)
{
	cpc__event_error(cpc, "cpc_set_add_request", event, err);
	errno = EINVAL;
	return -1;
}

CPC_EXPORT int
cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
		    uint64_t preset, uint_t flags, uint_t nattrs,
		    const cpc_attr_t *attrs)
{
	const uint_t known = CPC_OVF_NOTIFY_EMT | CPC_COUNT_USER |
			     CPC_COUNT_SYSTEM | CPC_COUNT_HV;
	struct cpc_request *rq;
	int r;

	if (!set || !event || set->ps || (nattrs && !attrs)) {
		errno = EINVAL;
		return -1;
	}
	for (uint_t i = 0; i < nattrs && i < CPC_MAX_ATTRS; i++) {
		if (!attrs[i].ca_name ||
		    strlen(attrs[i].ca_name) >= CPC_MAX_ATTR_LEN) {
			cpc__err(cpc, "cpc_set_add_request",
				 CPC_INVALID_ATTRIBUTE,
				 "attribute %u has no name or one longer "
				 "than %d characters",
				 i, CPC_MAX_ATTR_LEN - 1);
			errno = EINVAL;
			return -1;
		}
	}
	if (flags & ~known) {
		cpc__err(cpc, "cpc_set_add_request", CPC_REQ_INVALID_FLAGS,
			 "invalid request flags 0x%x", flags);
		errno = EINVAL;
		return -1;
	}
	if (set->nreq == CPC_MAX_REQUESTS || nattrs > CPC_MAX_ATTRS ||
	    strlen(event) >= PCTR_NAME_MAX) {
		cpc__err(cpc, "cpc_set_add_request", CPC_RESOURCE_UNAVAIL,
			 "a set holds at most %d requests of %d attributes",
			 CPC_MAX_REQUESTS, CPC_MAX_ATTRS);
		errno = EINVAL;
		return -1;
	}
	rq = &set->req[set->nreq];
	r = cpc__resolve(event, flags, (int)nattrs, attrs, &rq->ev);
	if (r < 0)
		return request_error(cpc, event, r);
	strcpy(rq->event, event);
	set->preset[set->nreq] = preset;
	set->preset_any |= preset != 0;
	rq->flags = flags;
	rq->nattrs = (int)nattrs;
	for (uint_t i = 0; i < nattrs; i++) {
		/* the caller's strings are its own: the request keeps copies */
		strcpy(rq->attr_name[i], attrs[i].ca_name);
		rq->attrs[i].ca_name = rq->attr_name[i];
		rq->attrs[i].ca_val = attrs[i].ca_val;
	}
	return set->nreq++;
}

CPC_EXPORT void
cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
		  void (*action)(void *arg, int index, const char *event,
				 uint64_t preset, uint_t flags, int nattrs,
				 const cpc_attr_t *attrs))
{
	for (int i = 0; set && i < set->nreq; i++)
		action(arg, i, set->req[i].event, set->preset[i],
		       set->req[i].flags, set->req[i].nattrs,
		       set->req[i].attrs);
}

/* ---- buffers -------------------------------------------------------------- */

CPC_EXPORT cpc_buf_t *
cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;

	if (!cpc || !set) {
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, sizeof(*buf));
	if (!buf)
		return NULL;
	buf->nreq = set->nreq;
	buf->hrt_set = true; /* 0 until a sample */
	pthread_mutex_lock(&cpc->lock);
	buf->next = cpc->bufs;
	cpc->bufs = buf;
	pthread_mutex_unlock(&cpc->lock);
	return buf;
}

CPC_EXPORT int
cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	int r = -1;

	if (!cpc || !buf) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&cpc->lock);
	for (cpc_buf_t **p = &cpc->bufs; *p; p = &(*p)->next)
		if (*p == buf) {
			*p = buf->next;
			r = 0;
			break;
		}
	pthread_mutex_unlock(&cpc->lock);
	if (r < 0) {
		errno = EINVAL;
		return -1;
	}
	free(buf);
	return 0;
}

/* cpc_close(): what the program left of @cpc's sets and buffers */
void
cpc__destroy_all(cpc_t *cpc)
{
	pthread_mutex_lock(&cpc->lock);
	while (cpc->sets) {
		cpc_set_t *set = cpc->sets;

		cpc->sets = set->next;
		if (set->ps)
			cpc_unbind(cpc, set);
		free(set);
	}
	while (cpc->bufs) {
		cpc_buf_t *buf = cpc->bufs;

		cpc->bufs = buf->next;
		free(buf);
	}
	pthread_mutex_unlock(&cpc->lock);
}

CPC_EXPORT int
cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val)
{
	if (!buf || !val || index < 0 || index >= buf->nreq) {
		errno = EINVAL;
		return -1;
	}
	*val = buf->val[index];
	return 0;
}

CPC_EXPORT int
cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val)
{
	if (!buf || index < 0 || index >= buf->nreq) {
		errno = EINVAL;
		return -1;
	}
	buf->val[index] = val;
	return 0;
}

/* a sample's time is converted from its tick when asked for */
static hrtime_t
buf_hrt(const cpc_buf_t *buf)
{
	return buf->hrt_set ? buf->hrt : cpc__hrtime_at(buf->tick);
}

CPC_EXPORT hrtime_t
cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf_hrt(buf);
}

CPC_EXPORT uint64_t
cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf->tick;
}

/* ds = a - b; the time is a's, as in Solaris */
CPC_EXPORT void
cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int n = a->nreq < b->nreq ? a->nreq : b->nreq;

	ds->nreq = n;
	for (int i = 0; i < n; i++)
		ds->val[i] = a->val[i] - b->val[i];
	ds->hrt = buf_hrt(a);
	ds->hrt_set = true;
	ds->tick = a->tick - b->tick;
}

CPC_EXPORT void
cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int n = a->nreq < b->nreq ? a->nreq : b->nreq;

	ds->nreq = n;
	for (int i = 0; i < n; i++)
		ds->val[i] = a->val[i] + b->val[i];
	ds->hrt = buf_hrt(a) > buf_hrt(b) ? buf_hrt(a) : buf_hrt(b);
	ds->hrt_set = true;
	ds->tick = a->tick + b->tick;
}

CPC_EXPORT void
cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	ds->nreq = src->nreq;
	ds->hrt = src->hrt;
	ds->hrt_set = src->hrt_set;
	ds->tick = src->tick;
	memcpy(ds->val, src->val, sizeof(ds->val));
}

/* the values and times; the buffer stays in its handle's list */
CPC_EXPORT void
cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	buf->hrt = 0;
	buf->hrt_set = true;
	buf->tick = 0;
	memset(buf->val, 0, sizeof(buf->val));
}

static int
wants_overflow(const cpc_set_t *set)
{
	for (int i = 0; i < set->nreq; i++)
		if (set->req[i].flags & CPC_OVF_NOTIFY_EMT)
			return 1;
	return 0;
}

/* ---- overflow ------------------------------------------------------------- */

/* step 2 of the protocol; only async-signal-safe calls */
static void
on_overflow(const struct pctr_overflow_info *ovf, void *arg)
{
	cpc_set_t *set = arg;
	sigset_t emt;
	siginfo_t info;
	int saved = errno;

	if (set != cpc__bound || set->stopped || ovf->event < 0 ||
	    ovf->event >= set->nreq)
		return;
	set->stopped = 1; /* another event's overflow before the stop */
	pctr_set_overflow_restart(set->ps, NULL, PCTR_OVF_STOP);
	/*
	 * Held until this handler returns (its sigreturn restores the mask):
	 * SIGEMT then interrupts the code that overflowed, not this handler.
	 */
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, NULL);
	memset(&info, 0, sizeof(info));
	info.si_signo = SIGEMT;
	info.si_code = EMT_CPCOVF;
	info.si_addr = (void *)(uintptr_t)ovf->ip;
	syscall(SYS_rt_tgsigqueueinfo, getpid(), cpc__tid(), SIGEMT, &info);
	errno = saved;
}

/*
 * The period after which a counter preset to @preset overflows.  A preset
 * of 0, or one further than 2^63 events from the wrap, does not overflow
 * within any run: its period is INT64_MAX, the kernel's largest.
 */
static uint64_t
ovf_period(uint64_t preset)
{
	uint64_t period = -preset;

	return preset && period <= INT64_MAX ? period : INT64_MAX;
}

/*
 * PCTR_OVF_ONESHOT: the kernel itself stops the event at its overflow, so
 * a short period cannot queue a storm of signals before the callback
 * freezes the rest of the set; the restart re-arms it.
 */
static int
add_overflow(cpc_set_t *set, int idx)
{
	struct pctr_overflow o = {
		.size = sizeof(o),
		.period = ovf_period(set->preset[idx]),
		.flags = PCTR_OVF_ONESHOT,
		.signo = CPC_SIGOVF_KERNEL,
		.fn = on_overflow,
		.arg = set,
	};

	return pctr_set_overflow(set->ps, idx, &o);
}

/* ---- binding ------------------------------------------------------------- */

static int
set_errno_from(int err)
{
	switch (err) {
	case -EACCES:
	case -EPERM:
		errno = EACCES;
		break;
	case -EBUSY:
	case -EMFILE:
	case -ENFILE:
		errno = EAGAIN;
		break;
	case -ENODEV:
	case -ENOENT:
	case -EOPNOTSUPP:
		errno = ENOTSUP;
		break;
	default:
		errno = err < 0 ? -err : EINVAL;
		break;
	}
	return -1;
}

/*
 * The instance counting the binding LWP.  An inheriting binding opens the
 * whole process (the public API's inheriting target): the binder's own
 * counter is inherited by exactly the threads it creates later, so it
 * alone gives Solaris's "this LWP and the LWPs it creates"; the other
 * threads' counters are never read.
 */
static int
find_instance(cpc_set_t *set)
{
	int n = pctr_set_nr_instances(set->ps);

	for (int i = 0; i < n; i++)
		if (pctr_set_instance_id(set->ps, i) == (int)set->tid)
			return i;
	return -ESRCH;
}

/*
 * An overflow signal queued just before an unbind is delivered after
 * libpctr has put back the disposition it found: under SIG_DFL that kills
 * the program (seen under valgrind, whose signal delivery lags).  The
 * layer owns CPC_SIGOVF_KERNEL (libcpc-compat(3)), so what libpctr finds
 * and puts back is this handler, which ignores such a late signal.
 */
static void
late_overflow(int sig, siginfo_t *si, void *uc)
{
}

static void
own_kernel_signal(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = late_overflow;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	if (sigaction(CPC_SIGOVF_KERNEL, NULL, &old) == 0 &&
	    !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL)
		sigaction(CPC_SIGOVF_KERNEL, &sa, NULL);
}

static pthread_once_t own_signal_once = PTHREAD_ONCE_INIT;

static int
open_bound(cpc_set_t *set, uint_t flags)
{
	pthread_once(&own_signal_once, own_kernel_signal);
	struct pctr_target tgt = { .type = PCTR_TARGET_THREAD };
	int r;

	if (flags & CPC_BIND_LWP_INHERIT)
		tgt.type = PCTR_TARGET_PROCESS;
	r = pctr_set_new(&set->ps, 0);
	for (int i = 0; r >= 0 && i < set->nreq; i++) {
		r = pctr_set_add_event(set->ps, &set->req[i].ev);
		if (r >= 0 && (set->req[i].flags & CPC_OVF_NOTIFY_EMT))
			r = add_overflow(set, i);
	}
	if (r >= 0)
		r = pctr_set_open(set->ps, &tgt);
	set->tid = cpc__tid();
	if (r >= 0)
		r = set->inst = find_instance(set);
	if (r < 0) {
		pctr_set_free(set->ps);
		set->ps = NULL;
	}
	return r < 0 ? r : 0;
}

/*
 * Step 3: zero the counts, full periods from the current presets, start.
 * No allocation, no lock: a SIGEMT handler may run it.  A set without
 * overflow notification has no restart in the core: reset and enable.
 */
static int
start_bound(cpc_set_t *set)
{
	uint64_t period[CPC_MAX_REQUESTS];
	int r;

	set->stopped = 0;
	if (!wants_overflow(set)) {
		r = pctr_set_reset(set->ps);
		return r < 0 ? r : pctr_set_enable(set->ps);
	}
	for (int i = 0; i < set->nreq; i++)
		period[i] = ovf_period(set->preset[i]);
	return pctr_set_overflow_restart(set->ps, period, 0);
}

CPC_EXPORT int
cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags)
{
	int r;

	if (!set || set->nreq == 0 || (flags & ~CPC_BIND_LWP_INHERIT)) {
		errno = EINVAL;
		return -1;
	}
	/* inherited counters cannot be armed for one overflow */
	if ((flags & CPC_BIND_LWP_INHERIT) && wants_overflow(set)) {
		errno = ENOTSUP;
		return -1;
	}
	if (cpc__bound && cpc__bound != set)
		cpc_unbind(cpc, cpc__bound);
	if (set->ps && (set->bind_flags != flags || set->tid != cpc__tid()))
		cpc_unbind(cpc, set);
	if (!set->ps) {
		r = open_bound(set, flags);
		if (r < 0)
			return set_errno_from(r);
	}
	set->bind_flags = flags;
	cpc__plan(set);
	cpc__bound = set;
	r = start_bound(set);
	if (r < 0) {
		cpc_unbind(cpc, set);
		return set_errno_from(r);
	}
	return 0;
}

CPC_EXPORT int
cpc_request_preset(cpc_t *cpc, int index, uint64_t preset)
{
	cpc_set_t *set = cpc__bound;

	if (!set || index < 0 || index >= set->nreq) {
		errno = EINVAL;
		return -1;
	}
	set->preset[index] = preset;
	set->preset_any |= preset != 0;
	return 0;
}

CPC_EXPORT int
cpc_set_restart(cpc_t *cpc, cpc_set_t *set)
{
	if (!set || !set->ps || set != cpc__bound) {
		errno = EINVAL;
		return -1;
	}
	return start_bound(set) < 0 ? set_errno_from(-EAGAIN) : 0;
}

CPC_EXPORT int
cpc_unbind(cpc_t *cpc, cpc_set_t *set)
{
	if (!set || !set->ps) {
		errno = EINVAL;
		return -1;
	}
	if (cpc__bound == set)
		cpc__bound = NULL;
	pctr_set_free(set->ps);
	set->ps = NULL;
	cpc__plan(set);
	if (set->cpu >= 0)
		sched_setaffinity(0, sizeof(set->old_affinity),
				  &set->old_affinity);
	set->cpu = -1;
	return 0;
}

/*
 * A sample off the plan: not bound, bound by another LWP (or this one
 * before it knew its id, or in a fork's child), or inherited.  The
 * binder's own counter in an inheriting binding is one instance of a
 * process-wide set: read through read(2).
 */
int
cpc__sample_slow(cpc_set_t *set, uint64_t *val)
{
	struct pctr_sample s;
	int r;

	if (!set->ps || set->tid != cpc__tid())
		return -EINVAL;
	if (!(set->bind_flags & CPC_BIND_LWP_INHERIT))
		return pctr_set_read_values(set->ps, val) < 0 ? -EAGAIN : 0;
	r = pctr_set_read_instance(set->ps, set->inst, &s);
	for (uint32_t i = 0; r >= 0 && i < s.nr; i++)
		val[i] = s.count[i].value;
	return r < 0 ? -EAGAIN : 0;
}

static int
sample_error(int err)
{
	errno = err;
	return -1;
}

static void
add_presets(const cpc_set_t *set, uint64_t *val)
{
	for (int i = 0; i < set->nreq; i++)
		val[i] += set->preset[i];
}

/*
 * cpc_set_sample() off its plan, or after its read failed (the buffer
 * may hold part of a read then): the whole sample again into a copy.
 */
static __attribute__((noinline)) int
sample_slow(cpc_set_t *set, cpc_buf_t *buf, uint64_t tick)
{
	uint64_t val[CPC_MAX_REQUESTS];
	int r = cpc__sample_slow(set, val);

	if (r < 0)
		return sample_error(-r);
	add_presets(set, val);
	memcpy(buf->val, val, set->nreq * sizeof(val[0]));
	buf->tick = tick;
	buf->hrt_set = false;
	return 0;
}

/*
 * A sample is the timestamp and the raw counts (a hardware counter is
 * never scaled), read straight into the buffer, and the time left to be
 * converted from the timestamp when it is asked for (cpc_buf_hrtime()).
 * Presets are added only once one was set: most sets have none.  A bound
 * set has at least one request.  A read that fails is tried again the
 * slow way, into a copy: if it fails again, the buffer's timestamp is as
 * it was, its counts may hold part of the failed read.
 */
CPC_EXPORT int
cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	uint64_t tick;

	if (__builtin_expect(!set || !buf || buf->nreq < set->nreq, 0))
		return sample_error(EINVAL);
	tick = cpc__tsc();
	if (__builtin_expect(set->fast_tid != cpc__my_tid, 0))
		return sample_slow(set, buf, tick);
	if (__builtin_expect(pctr_set_read_values(set->ps, buf->val) < 0, 0))
		return sample_slow(set, buf, tick);
	buf->tick = tick;
	buf->hrt_set = false;
	if (__builtin_expect(set->preset_any, 0))
		add_presets(set, buf->val);
	return 0;
}

CPC_EXPORT int
cpc_enable(cpc_t *cpc)
{
	if (!cpc__bound) {
		errno = EINVAL;
		return -1;
	}
	return pctr_set_enable(cpc__bound->ps) < 0 ? set_errno_from(-EAGAIN)
						   : 0;
}

CPC_EXPORT int
cpc_disable(cpc_t *cpc)
{
	if (!cpc__bound) {
		errno = EINVAL;
		return -1;
	}
	return pctr_set_disable(cpc__bound->ps) < 0 ? set_errno_from(-EAGAIN)
						    : 0;
}

/* ---- binding to a CPU ------------------------------------------------------ */

static int
open_cpu(cpc_set_t *set, processorid_t id)
{
	struct pctr_target tgt = { .type = PCTR_TARGET_CPU,
				   .nr_cpus = 1,
				   .cpus = &id };
	int r = pctr_set_new(&set->ps, 0);

	for (int i = 0; r >= 0 && i < set->nreq; i++)
		r = pctr_set_add_event(set->ps, &set->req[i].ev);
	if (r >= 0)
		r = pctr_set_open(set->ps, &tgt);
	if (r >= 0)
		r = pctr_set_reset(set->ps);
	if (r >= 0)
		r = pctr_set_enable(set->ps);
	if (r < 0) {
		pctr_set_free(set->ps);
		set->ps = NULL;
	}
	return r;
}

/*
 * Solaris: the set counts every LWP on CPU @id, and the calling LWP is
 * bound to that CPU until the unbind.  Privileged there too (here:
 * kernel.perf_event_paranoid, EACCES).  Overflow notification of a CPU
 * is not offered (ENOTSUP).
 */
CPC_EXPORT int
cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags)
{
	cpu_set_t one;
	int r;

	if (!set || set->nreq == 0 || flags || id < 0 || id >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	if (wants_overflow(set)) {
		errno = ENOTSUP;
		return -1;
	}
	if (set->ps)
		cpc_unbind(cpc, set);
	if (sched_getaffinity(0, sizeof(set->old_affinity),
			      &set->old_affinity) < 0)
		return -1;
	CPU_ZERO(&one);
	CPU_SET(id, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return -1; /* EINVAL: no such CPU online */
	r = open_cpu(set, id);
	if (r < 0) {
		sched_setaffinity(0, sizeof(set->old_affinity),
				  &set->old_affinity);
		return set_errno_from(r);
	}
	set->cpu = id;
	set->tid = cpc__tid();
	set->inst = 0;
	set->bind_flags = 0;
	cpc__plan(set);
	return 0;
}
