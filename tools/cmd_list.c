/* SPDX-License-Identifier: MIT */
/*
 * cmd_list.c - pctr list [PATTERN] [--json]: the events this machine
 * offers, grouped by where they come from, with how to ask for them.
 *
 * PATTERN is a case-insensitive substring of the name, description or
 * source; with a wildcard (* ? [) it is a shell pattern on the name.
 * "pctr list tracepoint [PATTERN]" keeps the kernel's tracepoints only, as
 * perf list does; "pctr list metrics [PATTERN]" lists pctr stat's derived
 * metrics instead (metrics.c), each said countable here or not.
 */
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "metrics.h"
#include "tool.h"
#include "util.h"

struct entry {
	char *source, *name, *desc;
};

struct listing {
	const char *pattern;
	const char *source; /* only this source ("tracepoint"), or NULL */
	int nr, cap;
	struct entry *e;
	bool oom;
	bool has_pmu;
};

static bool
matches(const char *pattern, const struct pctr_event_info *info)
{
	if (!pattern)
		return true;
	if (strpbrk(pattern, "*?["))
		return fnmatch(pattern, info->name, FNM_CASEFOLD) == 0;
	return strcasestr(info->name, pattern) ||
	       strcasestr(info->desc, pattern) ||
	       strcasestr(info->source, pattern);
}

static int
collect(const struct pctr_event_info *info, void *arg)
{
	struct listing *l = arg;
	struct entry *e;

	if (!matches(l->pattern, info) ||
	    (l->source && strcmp(l->source, info->source)))
		return 0;
	if (l->nr == l->cap) {
		int cap = l->cap ? 2 * l->cap : 256;
		struct entry *n = realloc(l->e, cap * sizeof(*n));

		if (!n) {
			l->oom = true;
			return 1;
		}
		l->e = n;
		l->cap = cap;
	}
	e = &l->e[l->nr++];
	e->source = strdup(info->source);
	e->name = strdup(info->name);
	e->desc = strdup(info->desc ? info->desc : "");
	l->oom |= !e->source || !e->name || !e->desc;
	return 0;
}

/* perf stat's tool events, which pctr stat gives (util.h) */
static int
collect_tool_events(struct listing *l)
{
	static const char *const desc[NR_TOOL_EVENTS] = {
		[TOOL_DURATION] = "wall-clock time of the run",
		[TOOL_USER] = "the command's user-mode CPU time",
		[TOOL_SYSTEM] = "the command's kernel-mode CPU time",
	};

	for (int t = 0; t < NR_TOOL_EVENTS; t++) {
		struct pctr_event_info info = { "tool", tool_events[t].name,
						desc[t] };

		if (collect(&info, l))
			return 1;
	}
	return 0;
}

static void
listing_free(struct listing *l)
{
	for (int i = 0; i < l->nr; i++) {
		free(l->e[i].source);
		free(l->e[i].name);
		free(l->e[i].desc);
	}
	free(l->e);
}

/* hardware tables of a CPU whose PMU this machine does not expose */
static bool
not_countable(const char *source, bool has_pmu)
{
	return !has_pmu && (!strcmp(source, "generic") ||
			    !strcmp(source, "cache") ||
			    !strncmp(source, "pfm:", 4));
}

/* a heading that says what the source is and the syntax to use */
static void
print_heading(FILE *f, const char *source, bool has_pmu)
{
	const char *pmu = strchr(source, ':');

	if (not_countable(source, has_pmu))
		fprintf(f, "[not countable here: this machine has no hardware "
			   "PMU]\n");

	if (!strcmp(source, "software"))
		fprintf(f, "Software events, counted by the kernel "
			   "(pctr stat -e NAME):\n");
	else if (!strcmp(source, "generic"))
		fprintf(f, "Generic hardware events "
			   "(pctr stat -e NAME[:u|:k]):\n");
	else if (!strcmp(source, "cache"))
		fprintf(f, "Generic cache events "
			   "(pctr stat -e NAME[:u|:k]):\n");
	else if (!strncmp(source, "sysfs:", 6))
		fprintf(f, "PMU %s, events the kernel describes "
			   "(pctr stat -e NAME, or -e '%s/event=0xNN/'):\n",
			pmu + 1, pmu + 1);
	else if (!strcmp(source, "tracepoint"))
		fprintf(f, "Tracepoints of the kernel, from tracefs "
			   "(pctr stat -e SUBSYSTEM:NAME):\n");
	else if (!strcmp(source, "tool"))
		fprintf(f, "Tool events, as perf's: pctr stat's own, in ns "
			   "(pctr stat -e NAME):\n");
	else if (!strncmp(source, "pfm:", 4))
		fprintf(f, "PMU %s, libpfm4 tables "
			   "(pctr stat -e NAME[:UMASK][:u]):\n",
			pmu + 1);
	else
		fprintf(f, "%s (pctr stat -e NAME):\n", source);
}

static int
name_width(const struct listing *l)
{
	int w = 24;

	for (int i = 0; i < l->nr; i++) {
		int n = (int)strlen(l->e[i].name);

		if (n > w && n <= 48)
			w = n;
	}
	return w;
}

static void
print_human(FILE *f, const struct listing *l)
{
	int w = name_width(l);

	for (int i = 0; i < l->nr; i++) {
		const struct entry *e = &l->e[i];

		if (i == 0 || strcmp(e->source, l->e[i - 1].source)) {
			if (i)
				fputc('\n', f);
			print_heading(f, e->source, l->has_pmu);
		}
		if (*e->desc)
			fprintf(f, "  %-*s  %s\n", w, e->name, e->desc);
		else
			fprintf(f, "  %s\n", e->name);
	}
}

static void
print_json(FILE *f, const struct listing *l)
{
	struct pctr_json j;
	char usage[PCTR_NAME_MAX + 32];

	pctr__json_begin(&j, f, false);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-list/1");
	pctr__json_str(&j, "pattern", l->pattern);
	pctr__json_arr(&j, "events");
	for (int i = 0; i < l->nr; i++) {
		pctr__json_obj(&j, NULL);
		pctr__json_str(&j, "source", l->e[i].source);
		pctr__json_str(&j, "name", l->e[i].name);
		pctr__json_str(&j, "desc", l->e[i].desc);
		snprintf(usage, sizeof(usage), "pctr stat -e %s", l->e[i].name);
		pctr__json_str(&j, "usage", usage);
		pctr__json_bool(&j, "countable",
			  !not_countable(l->e[i].source, l->has_pmu));
		pctr__json_obj_end(&j);
	}
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: pctr list [tracepoint|metrics] [PATTERN] "
		   "[--json]\n"
		   "  tracepoint the kernel's tracepoints only "
		   "(SUBSYSTEM:NAME)\n"
		   "  metrics    pctr stat's derived metrics (-M NAME)\n"
		   "  PATTERN    a substring of the name, description or source "
		   "(any case),\n"
		   "             or a shell pattern on the name ('*miss*')\n"
		   "  -j, --json one JSON document (schema pctr-list/1)\n");
}

static int
parse_options(int argc, char **argv, bool *json, struct listing *l)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (opt == 'j') {
			*json = true;
		} else if (opt == 'h') {
			usage(stdout);
			exit(0);
		} else {
			tool_err("unknown option '%s'", argv[optind - 1]);
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind < argc && (!strcmp(argv[optind], "tracepoint") ||
			      !strcmp(argv[optind], "metrics")))
		l->source = argv[optind++];
	if (argc - optind > 1) {
		tool_err("give at most one PATTERN ('%s' is one too many)",
			 argv[optind + 1]);
		return EXIT_USAGE;
	}
	l->pattern = optind < argc ? argv[optind] : NULL;
	return 0;
}

static void
no_match(const struct listing *l)
{
	int r = l->source ? pctr_tracefs_check() : 0;

	if (r < 0)
		tool_err("no tracepoints: %s", pctr_strerror(r));
	else if (l->pattern)
		tool_err("no %s matches '%s'", l->source ? "tracepoint"
							 : "event",
			 l->pattern);
	else
		tool_err("no tracepoints");
}

/* ---- pctr list metrics ------------------------------------------------- */

/* can @spec be counted on the calling thread?  Opened, then closed. */
static bool
countable(const char *spec)
{
	struct pctr_event ev;
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *set;
	int r;

	if (!metric_event(spec, &ev))
		return false;
	r = pctr_set_new(&set, PCTR_SET_NO_USER_READ);
	if (r == 0)
		r = pctr_set_add_event(set, &ev);
	if (r >= 0)
		r = pctr_set_open(set, &self);
	pctr_set_free(set);
	return r >= 0;
}

static bool
metric_here(const struct metric *m)
{
	return countable(m->num) && (!m->den || countable(m->den));
}

static bool
metric_matches(const struct metric *m, const char *pattern)
{
	return !pattern || strcasestr(m->name, pattern) ||
	       strcasestr(m->desc, pattern);
}

static void
print_metrics_human(FILE *f, const char *pattern)
{
	char formula[128];

	fprintf(f, "Derived metrics (pctr stat -M NAME[,NAME]):\n");
	for (int i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];

		if (!metric_matches(m, pattern))
			continue;
		snprintf(formula, sizeof(formula), "%s / %s", m->num,
			 m->den ? m->den : "elapsed time");
		fprintf(f, "  %-18s %-36s %s%s\n", m->name, m->desc, formula,
			metric_here(m) ? "" : "  [not here]");
	}
	fprintf(f, "\n[not here]: this machine cannot count its events; "
		   "each needs:\n");
	for (int i = 0; i < metric_count; i++)
		if (metric_matches(&metric_table[i], pattern) &&
		    !metric_here(&metric_table[i]))
			fprintf(f, "  %-18s %s\n", metric_table[i].name,
				metric_table[i].where);
}

static void
print_metrics_json(FILE *f, const char *pattern)
{
	struct pctr_json j;

	pctr__json_begin(&j, f, false);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-list-metrics/1");
	pctr__json_str(&j, "pattern", pattern);
	pctr__json_arr(&j, "metrics");
	for (int i = 0; i < metric_count; i++) {
		const struct metric *m = &metric_table[i];

		if (!metric_matches(m, pattern))
			continue;
		pctr__json_obj(&j, NULL);
		pctr__json_str(&j, "name", m->name);
		pctr__json_str(&j, "desc", m->desc);
		pctr__json_str(&j, "numerator", m->num);
		if (m->den)
			pctr__json_str(&j, "denominator", m->den);
		else
			pctr__json_null(&j, "denominator");
		pctr__json_str(&j, "events", m->inputs);
		pctr__json_str(&j, "needs", m->where);
		pctr__json_bool(&j, "countable", metric_here(m));
		pctr__json_obj_end(&j);
	}
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

static int
list_metrics(const char *pattern, bool json)
{
	int n = 0;

	for (int i = 0; i < metric_count; i++)
		n += metric_matches(&metric_table[i], pattern);
	if (json)
		print_metrics_json(stdout, pattern);
	else if (n)
		print_metrics_human(stdout, pattern);
	if (n == 0)
		tool_err("no metric matches '%s'", pattern);
	return fflush(stdout) == 0 && n ? 0 : 1;
}

int
cmd_list(int argc, char **argv)
{
	struct pctr_machine m = { .size = sizeof(m) };
	struct listing l = { 0 };
	bool json = false;
	int r;

	tool_set_name("pctr list");
	r = parse_options(argc, argv, &json, &l);
	if (r)
		return r;
	if (l.source && !strcmp(l.source, "metrics"))
		return list_metrics(l.pattern, json);
	pctr_machine_get(&m);
	l.has_pmu = m.has_pmu;
	r = pctr_event_list(collect, &l);
	if (r >= 0)
		collect_tool_events(&l);
	if (r < 0 || l.oom) {
		tool_err("%s", l.oom ? "out of memory" : pctr_strerror(r));
		listing_free(&l);
		return 1;
	}
	if (l.nr == 0 && (l.pattern || l.source)) {
		/* a program reading --json still gets a document to parse */
		if (json)
			print_json(stdout, &l);
		no_match(&l);
		listing_free(&l);
		fflush(stdout);
		return 1;
	}
	if (json)
		print_json(stdout, &l);
	else
		print_human(stdout, &l);
	listing_free(&l);
	return fflush(stdout) == 0 ? 0 : 1;
}
