/* SPDX-License-Identifier: MIT */
/*
 * json.c - the one JSON writer (text.h): members, nesting, the number
 * form, and the objects every document shares (statistics, machine).
 */
#include <math.h>
#include <stdlib.h>

#include <pctr.h>

#include "text.h"

/*
 * The fewest significant digits that read back as the same double:
 * 84962.8, not the 84962.800000000003 of "%.17g".  "%.*g" drops trailing
 * zeros, so the first of 15, 16, 17 digits that round-trips is the
 * shortest form (every double needs at most 17, most at most 15).
 */
const char *
pctr__number(char *buf, size_t len, double v)
{
	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, len, "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return buf;
}

void
pctr__json_begin(struct pctr_json *j, FILE *f, bool compact)
{
	j->f = f;
	j->compact = compact;
	j->depth = 0;
	j->first[0] = true;
}

void
pctr__json_end(struct pctr_json *j)
{
	fputc('\n', j->f);
}

/* the comma, newline and indentation before a value, then its key */
static void
member(struct pctr_json *j, const char *key)
{
	if (!j->first[j->depth])
		fputc(',', j->f);
	j->first[j->depth] = false;
	if (j->depth > 0 && !j->compact)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	if (key) {
		pctr__json_string(j->f, key);
		fputs(j->compact ? ":" : ": ", j->f);
	}
}

static void
open_nest(struct pctr_json *j, const char *key, char c)
{
	member(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < PCTR_JSON_MAX_DEPTH)
		j->depth++;
	j->first[j->depth] = true;
}

static void
close_nest(struct pctr_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty && !j->compact)
		fprintf(j->f, "\n%*s", 2 * j->depth, "");
	fputc(c, j->f);
}

void
pctr__json_obj(struct pctr_json *j, const char *key)
{
	open_nest(j, key, '{');
}

void
pctr__json_obj_end(struct pctr_json *j)
{
	close_nest(j, '}');
}

void
pctr__json_arr(struct pctr_json *j, const char *key)
{
	open_nest(j, key, '[');
}

void
pctr__json_arr_end(struct pctr_json *j)
{
	close_nest(j, ']');
}

void
pctr__json_str(struct pctr_json *j, const char *key, const char *s)
{
	member(j, key);
	if (s)
		pctr__json_string(j->f, s);
	else
		fputs("null", j->f);
}

void
pctr__json_int(struct pctr_json *j, const char *key, long long v)
{
	member(j, key);
	fprintf(j->f, "%lld", v);
}

void
pctr__json_uint(struct pctr_json *j, const char *key, unsigned long long v)
{
	member(j, key);
	fprintf(j->f, "%llu", v);
}

void
pctr__json_num(struct pctr_json *j, const char *key, double v)
{
	char b[32];

	member(j, key);
	fputs(isfinite(v) ? pctr__number(b, sizeof(b), v) : "null", j->f);
}

void
pctr__json_bool(struct pctr_json *j, const char *key, bool v)
{
	member(j, key);
	fputs(v ? "true" : "false", j->f);
}

void
pctr__json_null(struct pctr_json *j, const char *key)
{
	member(j, key);
	fputs("null", j->f);
}

void
pctr__json_tristate(struct pctr_json *j, const char *key, int v)
{
	if (v < 0)
		pctr__json_null(j, key);
	else
		pctr__json_bool(j, key, v != 0);
}

void
pctr__json_summary(struct pctr_json *j, const struct pctr_summary *s,
		   double scale)
{
	pctr__json_int(j, "n", (long long)s->n);
	pctr__json_num(j, "min", s->n ? s->min * scale : NAN);
	pctr__json_num(j, "mean", s->n ? s->mean * scale : NAN);
	pctr__json_num(j, "max", s->n ? s->max * scale : NAN);
	pctr__json_num(j, "stddev", s->n > 1 ? s->stddev * scale : NAN);
	pctr__json_num(j, "stderr", s->std_error * scale);
	if (!isfinite(s->ci95_low)) {
		pctr__json_null(j, "ci95");
		return;
	}
	pctr__json_arr(j, "ci95");
	pctr__json_num(j, NULL, s->ci95_low * scale);
	pctr__json_num(j, NULL, s->ci95_high * scale);
	pctr__json_arr_end(j);
}

void
pctr__json_machine(struct pctr_json *j, const char *key,
		   const struct pctr_machine *m)
{
	pctr__json_obj(j, key);
	pctr__json_str(j, "arch", m->arch);
	pctr__json_bool(j, "has_pmu", m->has_pmu);
	pctr__json_arr(j, "pmus");
	for (int i = 0; i < m->nr_pmus; i++) {
		pctr__json_obj(j, NULL);
		pctr__json_str(j, "name", m->pmu[i]);
		pctr__json_uint(j, "type", m->pmu_type[i]);
		pctr__json_obj_end(j);
	}
	pctr__json_arr_end(j);
	if (m->paranoid == INT32_MIN)
		pctr__json_null(j, "perf_event_paranoid");
	else
		pctr__json_int(j, "perf_event_paranoid", m->paranoid);
	if (m->user_access < 0)
		pctr__json_null(j, "user_access");
	else
		pctr__json_int(j, "user_access", m->user_access);
	pctr__json_uint(j, "tsc_hz", m->tsc_hz);
	pctr__json_tristate(j, "tsc_invariant", m->tsc_invariant);
	pctr__json_tristate(j, "virtualized", m->virtualized);
	pctr__json_obj_end(j);
}
