/* SPDX-License-Identifier: MIT */
/*
 * ring.h - the layer under overflow.c and sampling.c (ring.c): the state
 * of a set's overflow notification and sampling, the kernel's ring buffer,
 * its records and the threads writing into it.
 *
 * The ring buffer protocol (include/uapi/linux/perf_event.h): the first
 * page is a struct perf_event_mmap_page; 2^n data pages follow.  The
 * kernel writes records at data_head and never past data_tail, which the
 * reader owns:
 *
 *   head = load_acquire(&pc->data_head);   records up to head are complete
 *   ... read records from tail to head, each starting with a
 *       struct perf_event_header whose size includes it; a record can
 *       wrap around the end of the data area ...
 *   store_release(&pc->data_tail, tail);   the kernel may reuse the space
 *
 * A reader that is too slow makes the kernel drop samples; the next record
 * it writes is then a PERF_RECORD_LOST carrying the number dropped.  That
 * number is what pctr_set_overflow_stats() reports as lost: never silent.
 */
#ifndef PCTR_RING_H
#define PCTR_RING_H

#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "internal.h"
#include "record.h"

/* what every overflow sample holds, with PERF_SAMPLE_PERIOD where it may */
#define PCTR__OVF_SAMPLE_TYPE                                                 \
	(PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME)

/* largest record: the kernel's header size field is 16 bits */
#define PCTR__RECORD_MAX 65536

#define PCTR__MODE_NONE 0
#define PCTR__MODE_SIGNAL 1 /* overflow notification by signal */
#define PCTR__MODE_BUFFER 2 /* sampling into the buffer */

/* per-event configuration and results */
struct pctr__ovf_event {
	int mode;
	unsigned int flags; /* PCTR_OVF_* or PCTR_SAMPLE_* */
	int signo;
	pctr_overflow_fn fn;
	void *arg;
	unsigned int pages; /* data pages per ring */
	atomic_bool paused;
	atomic_uint_least64_t notified;
	atomic_uint_least64_t lost;
	uint64_t restart_mark; /* @notified at the last restart (overflow.c) */
	/* the period of each record when records carry none, else 0 */
	atomic_uint_least64_t fixed_period;
};

/* a hardware counter's event */
static inline bool
pctr__attr_hw(const struct pctr_event *ev, const struct perf_event_attr *a)
{
	uint32_t t = a->type;

	return t == PERF_TYPE_HARDWARE || t == PERF_TYPE_HW_CACHE ||
	       t == PERF_TYPE_RAW || (t >= PERF_TYPE_MAX && ev->hardware);
}

/* cpu-clock and task-clock: nanoseconds, overflowing from an hrtimer */
static inline bool
pctr__attr_clock(const struct perf_event_attr *a)
{
	return a->type == PERF_TYPE_SOFTWARE &&
	       (a->config == PERF_COUNT_SW_CPU_CLOCK ||
		a->config == PERF_COUNT_SW_TASK_CLOCK);
}

/*
 * PERF_SAMPLE_PERIOD, or 0 where asking for it would change the period.
 * Events counted in software (page-faults, context-switches, tracepoints,
 * breakpoints, kprobes: perf_swevent_event() in the kernel) with a fixed
 * period and PERF_SAMPLE_PERIOD in their sample type overflow at every
 * single event, whatever the period
 * (tests/repro/repro_swevent_sample_period.c).  Their records then carry
 * no period and the configured one is reported (fixed_period above).
 * Hardware counters, the two clocks (an hrtimer, not that path) and any
 * event sampled at a frequency keep it.
 */
static inline uint64_t
pctr__period_sample_type(const struct pctr_event *ev,
			 const struct perf_event_attr *a)
{
	return pctr__attr_hw(ev, a) || pctr__attr_clock(a) || a->freq
		       ? PERF_SAMPLE_PERIOD
		       : 0;
}

/* after pctr_set_overflow/_sampling configured @e's attr: 0 or the period */
static inline void
pctr__fixed_period_init(struct pctr__ovf_event *o,
			const struct perf_event_attr *a)
{
	atomic_store(&o->fixed_period,
		     a->sample_type & PERF_SAMPLE_PERIOD ? 0 : a->sample_period);
}

/*
 * Per-thread running count and sequence, for struct pctr_overflow_info: an
 * open-addressing table (linear probing) per counter, under a lock: the
 * rings of a set spread over CPUs (open_on()) share their counter's table,
 * a thread's records landing in the ring of whichever CPU it ran on, each
 * ring with a reader of its own.  The kernel reports that a thread exited:
 * signal-mode counters have attr.task set, so every thread counting on the
 * counter or its inherited copies writes a PERF_RECORD_EXIT as it exits,
 * after its last sample (perf_event_exit_task_context()).  That record may
 * be read before the thread's last samples in another CPU's ring, so it
 * only marks the slot with its time: a later sample of that tid is a new
 * thread (tids are reused, pid_max may be 32768) and starts again at seq 1.
 * When the table fills, slots of threads that exited, or no longer exist
 * (tgkill(pid, tid, 0) fails with ESRCH: exit records lost with a full
 * ring), are swept out.
 */
#define PCTR__TID_SLOTS 256
struct pctr__tid_slot {
	pid_t tid; /* 0: free */
	pid_t pid;
	uint64_t seq;
	uint64_t count;
	uint64_t exit_time; /* of its PERF_RECORD_EXIT, 0 while it runs */
};

/*
 * One counter's ring buffer, held by its instance (struct pctr__inst's
 * ring[], beside its counters): the pointers below are to counters and
 * rings, each in an allocation of its own, never to an instance.
 */
struct pctr__ring {
	struct perf_event_mmap_page *pc; /* NULL: this counter has none */
	unsigned char *data;
	uint64_t size; /* data area, a power of two */
	size_t map_len;
	struct pctr__ctr carrier; /* the dummy owning the ring, or fd -1 */
	struct pctr__ring *shared; /* the ring this counter writes into, if
				      another's (a CPU's ring: open_on()) */
	struct pctr__ctr *ctr;
	int fd; /* the counter that writes into it */
	int event;
	int pub; /* its instance's public index (pctr_set_instance_id()) */
	struct pctr__layout layout; /* its records' (record.h) */
	atomic_flag busy; /* one reader at a time */
	atomic_int reader; /* the reader's tid while it holds busy, or 0 */
	struct pctr__tid_slot *tids; /* signal mode only: the table it owns */
	/*
	 * The ring whose table and lock it uses: itself, or the first
	 * instance's of its counter (a set spread over CPUs)
	 */
	struct pctr__ring *tab;
	atomic_flag tids_lock;
	_Atomic uint64_t last_time; /* of the last record read, signal mode */
	/* pctr__ovf_event.rearm: the overflows taken, and taken at the arm */
	atomic_uint_least64_t taken;
	atomic_uint_least64_t armed;
	/*
	 * The kernel stops the counter at each overflow and the library's
	 * handler lets it count again once the callback returned: a callback
	 * on the thread's own counter at a short period (overflow.c's
	 * stops_at_overflow())
	 */
	bool rearm;
	bool restart; /* a restart re-arms it (overflow.c's restart_plan()) */
};

/* the set's: the rings are its instances' (pctr__ring_next()) */
struct pctr__overflow {
	struct pctr__ovf_event ev[PCTR_MAX_EVENTS];
	unsigned char *scratch; /* PCTR__RECORD_MAX bytes, buffer mode */
	atomic_int users; /* signal handlers running on this set */
	atomic_bool counting; /* the program's last enable, disable, restart */
	int slot; /* in the registry, -1 if not registered */
	int handlers[PCTR_MAX_EVENTS]; /* signals whose handler we hold */
	int nr_handlers;
};

/*
 * The rings of an open set, instance by instance, counter by counter:
 *
 *	struct pctr__ring_at at = PCTR__RING_AT;
 *	while ((ring = pctr__ring_next(set, &at)))
 *		... ring is set->inst[at.i].ring[at.k] ...
 *
 * Instances without rings (an open that failed part way) are passed over.
 */
struct pctr__ring_at {
	int i, k;
};
#define PCTR__RING_AT ((struct pctr__ring_at){ 0, -1 })

static inline struct pctr__ring *
pctr__ring_next(const struct pctr_set *set, struct pctr__ring_at *at)
{
	for (at->k++; at->i < set->nr_inst; at->i++, at->k = 0)
		if (at->k < set->nr_ctr && set->inst[at->i].ring)
			return &set->inst[at->i].ring[at->k];
	return NULL;
}

/*
 * The record at @tail: *@out points into the ring, or into @buf (@len
 * bytes) when the record wraps around the end of the data area; *@out is
 * NULL when a wrapping record does not fit in @buf (the caller skips it).
 * Return the record's size, or 0 if its header claims less than a header
 * or more than @head - @tail bytes: a corrupt ring, which the caller stops
 * reading.
 */
static inline size_t
pctr__ring_record(const unsigned char *data, uint64_t size, uint64_t tail,
		  uint64_t head, unsigned char *buf, size_t len,
		  const struct perf_event_header **out)
{
	uint64_t off = tail & (size - 1);
	struct perf_event_header h;
	size_t first;

	*out = NULL;
	if (head - tail < sizeof(h))
		return 0;
	first = size - off < sizeof(h) ? size - off : sizeof(h);
	memcpy(&h, data + off, first);
	memcpy((unsigned char *)&h + first, data, sizeof(h) - first);
	if (h.size < sizeof(h) || h.size > head - tail)
		return 0;
	if (off + h.size <= size) {
		*out = (const struct perf_event_header *)(data + off);
	} else if (h.size <= len) {
		first = size - off;
		memcpy(buf, data + off, first);
		memcpy(buf + first, data, h.size - first);
		*out = (const struct perf_event_header *)buf;
	}
	return h.size;
}

/* a sample of @ring, with the configured period where it carries none */
static inline int
pctr__ring_parse(const struct pctr__overflow *o, const struct pctr__ring *ring,
		 const struct perf_event_header *h, struct pctr__sample *s)
{
	int err = pctr__sample_decode(&ring->layout, h, s);

	if (err == 0 && !(ring->layout.sample_type & PERF_SAMPLE_PERIOD))
		s->period = atomic_load(&o->ev[ring->event].fixed_period);
	return err;
}

static inline unsigned int
pctr__tid_home(pid_t tid)
{
	return ((unsigned int)tid * 2654435761u) % PCTR__TID_SLOTS;
}

/*
 * Empty slot @i, moving later entries of its probe run back into it so
 * that every entry stays reachable from its home slot (deletion without
 * tombstones).
 */
static inline void
pctr__tid_clear(struct pctr__tid_slot *tab, unsigned int i)
{
	for (unsigned int j = i, n = 1; n < PCTR__TID_SLOTS; n++) {
		unsigned int k;

		j = (j + 1) % PCTR__TID_SLOTS;
		if (tab[j].tid == 0)
			break;
		k = pctr__tid_home(tab[j].tid);
		/* stays if its home is cyclically in (i, j] */
		if (i <= j ? (i < k && k <= j) : (i < k || k <= j))
			continue;
		tab[i] = tab[j];
		i = j;
	}
	memset(&tab[i], 0, sizeof(tab[i]));
}

/* @tid exited at @time (never 0: the kernel's clock) */
static inline void
pctr__tid_exited(struct pctr__tid_slot *tab, pid_t tid, uint64_t time)
{
	for (unsigned int n = 0, i = pctr__tid_home(tid);
	     n < PCTR__TID_SLOTS && tab[i].tid; n++, i = (i + 1) % PCTR__TID_SLOTS)
		if (tab[i].tid == tid) {
			tab[i].exit_time = time ? time : 1;
			return;
		}
}

/*
 * A thread that exited before @horizon, the time up to which every ring
 * of the counter has been read: none of its samples is left to read.
 * Once records were lost (@lost), exit records may have been: then also a
 * thread that no longer exists.  (Without losses such a thread's exit
 * record is still to be read, and maybe samples of it before that.)
 */
static inline bool
pctr__tid_gone(const struct pctr__tid_slot *s, uint64_t horizon, bool lost)
{
	if (s->exit_time)
		return s->exit_time <= horizon;
	return lost && syscall(SYS_tgkill, s->pid, s->tid, 0) < 0 &&
	       errno == ESRCH;
}

/* a full table: drop the threads that are gone */
static inline int
pctr__tid_sweep(struct pctr__tid_slot *tab, uint64_t horizon, bool lost)
{
	int freed = 0;

	for (unsigned int i = 0; i < PCTR__TID_SLOTS; i++)
		while (tab[i].tid && pctr__tid_gone(&tab[i], horizon, lost)) {
			pctr__tid_clear(tab, i);
			freed++;
		}
	return freed;
}

static inline struct pctr__tid_slot *
pctr__tid_find(struct pctr__tid_slot *tab, pid_t pid, pid_t tid)
{
	unsigned int i = pctr__tid_home(tid);

	for (unsigned int n = 0; n < PCTR__TID_SLOTS; n++) {
		struct pctr__tid_slot *s = &tab[i];

		if (s->tid == tid)
			return s;
		if (s->tid == 0) {
			*s = (struct pctr__tid_slot){ tid, pid, 0, 0, 0 };
			return s;
		}
		i = (i + 1) % PCTR__TID_SLOTS;
	}
	return NULL;
}

/*
 * The running count and sequence number of @tid (of process @pid) for a
 * sample at @time (signal mode); NULL only while more than
 * PCTR__TID_SLOTS threads that exist share the counter.  A sample after
 * the tid's exit record is a new thread's.  @horizon(@ctx, &lost) is
 * only asked when the table is full (pctr__tid_gone()).  Called with the
 * table's lock held; async-signal-safe; errno is kept.
 */
static inline struct pctr__tid_slot *
pctr__tid_slot(struct pctr__tid_slot *tab, pid_t pid, pid_t tid,
	       uint64_t time, uint64_t (*horizon)(void *ctx, bool *lost),
	       void *ctx)
{
	struct pctr__tid_slot *s = pctr__tid_find(tab, pid, tid);
	int saved = errno;
	bool lost = false;

	if (!s) {
		uint64_t h = horizon(ctx, &lost);

		if (pctr__tid_sweep(tab, h, lost) > 0)
			s = pctr__tid_find(tab, pid, tid);
	}
	errno = saved;
	if (s && s->exit_time && time > s->exit_time)
		*s = (struct pctr__tid_slot){ tid, pid, 0, 0, 0 };
	return s;
}

/*
 * The table's lock.  Its holders are the readers of the counter's rings,
 * each in the library's signal handler for the counter's signal: that
 * signal is blocked while the handler runs, so a holder is never
 * interrupted by another wanting it, and waits only for other threads.
 */
static inline void
pctr__tids_lock(struct pctr__ring *ring)
{
	while (atomic_flag_test_and_set_explicit(&ring->tab->tids_lock,
						 memory_order_acquire))
		sched_yield();
}

static inline void
pctr__tids_unlock(struct pctr__ring *ring)
{
	atomic_flag_clear_explicit(&ring->tab->tids_lock, memory_order_release);
}

/* ring.c: ring buffers */
/* counter @k of set->inst[@i]: its ring, mapped or shared */
int pctr__ring_map(struct pctr_set *set, int i, int k, unsigned int pages);
void pctr__ring_unmap(struct pctr__ring *ring, bool forked);
typedef int (*pctr__rec_fn)(struct pctr_set *set, struct pctr__ring *ring,
			    const struct perf_event_header *h, void *arg);
int pctr__ring_step(struct pctr_set *set, struct pctr__ring *ring,
		    unsigned char *buf, size_t len, pctr__rec_fn fn, void *arg,
		    int *n, uint64_t *tail, uint64_t head);
int pctr__ring_drain(struct pctr_set *set, struct pctr__ring *ring,
		     unsigned char *buf, size_t len, pctr__rec_fn fn,
		     void *arg);

/* ring.c: what overflow and sampling both set on an event */
struct pctr__overflow *pctr__ovf_get(struct pctr_set *set);
int pctr__ovf_check_event(struct pctr_set *set, int idx, const char *what);
int pctr__ovf_probe(struct pctr_set *set, int idx);
/* a period or rate into the attributes (-EINVAL if invalid) */
int pctr__ovf_set_period(struct perf_event_attr *attr, uint64_t period,
			 int freq);

#endif
