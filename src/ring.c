/* SPDX-License-Identifier: MIT */
/*
 * ring.c - the ring buffers under overflow notification (overflow.c) and
 * sampling (sampling.c), and the event settings both make.
 *
 * The kernel refuses to map a ring buffer on a counter that is inherited
 * and not bound to a CPU (perf_mmap: "cpu == -1 && inherit"), which is
 * exactly what a set following new threads has.  So the ring belongs to a
 * carrier: a dummy software event on the same task (or CPU), mapped, and
 * the real counter sends its records there with PERF_EVENT_IOC_SET_OUTPUT.
 * Counters inherited later by threads and children write where their
 * parent writes, so one ring gathers a counter and all its inheritors; the
 * sample's pid and tid say which task each record came from.
 * Such counters are opened once per CPU (open_on() in set.c says why), and
 * the ring is per CPU too: the first thread's counter on a CPU gets a
 * carrier, the other threads' counters on that CPU write into it (the
 * kernel lets counters of any task send their records to a ring bound to
 * the same CPU), and their pctr__ring only points at it (->shared).
 * Counters that are not inherited map their ring themselves (map_own()).
 *
 * Records are parsed and threads' slots kept in ring.h; this file maps,
 * unmaps and drains.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "ring.h"

/* ---- what overflow and sampling both set on an event --------------------- */

struct pctr__overflow *
pctr__ovf_get(struct pctr_set *set)
{
	if (!set->ovf) {
		set->ovf = calloc(1, sizeof(*set->ovf));
		if (set->ovf)
			set->ovf->slot = -1;
	}
	return set->ovf;
}

int
pctr__ovf_check_event(struct pctr_set *set, int idx, const char *what)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (set->open)
		return pctr__error(EALREADY, "cannot %s: the set is already "
					     "open; configure before "
					     "pctr_set_open()",
				   what);
	if (idx < 0 || idx >= set->nr_events)
		return pctr__error(ERANGE, "event %d out of range (0..%d)", idx,
				   set->nr_events - 1);
	if (!pctr__ovf_get(set))
		return pctr__error(ENOMEM, "out of memory");
	if (set->ovf->ev[idx].mode != PCTR__MODE_NONE)
		return pctr__error(EBUSY, "'%s' already has overflow "
					  "notification or sampling",
				   set->ev[idx].name);
	return 0;
}

/*
 * Ask the kernel now whether it can interrupt on this event's overflow, so
 * the answer comes with the call that asked for it: a PMU without an
 * overflow interrupt refuses any sampling event with EOPNOTSUPP.  Other
 * failures (no PMU, privileges) are left for pctr_set_open() to explain.
 */
int
pctr__ovf_probe(struct pctr_set *set, int idx)
{
	struct pctr_event *ev = &set->ev[idx];
	union pctr__attr u = set->attr[idx];
	struct perf_event_attr *attr = &u.a;
	int fd;

	attr->disabled = 1;
	if (ev->part_type[0])
		attr->config = (attr->config & PERF_HW_EVENT_MASK) |
			       (uint64_t)ev->part_type[0] << PERF_PMU_TYPE_SHIFT;
	fd = pctr__sys_perf_open(attr, 0, -1, -1, 0);
	if (fd == -EACCES || fd == -EPERM) {
		attr->exclude_kernel = attr->exclude_hv = 1;
		fd = pctr__sys_perf_open(attr, 0, -1, -1, 0);
	}
	if (fd >= 0)
		pctr__sys_close(fd);
	if (fd == -EOPNOTSUPP) {
		set->attr[idx].a.sample_period = 0;
		set->attr[idx].a.sample_type = 0;
		set->attr[idx].a.freq = 0;
		return pctr__error(EOPNOTSUPP,
				   "cannot sample '%s': this PMU does not "
				   "interrupt on counter overflow (ENOTSUP); "
				   "count it and read it instead, or sample a "
				   "software clock (task-clock)",
				   ev->name);
	}
	return 0;
}

static int
check_rate(uint64_t hz)
{
	long max;

	if (pctr__read_int_file("/proc/sys/kernel/perf_event_max_sample_rate",
				&max) == 0 && hz > (uint64_t)max)
		return pctr__error(EINVAL, "%llu samples per second is more "
					   "than kernel.perf_event_max_sample_"
					   "rate (%ld): ask for fewer, or raise "
					   "it",
				   (unsigned long long)hz, max);
	return 0;
}

/* a sample period or rate, as the kernel takes it */
int
pctr__ovf_set_period(struct perf_event_attr *attr, uint64_t period, int freq)
{
	int r;

	if (period == 0 || period >> 63)
		return pctr__error(EINVAL, "a sample %s of %llu: it must be "
					   "1 .. 2^63 - 1",
				   freq ? "rate" : "period",
				   (unsigned long long)period);
	if (freq && (r = check_rate(period)) < 0)
		return r;
	attr->freq = freq;
	attr->sample_period = period;
	return 0;
}

/*
 * Every counter of a set with overflow signals timestamps its records
 * with CLOCK_MONOTONIC, one clock for all CPUs: the per-thread tables
 * order a thread's exit against its samples read from other CPUs' rings
 * (ring.h), and the kernel's default clock is per CPU.  The kernel
 * wants one clock across a group and across the counters writing into one
 * ring, so all of them, the set's dummies too.
 */
void
pctr__set_clock(const struct pctr_set *set, struct perf_event_attr *attr)
{
	for (int e = 0; set->ovf && e < set->nr_events; e++)
		if (set->ovf->ev[e].mode == PCTR__MODE_SIGNAL) {
			attr->use_clockid = 1;
			attr->clockid = CLOCK_MONOTONIC;
			return;
		}
}

/* ---- rings ---------------------------------------------------------------- */

static int
open_carrier(struct pctr_set *set, const struct pctr__inst *in,
	     const struct pctr__ctr *ctr)
{
	const struct perf_event_attr *main_attr = &set->attr[ctr->event].a;
	struct perf_event_attr attr = {
		.size = sizeof(attr),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		/* the ring's wakeup threshold is its owner's */
		.watermark = main_attr->watermark,
		.wakeup_watermark = main_attr->wakeup_watermark,
	};
	pid_t pid = pctr__set_on_cpus(set) ? -1 : in->id;

	pctr__set_clock(set, &attr);
	return pctr__set_perf_open(set, &attr, pid, in->cpu, -1);
}

static int
map_error(struct pctr_set *set, const struct pctr__ctr *ctr, size_t len,
	  int err)
{
	return pctr__error(err,
			   "cannot map a %zu KiB sample buffer for '%s': %s "
			   "(the limit is kernel.perf_event_mlock_kb plus "
			   "'ulimit -l'; ask for fewer pages)",
			   len >> 10, set->ev[ctr->event].name, strerror(err));
}

/*
 * A counter that is not inherited owns its ring: the one-page mapping
 * set.c made for user-space reads is replaced by the ring, whose first page
 * holds the same fields (the kernel refuses a second mapping of another
 * size on one fd, and refuses SET_OUTPUT from a mapped counter).
 */
static int
map_own(struct pctr_set *set, struct pctr__ctr *ctr, size_t len, void **p)
{
	if (ctr->page) {
		pctr__sys_munmap(ctr->page, sysconf(_SC_PAGESIZE));
		ctr->page = NULL;
	}
	*p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, ctr->fd, 0);
	if (*p == MAP_FAILED)
		return map_error(set, ctr, len, errno);
	ctr->page = *p;
	return 0;
}

static int
map_carrier(struct pctr_set *set, const struct pctr__inst *in,
	    struct pctr__ring *ring, size_t len, void **p)
{
	const struct pctr__ctr *ctr = ring->ctr;
	int fd = open_carrier(set, in, ctr), r;

	if (fd < 0)
		return pctr__error(-fd, "cannot open a sample buffer for '%s':"
					" %s",
				   set->ev[ctr->event].name, strerror(-fd));
	*p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (*p == MAP_FAILED) {
		r = map_error(set, ctr, len, errno);
		pctr__sys_close(fd);
		return r;
	}
	ring->carrier.fd = fd;
	r = pctr__ctr_identify(&ring->carrier);
	if (r == 0 &&
	    (r = pctr__sys_ioctl(ctr->fd, PERF_EVENT_IOC_SET_OUTPUT, fd)) < 0)
		r = pctr__error(-r, "cannot send the samples of '%s' to their "
				    "buffer: %s",
				set->ev[ctr->event].name, strerror(-r));
	if (r < 0) {
		munmap(*p, len);
		pctr__sys_close(fd);
		ring->carrier.fd = -1;
	}
	return r;
}

/* the ring of an earlier thread's counter @k on the same CPU, if any */
static struct pctr__ring *
cpu_ring(struct pctr_set *set, int i, int k)
{
	int cpu = set->spread ? set->inst[i].cpu : -1;

	for (int j = 0; cpu >= 0 && j < i; j++) {
		struct pctr__ring *r = &set->inst[j].ring[k];

		if (r->pc && !r->shared && set->inst[j].cpu == cpu)
			return r;
	}
	return NULL;
}

static int
share_ring(struct pctr_set *set, struct pctr__ring *ring, struct pctr__ring *to)
{
	int r = pctr__sys_ioctl(ring->ctr->fd, PERF_EVENT_IOC_SET_OUTPUT,
				to->carrier.fd);

	if (r < 0)
		return pctr__error(-r, "cannot send the samples of '%s' to "
					"their CPU's buffer: %s",
				   set->ev[ring->ctr->event].name,
				   strerror(-r));
	ring->shared = to;
	ring->pc = to->pc;
	ring->data = to->data;
	ring->size = to->size;
	ring->map_len = to->map_len;
	return 0;
}

int
pctr__ring_map(struct pctr_set *set, int i, int k, unsigned int pages)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(1 + pages) * page;
	bool inherit = set->target == PCTR_TARGET_PROCESS ||
		       set->target == PCTR_TARGET_PID;
	struct pctr__inst *in = &set->inst[i];
	struct pctr__ring *ring = &in->ring[k];
	struct pctr__ring *to = inherit ? cpu_ring(set, i, k) : NULL;
	void *p = NULL;
	int r;

	ring->carrier.fd = -1;
	ring->shared = NULL;
	ring->ctr = &in->ctr[k];
	r = to	      ? share_ring(set, ring, to)
	    : inherit ? map_carrier(set, in, ring, len, &p)
		      : map_own(set, ring->ctr, len, &p);
	if (r < 0)
		return r;
	if (!to) {
		ring->pc = p;
		ring->data = (unsigned char *)p + page;
		ring->size = (uint64_t)pages * page;
		ring->map_len = len;
	}
	ring->fd = ring->ctr->fd;
	ring->event = ring->ctr->event;
	pctr__layout_of(&ring->layout, &set->attr[ring->event].a);
	atomic_flag_clear(&ring->busy);
	return 0;
}

/*
 * In a forked child the ring is not mapped (perf mappings are
 * VM_DONTCOPY): the address may hold something of the child's since, so it
 * is left alone, and only the child's descriptor of the carrier is closed.
 * The carrier's number is closed only while it is still the carrier: the
 * program may have closed it and got the number back for a file of its
 * own (pctr__ctr_check()).
 */
void
pctr__ring_unmap(struct pctr__ring *ring, bool forked)
{
	if (!ring->pc)
		return;
	if (ring->shared) {
		ring->pc = NULL;
		return;
	}
	if (!forked)
		munmap(ring->pc, ring->map_len);
	if (ring->carrier.fd >= 0 && pctr__ctr_owned(&ring->carrier))
		pctr__sys_close(ring->carrier.fd);
	if (ring->carrier.fd >= 0)
		ring->carrier.fd = -1;
	else
		ring->ctr->page = NULL;
	ring->pc = NULL;
}

/* a thread's PERF_RECORD_EXIT: its slot marked with the time */
static void
forget_exited(struct pctr__ring *ring, const struct perf_event_header *h)
{
	struct pctr_sample_record r;

	if (!ring->tab || pctr__side_record(&ring->layout, h, &r) < 0)
		return;
	atomic_store(&ring->last_time, r.time);
	pctr__tids_lock(ring);
	pctr__tid_exited(ring->tab->tids, r.tid, r.time);
	pctr__tids_unlock(ring);
}

/*
 * The record at *@tail: handed to @fn, *@tail moved past it.  Return
 * @fn's non-zero value to stop, else 0.  The caller holds the ring
 * (->busy).
 */
int
pctr__ring_step(struct pctr_set *set, struct pctr__ring *ring,
		unsigned char *buf, size_t len, pctr__rec_fn fn, void *arg,
		int *n, uint64_t *tail, uint64_t head)
{
	struct pctr__ovf_event *ev = &set->ovf->ev[ring->event];
	bool sideband = ev->mode == PCTR__MODE_BUFFER &&
			(ev->flags & PCTR_SAMPLE_SIDEBAND);
	const struct perf_event_header *h;
	size_t sz = pctr__ring_record(ring->data, ring->size, *tail, head, buf,
				      len, &h);
	int stop = 0;

	if (!sz) {
		*tail = head;
		return 0;
	}
	if (h && h->type == PERF_RECORD_LOST)
		atomic_fetch_add(&ev->lost, pctr__lost_count(h));
	if (h && h->type == PERF_RECORD_EXIT)
		forget_exited(ring, h);
	if (h && h->type == PERF_RECORD_SAMPLE) {
		stop = fn(set, ring, h, arg);
		(*n)++;
	} else if (h && sideband) {
		stop = fn(set, ring, h, arg);
	}
	*tail += sz;
	return stop;
}

static uint64_t
ring_pass(struct pctr_set *set, struct pctr__ring *ring, unsigned char *buf,
	  size_t len, pctr__rec_fn fn, void *arg, int *n)
{
	uint64_t tail = ring->pc->data_tail;
	uint64_t head = __atomic_load_n(&ring->pc->data_head, __ATOMIC_ACQUIRE);
	int stop = 0;

	while (tail != head && !stop)
		stop = pctr__ring_step(set, ring, buf, len, fn, arg, n, &tail,
				       head);
	__atomic_store_n(&ring->pc->data_tail, tail, __ATOMIC_RELEASE);
	return stop ? UINT64_MAX : tail;
}

/*
 * Hand every record of @ring to @fn until it returns non-zero.  One reader
 * at a time: a reader that finds the ring busy returns at once, since the
 * reader already inside will see the records too.  It checks the head
 * again after letting go, so a record that arrived just as it finished is
 * not left behind.  The reader's tid is kept meanwhile, so that a set
 * freed from @fn's callback is refused instead of waiting for itself
 * (pctr__overflow_busy()).  Async-signal-safe.  Return the number of
 * samples.
 */
int
pctr__ring_drain(struct pctr_set *set, struct pctr__ring *ring,
		 unsigned char *buf, size_t len, pctr__rec_fn fn, void *arg)
{
	pid_t self = gettid(); /* a system call that cannot fail */
	uint64_t tail;
	int n = 0;

	do {
		if (atomic_flag_test_and_set(&ring->busy))
			break;
		atomic_store(&ring->reader, self);
		tail = ring_pass(set, ring, buf, len, fn, arg, &n);
		atomic_store(&ring->reader, 0);
		atomic_flag_clear(&ring->busy);
	} while (tail != UINT64_MAX &&
		 __atomic_load_n(&ring->pc->data_head, __ATOMIC_ACQUIRE) != tail);
	return n;
}

