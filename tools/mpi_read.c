/* SPDX-License-Identifier: MIT */
/*
 * mpi_read.c - the ranks of pctr-stat/1 and pctr-mpi/1 reports, read with
 * json-c (strict: a report cut short, or followed by anything, is refused
 * with the byte where it went wrong).  Apart from the writers of util.h,
 * whose json_bool() json-c's headers name a type.
 */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "mpi.h"

/* ---- reading ------------------------------------------------------------ */

struct reader {
	struct mpi_report *r;
	const char *file;
	char *err;
	size_t errlen;
};

static int
fail(struct reader *rd, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int
fail(struct reader *rd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static json_object *
member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) ||
	    !json_object_is_type(v, type))
		return NULL;
	return v;
}

static int
event_index(struct mpi_report *r, const char *name)
{
	uint64_t *t;
	char **ev;

	for (int i = 0; i < r->nr_events; i++)
		if (!strcmp(r->event[i], name))
			return i;
	ev = realloc(r->event, (r->nr_events + 1) * sizeof(*ev));
	if (ev)
		r->event = ev;
	t = ev ? realloc(r->total, (r->nr_events + 1) * sizeof(*t)) : NULL;
	if (!t)
		return -1;
	r->total = t;
	t[r->nr_events] = 0;
	ev[r->nr_events] = strdup(name);
	return ev[r->nr_events] ? r->nr_events++ : -1;
}

static struct mpi_rank *
new_rank(struct reader *rd, long rank, const char *host)
{
	struct mpi_report *r = rd->r;
	struct mpi_rank *k = realloc(r->ranks,
				     (r->nr_ranks + 1) * sizeof(*k));

	if (!k)
		return NULL;
	r->ranks = k;
	k = &k[r->nr_ranks++];
	*k = (struct mpi_rank){ .rank = rank, .exit_status = -1 };
	k->host = strdup(host ? host : "?");
	k->file = rd->file ? strdup(rd->file) : NULL;
	return k->host && (k->file || !rd->file) ? k : NULL;
}

/*
 * Count @v of event @name to rank @k, and to the event's total over the
 * ranks.  A sum past 2^64 - 1 is -ERANGE, and nothing is added: a total
 * that wrapped would read as a smaller, plausible count.
 */
static int
add_count(struct mpi_report *r, struct mpi_rank *k, const char *name,
	  uint64_t v)
{
	int e = event_index(r, name);
	int *ev = e < 0 ? NULL : realloc(k->event, (k->nr + 1) * sizeof(*ev));
	uint64_t *val = ev ? realloc(k->value, (k->nr + 1) * sizeof(*val))
			   : NULL;
	uint64_t sum;

	if (ev)
		k->event = ev;
	if (!val)
		return -ENOMEM;
	k->value = val;
	if (__builtin_add_overflow(r->total[e], v, &sum))
		return -ERANGE;
	r->total[e] = sum;
	for (int i = 0; i < k->nr; i++) {
		if (k->event[i] == e) {
			k->value[i] += v; /* no more than the total */
			return 0;
		}
	}
	k->event[k->nr] = e;
	k->value[k->nr++] = v;
	return 0;
}

/* why add_count() failed, for the count at @field */
static int
count_failed(struct reader *rd, int err, const char *field, const char *name)
{
	if (err == -ERANGE)
		return fail(rd, "%s: the total of %s passes 2^64 - 1 "
				"(18446744073709551615) here: refused, not "
				"wrapped", field, name);
	return fail(rd, "out of memory");
}

/* a count: a JSON integer from 0 to 2^64 - 1, or a number rounded */
static int
count_of(json_object *v, uint64_t *out)
{
	double d;

	if (json_object_is_type(v, json_type_int)) {
		if (json_object_get_int64(v) < 0)
			return -1;
		*out = json_object_get_uint64(v);
		return 0;
	}
	if (!json_object_is_type(v, json_type_double))
		return -1;
	/* round() of a double below 2^64 is below it too: every double
	 * from 2^52 up is already an integer */
	d = round(json_object_get_double(v));
	if (!(d >= 0.0 && d < 18446744073709551616.0))
		return -1;
	*out = (uint64_t)d;
	return 0;
}

/* one event of a pctr-stat/1 report: its scaled counts, over the runs */
static int
stat_event(struct reader *rd, struct mpi_rank *k, json_object *ev, int i)
{
	json_object *name = member(ev, "name", json_type_string);
	json_object *runs = member(ev, "runs", json_type_array);
	json_object *sup = member(ev, "supported", json_type_boolean);
	uint64_t sum = 0;
	char field[64];
	int err;

	if (!name || !runs)
		return fail(rd, "events[%d] has no \"name\" string or no "
				"\"runs\" array", i);
	if (sup && !json_object_get_boolean(sup))
		return 0; /* not countable there: no count, not a zero */
	for (size_t n = 0; n < json_object_array_length(runs); n++) {
		json_object *run = json_object_array_get_idx(runs, n), *v;
		uint64_t x;

		if (!json_object_is_type(run, json_type_object) ||
		    !json_object_object_get_ex(run, "scaled", &v) ||
		    count_of(v, &x) < 0)
			return fail(rd, "events[%d].runs[%zu].scaled is not a "
					"count", i, n);
		if (__builtin_add_overflow(sum, x, &sum))
			return fail(rd, "events[%d].runs[%zu].scaled: the sum "
					"of the runs passes 2^64 - 1 "
					"(18446744073709551615): refused, not "
					"wrapped", i, n);
	}
	err = add_count(rd->r, k, json_object_get_string(name), sum);
	snprintf(field, sizeof(field), "events[%d]", i);
	return err ? count_failed(rd, err, field,
				  json_object_get_string(name)) : 0;
}

static void
stat_exit(struct mpi_rank *k, json_object *doc)
{
	json_object *ex = member(doc, "exit", json_type_object), *v;

	if (ex && (v = member(ex, "status", json_type_int)))
		k->exit_status = json_object_get_int(v);
	if (ex && (v = member(ex, "signal", json_type_int)))
		k->signal = json_object_get_int(v);
}

static long
read_stat(struct reader *rd, json_object *doc, long base)
{
	json_object *events = member(doc, "events", json_type_array);
	json_object *host = member(doc, "host", json_type_string);
	struct mpi_rank *k;

	if (!events)
		return fail(rd, "pctr-stat/1 report without an \"events\" "
				"array");
	k = new_rank(rd, base, host ? json_object_get_string(host) : NULL);
	if (!k)
		return fail(rd, "out of memory");
	stat_exit(k, doc);
	for (size_t i = 0; i < json_object_array_length(events); i++)
		if (stat_event(rd, k, json_object_array_get_idx(events, i),
			       (int)i) < 0)
			return -1;
	return 1;
}

static int
mpi_counts(struct reader *rd, struct mpi_rank *k, json_object *counts,
	   size_t i)
{
	json_object_object_foreach(counts, name, v)
	{
		char field[256];
		uint64_t x;
		int err;

		if (!json_object_is_type(v, json_type_int) ||
		    count_of(v, &x) < 0)
			return fail(rd, "ranks[%zu].counts.%s is not a count",
				    i, name);
		err = add_count(rd->r, k, name, x);
		snprintf(field, sizeof(field), "ranks[%zu].counts.%s", i,
			 name);
		if (err)
			return count_failed(rd, err, field, name);
	}
	return 0;
}

static int
mpi_rank(struct reader *rd, json_object *o, size_t i, long base, long size)
{
	json_object *rank = member(o, "rank", json_type_int);
	json_object *host = member(o, "host", json_type_string);
	json_object *counts = member(o, "counts", json_type_object), *v;
	struct mpi_rank *k;
	long n = rank ? (long)json_object_get_int64(rank) : -1;

	if (!counts || n < 0 || n >= size)
		return fail(rd, "ranks[%zu] needs a \"rank\" from 0 to %ld and "
				"a \"counts\" object", i, size - 1);
	k = new_rank(rd, base + n, host ? json_object_get_string(host) : NULL);
	if (!k)
		return fail(rd, "out of memory");
	if ((v = member(o, "exit_status", json_type_int)))
		k->exit_status = json_object_get_int(v);
	if ((v = member(o, "signal", json_type_int)))
		k->signal = json_object_get_int(v);
	return mpi_counts(rd, k, counts, i);
}

static long
read_mpi(struct reader *rd, json_object *doc, long base)
{
	json_object *ranks = member(doc, "ranks", json_type_array);
	json_object *size = member(doc, "size", json_type_int);
	long n = size ? (long)json_object_get_int64(size) : -1;

	if (!ranks || n < 1 || n > 1L << 30)
		return fail(rd, "pctr-mpi/1 report without a \"ranks\" array "
				"or a \"size\" from 1");
	for (size_t i = 0; i < json_object_array_length(ranks); i++)
		if (mpi_rank(rd, json_object_array_get_idx(ranks, i), i, base,
			     n) < 0)
			return -1;
	return n;
}


static const char *
schema_of(json_object *doc)
{
	json_object *s = json_object_is_type(doc, json_type_object)
				 ? member(doc, "schema", json_type_string)
				 : NULL;

	return s ? json_object_get_string(s) : "";
}

/*
 * The JSON value at text[*at ..) (json-c, strict), which may be followed
 * by others: *@at is moved past it.  NULL, said, if there is none there.
 */
static json_object *
next_value(struct reader *rd, const char *text, size_t len, size_t *at)
{
	struct json_tokener *tok = json_tokener_new();
	json_object *v = NULL;
	enum json_tokener_error e;

	if (!tok)
		return fail(rd, "out of memory"), NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT |
					    JSON_TOKENER_ALLOW_TRAILING_CHARS);
	v = json_tokener_parse_ex(tok, text + *at, (int)(len - *at));
	e = json_tokener_get_error(tok);
	if (!v && e == json_tokener_continue)
		fail(rd, "truncated JSON at byte %zu", len);
	else if (!v)
		fail(rd, "%s at byte %zu", json_tokener_error_desc(e),
		     *at + json_tokener_get_parse_end(tok));
	*at += json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	return v;
}

static bool
is_report(json_object *v)
{
	return !strcmp(schema_of(v), "pctr-stat/1") ||
	       !strcmp(schema_of(v), "pctr-mpi/1");
}

/* only white space in text[0 .. len), which is not NUL-terminated */
static bool
blank(const char *text, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (!strchr(" \t\r\n", text[i]) || !text[i])
			return false;
	return true;
}

/*
 * The next report of a file from text[*at ..): a pctr-stat/1 or
 * pctr-mpi/1 value, after the pctr-stat-interval/1 lines of pctr stat
 * --format=pctr-json -I (JSON Lines).  A file holds one report, or as
 * many as pctr stat --append added to it.  Anything else, or a value cut
 * short, is an error.
 */
static json_object *
next_report(struct reader *rd, const char *text, size_t len, size_t *at)
{
	bool lines = false;

	for (;;) {
		size_t from = *at;
		json_object *v;

		while (from < len && blank(text + from, 1))
			from++;
		if (from == len)
			return fail(rd, lines ? "JSON Lines without a "
						"pctr-stat/1 report on the "
						"last line"
					      : "empty: no pctr-stat/1 or "
						"pctr-mpi/1 report in it"),
			       NULL;
		*at = from;
		v = next_value(rd, text, len, at);
		if (!v || is_report(v))
			return v;
		lines = !strcmp(schema_of(v), "pctr-stat-interval/1");
		json_object_put(v);
		if (!lines)
			return fail(rd,
				    "the value at byte %zu is not a "
				    "pctr-stat/1 or pctr-mpi/1 report",
				    from),
			       NULL;
	}
}

void
mpi_report_drop(struct mpi_report *r, int keep)
{
	while (r->nr_ranks > keep) {
		struct mpi_rank *k = &r->ranks[--r->nr_ranks];

		for (int i = 0; i < k->nr; i++)
			r->total[k->event[i]] -= k->value[i];
		free(k->host);
		free(k->file);
		free(k->event);
		free(k->value);
	}
}

struct seen {
	long rank;
	int at; /* index among the ranks just read */
};

static int
by_rank(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	return (x->rank > y->rank) - (x->rank < y->rank);
}

static int
by_rank_at(const void *a, const void *b)
{
	const struct seen *x = a, *y = b;

	if (x->rank != y->rank)
		return (x->rank > y->rank) - (x->rank < y->rank);
	return (x->at > y->at) - (x->at < y->at);
}

/*
 * A rank that the report just read (ranks @had on, numbered from @base)
 * lists again, or that an earlier report had: its counts would be taken
 * twice.  pctr mpirun refuses a rank's second report the same way.  The
 * new ranks are sorted and each earlier one looked up among them: a job
 * has many ranks, and pctr mpirun reads them one at a time.
 */
static int
twice(struct reader *rd, int had, long base)
{
	const struct mpi_report *r = rd->r;
	int n = r->nr_ranks - had, bad = -1;
	struct seen *s = malloc((n + 1) * sizeof(*s)), *hit;

	if (!s)
		return fail(rd, "out of memory");
	for (int i = 0; i < n; i++)
		s[i] = (struct seen){ r->ranks[had + i].rank, i };
	qsort(s, n, sizeof(*s), by_rank_at);
	for (int i = 1; i < n; i++)
		if (s[i].rank == s[i - 1].rank && (bad < 0 || s[i].at < bad))
			bad = s[i].at;
	for (int k = 0; k < had; k++) {
		struct seen key = { r->ranks[k].rank, -1 };

		hit = bsearch(&key, s, n, sizeof(*s), by_rank);
		if (hit && (bad < 0 || hit->at < bad))
			bad = hit->at;
	}
	free(s);
	if (bad >= 0)
		return fail(rd, "ranks[%d]: rank %ld is listed twice", bad,
			    r->ranks[had + bad].rank - base);
	return 0;
}

long
mpi_report_read(struct mpi_report *r, const char *text, size_t len,
		const char *file, long base, char *err, size_t errlen)
{
	struct reader rd = { r, file, err, errlen };
	int had = r->nr_ranks;
	json_object *doc;
	size_t at = 0;
	long n = 0, got;

	*err = '\0';
	/* reports appended one after another are ranks one after another */
	do {
		doc = next_report(&rd, text, len, &at);
		if (!doc)
			return mpi_report_drop(r, had), -1;
		if (!strcmp(schema_of(doc), "pctr-stat/1"))
			got = read_stat(&rd, doc, base + n);
		else
			got = read_mpi(&rd, doc, base + n);
		json_object_put(doc);
		n = got < 0 ? -1 : n + got;
	} while (n >= 0 && !blank(text + at, len - at));
	if (n >= 0 && twice(&rd, had, base) < 0)
		n = -1;
	if (n < 0)
		mpi_report_drop(r, had);
	return n;
}
