/* SPDX-License-Identifier: MIT */
/*
 * bsd_counter.c - counter functions of the BSD devices, over libpctr.
 *
 * $PCTR_BSD_EVENTS maps functions to libpctr events, for machines where
 * the raw encoding means nothing (no PMU, another vendor, arm64):
 *
 *     PCTR_BSD_EVENTS="c0=instructions,3c=cycles,1c2=task-clock"
 *
 * A key of two hex digits matches the event select byte, a longer one the
 * event and unit mask (fn & 0xffff), which is tried first.  The function's
 * user and kernel bits still choose what is counted.  Commas inside a
 * "pmu/.../" event belong to that event.
 *
 * Thread-safe: the environment is read once.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arch_bsd.h"
#include "bsd_counter.h"

#define MAX_MAP 32

struct map {
	uint32_t key;
	bool wide; /* key includes the unit mask */
	char spec[PCTR_NAME_MAX];
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static struct map map[MAX_MAP];
static int nr_map;
static bool has_pmu;
static int target = PCTR_TARGET_PROCESS;

/* one "key=spec" entry; malformed entries are ignored */
static void
add_entry(const char *s, size_t len)
{
	struct map *m = &map[nr_map];
	const char *eq = memchr(s, '=', len);
	char key[16], *end;

	if (nr_map == MAX_MAP || !eq || eq == s || eq - s >= (long)sizeof(key))
		return;
	memcpy(key, s, eq - s);
	key[eq - s] = '\0';
	m->key = (uint32_t)strtoul(key, &end, 16);
	if (*end || len - (eq - s) - 1 >= sizeof(m->spec))
		return;
	m->wide = strlen(key) > 2;
	memcpy(m->spec, eq + 1, len - (eq - s) - 1);
	m->spec[len - (eq - s) - 1] = '\0';
	nr_map++;
}

static void
parse_map(const char *s)
{
	int slashes = 0;
	const char *start = s;

	for (;; s++) {
		if (*s == '/')
			slashes++;
		if (*s == '\0' || (*s == ',' && slashes % 2 == 0)) {
			if (s > start)
				add_entry(start, s - start);
			if (*s == '\0')
				return;
			start = s + 1;
		}
	}
}

static void
init(void)
{
	struct pctr_machine m = { .size = sizeof(m) };
	const char *env = secure_getenv("PCTR_BSD_EVENTS");
	const char *t = secure_getenv("PCTR_BSD_TARGET");

	if (pctr_machine_get(&m) == 0)
		has_pmu = m.has_pmu;
	if (env)
		parse_map(env);
	if (t && !strcmp(t, "thread"))
		target = PCTR_TARGET_THREAD;
}

bool
pctr_bsd_have_counters(void)
{
	pthread_once(&once, init);
	return has_pmu || nr_map > 0;
}

bool
pctr_bsd_target_thread(void)
{
	pthread_once(&once, init);
	return target == PCTR_TARGET_THREAD;
}

static const struct map *
lookup(uint32_t fn)
{
	for (int i = 0; i < nr_map; i++)
		if (map[i].wide && map[i].key == (fn & 0xffff))
			return &map[i];
	for (int i = 0; i < nr_map; i++)
		if (!map[i].wide && map[i].key == (fn & 0xff))
			return &map[i];
	return NULL;
}

/* the parts a named event or a PMUv3 event number cannot carry */
#define FN_X86_ONLY (PCTR_FN_EDGE | PCTR_FN_INV | 0xff000000u)

static int
named_event(const char *spec, uint32_t fn, struct pctr_event *ev)
{
	int r;

	if (fn & FN_X86_ONLY)
		return -EINVAL;
	ev->size = sizeof(*ev);
	r = pctr_event_parse(spec, ev);
	if (r < 0)
		return r;
	ev->flags &= ~(PCTR_EVENT_EXCLUDE_USER | PCTR_EVENT_EXCLUDE_KERNEL);
	ev->flags |= (fn & PCTR_FN_USR ? 0 : PCTR_EVENT_EXCLUDE_USER) |
		     (fn & PCTR_FN_OS ? 0 : PCTR_EVENT_EXCLUDE_KERNEL);
	return ev->hardware && !has_pmu ? -ENODEV : 0;
}

int
pctr_bsd_fn_event(uint32_t fn, struct pctr_event *ev)
{
	const struct map *m;
	char raw[16];

	pthread_once(&once, init);
	ev->size = sizeof(*ev);
	if (fn & PCTR_FN_RESERVED)
		return -EINVAL;
	if (!(fn & (PCTR_FN_USR | PCTR_FN_OS)))
		return 1;
	m = lookup(fn);
	if (m)
		return named_event(m->spec, fn, ev);
	if (!has_pmu)
		return -ENODEV;
	if (!PCTR_ARCH_BSD_EVENT_MASK)
		return pctr_event_from_x86(fn, ev);
	snprintf(raw, sizeof(raw), "r%x", fn & PCTR_ARCH_BSD_EVENT_MASK);
	return named_event(raw, fn, ev);
}

int
pctr_bsd_counter_open(const struct pctr_event *ev, bool enable,
		      struct pctr_set **setp)
{
	struct pctr_target t = { .type = target };
	struct pctr_set *set;
	int r;

	pthread_once(&once, init);
	r = pctr_set_new(&set, 0);
	if (r < 0)
		return r;
	r = pctr_set_add_event(set, ev);
	if (r >= 0)
		r = pctr_set_open(set, &t);
	if (r >= 0 && enable)
		r = pctr_set_enable(set);
	if (r < 0) {
		pctr_set_free(set);
		return r;
	}
	*setp = set;
	return 0;
}

int
pctr_bsd_errno(int err)
{
	if (err >= 0)
		return 0;
	/* an event the PMU does not have is a bad function to the driver */
	return err == -ENOENT ? EINVAL : -err;
}
