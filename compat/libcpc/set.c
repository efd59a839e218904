/* SPDX-License-Identifier: MIT */
/*
 * set.c - CPCv2 sets, buffers, binding to the calling LWP, overflow.
 *
 * A bound set is a libpctr set counting the calling thread.  Every counter
 * starts from its request's preset: a sample is preset + count, modulo
 * 2^64, as a preset hardware counter would read.
 *
 * Overflow protocol (requests with CPC_OVF_NOTIFY_EMT and a non-zero
 * preset), over libpctr's overflow notification:
 *  1. the event overflows once (PCTR_OVF_ONESHOT) after 2^64 - preset
 *     events, notified with signal CPC_SIGOVF_KERNEL to the bound thread;
 *  2. the library's callback, in that signal's handler, stops every
 *     counter of the set ("counting is disabled until the next bind or
 *     restart") and queues SIGEMT to the same thread with si_code
 *     EMT_CPCOVF and si_addr the PC of the overflow, which the program's
 *     SIGEMT handler receives as on Solaris;
 *  3. cpc_set_restart() (or rebinding the same selection from that
 *     handler) zeroes the counts, gives each armed counter a full period
 *     again (PERF_EVENT_IOC_PERIOD), re-arms the one that fired
 *     (pctr_overflow_rearm()) and starts every counter: no allocation, no
 *     lock, so it is safe in a signal handler.
 * The counters' own ioctls go to the fds libpctr hands out for that
 * (pctr_set_fd()): one stop for every event, grouped or not.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "cpc_impl.h"

__thread struct __cpc_set *cpc__bound;

/* ---- sets and requests --------------------------------------------------- */

CPC_EXPORT cpc_set_t *
cpc_set_create(cpc_t *cpc)
{
	cpc_set_t *set = calloc(1, sizeof(*set));

	if (!set)
		return NULL;
	for (int i = 0; i < CPC_MAX_REQUESTS; i++)
		set->fd[i] = -1;
	return set;
}

CPC_EXPORT int
cpc_set_destroy(cpc_t *cpc, cpc_set_t *set)
{
	if (!set) {
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
	rq->preset = preset;
	rq->flags = flags;
	rq->nattrs = (int)nattrs;
	if (nattrs)
		memcpy(rq->attrs, attrs, nattrs * sizeof(*attrs));
	return set->nreq++;
}

CPC_EXPORT void
cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
		  void (*action)(void *arg, int index, const char *event,
				 uint64_t preset, uint_t flags, int nattrs,
				 const cpc_attr_t *attrs))
{
	for (int i = 0; set && i < set->nreq; i++)
		action(arg, i, set->req[i].event, set->req[i].preset,
		       set->req[i].flags, set->req[i].nattrs,
		       set->req[i].attrs);
}

/* ---- buffers -------------------------------------------------------------- */

CPC_EXPORT cpc_buf_t *
cpc_buf_create(cpc_t *cpc, cpc_set_t *set)
{
	cpc_buf_t *buf;

	if (!set) {
		errno = EINVAL;
		return NULL;
	}
	buf = calloc(1, sizeof(*buf));
	if (buf)
		buf->nreq = set->nreq;
	return buf;
}

CPC_EXPORT int
cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf)
{
	free(buf);
	return 0;
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

CPC_EXPORT hrtime_t
cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf)
{
	return buf->hrt;
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
	ds->hrt = a->hrt;
	ds->tick = a->tick - b->tick;
}

CPC_EXPORT void
cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b)
{
	int n = a->nreq < b->nreq ? a->nreq : b->nreq;

	ds->nreq = n;
	for (int i = 0; i < n; i++)
		ds->val[i] = a->val[i] + b->val[i];
	ds->hrt = a->hrt > b->hrt ? a->hrt : b->hrt;
	ds->tick = a->tick + b->tick;
}

CPC_EXPORT void
cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src)
{
	*ds = *src;
}

CPC_EXPORT void
cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf)
{
	int n = buf->nreq;

	memset(buf, 0, sizeof(*buf));
	buf->nreq = n;
}

/* ---- overflow ------------------------------------------------------------- */

/*
 * Every counter of the set, one by one: system calls only.  Enabling goes
 * from the last counter to the first, so that a group's members are on
 * before its leader: a member enabled after its leader is already running
 * is left idle by the kernel (seen with software events on Linux 6.18:
 * page-faults under a task-clock leader then stays at 0).
 */
static void
ioctl_all(cpc_set_t *set, unsigned long req)
{
	for (int k = 0; k < set->nreq; k++) {
		int i = req == PERF_EVENT_IOC_ENABLE ? set->nreq - 1 - k : k;

		if (set->fd[i] >= 0)
			ioctl(set->fd[i], req, 0);
	}
}

/* step 2 of the protocol; only async-signal-safe calls */
static void
on_overflow(const struct pctr_overflow_info *ovf, void *arg)
{
	cpc_set_t *set = arg;
	sigset_t emt;
	siginfo_t info;
	int saved = errno;

	if (set != cpc__bound || ovf->event < 0 || ovf->event >= set->nreq)
		return;
	ioctl_all(set, PERF_EVENT_IOC_DISABLE);
	set->armed[ovf->event] = 0;
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
	syscall(SYS_rt_tgsigqueueinfo, getpid(), gettid(), SIGEMT, &info);
	errno = saved;
}

/* the period after which a counter preset to @preset overflows; 0: never */
static uint64_t
ovf_period(uint64_t preset)
{
	uint64_t period = -preset;

	return preset && period <= INT64_MAX ? period : 0;
}

static int
add_overflow(cpc_set_t *set, int idx)
{
	struct pctr_overflow o = {
		.size = sizeof(o),
		.period = set->period[idx],
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

static int
open_bound(cpc_set_t *set, uint_t flags)
{
	struct pctr_target tgt = { .type = PCTR_TARGET_THREAD };
	int r;

	if (flags & CPC_BIND_LWP_INHERIT)
		tgt.type = PCTR_TARGET_PROCESS;
	r = pctr_set_new(&set->ps, 0);
	for (int i = 0; r >= 0 && i < set->nreq; i++) {
		set->period[i] = set->req[i].flags & CPC_OVF_NOTIFY_EMT
					 ? ovf_period(set->req[i].preset)
					 : 0;
		r = pctr_set_add_event(set->ps, &set->req[i].ev);
		if (r >= 0 && set->period[i])
			r = add_overflow(set, i);
	}
	if (r >= 0)
		r = pctr_set_open(set->ps, &tgt);
	for (int i = 0; r >= 0 && i < set->nreq; i++) {
		set->fd[i] = r = pctr_set_fd(set->ps, i);
		set->armed[i] = 1; /* pctr_set_open() armed the one-shots */
	}
	if (r < 0) {
		pctr_set_free(set->ps);
		set->ps = NULL;
	}
	return r < 0 ? r : 0;
}

/* step 3: zero the counts, full periods, re-arm, start; syscalls only */
static int
start_bound(cpc_set_t *set)
{
	int r;

	ioctl_all(set, PERF_EVENT_IOC_DISABLE);
	r = pctr_set_reset(set->ps);
	for (int i = 0; r == 0 && i < set->nreq; i++) {
		uint64_t period = ovf_period(set->req[i].preset);

		if (!set->period[i])
			continue;
		if (!period)
			period = INT64_MAX; /* this preset does not overflow */
		set->period[i] = period;
		if (ioctl(set->fd[i], PERF_EVENT_IOC_PERIOD, &period) < 0)
			return -errno;
		if (!set->armed[i])
			r = pctr_overflow_rearm(set->ps, i);
		set->armed[i] = r == 0;
	}
	if (r < 0)
		return r;
	ioctl_all(set, PERF_EVENT_IOC_ENABLE);
	return 0;
}

static int
wants_overflow(const cpc_set_t *set)
{
	for (int i = 0; i < set->nreq; i++)
		if (set->req[i].flags & CPC_OVF_NOTIFY_EMT)
			return 1;
	return 0;
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
	if (set->ps && set->bind_flags != flags)
		cpc_unbind(cpc, set);
	if (!set->ps) {
		r = open_bound(set, flags);
		if (r < 0)
			return set_errno_from(r);
	}
	set->bind_flags = flags;
	set->tid = gettid();
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
	set->req[index].preset = preset;
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
	for (int i = 0; i < CPC_MAX_REQUESTS; i++)
		set->fd[i] = -1;
	return 0;
}

CPC_EXPORT int
cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf)
{
	struct pctr_sample s;

	if (!set || !buf || !set->ps || set->tid != gettid() ||
	    buf->nreq < set->nreq) {
		errno = EINVAL;
		return -1;
	}
	if (pctr_set_read(set->ps, &s) < 0) {
		errno = EAGAIN;
		return -1;
	}
	buf->hrt = cpc__hrtime();
	buf->tick = s.tsc;
	for (int i = 0; i < set->nreq; i++)
		buf->val[i] = set->req[i].preset + s.count[i].value;
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
