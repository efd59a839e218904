/* SPDX-License-Identifier: MIT */
/*
 * pmc.c - pmc_open(), pmc_select(), pmc_read(), pmc_accumulate() and
 * friends over one libpctr set counting the calling thread.
 *
 * pmc_select() opens the selector's events as a new set (the original
 * wrote the control registers); pmc_read() reads that set, in user space
 * when the kernel allows it, with the timestamp counter as the cycles;
 * pmc_accumulate() adds t1 - t0 to the counter's libpctr statistics, which
 * take off the overhead measured at the counter's first pmc_select() and
 * clamp at zero.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "pmclib.h"

static struct {
	int open;
	struct pctr_set *set;
	const pmc_counter_t *cur;
	int idx[PMC_NCOUNTERS]; /* event index in the set, -1 if none */
	bool direct; /* idx[i] == i for every counter: pmc_read()'s plan */
	pmc_cycles_t start;
	struct pctr_sample s, s0, s1;
} pmc;

static FILE *
errf(void)
{
	return pmc__ctl && pmc__ctl->err ? pmc__ctl->err : stderr;
}

static const char *
prog(void)
{
	return pmc__ctl && pmc__ctl->progname ? pmc__ctl->progname : "pmc_lib";
}

int
pmc__event(const pmc_selector_t *sel, int i, struct pctr_event *ev)
{
	unsigned int fn = sel->fn[i];
	int r;

	ev->size = sizeof(*ev);
	if (!sel->name[i][0] && !(fn & 0xff))
		return 1;
	if (!(fn & PCTR_FN_EN))
		return 1; /* --Enable 0: the counter stays at zero */
	if (!sel->name[i][0])
		/* pins and APIC interrupts belong to the kernel */
		return pctr_event_from_x86(fn & ~(PMC_FN_PC | PMC_FN_INT), ev);
	r = pctr_event_parse(sel->name[i], ev);
	if (r == 0 && !strchr(sel->name[i], ':') &&
	    !strchr(sel->name[i], '/')) {
		ev->flags &= ~(PCTR_EVENT_EXCLUDE_USER |
			       PCTR_EVENT_EXCLUDE_KERNEL |
			       PCTR_EVENT_EXCLUDE_HV);
		if (!(fn & PCTR_FN_USR))
			ev->flags |= PCTR_EVENT_EXCLUDE_USER;
		if (!(fn & PCTR_FN_OS))
			ev->flags |= PCTR_EVENT_EXCLUDE_KERNEL |
				     PCTR_EVENT_EXCLUDE_HV;
	}
	return r;
}

void
pmc__event_label(const pmc_selector_t *sel, int i, char *buf, size_t len)
{
	const struct pmc_p6_event *e;
	unsigned int code = sel->fn[i] & 0xff;

	if (sel->name[i][0]) {
		snprintf(buf, len, "%s", sel->name[i]);
	} else if (!code) {
		snprintf(buf, len, "none");
	} else {
		e = pmc__p6_event(code);
		snprintf(buf, len, "0x%02x %u %s", code, code,
			 e ? e->name : "unknown");
	}
}

static int
needs_pmu(const pmc_control_t *ctl)
{
	for (int c = 0; ctl && c < ctl->ncounters; c++)
		for (int i = 0; i < PMC_NCOUNTERS; i++) {
			struct pctr_event ev;
			int r = pmc__event(&ctl->counters[c].selector, i, &ev);

			if (r == -ENODEV || (r == 0 && ev.hardware))
				return 1;
		}
	return 0;
}

/*
 * The original opened /dev/pmc, which exists only where the processor has
 * counters: fail the same way when the events need a PMU this machine
 * does not have.
 */
PMC_EXPORT int
pmc_open(int flags)
{
	struct pctr_machine m = { .size = sizeof(m) };
	int r = pctr_machine_get(&m);

	if (r == 0 && !m.has_pmu && needs_pmu(pmc__ctl))
		r = -ENODEV;
	if (r < 0) {
		fprintf(errf(), "%s: pmc_open: no performance-monitoring "
			"counters: %s\n", prog(), pctr_strerror(r));
		return FALSE;
	}
	pmc.open = 1;
	pmc.start = pctr_tsc();
	pmc.cur = NULL;
	return TRUE;
}

static void
release(void)
{
	pctr_set_free(pmc.set);
	pmc.set = NULL;
	pmc.cur = NULL;
	pmc.idx[0] = pmc.idx[1] = -1;
	pmc.direct = false;
}

PMC_EXPORT int
pmc_close(void)
{
	release();
	pmc.open = 0;
	return TRUE;
}

PMC_EXPORT int
pmc_reset(void)
{
	release();
	return TRUE;
}

PMC_EXPORT void
pmc_start(void)
{
	pmc.start = pctr_tsc();
}

PMC_EXPORT double
pmc_cycles_per_second(void)
{
	return (double)pctr_tsc_hz();
}

static int
open_selector(const pmc_selector_t *sel)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	int r = pctr_set_new(&pmc.set, 0);

	pmc.idx[0] = pmc.idx[1] = -1;
	for (int i = 0; r >= 0 && i < PMC_NCOUNTERS; i++) {
		struct pctr_event ev;

		r = pmc__event(sel, i, &ev);
		if (r == 0)
			r = pmc.idx[i] = pctr_set_add_event(pmc.set, &ev);
		else if (r == 1)
			r = 0;
	}
	if (r >= 0 && pctr_set_nr(pmc.set) > 0)
		r = pctr_set_open(pmc.set, &self);
	if (r >= 0 && pctr_set_nr(pmc.set) > 0)
		r = pctr_set_enable(pmc.set);
	if (r >= 0 && pctr_set_nr(pmc.set) == 0) {
		pctr_set_free(pmc.set);
		pmc.set = NULL;
	}
	pmc.direct = r >= 0 && pmc.idx[0] == 0 && pmc.idx[1] == 1;
	return r;
}

/*
 * Two reads in a row, with only what the plainest caller runs between
 * them: the second one's argument put in its register.  Out of line, so
 * that calibrate()'s loop cannot be scheduled between the calls (the
 * arm64 build put its counter's increment there: one instruction more
 * than a caller's, taken off every interval, so that n nops counted
 * n - 1), and a barrier after the second call so that it is a call, not
 * a jump after the frame is torn down.
 */
static __attribute__((noinline)) void
read_pair(pmc_data_t *a, pmc_data_t *b)
{
	pmc_read(a);
	pmc_read(b);
	__asm__ volatile("" ::: "memory");
}

/*
 * -Clean n: pmc_read(), pmc_read() n times; the smallest difference of
 * the cycles and of each event is what a measurement costs.
 */
static void
calibrate(pmc_counter_t *counter)
{
	uint64_t min[PMC_NCOUNTERS], min_ticks = UINT64_MAX;
	pmc_data_t a, b;

	for (int i = 0; i < PMC_NCOUNTERS; i++)
		min[i] = UINT64_MAX;
	for (int n = 0; n < counter->clean; n++) {
		read_pair(&a, &b);
		if (b.cycles - a.cycles < min_ticks)
			min_ticks = b.cycles - a.cycles;
		for (int i = 0; i < PMC_NCOUNTERS; i++)
			if (b.event[i] - a.event[i] < min[i])
				min[i] = b.event[i] - a.event[i];
	}
	pctr_stats_overhead_set(counter->stats, min_ticks, min);
	counter->calibrated = 1;
}

PMC_EXPORT int
pmc_select(const pmc_counter_t *counter)
{
	int r;

	if (!pmc.open || !counter) {
		fprintf(errf(), "%s: pmc_select: %s\n", prog(),
			!counter ? "no counter" : "pmc_open() first");
		return FALSE;
	}
	release();
	r = open_selector(&counter->selector);
	if (r < 0) {
		fprintf(errf(), "%s: pmc_select: %s\n", prog(),
			pctr_strerror(r));
		release();
		return FALSE;
	}
	pmc.cur = counter;
	if (counter->clean > 0 && !counter->calibrated)
		calibrate((pmc_counter_t *)counter);
	return TRUE;
}

/* a counter that is off reads 0; out of line: pmc_read() keeps a small frame */
static __attribute__((noinline)) void
read_mapped(pmc_data_t *t)
{
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		const struct pctr_count *c;

		if (pmc.idx[i] < 0) {
			t->event[i] = t->enabled[i] = t->running[i] = 0;
			continue;
		}
		c = &pmc.s.count[pmc.idx[i]];
		t->event[i] = c->value;
		t->enabled[i] = c->enabled;
		t->running[i] = c->running;
	}
}

static __attribute__((noinline)) void
read_failed(pmc_data_t *t)
{
	memset(t, 0, sizeof(*t));
	t->cycles = pctr_tsc();
}

_Static_assert(PMC_NCOUNTERS == 2, "pmc_read() copies two counters");

/*
 * The read plan: both counters on, counter i the set's event i (what
 * pmc_select() makes of a selector with two events), copied without
 * looking up where each is.
 */
PMC_EXPORT void
pmc_read(pmc_data_t *t)
{
	const struct pctr_count *c = pmc.s.count;

	if (__builtin_expect(!pmc.set || pctr_set_read(pmc.set, &pmc.s) < 0,
			     0)) {
		read_failed(t);
		return;
	}
	t->cycles = pmc.s.tsc;
	if (__builtin_expect(!pmc.direct, 0)) {
		read_mapped(t);
		return;
	}
	t->event[0] = c[0].value;
	t->event[1] = c[1].value;
	t->enabled[0] = c[0].enabled;
	t->enabled[1] = c[1].enabled;
	t->running[0] = c[0].running;
	t->running[1] = c[1].running;
}

static void
to_sample(const pmc_data_t *t, struct pctr_sample *s)
{
	s->tsc = t->cycles;
	s->nr = PMC_NCOUNTERS;
	s->path = 0;
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		s->count[i].value = t->event[i];
		s->count[i].enabled = t->enabled[i];
		s->count[i].running = t->running[i];
	}
}

static uint64_t
net(uint64_t t1, uint64_t t0, uint64_t overhead)
{
	uint64_t d = t1 - t0;

	return d > overhead ? d - overhead : 0;
}

/* counter += (t1 -= t0), net of the overhead; cycles since pmc_start() */
PMC_EXPORT pmc_cycles_t
pmc_accumulate(pmc_counter_t *counter, pmc_data_t *t1, pmc_data_t *t0)
{
	pmc_cycles_t since = t1->cycles - pmc.start;
	uint64_t o;

	to_sample(t1, &pmc.s1);
	to_sample(t0, &pmc.s0);
	pctr_stats_add(counter->stats, &pmc.s1, &pmc.s0);
	pctr_stats_overhead(counter->stats, PCTR_STATS_TIME, &o);
	t1->cycles = net(t1->cycles, t0->cycles, o);
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		pctr_stats_overhead(counter->stats, i, &o);
		t1->event[i] = net(t1->event[i], t0->event[i], o);
		t1->enabled[i] -= t0->enabled[i];
		t1->running[i] -= t0->running[i];
	}
	return since;
}
