/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.c - pctr stat: count a command, a process, a thread or CPUs.
 *
 * A command is counted from its exec to its exit (pctr_set_open_command()),
 * as many times as -r says, a new set each run.  Attaching (-p, -t, -a)
 * counts from the moment the counters are enabled until --duration is over,
 * the process ends, SIGINT or SIGTERM arrive, or the command given after --
 * exits.
 *
 * The command, the signals, the wait and the output are the runner's
 * (runner.h): an interval timer, a child's exit, the processes' pidfds,
 * --control and a signal wake one ppoll() without races.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd_stat.h"
#include "metrics.h"
#include "runner.h"
#include "tool.h"
#include "util.h"

/*
 * One run's wait: for a child, the processes to watch, a deadline,
 * intervals, the delay of -D and the commands of --control.  A list of -p
 * or -t is counted by sets for each process or thread, added up: a set
 * for each chunk of the events (cmd_stat.h), set[t * nr_chunks + k].
 */
struct waiter {
	struct runner *rn; /* the command (counting ends with it), signals */
	bool watch; /* counting ends when every process of -p/-t is gone */
	/* a pidfd of each (-1: none, looked at every 100 ms), and the gone */
	int pidfd[STAT_MAX_PIDS];
	bool gone[STAT_MAX_PIDS];
	bool polled; /* some process has no pidfd */
	uint64_t start, deadline, interval, next, tsc0;
	uint64_t duration; /* --duration, ns: counting ends this long after */
	uint64_t begin_at; /* -D: when counting begins; UINT64_MAX: "enable" */
	uint64_t t0; /* the run's start, which -D counts from */
	int run;
	int nr_sets, nr_chunks, nr_events;
	struct pctr_set **set;
	const struct stat_chunk *chunk;
	/* nr_events each: what was counted before counting began, ... */
	struct pctr_count *base;
	struct pctr_count *now; /* the last read */
	struct pctr_count *last; /* the read of the last interval */
	struct pctr_count *delta; /* an interval's counts */
	/* each event's reads so far, for the interval of a scaled count */
	struct pctr_scale *scale;
	bool *scale_bad; /* a read it refused: unknown */
	uint64_t scale_next; /* the next read for them, ns */
	bool scale_on; /* read every SCALE_READ_NS: some event can rotate */
	long rows; /* interval rows printed */
	bool begun, done, ctl_eof, killed;
};

/* ---- events ------------------------------------------------------------- */

static int
open_failed(int r)
{
	tool_err("%s", pctr_strerror(r));
	return tool_exit_status(r);
}

/* room for one more event: as many as -e lists, in sets of 64 */
static int
room_for_event(struct stat_ctx *c)
{
	struct stat_report *r = &c->rep;
	size_t cap = r->cap_events ? 2 * (size_t)r->cap_events
				   : PCTR_MAX_EVENTS;
	void *p;

	if (r->nr_events < r->cap_events)
		return 0;
	p = realloc(r->ev, cap * sizeof(*r->ev));
	if (p)
		r->ev = p;
	if (p && (p = realloc(r->perf_name, cap * sizeof(*r->perf_name))))
		r->perf_name = p;
	if (p && (p = realloc(r->err, cap * sizeof(*r->err))))
		r->err = p;
	if (p && (p = realloc(r->why, cap * sizeof(*r->why))))
		r->why = p;
	if (p && (p = realloc(c->group, cap * sizeof(*c->group))))
		c->group = p;
	if (!p)
		return -ENOMEM;
	r->cap_events = (int)cap;
	return 0;
}

/*
 * The modifiers after the @g-th "}" of event list @list ("u" of
 * "{a,b}:u"): their length, at *@mods.  Groups do not nest, and no other
 * event syntax has braces.
 */
static size_t
group_mods(const char *list, int g, const char **mods)
{
	const char *p = list;

	for (int i = 0; p && i < g; i++)
		p = strchr(p, '}') ? strchr(p, '}') + 1 : NULL;
	if (!p || *p != ':')
		return 0;
	*mods = p + 1;
	return strcspn(p + 1, ",");
}

/*
 * @name of a member of group @g of @list, as perf 6.1 shows it: without
 * the group's modifiers, which the library added to the member's own
 * ("page-faults:u", "cs:ku", "cpu/event=1/u").
 */
static void
perf_member_name(char *out, const char *name, const char *list, int g)
{
	const char *mods = NULL;
	size_t n = g > 0 && list ? group_mods(list, g, &mods) : 0,
	       len = strlen(name);

	if (n && len > n && !strncmp(name + len - n, mods, n)) {
		len -= n;
		if (name[len - 1] == ':')
			len--;
	}
	snprintf(out, PCTR_NAME_MAX, "%.*s", (int)len, name);
}

/* one event of -e, with its "{a,b}" group (0: none, 1, 2, ...) */
static int
take_event(const struct pctr_event *ev, int group, void *arg)
{
	struct stat_ctx *c = arg;
	int n = c->rep.nr_events;
	enum tool_event t = tool_event_of(ev);
	char shown[PCTR_NAME_MAX];

	if (room_for_event(c) < 0)
		return -ENOMEM;
	c->group[n] = group;
	c->rep.ev[n] = *ev;
	if (t != TOOL_NONE)
		strcpy(c->rep.ev[n].name, tool_events[t].name);
	pctr_event_display_name(&c->rep.ev[n], shown, sizeof(shown));
	perf_member_name(c->rep.perf_name[n], shown, c->parsing, group);
	c->rep.err[n] = 0;
	c->rep.why[n][0] = '\0';
	c->rep.nr_events++;
	return 0;
}

/* @p (in @list) starts a whole item: after a comma, a blank or a "{" */
static bool
item_starts(const char *list, const char *p)
{
	return p == list || strchr(", \t\n{", p[-1]);
}

/* the tool event whose name is the item at @p, which ends there */
static enum tool_event
tool_item_at(const char *p)
{
	for (int t = 0; t < NR_TOOL_EVENTS; t++) {
		size_t n = strlen(tool_events[t].name);

		if (!strncmp(p, tool_events[t].name, n) &&
		    strchr(", \t\n}", p[n] ? p[n] : ' '))
			return (enum tool_event)t;
	}
	return TOOL_NONE;
}

/*
 * @list with each item that names a tool event (perf's, which the library
 * does not know) written as its spec.  Allocated.
 */
static char *
with_tool_events(const char *list)
{
	/* a spec is at most 4 times as long as its name */
	char *out = malloc(4 * strlen(list) + 1), *o = out;

	if (!out)
		return NULL;
	for (const char *p = list; *p;) {
		enum tool_event t =
			item_starts(list, p) ? tool_item_at(p) : TOOL_NONE;

		if (t == TOOL_NONE) {
			*o++ = *p++;
			continue;
		}
		o = stpcpy(o, tool_events[t].spec);
		p += strlen(tool_events[t].name);
	}
	*o = '\0';
	return out;
}

static int
events_from_list(struct stat_ctx *c, const char *list)
{
	char *full = with_tool_events(list);
	int r;

	if (!full) {
		tool_err("out of memory");
		return 1;
	}
	c->rep.nr_events = 0;
	c->parsing = list;
	r = pctr_event_parse_list(full, take_event, c);
	c->parsing = NULL;
	free(full);
	if (r < 0) {
		tool_err("%s", pctr_strerror(r));
		return tool_exit_status(r);
	}
	return 0;
}

static const char *const sw_defaults =
	"task-clock,context-switches,cpu-migrations,page-faults";
static const char *const hw_defaults[] = {
	"cycles",	"instructions",	    "branches",
	"branch-misses", "cache-references", "cache-misses", NULL,
};
/*
 * -d, -dd, -ddd, as perf stat's: the first and last level data caches,
 * then the instruction cache and the TLBs, then the prefetches; after
 * the defaults, or after -e's events
 */
static const char *const detailed_levels[3] = {
	"L1-dcache-loads,L1-dcache-load-misses,LLC-loads,LLC-load-misses",
	"L1-icache-loads,L1-icache-load-misses,dTLB-loads,dTLB-load-misses,"
	"iTLB-loads,iTLB-load-misses",
	"L1-dcache-prefetches,L1-dcache-prefetch-misses",
};

/* @names appended to @list, each after a comma */
static void
append_names(const char *const *names, char *list, size_t len)
{
	for (size_t i = 0; names[i]; i++) {
		strncat(list, ",", len - strlen(list) - 1);
		strncat(list, names[i], len - strlen(list) - 1);
	}
}

/* @list and the events of -d's levels, in a string to free; NULL: ENOMEM */
static char *
with_detailed(const struct stat_ctx *c, const char *list)
{
	size_t len = strlen(list) + 1;
	char *out;

	for (int l = 0; l < c->detailed; l++)
		len += strlen(detailed_levels[l]) + 1;
	out = malloc(len);
	if (!out)
		return NULL;
	strcpy(out, list);
	for (int l = 0; l < c->detailed; l++)
		strcat(strcat(out, *out ? "," : ""), detailed_levels[l]);
	return out;
}

/*
 * The hardware defaults where there is a PMU; those it lacks are shown
 * as not supported (PCTR_SET_SKIP_UNSUPPORTED), as perf stat shows them.
 */
static int
default_events(struct stat_ctx *c)
{
	char list[512];

	snprintf(list, sizeof(list), "%s", sw_defaults);
	if (c->rep.machine.has_pmu) {
		append_names(hw_defaults, list, sizeof(list));
		for (int l = 0; l < c->detailed; l++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list),
				 ",%s", detailed_levels[l]);
	} else {
		report_note(&c->rep, "no hardware events%s: %s",
			    c->detailed ? " (nor the caches of -d)" : "",
			    pctr_strerror(-ENODEV));
	}
	return events_from_list(c, list);
}

/* ---- -M: the metrics' events -------------------------------------------- */

static bool
has_event(const struct stat_ctx *c, const struct pctr_event *ev)
{
	for (int e = 0; e < c->rep.nr_events; e++)
		if (c->rep.ev[e].type == ev->type &&
		    c->rep.ev[e].config == ev->config)
			return true;
	return false;
}

struct adding {
	struct stat_ctx *c;
	int group_base; /* the metric's groups after those of -e */
};

static int
add_input(const struct pctr_event *ev, int group, void *arg)
{
	struct adding *a = arg;

	if (!group && has_event(a->c, ev))
		return 0;
	return take_event(ev, group ? a->group_base + group : 0, a->c);
}

/* the greatest "{...}" number in use */
static int
last_group(const struct stat_ctx *c)
{
	int g = 0;

	for (int e = 0; e < c->rep.nr_events; e++)
		if (c->group[e] > g)
			g = c->group[e];
	return g;
}

/*
 * The events of each metric -M named that are not among those of -e yet
 * (a group, as the top-down events need, added whole).  A metric whose
 * events this machine does not have is left out with a note.
 */
static int
add_metric_inputs(struct stat_ctx *c)
{
	for (int i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];
		struct adding a = { c, last_group(c) };
		int r;

		if (!(c->rep.metrics & 1u << i))
			continue;
		r = pctr_event_parse_list(m->inputs, add_input, &a);
		if (r == -ENOMEM) {
			tool_err("-M %s: %s", m->name, pctr_strerror(r));
			return tool_exit_status(r);
		}
		if (r < 0)
			report_note(&c->rep, "-M %s: not on this machine (it "
					     "needs %s): %s",
				    m->name, m->where, pctr_strerror(r));
	}
	if (c->rep.nr_events == 0) {
		tool_err("-M: nothing to count (no metric named has its "
			 "events here)");
		return EXIT_EVENT;
	}
	return 0;
}

/* is event @spec among those marked as not counted here? */
static bool
not_counted(const struct stat_ctx *c, const char *spec)
{
	struct pctr_event ev;

	if (!spec || !metric_event(spec, &ev))
		return false;
	for (int e = 0; e < c->rep.nr_events; e++)
		if (c->rep.err[e] && c->rep.ev[e].type == ev.type &&
		    c->rep.ev[e].config == ev.config)
			return true;
	return false;
}

/* the metrics -M named that will not be shown for an event not counted */
static void
note_metrics_not_shown(struct stat_ctx *c)
{
	for (int i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];
		const char *missing;

		if (!(c->rep.metrics & 1u << i))
			continue; /* not asked for: its names not parsed */
		missing = not_counted(c, m->num)   ? m->num
			  : not_counted(c, m->den) ? m->den
						   : NULL;
		if (missing)
			report_note(&c->rep, "-M %s: not shown: %s is not "
					     "counted here",
				    m->name, missing);
	}
}

/* --all-user, --all-kernel: every event at that level, its name kept */
static void
all_priv(struct stat_ctx *c)
{
	unsigned int excl = c->all_priv == 'u' ? PCTR_EVENT_EXCLUDE_KERNEL
					       : PCTR_EVENT_EXCLUDE_USER;

	for (int e = 0; c->all_priv && e < c->rep.nr_events; e++) {
		c->rep.ev[e].flags &= ~(PCTR_EVENT_EXCLUDE_USER |
					PCTR_EVENT_EXCLUDE_KERNEL);
		c->rep.ev[e].flags |= excl | PCTR_EVENT_EXCLUDE_HV;
	}
}

/* -vv: each event's attr on the log, before it is counted, as perf's */
static void
print_attrs(const struct stat_ctx *c, FILE *log)
{
	for (int e = 0; c->verbose > 1 && e < c->rep.nr_events; e++)
		if (event_attr_print(log, &c->rep.ev[e]) < 0)
			fprintf(log, "%s: %s\n", c->rep.ev[e].name,
				pctr_strerror(-EINVAL));
}

/* -g: every event in one group, as perf stat -g makes one (@r: so far) */
static void
group_all(struct stat_ctx *c, int r)
{
	for (int e = 0; r == 0 && c->group_all && e < c->rep.nr_events; e++)
		c->group[e] = 1;
}

static int
choose_events(struct stat_ctx *c)
{
	int r = 0;

	/*
	 * -n: no default counters, the command's times only (the set's
	 * placeholder); -e's and -M's still count and -d adds nothing, as
	 * with perf stat -n
	 */
	if (c->null_run && !c->events && !c->rep.metrics) {
		c->rep.nr_events = 0;
		return 0;
	}
	if (c->null_run)
		c->detailed = 0;
	/* the machine is looked at only when needed: it costs start-up time */
	if (c->rep.format == FMT_JSON || (!c->events && !c->rep.metrics)) {
		c->rep.machine.size = sizeof(c->rep.machine);
		pctr_machine_get(&c->rep.machine);
	}
	/* -M alone: the metrics' events only, as perf stat -M */
	if (!c->events && !c->rep.metrics) {
		r = default_events(c);
		group_all(c, r);
		return r;
	}
	c->rep.nr_events = 0;
	if (c->events || c->detailed) { /* -e's, then -d's as perf adds them */
		char *list = with_detailed(c, c->events ? c->events : "");

		if (!list) {
			tool_err("out of memory");
			return 1;
		}
		r = events_from_list(c, list);
		free(list);
	}
	if (r == 0 && c->rep.metrics)
		r = add_metric_inputs(c);
	group_all(c, r);
	if (r == 0)
		all_priv(c);
	return r;
}

/* the events of the "{...}" that begins at @i; 1 for an event in none */
static int
unit_at(const struct stat_ctx *c, int i)
{
	int g = c->group[i], n = 1;

	while (g && i + n < c->rep.nr_events && c->group[i + n] == g)
		n++;
	return n;
}

static int
group_too_big(const struct stat_ctx *c, int i, int n)
{
	tool_err("the group {%s,...,%s} (group %d of the events) has %d "
		 "events: a group is counted together, in one set, and a set "
		 "holds at most %d",
		 c->rep.ev[i].name, c->rep.ev[i + n - 1].name, c->group[i], n,
		 PCTR_MAX_EVENTS);
	return EXIT_EVENT;
}

/*
 * The events cut into chunks, in order, a "{...}" never split (cmd_stat.h);
 * -n's no events are one empty chunk.  Cut, a chunk holds 63 events, or a
 * group of 64 alone: each set has room for the placeholder that keeps the
 * command running when it leaves every one of its events out (as one set
 * of 64 has not).
 */
static int
make_chunks(struct stat_ctx *c)
{
	int n = c->rep.nr_events, u;
	int cap = n > PCTR_MAX_EVENTS ? PCTR_MAX_EVENTS - 1 : PCTR_MAX_EVENTS;

	c->chunk = calloc(n ? n : 1, sizeof(*c->chunk));
	if (!c->chunk)
		return open_failed(-ENOMEM);
	c->nr_chunks = 1;
	for (int i = 0; i < n; i += u) {
		struct stat_chunk *k = &c->chunk[c->nr_chunks - 1];

		u = unit_at(c, i);
		if (u > PCTR_MAX_EVENTS)
			return group_too_big(c, i, u);
		if (k->nr && k->nr + u > cap) {
			k = &c->chunk[c->nr_chunks++];
			k->first = i;
		}
		k->nr += u;
	}
	return 0;
}

static int
setup_events(struct stat_ctx *c)
{
	int r = choose_events(c);

	return r ? r : make_chunks(c);
}

/*
 * each "{...}" of chunk @k one kernel group (less its members not
 * supported)
 */
static int
make_groups(struct stat_ctx *c, const struct stat_chunk *k,
	    struct pctr_set *set)
{
	int r = 0;

	for (int i = k->first, n; r >= 0 && i < k->first + k->nr; i += n) {
		n = unit_at(c, i);
		if (c->group[i])
			r = pctr_set_group(set, i - k->first, n);
	}
	return r;
}

/*
 * The events of chunk @k, in the report's order: those this machine
 * cannot count are left out when the set is opened and shown as not
 * supported (unless --strict), as perf stat does.
 */
static int
make_set(struct stat_ctx *c, const struct stat_chunk *k,
	 struct pctr_set **setp)
{
	unsigned int flags = (c->rep.multiplex ? 0 : PCTR_SET_NO_MULTIPLEX) |
			     (c->strict ? 0 : PCTR_SET_SKIP_UNSUPPORTED) |
			     (c->no_inherit ? PCTR_SET_NO_INHERIT : 0);
	int r = pctr_set_new(setp, flags);

	for (int e = 0; r >= 0 && e < k->nr; e++)
		r = pctr_set_add_event(*setp, &c->rep.ev[k->first + e]);
	if (r >= 0)
		r = make_groups(c, k, *setp);
	/* -n: no counters; a set opens with one event at least */
	if (r >= 0 && !k->nr)
		r = pctr_set_add(*setp, "dummy");
	if (r < 0) {
		tool_err("%s", pctr_strerror(r));
		pctr_set_free(*setp);
		return tool_exit_status(r);
	}
	return 0;
}

/*
 * The open failed with every event left out (PCTR_SET_SKIP_UNSUPPORTED
 * fails with the first one's refusal): unless --strict or permissions
 * are why (refused with the advice, as perf stat refuses), the command
 * still runs, as under perf stat, beside a placeholder that counts
 * nothing and is never reported; the events show as not supported.
 */
static bool
add_placeholder(const struct stat_ctx *c, struct pctr_set *set, int r)
{
	if (c->strict || pctr_set_nr(set) >= PCTR_MAX_EVENTS ||
	    (r != -ENODEV && r != -ENOENT && r != -EOPNOTSUPP && r != -EINVAL))
		return false;
	return pctr_set_add(set, "dummy") >= 0;
}

/*
 * Event @e of @set as counted, event @i of the report: named ":u" where the
 * kernel allowed user mode only (PCTR_EVENT_USER_FALLBACK), as perf names
 * them, or left out.
 */
static void
as_opened(struct stat_ctx *c, const struct pctr_set *set, int e, int i)
{
	struct pctr_event *ev = &c->rep.ev[i], plain = *pctr_set_event(set, e);
	size_t p = strlen(c->rep.perf_name[i]), n;
	enum tool_event t;

	plain.flags &= ~(uint32_t)PCTR_EVENT_USER_FALLBACK;
	n = (size_t)pctr_event_display_name(&plain, NULL, 0);
	*ev = *pctr_set_event(set, e);
	pctr_event_display_name(pctr_set_event(set, e), ev->name,
				sizeof(ev->name));
	t = tool_event_of(ev);
	if (t != TOOL_NONE) { /* its name as -e gave it */
		strcpy(ev->name, tool_events[t].name);
		n = strlen(ev->name);
	}
	/* and perf's name the same ":u" of a user-mode fallback */
	if (n > strlen(ev->name)) /* cut short */
		n = strlen(ev->name);
	snprintf(c->rep.perf_name[i] + p, sizeof(c->rep.perf_name[i]) - p,
		 "%s", ev->name + n);
	pctr_set_skipped(set, e, &c->rep.err[i], c->rep.why[i],
			 sizeof(c->rep.why[i]));
}

/*
 * After opening: the events as the first target's sets counted them; the
 * metrics that lose an event, said once.
 */
static int
after_open(struct stat_ctx *c, struct pctr_set *const set[])
{
	bool first = !c->opened;

	for (int k = 0; k < c->nr_chunks; k++)
		for (int e = 0; e < c->chunk[k].nr; e++)
			as_opened(c, set[k], e, c->chunk[k].first + e);
	c->opened = true;
	if (first)
		note_metrics_not_shown(c);
	return 0;
}

/* ---- the sets of a run -------------------------------------------------- */

/* the arrays of a run's wait, for @nr_targets targets */
static int
waiter_init(const struct stat_ctx *c, struct waiter *w, int nr_targets)
{
	size_t n = c->rep.nr_events ? (size_t)c->rep.nr_events : 1;

	w->nr_chunks = c->nr_chunks;
	w->nr_events = c->rep.nr_events;
	w->chunk = c->chunk;
	w->set = calloc((size_t)nr_targets * (size_t)c->nr_chunks,
			sizeof(*w->set));
	w->base = calloc(4 * n, sizeof(*w->base));
	w->scale = calloc(n, sizeof(*w->scale));
	w->scale_bad = calloc(n, sizeof(*w->scale_bad));
	if (!w->set || !w->base || !w->scale || !w->scale_bad)
		return open_failed(-ENOMEM);
	w->now = w->base + n;
	w->last = w->now + n;
	w->delta = w->last + n;
	return 0;
}

/* a set for each chunk, for each of @nr_targets targets */
static int
make_sets(struct stat_ctx *c, struct waiter *w, int nr_targets)
{
	int r = waiter_init(c, w, nr_targets);

	for (int t = 0; r == 0 && t < nr_targets; t++)
		for (int k = 0; r == 0 && k < c->nr_chunks; k++) {
			r = make_set(c, &c->chunk[k], &w->set[w->nr_sets]);
			w->nr_sets += r == 0;
		}
	return r;
}

static void
free_sets(struct waiter *w)
{
	for (int i = 0; i < w->nr_sets; i++)
		pctr_set_free(w->set[i]);
	w->nr_sets = 0;
	free(w->set);
	free(w->base);
	free(w->scale);
	free(w->scale_bad);
	w->set = NULL;
	w->base = NULL;
	w->scale = NULL;
	w->scale_bad = NULL;
}

static int
sets_enable(struct waiter *w, bool on)
{
	int r = 0;

	for (int i = 0; r == 0 && i < w->nr_sets; i++)
		r = on ? pctr_set_enable(w->set[i])
		       : pctr_set_disable(w->set[i]);
	return r;
}

static uint64_t
timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u +
	       (uint64_t)tv->tv_usec * 1000u;
}

/*
 * The count of tool event @t, read in @c (a dummy's counts), as perf
 * gives it: duration_time is the time since the run began (w->start,
 * where "seconds elapsed" starts); user_time and system_time are the
 * command's CPU time once it is reaped, and nothing (not counted) before,
 * without a command, or in -I's intervals.  In ns.
 */
static struct pctr_count
tool_count(const struct waiter *w, enum tool_event t,
	   const struct pctr_count *c)
{
	struct pctr_count n = *c;
	uint64_t now, v = 0;

	if (t == TOOL_DURATION) {
		now = now_ns();
		v = now > w->start ? now - w->start : 0;
	} else if (w->rn->child == 0 && !w->interval) {
		v = timeval_ns(t == TOOL_USER ? &w->rn->ru.ru_utime
					      : &w->rn->ru.ru_stime);
	}
	n.value = n.running = n.enabled = v;
	return n;
}

/*
 * Each event's count in @out, in the report's order: its chunk's sets
 * read, the targets' added up, less those before counting began (-D)
 */
static int
sets_read(struct waiter *w, struct pctr_count *out, bool raw)
{
	struct pctr_sample one;
	int r = 0;

	for (int i = 0; r == 0 && i < w->nr_sets; i++) {
		const struct stat_chunk *k = &w->chunk[i % w->nr_chunks];

		r = pctr_set_read(w->set[i], &one);
		for (int e = 0; r == 0 && e < k->nr; e++) {
			struct pctr_count *o = &out[k->first + e];

			enum tool_event t =
				tool_event_of(pctr_set_event(w->set[i], e));

			if (t != TOOL_NONE) {
				/* the base: its time starts with counting */
				if (i < w->nr_chunks)
					*o = raw ? (struct pctr_count){ 0 }
						 : tool_count(w, t, &one.count[e]);
				continue;
			}
			/* the first target's, then the others' added */
			*o = i < w->nr_chunks
				     ? one.count[e]
				     : pctr_count_add(o, &one.count[e]);
		}
	}
	for (int e = 0; r == 0 && !raw && e < w->nr_events; e++)
		out[e] = pctr_count_delta(&out[e], &w->base[e]);
	return r;
}

/*
 * The interval of a scaled count needs the event's rate in several slices
 * of the run (src/scale.c): the counters are read every SCALE_READ_NS, at
 * each -I interval and at the end.  10 ms is 2.5 rotations of the kernel's
 * multiplexing at HZ 250 (perf_event_mux_interval_ms 4), 10 at HZ 1000:
 * most slices see each event on the counters for a part of the time.  A
 * read of a group is one read(2), but pctr wakes up for it, which on a CPU
 * the command shares is a context switch of the command's: so only when
 * an event can be multiplexed at all.  The kernel always puts a group of
 * software events or tracepoints on (they need no counter).
 */
#define SCALE_READ_NS 10000000u

static bool
may_multiplex(const struct stat_ctx *c)
{
	for (int e = 0; e < c->rep.nr_events; e++) {
		uint32_t type = c->rep.ev[e].type;

		if (!c->rep.err[e] && type != PERF_TYPE_SOFTWARE &&
		    type != PERF_TYPE_TRACEPOINT)
			return true;
	}
	return false;
}

static void
scale_add(struct waiter *w, const struct pctr_count *counts)
{
	for (int e = 0; e < w->nr_events; e++)
		if (pctr_scale_add(&w->scale[e], &counts[e]) < 0)
			w->scale_bad[e] = true;
}

/* @run's bounds, in the report's order, from the reads of the run */
static void
scale_bounds(const struct stat_ctx *c, const struct waiter *w,
	     struct stat_run *run)
{
	for (int e = 0; e < c->rep.nr_events; e++) {
		struct stat_bounds *b = &run->bounds[e];
		const struct pctr_count *n = &w->scale[e].last;

		b->known = !w->scale_bad[e] && n->running < n->enabled &&
			   pctr_scale_bounds(&w->scale[e], &b->low,
					     &b->high) == 0;
	}
}

/* a read that fails leaves the intervals unknown; the totals' read says */
static void
scale_tick(struct waiter *w, uint64_t now)
{
	if (sets_read(w, w->now, false) == 0)
		scale_add(w, w->now);
	else
		memset(w->scale_bad, 1, (size_t)w->nr_events);
	w->scale_next = now + SCALE_READ_NS;
}

/* the run's time starts at @t0 (ns) and @tsc0 (TSC ticks) */
static void
start_at(struct waiter *w, uint64_t t0, uint64_t tsc0)
{
	w->start = t0;
	w->tsc0 = tsc0;
	w->next = w->start + w->interval;
	w->scale_next = w->start + SCALE_READ_NS;
	if (w->duration)
		w->deadline = w->start + w->duration;
}

/*
 * Counting begins: at once, after -D, or at the first "enable".  A
 * command's counters start at its exec by themselves (@enable false): an
 * enable before the exec would wait for it, waking pctr while the
 * command runs.
 */
static int
begin_counting(struct waiter *w, bool enable)
{
	int r = enable ? sets_enable(w, true) : 0;

	if (r < 0)
		return r;
	memset(w->last, 0, (size_t)w->nr_events * sizeof(*w->last));
	memset(w->scale, 0, (size_t)w->nr_events * sizeof(*w->scale));
	memset(w->scale_bad, 0, (size_t)w->nr_events);
	w->begun = true;
	start_at(w, now_ns(), pctr_tsc());
	return 0;
}

/* ---- --control ---------------------------------------------------------- */

static void
control_ack(const struct stat_ctx *c)
{
	if (c->ack_fd >= 0 && write(c->ack_fd, "ack\n", 4) != 4)
		tool_err("--control: cannot write 'ack' to descriptor %d: %s",
			 c->ack_fd, strerror(errno));
}

/*
 * perf's protocol: each command is a word ended by '\n' or '\0'; "enable"
 * and "disable" switch every counter, "ping" only asks for the "ack\n"
 * that follows every command on the ACK descriptor.
 */
static int
control_command(struct stat_ctx *c, struct waiter *w, const char *cmd)
{
	int r = 0;

	if (!strcmp(cmd, "enable")) {
		r = w->begun ? sets_enable(w, true) : begin_counting(w, true);
	} else if (!strcmp(cmd, "disable")) {
		r = sets_enable(w, false);
	} else if (strcmp(cmd, "ping") && *cmd) {
		tool_err("--control: unknown command '%s' (enable, disable, "
			 "ping)",
			 cmd);
	}
	if (r < 0)
		return r;
	if (*cmd)
		control_ack(c);
	return 0;
}

static char *
command_end(char *p, size_t len)
{
	char *nl = memchr(p, '\n', len), *nul = memchr(p, '\0', len);

	return !nl ? nul : !nul ? nl : nl < nul ? nl : nul;
}

static int
control_read(struct stat_ctx *c, struct waiter *w)
{
	size_t room = sizeof(c->ctl_buf) - 1 - c->ctl_len;
	ssize_t n = read(c->ctl_fd, c->ctl_buf + c->ctl_len, room);
	char *p = c->ctl_buf, *end;
	size_t left;
	int r = 0;

	if (n <= 0) {
		w->ctl_eof = n == 0 || (errno != EINTR && errno != EAGAIN);
		return 0;
	}
	c->ctl_len += (size_t)n;
	/* each command ends at '\n' or '\0', whichever comes first */
	while (r == 0 && (left = c->ctl_len - (size_t)(p - c->ctl_buf)) &&
	       (end = command_end(p, left))) {
		*end = '\0';
		r = control_command(c, w, p);
		p = end + 1;
	}
	c->ctl_len -= (size_t)(p - c->ctl_buf);
	memmove(c->ctl_buf, p, c->ctl_len);
	if (c->ctl_len == sizeof(c->ctl_buf) - 1)
		c->ctl_len = 0;
	return r;
}

/* ---- waiting ------------------------------------------------------------ */

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9: a thread's own pidfd */
#endif

/*
 * A pidfd of each process of -p (Linux 5.3), or thread of -t (6.9), taken
 * before its counters are opened: it names that process, not its number,
 * so its exit is seen at once (the pidfd turns readable), even when the
 * number is given to a new process before anyone looks.  Without one
 * (an older kernel, a thread before 6.9), the number is looked at every
 * 100 ms, and a number taken again that soon is not told apart.
 */
static void
watch_open(const struct stat_ctx *c, struct waiter *w)
{
	unsigned int flags = c->rep.target == STAT_TID ? PIDFD_THREAD : 0;

	w->polled = false;
	for (int i = 0; i < c->rep.nr_pids; i++) {
		w->pidfd[i] = (int)syscall(SYS_pidfd_open, c->rep.pids[i],
					   flags);
		w->gone[i] = false;
		w->polled |= w->pidfd[i] < 0;
	}
}

static void
watch_close(const struct stat_ctx *c, struct waiter *w)
{
	for (int i = 0; w->watch && i < c->rep.nr_pids; i++)
		if (w->pidfd[i] >= 0)
			close(w->pidfd[i]);
	w->watch = false;
}

/* gone, or a zombie: it counts no more either way */
static bool
number_gone(pid_t pid)
{
	char path[64], buf[256], *paren;
	FILE *f;
	bool ok;

	if (kill(pid, 0) < 0 && errno == ESRCH)
		return true;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return true;
	ok = fgets(buf, sizeof(buf), f) != NULL;
	fclose(f);
	paren = ok ? strrchr(buf, ')') : NULL;
	return paren && (paren[2] == 'Z' || paren[2] == 'X');
}

static bool
process_gone(const struct stat_ctx *c, struct waiter *w, int i)
{
	struct pollfd p = { .fd = w->pidfd[i], .events = POLLIN };

	if (!w->gone[i])
		w->gone[i] = p.fd >= 0 ? poll(&p, 1, 0) > 0
				       : number_gone(c->rep.pids[i]);
	return w->gone[i];
}

static bool
all_gone(const struct stat_ctx *c, struct waiter *w)
{
	bool all = true;

	for (int i = 0; i < c->rep.nr_pids; i++)
		all &= process_gone(c, w, i);
	return all;
}

/* the command reaped, or every process of -p/-t gone */
static void
try_reap(const struct stat_ctx *c, struct waiter *w)
{
	if (runner_reap(w->rn, false))
		w->done = true;
	if (w->watch && all_gone(c, w))
		w->done = true;
}

/*
 * -vv: event @x's count on instance @i of set @k as read, as perf stat
 * -vv prints it: "EVENT: CPU: VALUE ENABLED RUNNING", CPU -1 for a thread.
 * A tool event (perf's own, read by no counter) is on the first alone.
 */
static void
instance_count(const struct stat_ctx *c, const struct waiter *w, int k,
	       int i, int x, const struct pctr_sample *s)
{
	bool tool = tool_event_of(&c->rep.ev[x]) != TOOL_NONE;
	int first = w->chunk[k % w->nr_chunks].first;
	const struct pctr_count *n = tool ? &w->now[x] : &s->count[x - first];
	int cpu = c->rep.target == STAT_CPU ? pctr_set_instance_id(w->set[k], i)
					    : -1;

	if (c->rep.err[x] || (tool && (i > 0 || k >= w->nr_chunks)))
		return;
	fprintf(c->out, "%s: %d: %llu %llu %llu\n", c->rep.perf_name[x], cpu,
		(unsigned long long)n->value, (unsigned long long)n->enabled,
		(unsigned long long)n->running);
}

/*
 * -vv: each CPU's or thread's counts as read, at each read that makes a
 * report (the run's end, each -I interval), in perf's order: CPU by CPU
 * each event; event by event each thread (read again for each: this is
 * -vv)
 */
static void
print_instance_counts(const struct stat_ctx *c, struct waiter *w)
{
	bool cpus = c->rep.target == STAT_CPU;
	struct pctr_sample s;

	for (int k = 0; k < w->nr_sets; k++) {
		const struct stat_chunk *ch = &w->chunk[k % w->nr_chunks];
		int n = pctr_set_nr_instances(w->set[k]);

		for (int i = 0; cpus && i < n; i++)
			for (int e = 0; e < ch->nr; e++)
				if (e > 0 || !pctr_set_read_instance(w->set[k],
								     i, &s))
					instance_count(c, w, k, i,
						       ch->first + e, &s);
		for (int e = 0; !cpus && e < ch->nr; e++)
			for (int i = 0; i < n; i++)
				if (!pctr_set_read_instance(w->set[k], i, &s))
					instance_count(c, w, k, i,
						       ch->first + e, &s);
	}
}

/*
 * -v: each event's @counts (the run's, or with -I the interval's) on the
 * report's stream before the report, as perf stat -v prints them: "EVENT:
 * VALUE ENABLED RUNNING", the value scaled; as perf's, only where the
 * report is the total (not with -A, --per-thread, --per-*).  -vv: each
 * CPU's or thread's first.
 */
static void
print_verbose_counts(const struct stat_ctx *c, struct waiter *w,
		     const struct pctr_count *counts)
{
	if (c->verbose > 1)
		print_instance_counts(c, w);
	for (int e = 0; c->verbose && c->rep.aggr == AGGR_GLOBAL &&
			e < c->rep.nr_events; e++) {
		const struct pctr_count *n = &counts[e];

		if (!c->rep.err[e])
			fprintf(c->out, "%s: %.0f %llu %llu\n",
				c->rep.perf_name[e], pctr_count_scaled(n),
				(unsigned long long)n->enabled,
				(unsigned long long)n->running);
	}
}

/* the counts since the last interval, from a read @counts */
static int
interval_row(struct stat_ctx *c, struct waiter *w, uint64_t now,
	     const struct pctr_count *counts)
{
	struct stat_slice sl = { .run = w->run,
				 .time_ns = now - w->start,
				 .count = w->delta };

	for (int e = 0; e < w->nr_events; e++)
		w->delta[e] = pctr_count_delta(&counts[e], &w->last[e]);
	memcpy(w->last, counts, (size_t)w->nr_events * sizeof(*counts));
	w->rows++;
	print_verbose_counts(c, w, w->delta);
	if (c->interval_clear && c->rep.format == FMT_HUMAN)
		fputs("\033[H\033[2J", c->out);
	if (report_interval(c->out, &c->rep, &sl) < 0)
		return open_failed(-ENOMEM);
	return 0;
}

/*
 * --interval-count reached: counting stops with that row (the counters
 * are stopped before it is read, so the totals are the rows' sum) and a
 * command still running is ended with SIGTERM, as --duration ends a wait.
 */
static void
last_interval(struct waiter *w)
{
	w->done = true;
	w->killed = w->rn->child > 0 && kill(w->rn->child, SIGTERM) == 0;
}

static int read_instances(struct stat_ctx *c, struct waiter *w);

static int
interval_tick(struct stat_ctx *c, struct waiter *w, uint64_t now)
{
	bool last = c->interval_count && w->rows + 1 >= c->interval_count;
	int r = last ? sets_enable(w, false) : 0;

	if (r == 0)
		r = sets_read(w, w->now, false);
	if (r < 0)
		return open_failed(r);
	w->next += w->interval;
	scale_add(w, w->now);
	if (last)
		last_interval(w);
	/* -A, --per-*: each instance in every interval, as perf prints */
	if (c->rep.per_thread && read_instances(c, w))
		return 1;
	return interval_row(c, w, now, w->now);
}

/* nanoseconds until the next thing to do; UINT64_MAX: only events */
static uint64_t
next_wakeup(const struct waiter *w, uint64_t now)
{
	uint64_t t = UINT64_MAX, u;

	if (!w->begun)
		return w->begin_at == UINT64_MAX ? UINT64_MAX
		       : w->begin_at > now	 ? w->begin_at - now
						 : 0;
	if (w->interval)
		t = w->next > now ? w->next - now : 0;
	u = w->scale_next > now ? w->scale_next - now : 0;
	if (w->scale_on && u < t)
		t = u;
	if (w->deadline && (w->deadline > now ? w->deadline - now : 0) < t)
		t = w->deadline > now ? w->deadline - now : 0;
	if (w->watch && w->polled && t > 100000000u)
		t = 100000000u; /* processes without a pidfd: look again */
	return t;
}

/* --control's commands, the exits of the processes not yet gone */
static int
wait_events(struct stat_ctx *c, struct waiter *w, uint64_t t)
{
	struct pollfd pfd[1 + STAT_MAX_PIDS] = {
		{ .fd = c->ctl_fd, .events = POLLIN },
	};
	int n = c->ctl_fd >= 0 && !w->ctl_eof ? 1 : 0, m = n, r;

	if (w->rn->child <= 0 && w->watch && w->polled && t > 100000000u)
		t = 100000000u;
	for (int i = 0; w->watch && i < c->rep.nr_pids; i++)
		if (!w->gone[i] && w->pidfd[i] >= 0)
			pfd[m++] = (struct pollfd){ .fd = w->pidfd[i],
						    .events = POLLIN };
	r = runner_wait(w->rn, pfd, m, t);
	if (w->rn->stop)
		w->done = true;
	if (r > 0 && n == 1 && pfd[0].revents)
		return control_read(c, w);
	return r < 0 ? r : 0;
}

static int
wait_step(struct stat_ctx *c, struct waiter *w)
{
	uint64_t now = now_ns();
	int r = wait_events(c, w, next_wakeup(w, now));

	if (r < 0)
		return open_failed(r);
	try_reap(c, w);
	now = now_ns();
	if (!w->done && !w->begun && now >= w->begin_at &&
	    (r = begin_counting(w, true)) < 0)
		return open_failed(r);
	/*
	 * the intervals due before the deadline first, also after a stall
	 * past it; the one ending there is the last, partial row
	 */
	if (!w->done && w->begun && w->interval && now >= w->next &&
	    (!w->deadline || w->next < w->deadline))
		return interval_tick(c, w, now);
	if (w->deadline && now >= w->deadline)
		last_interval(w); /* --timeout ends a command too */
	if (!w->done && w->begun && w->scale_on && now >= w->scale_next)
		scale_tick(w, now);
	return 0;
}

/*
 * -D: counting begins this late after @t0 (a command's: before its exec,
 * where its elapsed time starts too), or (-D -1) at "enable" on --control.
 * Attached sets are opened stopped; a command's counters started at its
 * exec (@running), so with a delay they are stopped at once and what they
 * counted in between is left out of every figure.
 */
static int
plan_begin(const struct stat_ctx *c, struct waiter *w, bool running,
	   uint64_t t0)
{
	int r;

	w->t0 = t0;
	w->begin_at = c->delay_ms < 0 ? UINT64_MAX
		      : t0 + (uint64_t)c->delay_ms * 1000000u;
	if (!c->delay_ms)
		return begin_counting(w, !running);
	if (!running)
		return 0;
	r = sets_enable(w, false);
	return r < 0 ? r : sets_read(w, w->base, true);
}

static int
wait_run(struct stat_ctx *c, struct waiter *w)
{
	int r = runner_watch(w->rn);

	if (r < 0)
		return open_failed(r);
	w->done |= w->rn->stop;
	try_reap(c, w);
	while (!w->done && r == 0)
		r = wait_step(c, w);
	/* a command ended by --interval-count: reap it */
	if (w->killed)
		runner_reap(w->rn, true);
	c->stopped |= w->killed;
	runner_unwatch(w->rn);
	return r;
}

/* ---- runs --------------------------------------------------------------- */

static struct stat_run *
new_run(struct stat_ctx *c)
{
	struct stat_run *n = realloc(c->rep.runs,
				     (c->rep.nr_runs + 1) * sizeof(*n));

	size_t nr = c->rep.nr_events ? (size_t)c->rep.nr_events : 1;
	struct stat_run *run;

	if (!n)
		return NULL;
	c->rep.runs = n;
	run = &n[c->rep.nr_runs];
	memset(run, 0, sizeof(*run));
	run->count = calloc(nr, sizeof(*run->count));
	run->bounds = calloc(nr, sizeof(*run->bounds));
	if (run->count && run->bounds)
		return run;
	free(run->count);
	free(run->bounds);
	return NULL;
}

/*
 * The row of thread, CPU, core... @id: one of those from @from on, or a
 * new one
 */
static struct stat_slice *
add_instance(struct stat_ctx *c, int id, int socket, int from)
{
	struct stat_slice *n, *sl;

	for (int i = from; i < c->rep.nr_instances; i++) {
		sl = &c->rep.instances[i];
		if (sl->id == id && sl->socket == socket)
			return sl;
	}
	n = realloc(c->rep.instances,
		    (c->rep.nr_instances + 1) * sizeof(*n));
	if (!n)
		return NULL;
	c->rep.instances = n;
	sl = &n[c->rep.nr_instances];
	if (slice_copy(sl, NULL, c->rep.nr_events) < 0)
		return NULL;
	c->rep.nr_instances++;
	sl->run = c->rep.nr_runs + 1;
	sl->id = id;
	sl->socket = socket;
	return sl;
}

/*
 * The counts of one thread or CPU of set @k (a chunk of the events),
 * added to its row (its core's, ...): the other chunks' sets of the same
 * target (from instance @from on) have their rows already.
 */
static int
add_instance_counts(struct stat_ctx *c, struct waiter *w, int k, int i,
		    int from)
{
	int cpu = pctr_set_instance_id(w->set[k], i), id = cpu, socket = -1;
	const struct stat_chunk *ch = &w->chunk[k % w->nr_chunks];
	bool first = ch == w->chunk;
	struct stat_slice *sl;
	struct pctr_sample s;

	if (c->rep.aggr > AGGR_THREAD)
		id = cpu_topology_id(id, c->rep.aggr, &socket);
	if (!stat_aggr_in_socket(c->rep.aggr))
		socket = -1;
	sl = add_instance(c, id, socket,
			  c->rep.aggr > AGGR_THREAD ? 0
			  : first		    ? c->rep.nr_instances
						    : from);
	if (!sl)
		return open_failed(-ENOMEM);
	if (stat_aggr_in_socket(c->rep.aggr)) /* perf's names of them */
		sl->die = cpu_die_id(cpu);
	if (c->rep.aggr == AGGR_CACHE)
		cpu_last_cache(cpu, &sl->cache_level, &sl->cache_cpu);
	if (pctr_set_read_instance(w->set[k], i, &s) < 0)
		return open_failed(-EIO);
	for (int e = 0; e < ch->nr; e++) {
		enum tool_event t = tool_event_of(pctr_set_event(w->set[k], e));
		bool other = c->rep.target == STAT_CPU &&
			     (i > 0 || k >= w->nr_chunks);

		/* perf's: on the first CPU alone, on every thread */
		if (t != TOOL_NONE)
			s.count[e] = other ? (struct pctr_count){ 0 }
					   : tool_count(w, t, &s.count[e]);
		sl->count[ch->first + e] = pctr_count_add(
			&sl->count[ch->first + e], &s.count[e]);
	}
	sl->nr_cpus += first;
	return 0;
}

/* each thread or CPU, or each core, socket or node of the CPUs */
static int
read_instances(struct stat_ctx *c, struct waiter *w)
{
	int from = 0;

	slices_free(c->rep.instances, c->rep.nr_instances);
	c->rep.instances = NULL;
	c->rep.nr_instances = 0;
	for (int k = 0; k < w->nr_sets; k++) {
		int n = pctr_set_nr_instances(w->set[k]);

		if (k % w->nr_chunks == 0)
			from = c->rep.nr_instances; /* a target's first set */
		for (int i = 0; i < n; i++)
			if (add_instance_counts(c, w, k, i, from))
				return 1;
	}
	return 0;
}

/* the totals of a finished run, read @now */
static int
run_totals(struct stat_ctx *c, struct waiter *w, struct stat_run *run,
	   uint64_t now)
{
	int r;

	if (!w->begun && (r = begin_counting(w, true)) < 0)
		return open_failed(r);
	run->elapsed_ns = now - w->start;
	run->tsc_ticks = pctr_tsc() - w->tsc0;
	r = sets_read(w, w->now, false);
	if (r < 0)
		return open_failed(r);
	memcpy(run->count, w->now, (size_t)w->nr_events * sizeof(*w->now));
	scale_add(w, w->now);
	scale_bounds(c, w, run);
	run->has_rusage = w->rn->child == 0 && c->rep.argv;
	run->user_ns = timeval_ns(&w->rn->ru.ru_utime);
	run->sys_ns = timeval_ns(&w->rn->ru.ru_stime);
	/*
	 * -D: when counting really began, which a busy machine makes later
	 * than asked (pctr wakes up late); elapsed_ns is that much shorter
	 */
	run->delay_ns = c->delay_ms ? w->start - w->t0 : 0;
	if (c->rep.per_thread && read_instances(c, w))
		return 1;
	/* the last, partial interval: the rows add up to the totals */
	if (w->interval &&
	    !(c->interval_count && w->rows >= c->interval_count) &&
	    interval_row(c, w, now, w->now))
		return 1;
	return 0;
}

static int
finish_run(struct stat_ctx *c, struct waiter *w)
{
	struct stat_run *run = new_run(c);
	int r = run ? run_totals(c, w, run, now_ns()) : open_failed(-ENOMEM);

	if (r == 0) {
		/* with -I, said with each interval */
		if (!w->interval)
			print_verbose_counts(c, w, run->count);
		c->rep.nr_runs++;
	} else if (run) {
		free(run->count);
		free(run->bounds);
	}
	return r;
}

static void
record_exit(struct stat_ctx *c, int status)
{
	c->rep.has_exit = true;
	c->rep.exit_status = wait_status_code(status);
	c->rep.exit_signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
}

/*
 * A set of the command's that left every event out failed the open: a
 * placeholder in each set with room (add_placeholder()), where it counts
 * nothing and is never reported
 */
static bool
add_placeholders(const struct stat_ctx *c, struct waiter *w, int r)
{
	bool added = false;

	for (int i = 0; i < w->nr_sets; i++)
		added |= add_placeholder(c, w->set[i], r);
	return added;
}

/* the command, once, counted by every set from its exec */
static int
open_command(struct stat_ctx *c, struct waiter *w)
{
	int r;

	c->rn.child = -1;
	r = pctr_set_open_command_sets(w->set, w->nr_sets, c->rep.argv,
				       &c->rn.child);
	if (r < 0 && add_placeholders(c, w, r))
		r = pctr_set_open_command_sets(w->set, w->nr_sets,
					       c->rep.argv, &c->rn.child);
	return r;
}

/*
 * The first counter bound to a task, machine-wide, turns the kernel's
 * context-switch hooks on and waits for an RCU grace period
 * (account_event(): synchronize_rcu(); 5 to 15 ms on a quiet 2-CPU VM);
 * they stay on while such a counter exists and for a second after.  The
 * run's time starts before its counters open (run_command()), so a counter
 * of pctr's own thread opened first, and held until the command's are
 * open, puts that wait before the run's time, where perf's is: else a
 * short command's elapsed time held it ('true': 3.6 ms where perf says
 * 1.2).  NULL if it cannot open: the run goes on, as before.
 */
static struct pctr_set *
hold_switch_hooks(void)
{
	static const struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *s = NULL;

	if (pctr_set_new(&s, 0) < 0)
		return NULL;
	if (pctr_set_add(s, "dummy") < 0 || pctr_set_open(s, &self) < 0) {
		pctr_set_free(s);
		return NULL;
	}
	return s;
}

static int
run_command(struct stat_ctx *c, int run)
{
	struct waiter w = { .run = run, .rn = &c->rn };
	int r = make_sets(c, &w, 1);
	struct pctr_set *hooks;
	uint64_t t0, tsc0;

	if (r) {
		free_sets(&w);
		return r;
	}
	w.interval = (uint64_t)c->interval_ms * 1000000u;
	hooks = hold_switch_hooks();
	t0 = now_ns();
	tsc0 = pctr_tsc();
	r = open_command(c, &w);
	pctr_set_free(hooks);
	if (r < 0) {
		free_sets(&w);
		return open_failed(r);
	}
	r = after_open(c, w.set);
	if (r) {
		free_sets(&w);
		runner_reap(&c->rn, true);
		return r;
	}
	w.scale_on = may_multiplex(c);
	w.duration = (uint64_t)c->timeout_ms * 1000000u;
	/* -D from the command's start, as its elapsed time (below) */
	r = plan_begin(c, &w, true, t0);
	/*
	 * Counting begins at the exec, just after pctr_set_open_command()
	 * returns: the run's time starts before the call, not when it
	 * returned (a short command may have run by then, or ended: 'true'
	 * counted 600 us of task-clock in 30 us of "elapsed" time)
	 */
	if (r == 0 && !c->delay_ms)
		start_at(&w, t0, tsc0);
	r = r < 0 ? open_failed(r) : wait_run(c, &w);
	if (r == 0)
		r = finish_run(c, &w);
	if (r == 0)
		record_exit(c, c->rn.status);
	free_sets(&w);
	return r;
}

/* the cgroup2 mount point, from /proc/self/mountinfo */
static bool
cgroup2_mount(char *path, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char line[1024], mnt[512], type[64];
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f)) {
		const char *dash = strstr(line, " - ");

		if (dash && sscanf(line, "%*s %*s %*s %*s %511s", mnt) == 1 &&
		    sscanf(dash + 3, "%63s", type) == 1 &&
		    !strcmp(type, "cgroup2"))
			found = snprintf(path, len, "%s", mnt) < (int)len;
	}
	if (f)
		fclose(f);
	return found;
}

/* -G NAME: NAME under the cgroup2 mount, or the path given */
static int
open_cgroup(struct stat_ctx *c)
{
	const char *name = c->rep.cgroup;
	char mnt[512], path[1024];

	if (name[0] == '/') {
		snprintf(path, sizeof(path), "%s", name);
	} else if (cgroup2_mount(mnt, sizeof(mnt))) {
		snprintf(path, sizeof(path), "%s/%s", mnt, name);
	} else {
		tool_err("-G %s: no cgroup2 hierarchy is mounted here: give "
			 "the cgroup's directory as a path", name);
		return EXIT_USAGE;
	}
	c->cgroup_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (c->cgroup_fd < 0) {
		tool_err("-G %s: %s: %s", name, path, strerror(errno));
		return EXIT_USAGE;
	}
	return 0;
}

/* set @i, on a process, thread, the CPUs or a cgroup */
static int
open_one(struct stat_ctx *c, struct waiter *w, int i, pid_t pid)
{
	static const int type[] = { 0, PCTR_TARGET_PID, PCTR_TARGET_TID,
				    PCTR_TARGET_CPU };
	bool cgroup = c->cgroup_fd >= 0;
	struct pctr_target t = { .type = cgroup ? PCTR_TARGET_CGROUP
						: type[c->rep.target],
				 .pid = cgroup ? c->cgroup_fd : pid,
				 .nr_cpus = c->rep.nr_cpus,
				 .cpus = c->rep.cpus };
	int r = pctr_set_open(w->set[i], &t);

	if (r < 0 && add_placeholder(c, w->set[i], r))
		r = pctr_set_open(w->set[i], &t);
	return r < 0 ? open_failed(r) : 0;
}

/*
 * Sets for each process or thread of -p/-t, for the CPUs of -a (one for
 * each chunk of the events), opened stopped: counting begins in
 * plan_begin().
 */
static int
open_attached(struct stat_ctx *c, struct waiter *w)
{
	int n = c->rep.target == STAT_CPU ? 1 : c->rep.nr_pids;
	int r = make_sets(c, w, n);

	w->watch = c->rep.target != STAT_CPU;
	if (w->watch)
		watch_open(c, w);
	for (int i = 0; r == 0 && i < w->nr_sets; i++)
		r = open_one(c, w, i, c->rep.pids[i / c->nr_chunks]);
	return r ? r : after_open(c, w->set);
}

static int
run_attached(struct stat_ctx *c)
{
	struct waiter w = { .run = 1, .rn = &c->rn };
	int r = open_attached(c, &w);

	if (r == 0) {
		w.interval = (uint64_t)c->interval_ms * 1000000u;
		w.scale_on = may_multiplex(c);
		w.duration = (uint64_t)(c->duration * 1e9);
		r = plan_begin(c, &w, false, now_ns());
		r = r < 0 ? open_failed(r) : 0;
	}
	if (r == 0 && c->rep.argv)
		r = runner_spawn(&c->rn, c->rep.argv);
	if (r == 0)
		r = wait_run(c, &w);
	if (r == 0)
		sets_enable(&w, false);
	if (r == 0)
		r = finish_run(c, &w);
	if (r == 0 && c->rep.argv)
		record_exit(c, c->rn.status);
	free_sets(&w);
	watch_close(c, &w);
	return r;
}

/*
 * -r on a terminal: "run I of N" on standard error before each run, the
 * line cleared at the end (@i 0), so that a long series shows where it is;
 * never when standard error is a file or a pipe.
 */
static void
progress(const struct stat_ctx *c, long i)
{
	static int tty = -1;

	if (tty < 0)
		tty = isatty(STDERR_FILENO);
	if (!tty || c->repeat < 2)
		return;
	if (i)
		fprintf(stderr, "\rpctr stat: run %ld of %ld ", i, c->repeat);
	else
		fputs("\r\033[K", stderr);
}

/*
 * --pre, --post: sh -c CMD around each run, as perf stat's; one that
 * fails ends the series.  -S: sync(2) first, as perf stat's --sync.
 */
static int
run_hook(struct stat_ctx *c, const char *opt, const char *cmd)
{
	int st;

	if (c->sync && !strcmp(opt, "--pre"))
		sync();
	if (!cmd)
		return 0;
	fflush(c->out);
	st = system(cmd);
	if (st == 0)
		return 0;
	tool_err("%s '%s': %s %d", opt, cmd,
		 st > 0 && WIFSIGNALED(st) ? "killed by signal" : "exit status",
		 st < 0 ? -1 : WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return 1;
}

static int
run_all(struct stat_ctx *c)
{
	int r = 0;

	runner_catch();
	if (c->rep.target != STAT_COMMAND)
		return run_attached(c);
	for (long i = 0; i < c->repeat && !c->rn.interrupted && r == 0; i++) {
		progress(c, i + 1);
		r = run_hook(c, "--pre", c->pre);
		if (r == 0)
			r = run_command(c, (int)i + 1);
		if (r == 0)
			r = run_hook(c, "--post", c->post);
	}
	progress(c, 0);
	return r;
}


/* ---- the subcommand ----------------------------------------------------- */

/* a process that is not there is said first, before anything else */
static int
check_process(const struct stat_ctx *c)
{
	if (c->rep.target != STAT_PID && c->rep.target != STAT_TID)
		return 0;
	for (int i = 0; i < c->rep.nr_pids; i++) {
		if (kill(c->rep.pids[i], 0) == 0 || errno != ESRCH)
			continue;
		tool_err("no %s %d",
			 c->rep.target == STAT_PID ? "process" : "thread",
			 (int)c->rep.pids[i]);
		return tool_exit_status(-ESRCH);
	}
	return 0;
}

static int
check_command(struct stat_ctx *c)
{
	int r = check_process(c);

	return r || !c->rep.argv ? r : runner_check_command(c->rep.argv);
}

/* stderr, stdout for "-", or FILE, before the command starts */
static int
open_output(struct stat_ctx *c)
{
	if (c->quiet)
		c->output = "/dev/null";
	if (c->log_fd >= 0) {
		c->out = runner_adopt(&c->rn,
				      out_open_fd("--log-fd", (int)c->log_fd));
		return c->out ? 0 : 1;
	}
	c->out = runner_output(&c->rn, "-o", c->output, c->rep.append);
	if (c->out && c->output && strcmp(c->output, "-"))
		report_start(c->out, &c->rep, c->output);
	return c->out ? 0 : 1;
}

static int
finish(struct stat_ctx *c, int r)
{
	if (r == 0 && c->rep.nr_runs)
		report_print(c->out, &c->rep);
	/* a report that did not reach its file (said) is a failure */
	if (runner_close(&c->rn) < 0 && r == 0)
		r = 1;
	c->out = NULL;
	/* a command pctr ended is no failure (--interval-count, --timeout) */
	if (r == 0 && c->rep.has_exit && !c->stopped)
		r = c->rep.exit_status;
	return r;
}

int
cmd_stat(int argc, char **argv)
{
	struct stat_ctx c = {
		.rep = { .multiplex = true, .sep = "," },
		.repeat = 1,
		.ctl_fd = -1,
		.ack_fd = -1,
		.cgroup_fd = -1,
		.log_fd = -1,
	};
	int r;

	runner_init(&c.rn);
	tool_set_name("pctr stat");
	r = stat_parse_options(&c, argc, argv);
	if (r == 0)
		r = check_command(&c);
	if (r == 0 && c.rep.cgroup)
		r = open_cgroup(&c);
	if (r == 0)
		r = setup_events(&c);
	if (r == 0)
		r = open_output(&c);
	if (r == 0)
		print_attrs(&c, stderr);
	if (r == 0)
		r = run_all(&c);
	r = finish(&c, r);
	report_free(&c.rep);
	free((void *)c.rep.cpus);
	free(c.events);
	free(c.group);
	free(c.chunk);
	stat_close_control(&c);
	if (c.cgroup_fd >= 0)
		close(c.cgroup_fd);
	return r;
}
