/* SPDX-License-Identifier: MIT */
/*
 * stat_perf.c - pctr stat -x SEP and -j in perf stat's layouts, field for
 * field, so that what reads perf's output reads pctr's (man perf-stat,
 * CSV FORMAT and JSON FORMAT; the lines of Debian's perf 6.1 are the
 * model, tests/tool/test_perf_format.c runs both).
 *
 * One line per event (and per CPU, thread, core, die, cluster, cache,
 * socket or node when broken out), no header:
 *
 *   [TIME,][ID,[N,]]VALUE,UNIT,EVENT,[VARIANCE,]RUN,PCT,METRIC,METRIC-UNIT
 *   {["interval" : T, ]["cpu" : "ID", ]["aggregate-number" : N, ]
 *    "counter-value" : "V", "unit" : "U", "event" : "E",
 *    ["variance" : X, ]"event-runtime" : R, "pcnt-running" : P,
 *    "metric-value" : M, "metric-unit" : "MU"}
 *
 * VALUE is the scaled count (task-clock and cpu-clock in msec, but ns in
 * the software PMU's syntax, as perf has them), or
 * <not counted> (never on a counter) or <not supported>; RUN the
 * nanoseconds on a counter, PCT their share of the enabled time; the
 * metric is perf's "shadow" figure of the event: CPUs utilized for a
 * clock, GHz for cycles, instructions per cycle, the share of branch and
 * cache misses, else the rate per second of the clock's time.  CPUs,
 * threads and -r are event-major; CPU groups (cores, ..., nodes) are
 * aggregate-major, as perf prints them.  Numbers are written in the C
 * locale (cmd_stat.c switches to it for these formats).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>

#include "tool.h"
#include "util.h"

/* one event's figures on one line */
struct perf_fig {
	double value; /* scaled count */
	double running, enabled;
	double variance; /* -r: relative standard error, %; NaN: none */
};

/* what the lines of one slice share */
struct perf_line {
	FILE *f;
	const struct stat_report *r;
	const char *sep; /* NULL: JSON */
	const char *time; /* -I: the stamp; NULL */
	const char *id_key, *id; /* the instance's key and name; NULL */
	const char *csv_id; /* its CSV name ("CPU0" where JSON has "0") */
	int nr; /* CPUs aggregated; -1 where perf writes none */
	double elapsed_ns; /* the wall time of the slice */
	struct perf_fig *fig; /* per event */
};

static bool
is_hw(const struct pctr_event *ev, uint32_t type, uint64_t config)
{
	return ev->type == type && (ev->config & PERF_HW_EVENT_MASK) == config;
}

static bool
is_clock(const struct pctr_event *ev)
{
	return is_hw(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK) ||
	       is_hw(ev, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK);
}

static bool
counted(const struct perf_line *l, int e)
{
	return !l->r->err[e] && l->fig[e].running > 0;
}

/* the line's value of the first counted event of that kind; NaN: none */
static double
figure_of(const struct perf_line *l, uint32_t type, uint64_t config)
{
	for (int e = 0; e < l->r->nr_events; e++)
		if (counted(l, e) && is_hw(&l->r->ev[e], type, config))
			return l->fig[e].value;
	return NAN;
}

/*
 * The line's clock time: the first task-clock or cpu-clock opened, 0
 * where it did not count (a thread that never ran), as perf 6.1 keeps a
 * clock's time even then (the other events' rate is then 0 /sec:
 * "0.000,/sec" on duration_time's line of such a thread); NaN without
 * one.
 */
static double
clock_ns(const struct perf_line *l)
{
	for (int e = 0; e < l->r->nr_events; e++)
		if (!l->r->err[e] && is_clock(&l->r->ev[e]))
			return counted(l, e) ? l->fig[e].value : 0;
	return NAN;
}

/* @x / @den where @den is a known non-zero figure; else NaN */
static double
ratio(double x, double den)
{
	return isfinite(den) && den != 0 ? x / den : NAN;
}

/* @x in percent of @den: 0 where @den was counted as 0, NaN if not counted */
static double
share(double x, double den)
{
	return isnan(den) ? NAN : den > 0 ? 100 * x / den : 0;
}

static const char *unit_of(const struct pctr_event *ev, char *unit,
			   double *scale);

/* what one count of @ev is worth in perf's unit */
static double
scale_of(const struct pctr_event *ev)
{
	char unit[STAT_UNIT_MAX];
	double scale;

	unit_of(ev, unit, &scale);
	return scale;
}

/*
 * perf's shadow metric of event @e: its value into *@v (NaN: perf leaves
 * the value out, CSV's field empty and JSON's 0), its unit returned
 * (NULL: none at all), and *@fmt the printf form whose digits CSV keeps.
 * perf 6.1's cases, its "Ghz" of cycles without a clock included.
 */
static const char *
metric(const struct perf_line *l, int e, double *v, const char **fmt)
{
	static const char *const rate[] = { "/sec", "K/sec", "M/sec",
					    "G/sec" };
	const struct pctr_event *ev = &l->r->ev[e];
	double x = l->fig[e].value, clk = clock_ns(l);
	int k = 0;

	*fmt = "%.3f";
	if (is_clock(ev))
		return (*v = ratio(x, l->elapsed_ns)), "CPUs utilized";
	if (is_hw(ev, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES)) {
		*v = ratio(x, clk);
		return isfinite(*v) ? "GHz" : "Ghz";
	}
	*fmt = "%.2f";
	if (is_hw(ev, PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS))
		return (*v = ratio(x, figure_of(l, PERF_TYPE_HARDWARE,
						PERF_COUNT_HW_CPU_CYCLES))),
		       "insn per cycle";
	if (is_hw(ev, PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES))
		return (*v = share(x, figure_of(l, PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_BRANCH_INSTRUCTIONS))),
		       "of all branches";
	*fmt = "%.3f";
	if (is_hw(ev, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES))
		return (*v = share(x, figure_of(l, PERF_TYPE_HARDWARE,
					PERF_COUNT_HW_CACHE_REFERENCES))),
		       "of all cache refs";
	/* the rate over the clock's time: none without a clock counted */
	if (isnan(clk))
		return (*v = NAN), NULL;
	x *= scale_of(ev); /* of the value perf shows */
	for (*v = clk > 0 ? 1e9 * x / clk : 0; *v > 1e3 && k < 3; k++)
		*v /= 1e3;
	return rate[k];
}

/* a clock by its name, "cpu-clock" or "task-clock" (and modifiers) */
static bool
named_clock(const struct pctr_event *ev)
{
	size_t n = strcspn(ev->name, ":");

	return is_clock(ev) && ((n == 9 && !strncmp(ev->name, "cpu-clock", n)) ||
				(n == 10 && !strncmp(ev->name, "task-clock", n)));
}

/*
 * perf's unit of the count, into @unit (STAT_UNIT_MAX bytes), and what
 * one count is worth in it: the command's (a PMU's named event's sysfs
 * unit and scale, ns for a tool event), but msec for the clocks by their
 * names; a clock in a PMU's syntax (software/config=1/, or with a name=
 * term) is ns with no unit: perf takes a PMU event's unit and scale from
 * its sysfs alias, and the software PMU has none.
 */
static const char *
unit_of(const struct pctr_event *ev, char *unit, double *scale)
{
	const char *u = stat_event_unit(ev, unit, scale);
	bool msec = named_clock(ev);

	if (!is_clock(ev) || *scale != 1.0 || strcmp(u, "ns"))
		return u;
	*scale = msec ? 1e-6 : 1.0;
	return msec ? "msec" : "";
}

static const char *
not_value(const struct perf_line *l, int e)
{
	return l->r->err[e] ? "<not supported>" : "<not counted>";
}

static double
pct_running(const struct perf_fig *g)
{
	return g->enabled > 0 ? 100.0 * g->running / g->enabled : 100.0;
}

static void
csv_line(const struct perf_line *l, int e)
{
	const struct perf_fig *g = &l->fig[e];
	const char *sep = l->sep, *fmt, *mu;
	double scale, mv = NAN;
	char b[64], u[STAT_UNIT_MAX];
	const char *unit = unit_of(&l->r->ev[e], u, &scale);

	if (l->time)
		fprintf(l->f, "%s%s", l->time, sep);
	if (l->id)
		fprintf(l->f, "%s%s", l->csv_id, sep);
	if (l->id && l->nr >= 0)
		fprintf(l->f, "%d%s", l->nr, sep);
	if (counted(l, e))
		fprintf(l->f, floor(scale) != scale ? "%.2f" : "%.0f",
			g->value * scale);
	else
		fputs(not_value(l, e), l->f);
	/* not quoted, as perf writes it: choose a SEP no name holds */
	fprintf(l->f, "%s%s%s%s", sep, unit, sep, l->r->perf_name[e]);
	if (!isnan(g->variance))
		fprintf(l->f, "%s%.2f%%", sep, g->variance);
	fprintf(l->f, "%s%.0f%s%.2f%s", sep, g->running, sep, pct_running(g),
		sep);
	mu = counted(l, e) ? metric(l, e, &mv, &fmt) : NULL;
	if (mu && isfinite(mv)) {
		snprintf(b, sizeof(b), fmt, mv);
		fprintf(l->f, "%s%s%s", b, sep, mu);
	} else {
		fputs(sep, l->f);
	}
	fputc('\n', l->f);
}

/* perf's members: "key" : value, with spaces around the colon */
static void
json_key(FILE *f, const char *key)
{
	fprintf(f, "\"%s\" : ", key);
}

static void
json_line(const struct perf_line *l, int e)
{
	const struct perf_fig *g = &l->fig[e];
	const char *fmt, *mu;
	double scale, mv = 0;
	char b[64], u[STAT_UNIT_MAX];
	const char *unit = unit_of(&l->r->ev[e], u, &scale);

	fputc('{', l->f);
	if (l->time)
		fprintf(l->f, "\"interval\" : %s, ", l->time);
	if (l->id) {
		json_key(l->f, l->id_key);
		pctr__json_string(l->f, l->id);
		fputs(", ", l->f);
	}
	if (l->id && l->nr >= 0)
		fprintf(l->f, "\"aggregate-number\" : %d, ", l->nr);
	json_key(l->f, "counter-value");
	snprintf(b, sizeof(b), "%f", g->value * scale);
	pctr__json_string(l->f, counted(l, e) ? b : not_value(l, e));
	fprintf(l->f, ", \"unit\" : \"%s\", ", unit);
	json_key(l->f, "event");
	pctr__json_string(l->f, l->r->perf_name[e]);
	if (!isnan(g->variance))
		fprintf(l->f, ", \"variance\" : %.2f", g->variance);
	fprintf(l->f, ", \"event-runtime\" : %.0f, \"pcnt-running\" : %.2f, ",
		g->running, pct_running(g));
	mu = counted(l, e) ? metric(l, e, &mv, &fmt) : NULL;
	if (!isfinite(mv))
		mv = 0;
	if (!mu)
		mu = "";
	fprintf(l->f, "\"metric-value\" : %f, \"metric-unit\" : ", mv);
	pctr__json_string(l->f, mu);
	fputs("}\n", l->f);
}

static void
perf_line(const struct perf_line *l, int e)
{
	if (l->sep)
		csv_line(l, e);
	else
		json_line(l, e);
}

/* ---- instances: their names and numbers ---------------------------------- */

static const char *
thread_comm(int tid, char *buf, size_t len)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", tid);
	f = fopen(path, "re");
	if (!f || !fgets(buf, (int)len, f))
		snprintf(buf, len, "?");
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

/*
 * The name of a CPU's group @s, as perf names it: a core, die, cluster
 * or cache by its socket and die ("S0-D0-C1", "S0-D0-CLS2"; a cache by
 * its level and the first CPU sharing it, "S0-D0-L3-ID0"), a socket "S0",
 * a node "N0".  perf 6.1 has no --per-cluster or --per-cache: their
 * names and keys ("cluster", "cache") are those of the perf that added
 * them (stat-display.c).
 */
static void
group_name(enum stat_aggr aggr, const struct stat_slice *s, char *id,
	   size_t len)
{
	if (aggr == AGGR_CORE)
		snprintf(id, len, "S%d-D%d-C%d", s->socket, s->die, s->id);
	else if (aggr == AGGR_DIE)
		snprintf(id, len, "S%d-D%d", s->socket, s->id);
	else if (aggr == AGGR_CLUSTER)
		snprintf(id, len, "S%d-D%d-CLS%d", s->socket, s->die, s->id);
	else if (aggr == AGGR_CACHE)
		snprintf(id, len, "S%d-D%d-L%d-ID%d", s->socket, s->die,
			 s->cache_level, s->cache_cpu);
	else
		snprintf(id, len, "%c%d", aggr == AGGR_NODE ? 'N' : 'S', s->id);
}

/* the key and names of instance @s ("cpu", "0", "CPU0"); its CPU count */
static void
name_instance(const struct stat_report *r, const struct stat_slice *s,
	      struct perf_line *l, char *id, char *csv_id, size_t len)
{
	static const char *const key[] = {
		[AGGR_THREAD] = "cpu",	   [AGGR_CORE] = "core",
		[AGGR_SOCKET] = "socket",  [AGGR_NODE] = "node",
		[AGGR_DIE] = "die",	   [AGGR_CLUSTER] = "cluster",
		[AGGR_CACHE] = "cache",
	};
	char comm[32];

	l->nr = r->aggr > AGGR_THREAD ? s->nr_cpus : -1;
	l->id_key = r->target == STAT_CPU ? key[r->aggr] : "thread";
	if (r->target != STAT_CPU)
		snprintf(id, len, "%s-%d",
			 thread_comm(s->id, comm, sizeof(comm)), s->id);
	else if (r->aggr == AGGR_THREAD)
		snprintf(id, len, "%d", s->id);
	else
		group_name(r->aggr, s, id, len);
	snprintf(csv_id, len, "%s%s",
		 r->target == STAT_CPU && r->aggr == AGGR_THREAD ? "CPU" : "",
		 id);
	l->id = id;
	l->csv_id = csv_id;
}

/* a slice's counts as figures: one reading, no variance */
static void
slice_figs(const struct stat_report *r, const struct stat_slice *s,
	   struct perf_fig *g)
{
	for (int e = 0; e < r->nr_events; e++) {
		const struct pctr_count *c = &s->count[e];

		g[e] = (struct perf_fig){ .value = pctr_count_scaled(c),
					  .running = (double)c->running,
					  .enabled = (double)c->enabled,
					  .variance = NAN };
	}
}

/*
 * lines of @n instances: event-major for CPUs and threads, else by one.
 * A tool event's count is on the first CPU, core or socket alone, and on
 * every thread, as perf's: perf prints no other CPU's line, and another
 * core's or socket's as <not counted> on 0 CPUs.
 */
static void
instance_lines(struct perf_line *l, const struct stat_slice *s, int n)
{
	struct perf_fig *g = l->fig; /* the caller's */
	char id[64], csv_id[64];
	const struct stat_report *r = l->r;
	bool by_event = r->aggr == AGGR_THREAD;

	for (int a = 0; a < (by_event ? r->nr_events : n); a++)
		for (int b = 0; b < (by_event ? n : r->nr_events); b++) {
			int i = by_event ? b : a, e = by_event ? a : b;

			bool other = i > 0 && r->target == STAT_CPU &&
				     tool_event_of(&r->ev[e]) != TOOL_NONE;

			if (other && by_event)
				continue;
			name_instance(r, &s[i], l, id, csv_id, sizeof(id));
			if (other)
				l->nr = 0;
			slice_figs(r, &s[i], g);
			perf_line(l, e);
		}
}

/* ---- the report ------------------------------------------------------- */

/*
 * Over the runs of -r: the mean of the scaled counts, of the times, and
 * perf's "variance", the standard error relative to the mean in percent
 * (0 for one run, and where memory for the runs' counts is short).
 */
static void
runs_fig(const struct stat_report *r, int e, struct perf_fig *g)
{
	int n = r->nr_runs;
	double *x = malloc((size_t)(n ? n : 1) * sizeof(*x));
	struct pctr_summary s = { .size = sizeof(s) };

	*g = (struct perf_fig){ .variance = r->repeated ? 0 : NAN };
	for (int i = 0; i < n; i++) {
		const struct pctr_count *c = &r->runs[i].count[e];

		g->value += pctr_count_scaled(c) / n;
		g->running += (double)c->running / n;
		g->enabled += (double)c->enabled / n;
		if (x)
			x[i] = pctr_count_scaled(c);
	}
	if (r->repeated && x && n > 1 && pctr_values_summary(x, n, &s) == 0 &&
	    s.mean != 0 && isfinite(s.std_error))
		g->variance = 100.0 * s.std_error / fabs(s.mean);
	free(x);
}

static double
mean_elapsed(const struct stat_report *r)
{
	double sum = 0;

	for (int i = 0; i < r->nr_runs; i++)
		sum += (double)r->runs[i].elapsed_ns;
	return r->nr_runs ? sum / r->nr_runs : NAN;
}

/* a figure for each event; NULL (said) out of memory */
static struct perf_fig *
new_figs(const struct stat_report *r)
{
	struct perf_fig *g = calloc(r->nr_events ? r->nr_events : 1,
				    sizeof(*g));

	if (!g)
		tool_err("%s", pctr_strerror(-ENOMEM));
	return g;
}

void
perf_report_print(FILE *f, const struct stat_report *r)
{
	struct perf_fig *g = new_figs(r);
	struct perf_line l = { .f = f, .r = r, .nr = -1, .fig = g,
			       .elapsed_ns = mean_elapsed(r) };

	l.sep = r->format == FMT_PERF_CSV ? r->sep : NULL;
	/*
	 * with -I, the intervals were the report, as in perf; with
	 * --summary the totals follow, in -j without an "interval"; in -x
	 * (with -I or not) marked "summary" in a column of their own, but
	 * with --no-csv-summary
	 */
	if (!g || (r->interval && !r->summary) || r->nr_runs == 0) {
		free(g);
		return;
	}
	if (r->summary && l.sep && !r->no_csv_summary)
		l.time = "         summary"; /* perf's "%16s" */
	if (r->per_thread) {
		instance_lines(&l, r->instances, r->nr_instances);
	} else {
		for (int e = 0; e < r->nr_events; e++)
			runs_fig(r, e, &g[e]);
		for (int e = 0; e < r->nr_events; e++)
			perf_line(&l, e);
	}
	free(g);
}

/*
 * One interval of -I: the total's lines, or with -A, --per-thread and
 * --per-* each instance's (@inst, counts of the interval alone).
 */
void
perf_report_interval(FILE *f, const struct stat_report *r,
		     const struct stat_slice *total,
		     const struct stat_slice *inst, int n, uint64_t len_ns)
{
	struct perf_fig *g = new_figs(r);
	struct perf_line l = { .f = f, .r = r, .nr = -1, .fig = g,
			       .elapsed_ns = (double)len_ns };
	char t[48];

	if (!g)
		return;
	l.sep = r->format == FMT_PERF_CSV ? r->sep : NULL;
	snprintf(t, sizeof(t), l.sep ? "%6llu.%09llu" : "%llu.%09llu",
		 (unsigned long long)(total->time_ns / 1000000000u),
		 (unsigned long long)(total->time_ns % 1000000000u));
	l.time = t;
	if (r->per_thread) {
		instance_lines(&l, inst, n);
	} else {
		slice_figs(r, total, g);
		for (int e = 0; e < r->nr_events; e++)
			perf_line(&l, e);
	}
	free(g);
}
