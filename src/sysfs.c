/* SPDX-License-Identifier: MIT */
/*
 * sysfs.c - the kernel's own PMU descriptions and its event syntax,
 * "pmu/term=value,term,named_event/modifiers".
 *
 * Each PMU directory under /sys/bus/event_source/devices has "type" (the
 * perf_event_attr.type), "format/<term>" ("config:0-7,21" says where a
 * term's bits go) and "events/<name>" (a term list such as
 * "event=0xc0,umask=0x1").  $PCTR_SYSFS_ROOT replaces /sys, so tests can
 * describe a machine they are not running on.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

#define DEVICES "/bus/event_source/devices"

const char *
pctr__sysfs_root(void)
{
	const char *root = secure_getenv("PCTR_SYSFS_ROOT");

	return root && *root ? root : "/sys";
}

/* Read a small file, strip the trailing newline.  Return length or -errno. */
int
pctr__sysfs_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0)
		n = -errno;
	close(fd);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	while (n > 0 && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	return (int)n;
}

int
pctr__sysfs_pmu_read(const char *pmu, const char *file, char *buf,
		     size_t len)
{
	char path[512];

	if (strchr(pmu, '/') || strstr(file, ".."))
		return -EINVAL;
	snprintf(path, sizeof(path), "%s" DEVICES "/%s/%s", pctr__sysfs_root(),
		 pmu, file);
	return pctr__sysfs_read(path, buf, len);
}

int
pctr__sysfs_pmu_type(const char *pmu, uint32_t *type)
{
	char buf[32], *end;
	unsigned long v;
	int r = pctr__sysfs_pmu_read(pmu, "type", buf, sizeof(buf));

	if (r < 0)
		return r;
	errno = 0;
	v = strtoul(buf, &end, 10);
	if (errno || *end || end == buf || v > UINT32_MAX)
		return -EINVAL;
	*type = (uint32_t)v;
	return 0;
}

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

static int
apply_term(struct pctr_event *ev, const char *pmu, char *term, int depth)
{
	char fmt[128], path[256], *eq = strchr(term, '=');
	uint64_t val = 1;

	if (eq) {
		*eq = '\0';
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
		return apply_terms(ev, pmu, fmt, depth + 1);
	return pctr__error(ENOENT,
			   "PMU '%s' has no format term or event named '%s' "
			   "(see %s" DEVICES "/%s/format and events)",
			   pmu, term, pctr__sysfs_root(), pmu);
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
				   "or %s" DEVICES ")",
				   pmu, pctr__sysfs_root());
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

static int
list_pmu(const char *pmu,
	 int (*cb)(const struct pctr_event_info *, void *), void *arg)
{
	char path[512], source[80], name[PCTR_NAME_MAX], desc[256];
	struct pctr_event_info info = { source, name, desc };
	struct dirent *d;
	DIR *dir;
	int r = 0;

	snprintf(path, sizeof(path), "%s" DEVICES "/%s/events",
		 pctr__sysfs_root(), pmu);
	dir = opendir(path);
	if (!dir)
		return 0;
	snprintf(source, sizeof(source), "sysfs:%s", pmu);
	while (!r && (d = readdir(dir))) {
		if (skip_event_file(d->d_name))
			continue;
		snprintf(path, sizeof(path), "events/%s", d->d_name);
		if (pctr__sysfs_pmu_read(pmu, path, desc, sizeof(desc)) < 0)
			desc[0] = '\0';
		snprintf(name, sizeof(name), "%s/%s/", pmu, d->d_name);
		r = cb(&info, arg);
	}
	closedir(dir);
	return r;
}

int
pctr__sysfs_list(int (*cb)(const struct pctr_event_info *, void *), void *arg)
{
	char path[512];
	struct dirent **names;
	int n, r = 0;

	snprintf(path, sizeof(path), "%s" DEVICES, pctr__sysfs_root());
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!r && names[i]->d_name[0] != '.')
			r = list_pmu(names[i]->d_name, cb, arg);
		free(names[i]);
	}
	free(names);
	return r;
}

/* ---- tracepoints -------------------------------------------------------- */

/*
 * The kernel's tracepoints live in tracefs: events/SUBSYSTEM/NAME/id holds
 * the number that perf_event_attr.config takes with PERF_TYPE_TRACEPOINT.
 * tracefs is mounted at /sys/kernel/tracing, or seen through debugfs at
 * /sys/kernel/debug/tracing on older systems; mounting it is root's
 * business, and its files are often readable by root only.
 */
static const char *const tracefs_dirs[] = { "/kernel/tracing",
					    "/kernel/debug/tracing" };

/* the events directory into @dir; -ENOENT not mounted, -EACCES unreadable */
int
pctr__tracefs_events(char *dir, size_t len)
{
	int err = -ENOENT;

	for (size_t i = 0; i < PCTR_ARRAY_SIZE(tracefs_dirs); i++) {
		snprintf(dir, len, "%s%s/events", pctr__sysfs_root(),
			 tracefs_dirs[i]);
		if (access(dir, R_OK | X_OK) == 0)
			return 0;
		if (errno == EACCES || errno == EPERM)
			err = -EACCES;
	}
	snprintf(dir, len, "%s%s/events", pctr__sysfs_root(), tracefs_dirs[0]);
	return err;
}

/* why tracepoints cannot be used here, for messages; "" if they can */
const char *
pctr__tracefs_problem(void)
{
	char dir[512];
	int r = pctr__tracefs_events(dir, sizeof(dir));

	if (r == -EACCES)
		return "tracefs is readable by root only here";
	if (r < 0)
		return "tracefs is not mounted (as root: mount -t tracefs "
		       "nodev /sys/kernel/tracing)";
	return "";
}

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
	char dir[512], path[1024], buf[32], *end;
	int r = pctr__tracefs_events(dir, sizeof(dir));

	if (r < 0)
		return r;
	snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, name);
	r = pctr__sysfs_read(path, buf, sizeof(buf));
	if (r < 0)
		return r == -ENOTDIR ? -ENOENT : r;
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

static int
list_subsystem(const char *dir, const char *sys,
	       int (*cb)(const struct pctr_event_info *, void *), void *arg)
{
	char path[1024], name[PCTR_NAME_MAX];
	struct pctr_event_info info = { "tracepoint", name, "" };
	struct dirent **names;
	int n, r = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, sys);
	n = scandir(path, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		const char *tp = names[i]->d_name;

		snprintf(path, sizeof(path), "%s/%s/%s/id", dir, sys, tp);
		if (!r && tp[0] != '.' && access(path, F_OK) == 0) {
			snprintf(name, sizeof(name), "%s:%s", sys, tp);
			r = cb(&info, arg);
		}
		free(names[i]);
	}
	free(names);
	return r;
}

/* every tracepoint, "subsystem:name", sorted; none if tracefs is closed */
int
pctr__tracepoint_list(int (*cb)(const struct pctr_event_info *, void *),
		      void *arg)
{
	char dir[512];
	struct dirent **names;
	int n, r = 0;

	if (pctr__tracefs_events(dir, sizeof(dir)) < 0)
		return 0;
	n = scandir(dir, &names, NULL, alphasort);
	if (n < 0)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!r && names[i]->d_name[0] != '.')
			r = list_subsystem(dir, names[i]->d_name, cb, arg);
		free(names[i]);
	}
	free(names);
	return r;
}
