/* SPDX-License-Identifier: MIT */
/*
 * pctr merge FILE... - reports of separate runs, hosts or ranks reduced to
 * one: per event the total over ranks, the per-rank minimum, mean and
 * maximum, the rank with the maximum and the imbalance (max / mean).
 *
 * A rank is one pctr-stat/1 report (its counts: each event's scaled count,
 * summed over the report's runs), or one entry of a pctr-mpi/1 report.
 * The reports are read by mpi_read.c (json-c); the output is written
 * with the command's own JSON writer (util.h), only once every report has
 * been read, so a bad report leaves nothing half-written.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"
#include "tool.h"
#include "util.h"

void
mpi_report_free(struct mpi_report *r)
{
	mpi_report_drop(r, 0);
	free(r->ranks);
	for (int i = 0; i < r->nr_events; i++)
		free(r->event[i]);
	free(r->event);
	free(r->total);
}

/* ---- reducing ----------------------------------------------------------- */

struct reduced {
	long n; /* ranks with a count */
	uint64_t total, min, max;
	long max_rank;
	double mean;
};

static int
by_rank(const void *a, const void *b)
{
	const struct mpi_rank *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static bool
rank_count(const struct mpi_rank *k, int e, uint64_t *v)
{
	for (int i = 0; i < k->nr; i++) {
		if (k->event[i] == e) {
			*v = k->value[i];
			return true;
		}
	}
	return false;
}

/* event @e over the ranks, in rank order: the first maximum wins */
static struct reduced
reduce(const struct mpi_report *r, int e)
{
	struct reduced d = { .max_rank = -1 };
	uint64_t v;

	for (int i = 0; i < r->nr_ranks; i++) {
		if (!rank_count(&r->ranks[i], e, &v))
			continue;
		if (d.n == 0 || v < d.min)
			d.min = v;
		if (d.n == 0 || v > d.max) {
			d.max = v;
			d.max_rank = r->ranks[i].rank;
		}
		d.total += v;
		d.n++;
	}
	d.mean = d.n ? (double)d.total / (double)d.n : 0.0;
	return d;
}

long
mpi_report_missing(struct mpi_report *r, long *out, long max)
{
	long n = 0;
	int i = 0;

	if (r->nr_ranks > 1) /* none: r->ranks is NULL, which qsort() forbids */
		qsort(r->ranks, r->nr_ranks, sizeof(*r->ranks), by_rank);
	for (long k = 0; k < r->size; k++) {
		while (i < r->nr_ranks && r->ranks[i].rank < k)
			i++;
		if (i < r->nr_ranks && r->ranks[i].rank == k)
			continue;
		if (n < max)
			out[n] = k;
		n++;
	}
	return n;
}

/* ---- writing ------------------------------------------------------------- */

static double
imbalance(const struct reduced *d)
{
	return d->mean > 0.0 ? (double)d->max / d->mean : NAN;
}

static void
print_missing(FILE *f, struct mpi_report *r)
{
	long n = mpi_report_missing(r, NULL, 0), *m;

	if (n == 0 || !(m = calloc(n, sizeof(*m))))
		return;
	mpi_report_missing(r, m, n);
	fprintf(f, "missing ranks (no counts came back):");
	for (long i = 0; i < n; i++)
		fprintf(f, "%s%ld", i ? ", " : " ", m[i]);
	fputc('\n', f);
	free(m);
}

static const char *
origin(const struct mpi_rank *k)
{
	return k->file ? k->file : k->host;
}

/* one line per event; then, per event, where its maximum was */
static void
text_events(FILE *f, const struct mpi_report *r)
{
	fprintf(f, "%-32s %20s %20s %22s %20s %8s %10s\n", "event", "total",
		"min", "mean", "max", "max_rank", "imbalance");
	for (int e = 0; e < r->nr_events; e++) {
		struct reduced d = reduce(r, e);

		fprintf(f, "%-32s %20llu %20llu %22.2f %20llu %8ld %10.4f\n",
			r->event[e], (unsigned long long)d.total,
			(unsigned long long)d.min, d.mean,
			(unsigned long long)d.max, d.max_rank, imbalance(&d));
	}
	for (int e = 0; e < r->nr_events; e++) {
		struct reduced d = reduce(r, e);

		for (int i = 0; i < r->nr_ranks && d.n; i++)
			if (r->ranks[i].rank == d.max_rank)
				fprintf(f, "max of %s: rank %ld (%s)\n",
					r->event[e], d.max_rank,
					origin(&r->ranks[i]));
	}
}

static void
text_rank(FILE *f, const struct mpi_report *r, const struct mpi_rank *k)
{
	char st[16] = "?";
	uint64_t v;

	if (k->exit_status >= 0)
		snprintf(st, sizeof(st), "%d", k->exit_status);
	fprintf(f, "%-6ld %-24s %6s", k->rank, k->host, st);
	for (int e = 0; e < r->nr_events; e++) {
		if (rank_count(k, e, &v))
			fprintf(f, " %20llu", (unsigned long long)v);
		else
			fprintf(f, " %20s", "-");
	}
	fputc('\n', f);
}

static void
print_text(FILE *f, struct mpi_report *r, bool per_rank)
{
	fprintf(f, "%ld ranks, %d reported\n", r->size, r->nr_ranks);
	print_missing(f, r);
	text_events(f, r);
	if (!per_rank)
		return;
	fprintf(f, "%-6s %-24s %6s", "rank", "host", "exit");
	for (int e = 0; e < r->nr_events; e++)
		fprintf(f, " %20s", r->event[e]);
	fputc('\n', f);
	for (int i = 0; i < r->nr_ranks; i++)
		text_rank(f, r, &r->ranks[i]);
}

static void
json_rank(struct pctr_json *j, const struct mpi_report *r,
	  const struct mpi_rank *k)
{
	pctr__json_obj(j, NULL);
	pctr__json_int(j, "rank", k->rank);
	pctr__json_str(j, "host", k->host);
	if (k->file)
		pctr__json_str(j, "file", k->file);
	if (k->exit_status >= 0)
		pctr__json_int(j, "exit_status", k->exit_status);
	else
		pctr__json_null(j, "exit_status");
	if (k->signal > 0)
		pctr__json_int(j, "signal", k->signal);
	else
		pctr__json_null(j, "signal");
	pctr__json_obj(j, "counts");
	for (int i = 0; i < k->nr; i++)
		pctr__json_uint(j, r->event[k->event[i]], k->value[i]);
	pctr__json_obj_end(j);
	pctr__json_obj_end(j);
}

static void
json_events(struct pctr_json *j, const struct mpi_report *r)
{
	pctr__json_obj(j, "events");
	for (int e = 0; e < r->nr_events; e++) {
		struct reduced d = reduce(r, e);

		pctr__json_obj(j, r->event[e]);
		pctr__json_int(j, "ranks", d.n);
		pctr__json_uint(j, "total", d.total);
		pctr__json_uint(j, "min", d.min);
		pctr__json_num(j, "mean", d.mean);
		pctr__json_uint(j, "max", d.max);
		pctr__json_int(j, "max_rank", d.max_rank);
		pctr__json_num(j, "imbalance", imbalance(&d));
		pctr__json_obj_end(j);
	}
	pctr__json_obj_end(j);
}

static void
print_json(FILE *f, struct mpi_report *r)
{
	long n = mpi_report_missing(r, NULL, 0), *m = calloc(n + 1, sizeof(*m));
	struct pctr_json j;

	pctr__json_begin(&j, f, false);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-mpi/1");
	pctr__json_str(&j, "pctr_version", pctr_version());
	pctr__json_int(&j, "size", r->size);
	pctr__json_arr(&j, "missing");
	if (m)
		mpi_report_missing(r, m, n);
	for (long i = 0; m && i < n; i++)
		pctr__json_int(&j, NULL, m[i]);
	pctr__json_arr_end(&j);
	if (r->has_exit) {
		pctr__json_obj(&j, "exit");
		pctr__json_int(&j, "status", r->exit_status);
		pctr__json_obj_end(&j);
	}
	pctr__json_arr(&j, "ranks");
	for (int i = 0; i < r->nr_ranks; i++)
		json_rank(&j, r, &r->ranks[i]);
	pctr__json_arr_end(&j);
	json_events(&j, r);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
	free(m);
}

void
mpi_report_print(FILE *f, struct mpi_report *r, bool json, bool per_rank)
{
	locale_t old;

	if (json) {
		print_json(f, r);
		return;
	}
	old = text_locale();
	print_text(f, r, per_rank);
	text_locale_end(old);
}

char *
mpi_rank_line(const struct mpi_report *r, int i)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	struct pctr_json j;

	if (!f)
		return NULL;
	pctr__json_begin(&j, f, true);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-mpi/1");
	pctr__json_int(&j, "size", r->size);
	pctr__json_arr(&j, "ranks");
	json_rank(&j, r, &r->ranks[i]);
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	if (fclose(f) != 0) {
		free(text);
		return NULL;
	}
	text[strcspn(text, "\n")] = '\0';
	return text;
}

/* ---- pctr merge ----------------------------------------------------------- */

static void
usage(FILE *f)
{
	fprintf(f, "usage: pctr merge [--json] [--per-rank] [-o FILE] "
		   "FILE...\n"
		   "  reduce pctr-stat/1 (pctr stat --json) and pctr-mpi/1 "
		   "reports into one\n"
		   "  --json      write pctr-mpi/1\n"
		   "  --per-rank  list every rank's counts too\n"
		   "  -o FILE     write the report to FILE (default: "
		   "stdout)\n");
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "re") : stdin;
	char *buf = NULL;
	size_t cap = 0;

	*len = 0;
	if (!f)
		return NULL;
	for (;;) {
		char *b = cap - *len < 4096 ? realloc(buf, cap = 2 * cap + 4096)
					    : buf;
		size_t n;

		if (!b)
			break;
		buf = b;
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
		if (n == 0) {
			if (ferror(f) || !feof(f))
				break;
			if (f != stdin)
				fclose(f);
			return buf;
		}
	}
	if (f != stdin)
		fclose(f);
	free(buf);
	return NULL;
}

static int
read_files(struct mpi_report *r, char **files, int n)
{
	char err[512];

	for (int i = 0; i < n; i++) {
		size_t len;
		char *text = slurp(files[i], &len);
		long span;

		if (!text) {
			tool_err("cannot read '%s': %s", files[i],
				 strerror(errno ? errno : EIO));
			return 1;
		}
		span = mpi_report_read(r, text, len, files[i], r->size, err,
				       sizeof(err));
		free(text);
		if (span < 0) {
			tool_err("%s: %s", files[i], err);
			return 1;
		}
		r->size += span;
	}
	return 0;
}

/* the report, whole, then to its file: nothing half-written on error */
int
mpi_report_write(struct mpi_report *r, FILE *f, bool json, bool per_rank)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (!m || (mpi_report_print(m, r, json, per_rank), fclose(m) != 0)) {
		tool_err("out of memory");
		out_close(f);
		return 1;
	}
	fwrite(text, 1, len, f); /* its error: out_close()'s */
	free(text);
	return out_close(f) < 0;
}

int
cmd_merge(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "per-rank", no_argument, NULL, 'R' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct mpi_report r = { 0 };
	bool json = false, per_rank = false;
	const char *out = NULL;
	int c, st;
	FILE *f;

	tool_set_name("pctr merge");
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'R':
			per_rank = true;
			break;
		case 'o':
			out = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind == argc) {
		tool_err("no report to merge");
		usage(stderr);
		return EXIT_USAGE;
	}
	/* no workload to wait for: a bad input leaves the destination as is */
	st = read_files(&r, argv + optind, argc - optind);
	if (st == 0)
		st = (f = out_open("-o", out ? out : "-", false)) == NULL ||
		     mpi_report_write(&r, f, json, per_rank);
	mpi_report_free(&r);
	return st;
}
