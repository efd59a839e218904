/* SPDX-License-Identifier: MIT */
/*
 * output.c - how the pctr command writes: numbers for people, and the
 * report of pctr stat as text, pctr-stat/1 JSON and pctr's CSV
 * (doc/json-schema.md; perf's layouts are stat_perf.c's, JSON is written
 * by src/text).
 */
#include <limits.h>
#include <locale.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "metrics.h"
#include "text.h"
#include "tool.h"
#include "util.h"

/* ---- numbers ------------------------------------------------------------ */

bool fmt_big_num = true;

/*
 * Text follows LC_NUMERIC: its radix, and its digit groups with -B.  The
 * command never calls setlocale(): options, /proc and sysfs are parsed in
 * C, and JSON and CSV are written in C.  Text is written with the thread
 * switched to the numeric part of the environment's locale for the time
 * (text_locale()); an unknown or missing locale leaves C.
 */
locale_t
text_locale(void)
{
	static locale_t loc;
	static bool tried;

	if (!tried) {
		tried = true;
		loc = newlocale(LC_NUMERIC_MASK, "", (locale_t)0);
	}
	return loc ? uselocale(loc) : (locale_t)0;
}

void
text_locale_end(locale_t old)
{
	if (old)
		uselocale(old);
}

/*
 * The current locale's thousands separator and grouping (struct lconv:
 * each byte a group's size from the right, the last repeated, CHAR_MAX
 * for no more groups).  A locale without a separator (C, POSIX) gets a
 * comma every three digits, a point where the comma is the radix.
 */
static const char *
group_rule(const char **grouping)
{
	const struct lconv *lc = localeconv();

	if (*lc->thousands_sep && *lc->grouping) {
		*grouping = lc->grouping;
		return lc->thousands_sep;
	}
	*grouping = "\3";
	return strcmp(lc->decimal_point, ",") ? "," : ".";
}

/* @n integer digits at @p, grouped, into @out; its length */
static size_t
group_digits(char *out, size_t len, const char *p, size_t n)
{
	const char *g, *sep = group_rule(&g);
	bool before[64] = { false }; /* a separator before digit i */
	size_t o = 0, rest = n, size = (unsigned char)*g;

	for (; fmt_big_num && n < 64 && size > 0 && size != CHAR_MAX &&
	       rest > size;) {
		rest -= size;
		before[rest] = true;
		if (g[1])
			size = (unsigned char)*++g;
	}
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (i < 64 && before[i] && o + strlen(sep) + 1 < len) {
			memcpy(out + o, sep, strlen(sep));
			o += strlen(sep);
		}
		out[o++] = p[i];
	}
	out[o] = '\0';
	return o;
}

char *
fmt_group(char *buf, size_t len, double v, int decimals)
{
	char digits[64], *p = digits;
	size_t o = 0, n;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	/* the radix, if any, is the locale's */
	snprintf(digits, sizeof(digits), "%.*f", decimals, v);
	if (*p == '-' && o + 1 < len)
		buf[o++] = *p++;
	n = strspn(p, "0123456789");
	o += group_digits(buf + o, len - o, p, n);
	snprintf(buf + o, len - o, "%s", p + n);
	return buf;
}

char *
fmt_si(char *buf, size_t len, double v)
{
	static const char *const prefix[] = { "", " K", " M", " G", " T" };
	int i = 0;

	if (!isfinite(v)) {
		snprintf(buf, len, "-");
		return buf;
	}
	while (fabs(v) >= 1000.0 && i < 4) {
		v /= 1000.0;
		i++;
	}
	snprintf(buf, len, "%.3f%s", v, prefix[i]);
	return buf;
}

/* ---- CSV ---------------------------------------------------------------- */

void
csv_field(FILE *f, const char *sep, bool first, const char *s)
{
	if (!first)
		fputs(sep, f);
	pctr__csv_field(f, sep, s);
}

/* ---- the stat report: figures ------------------------------------------ */

void
report_note(struct stat_report *r, const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	tool_err("%s", s);
	if (r->nr_notes < (int)(sizeof(r->notes) / sizeof(r->notes[0])))
		r->notes[r->nr_notes++] = s;
	else
		free(s);
}

int
slice_copy(struct stat_slice *dst, const struct stat_slice *src, int nr)
{
	size_t size = (size_t)(nr ? nr : 1) * sizeof(*dst->count);

	*dst = src ? *src : (struct stat_slice){ .count = NULL };
	dst->count = src ? malloc(size) : calloc(1, size);
	if (!dst->count)
		return -1;
	if (src)
		memcpy(dst->count, src->count,
		       (size_t)nr * sizeof(*src->count));
	return 0;
}

void
slices_free(struct stat_slice *s, int n)
{
	for (int i = 0; s && i < n; i++)
		free(s[i].count);
	free(s);
}

void
report_free(struct stat_report *r)
{
	for (int i = 0; i < r->nr_notes; i++)
		free(r->notes[i]);
	for (int i = 0; i < r->nr_runs; i++) {
		free(r->runs[i].count);
		free(r->runs[i].bounds);
	}
	free(r->runs);
	slices_free(r->intervals, r->nr_intervals);
	slices_free(r->instances, r->nr_instances);
	slices_free(r->last, r->nr_last);
	free(r->ev);
	free(r->perf_name);
	free(r->err);
	free(r->why);
}

static bool
is_event(const struct pctr_event *ev, uint32_t type, uint64_t config)
{
	return ev->type == type &&
	       (ev->config & PERF_HW_EVENT_MASK) == config;
}

static int
find_event(const struct stat_report *r, uint32_t type, uint64_t config)
{
	for (int e = 0; e < r->nr_events; e++)
		if (!r->err[e] && is_event(&r->ev[e], type, config))
			return e;
	return -1;
}

const char *
stat_event_unit(const struct pctr_event *ev, char *unit, double *scale)
{
	if (tool_event_of(ev) != TOOL_NONE) {
		*scale = 1.0;
		return strcpy(unit, "ns");
	}
	if (pctr_event_unit(ev, unit, STAT_UNIT_MAX, scale) < 0)
		*scale = NAN; /* its sysfs files changed since it was parsed */
	return unit;
}

/*
 * what one count of @ev is in the human table: "ns", "Joules", or with
 * its worth, "2.32831e-10 Joules"; "" for a plain count
 */
static const char *
unit_label(const struct pctr_event *ev, char *buf, size_t len)
{
	char u[STAT_UNIT_MAX];
	double scale;
	const char *unit = stat_event_unit(ev, u, &scale);

	if (scale == 1.0)
		snprintf(buf, len, "%s", unit);
	else
		snprintf(buf, len, "%.6g%s%s", scale, *unit ? " " : "", unit);
	return buf;
}

/* @ev's name in the table, what a count is after it: "task-clock (ns)" */
static const char *
event_label(const struct pctr_event *ev, char *buf, size_t len)
{
	char unit[64];

	unit_label(ev, unit, sizeof(unit));
	snprintf(buf, len, "%s%s%s%s", ev->name, *unit ? " (" : "", unit,
		 *unit ? ")" : "");
	return buf;
}

static double
running_pct(const struct pctr_count *c)
{
	if (c->enabled == 0)
		return NAN;
	return 100.0 * (double)c->running / (double)c->enabled;
}

/* what a cycle is for "per cycle": core cycles if counted, else TSC ticks */
static int
cycles_event(const struct stat_report *r)
{
	return find_event(r, PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES);
}

static double
run_cycles(const struct stat_report *r, int run)
{
	int c = cycles_event(r);

	if (c >= 0)
		return pctr_count_scaled(&r->runs[run].count[c]);
	return (double)r->runs[run].tsc_ticks;
}

/*
 * Statistics of one figure over the runs, by the library's engine
 * (pctr_values_summary(): mean, spread, standard error, 95% interval),
 * with the median and, from PCT_MIN_RUNS runs, the 5th and 95th
 * percentiles: with fewer, they would be the extreme runs themselves.
 * A run without the figure (a rate over no time) is NaN, and left out.
 */
#define PCT_MIN_RUNS 20

struct figures {
	struct pctr_summary s;
	double median, p5, p95;
};

static double
pct_of(const double *x, int n, double p)
{
	double v;

	return pctr_values_percentile(x, (size_t)n, p, &v) < 0 ? NAN : v;
}

static void
figures_of(const double *x, int n, struct figures *f)
{
	f->s = (struct pctr_summary){ .size = sizeof(f->s) };
	if (pctr_values_summary(x, (size_t)n, &f->s) < 0)
		f->s = (struct pctr_summary){ .std_error = NAN,
					      .ci95_low = NAN,
					      .ci95_high = NAN };
	f->median = f->s.n ? pct_of(x, n, 50.0) : NAN;
	f->p5 = f->s.n >= PCT_MIN_RUNS ? pct_of(x, n, 5.0) : NAN;
	f->p95 = f->s.n >= PCT_MIN_RUNS ? pct_of(x, n, 95.0) : NAN;
}

/* room for one figure per run: NULL (said once) when memory is short */
static double *
per_run(const struct stat_report *r, int figures)
{
	double *x = calloc((size_t)r->nr_runs * figures + 1, sizeof(*x));

	if (!x)
		tool_err("out of memory for the statistics of %d runs",
			 r->nr_runs);
	return x;
}

/* per-run figures of one event, gathered */
struct event_stats {
	struct figures count, per_sec, per_cycle, running;
};

static void
event_values(const struct stat_report *r, int e, double *x)
{
	int n = r->nr_runs;

	for (int i = 0; i < n; i++) {
		const struct pctr_count *c = &r->runs[i].count[e];
		/* a run in which it never ran measured nothing: left out */
		double v = c->running ? pctr_count_scaled(c) : NAN, sec, cyc;

		sec = (double)r->runs[i].elapsed_ns / 1e9;
		cyc = run_cycles(r, i);
		x[i] = v;
		x[n + i] = sec > 0 ? v / sec : NAN;
		x[2 * n + i] = cyc > 0 ? v / cyc : NAN;
		x[3 * n + i] = c->enabled ? running_pct(c) : NAN;
	}
}

static void
event_stats(const struct stat_report *r, int e, struct event_stats *s)
{
	int n = r->err[e] ? 0 : r->nr_runs;
	double *x = per_run(r, 4);

	if (!x)
		n = 0;
	else if (n)
		event_values(r, e, x);
	figures_of(x, n, &s->count);
	figures_of(x ? x + n : NULL, n, &s->per_sec);
	figures_of(x ? x + 2 * n : NULL, n, &s->per_cycle);
	figures_of(x ? x + 3 * n : NULL, n, &s->running);
	free(x);
}

/*
 * Derived figures (metrics.c): each shown when its events were counted,
 * all that apply unless -M named some.
 */
static bool
metric_shown(const struct stat_report *r, int i)
{
	return !r->metrics || (r->metrics & 1u << i);
}

/* metric @m of run @i: NaN where its denominator is 0 */
static double
metric_value(const struct stat_report *r, int i, int num, int den)
{
	const struct stat_run *run = &r->runs[i];
	double n = pctr_count_scaled(&run->count[num]);
	double d = den < 0 ? (double)run->elapsed_ns
			   : pctr_count_scaled(&run->count[den]);

	return d > 0 ? n / d : NAN;
}

/* the statistics of metric @m into @f; false if it does not apply */
static bool
metric_stats(const struct stat_report *r, const struct metric *m,
	     struct figures *f, int *num, int *den)
{
	struct pctr_event nev, dev;
	double *x;

	if (!metric_event(m->num, &nev) ||
	    (m->den && !metric_event(m->den, &dev)))
		return false;
	*num = find_event(r, nev.type, nev.config & PERF_HW_EVENT_MASK);
	*den = m->den ? find_event(r, dev.type,
				   dev.config & PERF_HW_EVENT_MASK)
		      : -1;
	if (*num < 0 || (m->den && *den < 0) || r->nr_runs == 0)
		return false;
	x = per_run(r, 1);
	for (int i = 0; x && i < r->nr_runs; i++)
		x[i] = metric_value(r, i, *num, *den);
	figures_of(x, x ? r->nr_runs : 0, f);
	free(x);
	return true;
}

/* elapsed time per run: in nanoseconds, TSC ticks, or seconds (@unit) */
enum elapsed_unit {
	ELAPSED_NS,
	ELAPSED_TSC,
	ELAPSED_SEC,
	ELAPSED_USER, /* the command's user-mode seconds (wait4) */
	ELAPSED_SYS, /* and its kernel-mode seconds */
	ELAPSED_USER_NS,
	ELAPSED_SYS_NS,
	ELAPSED_DELAY_NS, /* -D: how late counting began */
};

/* every run reaped its command: its CPU time is known */
static bool
has_rusage(const struct stat_report *r)
{
	for (int i = 0; i < r->nr_runs; i++)
		if (!r->runs[i].has_rusage)
			return false;
	return r->nr_runs > 0;
}

static double
elapsed_value(const struct stat_run *run, enum elapsed_unit unit)
{
	switch (unit) {
	case ELAPSED_TSC:
		return (double)run->tsc_ticks;
	case ELAPSED_NS:
		return (double)run->elapsed_ns;
	case ELAPSED_SEC:
		return (double)run->elapsed_ns / 1e9;
	case ELAPSED_USER:
		return (double)run->user_ns / 1e9;
	case ELAPSED_SYS:
		return (double)run->sys_ns / 1e9;
	case ELAPSED_USER_NS:
		return (double)run->user_ns;
	case ELAPSED_SYS_NS:
		return (double)run->sys_ns;
	case ELAPSED_DELAY_NS:
		return (double)run->delay_ns;
	}
	return NAN;
}

/* the integers of JSON, exact past 2^53 (TSC ticks) */
static unsigned long long
elapsed_raw(const struct stat_run *run, enum elapsed_unit unit)
{
	return unit == ELAPSED_TSC	   ? run->tsc_ticks
	       : unit == ELAPSED_USER_NS ? run->user_ns
	       : unit == ELAPSED_SYS_NS	   ? run->sys_ns
	       : unit == ELAPSED_DELAY_NS  ? run->delay_ns
					   : run->elapsed_ns;
}

static struct figures
elapsed_stats(const struct stat_report *r, enum elapsed_unit unit)
{
	double *x = per_run(r, 1);
	struct figures f;

	for (int i = 0; x && i < r->nr_runs; i++)
		x[i] = elapsed_value(&r->runs[i], unit);
	figures_of(x, x ? r->nr_runs : 0, &f);
	free(x);
	return f;
}

/* ---- the stat report: for people ---------------------------------------- */

#define NUMW 15
#define CIW 17 /* " +- 14,057,041.5": always a space before */
#define RSEW 15 /* " ( +- 12.34% )" */
#define RATEW 13 /* " 123.456 M" */
#define NOT_SUPPORTED "<not supported>"
#define NOT_COUNTED "<not counted>" /* enabled, never on a counter */

static int
name_width(const struct stat_report *r)
{
	int w = 20;
	struct figures a;
	int num, den;

	for (int e = 0; e < r->nr_events; e++) {
		char label[PCTR_NAME_MAX + 72];
		int n = (int)strlen(r->ev[e].name) + 5, m = (int)strlen(
			event_label(&r->ev[e], label, sizeof(label)));

		if (n < m)
			n = m;
		if (n > w)
			w = n;
	}
	for (int i = 0; i < metric_count; i++)
		if (metric_shown(r, i) &&
		    metric_stats(r, &metric_table[i], &a, &num, &den) &&
		    (int)strlen(metric_table[i].desc) > w)
			w = (int)strlen(metric_table[i].desc);
	return w;
}

static void
print_target(FILE *f, const struct stat_report *r)
{
	switch (r->target) {
	case STAT_COMMAND:
		break;
	case STAT_PID:
	case STAT_TID:
		if (r->target == STAT_PID)
			fputs(r->nr_pids > 1 ? "processes" : "process", f);
		else
			fputs(r->nr_pids > 1 ? "threads" : "thread", f);
		for (int i = 0; i < r->nr_pids; i++)
			fprintf(f, "%s%d", i ? "," : " ", (int)r->pids[i]);
		return;
	case STAT_CPU:
		if (r->cgroup)
			fprintf(f, "cgroup %s on ", r->cgroup);
		fprintf(f, "%s", r->nr_cpus ? "CPUs" : "all CPUs");
		for (int i = 0; i < r->nr_cpus; i++)
			fprintf(f, "%s%d", i ? "," : " ", r->cpus[i]);
		return;
	}
	fputc('\'', f);
	for (int i = 0; r->argv && r->argv[i]; i++)
		fprintf(f, "%s%s", i ? " " : "", r->argv[i]);
	fputc('\'', f);
}

/*
 * The "per cycle" (or "per TSC tick") column only when a hardware event
 * was counted: for software events it is noise
 */
static bool
per_cycle_column(const struct stat_report *r)
{
	for (int e = 0; e < r->nr_events; e++)
		if (r->ev[e].hardware && !r->err[e])
			return true;
	return false;
}

/*
 * Columns: the count (or the mean over runs, with its 95% interval and
 * relative standard error), per second, per cycle for hardware events,
 * the share of time on the counters.  Within 100 columns with -r; the
 * median, min, max, stddev and percentiles are in -j and -x.
 */
static void
print_header(FILE *f, const struct stat_report *r, int w, bool stats)
{
	fprintf(f, "\n Performance counter stats for ");
	print_target(f, r);
	if (stats)
		fprintf(f, " (%d run%s)", r->nr_runs, r->nr_runs == 1 ? "" : "s");
	fprintf(f, ":\n");
	if (!r->nr_events) /* -n: the times only */
		return;
	fprintf(f, "\n %-*s%*s", w, "event", NUMW,
		stats ? "mean" : "count");
	if (stats)
		fprintf(f, " %*s%*s", CIW - 1, "+- 95% CI", RSEW,
			"(+- stderr) ");
	fprintf(f, "%*s", RATEW, "per second");
	if (per_cycle_column(r))
		fprintf(f, "%*s", RATEW,
			cycles_event(r) >= 0 ? "per cycle" : "per TSC tick");
	fprintf(f, "%9s\n", "running");
}

static void
print_running(FILE *f, const struct stat_report *r, int e,
	      const struct figures *run)
{
	char pct[32];

	if (r->nr_runs && r->runs[r->nr_runs - 1].count[e].running == 0)
		snprintf(pct, sizeof(pct), "never");
	else if (run->s.n == 0)
		snprintf(pct, sizeof(pct), "-");
	else
		snprintf(pct, sizeof(pct), "%.1f%%", run->s.mean);
	fprintf(f, "%9s", pct);
}

/*
 * The statistics columns over runs: the mean's 95% interval as
 * "+- half-width", its standard error relative to the mean as perf
 * writes it, "( +- 1.23% )".  "-" where a figure needs more runs.
 */
static void
print_figures(FILE *f, const struct figures *fg, int decimals)
{
	double half = fg->s.ci95_high - fg->s.mean, rse = NAN;
	char b[64], c[64];

	if (fg->s.n && fg->s.mean != 0.0)
		rse = 100.0 * fg->s.std_error / fabs(fg->s.mean);
	snprintf(c, sizeof(c), "+- %s", fmt_group(b, sizeof(b), half,
						   decimals));
	fprintf(f, " %*s", CIW - 1, isfinite(half) ? c : "-");
	snprintf(c, sizeof(c), "( +- %.2f%% )", rse);
	fprintf(f, "%*s", RSEW, isfinite(rse) ? c : "- ");
}

/*
 * After the columns, for one run: the interval of a multiplexed count
 * ("[low .. high]", pctr_set(3)), or why there is none.  With more runs
 * the spread over them is shown; each run's interval is in -j and -x.
 */
static void
print_bounds(FILE *f, const struct stat_report *r, int e)
{
	const struct stat_run *run = &r->runs[0];
	const struct pctr_count *c = &run->count[e];
	char lo[64], hi[64];

	if (r->nr_runs != 1 || c->running == 0 || c->running >= c->enabled)
		return;
	if (!run->bounds[e].known) {
		fprintf(f, "  [interval unknown: too few reads]");
		return;
	}
	fprintf(f, "  [%s .. %s]", fmt_group(lo, sizeof(lo),
					     run->bounds[e].low, 0),
		fmt_group(hi, sizeof(hi), run->bounds[e].high, 0));
}

/* why event @e is not counted: the open's own words, else its errno's */
static const char *
event_why(const struct stat_report *r, int e)
{
	return r->why[e][0] ? r->why[e] : pctr_strerror(r->err[e]);
}

static void
print_event(FILE *f, const struct stat_report *r, int e, int w, bool stats)
{
	struct event_stats s;
	char name[PCTR_NAME_MAX + 72], b[64];

	event_stats(r, e, &s);
	event_label(&r->ev[e], name, sizeof(name));
	if (r->err[e]) {
		fprintf(f, " %-*s%*s  (%s)\n", w, name, NUMW,
			NOT_SUPPORTED, event_why(r, e));
		return;
	}
	fprintf(f, " %-*s%*s", w, name, NUMW,
		!s.count.s.n && r->nr_runs
			? NOT_COUNTED
			: fmt_group(b, sizeof(b),
				    s.count.s.n ? s.count.s.mean : NAN,
				    stats ? 1 : 0));
	if (stats)
		print_figures(f, &s.count, 1);
	fprintf(f, "%*s", RATEW,
		fmt_si(b, sizeof(b), s.per_sec.s.n ? s.per_sec.s.mean : NAN));
	snprintf(b, sizeof(b), "%.4g", s.per_cycle.s.mean);
	if (per_cycle_column(r))
		fprintf(f, "%*s", RATEW,
			s.per_cycle.s.n && r->ev[e].hardware ? b : "-");
	print_running(f, r, e, &s.running);
	print_bounds(f, r, e);
	fputc('\n', f);
}

static void
print_stat_line(FILE *f, const char *name, int w, const struct figures *a,
		bool stats, int decimals)
{
	char b[64];

	fprintf(f, " %-*s%*s", w, name, NUMW,
		fmt_group(b, sizeof(b), a->s.n ? a->s.mean : NAN, decimals));
	if (stats)
		print_figures(f, a, decimals);
	fputc('\n', f);
}

static void
print_metrics(FILE *f, const struct stat_report *r, int w, bool stats)
{
	struct figures a, el;
	int num, den;

	fputc('\n', f);
	for (int i = 0; i < metric_count; i++)
		if (metric_shown(r, i) &&
		    metric_stats(r, &metric_table[i], &a, &num, &den))
			print_stat_line(f, metric_table[i].desc, w, &a, stats,
					4);
	el = elapsed_stats(r, ELAPSED_SEC);
	print_stat_line(f, "seconds elapsed", w, &el, stats, 6);
	if (!has_rusage(r))
		return;
	el = elapsed_stats(r, ELAPSED_USER);
	print_stat_line(f, "seconds user", w, &el, stats, 6);
	el = elapsed_stats(r, ELAPSED_SYS);
	print_stat_line(f, "seconds sys", w, &el, stats, 6);
}

/* what an instance row is: thread, cpu, or the group of CPUs added up */
static const char *
instance_kind(const struct stat_report *r)
{
	static const char *const kind[] = { "cpu",    "cpu",  "core",
					    "socket", "node", "die",
					    "cluster", "cache" };

	return r->target == STAT_CPU ? kind[r->aggr] : "thread";
}

/*
 * "S0-C1" for a core, "S0-D1" for a die (their numbers are unique in their
 * socket only), or "3"
 */
static char *
instance_id(const struct stat_report *r, const struct stat_slice *s,
	    char *buf, size_t len)
{
	static const char *const letter[] = { [AGGR_CORE] = "C",
					      [AGGR_DIE] = "D",
					      [AGGR_CLUSTER] = "CLS",
					      [AGGR_CACHE] = "LLC" };

	if (r->target == STAT_CPU && stat_aggr_in_socket(r->aggr))
		snprintf(buf, len, "S%d-%s%d", s->socket, letter[r->aggr],
			 s->id);
	else
		snprintf(buf, len, "%d", s->id);
	return buf;
}

static void
print_instances(FILE *f, const struct stat_report *r, int w)
{
	char b[64], id[32];

	for (int i = 0; i < r->nr_instances; i++) {
		const struct stat_slice *s = &r->instances[i];

		instance_id(r, s, id, sizeof(id));
		if (r->target == STAT_CPU && r->aggr > AGGR_THREAD)
			fprintf(f, "\n %s %s (%d CPU%s)\n", instance_kind(r),
				id, s->nr_cpus, s->nr_cpus == 1 ? "" : "s");
		else
			fprintf(f, "\n %s %s\n",
				r->target == STAT_CPU ? "CPU" : "thread", id);
		for (int e = 0; e < r->nr_events; e++)
			fprintf(f, "   %-*s%*s\n", w - 2, r->ev[e].name, NUMW,
				r->err[e] ? NOT_SUPPORTED
					  : fmt_group(b, sizeof(b),
						      pctr_count_scaled(
							      &s->count[e]),
						      0));
	}
}

static void
print_human(FILE *f, const struct stat_report *r)
{
	bool stats = r->repeated || r->nr_runs > 1;
	int w = name_width(r);

	if (r->nr_runs == 0)
		return;
	print_header(f, r, w, stats);
	for (int e = 0; e < r->nr_events; e++)
		print_event(f, r, e, w, stats);
	print_metrics(f, r, w, stats);
	if (r->per_thread)
		print_instances(f, r, w);
	if (r->has_exit && r->exit_signal)
		fprintf(f, "\n command killed by signal %d (%s)\n",
			r->exit_signal, strsignal(r->exit_signal));
	else if (r->has_exit)
		fprintf(f, "\n command exit status %d\n", r->exit_status);
	fputc('\n', f);
}

/* ---- the stat report: JSON ---------------------------------------------- */

/* the statistics object (doc/json-schema.md), with median and percentiles */
static void
json_figures(struct pctr_json *j, const struct figures *a)
{
	pctr__json_summary(j, &a->s, 1.0);
	pctr__json_num(j, "median", a->median);
	pctr__json_num(j, "p5", a->p5);
	pctr__json_num(j, "p95", a->p95);
}

/* @b: the run's interval of the scaled count; NULL where none is kept */
static void
json_count(struct pctr_json *j, const struct pctr_count *c,
	   const struct stat_bounds *b)
{
	bool known = b && b->known;

	pctr__json_obj(j, NULL);
	pctr__json_uint(j, "value", c->value);
	pctr__json_num(j, "scaled", pctr_count_scaled(c));
	pctr__json_num(j, "scaled_low", known ? b->low : NAN);
	pctr__json_num(j, "scaled_high", known ? b->high : NAN);
	pctr__json_uint(j, "enabled_ns", c->enabled);
	pctr__json_uint(j, "running_ns", c->running);
	pctr__json_num(j, "running_pct", running_pct(c));
	pctr__json_obj_end(j);
}

static void
json_target(struct pctr_json *j, const struct stat_report *r)
{
	static const char *const type[] = { "command", "pid", "tid", "cpu" };

	pctr__json_obj(j, "target");
	pctr__json_str(j, "type", type[r->target]);
	if (r->target == STAT_PID || r->target == STAT_TID) {
		pctr__json_int(j, r->target == STAT_PID ? "pid" : "tid",
			       r->pid);
		pctr__json_arr(j, r->target == STAT_PID ? "pids" : "tids");
		for (int i = 0; i < r->nr_pids; i++)
			pctr__json_int(j, NULL, r->pids[i]);
		pctr__json_arr_end(j);
	}
	if (r->target == STAT_CPU && r->cgroup)
		pctr__json_str(j, "cgroup", r->cgroup);
	if (r->target == STAT_CPU) {
		pctr__json_arr(j, "cpus");
		for (int i = 0; i < r->nr_cpus; i++)
			pctr__json_int(j, NULL, r->cpus[i]);
		pctr__json_arr_end(j);
	}
	if (r->argv) {
		pctr__json_arr(j, "argv");
		for (int i = 0; r->argv[i]; i++)
			pctr__json_str(j, NULL, r->argv[i]);
		pctr__json_arr_end(j);
	}
	pctr__json_obj_end(j);
}

static void
json_time(struct pctr_json *j, const struct stat_report *r, const char *key,
	  enum elapsed_unit unit)
{
	struct figures a = elapsed_stats(r, unit);

	pctr__json_obj(j, key);
	pctr__json_arr(j, "values");
	for (int i = 0; i < r->nr_runs; i++)
		pctr__json_uint(j, NULL, elapsed_raw(&r->runs[i], unit));
	pctr__json_arr_end(j);
	json_figures(j, &a);
	pctr__json_obj_end(j);
}

/* the command's CPU time, from wait4(); null when no command was reaped */
static void
json_rusage(struct pctr_json *j, const struct stat_report *r)
{
	if (!has_rusage(r)) {
		pctr__json_null(j, "user_ns");
		pctr__json_null(j, "sys_ns");
		return;
	}
	json_time(j, r, "user_ns", ELAPSED_USER_NS);
	json_time(j, r, "sys_ns", ELAPSED_SYS_NS);
}

/* what a count is in: "unit", and "scale", one count's worth in it */
static void
json_unit(struct pctr_json *j, const struct pctr_event *ev)
{
	char unit[STAT_UNIT_MAX];
	double scale;

	pctr__json_str(j, "unit", stat_event_unit(ev, unit, &scale));
	pctr__json_num(j, "scale", scale);
}

static void
json_event(struct pctr_json *j, const struct stat_report *r, int e)
{
	struct event_stats s;

	event_stats(r, e, &s);
	pctr__json_obj(j, NULL);
	pctr__json_str(j, "name", r->ev[e].name);
	pctr__json_bool(j, "hardware", r->ev[e].hardware);
	json_unit(j, &r->ev[e]);
	pctr__json_bool(j, "supported", !r->err[e]);
	if (r->err[e])
		pctr__json_str(j, "not_supported", event_why(r, e));
	else
		pctr__json_null(j, "not_supported");
	pctr__json_arr(j, "runs");
	for (int i = 0; !r->err[e] && i < r->nr_runs; i++)
		json_count(j, &r->runs[i].count[e], &r->runs[i].bounds[e]);
	pctr__json_arr_end(j);
	pctr__json_obj(j, "stats");
	json_figures(j, &s.count);
	pctr__json_obj_end(j);
	pctr__json_num(j, "running_pct",
		       s.running.s.n ? s.running.s.mean : NAN);
	pctr__json_obj(j, "per_second");
	json_figures(j, &s.per_sec);
	pctr__json_obj_end(j);
	pctr__json_obj(j, "per_cycle");
	pctr__json_str(j, "basis", cycles_event(r) >= 0 ? "cycles" : "tsc");
	json_figures(j, &s.per_cycle);
	pctr__json_obj_end(j);
	pctr__json_obj_end(j);
}

static void
json_metric(struct pctr_json *j, const struct stat_report *r,
	    const struct metric *m)
{
	struct figures a;
	int num, den;

	if (!metric_stats(r, m, &a, &num, &den))
		return;
	pctr__json_obj(j, NULL);
	pctr__json_str(j, "name", m->name);
	pctr__json_str(j, "desc", m->desc);
	pctr__json_str(j, "numerator", r->ev[num].name);
	pctr__json_str(j, "denominator", den < 0 ? "elapsed" : r->ev[den].name);
	pctr__json_arr(j, "values");
	for (int i = 0; i < r->nr_runs; i++)
		pctr__json_num(j, NULL, metric_value(r, i, num, den));
	pctr__json_arr_end(j);
	json_figures(j, &a);
	pctr__json_obj_end(j);
}

/* a slice's counts in event order; null for an event not supported */
static void
json_slice_events(struct pctr_json *j, const struct stat_report *r,
		  const struct stat_slice *s)
{
	pctr__json_arr(j, "events");
	for (int e = 0; e < r->nr_events; e++)
		if (r->err[e])
			pctr__json_null(j, NULL);
		else
			json_count(j, &s->count[e], NULL);
	pctr__json_arr_end(j);
}

static void
json_slices(struct pctr_json *j, const struct stat_report *r, const char *key,
	    const struct stat_slice *s, int n, bool interval)
{
	pctr__json_arr(j, key);
	for (int i = 0; i < n; i++) {
		pctr__json_obj(j, NULL);
		if (interval) {
			pctr__json_int(j, "run", s[i].run);
			pctr__json_uint(j, "time_ns", s[i].time_ns);
		} else {
			pctr__json_str(j, "kind", instance_kind(r));
			pctr__json_int(j, "id", s[i].id);
		}
		if (!interval && stat_aggr_in_socket(r->aggr))
			pctr__json_int(j, "socket", s[i].socket);
		if (!interval && r->aggr > AGGR_THREAD)
			pctr__json_int(j, "nr_cpus", s[i].nr_cpus);
		json_slice_events(j, r, &s[i]);
		pctr__json_obj_end(j);
	}
	pctr__json_arr_end(j);
}

static void
json_exit(struct pctr_json *j, const struct stat_report *r)
{
	pctr__json_obj(j, "exit");
	pctr__json_int(j, "status", r->exit_status);
	if (r->exit_signal)
		pctr__json_int(j, "signal", r->exit_signal);
	else
		pctr__json_null(j, "signal");
	pctr__json_obj_end(j);
}

/* the host, for reports merged from many (pctr merge, pctr mpirun) */
static const char *
host_name(char *buf, size_t len)
{
	if (gethostname(buf, len - 1) < 0)
		snprintf(buf, len, "?");
	buf[len - 1] = '\0';
	return buf;
}

static void
print_json(FILE *f, const struct stat_report *r)
{
	char host[256];
	struct pctr_json j;

	/* -I: JSON Lines, the document last */
	pctr__json_begin(&j, f, r->interval);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-stat/1");
	pctr__json_str(&j, "pctr_version", pctr_version());
	pctr__json_str(&j, "host", host_name(host, sizeof(host)));
	pctr__json_machine(&j, "machine", &r->machine);
	json_target(&j, r);
	pctr__json_arr(&j, "notes");
	for (int i = 0; i < r->nr_notes; i++)
		pctr__json_str(&j, NULL, r->notes[i]);
	pctr__json_arr_end(&j);
	pctr__json_bool(&j, "multiplex", r->multiplex);
	pctr__json_int(&j, "runs", r->nr_runs);
	if (r->has_exit)
		json_exit(&j, r);
	json_time(&j, r, "elapsed_ns", ELAPSED_NS);
	json_time(&j, r, "tsc_ticks", ELAPSED_TSC);
	if (r->delayed)
		json_time(&j, r, "delay_ns", ELAPSED_DELAY_NS);
	else
		pctr__json_null(&j, "delay_ns");
	json_rusage(&j, r);
	pctr__json_arr(&j, "events");
	for (int e = 0; e < r->nr_events; e++)
		json_event(&j, r, e);
	pctr__json_arr_end(&j);
	pctr__json_arr(&j, "metrics");
	for (int i = 0; i < metric_count; i++)
		if (metric_shown(r, i))
			json_metric(&j, r, &metric_table[i]);
	pctr__json_arr_end(&j);
	if (r->nr_intervals)
		json_slices(&j, r, "intervals", r->intervals, r->nr_intervals,
			    true);
	if (r->per_thread)
		json_slices(&j, r, "instances", r->instances, r->nr_instances,
			    false);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

/* ---- the stat report: CSV ----------------------------------------------- */

static const char *const csv_columns[] = {
	"kind",	    "run",    "time_ns", "id",	       "event",      "value",
	"scaled",   "unit",   "enabled_ns", "running_ns", "running_pct",
	"note",
	/* statistics over the runs, on "stats" rows only */
	"n", "mean", "stddev", "stderr", "ci95_low", "ci95_high", "median",
	"p5", "p95",
	/* the command's CPU time, on "total" rows of a reaped command only */
	"user_ns", "sys_ns",
	/* the interval of a multiplexed count, on "total" rows only */
	"scaled_low", "scaled_high",
	/* what one count is worth in the unit (the unit's scale) */
	"scale",
};

#define CSV_STATS 9 /* the columns from "n" on */

/* @v by @fmt, or (NULL) in the shortest form of JSON; empty if not finite */
static void
csv_number(FILE *f, const struct stat_report *r, const char *fmt, double v)
{
	char b[64];

	if (fmt)
		snprintf(b, sizeof(b), fmt, v);
	else
		pctr__number(b, sizeof(b), v);
	csv_field(f, r->sep, false, isfinite(v) ? b : "");
}

/* the statistics columns: empty for a row of one run (@a NULL) */
static void
csv_figures(FILE *f, const struct stat_report *r, const struct figures *a)
{
	const struct pctr_summary *s = a ? &a->s : NULL;

	if (!a) {
		for (int k = 0; k < CSV_STATS; k++)
			csv_field(f, r->sep, false, "");
		return;
	}
	csv_number(f, r, "%.0f", (double)s->n);
	csv_number(f, r, NULL, s->n ? s->mean : NAN);
	csv_number(f, r, NULL, s->n > 1 ? s->stddev : NAN);
	csv_number(f, r, NULL, s->std_error);
	csv_number(f, r, NULL, s->ci95_low);
	csv_number(f, r, NULL, s->ci95_high);
	csv_number(f, r, NULL, a->median);
	csv_number(f, r, NULL, a->p5);
	csv_number(f, r, NULL, a->p95);
}

static void
csv_header_line(FILE *f, const struct stat_report *r)
{
	for (size_t i = 0; i < sizeof(csv_columns) / sizeof(csv_columns[0]);
	     i++)
		csv_field(f, r->sep, i == 0, csv_columns[i]);
	fputc('\n', f);
}

/*
 * The header, once at the top of the table: not again in a file that
 * --append adds to and that begins with it, so that the file stays one
 * table that pctr and others read.
 */
static void
csv_header(FILE *f, const struct stat_report *r)
{
	if (!r->continued)
		csv_header_line(f, r);
}

/*
 * Does the regular file at @path begin with the header line of @r?  Only
 * so many bytes are read: a device (/dev/full, /dev/zero) has no lines.
 */
static bool
begins_with_header(const struct stat_report *r, const char *path)
{
	char *want = NULL, *got = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&want, &len), *f = fopen(path, "re");
	struct stat st;
	bool same = false;

	if (m) {
		csv_header_line(m, r);
		fclose(m);
	}
	if (f && want && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    (got = malloc(len)))
		same = fread(got, 1, len, f) == len && !memcmp(got, want, len);
	if (f)
		fclose(f);
	free(want);
	free(got);
	return same;
}

/* the unit column: the unit of event @e's count (its scale goes last) */
static void
csv_unit(FILE *f, const struct stat_report *r, int e)
{
	char unit[STAT_UNIT_MAX];
	double scale;

	csv_field(f, r->sep, false, stat_event_unit(&r->ev[e], unit, &scale));
}

/* the scale column, last: one count's worth in the unit */
static void
csv_scale(FILE *f, const struct stat_report *r, int e)
{
	char unit[STAT_UNIT_MAX];
	double scale;

	stat_event_unit(&r->ev[e], unit, &scale);
	csv_number(f, r, NULL, scale);
}

/* the rest of the row of an event not counted: no figures, the reason */
static void
csv_unsupported(FILE *f, const struct stat_report *r, int e)
{
	char note[256];

	for (int i = 0; i < 2; i++) /* value, scaled */
		csv_field(f, r->sep, false, "");
	csv_unit(f, r, e);
	for (int i = 0; i < 3; i++) /* enabled_ns, running_ns, running_pct */
		csv_field(f, r->sep, false, "");
	snprintf(note, sizeof(note), "not supported: %s",
		 event_why(r, e));
	csv_field(f, r->sep, false, note);
	csv_figures(f, r, NULL);
}

/* user_ns and sys_ns: @run's, if its command was reaped; else empty */
static void
csv_rusage(FILE *f, const struct stat_report *r, const struct stat_run *run)
{
	char b[32];

	if (!run || !run->has_rusage) {
		csv_field(f, r->sep, false, "");
		csv_field(f, r->sep, false, "");
		return;
	}
	snprintf(b, sizeof(b), "%llu", (unsigned long long)run->user_ns);
	csv_field(f, r->sep, false, b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)run->sys_ns);
	csv_field(f, r->sep, false, b);
}

/* scaled_low and scaled_high: event @e's in @run, if known; else empty */
static void
csv_bounds(FILE *f, const struct stat_report *r, const struct stat_run *run,
	   int e)
{
	bool known = run && e >= 0 && run->bounds[e].known;

	csv_number(f, r, "%.0f", known ? run->bounds[e].low : NAN);
	csv_number(f, r, "%.0f", known ? run->bounds[e].high : NAN);
}

/*
 * "not counted: ..." on a run's total row of an event that never ran on a
 * counter, whatever its enabled time (0 as well was seen in the emulated
 * arm64 guest, for events grouped behind a pinned group)
 */
static const char *
csv_note(const char *kind, const struct pctr_count *c)
{
	return !strcmp(kind, "total") && !c->running
		       ? "not counted: the event never ran on a counter"
		       : "";
}

/* @ru: the run whose CPU time goes at the end (total rows), or NULL */
static void
csv_row(FILE *f, const struct stat_report *r, const char *kind, int run,
	const char *time, const char *id, int e, const struct pctr_count *c,
	const struct stat_run *ru)
{
	char b[64];
	double pct = running_pct(c);

	csv_field(f, r->sep, true, kind);
	snprintf(b, sizeof(b), "%d", run);
	csv_field(f, r->sep, false, b);
	csv_field(f, r->sep, false, time);
	csv_field(f, r->sep, false, id);
	csv_field(f, r->sep, false, r->ev[e].name);
	if (r->err[e]) {
		csv_unsupported(f, r, e);
		csv_rusage(f, r, ru);
		csv_bounds(f, r, NULL, e);
		csv_scale(f, r, e);
		fputc('\n', f);
		return;
	}
	snprintf(b, sizeof(b), "%llu", (unsigned long long)c->value);
	csv_field(f, r->sep, false, b);
	snprintf(b, sizeof(b), "%.0f", pctr_count_scaled(c));
	csv_field(f, r->sep, false, b);
	csv_unit(f, r, e);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)c->enabled);
	csv_field(f, r->sep, false, b);
	snprintf(b, sizeof(b), "%llu", (unsigned long long)c->running);
	csv_field(f, r->sep, false, b);
	snprintf(b, sizeof(b), "%.2f", pct);
	csv_field(f, r->sep, false, isfinite(pct) ? b : "");
	csv_field(f, r->sep, false, csv_note(kind, c));
	csv_figures(f, r, NULL);
	csv_rusage(f, r, ru);
	csv_bounds(f, r, ru, e);
	csv_scale(f, r, e);
	fputc('\n', f);
}

/*
 * One "stats" row per counted event after the runs' rows (with -r or
 * more than one run): the statistics of its scaled counts over the runs;
 * running_pct is their mean.
 */
static void
csv_stats_row(FILE *f, const struct stat_report *r, int e)
{
	struct event_stats s;
	char b[32];

	event_stats(r, e, &s);
	csv_field(f, r->sep, true, "stats");
	snprintf(b, sizeof(b), "%d", r->nr_runs);
	csv_field(f, r->sep, false, b);
	csv_field(f, r->sep, false, ""); /* time_ns */
	csv_field(f, r->sep, false, ""); /* id */
	csv_field(f, r->sep, false, r->ev[e].name);
	csv_field(f, r->sep, false, ""); /* value */
	csv_field(f, r->sep, false, ""); /* scaled */
	csv_unit(f, r, e);
	csv_field(f, r->sep, false, ""); /* enabled_ns */
	csv_field(f, r->sep, false, ""); /* running_ns */
	csv_number(f, r, "%.2f", s.running.s.n ? s.running.s.mean : NAN);
	csv_field(f, r->sep, false, ""); /* note */
	csv_figures(f, r, &s.count);
	csv_rusage(f, r, NULL);
	csv_bounds(f, r, NULL, e);
	csv_scale(f, r, e);
	fputc('\n', f);
}

static void
print_csv(FILE *f, const struct stat_report *r)
{
	const char *kind = instance_kind(r);
	char t[32], id[32];

	for (int i = 0; i < r->nr_runs; i++) {
		snprintf(t, sizeof(t), "%llu",
			 (unsigned long long)r->runs[i].elapsed_ns);
		for (int e = 0; e < r->nr_events; e++)
			csv_row(f, r, "total", i + 1, t, "", e,
				&r->runs[i].count[e], &r->runs[i]);
	}
	for (int e = 0; (r->repeated || r->nr_runs > 1) && e < r->nr_events;
	     e++)
		if (!r->err[e])
			csv_stats_row(f, r, e);
	for (int i = 0; r->per_thread && i < r->nr_instances; i++) {
		instance_id(r, &r->instances[i], id, sizeof(id));
		for (int e = 0; e < r->nr_events; e++)
			csv_row(f, r, kind, r->nr_runs, "", id, e,
				&r->instances[i].count[e], NULL);
	}
}

/* ---- the stat report: entry points -------------------------------------- */

static void
report_format(FILE *f, const struct stat_report *r)
{
	if (r->format == FMT_JSON)
		print_json(f, r);
	else if (r->format == FMT_CSV)
		print_csv(f, r);
	else if (r->format != FMT_HUMAN)
		perf_report_print(f, r);
	else {
		locale_t old = text_locale();

		print_human(f, r);
		text_locale_end(old);
	}
}

/*
 * -o FILE, opened: whether --append adds to a pctr-csv table; perf
 * stat -x and -j begin the file with "# started on DATE" (ctime's form,
 * which no locale changes) and an empty line: readers of perf's files
 * skip them, and expect them
 */
void
report_start(FILE *f, struct stat_report *r, const char *path)
{
	time_t now = time(NULL);
	char date[32];

	r->continued = r->append && r->format == FMT_CSV &&
		       begins_with_header(r, path);
	if ((r->format == FMT_PERF_CSV || r->format == FMT_PERF_JSON) &&
	    ctime_r(&now, date))
		fprintf(f, "# started on %s\n", date);
}

/* stderr is unbuffered: build the report in memory, write it at once */
void
report_print(FILE *f, const struct stat_report *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m;

	/* -I: the first interval wrote it */
	if (r->format == FMT_CSV && !r->interval)
		csv_header(f, r);
	m = open_memstream(&buf, &len);
	if (!m) {
		report_format(f, r);
	} else {
		report_format(m, r);
		fclose(m);
		fwrite(buf, 1, len, f);
		free(buf);
	}
	fflush(f);
}

static int
keep_interval(struct stat_report *r, const struct stat_slice *s)
{
	if (r->nr_intervals == r->cap_intervals) {
		int cap = r->cap_intervals ? 2 * r->cap_intervals : 64;
		struct stat_slice *n = realloc(r->intervals, cap * sizeof(*n));

		if (!n)
			return -1;
		r->intervals = n;
		r->cap_intervals = cap;
	}
	if (slice_copy(&r->intervals[r->nr_intervals], s, r->nr_events) < 0)
		return -1;
	r->nr_intervals++;
	return 0;
}

/* the human header of -I, and the instance column's label */
static void
interval_header(FILE *f, const struct stat_report *r)
{
	fprintf(f, "#%s%15s", r->repeated ? "  run " : "", "time (s)");
	if (r->per_thread)
		fprintf(f, " %-10s",
			r->target != STAT_CPU	 ? "thread"
			: r->aggr == AGGR_THREAD ? "CPU"
						 : instance_kind(r));
	fprintf(f, " %*s %-4s %s\n", NUMW, "count", "unit", "event");
}

static void
interval_line(FILE *f, const struct stat_report *r, const struct stat_slice *s,
	      const char *id, int e)
{
	const struct pctr_count *c = &s->count[e];
	double pct = running_pct(c);
	char b[64], unit[64];

	/* -r: which run a row belongs to, first */
	if (r->repeated)
		fprintf(f, "%6d", s->run);
	fprintf(f, "%16.6f", (double)s->time_ns / 1e9);
	if (id)
		fprintf(f, " %-10s", id);
	fprintf(f, " %*s %-4s %s", NUMW,
		r->err[e] ? NOT_SUPPORTED
			  : fmt_group(b, sizeof(b), pctr_count_scaled(c), 0),
		unit_label(&r->ev[e], unit, sizeof(unit)), r->ev[e].name);
	if (isfinite(pct) && pct < 100.0)
		fprintf(f, " (%.1f%% running)", pct);
	fputc('\n', f);
}

/* @d, @n: the instances' counts of the interval, with -A, --per-* */
static void
print_interval(FILE *f, struct stat_report *r, const struct stat_slice *s,
	       const struct stat_slice *d, int n)
{
	locale_t old = text_locale();
	bool cpu = r->target == STAT_CPU && r->aggr == AGGR_THREAD;
	char id[32];

	if (r->nr_intervals++ == 0)
		interval_header(f, r);
	for (int e = 0; e < r->nr_events; e++) {
		if (!r->per_thread)
			interval_line(f, r, s, NULL, e);
		for (int i = 0; i < n; i++) {
			struct stat_slice t = d[i];

			t.run = s->run;
			t.time_ns = s->time_ns;
			snprintf(id, sizeof(id), "%s", cpu ? "CPU" : "");
			instance_id(r, &d[i], id + strlen(id),
				    sizeof(id) - strlen(id));
			interval_line(f, r, &t, id, e);
		}
	}
	text_locale_end(old);
	fflush(f);
}

/*
 * -I --json: one object per line as each interval ends, flushed, so that a
 * reader follows the counts live (JSON Lines); the document comes last.
 */
static void
stream_interval(FILE *f, const struct stat_report *r,
		const struct stat_slice *s, const struct stat_slice *d, int n)
{
	struct pctr_json j;

	pctr__json_begin(&j, f, true);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-stat-interval/1");
	pctr__json_int(&j, "run", s->run);
	pctr__json_uint(&j, "time_ns", s->time_ns);
	pctr__json_arr(&j, "names");
	for (int e = 0; e < r->nr_events; e++)
		pctr__json_str(&j, NULL, r->ev[e].name);
	pctr__json_arr_end(&j);
	json_slice_events(&j, r, s);
	if (r->per_thread)
		json_slices(&j, r, "instances", d, n, false);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
	fflush(f);
}

static void
csv_interval(FILE *f, const struct stat_report *r, const struct stat_slice *s,
	     const struct stat_slice *d, int n, bool first)
{
	char t[32], id[32];

	if (first)
		csv_header(f, r);
	snprintf(t, sizeof(t), "%llu", (unsigned long long)s->time_ns);
	for (int e = 0; e < r->nr_events; e++)
		csv_row(f, r, "interval", s->run, t, "", e, &s->count[e],
			NULL);
	for (int i = 0; i < n; i++) {
		instance_id(r, &d[i], id, sizeof(id));
		for (int e = 0; e < r->nr_events; e++)
			csv_row(f, r, instance_kind(r), s->run, t, id, e,
				&d[i].count[e], NULL);
	}
	fflush(f);
}

static const struct stat_slice *
find_slice(const struct stat_slice *s, int n, const struct stat_slice *like)
{
	for (int i = 0; i < n; i++)
		if (s[i].id == like->id && s[i].socket == like->socket)
			return &s[i];
	return NULL;
}

/*
 * -I with instances: each one's counts of this interval, from its counts
 * at the end of it (r->instances, read then) less those at the end of the
 * last interval of the same run (r->last).  NULL and -1 if memory is
 * short.
 */
static struct stat_slice *
interval_instances(struct stat_report *r, const struct stat_slice *s, int *n)
{
	size_t size = (size_t)(r->nr_instances ? r->nr_instances : 1) *
		      sizeof(struct stat_slice);
	struct stat_slice *d = calloc(1, size), *keep = calloc(1, size);
	int i, nr_last, ok = d && keep;

	for (i = 0; ok && i < r->nr_instances; i++)
		ok = slice_copy(&d[i], &r->instances[i], r->nr_events) == 0 &&
		     slice_copy(&keep[i], &r->instances[i], r->nr_events) == 0;
	if (!ok) {
		slices_free(d, i);
		slices_free(keep, i);
		return NULL;
	}
	/* a new run: counting began again */
	nr_last = r->nr_last && r->last[0].run == s->run ? r->nr_last : 0;
	for (i = 0; i < r->nr_instances; i++) {
		const struct stat_slice *p =
			find_slice(r->last, nr_last, &r->instances[i]);

		for (int e = 0; p && e < r->nr_events; e++)
			d[i].count[e] = pctr_count_delta(
				&r->instances[i].count[e], &p->count[e]);
		keep[i].run = s->run;
	}
	slices_free(r->last, r->nr_last);
	r->last = keep;
	r->nr_last = r->nr_instances;
	*n = r->nr_instances;
	return d;
}

int
report_interval(FILE *f, struct stat_report *r, const struct stat_slice *s)
{
	/* the interval's start: the last one's end in the same run */
	uint64_t since = r->last_run == s->run ? r->last_time_ns : 0;
	bool first = r->last_run == 0;
	struct stat_slice *d = NULL;
	int n = 0, err = 0;

	if (r->per_thread && !(d = interval_instances(r, s, &n)))
		return -1;
	r->last_time_ns = s->time_ns;
	r->last_run = s->run;
	if (r->format == FMT_JSON) {
		stream_interval(f, r, s, d, n);
		err = keep_interval(r, s);
	} else if (r->format == FMT_HUMAN) {
		print_interval(f, r, s, d, n);
	} else if (r->format == FMT_CSV) {
		csv_interval(f, r, s, d, n, first);
	} else {
		perf_report_interval(f, r, s, d, n, s->time_ns - since);
		fflush(f);
	}
	slices_free(d, n);
	return err;
}
