/* SPDX-License-Identifier: MIT */
/*
 * region.c - named, nestable, per-thread code regions.
 *
 * Each thread that enters a region gets its own state: a set counting that
 * thread alone (so reads take the user-space path where the kernel allows
 * it), a stack of the samples taken at begin, and one struct pctr_stats per
 * region it has entered, indexed by region id.  The hot path touches only
 * that state: no lock, no allocation, no syscall beyond the read itself.
 * The process-wide registry (names, and statistics merged from threads that
 * exited or flushed) is behind one mutex, taken when a region is first
 * named, when a thread starts or ends, and when a report is made.
 *
 * Protocol of one region, so that the measured interval holds as little of
 * the library as possible:
 *
 *   begin: checks and bookkeeping, then read (the last thing it does)
 *   end:   read (the first thing it does), then checks and accumulation
 *
 * What remains between the two reads (begin's return, end's entry, the
 * rest of the read itself) is the same for every region ended the same
 * way, and is measured when a thread starts by running empty regions of
 * the reserved id 0 through the same public calls, once for each way a
 * program can end a region: by id (pctr_region_end_id()) and by name
 * (pctr_region_end(), which the marker macros call; its entry is longer,
 * and the name is an argument of a string's address).  The minimum of
 * each is taken off every interval ended that way, and its standard
 * deviation is the uncertainty of what was taken off.  Begin by name
 * reads by begin by id's own code (it calls it last), so the way a region
 * began does not matter.  A region's statistics report the overhead of
 * the way its first begin in the thread named it, and the smaller of the
 * two once it was also ended the other way (the merge's rule: what is
 * known to have been paid; ended_by() says where that is not seen).
 *
 * Disturbed intervals.  An interval can hold more than the region's code:
 * the kernel's, another thread's time, a read that had to start again.
 * Each is looked for with what costs nothing or next to nothing, and an
 * interval any of them flags is counted in the region's "disturbed";
 * $PCTR_REGION_DISTURBED=drop leaves it out of the figures too:
 *
 *   switch  a hidden "context-switches" software event read with the
 *           region's events: it counts every time the thread leaves its
 *           CPU, so also a migration (the thread is switched out on one CPU
 *           and in on the other) and a blocking call.  Only on sets read
 *           with read(2), where one more member of the group costs a few
 *           bytes of the same syscall, or without a hardware event (whose
 *           page would tell); not where the kernel refuses kernel counting
 *           (perf_event_paranoid 2 for an unprivileged user: the event
 *           would count nothing).
 *   page    on sets read in user space: the seqlock (lock) of the first
 *           hardware counter's mmap page, read before begin's read and
 *           after end's.
 *           The kernel rewrites the page whenever it puts the counter back
 *           on the hardware (the thread switched back in, after a
 *           migration, multiplexing) and when it reprograms the counter
 *           (x86_perf_event_set_period(), armpmu_event_set_period()); a read
 *           that overlapped such a rewrite started again (the "seqlock
 *           retry") and so is flagged too.  A load and a compare.
 *   mux     an event whose running time grew less than its enabled time:
 *           it was off its counter part of the interval and its count is
 *           an extrapolation.  From the counts already read.
 *   kernel  an event of the region's list counting kernel mode only (for
 *           example "instructions:u,instructions:k") that counted in an
 *           interval read in user space: the kernel ran inside it (an
 *           interrupt, a page fault, a system call).  This is the only
 *           detector of an interrupt that neither switches the thread nor
 *           touches the counters, and it needs a hardware counter.
 *
 * The empty regions of the calibration are checked the same way, and a
 * disturbed one is always left out: it would widen the overhead's spread
 * with what the detectors already account for.
 *
 * Measurement is off until pctr_region_init() succeeds (or $PCTR_EVENTS is
 * set when the library is loaded); when off, begin and end read one global
 * flag and return.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stats.h"
#include "arch.h"
#include "text.h"

#define CAL_ID 0 /* reserved region: overhead calibration */

/* how a region is ended: the overhead taken off its intervals */
enum { BY_ID, BY_NAME, NR_PATHS };

/*
 * The name calibration ends its empty regions with: found by address
 * (lookup_fast()), no program's name can be this object.
 */
static const char cal_name[] = "";

/* the overhead of one way of ending a region (see the top) */
struct path_overhead {
	uint64_t ticks;
	uint64_t ev[PCTR_MAX_EVENTS];
	double ticks_sd;
	double sd[PCTR_MAX_EVENTS];
};

struct region_thread {
	unsigned int gen; /* fork generation the state belongs to */
	pid_t pid; /* and its process (check_process()) */
	int err; /* opening the counters failed: every begin says so */
	struct pctr_set *set;
	int nr; /* the region's events */
	int nr_all; /* the set's: the region's, then the switch meter */
	int meter; /* the switch meter's index, or -1 */
	const volatile uint32_t *lock; /* a page's seqlock, or NULL */
	bool fast; /* counts alone, by the read plan (see begin_values()) */
	int unrolled; /* nr when add_values_fast() has it unrolled, else 0 */
	uint64_t kernel; /* events counting kernel mode only, by bit */
	int nr_lead; /* events whose times stand for their group's: */
	uint8_t lead[PCTR_MAX_EVENTS]; /* the first of each group */
	unsigned int detect; /* PCTR__DISTURB_* in force */
	int depth;
	int id[PCTR_REGION_MAX_DEPTH];
	uint32_t seq[PCTR_REGION_MAX_DEPTH]; /* *lock before begin's read */
	uint64_t tsc[PCTR_REGION_MAX_DEPTH];
	struct pctr_count *start; /* [PCTR_REGION_MAX_DEPTH * nr_all] */
	uint64_t *vstart; /* the same, counts alone, when fast */
	int cap; /* slots below */
	struct pctr_stats **rs; /* by region id */
	const char **key; /* name pointer last used for each id */
	bool *counted; /* this thread counted in the region's threads */
	uint8_t *ends; /* 1 << BY_*: the overheads its statistics report */
	struct path_overhead oh[NR_PATHS];
};

static struct {
	pthread_mutex_t lock;
	pthread_key_t key;
	bool key_ok;
	bool configured;
	bool used; /* a thread opened its counters: configuration is fixed */
	bool at_exit;
	char *events;
	unsigned int keep;
	unsigned int calibrate;
	bool drop; /* $PCTR_REGION_DISTURBED=drop */
	char report[4096]; /* $PCTR_REPORT, "" for none */
	bool report_chosen; /* pctr_region_report(): not the environment's */
	bool from_env; /* the events are $PCTR_EVENTS: say what fails */
	int nr_failed; /* events that could not be opened, once each */
	int nr; /* regions, including CAL_ID */
	int cap;
	char **name;
	struct pctr_stats **total; /* merged from threads, or NULL */
	int *threads;
} reg = { .lock = PTHREAD_MUTEX_INITIALIZER };

/*
 * The events that could not be opened, and why: apart from the registry,
 * so that its pages (touched on the slow path of regions that are being
 * measured) stay as few as they were.  Under reg.lock.
 */
static struct {
	char event[PCTR_MAX_EVENTS][PCTR_NAME_MAX];
	char why[PCTR_MAX_EVENTS][512];
} failed;

static int on;
static unsigned int gen;
static __thread struct region_thread *self;
/*
 * The thread's state when begin and end may take the user-space path
 * without another check: counters open, calibrated or calibrating, read
 * by the plan (t->fast), of this process (a fork's child clears it in the
 * one thread it has).  NULL otherwise.
 */
static __thread struct region_thread *live;

/* ---- the registry ----------------------------------------------------- */

static int
grow_registry(void)
{
	int cap = reg.cap ? reg.cap * 2 : 16;
	char **name = realloc(reg.name, cap * sizeof(*name));
	struct pctr_stats **total;
	int *threads;

	if (name)
		reg.name = name;
	total = name ? realloc(reg.total, cap * sizeof(*total)) : NULL;
	if (total)
		reg.total = total;
	threads = total ? realloc(reg.threads, cap * sizeof(*threads)) : NULL;
	if (!threads)
		return pctr__error(ENOMEM, "out of memory for regions");
	reg.threads = threads;
	for (int i = reg.cap; i < cap; i++) {
		reg.total[i] = NULL;
		reg.threads[i] = 0;
	}
	reg.cap = cap;
	return 0;
}

/* with reg.lock held */
static int
find_locked(const char *name)
{
	for (int i = CAL_ID + 1; i < reg.nr; i++)
		if (!strcmp(reg.name[i], name))
			return i;
	return -ENOENT;
}

static int
add_locked(const char *name)
{
	int r;

	if (reg.nr == 0 && *name) {
		r = add_locked(""); /* CAL_ID comes first */
		if (r < 0)
			return r;
	}
	if (reg.nr == reg.cap && (r = grow_registry()) < 0)
		return r;
	reg.name[reg.nr] = strdup(name);
	if (!reg.name[reg.nr])
		return pctr__error(ENOMEM, "out of memory for region names");
	__atomic_store_n(&reg.nr, reg.nr + 1, __ATOMIC_RELEASE);
	return reg.nr - 1;
}

static int
check_name(const char *name)
{
	if (!name || !*name)
		return pctr__error(EINVAL, "a region needs a non-empty name");
	if (strlen(name) >= PCTR_NAME_MAX)
		return pctr__error(EINVAL, "region name '%.40s...' is longer "
					   "than %d",
				   name, PCTR_NAME_MAX - 1);
	return 0;
}

PCTR_EXPORT int
pctr_region_id(const char *name)
{
	int r = check_name(name);

	if (r < 0)
		return r;
	pthread_mutex_lock(&reg.lock);
	r = find_locked(name);
	if (r < 0)
		r = add_locked(name);
	pthread_mutex_unlock(&reg.lock);
	return r;
}

/* ---- a thread's state -------------------------------------------------- */

static void
thread_free(struct region_thread *t)
{
	if (!t)
		return;
	for (int i = 0; i < t->cap; i++)
		pctr_stats_free(t->rs[i]);
	free(t->rs);
	free(t->key);
	free(t->counted);
	free(t->ends);
	free(t->start);
	free(t->vstart);
	pctr_set_free(t->set);
	free(t);
}

/*
 * Intervals, or disturbed ones left out: a region every interval of which
 * was dropped is still reported, with the number.
 */
static bool
has_any(const struct pctr_stats *st)
{
	return st && (st->n || st->disturbed);
}

/* Merge the thread's statistics into the registry's, then start afresh. */
static int
thread_flush(struct region_thread *t)
{
	int r = 0;

	pthread_mutex_lock(&reg.lock);
	for (int i = CAL_ID + 1; i < t->cap && r == 0; i++) {
		struct pctr_stats *st = t->rs[i];

		if (!has_any(st))
			continue;
		r = reg.total[i] ? pctr_stats_merge(reg.total[i], st)
				 : pctr__stats_clone(st, &reg.total[i]);
		if (r == 0 && !t->counted[i]) {
			reg.threads[i]++;
			t->counted[i] = true;
		}
		if (r == 0)
			pctr_stats_reset(st);
	}
	pthread_mutex_unlock(&reg.lock);
	return r;
}

static void
thread_exit(void *arg)
{
	struct region_thread *t = arg;

	if (t->gen == gen)
		thread_flush(t);
	if (self == t)
		self = live = NULL;
	thread_free(t);
}

/*
 * Record that @ev cannot be counted and why, once per process: in the
 * report, and, when the user chose the events through $PCTR_EVENTS, in one
 * line on standard error (the program, which did not ask for them, has no
 * way to know).
 */
static void
note_failure(const char *name, int err)
{
	char why[sizeof(failed.why[0])];

	snprintf(why, sizeof(why), "%s", pctr_strerror(err));
	pthread_mutex_lock(&reg.lock);
	for (int i = 0; i < reg.nr_failed; i++)
		if (!strcmp(failed.event[i], name))
			goto out;
	if (reg.nr_failed == PCTR_MAX_EVENTS)
		goto out;
	snprintf(failed.event[reg.nr_failed], sizeof(failed.event[0]), "%s",
		 name);
	snprintf(failed.why[reg.nr_failed++], sizeof(failed.why[0]), "%s",
		 why);
	if (reg.from_env)
		fprintf(stderr, "pctr: PCTR_EVENTS: '%s' not counted: %s\n",
			name, why);
out:
	pthread_mutex_unlock(&reg.lock);
}

/* @ev alone on the calling thread: 0 when the kernel takes it */
static int
try_alone(const struct pctr_event *ev)
{
	struct pctr_target me = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r = pctr_set_new(&set, 0);

	if (r == 0)
		r = pctr_set_add_event(set, ev);
	if (r == 0)
		r = pctr_set_open(set, &me);
	if (r < 0)
		note_failure(ev->name, r);
	pctr_set_free(set);
	return r;
}

/*
 * The events of @all that open on their own, into a new set.  Events the
 * user chose through $PCTR_EVENTS are counted when they can be, the others
 * left out; a program's own list keeps its meaning (every begin fails)
 * and only learns which event failed.  Return the first failure when
 * nothing (or, for a program's list, not everything) can be counted.
 */
static int
openable(struct pctr_set *all, struct pctr_set **setp)
{
	char why[sizeof(failed.why[0])] = "";
	int first = 0, r = pctr_set_new(setp, 0);

	for (int i = 0; r == 0 && i < pctr_set_nr(all); i++) {
		const struct pctr_event *ev = pctr_set_event(all, i);
		int e = try_alone(ev);

		if (e < 0 && !first) {
			first = e;
			snprintf(why, sizeof(why), "%s", pctr_strerror(e));
		}
		if (e == 0)
			r = pctr_set_add_event(*setp, ev);
	}
	if (r == 0 && first && (!reg.from_env || pctr_set_nr(*setp) == 0))
		return pctr__error(first, "%s", why);
	return r;
}

static int
open_list(struct pctr_set **setp, const char *events)
{
	struct pctr_target me = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *all;
	int r = pctr_set_new(&all, 0);

	if (r == 0)
		r = pctr_set_add_list(all, events);
	if (r >= 0)
		r = pctr_set_open(all, &me);
	if (r == -ENOMEM || r == -EMFILE || r == -ENFILE || r == 0) {
		*setp = all;
		return r;
	}
	if (pctr_set_nr(all) > 0)
		r = openable(all, setp);
	pctr_set_free(all);
	if (r == 0)
		r = pctr_set_open(*setp, &me);
	return r;
}

/* @dst's events are @src's: its groups of pctr_set_group() too */
static int
copy_groups(struct pctr_set *dst, const struct pctr_set *src, int nr)
{
	int r = 0;

	for (int e = 0, end; r == 0 && e < nr; e = end) {
		for (end = e + 1; end < nr && src->group_id[e] &&
				  src->group_id[end] == src->group_id[e];
		     end++)
			;
		if (src->group_id[e])
			r = pctr_set_group(dst, e, end - e);
	}
	return r;
}

/*
 * The thread's events again, and the switch meter after them, in the
 * last group: read with them by the same read(2).  Kept only if the kernel
 * lets it count kernel mode, where switches happen; else, or if anything
 * fails, the set stays as it was (the detector is not in force).
 */
static void
add_meter(struct region_thread *t)
{
	struct pctr_target me = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r = pctr_set_new(&set, 0);

	/* pctr_set_add_event() and _add_list() return an index, a number */
	for (int i = 0; r >= 0 && i < t->nr; i++)
		r = pctr_set_add_event(set, pctr_set_event(t->set, i));
	if (r >= 0)
		r = copy_groups(set, t->set, t->nr);
	if (r >= 0)
		r = pctr_set_add_list(set, "context-switches");
	if (r >= 0)
		r = pctr_set_open(set, &me);
	if (r < 0 || pctr_set_nr(set) != t->nr + 1 ||
	    (pctr_set_event(set, t->nr)->flags & PCTR_EVENT_USER_FALLBACK)) {
		pctr_set_free(set);
		return;
	}
	pctr_set_free(t->set);
	t->set = set;
	t->meter = t->nr;
}

/*
 * The mmap page of the set's first hardware counter when the set is read
 * in user space, else NULL: a software event's page is not rewritten when
 * the thread comes back (perf_event_update_userpage() is called from the
 * hardware drivers' start).
 */
static struct perf_event_mmap_page *
hw_page(const struct pctr_set *set)
{
	if (!set->user_read)
		return NULL;
	const struct pctr__ctr *ctr = set->inst->ctr;

	for (int c = 0; c < set->nr_ctr; c++)
		if (set->ev[ctr[c].event].hardware && ctr[c].page)
			return ctr[c].page;
	return NULL;
}

/* what the set offers to find disturbed intervals with (see the top) */
static void
detectors(struct region_thread *t)
{
	const struct pctr_set *set = t->set;
	struct perf_event_mmap_page *page = hw_page(set);

	t->detect = PCTR__DISTURB_MUX;
	if (t->meter >= 0)
		t->detect |= PCTR__DISTURB_SWITCH;
	if (page) {
		t->lock = &page->lock;
		t->detect |= PCTR__DISTURB_PAGE;
	}
	for (int i = 0; i < t->nr; i++) {
		const struct pctr_event *ev = pctr_set_event(set, i);

		if (ev->hardware && (ev->flags & PCTR_EVENT_EXCLUDE_USER) &&
		    !(ev->flags & PCTR_EVENT_EXCLUDE_KERNEL))
			t->kernel |= 1ull << i;
		/*
		 * The kernel puts a group on the counters and takes it off
		 * as a whole, and reads its members' times as the leader's:
		 * one event of each group says whether it was multiplexed.
		 * Events of several counters (hybrid parts): every one.
		 */
		const struct pctr__ctr *ctr = set->inst->ctr;

		if (!set->simple || i == 0 || ctr[i].event != i ||
		    ctr[i].group != ctr[i - 1].group)
			t->lead[t->nr_lead++] = (uint8_t)i;
	}
	if (t->kernel && t->lock)
		t->detect |= PCTR__DISTURB_KERNEL;
}

/*
 * Counts alone, through the set's read plan, where the set reads in user
 * space: a counter's page then says whether the interval was disturbed,
 * and times are not needed.  Only if a read of the counts does take the
 * user path now (a set of hardware events whose counters the kernel does
 * not let user space read reads by read(2), and needs the times).
 */
static void
choose_read(struct region_thread *t)
{
	uint64_t v[PCTR_MAX_EVENTS];

	t->fast = t->lock && pctr_set_read_values(t->set, v) ==
					     PCTR_PATH_USER;
}

/*
 * Whether the regions' statistics are those add_values_fast() unrolls:
 * 1 to 4 events, no cycles event (the basis is the ticks), no intervals
 * kept.  The same for every region of the thread (add_slot()).
 */
static void
choose_sums(struct region_thread *t)
{
	struct pctr_stats *st;

	t->unrolled = 0;
	if (t->nr > 4 || reg.keep ||
	    pctr__stats_new_for_events(&st, t->set, t->nr, 0) < 0)
		return;
	if (st->cycles == PCTR_STATS_TIME)
		t->unrolled = t->nr;
	pctr_stats_free(st);
}

static int
open_counters(struct region_thread *t)
{
	int r = open_list(&t->set, reg.events);
	size_t len;

	t->meter = -1;
	if (r == 0) {
		t->nr = pctr_set_nr(t->set);
		if (!hw_page(t->set))
			add_meter(t);
		r = pctr_set_enable(t->set);
	}
	if (r < 0)
		return r;
	t->nr_all = pctr_set_nr(t->set);
	detectors(t);
	choose_read(t);
	choose_sums(t);
	len = (size_t)PCTR_REGION_MAX_DEPTH * t->nr_all * sizeof(*t->start);
	t->start = malloc(len);
	t->vstart = calloc((size_t)PCTR_REGION_MAX_DEPTH * t->nr_all,
			   sizeof(*t->vstart));
	if (!t->start || !t->vstart)
		return pctr__error(ENOMEM, "out of memory for a thread's "
					   "regions");
	/* touched now, so that no region's first begin takes a page fault */
	memset(t->start, 0, len);
	return 0;
}

static int
grow_slots(struct region_thread *t, int want)
{
	int cap = want < 16 ? 16 : want * 2;
	struct pctr_stats **rs = realloc(t->rs, cap * sizeof(*rs));
	const char **key;
	bool *counted;
	uint8_t *ends;

	if (rs)
		t->rs = rs;
	key = rs ? realloc(t->key, cap * sizeof(*key)) : NULL;
	if (key)
		t->key = key;
	counted = key ? realloc(t->counted, cap * sizeof(*counted)) : NULL;
	if (counted)
		t->counted = counted;
	ends = counted ? realloc(t->ends, cap * sizeof(*ends)) : NULL;
	if (!ends)
		return pctr__error(ENOMEM, "out of memory for a thread's "
					   "regions");
	t->ends = ends;
	for (int i = t->cap; i < cap; i++) {
		t->rs[i] = NULL;
		t->key[i] = NULL;
		t->counted[i] = false;
		t->ends[i] = 0;
	}
	t->cap = cap;
	return 0;
}

/*
 * The overhead @st reports: that of each way in @ends, the smallest (the
 * spread the widest), as pctr_stats_merge() does for threads.
 */
static void
report_overhead(const struct region_thread *t, struct pctr_stats *st,
		unsigned int ends)
{
	struct path_overhead o = { .ticks = UINT64_MAX };

	for (int i = 0; i < t->nr; i++)
		o.ev[i] = UINT64_MAX;
	for (int p = 0; p < NR_PATHS; p++) {
		const struct path_overhead *q = &t->oh[p];

		if (!((ends >> p) & 1))
			continue;
		o.ticks = q->ticks < o.ticks ? q->ticks : o.ticks;
		o.ticks_sd = q->ticks_sd > o.ticks_sd ? q->ticks_sd
						      : o.ticks_sd;
		for (int i = 0; i < t->nr; i++) {
			o.ev[i] = q->ev[i] < o.ev[i] ? q->ev[i] : o.ev[i];
			o.sd[i] = q->sd[i] > o.sd[i] ? q->sd[i] : o.sd[i];
		}
	}
	pctr_stats_overhead_set(st, o.ticks, o.ev);
	pctr_stats_overhead_spread_set(st, o.ticks_sd, o.sd);
}

/*
 * A region ended another way than its statistics report so far: from now
 * on they report the smaller overhead.  Seen on every end by name and
 * every end by id off the fast path; an end by id on it (of a region that
 * a begin by name created in this thread) is not looked at, and leaves
 * the by-name overhead reported, though the by-id one is taken off.
 */
static inline void
ended_by(struct region_thread *t, int id, int path)
{
	if (__builtin_expect(!((t->ends[id] >> path) & 1), 0)) {
		t->ends[id] |= 1u << path;
		report_overhead(t, t->rs[id], t->ends[id]);
	}
}

/*
 * The first use of region @id in this thread: its statistics, reporting
 * the overhead of @path, the way the begin that created it named it.
 */
static int
add_slot(struct region_thread *t, int id, int path)
{
	struct pctr_stats *st;
	int r;

	if (id < 0 || id >= __atomic_load_n(&reg.nr, __ATOMIC_ACQUIRE))
		return pctr__error(ERANGE, "no region with id %d (ids come "
					   "from pctr_region_id())",
				   id);
	if (id >= t->cap && (r = grow_slots(t, id + 1)) < 0)
		return r;
	r = pctr__stats_new_for_events(&st, t->set, t->nr, reg.keep);
	if (r < 0)
		return r;
	/* in the pause of the regions around (begin_slow()): not at its end */
	pctr__stats_touch(st);
	st->detect = t->detect;
	st->drop = reg.drop;
	/* end adds sums alone: single intervals' rates are the kept ones' */
	st->no_extremes = true;
	t->rs[id] = st;
	t->ends[id] = 1u << path;
	report_overhead(t, st, t->ends[id]);
	return 0;
}

/*
 * Empty regions through the public calls, as a user would write them; the
 * smallest interval of each event and of the ticks is the overhead.
 *
 * Between begin's return and end's call the loop runs what the plainest
 * user code runs: the id put in the argument register and the call.  So
 * begin's result is not looked at there; the first pair checks both (a
 * failed begin makes the paired end fail anyway).
 */
/*
 * Out of line, so that the loop's own counting cannot be scheduled between
 * the two calls, and the result pinned so that end is a call, not a jump
 * after the frame is torn down.  By name, the name is what a program
 * passes: the address of a string, put in the argument register between
 * the calls as a literal's is.
 */
static __attribute__((noinline)) int
empty_pair_id(void)
{
	int r;

	pctr_region_begin_id(CAL_ID);
	r = pctr_region_end_id(CAL_ID);
	__asm__ volatile("" : "+r"(r));
	return r;
}

static __attribute__((noinline)) int
empty_pair_name(void)
{
	int r;

	pctr_region_begin(cal_name);
	r = pctr_region_end(cal_name);
	__asm__ volatile("" : "+r"(r));
	return r;
}

/* The overhead of ending regions the way @pair does, into t->oh[@path]. */
static int
calibrate_path(struct region_thread *t, int path, int (*pair)(void))
{
	struct path_overhead *o = &t->oh[path];
	struct pctr_stats *cal = t->rs[CAL_ID];
	int r;

	/*
	 * A first pair, left out: it writes the thread's bookkeeping for the
	 * first time, and the faults of those fresh pages (under
	 * AddressSanitizer, of its shadow too) are no part of a region's
	 * cost; they made the spread of empty regions' page faults nonzero.
	 */
	r = pair();
	if (r == 0)
		r = pctr_stats_reset(cal);
	for (unsigned int k = 0; r == 0 && k < reg.calibrate; k++)
		r = pair();
	if (r < 0)
		return r;
	/* all disturbed (a calibration of one or a few): nothing to take off,
	 * and the report's overhead of 0 says so */
	o->ticks = cal->n ? cal->time.min : 0;
	o->ticks_sd = pctr__series_sd(cal, &cal->time);
	for (int i = 0; i < t->nr; i++)
		o->ev[i] = cal->n ? cal->ev[i].min : 0;
	for (int i = 0; i < t->nr; i++)
		o->sd[i] = pctr__series_sd(cal, &cal->ev[i]);
	return pctr_stats_reset(cal);
}

/*
 * Each way of ending a region, with nothing taken off while it is measured
 * (t->oh is zero until its own calibration is done).
 */
static int
calibrate(struct region_thread *t)
{
	int r = add_slot(t, CAL_ID, BY_ID);

	if (r < 0 || reg.calibrate == 0)
		return r;
	t->key[CAL_ID] = cal_name;
	r = calibrate_path(t, BY_ID, empty_pair_id);
	if (r == 0)
		r = calibrate_path(t, BY_NAME, empty_pair_name);
	if (r == 0)
		report_overhead(t, t->rs[CAL_ID], 1u << BY_ID);
	return r;
}

static int
thread_new(struct region_thread **tp)
{
	struct region_thread *t = calloc(1, sizeof(*t));
	int r;

	if (!t)
		return pctr__error(ENOMEM, "out of memory for a thread's regions");
	pthread_mutex_lock(&reg.lock);
	reg.used = true;
	t->gen = gen;
	t->pid = getpid();
	pthread_mutex_unlock(&reg.lock);
	r = open_counters(t);
	if (r < 0) {
		pctr_set_free(t->set);
		t->set = NULL;
		t->err = r;
	}
	if (reg.key_ok)
		pthread_setspecific(reg.key, t);
	*tp = self = t;
	if (r < 0)
		return r;
	/* calibration runs the path the regions will take */
	live = t->fast ? t : NULL;
	r = calibrate(t);
	if (r < 0)
		live = NULL;
	return r;
}

static inline bool
ready(const struct region_thread *t, int id)
{
	return t && t->gen == gen && !t->err && (unsigned int)id <
	       (unsigned int)t->cap && t->rs[id];
}

/* Everything a begin may need before its read: the slow path. */
static int
prepare(int id, int path)
{
	struct region_thread *t = self;
	int r;

	if (t && t->gen != gen) {
		thread_free(t); /* a forked child's copy of its parent's */
		if (reg.key_ok)
			pthread_setspecific(reg.key, NULL);
		self = t = NULL;
	}
	if (!t && (r = thread_new(&t)) < 0)
		return r;
	if (t->err)
		return pctr__error(t->err, "%s", pctr_strerror(t->err));
	if ((unsigned int)id < (unsigned int)t->cap && t->rs[id])
		return 0;
	return add_slot(t, id, path);
}

/*
 * Move the start of every open region forward by @s1 less @s0.  Out of
 * line: exclude_since() runs it twice, and needs the same code both times.
 */
static __attribute__((noinline)) void
shift_starts(struct region_thread *t, const struct pctr_sample *s1,
	     const struct pctr_sample *s0)
{
	for (int d = 0; d < t->depth; d++) {
		struct pctr_count *c = &t->start[d * t->nr_all];
		uint64_t *v = &t->vstart[d * t->nr_all];

		t->tsc[d] += s1->tsc - s0->tsc;
		for (int i = 0; t->fast && i < t->nr_all; i++)
			v[i] += s1->count[i].value - s0->count[i].value;
		for (int i = 0; !t->fast && i < t->nr_all; i++) {
			struct pctr_count dc = pctr__count_delta(
				&s1->count[i], &s0->count[i]);

			c[i] = pctr_count_add(&c[i], &dc);
		}
	}
}

/*
 * Move the start of every open region forward by what happened since @s0,
 * so that the slow path of a region's first use (locks, allocation, page
 * faults) is not counted in the regions around it.
 *
 * What runs after the read that ends the pause is counted in them, so it
 * runs once before that read too, moving nothing: its first run in the
 * process (the page faults of code no thread has run yet) falls in the
 * pause.  Run cold after the read, its faults went to the regions around
 * the first region a process began inside another, or not, as the linker
 * had placed the code (pctr_count_add() on a page of its own, say).
 */
static void
exclude_since(struct region_thread *t, const struct pctr_sample *s0)
{
	struct pctr_sample s1;

	shift_starts(t, s0, s0);
	if (pctr_set_read(t->set, &s1) < 0)
		return;
	shift_starts(t, &s1, s0);
}

/*
 * And the page's seqlock: a rewrite during the pause (in the library's
 * slow path: a lock, an allocation) is not one of the regions around it.
 * A region whose page had moved before the pause stays flagged.
 */
static void
move_seq(struct region_thread *t, uint32_t before)
{
	uint32_t now = *t->lock;

	for (int d = 0; d < t->depth; d++)
		if (t->seq[d] == before)
			t->seq[d] = now;
}

static int lookup(struct region_thread *t, const char *name, bool create);
static void fork_child(void);

/*
 * A child made without fork()'s handlers (_Fork(), syscall(SYS_fork),
 * clone()) has its parent's state, whose counters count the parent's
 * thread: it starts afresh as fork_child() has a child of fork() do.
 * getpid() is a system call: the paths that read in user space (live)
 * do not ask, the others read with one anyway.
 */
static void
check_process(void)
{
	if (self && self->gen == gen && self->pid != getpid())
		fork_child();
}

/* A begin that must name, create or prepare: regions around it pause. */
static int
begin_slow(int *id, const char *name)
{
	struct region_thread *t = self;
	bool pause = t && t->gen == gen && !t->err && t->depth > 0;
	uint32_t seq = pause && t->lock ? *t->lock : 0;
	struct pctr_sample s0;
	int r = 0;

	if (pause && pctr_set_read(t->set, &s0) < 0)
		pause = false;
	if (name)
		r = *id = lookup(t, name, true);
	if (r >= 0)
		r = prepare(*id, name ? BY_NAME : BY_ID);
	if (r >= 0 && name)
		self->key[*id] = name;
	if (pause)
		exclude_since(t, &s0);
	if (pause && t->lock)
		move_seq(t, seq);
	return r < 0 ? r : 0;
}

/* ---- begin and end --------------------------------------------------- */

/*
 * An open region whose begin read its counts the slow way (the plan
 * missed: a counter elsewhere, off, or its page changing): marked in its
 * id, which end compares anyway, so that the mark costs nothing when
 * absent.  End finds the interval disturbed.
 */
#define ID_OFF_PLAN 0x40000000

static __attribute__((noinline)) int
begin_off_plan(struct region_thread *t, int d, int r)
{
	if (r < 0) {
		t->depth = d;
		return r;
	}
	t->id[d] |= ID_OFF_PLAN;
	return 0;
}

/*
 * Begin of a set read in user space: the page's seqlock, the region on
 * the stack, the timestamp, and the counts last (the plan's reader, as
 * pctr_set_read_values() calls it, without its argument checks).
 */
static inline __attribute__((always_inline)) int
begin_values(struct region_thread *t, int id)
{
	int d = t->depth, r;
	struct pctr_set *set = t->set;

	t->seq[d] = *t->lock;
	t->id[d] = id;
	t->depth = d + 1;
	t->tsc[d] = pctr__arch_tsc(PCTR_SERIAL_NONE);
	r = PCTR__HOT(set)->values(set->pc, &t->vstart[d * t->nr_all]);
	if (__builtin_expect(r != PCTR_PATH_USER, 0))
		return begin_off_plan(t, d, r);
	return 0;
}

/*
 * Begin, but for the user-space path of a region the thread knows: 1 when
 * the caller is to read by that path now (so that every region's reading
 * is followed by the same code, calibration's included), else 0 or an
 * error with the begin done.
 */
static __attribute__((noinline)) int
begin_general(int id)
{
	struct region_thread *t;
	struct pctr_sample s;
	int r;

	check_process();
	t = self;
	if (__builtin_expect(!ready(t, id), 0)) {
		r = begin_slow(&id, NULL);
		if (r < 0)
			return r;
		t = self;
	}
	if (t->depth == PCTR_REGION_MAX_DEPTH)
		return pctr__error(E2BIG, "more than %d regions open at once",
				   PCTR_REGION_MAX_DEPTH);
	if (t->fast && t == live)
		return 1;
	if (t->fast)
		return begin_values(t, id);
	/* before the read: a rewrite of the page during it is flagged too */
	if (t->lock)
		t->seq[t->depth] = *t->lock;
	r = pctr_set_read(t->set, &s);
	if (r < 0)
		return r;
	memcpy(&t->start[t->depth * t->nr_all], s.count,
	       t->nr_all * sizeof(s.count[0]));
	t->tsc[t->depth] = s.tsc;
	t->id[t->depth++] = id;
	return 0;
}

/* noinline: calibration (empty_pair()) calls it as a program does */
int pctr_region_begin_id(int id) __attribute__((noinline));

PCTR_EXPORT int
pctr_region_begin_id(int id)
{
	struct region_thread *t;

	if (!__atomic_load_n(&on, __ATOMIC_RELAXED))
		return 0;
	t = live;
	if (__builtin_expect(!t || (unsigned int)id >= (unsigned int)t->cap ||
				     !t->rs[id] ||
				     t->depth == PCTR_REGION_MAX_DEPTH,
			     0)) {
		int r = begin_general(id);

		if (r <= 0)
			return r;
		t = live;
	}
	return begin_values(t, id);
}

static int
end_error(const struct region_thread *t, int id)
{
	char want[PCTR_NAME_MAX] = "?", open[PCTR_NAME_MAX] = "";

	pthread_mutex_lock(&reg.lock);
	if ((unsigned int)id < (unsigned int)reg.nr)
		snprintf(want, sizeof(want), "%s", reg.name[id]);
	if (t && t->depth)
		snprintf(open, sizeof(open), "%s", reg.name[t->id[t->depth - 1]]);
	pthread_mutex_unlock(&reg.lock);
	if (!*open)
		return pctr__error(EINVAL, "region '%s' ended but no region "
					   "is open in this thread",
				   want);
	return pctr__error(EINVAL, "region '%s' ended while '%s' is the "
				   "innermost open region",
			   want, open);
}

/* a kernel-only event counted, in an interval read in user space */
static __attribute__((noinline)) unsigned int
kernel_ran(const struct region_thread *t, const struct pctr_count *c0,
	   const struct pctr_sample *s)
{
	if (!t->lock || s->path != PCTR_PATH_USER)
		return 0;
	for (int i = 0; i < t->nr; i++)
		if (((t->kernel >> i) & 1) && s->count[i].value != c0[i].value)
			return PCTR__DISTURB_KERNEL;
	return 0;
}

/* PCTR__DISTURB_* of the interval from open region @d to @s (see the top) */
static unsigned int
disturbed(const struct region_thread *t, int d, const struct pctr_sample *s)
{
	const struct pctr_count *c0 = &t->start[d * t->nr_all];
	unsigned int why = 0;

	if (t->lock && *t->lock != t->seq[d])
		why |= PCTR__DISTURB_PAGE;
	if (t->meter >= 0 && s->count[t->meter].value != c0[t->meter].value)
		why |= PCTR__DISTURB_SWITCH;
	for (int k = 0; k < t->nr_lead; k++) {
		int i = t->lead[k];

		if (s->count[i].running - c0[i].running !=
		    s->count[i].enabled - c0[i].enabled)
			why |= PCTR__DISTURB_MUX;
	}
	if (__builtin_expect(t->kernel != 0, 0))
		why |= kernel_ran(t, c0, s);
	return why;
}

/* the end of a region read with pctr_set_read(), ended the way @path */
static int
finish(struct region_thread *t, int id, const struct pctr_sample *s,
       int path)
{
	const struct path_overhead *o = &t->oh[path];
	struct pctr_stats *st = t->rs[id];
	int d = t->depth - 1;

	if (d < 0 || t->id[d] != id)
		return end_error(t, id);
	t->depth = d;
	ended_by(t, id, path);
	if (__builtin_expect(disturbed(t, d, s) != 0, 0)) {
		st->disturbed++;
		if (st->drop || id == CAL_ID)
			return 0;
	}
	return pctr__stats_add_counts(st, s->tsc - t->tsc[d], s->count,
				      &t->start[d * t->nr_all], o->ticks,
				      o->ev);
}

static inline int
read_now(struct region_thread *t, struct pctr_sample *s)
{
	if (!t || t->gen != gen || t->depth == 0)
		return -EINVAL;
	return pctr_set_read(t->set, s);
}

/* a kernel-only event counted, counts alone (see kernel_ran()) */
static __attribute__((noinline)) bool
kernel_ran_values(const struct region_thread *t, const uint64_t *v0,
		  const uint64_t *v)
{
	for (int i = 0; i < t->nr; i++)
		if (((t->kernel >> i) & 1) && v[i] != v0[i])
			return true;
	return false;
}

/*
 * The sums of pctr__stats_add_net() for @nr events known when compiling
 * (regions of 1 to 4 events, on the ticks' cycle basis, keeping no
 * intervals): unrolled, without its tests.
 */
static inline __attribute__((always_inline)) void
sums_of(struct pctr_stats *st, uint64_t ticks, const uint64_t *x, int nr)
{
	struct pctr__series *ev = st->ev;
	pctr__u128 *xt = st->xt, *xy = st->xy;
	int k = 0;

	st->n++;
	pctr__series_add(&st->time, ticks);
	for (int i = 0; i < nr; i++) {
		pctr__series_add(&ev[i], x[i]);
		xt[i] += (pctr__u128)x[i] * ticks;
	}
	for (int i = 0; i < nr; i++)
		for (int j = i + 1; j < nr; j++)
			xy[k++] += (pctr__u128)x[i] * x[j];
}

/*
 * The net counts of the interval of open region @d, read at @v, @tsc, of
 * a region ended the way @o was measured.
 */
static inline __attribute__((always_inline)) uint64_t
net_values(const struct path_overhead *o, const struct region_thread *t,
	   int d, const uint64_t *v, uint64_t tsc, uint64_t *x, int nr)
{
	const uint64_t *v0 = &t->vstart[d * t->nr_all];
	uint64_t ticks = tsc - t->tsc[d];

	for (int i = 0; i < nr; i++) {
		uint64_t c = v[i] - v0[i];

		/* a count that went backwards is 0, as interval_count() */
		c = v[i] >= v0[i] ? c : 0;
		x[i] = c > o->ev[i] ? c - o->ev[i] : 0;
	}
	return ticks > o->ticks ? ticks - o->ticks : 0;
}

/* the interval of open region @d, read at @v, @tsc, into @st */
static __attribute__((noinline)) void
add_values(struct pctr_stats *st, const struct region_thread *t, int d,
	   const uint64_t *v, uint64_t tsc, int path)
{
	const struct path_overhead *o = &t->oh[path];
	uint64_t x[PCTR_MAX_EVENTS];

	pctr__stats_add_net(st, net_values(o, t, d, v, tsc, x, t->nr), x);
}

#define ADD_FIXED(n)                                                          \
	case n:                                                               \
		sums_of(st, net_values(o, t, d, v, tsc, x, n), x, n);         \
		return

/* add_values() for the usual regions ended by id, unrolled */
static inline __attribute__((always_inline)) void
add_values_fast(struct pctr_stats *st, const struct region_thread *t, int d,
		const uint64_t *v, uint64_t tsc)
{
	const struct path_overhead *o = &t->oh[BY_ID];
	uint64_t x[4];

	switch (t->unrolled) {
		ADD_FIXED(1);
		ADD_FIXED(2);
		ADD_FIXED(3);
		ADD_FIXED(4);
	}
	add_values(st, t, d, v, tsc, BY_ID);
}

/*
 * End of a region opened by begin_values(), or an error: the slow cases
 * (a begin off the plan, an end off it, a moved page, a kernel-only
 * event that counted), the wrong region, and every end by name (@path).
 */
static __attribute__((noinline)) int
finish_values_slow(struct region_thread *t, int id, const uint64_t *v,
		   uint64_t tsc, int r, int path)
{
	int d = t->depth - 1;
	struct pctr_stats *st;

	if (r < 0)
		return r;
	if ((t->id[d] & ~ID_OFF_PLAN) != id)
		return end_error(t, id);
	t->depth = d;
	st = t->rs[id];
	ended_by(t, id, path);
	if (t->id[d] != id || r != PCTR_PATH_USER || *t->lock != t->seq[d] ||
	    (t->kernel && kernel_ran_values(t, &t->vstart[d * t->nr_all], v))) {
		st->disturbed++;
		if (st->drop || id == CAL_ID)
			return 0;
	}
	add_values(st, t, d, v, tsc, path);
	return 0;
}

/*
 * The counts first, then only integer sums (pctr__stats_add_net()): the
 * figures are derived when they are asked for.
 */
static inline __attribute__((always_inline)) int
end_values(struct region_thread *t, int id)
{
	uint64_t v[PCTR_MAX_EVENTS], tsc;
	struct pctr_set *set = t->set;
	int d, r;

	tsc = pctr__arch_tsc(PCTR_SERIAL_NONE);
	r = PCTR__HOT(set)->values(set->pc, v);
	d = t->depth - 1;
	if (__builtin_expect(r != PCTR_PATH_USER || t->id[d] != id ||
			     *t->lock != t->seq[d] || t->kernel, 0))
		return finish_values_slow(t, id, v, tsc, r, BY_ID);
	t->depth = d;
	add_values_fast(t->rs[id], t, d, v, tsc);
	return 0;
}

static __attribute__((noinline)) int
end_general(int id)
{
	struct region_thread *t;
	struct pctr_sample s;
	int r;

	check_process();
	t = self;
	if (t && t->gen == gen && t->depth && t->fast)
		return end_values(t, id);
	r = read_now(t, &s);
	if (r == -EINVAL)
		return end_error(t && t->gen == gen ? t : NULL, id);
	return r < 0 ? r : finish(t, id, &s, BY_ID);
}

/* noinline: calibration (empty_pair()) calls it as a program does */
int pctr_region_end_id(int id) __attribute__((noinline));

PCTR_EXPORT int
pctr_region_end_id(int id)
{
	struct region_thread *t;

	if (!__atomic_load_n(&on, __ATOMIC_RELAXED))
		return 0;
	t = live;
	if (__builtin_expect(t && t->depth, 1))
		return end_values(t, id);
	return end_general(id);
}

static inline int
lookup_fast(const struct region_thread *t, const char *name)
{
	/* from CAL_ID: calibration's own name (cal_name) */
	if (t && t->gen == gen)
		for (int i = CAL_ID; i < t->cap; i++)
			if (t->key[i] == name)
				return i;
	return -1;
}

/* Name to id: by address in this thread first, then by text. */
static int
lookup(struct region_thread *t, const char *name, bool create)
{
	int id = lookup_fast(t, name);

	if (id >= 0)
		return id;
	if (check_name(name) < 0)
		return -EINVAL;
	pthread_mutex_lock(&reg.lock);
	id = find_locked(name);
	if (id < 0 && create)
		id = add_locked(name);
	pthread_mutex_unlock(&reg.lock);
	if (id == -ENOENT)
		return pctr__error(EINVAL, "region '%s' ended but never began",
				   name);
	return id;
}

PCTR_EXPORT int
pctr_region_begin(const char *name)
{
	int id, r;

	if (!__atomic_load_n(&on, __ATOMIC_RELAXED))
		return 0;
	id = lookup_fast(self, name);
	if (id < 0 || !ready(self, id)) {
		r = begin_slow(&id, name);
		if (r < 0)
			return r;
	}
	return pctr_region_begin_id(id);
}

/* pctr_region_end() of a set read by begin_values(): the counts first */
static int
end_named_values(struct region_thread *t, const char *name)
{
	uint64_t v[PCTR_MAX_EVENTS], tsc;
	int id, r;

	tsc = pctr__arch_tsc(PCTR_SERIAL_NONE);
	r = PCTR__HOT(t->set)->values(t->set->pc, v);
	id = lookup(t, name, false);
	if (id < 0)
		return id;
	return finish_values_slow(t, id, v, tsc, r, BY_NAME);
}

PCTR_EXPORT int
pctr_region_end(const char *name)
{
	struct region_thread *t;
	struct pctr_sample s;
	int id, r;

	if (!__atomic_load_n(&on, __ATOMIC_RELAXED))
		return 0;
	t = self;
	if (t && t->gen == gen && t->depth && t->fast)
		return end_named_values(t, name);
	check_process();
	t = self;
	r = read_now(t, &s);
	id = lookup(t, name, false);
	if (id < 0)
		return id;
	if (r == -EINVAL)
		return end_error(t && t->gen == gen ? t : NULL, id);
	return r < 0 ? r : finish(t, id, &s, BY_NAME);
}

PCTR_EXPORT int
pctr_region_flush(void)
{
	struct region_thread *t;

	check_process();
	t = self;
	if (!t || t->gen != gen || t->err)
		return 0;
	if (t->depth)
		return pctr__error(EBUSY, "cannot flush inside a region (%d "
					  "open)",
				   t->depth);
	return thread_flush(t);
}

/* ---- configuration ----------------------------------------------------- */

static int
check_report(const char *dest)
{
	static const char *const fmt[] = { "text:", "csv:", "json:" };

	if (!strcmp(dest, "-") || !strcmp(dest, "stderr"))
		return PCTR_REPORT_TEXT;
	for (size_t i = 0; i < PCTR_ARRAY_SIZE(fmt); i++)
		if (!strncmp(dest, fmt[i], strlen(fmt[i])) &&
		    dest[strlen(fmt[i])])
			return (int)i;
	return pctr__error(EINVAL, "report destination '%s': expected "
				   "text:FILE, csv:FILE, json:FILE, '-' or "
				   "'stderr'",
			   dest);
}

static bool worth_reporting(void);

static void
report_at_exit(void)
{
	int r;

	if (!reg.report[0] || !worth_reporting())
		return;
	r = pctr_region_write_to(reg.report);
	if (r < 0)
		fprintf(stderr, "pctr: PCTR_REPORT=%s: %s\n", reg.report,
			pctr_strerror(r));
}

static void
fork_prepare(void)
{
	pthread_mutex_lock(&reg.lock);
}

static void
fork_parent(void)
{
	pthread_mutex_unlock(&reg.lock);
}

/* The child has one thread and its own counters to open: start afresh. */
static void
fork_child(void)
{
	pthread_mutex_init(&reg.lock, NULL);
	for (int i = 0; i < reg.nr; i++) {
		pctr_stats_free(reg.total[i]);
		reg.total[i] = NULL;
		reg.threads[i] = 0;
	}
	reg.nr_failed = 0;
	gen++;
	live = NULL; /* the child's one thread: its counters are not open */
}

/* once, with reg.lock held */
static void
register_hooks(void)
{
	if (reg.at_exit)
		return;
	reg.at_exit = true;
	reg.key_ok = pthread_key_create(&reg.key, thread_exit) == 0;
	pthread_atfork(fork_prepare, fork_parent, fork_child);
	atexit(report_at_exit);
}

/*
 * Every knob through secure_getenv(): in a program running with more
 * privilege than its user (setuid, setgid, file capabilities) the
 * environment is the user's, so it neither switches measurement on nor
 * names a file for the program to write.
 */
static const char *
env(const char *name)
{
	const char *v = secure_getenv(name);

	return v && *v ? v : NULL;
}

static int
check_events(const char *events)
{
	struct pctr_set *set;
	int r = pctr_set_new(&set, 0);

	if (r == 0)
		r = pctr_set_add_list(set, events);
	pctr_set_free(set);
	return r < 0 ? r : 0;
}

static int
configure_locked(const struct pctr_region_config *cfg, const char *events,
		 const char *report, bool from_env, bool drop)
{
	char *copy = strdup(events);

	if (!copy)
		return pctr__error(ENOMEM, "out of memory");
	free(reg.events);
	reg.events = copy;
	reg.keep = cfg ? cfg->keep : 0;
	reg.calibrate = cfg ? cfg->calibrate : PCTR_REGION_CALIBRATE;
	reg.drop = drop;
	if (!reg.report_chosen)
		snprintf(reg.report, sizeof(reg.report), "%s",
			 report ? report : "");
	reg.from_env = from_env;
	reg.configured = true;
	register_hooks();
	return 0;
}

static int
check_config(const char *events, const char *report)
{
	int r;

	if (report && (r = check_report(report)) < 0)
		return r;
	if (strcmp(events, "off") && (r = check_events(events)) < 0)
		return r;
	return 0;
}

/*
 * The report written at exit: @dest as $PCTR_REPORT takes it, or NULL (or
 * "") for none.  A layer that writes a report of its own in its place (the
 * MPI library gathers every rank's regions into one) cancels the
 * process's; a program chooses one without the environment.
 */
PCTR_EXPORT int
pctr_region_report(const char *dest)
{
	int r;

	if (dest && !strcmp(dest, "none"))
		dest = NULL;
	r = dest && *dest ? check_report(dest) : 0;

	if (r < 0)
		return r;
	if (dest && strlen(dest) >= sizeof(reg.report))
		return pctr__error(ENAMETOOLONG, "report destination of %zu "
				   "bytes", strlen(dest));
	pthread_mutex_lock(&reg.lock);
	snprintf(reg.report, sizeof(reg.report), "%s", dest ? dest : "");
	reg.report_chosen = true;
	register_hooks();
	pthread_mutex_unlock(&reg.lock);
	return 0;
}

#define CONFIG_SIZED \
	PCTR__SIZED(pctr_region_config, PCTR_REGION_CONFIG_SIZE_VER0)

/*
 * Whether disturbed intervals are left out: $PCTR_REGION_DISTURBED if set,
 * else the program's choice.  Anything else is refused, whole: nothing is
 * configured.
 */
static int
check_disturbed(const struct pctr_region_config *cfg, bool *drop)
{
	const char *v = env("PCTR_REGION_DISTURBED");

	if (v && (!strcmp(v, "keep") || !strcmp(v, "drop"))) {
		*drop = !strcmp(v, "drop");
		return 0;
	}
	if (v)
		return pctr__error(EINVAL, "PCTR_REGION_DISTURBED='%.40s': "
					   "expected 'keep' (disturbed "
					   "intervals stay in the statistics) "
					   "or 'drop' (they are left out)",
				   v);
	if (cfg && cfg->disturbed != PCTR_REGION_DISTURBED_KEEP &&
	    cfg->disturbed != PCTR_REGION_DISTURBED_DROP)
		return pctr__error(EINVAL, "pctr_region_config.disturbed is "
					   "%u: expected "
					   "PCTR_REGION_DISTURBED_KEEP (0) or "
					   "_DROP (1)",
				   cfg->disturbed);
	*drop = cfg && cfg->disturbed == PCTR_REGION_DISTURBED_DROP;
	return 0;
}

PCTR_EXPORT int
pctr_region_init(const struct pctr_region_config *ucfg)
{
	const char *events = env("PCTR_EVENTS");
	const char *report = env("PCTR_REPORT");
	bool from_env = events != NULL;
	struct pctr_region_config full, *cfg = ucfg ? &full : NULL;
	bool drop = false;
	int r;

	if (ucfg && (r = pctr__struct_in(&CONFIG_SIZED, &full, ucfg)) < 0)
		return r;
	r = check_disturbed(cfg, &drop);
	if (r < 0)
		return r;
	if (!events)
		events = cfg && cfg->events ? cfg->events : "task-clock";
	/* measuring on request and no report asked for: shown, not lost */
	else if (!report)
		report = "stderr";
	if (report && !strcmp(report, "none"))
		report = NULL;
	r = check_config(events, report);
	if (r < 0)
		return r;
	pthread_mutex_lock(&reg.lock);
	if (reg.used)
		r = pctr__error(EALREADY, "regions are configured once, before "
					  "any thread enters one");
	else
		r = configure_locked(cfg, events, report, from_env, drop);
	pthread_mutex_unlock(&reg.lock);
	if (r == 0)
		__atomic_store_n(&on, strcmp(events, "off") != 0,
				 __ATOMIC_RELAXED);
	return r;
}

PCTR_EXPORT int
pctr_region_enable(int enable)
{
	if (!reg.configured)
		return pctr__error(EBADFD, "regions are not configured: call "
					   "pctr_region_init() first");
	if (enable && !strcmp(reg.events, "off"))
		return 0;
	__atomic_store_n(&on, enable != 0, __ATOMIC_RELAXED);
	return 0;
}

/* An instrumented program measures its regions when $PCTR_EVENTS says so. */
__attribute__((constructor)) static void
region_from_env(void)
{
	int r;

	if (!env("PCTR_EVENTS"))
		return;
	r = pctr_region_init(NULL);
	if (r < 0)
		fprintf(stderr, "pctr: regions not measured: %s\n",
			pctr_strerror(r));
}

/* ---- results ------------------------------------------------------------ */

/* The registry's statistics of @id plus the calling thread's; reg.lock held */
static int
merged_locked(int id, struct pctr_stats **stp, int *threads)
{
	const struct region_thread *t = self;
	const struct pctr_stats *mine = NULL;
	int r;

	*stp = NULL;
	*threads = reg.threads[id];
	if (t && t->gen == gen && id < t->cap && has_any(t->rs[id])) {
		mine = t->rs[id];
		*threads += !t->counted[id];
	}
	if (!reg.total[id] && !mine)
		return 0;
	r = pctr__stats_clone(reg.total[id] ? reg.total[id] : mine, stp);
	if (r == 0 && reg.total[id] && mine)
		r = pctr_stats_merge(*stp, mine);
	if (r < 0) {
		pctr_stats_free(*stp);
		*stp = NULL;
	}
	return r;
}

PCTR_EXPORT int
pctr_region_stats(const char *name, struct pctr_stats **stp)
{
	int id, threads, r = check_name(name);

	if (r < 0)
		return r;
	if (!stp)
		return pctr__error(EINVAL, "NULL statistics pointer");
	pthread_mutex_lock(&reg.lock);
	id = find_locked(name);
	r = id < 0 ? id : merged_locked(id, stp, &threads);
	if (r == 0 && !*stp)
		r = -ENOENT;
	pthread_mutex_unlock(&reg.lock);
	if (r == -ENOENT)
		return pctr__error(ENOENT, "no intervals of region '%s' in "
					   "threads that exited, flushed, or "
					   "in this thread",
				   name);
	return r;
}

static int
write_locked(FILE *f, int format)
{
	bool first = true;
	int r = pctr__report_begin(f, format, NULL);

	for (int id = CAL_ID + 1; r == 0 && id < reg.nr; id++) {
		struct pctr_stats *st;
		int threads;

		r = merged_locked(id, &st, &threads);
		if (r < 0 || !st)
			continue;
		pctr__stats_write_one(st, f, format, reg.name[id], threads,
				      first);
		first = false;
		pctr_stats_free(st);
	}
	if (r == 0 && format == PCTR_REPORT_JSON && !first)
		fputc('\n', f);
	for (int i = 0; r == 0 && i < reg.nr_failed; i++)
		pctr__report_not_counted(f, format, failed.event[i],
					 failed.why[i], i == 0);
	if (r == 0 && format == PCTR_REPORT_JSON && reg.nr_failed)
		fputc('\n', f);
	return r < 0 ? r : pctr__report_end(f, format);
}

/* Anything to report: an interval of some region, or an event left out. */
static bool
worth_reporting(void)
{
	bool any;

	pthread_mutex_lock(&reg.lock);
	any = reg.nr_failed > 0;
	for (int id = CAL_ID + 1; !any && id < reg.nr; id++) {
		struct pctr_stats *st;
		int threads;

		any = merged_locked(id, &st, &threads) == 0 && st;
		pctr_stats_free(st);
	}
	pthread_mutex_unlock(&reg.lock);
	return any;
}

PCTR_EXPORT int
pctr_region_write(FILE *f, int format)
{
	locale_t old;
	int r;

	if (!f)
		return pctr__error(EINVAL, "NULL FILE");
	old = pctr__report_locale(format);
	pthread_mutex_lock(&reg.lock);
	r = write_locked(f, format);
	pthread_mutex_unlock(&reg.lock);
	pctr__locale_restore(old);
	return r;
}

/* FILE with each "%p" replaced by the process id */
static void
expand_path(const char *file, char *out, size_t len)
{
	size_t n = 0;

	for (; *file && n + 1 < len; file++) {
		if (file[0] == '%' && file[1] == 'p') {
			n += snprintf(out + n, len - n, "%d", (int)getpid());
			file++;
		} else {
			out[n++] = *file;
		}
		if (n >= len)
			n = len - 1;
	}
	out[n] = '\0';
}

/* the report file, by the one rule of report files (text.h) */
static int
open_report(const char *path, FILE **fp)
{
	char why[PCTR__REPORT_WHY_MAX];
	int r = pctr__report_file_open(path, fp, why, sizeof(why));

	return r < 0 ? pctr__error(r, "%s", why) : 0;
}

PCTR_EXPORT int
pctr_region_write_to(const char *dest)
{
	const char *colon;
	char path[4096];
	int format, r;
	FILE *f;

	if (!dest)
		return pctr__error(EINVAL, "NULL report destination");
	format = check_report(dest);
	if (format < 0)
		return format;
	colon = strchr(dest, ':');
	if (!colon || !strcmp(colon + 1, "-"))
		return pctr_region_write(stderr, format);
	expand_path(colon + 1, path, sizeof(path));
	r = open_report(path, &f);
	if (r < 0)
		return r;
	r = pctr_region_write(f, format);
	if (fclose(f) != 0 && r == 0)
		r = pctr__error(EIO, "closing the report '%s' failed", path);
	return r;
}

/* ---- the regions, one by one -------------------------------------------- */

struct pctr_regions {
	int nr;
	char (*name)[PCTR_NAME_MAX];
	struct pctr_stats **st;
	int *threads;
};

PCTR_EXPORT void
pctr_regions_free(struct pctr_regions *r)
{
	if (!r)
		return;
	for (int i = 0; i < r->nr; i++)
		pctr_stats_free(r->st[i]);
	free(r->name);
	free(r->st);
	free(r->threads);
	free(r);
}

/* every region with intervals, as write_locked() reports them */
static int
snapshot_locked(struct pctr_regions *r)
{
	int cap = reg.nr, e = 0;

	r->name = calloc(cap ? cap : 1, sizeof(*r->name));
	r->st = calloc(cap ? cap : 1, sizeof(*r->st));
	r->threads = calloc(cap ? cap : 1, sizeof(*r->threads));
	if (!r->name || !r->st || !r->threads)
		return pctr__error(ENOMEM, "out of memory for a snapshot of "
					   "%d regions",
				   cap);
	for (int id = CAL_ID + 1; e == 0 && id < reg.nr; id++) {
		e = merged_locked(id, &r->st[r->nr], &r->threads[r->nr]);
		if (e < 0 || !r->st[r->nr])
			continue;
		snprintf(r->name[r->nr++], PCTR_NAME_MAX, "%s", reg.name[id]);
	}
	return e;
}

PCTR_EXPORT int
pctr_regions_get(struct pctr_regions **rp)
{
	struct pctr_regions *r;
	int e;

	if (!rp)
		return pctr__error(EINVAL, "NULL snapshot pointer");
	*rp = NULL;
	r = calloc(1, sizeof(*r));
	if (!r)
		return pctr__error(ENOMEM, "out of memory for a snapshot of "
					   "the regions");
	pthread_mutex_lock(&reg.lock);
	e = snapshot_locked(r);
	pthread_mutex_unlock(&reg.lock);
	if (e < 0) {
		pctr_regions_free(r);
		return e;
	}
	*rp = r;
	return 0;
}

PCTR_EXPORT int
pctr_regions_nr(const struct pctr_regions *r)
{
	return r ? r->nr : pctr__error(EINVAL, "NULL snapshot");
}

static bool
in_range(const struct pctr_regions *r, int i)
{
	return r && i >= 0 && i < r->nr;
}

PCTR_EXPORT const char *
pctr_regions_name(const struct pctr_regions *r, int i)
{
	return in_range(r, i) ? r->name[i] : NULL;
}

PCTR_EXPORT const struct pctr_stats *
pctr_regions_stats(const struct pctr_regions *r, int i)
{
	return in_range(r, i) ? r->st[i] : NULL;
}

PCTR_EXPORT int
pctr_regions_threads(const struct pctr_regions *r, int i)
{
	if (!in_range(r, i))
		return pctr__error(ERANGE, "no region %d in the snapshot (%d "
					   "regions)",
				   i, r ? r->nr : 0);
	return r->threads[i];
}
