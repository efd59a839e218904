/* SPDX-License-Identifier: MIT */
/*
 * pmu_syntax.c - the kernel's event syntax, "pmu/term=value,term,named_event/
 * modifiers", PMUs' named events, tracepoints "subsystem:name[:modifiers]",
 * and their listings, over the files sysfs.c reads.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "text.h"

/*
 * Put @val into the bits a format file names, lowest bits of @val first:
 * "config1:0-15,32-47" spreads 32 bits over two ranges.
 */
static int
apply_format(struct pctr_event *ev, const char *term, const char *fmt,
	     uint64_t val)
{
	uint64_t *field;
	const char *p;
	unsigned int used = 0;

	if (!strncmp(fmt, "config3:", 8))
		field = &ev->config3, p = fmt + 8;
	else if (!strncmp(fmt, "config2:", 8))
		field = &ev->config2, p = fmt + 8;
	else if (!strncmp(fmt, "config1:", 8))
		field = &ev->config1, p = fmt + 8;
	else if (!strncmp(fmt, "config:", 7))
		field = &ev->config, p = fmt + 7;
	else
		return pctr__error(EINVAL, "unknown format '%s' for term '%s'",
				   fmt, term);
	while (*p) {
		char *end;
		unsigned long lo = strtoul(p, &end, 10), hi = lo;

		if (end == p)
			return pctr__error(EINVAL, "bad format '%s'", fmt);
		if (*end == '-')
			hi = strtoul(end + 1, &end, 10);
		if (hi > 63 || hi < lo)
			return pctr__error(EINVAL, "bad format '%s'", fmt);
		for (unsigned long b = lo; b <= hi; b++, used++) {
			*field &= ~(1ull << b);
			if (used < 64 && (val >> used) & 1)
				*field |= 1ull << b;
		}
		p = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return pctr__error(EINVAL, "bad format '%s'", fmt);
	}
	if (used < 64 && val >> used)
		return pctr__error(EINVAL,
				   "value 0x%llx is too large for '%s' "
				   "(%u bits)",
				   (unsigned long long)val, term, used);
	return 0;
}

static int
parse_number(const char *s, uint64_t *v)
{
	char *end;

	if (!*s)
		return -EINVAL;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return errno || *end ? -EINVAL : 0;
}

static int apply_terms(struct pctr_event *ev, const char *pmu,
		       const char *terms, int depth);

/*
 * perf's "name=" term: the name reports show for the event, in perf's
 * characters (its lexer's PE_NAME: a letter, '_', '*', '?', '[' or ']',
 * then those, digits, '.', '!' and '-').  Checked here; the event's name
 * stays its whole specification, which parses back to it, and
 * pctr__term_value() finds the name in it.
 */
static int
check_name(const char *val)
{
	static const char first[] = "abcdefghijklmnopqrstuvwxyz"
				    "ABCDEFGHIJKLMNOPQRSTUVWXYZ_*?[]";
	size_t n = strlen(val), i = 0;

	if (n && strchr(first, val[0]))
		for (i = 1; i < n; i++)
			if (!strchr(first, val[i]) &&
			    !strchr("0123456789.!-", val[i]))
				break;
	if (!n || i < n)
		return pctr__error(EINVAL,
				   "bad name '%s': a letter, '_', '*', '?', "
				   "'[' or ']', then those, digits, '.', '!' "
				   "or '-'",
				   val);
	return 0;
}

size_t
pctr__term_value(const char *spec, const char *term, const char **value)
{
	const char *s1 = strchr(spec, '/'), *end = s1 ? strchr(s1 + 1, '/') : NULL;
	size_t n = strlen(term);

	for (const char *t = s1; t && t < end; t = strchr(t + 1, ',')) {
		if (!strncmp(t + 1, term, n) && t[n + 1] == '=') {
			*value = t + n + 2;
			return strcspn(*value, ",/");
		}
	}
	return 0;
}

int
pctr__scale_parse(const char *text, double *scale)
{
	locale_t old;
	char *end;
	double v;

	/* digits, point and exponent only: no hex, inf, nan or blanks */
	if (!*text || text[strspn(text, "0123456789.eE+-")])
		return -EINVAL;
	old = pctr__locale_c();
	errno = 0;
	v = strtod(text, &end);
	pctr__locale_restore(old);
	if (*end || errno || !(v > 0) || !isfinite(v))
		return -EINVAL;
	*scale = v;
	return 0;
}

/* @pmu's events/@file into @buf: 1, 0 if there is no such file, or -errno */
static int
alias_file(const char *pmu, const char *file, char *buf, size_t len)
{
	char path[256];
	int r;

	snprintf(path, sizeof(path), "events/%s", file);
	r = pctr__sysfs_pmu_read(pmu, path, buf, len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return pctr__error(-r, "cannot read %s%s/%s/%s: %s",
				   pctr__sysfs_root(), pctr__sysfs_devices(),
				   pmu, path, strerror(-r));
	return 1;
}

/*
 * What a count of @pmu's named event @name is worth, and in what: the
 * kernel's events/NAME.scale and events/NAME.unit, as perf reads them
 * (tools/perf/util/pmu.c): a unit of at most 31 bytes, a scale in the C
 * locale.  Return: 1 if either file is there, 0 if neither (unit "",
 * scale 1), or -errno.  A scale that is no number above 0 is refused
 * (perf would take the number it begins with, or 1).
 */
static int
alias_unit(const char *pmu, const char *name, char *unit, size_t len,
	   double *scale)
{
	char file[128], text[128];
	int s, u;

	*scale = 1.0;
	snprintf(file, sizeof(file), "%s.scale", name);
	s = alias_file(pmu, file, text, sizeof(text));
	if (s > 0 && pctr__scale_parse(text, scale) < 0)
		return pctr__error(EINVAL,
				   "bad scale '%s' in %s%s/%s/events/%s: a "
				   "decimal number above 0 is expected",
				   text, pctr__sysfs_root(),
				   pctr__sysfs_devices(), pmu, file);
	snprintf(file, sizeof(file), "%s.unit", name);
	u = s < 0 ? s : alias_file(pmu, file, text, 32);
	if (u < 0)
		return u;
	if (len)
		snprintf(unit, len, "%s", u ? text : "");
	return s || u;
}

/* @pmu's named event @name, defined as @terms; its scale checked now */
static int
apply_alias(struct pctr_event *ev, const char *pmu, const char *name,
	    const char *terms, int depth)
{
	double scale;
	int r = alias_unit(pmu, name, NULL, 0, &scale);

	return r < 0 ? r : apply_terms(ev, pmu, terms, depth + 1);
}

static int
apply_term(struct pctr_event *ev, const char *pmu, char *term, int depth)
{
	char fmt[128], path[256], *eq = strchr(term, '=');
	uint64_t val = 1;

	if (eq)
		*eq = '\0';
	if (!strcmp(term, "name")) {
		if (!eq)
			return pctr__error(EINVAL, "term 'name' needs a value: "
					   "name=NAME");
		return check_name(eq + 1);
	}
	/*
	 * perf's sampling terms: checked, and left to the sampler (pctr
	 * record and profile take them; a set samples at pctr_sampling's)
	 */
	if (!strcmp(term, "period") || !strcmp(term, "freq")) {
		uint64_t v;

		if (!eq || parse_number(eq + 1, &v) < 0 || v == 0)
			return pctr__error(EINVAL, "term '%s' takes a number "
					   "above 0: %s=N", term, term);
		return 0;
	}
	if (!pmu)
		return pctr__error(EINVAL,
				   "term '%s' is not taken after a generic "
				   "event (name=, period= and freq= are; a "
				   "PMU's own terms go in PMU/.../)",
				   term);
	if (eq) {
		if (parse_number(eq + 1, &val) < 0)
			return pctr__error(EINVAL, "bad value '%s' for '%s'",
					   eq + 1, term);
	}
	if (!strcmp(term, "config") || !strcmp(term, "config1") ||
	    !strcmp(term, "config2") || !strcmp(term, "config3")) {
		uint64_t *f = term[6] == '1'   ? &ev->config1
			      : term[6] == '2' ? &ev->config2
			      : term[6] == '3' ? &ev->config3
					       : &ev->config;
		*f = val;
		return 0;
	}
	snprintf(path, sizeof(path), "format/%s", term);
	if (pctr__sysfs_pmu_read(pmu, path, fmt, sizeof(fmt)) >= 0)
		return apply_format(ev, term, fmt, val);
	snprintf(path, sizeof(path), "events/%s", term);
	if (!eq && depth == 0 &&
	    pctr__sysfs_pmu_read(pmu, path, fmt, sizeof(fmt)) >= 0)
		return apply_alias(ev, pmu, term, fmt, depth);
	return pctr__error(ENOENT,
			   "PMU '%s' has no format term or event named '%s' "
			   "(see %s%s/%s/format and events)",
			   pmu, term, pctr__sysfs_root(), pctr__sysfs_devices(),
			   pmu);
}

static int
apply_terms(struct pctr_event *ev, const char *pmu, const char *terms,
	    int depth)
{
	char buf[PCTR_NAME_MAX * 2], *save = NULL, *t;
	int r;

	if (strlen(terms) >= sizeof(buf))
		return pctr__error(EINVAL, "term list too long");
	strcpy(buf, terms);
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*t))
			t++;
		if (!*t)
			continue;
		r = apply_term(ev, pmu, t, depth);
		if (r < 0)
			return r;
	}
	return 0;
}

int
pctr__sysfs_terms(struct pctr_event *ev, const char *pmu, const char *terms)
{
	return apply_terms(ev, pmu, terms, 0);
}

static bool
is_core_pmu(const char *pmu)
{
	const struct pctr_machine *m = pctr__machine();

	for (int i = 0; i < m->nr_pmus; i++)
		if (!strcmp(m->pmu[i], pmu))
			return true;
	return false;
}

int
pctr__sysfs_parse(const char *spec, struct pctr_event *ev)
{
	char pmu[64], terms[PCTR_NAME_MAX * 2];
	const char *s1 = strchr(spec, '/'), *s2;
	uint32_t type;
	int r;

	s2 = s1 ? strchr(s1 + 1, '/') : NULL;
	if (!s1 || !s2 || s1 == spec || (size_t)(s1 - spec) >= sizeof(pmu) ||
	    (size_t)(s2 - s1) > sizeof(terms))
		return pctr__error(EINVAL,
				   "malformed event '%s': expected "
				   "pmu/term=value,.../modifiers",
				   spec);
	memcpy(pmu, spec, s1 - spec);
	pmu[s1 - spec] = '\0';
	memcpy(terms, s1 + 1, s2 - s1 - 1);
	terms[s2 - s1 - 1] = '\0';
	if (pctr__sysfs_pmu_type(pmu, &type) < 0) {
		r = pctr__generic_with_terms(spec, ev);
		if (r != -ENOENT)
			return r;
		if (pctr__is_core_pmu_name(pmu) && !pctr__machine()->has_pmu)
			return pctr__error(ENODEV,
					   "no PMU '%s': this machine has no "
					   "hardware performance counters (a "
					   "VM without PMU passthrough?); "
					   "software events and the timestamp "
					   "counter still work",
					   pmu);
		return pctr__error(ENOENT,
				   "no PMU named '%s' here (see 'pctr list' "
				   "or %s%s)",
				   pmu, pctr__sysfs_root(),
				   pctr__sysfs_devices());
	}
	ev->type = type;
	r = apply_terms(ev, pmu, terms, 0);
	if (r < 0)
		return r;
	r = pctr__event_apply_modifiers(ev, s2 + 1);
	if (r < 0)
		return r;
	ev->hardware = is_core_pmu(pmu);
	ev->nr_parts = 1;
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	return 0;
}

/*
 * The unit and scale of "pmu/terms/modifiers" (pctr_event_unit()): those
 * of its first term that names an event of the PMU, as apply_term() takes
 * it (no value, no format term of that name).  Return: 1 if that event
 * has a unit or a scale, else 0 (unit "", scale 1); or -errno.
 */
int
pctr__sysfs_unit(const char *spec, char *unit, size_t len, double *scale)
{
	char pmu[64], terms[PCTR_NAME_MAX], buf[256], *save = NULL, *t;
	const char *s1 = strchr(spec, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : 0;
	uint32_t type;

	*scale = 1.0;
	if (len)
		unit[0] = '\0';
	if (!s2 || (size_t)(s1 - spec) >= sizeof(pmu) ||
	    (size_t)(s2 - s1) > sizeof(terms))
		return 0;
	snprintf(pmu, sizeof(pmu), "%.*s", (int)(s1 - spec), spec);
	snprintf(terms, sizeof(terms), "%.*s", (int)(s2 - s1 - 1), s1 + 1);
	if (pctr__sysfs_pmu_type(pmu, &type) < 0)
		return 0;
	for (t = strtok_r(terms, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		char path[256];

		t += strspn(t, " \t\n");
		if (!*t || strchr(t, '='))
			continue;
		snprintf(path, sizeof(path), "format/%s", t);
		if (pctr__sysfs_pmu_read(pmu, path, buf, sizeof(buf)) >= 0)
			continue;
		snprintf(path, sizeof(path), "events/%s", t);
		if (pctr__sysfs_pmu_read(pmu, path, buf, sizeof(buf)) >= 0)
			return alias_unit(pmu, t, unit, len, scale);
	}
	return 0;
}

/* A bare name that is a sysfs event of a core PMU ("inst_retired"). */
int
pctr__sysfs_find_event(const char *name, struct pctr_event *ev)
{
	const struct pctr_machine *m = pctr__machine();
	char buf[256], spec[PCTR_NAME_MAX];
	const char *mods = strchr(name, ':');
	size_t n = mods ? (size_t)(mods - name) : strlen(name);

	if (n == 0 || n > 64 || memchr(name, '/', n) || memchr(name, '.', n))
		return -ENOENT;
	for (int i = 0; i < m->nr_pmus; i++) {
		snprintf(buf, sizeof(buf), "events/%.*s", (int)n, name);
		if (pctr__sysfs_pmu_read(m->pmu[i], buf, buf, sizeof(buf)) < 0)
			continue;
		snprintf(spec, sizeof(spec), "%s/%.*s/%s", m->pmu[i], (int)n,
			 name, mods ? mods + 1 : "");
		return pctr__sysfs_parse(spec, ev);
	}
	return -ENOENT;
}

static bool
skip_event_file(const char *name)
{
	static const char *const suffix[] = { ".scale", ".unit", ".snapshot",
					      ".per-pkg" };

	if (name[0] == '.')
		return true;
	for (size_t i = 0; i < PCTR_ARRAY_SIZE(suffix); i++) {
		size_t a = strlen(name), b = strlen(suffix[i]);

		if (a > b && !strcmp(name + a - b, suffix[i]))
			return true;
	}
	return false;
}

struct pmu_walk {
	const char *pmu;
	int (*cb)(const struct pctr_event_info *, void *);
	void *arg;
};

static int
list_event(const char *file, void *arg)
{
	struct pmu_walk *w = arg;
	char path[512], source[80], name[PCTR_NAME_MAX], desc[256];
	struct pctr_event_info info = { source, name, desc };

	if (skip_event_file(file))
		return 0;
	snprintf(path, sizeof(path), "events/%s", file);
	if (pctr__sysfs_pmu_read(w->pmu, path, desc, sizeof(desc)) < 0)
		desc[0] = '\0';
	snprintf(source, sizeof(source), "sysfs:%s", w->pmu);
	snprintf(name, sizeof(name), "%s/%s/", w->pmu, file);
	return w->cb(&info, w->arg);
}

static int
list_pmu(const char *pmu, void *arg)
{
	struct pmu_walk *w = arg;

	w->pmu = pmu;
	return pctr__sysfs_walk_events(pmu, list_event, w);
}

/* every named event of every PMU, "pmu/name/", sorted */
int
pctr__sysfs_list(int (*cb)(const struct pctr_event_info *, void *), void *arg)
{
	struct pmu_walk w = { NULL, cb, arg };

	return pctr__sysfs_walk_pmus(list_pmu, &w);
}

/* ---- tracepoints -------------------------------------------------------- */

/* a subsystem or tracepoint name: letters, digits, '_' and '-' only */
static bool
tracepoint_word(const char *s, size_t n)
{
	return n > 0 && n < PCTR_NAME_MAX &&
	       strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
			 "0123456789_-") >= n;
}

static int
tracepoint_id(const char *sys, const char *name, uint64_t *id)
{
	char buf[32], path[1024], *end;
	int r = pctr__tracefs_read_id(sys, name, buf, sizeof(buf), path,
				      sizeof(path));

	if (r < 0)
		return r;
	errno = 0;
	*id = strtoull(buf, &end, 10);
	if (errno || *end || end == buf)
		return pctr__error(EINVAL, "tracepoint %s:%s: bad id '%s' in "
				   "%s", sys, name, buf, path);
	return 0;
}

/*
 * "sched:sched_switch[:mods]", given as @sys and @rest ("sched_switch" or
 * "sched_switch:k").  -ENOENT when it is not a tracepoint, so that other
 * syntaxes (libpfm4's "EVENT:UMASK") get their turn.
 */
int
pctr__tracepoint_parse(const char *sys, const char *rest,
		       struct pctr_event *ev)
{
	size_t n = strcspn(rest, ":");
	const char *mods = rest[n] ? rest + n + 1 : "";
	char name[PCTR_NAME_MAX];
	uint64_t id;
	int r;

	if (!tracepoint_word(sys, strlen(sys)) || !tracepoint_word(rest, n))
		return -ENOENT;
	memcpy(name, rest, n);
	name[n] = '\0';
	r = tracepoint_id(sys, name, &id);
	if (r == -EACCES || r == -EPERM)
		return pctr__error(EACCES, "cannot read the id of tracepoint "
				   "%s:%s: %s", sys, name,
				   pctr__tracefs_problem());
	if (r < 0)
		return r == -EINVAL ? r : -ENOENT;
	ev->type = PERF_TYPE_TRACEPOINT;
	ev->config = id;
	/*
	 * A tracepoint fires in the kernel.  exclude_hv (which means nothing
	 * for it) marks the privilege levels as chosen, so that a set never
	 * falls back to user mode only, where it would count nothing.
	 */
	ev->flags |= PCTR_EVENT_EXCLUDE_HV;
	snprintf(ev->name, sizeof(ev->name), "%s:%s%s%s", sys, name,
		 *mods ? ":" : "", mods);
	return pctr__event_apply_modifiers(ev, mods);
}

struct tp_list {
	int (*cb)(const struct pctr_event_info *, void *);
	void *arg;
};

static int
list_tracepoint(const char *sys, const char *tp, void *arg)
{
	struct tp_list *l = arg;
	char name[PCTR_NAME_MAX];
	struct pctr_event_info info = { "tracepoint", name, "" };

	snprintf(name, sizeof(name), "%s:%s", sys, tp);
	return l->cb(&info, l->arg);
}

/* every tracepoint, "subsystem:name", sorted; none if tracefs is closed */
int
pctr__tracepoint_list(int (*cb)(const struct pctr_event_info *, void *),
		      void *arg)
{
	struct tp_list l = { cb, arg };

	return pctr__tracefs_walk(list_tracepoint, &l);
}

struct tp_glob {
	const char *sys, *name; /* the patterns, "sched" and "sched_*" */
	int (*cb)(const char *spec, void *);
	void *arg;
	int nr;
};

static int
glob_tracepoint(const char *sys, const char *tp, void *arg)
{
	struct tp_glob *g = arg;
	char spec[PCTR_NAME_MAX];

	if (fnmatch(g->sys, sys, 0) || fnmatch(g->name, tp, 0))
		return 0;
	g->nr++;
	snprintf(spec, sizeof(spec), "%s:%s", sys, tp);
	return g->cb(spec, g->arg);
}

/*
 * perf's "sched:*", "syscalls:sys_enter_*": each tracepoint whose
 * subsystem and name match the shell patterns, "subsystem:name" to @cb in
 * tracefs's sorted order.  Return: how many matched, or -errno (-ENOENT
 * with a message when none did).
 */
int
pctr__tracepoint_glob(const char *sys, const char *name,
		      int (*cb)(const char *spec, void *), void *arg)
{
	struct tp_glob g = { sys, name, cb, arg, 0 };
	const char *why = pctr__tracefs_problem();
	int r;

	if (*why)
		return pctr__error(ENOENT, "tracepoints '%s:%s' cannot be "
					   "looked up: %s", sys, name, why);
	r = pctr__tracefs_walk(glob_tracepoint, &g);
	if (r < 0)
		return r;
	if (!g.nr)
		return pctr__error(ENOENT, "no tracepoint matches '%s:%s' "
					   "('pctr list tracepoint' lists "
					   "them)", sys, name);
	return g.nr;
}
