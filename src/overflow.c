/* SPDX-License-Identifier: MIT */
/*
 * overflow.c - notifying the program when a counter overflows.
 *
 * Each notified counter has a small ring buffer in which the kernel writes
 * one record per overflow (IP, pid/tid, time, period) and asks for a
 * wakeup after every record (wakeup_events = 1).  The fd is set up for
 * signal-driven I/O: O_ASYNC, F_SETSIG to the chosen signal (so that
 * siginfo carries si_fd), and F_SETOWN_EX/F_OWNER_TID to the thread the
 * counter belongs to, so that the signal interrupts that thread.
 *
 * Counters inherited by threads created later have no fd of their own:
 * the kernel writes their records into the ring of the counter they were
 * inherited from and signals that counter's owner.  The record's tid says
 * which thread overflowed, and that is what the program is told.
 *
 * Signals of one kind merge while pending, so a handler drains every
 * record of the ring rather than assuming one record per signal.  The
 * handler finds the ring from si_fd through a registry of open sets; a
 * set leaving the registry waits for handlers still inside it to finish,
 * and so cannot be freed from one of them (pctr__overflow_busy()).
 *
 * Each ring numbers the notifications of every thread writing into it;
 * attr.task makes the kernel write a PERF_RECORD_EXIT there as each of
 * those threads exits, which gives the thread's slot back (ring.h).
 *
 * fork(): the child's copies of the descriptors share the parent's open
 * file descriptions (O_ASYNC, F_SETSIG, the owner thread) and counters,
 * and the rings are not mapped in the child (VM_DONTCOPY).  A copy in a
 * child (pctr__set_forked(): by fork(), _Fork() or clone()) is never used
 * to control anything: control calls return -ECHILD, the handler skips it, and freeing it only
 * closes the child's descriptors (release_open()).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h> /* client requests: no-ops natively */
#else
#define VALGRIND_DISABLE_ERROR_REPORTING ((void)0)
#define VALGRIND_ENABLE_ERROR_REPORTING ((void)0)
#endif

#define MAX_SETS 64
#define SIGNAL_RECORD_MAX 256 /* records of PCTR__OVF_SAMPLE_TYPE are 48 */

static struct pctr_set *_Atomic registry[MAX_SETS];
static atomic_int registry_users[MAX_SETS];

/* the library's handler, installed once per signal while sets use it */
static pthread_mutex_t sig_lock = PTHREAD_MUTEX_INITIALIZER;
static int sig_refs[_NSIG];
static struct sigaction sig_old[_NSIG];

/* @uo, of the caller's size, into @o, and checked */
static int
check_overflow(const struct pctr_overflow *uo, struct pctr_overflow *o,
	       uint64_t *period)
{
	unsigned int known = PCTR_OVF_ONESHOT | PCTR_OVF_FREQ;
	int r = pctr__struct_in(&PCTR__SIZED(pctr_overflow,
					     PCTR_OVERFLOW_SIZE_VER0),
				o, uo);

	if (r < 0)
		return r;
	if (o->flags & ~known)
		return pctr__error(EINVAL, "unknown overflow flags 0x%x",
				   o->flags & ~known);
	if (!!o->period == !!o->preset)
		return pctr__error(EINVAL, "give either a period or a preset "
					   "(period %llu, preset %#llx)",
				   (unsigned long long)o->period,
				   (unsigned long long)o->preset);
	if (o->preset && (o->flags & PCTR_OVF_FREQ))
		return pctr__error(EINVAL, "a preset is a count, not a rate: "
					   "drop PCTR_OVF_FREQ");
	*period = o->period ? o->period : 0 - o->preset;
	if (*period == 0 || *period >> 63)
		return pctr__error(EINVAL, "an overflow period of %llu (preset "
					   "%#llx): it must be 1 .. 2^63 - 1, "
					   "so a preset above 2^63",
				   (unsigned long long)*period,
				   (unsigned long long)o->preset);
	if (o->signo < 0 || o->signo >= _NSIG || o->signo == SIGKILL ||
	    o->signo == SIGSTOP)
		return pctr__error(EINVAL, "signal %d cannot carry overflow "
					   "notifications",
				   o->signo);
	return 0;
}

PCTR_EXPORT int
pctr_set_overflow(struct pctr_set *set, int idx,
		  const struct pctr_overflow *uo)
{
	struct pctr_overflow full, *o = &full;
	struct perf_event_attr *attr;
	struct pctr__ovf_event *ev;
	uint64_t period = 0;
	int r;

	r = pctr__ovf_check_event(set, idx, "set an overflow");
	if (r < 0 || (r = check_overflow(uo, o, &period)) < 0)
		return r;
	attr = &set->attr[idx].a;
	r = pctr__ovf_set_period(attr, period, !!(o->flags & PCTR_OVF_FREQ));
	if (r < 0)
		return r;
	attr->sample_type = PCTR__OVF_SAMPLE_TYPE |
			    pctr__period_sample_type(&set->ev[idx], attr);
	attr->watermark = 0;
	attr->wakeup_events = 1;
	attr->task = 1; /* exit records free the threads' slots */
	r = pctr__ovf_probe(set, idx);
	if (r < 0)
		return r;
	ev = &set->ovf->ev[idx];
	ev->mode = PCTR__MODE_SIGNAL;
	ev->flags = o->flags;
	pctr__fixed_period_init(ev, attr);
	ev->signo = o->signo ? o->signo : SIGIO;
	ev->fn = o->fn;
	ev->arg = o->arg;
	ev->pages = 1;
	return 0;
}

/* ---- delivery ----------------------------------------------------------- */

/* the caller's array: elements of @stride bytes (its info[0].size) */
struct fill_ctx {
	unsigned char *info;
	size_t stride;
	size_t copy; /* bytes of each element filled: min(stride, sizeof) */
	int max;
	int n;
};

struct horizon_ctx {
	struct pctr_set *set;
	struct pctr__ring *ring;
};

/*
 * The time up to which every ring sharing @ring's thread table has been
 * read: the time of the last record read from a ring that holds more,
 * the earliest such.  Records of one ring are in time order (one CPU
 * writes it).  *@lost: whether records of the event were lost.
 */
static uint64_t
horizon(void *arg, bool *lost)
{
	struct horizon_ctx *h = arg;
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *x;
	uint64_t t = UINT64_MAX;

	*lost = atomic_load(&h->set->ovf->ev[h->ring->event].lost) > 0;
	while ((x = pctr__ring_next(h->set, &at))) {
		uint64_t last;

		if (!x->pc || x->shared || x->tab != h->ring->tab)
			continue;
		last = atomic_load(&x->last_time);
		if ((x == h->ring ||
		     __atomic_load_n(&x->pc->data_head, __ATOMIC_ACQUIRE) !=
			     x->pc->data_tail) &&
		    last < t)
			t = last;
	}
	return t;
}

static void
make_info(struct pctr_set *set, struct pctr__ring *ring,
	  const struct pctr__sample *r, struct pctr_overflow_info *info)
{
	struct horizon_ctx h = { set, ring };
	struct pctr__tid_slot *s;

	atomic_store(&ring->last_time, r->time);
	pctr__tids_lock(ring);
	s = pctr__tid_slot(ring->tab->tids, (pid_t)r->pid, (pid_t)r->tid,
			   r->time, horizon, &h);

	*info = (struct pctr_overflow_info){ .size = sizeof(*info),
					     .event = ring->event,
					     .instance = ring->pub,
					     .tid = (pid_t)r->tid,
					     .ip = r->ip,
					     .period = r->period,
					     .time = r->time };
	if (s) {
		s->seq++;
		s->count += r->period;
		info->seq = s->seq;
		info->count = s->count;
	}
	pctr__tids_unlock(ring);
}

/* decode: fill the caller's array, stop when it is full */
static int
fill_one(struct pctr_set *set, struct pctr__ring *ring,
	 const struct perf_event_header *h, void *arg)
{
	struct fill_ctx *ctx = arg;
	struct pctr_overflow_info info;
	struct pctr__sample r;

	if (pctr__ring_parse(set->ovf, ring, h, &r) < 0)
		return 0;
	make_info(set, ring, &r, &info);
	info.size = ctx->copy;
	memcpy(ctx->info + (size_t)ctx->n++ * ctx->stride, &info, ctx->copy);
	atomic_fetch_add(&set->ovf->ev[ring->event].notified, 1);
	return ctx->n == ctx->max;
}

/* decode: whether the caller's array has room for another record */
static int
fill_room(void *arg)
{
	const struct fill_ctx *ctx = arg;

	return ctx->n < ctx->max;
}

/* whether counter @ctr of instance @in leads its group */
static bool
is_leader(const struct pctr__inst *in, const struct pctr__ctr *ctr)
{
	return in->groups[ctr->group].leader_fd == ctr->fd;
}

/*
 * A callback's counter, which the kernel stopped at its overflow
 * (pctr__ovf_event.rearm), counts again once the callback returned, for
 * one more overflow (PERF_EVENT_IOC_REFRESH): unless the program stopped
 * the set meanwhile, or a start re-armed it already (pctr_set_enable(),
 * pctr_set_overflow_restart() from the callback: rearm_due()).  Its
 * overflow number @taken marks it armed.  A stop in another thread that
 * came between the check and the refresh is redone here: the stop's flag
 * is set before its own ioctls, so one of the two stops it last.
 */
static void
rearm(struct pctr_set *set, struct pctr__ring *ring, uint64_t taken)
{
	struct pctr__overflow *o = set->ovf;
	uint64_t was = taken - 1;

	if (!atomic_load(&o->counting) ||
	    !atomic_compare_exchange_strong(&ring->armed, &was, taken) ||
	    !pctr__ctr_owned(ring->ctr))
		return;
	pctr__sys_ioctl(ring->fd, PERF_EVENT_IOC_REFRESH, 1);
	if (!atomic_load(&o->counting))
		pctr__sys_ioctl(ring->fd, PERF_EVENT_IOC_DISABLE, 0);
}

/*
 * Whether a start must REFRESH the counter of @ring rather than merely
 * enable it: a callback's counter that overflowed since it was last
 * armed, which the kernel stopped there (its record may still be waiting
 * for the handler).  A start that says so re-arms it: rearm() then leaves
 * it alone, or the counter would be let through two overflows.
 */
static bool
rearm_due(struct pctr__ring *ring)
{
	uint64_t seen;

	if (!ring->pc || !ring->rearm)
		return false;
	seen = atomic_load(&ring->taken) +
	       (__atomic_load_n(&ring->pc->data_head, __ATOMIC_ACQUIRE) !=
		__atomic_load_n(&ring->pc->data_tail, __ATOMIC_ACQUIRE));
	return atomic_exchange(&ring->armed, seen) != seen;
}

/*
 * The library's handler: call the event's callback.  A paused event
 * stopped at each overflow drops it here (the kernel's pause would drop
 * the record that re-arms it, and it would never count again).
 */
static int
call_one(struct pctr_set *set, struct pctr__ring *ring,
	 const struct perf_event_header *h, void *arg)
{
	struct pctr__ovf_event *ev = &set->ovf->ev[ring->event];
	struct pctr_overflow_info info;
	struct pctr__sample r;
	uint64_t taken = 0;

	if (pctr__ring_parse(set->ovf, ring, h, &r) < 0)
		return 0;
	if (ring->rearm)
		taken = atomic_fetch_add(&ring->taken, 1) + 1;
	if (ring->rearm && atomic_load(&ev->paused)) {
		atomic_fetch_add(&ev->lost, 1);
	} else {
		make_info(set, ring, &r, &info);
		atomic_fetch_add(&ev->notified, 1);
		ev->fn(&info, ev->arg);
	}
	if (ring->rearm)
		rearm(set, ring, taken);
	return 0;
}

static struct pctr__ring *
find_ring(struct pctr_set *set, int fd)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;

	while ((ring = pctr__ring_next(set, &at))) {
		if (ring->pc && ring->fd == fd &&
		    set->ovf->ev[ring->event].mode == PCTR__MODE_SIGNAL)
			return ring->shared ? ring->shared : ring;
	}
	return NULL;
}

/*
 * Signals of one kind to one thread merge while pending, across rings
 * too: a ring whose signal came while another ring's was pending on the
 * same thread is named by no si_fd, and its records would wait for its
 * next signal, which may never come (a process set has a ring per thread
 * and CPU, several of them signalling its main thread: a thread's last
 * notifications stayed in one).  So after the ring of si_fd, the handler
 * drains every other ring of the set that signals this thread with this
 * signal and has records, while @room (NULL: always) says there is room.
 */
static int
drain_merged(struct pctr_set *set, const struct pctr__ring *done, int signo,
	     unsigned char *buf, pctr__rec_fn fn, void *arg,
	     int (*room)(void *))
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *r;
	pid_t self = 0;
	int n = 0;

	while ((!room || room(arg)) && (r = pctr__ring_next(set, &at))) {
		struct pctr__ring *rd = r->shared ? r->shared : r;
		const struct pctr__ovf_event *ev = &set->ovf->ev[r->event];

		if (!r->pc || rd == done || ev->mode != PCTR__MODE_SIGNAL ||
		    ev->signo != signo ||
		    __atomic_load_n(&rd->pc->data_head, __ATOMIC_ACQUIRE) ==
			    rd->pc->data_tail)
			continue;
		if (!self)
			self = gettid();
		if (set->inst[at.i].id == self)
			n += pctr__ring_drain(set, rd, buf, SIGNAL_RECORD_MAX,
					      fn, arg);
	}
	return n;
}

/*
 * Find the set and ring behind a signal's si_fd and drain it with @fn,
 * and the rings whose signals merged with it (drain_merged()).  Return the
 * number of records, or -1 if no open set owns that fd.
 */
static int
dispatch(const siginfo_t *si, pctr__rec_fn fn, void *arg,
	 int (*room)(void *))
{
	unsigned char buf[SIGNAL_RECORD_MAX];
	int n = -1;

	if (si->si_code != POLL_IN && si->si_code != POLL_HUP)
		return -1;
	for (int i = 0; i < MAX_SETS && n < 0; i++) {
		struct pctr_set *set;
		struct pctr__ring *ring;

		atomic_fetch_add(&registry_users[i], 1);
		set = atomic_load(&registry[i]);
		ring = set ? find_ring(set, si->si_fd) : NULL;
		/* a forked child's copy has no rings mapped */
		if (ring && pctr__set_forked(set))
			ring = NULL;
		if (ring)
			n = pctr__ring_drain(set, ring, buf, sizeof(buf), fn,
					     arg);
		if (ring && (!room || room(arg)))
			n += drain_merged(set, ring, si->si_signo, buf, fn, arg,
					  room);
		atomic_fetch_sub(&registry_users[i], 1);
	}
	return n;
}

static void
chain(int sig, siginfo_t *si, void *uc)
{
	const struct sigaction *old = &sig_old[sig];

	if (old->sa_flags & SA_SIGINFO)
		old->sa_sigaction(sig, si, uc);
	else if (old->sa_handler != SIG_DFL && old->sa_handler != SIG_IGN)
		old->sa_handler(sig);
}

static void
handler(int sig, siginfo_t *si, void *uc)
{
	int saved = errno;

	if (dispatch(si, call_one, NULL, NULL) < 0)
		chain(sig, si, uc);
	errno = saved;
}

PCTR_EXPORT int
pctr_overflow_decode(const siginfo_t *si, struct pctr_overflow_info *info,
		     int max)
{
	/* no name: async-signal-safe, so no detail for pctr_strerror() */
	static const struct pctr__sized t = {
		NULL, PCTR_OVERFLOW_INFO_SIZE_VER0,
		sizeof(struct pctr_overflow_info)
	};
	struct fill_ctx ctx = { (unsigned char *)info, 0, 0, max, 0 };
	int r;

	if (!si || !info || max <= 0)
		return -EINVAL;
	r = pctr__struct_check(&t, info);
	if (r < 0)
		return r;
	ctx.copy = (size_t)r;
	ctx.stride = info->size;
	return dispatch(si, fill_one, &ctx, fill_room) < 0 ? 0 : ctx.n;
}

/* ---- opening and closing ------------------------------------------------ */

static int
hold_handler(int sig)
{
	struct sigaction sa = { .sa_sigaction = handler,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	int r = 0;

	pthread_mutex_lock(&sig_lock);
	if (sig_refs[sig] == 0 && sigaction(sig, &sa, &sig_old[sig]) < 0)
		r = pctr__error(errno, "cannot handle signal %d: %s", sig,
				strerror(errno));
	if (r == 0)
		sig_refs[sig]++;
	pthread_mutex_unlock(&sig_lock);
	return r;
}

/*
 * The last set using @sig gives the program its old action back, if the
 * library's handler is still the one installed: an action the program set
 * after the open is the program's, and stays.  A notification the kernel
 * queued before the descriptors stopped signalling may still be pending
 * (valgrind, for one, delivers late); under the default action of SIGIO
 * it would kill the program.  Setting SIG_IGN discards a pending signal
 * (POSIX; the kernel flushes the process's and every thread's queue), so
 * a default action is restored through it.
 */
static void
release_handler(int sig)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, now;

	pthread_mutex_lock(&sig_lock);
	if (--sig_refs[sig] == 0 && sigaction(sig, NULL, &now) == 0 &&
	    (now.sa_flags & SA_SIGINFO) && now.sa_sigaction == handler) {
		if (sig_old[sig].sa_handler == SIG_DFL &&
		    !(sig_old[sig].sa_flags & SA_SIGINFO))
			sigaction(sig, &ign, NULL);
		sigaction(sig, &sig_old[sig], NULL);
	}
	pthread_mutex_unlock(&sig_lock);
}

/* signals are delivered to threads of this process only */
static int
check_target(const struct pctr_set *set, const struct pctr__ovf_event *ev,
	     const struct pctr_event *e)
{
	char path[64];
	struct stat st;

	if (pctr__set_on_cpus(set))
		return pctr__error(EOPNOTSUPP, "overflow signals of '%s' need "
					       "a thread of this process to "
					       "go to, not a CPU: sample CPUs "
					       "and cgroups with "
					       "pctr_set_sampling()",
				   e->name);
	for (int i = 0; i < set->nr_inst; i++) {
		snprintf(path, sizeof(path), "/proc/self/task/%d",
			 set->inst[i].id);
		if (stat(path, &st) < 0)
			return pctr__error(EOPNOTSUPP,
					   "overflow signals of '%s' can only "
					   "go to threads of this process, and "
					   "%d is not one: sample other "
					   "processes with pctr_set_sampling()",
					   e->name, set->inst[i].id);
	}
	if ((ev->flags & PCTR_OVF_ONESHOT) &&
	    (set->target == PCTR_TARGET_PROCESS ||
	     set->target == PCTR_TARGET_PID))
		return pctr__error(EOPNOTSUPP, "PCTR_OVF_ONESHOT on '%s' needs "
					       "counters of their own, and the "
					       "kernel cannot re-arm counters "
					       "inherited by new threads: use "
					       "PCTR_TARGET_THREAD or _TID",
				   e->name);
	return 0;
}

static int
async_setup(struct pctr__ring *ring, int signo, pid_t tid)
{
	struct f_owner_ex owner = { .type = F_OWNER_TID, .pid = tid };
	int fl = fcntl(ring->fd, F_GETFL);

	if (fl < 0 || fcntl(ring->fd, F_SETSIG, signo) < 0 ||
	    fcntl(ring->fd, F_SETOWN_EX, &owner) < 0 ||
	    fcntl(ring->fd, F_SETFL, fl | O_ASYNC) < 0)
		return pctr__error(errno, "cannot route overflow signals to "
					   "thread %d: %s",
				   (int)tid, strerror(errno));
	return 0;
}

/*
 * Arm a one-shot counter: PERF_EVENT_IOC_REFRESH lets it overflow once
 * more, after which the kernel disables it.  REFRESH also enables it; a
 * group leader must stay stopped until pctr_set_enable(), so it is stopped
 * again at once and the few events counted meanwhile are reset: RESET
 * clears the count, and PERF_EVENT_IOC_PERIOD the period's progress
 * (without it the first overflow would come that many events early).
 * While it runs there, a leader's period is the longest the kernel takes:
 * with its own, a short one (task-clock at 1 us: the kernel's 10 us
 * timer), the overflow could come before the stop, notifying the program
 * of a set not yet open and spending the one overflow REFRESH allows, so
 * that pctr_set_enable() would start it without a limit.
 */
static int
arm_oneshot(struct pctr_set *set, const struct pctr__inst *in,
	    const struct pctr__ctr *ctr)
{
	uint64_t period = set->attr[ctr->event].a.sample_period;
	uint64_t never = INT64_MAX;
	bool leader = is_leader(in, ctr);
	int r = 0;

	/*
	 * x86 refuses a change of period that turns its branch-trace store
	 * on or off (branches at period 1): that counter is armed with its
	 * own period, as before.
	 */
	if (leader)
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_PERIOD,
				    (unsigned long)&never);
	if (r == -EINVAL)
		r = 0;
	if (r == 0)
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_REFRESH, 1);
	if (r == 0 && leader)
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_DISABLE, 0);
	if (r == 0 && leader)
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_RESET, 0);
	if (r == 0 && leader)
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_PERIOD,
				    (unsigned long)&period);
	return r < 0 ? pctr__error(-r, "cannot arm a one-shot overflow: %s",
				   strerror(-r))
		     : 0;
}

/*
 * Whether event @e's counter stops at each overflow until its callback
 * returned (struct pctr__ring's rearm).  A counter counts on while the
 * signal is delivered and the callback runs.  The kernel's interrupt
 * limit (kernel.perf_event_max_sample_rate, per tick) stops a hardware
 * counter that overflows faster than that, so the thread goes on; but the
 * two clocks overflow from a timer that fires every 10 us at the
 * shortest, which that limit allows, and where delivering and handling a
 * notification takes longer than the period (task-clock at 1 ns or 1 us)
 * the next overflow was due before the handler returned: the thread did
 * nothing else, and 2 ms of work was not done in 50 s.  Below 100 us,
 * the kernel stops a clock at each overflow as it does for
 * PCTR_OVF_ONESHOT, and the handler lets it count again after the
 * callback (rearm()): a whole period of the thread's own between two
 * notifications, the notification's cost not counted.  Only a group's
 * leader (open_signal_ring()): it stops its group with it, whose counts
 * then all leave the notification out, and a member refreshed while its
 * leader runs may never count again
 * (tests/repro/repro_member_enable_after_leader).  Longer periods count
 * on, so that a notification held back (a blocked signal, or valgrind,
 * which delivers late) stops nothing.  Only a callback's: a program that
 * takes the signal itself says when it is done with nothing.  Only the
 * thread's own counters: the kernel cannot re-arm counters inherited by
 * new threads.  Not at a frequency, which the kernel adapts.
 */
#define STOP_BELOW_NS 100000 /* 100 us */

static bool
stops_at_overflow(const struct pctr_set *set, int e)
{
	const struct pctr__ovf_event *ev = &set->ovf->ev[e];
	const struct perf_event_attr *a = &set->attr[e].a;

	return ev->mode == PCTR__MODE_SIGNAL && ev->fn &&
	       !(ev->flags & PCTR_OVF_ONESHOT) && !a->freq && !set->inherit &&
	       pctr__attr_clock(a) && a->sample_period < STOP_BELOW_NS;
}

/* counter @k of instance @in, whose ring is mapped */
static int
open_signal_ring(struct pctr_set *set, const struct pctr__inst *in, int k)
{
	struct pctr__ring *ring = &in->ring[k];
	struct pctr__ovf_event *ev = &set->ovf->ev[ring->event];
	int r;

	/* a set spread over CPUs: the first instance's table for all */
	ring->tab = set->spread ? &set->inst[0].ring[k] : ring;
	if (ring->tab == ring) {
		ring->tids = calloc(PCTR__TID_SLOTS, sizeof(*ring->tids));
		atomic_flag_clear(&ring->tids_lock);
	}
	if (!ring->tab->tids)
		return pctr__error(ENOMEM, "out of memory");
	r = async_setup(ring, ev->signo, in->id);
	ring->rearm = stops_at_overflow(set, ring->event) &&
		      is_leader(in, ring->ctr);
	if (r == 0 && ((ev->flags & PCTR_OVF_ONESHOT) || ring->rearm))
		r = arm_oneshot(set, in, ring->ctr);
	return r;
}

static int
hold_handlers(struct pctr_set *set)
{
	struct pctr__overflow *o = set->ovf;

	for (int e = 0; e < set->nr_events; e++) {
		int sig = o->ev[e].signo, r, seen = 0;

		if (o->ev[e].mode != PCTR__MODE_SIGNAL || !o->ev[e].fn)
			continue;
		for (int k = 0; k < o->nr_handlers; k++)
			seen |= o->handlers[k] == sig;
		if (seen)
			continue;
		r = hold_handler(sig);
		if (r < 0)
			return r;
		o->handlers[o->nr_handlers++] = sig;
	}
	return 0;
}

static int
register_set(struct pctr_set *set)
{
	for (int i = 0; i < MAX_SETS; i++) {
		struct pctr_set *none = NULL;

		if (atomic_compare_exchange_strong(&registry[i], &none, set)) {
			set->ovf->slot = i;
			return 0;
		}
	}
	return pctr__error(EMFILE, "at most %d sets can have overflow "
				   "notification at once",
			   MAX_SETS);
}

static int
check_targets(struct pctr_set *set)
{
	for (int e = 0; e < set->nr_events; e++) {
		const struct pctr__ovf_event *ev = &set->ovf->ev[e];
		int r;

		if (ev->mode != PCTR__MODE_SIGNAL)
			continue;
		r = check_target(set, ev, &set->ev[e]);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A signal-mode ring holds the records between two signals: one page for
 * a counter's own (pctr_set_overflow()).  A set spread over CPUs has one
 * ring per CPU for all the threads that run there, whose signals go to
 * the threads that opened it, so eight: 36 KiB per CPU and counter, well
 * within kernel.perf_event_mlock_kb, which is per CPU.
 */
static unsigned int
ring_pages(const struct pctr_set *set, const struct pctr__ovf_event *ev)
{
	if (set->spread && ev->mode == PCTR__MODE_SIGNAL && ev->pages < 8)
		return 8;
	return ev->pages;
}

/* instance @i's rings; *@signals: whether one of them signals */
static int
open_inst_rings(struct pctr_set *set, int i, bool *signals)
{
	struct pctr__overflow *o = set->ovf;
	struct pctr__inst *in = &set->inst[i];
	int r = 0;

	in->ring = calloc(set->nr_ctr, sizeof(*in->ring));
	if (!in->ring)
		return pctr__error(ENOMEM, "out of memory");
	for (int k = 0; k < set->nr_ctr && r == 0; k++) {
		struct pctr__ovf_event *ev = &o->ev[in->ctr[k].event];

		if (ev->mode == PCTR__MODE_NONE)
			continue;
		in->ring[k].pub = pctr__inst_public(set, i);
		r = pctr__ring_map(set, i, k, ring_pages(set, ev));
		*signals |= ev->mode == PCTR__MODE_SIGNAL;
		if (r == 0 && ev->mode == PCTR__MODE_BUFFER && !o->scratch &&
		    !(o->scratch = malloc(PCTR__RECORD_MAX)))
			r = pctr__error(ENOMEM, "out of memory");
	}
	return r;
}

static int
open_rings(struct pctr_set *set)
{
	bool signals = false;
	int r = 0;

	for (int i = 0; i < set->nr_inst && r == 0; i++)
		r = open_inst_rings(set, i, &signals);
	if (r == 0 && signals)
		r = register_set(set);
	for (int i = 0; i < set->nr_inst && r == 0; i++) {
		const struct pctr__inst *in = &set->inst[i];

		for (int k = 0; k < set->nr_ctr && r == 0; k++)
			if (in->ring[k].pc &&
			    set->ovf->ev[in->ring[k].event].mode ==
				    PCTR__MODE_SIGNAL)
				r = open_signal_ring(set, in, k);
	}
	return r;
}

int
pctr__overflow_open(struct pctr_set *set)
{
	int r;

	if (!set->ovf)
		return 0;
	atomic_store(&set->ovf->counting, false);
	r = check_targets(set);
	if (r == 0)
		r = hold_handlers(set);
	if (r == 0)
		r = open_rings(set);
	return r;
}

/*
 * Let go of what an open made: the registry slot (waiting for handlers
 * still inside the set), the rings, the signal handlers.  The results are
 * reset; the configuration stays.
 *
 * A forked child's copy shares its counters' open file descriptions with
 * the parent: their flags, signal routing and state are the parent's, so
 * the child changes none of them (no fcntl, no ioctl) and only closes its
 * own descriptors.  It has no ring mapped (VM_DONTCOPY) and unmaps
 * nothing, and it does not wait for handlers: the registry's counts of
 * them were copied from the parent's other threads, which the child does
 * not have.
 */
static void
release_open(struct pctr_set *set)
{
	struct pctr__overflow *o = set->ovf;
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	bool forked = pctr__set_forked(set);

	if (o->slot >= 0) {
		atomic_store(&registry[o->slot], NULL);
		while (!forked && atomic_load(&registry_users[o->slot]))
			sched_yield();
		o->slot = -1;
	}
	while ((ring = pctr__ring_next(set, &at))) {
		/* no more signals from this fd, whatever becomes of it */
		if (ring->tab && !forked && pctr__ctr_owned(ring->ctr))
			fcntl(ring->fd, F_SETFL, 0);
		pctr__ring_unmap(ring, forked);
		free(ring->tids);
	}
	for (int k = 0; k < o->nr_handlers; k++)
		release_handler(o->handlers[k]);
	o->nr_handlers = 0;
	for (int i = 0; i < set->nr_inst; i++) {
		free(set->inst[i].ring);
		set->inst[i].ring = NULL;
	}
	free(o->scratch);
	o->scratch = NULL;
	for (int e = 0; e < set->nr_events; e++) {
		atomic_store(&o->ev[e].paused, false);
		atomic_store(&o->ev[e].notified, 0);
		atomic_store(&o->ev[e].lost, 0);
	}
}

/*
 * set.c's close_all() calls this in two cases.  An open that failed
 * (open_on(): the set is not open, its instances are still counted) keeps
 * the configuration, so that the program can open the set again, on
 * another target for instance.  Otherwise the set is being freed, and the
 * configuration goes with it.  A set is never closed and kept: once open,
 * it stays open until pctr_set_free().
 */
void
pctr__overflow_close(struct pctr_set *set)
{
	struct pctr__overflow *o = set->ovf;

	if (!o)
		return;
	release_open(set);
	if (!set->open && set->nr_inst > 0)
		return;
	for (int e = 0; e < set->nr_events; e++) {
		if (o->ev[e].mode == PCTR__MODE_NONE)
			continue;
		set->attr[e].a.sample_period = 0;
		set->attr[e].a.sample_type = 0;
		set->attr[e].a.freq = 0;
		set->attr[e].a.wakeup_events = 0;
		set->attr[e].a.watermark = 0;
		set->attr[e].a.task = 0;
	}
	free(o);
	set->ovf = NULL;
}

/* ---- control ------------------------------------------------------------ */

static int
check_control(const struct pctr_set *set, int idx, bool async_safe)
{
	if (!set || !set->ovf)
		return async_safe ? -EINVAL
				  : pctr__error(EINVAL, "NULL set, or no event "
							"of it has overflow "
							"notification");
	if (!set->open)
		return async_safe ? -EBADFD
				  : pctr__error(EBADFD, "the set is not open");
	if (pctr__set_forked(set))
		return async_safe ? -ECHILD
				  : pctr__error(ECHILD, "the set was opened "
							"before fork(): its "
							"notifications are the "
							"parent's, which a "
							"child cannot pause or "
							"resume");
	if (idx < -1 || idx >= set->nr_events)
		return async_safe ? -ERANGE
				  : pctr__error(ERANGE, "event %d out of "
							"range",
						idx);
	return 0;
}

/*
 * PAUSE_OUTPUT keeps counting and drops the records (counted as lost).
 * The kernel takes its argument as a value, 0 or 1, while the request's
 * number (_IOW, __u32) says pointer: valgrind, which knows ioctls by their
 * number, would read 4 bytes at address 0 or 1 and report an error that
 * is not one.  Its reports are off for that call only.
 */
static int
pause_ioctl(int fd, unsigned long on)
{
	int r;

	VALGRIND_DISABLE_ERROR_REPORTING;
	r = pctr__sys_ioctl(fd, PERF_EVENT_IOC_PAUSE_OUTPUT, on);
	VALGRIND_ENABLE_ERROR_REPORTING;
	return r;
}

/*
 * The rings a control of event @idx (-1: all) acts on: the pause's and
 * the resume's, or with @oneshot the rearm's.
 */
static bool
controlled(const struct pctr_set *set, const struct pctr__ring *ring, int idx,
	   bool oneshot)
{
	return ring->pc && (idx < 0 || ring->event == idx) &&
	       (!oneshot ||
		(set->ovf->ev[ring->event].flags & PCTR_OVF_ONESHOT));
}

/*
 * Their counters are still the library's (pctr__ctr_check()), every one
 * checked before the first acts, so that a refused control changes
 * nothing of the program's.  @async_safe: -EBADF without a text.
 */
static int
controlled_ours(const struct pctr_set *set, int idx, bool oneshot,
		bool async_safe)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;

	while ((ring = pctr__ring_next(set, &at))) {
		int r;

		if (!controlled(set, ring, idx, oneshot))
			continue;
		if (async_safe && !pctr__ctr_owned(ring->ctr))
			return -EBADF;
		if (!async_safe && (r = pctr__ctr_check(ring->ctr)) < 0)
			return r;
	}
	return 0;
}

static int
pause_output(struct pctr_set *set, int idx, unsigned long on)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	int r = check_control(set, idx, false);

	if (r == 0)
		r = controlled_ours(set, idx, false, false);
	while (r == 0 && (ring = pctr__ring_next(set, &at))) {
		if (!controlled(set, ring, idx, false))
			continue;
		/* call_one() drops them: the kernel's pause would stop it */
		if (!ring->rearm)
			r = pause_ioctl(ring->fd, on);
		if (r < 0)
			return pctr__error(-r, "cannot %s notifications: %s",
					   on ? "pause" : "resume",
					   strerror(-r));
		atomic_store(&set->ovf->ev[ring->event].paused, !!on);
	}
	return r;
}

PCTR_EXPORT int
pctr_set_overflow_pause(struct pctr_set *set, int idx)
{
	return pause_output(set, idx, 1);
}

PCTR_EXPORT int
pctr_set_overflow_resume(struct pctr_set *set, int idx)
{
	return pause_output(set, idx, 0);
}

PCTR_EXPORT int
pctr_set_overflow_rearm(struct pctr_set *set, int idx)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;
	int r = check_control(set, idx, true);

	if (r == 0)
		r = controlled_ours(set, idx, true, true);
	while (r == 0 && (ring = pctr__ring_next(set, &at))) {
		if (controlled(set, ring, idx, true))
			r = pctr__sys_ioctl(ring->fd, PERF_EVENT_IOC_REFRESH,
					    1);
	}
	return r;
}

/*
 * Refuse to free a set from inside a callback that is reading one of its
 * rings (an overflow callback in the library's signal handler, or a
 * pctr_set_sampling_read() callback): release_open() would wait for that
 * handler to finish, which is the caller itself, and the rings being read
 * would be freed under the reader.  Async-signal-safe, so the error has no
 * detail of its own; pctr_strerror()'s general text for EDEADLK says it.
 */
int
pctr__overflow_busy(const struct pctr_set *set)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;
	pid_t self = 0;

	while (set->ovf && (ring = pctr__ring_next(set, &at))) {
		if (!self)
			self = gettid();
		if (atomic_load(&ring->reader) == self)
			return -EDEADLK; /* async-signal-safe: no detail */
	}
	return 0;
}

/*
 * The records of event @e the kernel dropped: what its lost-records notes
 * said, or the count of the event's counters where the kernel keeps one
 * (PERF_FORMAT_LOST, Linux 6.0) and it is more.  A note comes only with
 * the next record the kernel writes once there is room, so none follows
 * the losses of a ring that filled before the set stopped; the count
 * leaves out the copies of a counter inherited by other threads, whose
 * notes go into the same rings.
 */
static uint64_t
event_lost(const struct pctr_set *set, int e)
{
	uint64_t noted = atomic_load(&set->ovf->ev[e].lost), sum = 0, one;
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;

	while (set->read_lost && (ring = pctr__ring_next(set, &at)))
		if (ring->pc && ring->event == e &&
		    pctr__ctr_lost(set, ring->ctr, &one) == 0)
			sum += one;
	return sum > noted ? sum : noted;
}

PCTR_EXPORT int
pctr_set_overflow_stats(const struct pctr_set *set, int idx,
		    struct pctr_overflow_stats *st)
{
	struct pctr_overflow_stats full = { .size = sizeof(full) };
	const struct pctr__sized t = PCTR__SIZED(pctr_overflow_stats,
						 PCTR_OVERFLOW_STATS_SIZE_VER0);
	int r = pctr__struct_check(&t, st);

	if (r < 0)
		return r;
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (idx < -1 || idx >= set->nr_events)
		return pctr__error(ERANGE, "event %d out of range", idx);
	for (int e = 0; set->ovf && e < set->nr_events; e++) {
		if (idx >= 0 && e != idx)
			continue;
		full.notified += atomic_load(&set->ovf->ev[e].notified);
		full.lost += event_lost(set, e);
	}
	return pctr__struct_out(&t, st, &full);
}

/*
 * pctr_set_enable() of group @g of instance @i: a leader the kernel
 * stopped at an overflow (rearm_due()) is started by REFRESH, *@req,
 * rather than ENABLE: never both, or an overflow between the two would
 * leave it running without its limit (as in the restart, step 5).
 */
int
pctr__overflow_start(struct pctr_set *set, int i, int g, unsigned long *req)
{
	const struct pctr__inst *in = &set->inst[i];
	const struct pctr__group *grp = &in->groups[g];

	if (!set->ovf || !in->ring || !set->nr_ctr)
		return 0;
	atomic_store(&set->ovf->counting, true);
	for (int k = 0; k < set->nr_ctr; k++)
		if (in->ring[k].fd == grp->leader_fd && rearm_due(&in->ring[k]))
			*req = PERF_EVENT_IOC_REFRESH;
	return 0;
}

/* pctr_set_disable(), before its ioctls: the handler re-arms nothing */
void
pctr__overflow_stop(struct pctr_set *set)
{
	if (set->ovf)
		atomic_store(&set->ovf->counting, false);
}

/* ---- restart (libcpc's cpc_set_restart(), served by the core) ---------- */

/*
 * The restart protocol, on every instance of the set:
 *  1. stop: PERF_EVENT_IOC_DISABLE on every group leader.  A disabled
 *     leader takes its whole group off the PMU; the members stay enabled,
 *     so they count again as soon as their leader does (a member disabled
 *     and enabled after its running leader is left idle by the kernel:
 *     tests/repro/repro_member_enable_after_leader.c).
 *  2. PERF_EVENT_IOC_RESET on every counter: the count starts from zero
 *     (the kernel keeps the enabled and running times, so the reset
 *     baseline keeps its times and drops its counts).
 *  3. PERF_EVENT_IOC_PERIOD on the counters of each notified event: a full
 *     period again, so the next overflow is a whole period away.
 *  4. PERF_EVENT_IOC_REFRESH 1 on the members of PCTR_OVF_ONESHOT events
 *     that overflowed since the last restart (or the open): the kernel
 *     disabled them at that overflow.  REFRESH adds to the kernel's
 *     remaining-overflow count, so one still armed is left alone, or it
 *     would notify twice; and one that overflowed must be refreshed, not
 *     merely enabled, or it would overflow every period without limit.
 *  5. every group leader started: REFRESH 1 for a one-shot leader that
 *     overflowed (REFRESH enables), PERF_EVENT_IOC_ENABLE for the others.
 *     Never both: an overflow between a REFRESH and an ENABLE spends the
 *     one overflow REFRESH allowed, and the ENABLE would then start the
 *     counter the kernel had stopped, without a limit (task-clock at 1 us
 *     overflows every 10 us, and a signal handler can come in between).
 * System calls only, no lock, no allocation, no error text: a signal
 * handler may run it, including the overflow callback.
 */
static int
restart_leaders(struct pctr_set *set, unsigned long req)
{
	int r = 0;

	for (int i = 0; i < set->nr_inst; i++)
		for (int g = 0; g < set->inst[i].nr_groups && r == 0; g++)
			r = pctr__sys_ioctl(set->inst[i].groups[g].leader_fd,
					    req, 0);
	return r;
}

/*
 * The overflows of event @e so far: those notified, plus a record the
 * handler has not read yet (one-shot counters write at most one per arm;
 * the restart may run before that record's signal is handled, as in the
 * callback).
 */
static uint64_t
restart_seen(struct pctr_set *set, int e)
{
	uint64_t n = atomic_load(&set->ovf->ev[e].notified);
	struct pctr__ring_at at = PCTR__RING_AT;
	const struct pctr__ring *ring;

	while ((ring = pctr__ring_next(set, &at))) {
		if (ring->pc && !ring->shared && ring->event == e &&
		    __atomic_load_n(&ring->pc->data_head, __ATOMIC_ACQUIRE) !=
			    __atomic_load_n(&ring->pc->data_tail,
					    __ATOMIC_ACQUIRE))
			n++;
	}
	return n;
}

/*
 * Which events to refresh: one-shot events that overflowed since the last
 * restart.  @seen is taken before any REFRESH: an overflow after it
 * counts next time.  The marks move on here, before the start: a handler
 * that comes right after it and restarts again (an overflow callback)
 * measures from this restart.
 */
static void
restart_plan(struct pctr_set *set, bool *refresh)
{
	struct pctr__ring_at at = PCTR__RING_AT;
	struct pctr__ring *ring;

	for (int e = 0; e < set->nr_events; e++) {
		struct pctr__ovf_event *ev = &set->ovf->ev[e];
		uint64_t seen = restart_seen(set, e);

		refresh[e] = ev->mode == PCTR__MODE_SIGNAL &&
			     (ev->flags & PCTR_OVF_ONESHOT) &&
			     seen != ev->restart_mark;
		ev->restart_mark = seen;
	}
	while ((ring = pctr__ring_next(set, &at)))
		ring->restart = rearm_due(ring);
}

/*
 * Whether a start REFRESHes counter @k of instance @in: it is stopped at
 * an overflow
 */
static bool
refreshed(const struct pctr__inst *in, int k, const bool *refresh)
{
	return refresh[in->ctr[k].event] ||
	       (in->ring[k].rearm && in->ring[k].restart);
}

static int
restart_counter(struct pctr_set *set, const struct pctr__inst *in, int k,
		const uint64_t *period, const bool *refresh)
{
	const struct pctr__ctr *ctr = &in->ctr[k];
	struct pctr__ovf_event *ev = &set->ovf->ev[ctr->event];
	uint64_t p = set->attr[ctr->event].a.sample_period;
	int r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_RESET, 0);

	if (ev->mode != PCTR__MODE_SIGNAL || r < 0)
		return r;
	if (period && period[ctr->event])
		p = period[ctr->event];
	r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_PERIOD, (unsigned long)&p);
	if (r == 0 && atomic_load(&ev->fixed_period))
		atomic_store(&ev->fixed_period, p);
	/* a leader's REFRESH is its start (step 5) */
	if (r == 0 && refreshed(in, k, refresh) && !is_leader(in, ctr))
		r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_REFRESH, 1);
	return r;
}

/* step 5: REFRESH or ENABLE each leader of the instances' groups, once */
static int
start_leaders(struct pctr_set *set, const bool *refresh)
{
	int r = 0;

	for (int i = 0; i < set->nr_inst; i++) {
		const struct pctr__inst *in = &set->inst[i];
		const struct pctr__ctr *ctr = in->ctr;

		for (int g = 0; g < in->nr_groups && r == 0; g++) {
			int fd = in->groups[g].leader_fd;
			unsigned long req = PERF_EVENT_IOC_ENABLE;

			for (int c = 0; c < set->nr_ctr; c++)
				if (ctr[c].fd == fd &&
				    refreshed(in, c, refresh))
					req = PERF_EVENT_IOC_REFRESH;
			r = pctr__sys_ioctl(fd, req,
					    req == PERF_EVENT_IOC_REFRESH);
		}
	}
	return r;
}

static int
restart_all(struct pctr_set *set, const uint64_t *period)
{
	bool refresh[PCTR_MAX_EVENTS];
	int r = 0;

	restart_plan(set, refresh);
	for (int i = 0; r == 0 && i < set->nr_inst; i++)
		for (int k = 0; r == 0 && k < set->nr_ctr; k++)
			r = restart_counter(set, &set->inst[i], k, period,
					    refresh);
	for (int i = 0; r == 0 && set->has_base && i < set->nr_inst; i++)
		for (int e = 0; e < set->nr_events; e++)
			set->inst[i].base[e].value = 0;
	return r < 0 ? r : start_leaders(set, refresh);
}

/*
 * Before the protocol's first call, every counter is checked to be still
 * the library's (pctr__ctr_owned()): a number the program reused is
 * refused with -EBADF, and nothing of the program's is stopped or reset.
 */
static int
restart_ours(const struct pctr_set *set)
{
	for (int i = 0; i < set->nr_inst; i++)
		for (int k = 0; k < set->nr_ctr; k++)
			if (!pctr__ctr_owned(&set->inst[i].ctr[k]))
				return -EBADF;
	return 0;
}

PCTR_EXPORT int
pctr_set_overflow_restart(struct pctr_set *set, const uint64_t *period,
		      unsigned int flags)
{
	int r = check_control(set, -1, true);

	if (r == 0 && (flags & ~PCTR_OVF_STOP))
		r = -EINVAL;
	for (int e = 0; r == 0 && period && e < set->nr_events; e++)
		if (period[e] > INT64_MAX)
			r = -EINVAL;
	if (r == 0)
		r = restart_ours(set);
	if (r == 0) {
		atomic_store(&set->ovf->counting, false);
		r = restart_leaders(set, PERF_EVENT_IOC_DISABLE);
	}
	if (r < 0 || (flags & PCTR_OVF_STOP))
		return r;
	atomic_store(&set->ovf->counting, true);
	return restart_all(set, period);
}
