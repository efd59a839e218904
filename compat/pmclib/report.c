/* SPDX-License-Identifier: MIT */
/*
 * report.c - pmc_print_results(), laid out as pmc_lib's report:
 *
 *   the banner, the host, the command's arguments and the options;
 *   a table of every event with its total and its rate per second;
 *   then for each pair of events: its --events line, its descriptions,
 *   and (by -Stats level) the interval statistics of the cycles and the
 *   events, the events per cycle and the ratios of the two events.
 *
 * The figures come from the counters' libpctr statistics.
 */
#include <math.h>
#include <string.h>
#include <unistd.h>

#include "pmclib.h"

#define LABEL "%-16s"
#define NUM "%17s"

static void
banner(FILE *f)
{
	fprintf(f, "--------------------------- performance counters "
		   "---------------------------\n");
}

static void
pair_opt(FILE *f, const char *name, const unsigned int v[2], int hex)
{
	fprintf(f, hex ? " --%s %#x,%#x" : " --%s %u,%u", name, v[0], v[1]);
}

static void
options(FILE *f, const pmc_options_t *o)
{
	fprintf(f, "Options:");
	pair_opt(f, "duration", o->duration, 0);
	pair_opt(f, "user", o->user, 0);
	pair_opt(f, "os", o->os, 0);
	fprintf(f, "\nOptions:");
	pair_opt(f, "mesi", o->mesi, 1);
	pair_opt(f, "bus_agent", o->bus_agent, 0);
	pair_opt(f, "compare", o->compare, 0);
	pair_opt(f, "invert", o->invert, 0);
	fprintf(f, "\nOptions:");
	pair_opt(f, "MMX", o->mmx, 1);
	fprintf(f, "\nOptions:");
	pair_opt(f, "Enable", o->enable, 0);
	pair_opt(f, "PC", o->pc, 0);
	pair_opt(f, "APIC", o->apic, 0);
	fputc('\n', f);
}

static int
used(const pmc_selector_t *sel, int i)
{
	return sel->name[i][0] || (sel->fn[i] & 0xff);
}

static void
event_table(FILE *f, const pmc_control_t *ctl)
{
	fprintf(f, "%-40s %16s %16s\n", "Event", "Events", "Events/sec");
	fprintf(f, "%.40s %.16s %.16s\n", "----------------------------------------",
		"----------------", "----------------");
	for (int c = 0; c < ctl->ncounters; c++) {
		const pmc_counter_t *cn = &ctl->counters[c];

		for (int i = 0; i < PMC_NCOUNTERS; i++) {
			struct pctr_summary t = { .size = sizeof(t) };
			struct pctr_summary r = { .size = sizeof(r) };

			if (!used(&cn->selector, i))
				continue;
			pctr_stats_get(cn->stats, i, &t);
			pctr_stats_per_second(cn->stats, i, &r);
			fprintf(f, "%-40s %16.0f %16.2f\n",
				pctr_stats_name(cn->stats, i), t.total,
				r.total);
		}
	}
}

struct find_desc {
	const char *name;
	char desc[160];
};

static int
match_desc(const struct pctr_event_info *info, void *arg)
{
	struct find_desc *d = arg;

	if (strcmp(info->name, d->name))
		return 0;
	snprintf(d->desc, sizeof(d->desc), "%s", info->desc);
	return 1;
}

static void
describe(FILE *f, const pmc_selector_t *sel, int i)
{
	unsigned int code = sel->fn[i] & 0xff;
	const struct pmc_p6_event *e;

	if (sel->name[i][0]) {
		struct find_desc d = { .name = sel->name[i] };
		char base[PMC_NAME_MAX];

		snprintf(base, sizeof(base), "%s", sel->name[i]);
		base[strcspn(base, ":")] = '\0';
		d.name = base;
		pctr_event_list(match_desc, &d);
		fprintf(f, "%d: %s%s%s\n", i, sel->name[i],
			d.desc[0] ? ", " : "", d.desc);
		return;
	}
	e = pmc__p6_event(code);
	if (e)
		fprintf(f, "%d: %s, %s\n", i, e->unit, e->desc);
	else
		fprintf(f, "%d: event 0x%02x, not a Pentium Pro event\n", i,
			code);
}

static void
events_line(FILE *f, const pmc_selector_t *sel)
{
	fprintf(f, "--events ");
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		if (sel->name[i][0])
			fprintf(f, "%s%s", i ? "," : "", sel->name[i]);
		else if (sel->fn[i] & 0xff)
			fprintf(f, "%s%u", i ? "," : "", sel->fn[i] & 0xff);
		else
			fprintf(f, "%s", i ? "," : "");
	}
	fputc('\n', f);
}

static const char *
fmt_u(char *buf, double v)
{
	snprintf(buf, 32, "%.0f", v);
	return buf;
}

static const char *
fmt_r(char *buf, double v)
{
	snprintf(buf, 32, "%.8f", v);
	return buf;
}

/* total, minimum, mean, maximum, std.dev. of the cycles and the events */
static void
counts(FILE *f, const pmc_counter_t *c, int level)
{
	static const char *const row[] = { "total", "minimum", "mean",
					   "maximum", "std.dev." };
	struct pctr_summary s[PMC_NCOUNTERS + 1];
	char label[64] = "Events", b[32], n[32];

	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		size_t len = strlen(label);

		if (c->selector.name[i][0] || !(c->selector.fn[i] & 0xff))
			snprintf(label + len, sizeof(label) - len, " %d", i);
		else
			snprintf(label + len, sizeof(label) - len, " 0x%02x",
				 c->selector.fn[i] & 0xff);
	}
	for (int i = -1; i < PMC_NCOUNTERS; i++) {
		s[i + 1].size = sizeof(s[0]);
		pctr_stats_get(c->stats, i < 0 ? PCTR_STATS_TIME : i,
			       &s[i + 1]);
	}
	fprintf(f, LABEL NUM NUM, label, "intervals", "cycles");
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		snprintf(b, sizeof(b), "event %d", i);
		fprintf(f, NUM, b);
	}
	fprintf(f, "\n");
	for (int r = 0; r < (level >= 1 ? 5 : 1); r++) {
		fprintf(f, LABEL NUM, row[r],
			r == 0 ? fmt_u(n, (double)s[0].n) : "");
		for (int i = 0; i <= PMC_NCOUNTERS; i++) {
			double v = r == 0 ? s[i].total : r == 1 ? s[i].min
					: r == 2 ? s[i].mean : r == 3 ? s[i].max
					: s[i].stddev;

			fprintf(f, NUM, fmt_u(b, v));
		}
		fprintf(f, "\n");
	}
}

/* per-interval series: the four rows under a title row of totals */
static void
series(FILE *f, const char *title, struct pctr_summary s[PMC_NCOUNTERS],
       int counts_in_cycles_column)
{
	static const char *const row[] = { "minimum", "mean", "maximum",
					   "std.dev." };
	char b[32], n0[32], n1[32];

	if (title) {
		fprintf(f, "%-16s" NUM NUM, title, "", "");
		for (int i = 0; i < PMC_NCOUNTERS; i++)
			fprintf(f, NUM, s[i].n ? fmt_r(b, s[i].total) : "-");
		fprintf(f, "\n");
	}
	for (int r = 0; r < 4; r++) {
		fmt_u(n0, (double)s[0].n);
		fmt_u(n1, (double)s[1].n);
		fprintf(f, LABEL NUM NUM, row[r], r ? "" : n0,
			r || !counts_in_cycles_column ? "" : n1);
		for (int i = 0; i < PMC_NCOUNTERS; i++) {
			double v = r == 0 ? s[i].min : r == 1 ? s[i].mean
					: r == 2 ? s[i].max : s[i].stddev;

			fprintf(f, NUM, s[i].n ? fmt_r(b, v) : "-");
		}
		fprintf(f, "\n");
	}
}

static void
rates(FILE *f, const pmc_counter_t *c)
{
	struct pctr_summary s[PMC_NCOUNTERS];

	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		s[i].size = sizeof(s[i]);
		pctr_stats_per_cycle(c->stats, i, &s[i]);
	}
	series(f, "Events per cycle", s, 0);
	s[0].size = s[1].size = sizeof(s[0]);
	pctr_stats_ratio(c->stats, 0, 1, &s[0]);
	pctr_stats_ratio(c->stats, 1, 0, &s[1]);
	fprintf(f, "Ratio, event 0/1, event 1/0\n");
	series(f, NULL, s, 1);
}

static void
overhead(FILE *f, const pmc_counter_t *c)
{
	uint64_t o;

	pctr_stats_overhead(c->stats, PCTR_STATS_TIME, &o);
	fprintf(f, "Overhead (-Clean %d)   cycles %llu", c->clean,
		(unsigned long long)o);
	for (int i = 0; i < PMC_NCOUNTERS; i++) {
		pctr_stats_overhead(c->stats, i, &o);
		fprintf(f, "   event %d %llu", i, (unsigned long long)o);
	}
	fputc('\n', f);
}

PMC_EXPORT void
pmc_print_results(int argc, char *argv[], pmc_control_t *ctl)
{
	FILE *f = stdout;
	char host[256] = "unknown";

	gethostname(host, sizeof(host) - 1);
	banner(f);
	fprintf(f, "Host processor: %s\n", host);
	fprintf(f, "Command executed:");
	for (int i = 0; i < argc; i++)
		fprintf(f, " %s", argv[i]);
	fputc('\n', f);
	options(f, &ctl->options);
	event_table(f, ctl);
	for (int c = 0; c < ctl->ncounters; c++) {
		const pmc_counter_t *cn = &ctl->counters[c];

		events_line(f, &cn->selector);
		for (int i = 0; i < PMC_NCOUNTERS; i++)
			if (used(&cn->selector, i))
				describe(f, &cn->selector, i);
		counts(f, cn, ctl->stats);
		if (cn->calibrated)
			overhead(f, cn);
		if (ctl->stats >= 2)
			rates(f, cn);
	}
	fflush(f);
}
