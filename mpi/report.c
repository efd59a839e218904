/* SPDX-License-Identifier: MIT */
/*
 * report.c - the job's report, on rank 0: per region and event the total
 * over the ranks that measured it, the per-rank minimum, mean and maximum,
 * the rank with the maximum and the imbalance (maximum over mean); the
 * region's time the same way; then each rank's time inside blocking MPI
 * calls against the time outside them.  Text, or JSON ("pctr-mpi-regions/1",
 * doc/json-schema.md), to a destination written as $PCTR_REPORT.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pctr_mpi.h"
#include "text.h"

/* one figure over the ranks */
struct spread {
	int n; /* ranks with a value */
	double total, min, max;
	int max_rank;
};

static void
spread_add(struct spread *s, double v, int rank)
{
	if (s->n == 0 || v < s->min)
		s->min = v;
	if (s->n == 0 || v > s->max) {
		s->max = v;
		s->max_rank = rank;
	}
	s->total += v;
	s->n++;
}

static double
mean_of(const struct spread *s)
{
	return s->n ? s->total / s->n : NAN;
}

/* maximum over mean: 1 when balanced; NaN when the mean is 0 */
static double
imbalance_of(const struct spread *s)
{
	double m = mean_of(s);

	return m > 0 ? s->max / m : NAN;
}

static const struct mpi_region *
find_region(const struct mpi_rank *r, const char *name)
{
	for (int i = 0; r->nr > 0 && i < r->nr; i++)
		if (!strcmp(r->reg[i].name, name))
			return &r->reg[i];
	return NULL;
}

static int
event_index(const struct pctr_stats *st, const char *event)
{
	for (int i = 0; i < pctr_stats_nr(st); i++)
		if (!strcmp(pctr_stats_name(st, i), event))
			return i;
	return -1;
}

/* @event of region @name over the ranks (NULL event: the region's time) */
static struct spread
over_ranks(const struct mpi_rank *ranks, int size, const char *name,
	   const char *event)
{
	struct spread s = { 0 };

	for (int k = 0; k < size; k++) {
		const struct mpi_region *g = find_region(&ranks[k], name);
		struct pctr_summary sum = { .size = sizeof(sum) };
		int i;

		if (!g)
			continue;
		if (!event) {
			spread_add(&s, g->seconds, k);
			continue;
		}
		i = event_index(g->st, event);
		if (i >= 0 && pctr_stats_get(g->st, i, &sum) == 0)
			spread_add(&s, sum.total, k);
	}
	return s;
}

/* the first rank that measured region @name: its event names are used */
static const struct mpi_region *
model(const struct mpi_rank *ranks, int size, const char *name)
{
	for (int k = 0; k < size; k++) {
		const struct mpi_region *g = find_region(&ranks[k], name);

		if (g)
			return g;
	}
	return NULL;
}

/* is region @i of rank @k the first of its name over ranks 0..k? */
static bool
first_seen(const struct mpi_rank *ranks, int k, int i)
{
	for (int j = 0; j < k; j++)
		if (find_region(&ranks[j], ranks[k].reg[i].name))
			return false;
	return true;
}

/* ---- JSON (the writer of src/text) --------------------------------------- */

static void
json_spread(struct pctr_json *j, const char *key, const struct spread *s)
{
	pctr__json_obj(j, key);
	pctr__json_int(j, "ranks", s->n);
	pctr__json_num(j, "total", s->total);
	pctr__json_num(j, "min", s->n ? s->min : NAN);
	pctr__json_num(j, "mean", mean_of(s));
	pctr__json_num(j, "max", s->n ? s->max : NAN);
	pctr__json_int(j, "max_rank", s->n ? s->max_rank : -1);
	pctr__json_num(j, "imbalance", imbalance_of(s));
	pctr__json_obj_end(j);
}

static void
json_region(struct pctr_json *j, const struct mpi_rank *ranks, int size,
	    const char *name)
{
	const struct mpi_region *m = model(ranks, size, name);
	struct spread t = over_ranks(ranks, size, name, NULL);

	pctr__json_obj(j, NULL);
	pctr__json_str(j, "name", name);
	json_spread(j, "seconds", &t);
	pctr__json_obj(j, "events");
	for (int i = 0; i < pctr_stats_nr(m->st); i++) {
		const char *ev = pctr_stats_name(m->st, i);
		struct spread s = over_ranks(ranks, size, name, ev);

		json_spread(j, ev, &s);
	}
	pctr__json_obj_end(j);
	pctr__json_obj_end(j);
}

static void
json_rank(struct pctr_json *j, const struct mpi_rank *r, int k)
{
	pctr__json_obj(j, NULL);
	pctr__json_int(j, "rank", k);
	pctr__json_str(j, "host", r->nr < 0 ? "" : r->host);
	if (r->nr < 0) {
		pctr__json_str(j, "missing", r->why);
	} else {
		pctr__json_num(j, "run_s", r->run_s);
		pctr__json_num(j, "mpi_s", r->mpi_s);
		pctr__json_num(j, "outside_mpi_s", r->run_s - r->mpi_s);
	}
	pctr__json_obj_end(j);
}

static void
json_report(FILE *f, const struct mpi_rank *ranks, int size, double gather_s)
{
	struct pctr_json j;

	pctr__json_begin(&j, f, true);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-mpi-regions/1");
	pctr__json_int(&j, "size", size);
	pctr__json_num(&j, "gather_s", gather_s);
	pctr__json_arr(&j, "regions");
	for (int k = 0; k < size; k++)
		for (int i = 0; i < ranks[k].nr; i++)
			if (first_seen(ranks, k, i))
				json_region(&j, ranks, size,
					    ranks[k].reg[i].name);
	pctr__json_arr_end(&j);
	pctr__json_arr(&j, "ranks");
	for (int k = 0; k < size; k++)
		json_rank(&j, &ranks[k], k);
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

/* ---- text --------------------------------------------------------------- */

/* a count as the integer it is; a time or a mean to 6 digits */
static void
text_figure(FILE *f, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, " %14.0f", v);
	else
		fprintf(f, " %14.6g", v);
}

static void
text_row(FILE *f, const char *what, const struct spread *s)
{
	fprintf(f, "  %-28s", what);
	text_figure(f, s->total);
	text_figure(f, s->min);
	text_figure(f, mean_of(s));
	text_figure(f, s->max);
	fprintf(f, " %8d %9.3f\n", s->max_rank, imbalance_of(s));
}

static void
text_region(FILE *f, const struct mpi_rank *ranks, int size, const char *name)
{
	const struct mpi_region *m = model(ranks, size, name);
	struct spread t = over_ranks(ranks, size, name, NULL);

	fprintf(f, "\nregion \"%s\", measured by %d of %d ranks\n", name, t.n,
		size);
	fprintf(f, "  %-28s %14s %14s %14s %14s %8s %9s\n", "", "total",
		"min", "mean", "max", "max rank", "imbalance");
	text_row(f, "seconds", &t);
	for (int i = 0; i < pctr_stats_nr(m->st); i++) {
		const char *ev = pctr_stats_name(m->st, i);
		struct spread s = over_ranks(ranks, size, name, ev);

		text_row(f, ev, &s);
	}
}

static void
text_report(FILE *f, const struct mpi_rank *ranks, int size, double gather_s)
{
	fprintf(f, "pctr-mpi: %d ranks, gathered and read back in %.6f s\n",
		size, gather_s);
	for (int k = 0; k < size; k++)
		for (int i = 0; i < ranks[k].nr; i++)
			if (first_seen(ranks, k, i))
				text_region(f, ranks, size,
					    ranks[k].reg[i].name);
	fprintf(f, "\ntime inside blocking MPI calls\n  %6s %-20s %12s "
		   "%12s %12s\n", "rank", "host", "run s", "in MPI s",
		"outside s");
	for (int k = 0; k < size; k++) {
		const struct mpi_rank *r = &ranks[k];

		if (r->nr < 0)
			fprintf(f, "  %6d missing: %s\n", k, r->why);
		else
			fprintf(f, "  %6d %-20s %12.6f %12.6f %12.6f\n", k,
				r->host, r->run_s, r->mpi_s,
				r->run_s - r->mpi_s);
	}
}

/* is @dest a destination the job's report can take? */
bool
pctr_mpi__report_dest_ok(const char *dest)
{
	return !strcmp(dest, "-") || !strcmp(dest, "stderr") ||
	       (!strncmp(dest, "text:", 5) && dest[5]) ||
	       (!strncmp(dest, "json:", 5) && dest[5]);
}

/* why the report is not written to its file, and where it goes instead */
static void
refused(const char *why)
{
	fprintf(stderr, "libpctr-mpi: %s: writing it to standard error\n",
		why);
}

/* the file of @dest, or NULL for standard error */
static const char *
file_of(const char *dest)
{
	const char *c = strchr(dest, ':');

	return c && strcmp(c + 1, "-") ? c + 1 : NULL;
}

/*
 * Can @dest's file take the report, as far as can be known before it is
 * written?  A FIFO, a device or a link there is refused now, said once,
 * and the report goes to standard error instead.
 */
bool
pctr_mpi__report_file_ok(const char *dest)
{
	const char *path = file_of(dest);
	char why[PCTR__REPORT_WHY_MAX];

	if (!path || pctr__report_file_check(path, why, sizeof(why)) == 0)
		return true;
	refused(why);
	return false;
}

/*
 * The report's file, by the one rule of report files (text.h): a FIFO
 * with no reader would hold MPI_Finalize for ever.  NULL when refused,
 * with the reason said.
 */
static FILE *
open_report(const char *path)
{
	char why[PCTR__REPORT_WHY_MAX];
	FILE *f;

	if (pctr__report_file_open(path, &f, why, sizeof(why)) == 0)
		return f;
	refused(why);
	return NULL;
}

/*
 * @dest as $PCTR_REPORT: "text:FILE", "json:FILE", "-" or "stderr" (text
 * to standard error); a FILE of "-" is standard error.  CSV has no form
 * for a report across ranks and is refused (pctr_mpi__report_dest_ok()).
 */
int
pctr_mpi__report(const char *dest, const struct mpi_rank *ranks, int size,
		 double gather_s)
{
	bool json = !strncmp(dest, "json:", 5);
	const char *file = file_of(dest);
	FILE *f = NULL;
	int err = 0;

	if (!pctr_mpi__report_dest_ok(dest))
		return -EINVAL;
	if (file)
		f = open_report(file); /* NULL: refused, and said why */
	if (!f)
		f = stderr;
	if (json) {
		locale_t old = pctr__locale_c(); /* numbers in C (text.h) */

		json_report(f, ranks, size, gather_s);
		pctr__locale_restore(old);
	} else {
		text_report(f, ranks, size, gather_s);
	}
	if (ferror(f))
		err = -EIO;
	if (f != stderr && fclose(f) != 0 && !err)
		err = -EIO;
	else if (f == stderr)
		fflush(f);
	return err;
}
