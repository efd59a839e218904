/* SPDX-License-Identifier: MIT */
/*
 * event_list.c - lists of events, as perf's -e reads them: items split at
 * commas and blanks outside "pmu/.../", and braces that group events
 * ("{a,b},c": a and b are counted together or not at all).
 *
 * A list parses whole or not at all: pctr_event_parse_list() calls back
 * only once every item has parsed, and pctr_set_add_list() adds nothing
 * from a list with a bad item.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/*
 * Split at commas and blanks that are not inside "pmu/.../".  The slash of
 * a breakpoint's length ("mem:ADDR/LEN") opens nothing.
 */
static const char *
next_item(const char *p, char *item, size_t len)
{
	size_t n = 0;
	int slashes = 0;
	bool mem;

	while (*p == ',' || isspace((unsigned char)*p))
		p++;
	mem = !strncmp(p + (*p == '{'), "mem:", 4);
	for (; *p; p++) {
		if (*p == '/' && !mem)
			slashes++;
		if ((*p == ',' || isspace((unsigned char)*p)) &&
		    slashes % 2 == 0)
			break;
		if (n + 1 < len)
			item[n++] = *p;
	}
	item[n] = '\0';
	return p;
}

/* room for one more event */
static int
grow(struct pctr__event_list *l)
{
	int cap = l->cap ? 2 * l->cap : PCTR_MAX_EVENTS;
	struct pctr_event *ev;
	int *group;

	if (l->nr < l->cap)
		return 0;
	ev = realloc(l->ev, (size_t)cap * sizeof(*ev));
	if (ev)
		l->ev = ev;
	group = ev ? realloc(l->group, (size_t)cap * sizeof(*group)) : NULL;
	if (!group)
		return pctr__error(ENOMEM, "out of memory for %d events", cap);
	l->group = group;
	l->cap = cap;
	return 0;
}

/* one event at the end of the list, in the group open if any */
static int
add_event(struct pctr__event_list *l, const char *spec)
{
	int r = grow(l);

	if (r < 0)
		return r;
	r = pctr__event_parse(spec, &l->ev[l->nr]);
	if (r < 0)
		return r;
	l->group[l->nr++] = l->open >= 0 ? l->nr_groups : 0;
	return 0;
}

struct glob_add {
	struct pctr__event_list *l;
	const char *mods;
};

static int
add_matched(const char *spec, void *arg)
{
	struct glob_add *g = arg;
	char full[PCTR_NAME_MAX + 8];

	snprintf(full, sizeof(full), "%s%s%s", spec, *g->mods ? ":" : "",
		 g->mods);
	return add_event(g->l, full);
}

/*
 * "sched:*", "syscalls:sys_enter_*:u": every tracepoint that matches, in
 * tracefs's order; anything else is one event.
 */
static int
add_item(struct pctr__event_list *l, char *item)
{
	char *name = strchr(item, ':'), *mods;
	struct glob_add g = { l, "" };
	int r;

	if (!name || !strpbrk(item, "*?[") || strchr(item, '/'))
		return add_event(l, item);
	*name++ = '\0';
	mods = strchr(name, ':');
	if (mods)
		*mods++ = '\0';
	g.mods = mods ? mods : "";
	r = pctr__tracepoint_glob(item, name, add_matched, &g);
	return r < 0 ? r : 0;
}

/*
 * A member of "{a,b}:MODS" parsed again with the group's modifiers added
 * to its own, as perf adds them ("{cs:k}:u" counts both levels): "a:MODS",
 * else "a:kMODS" where the name has modifiers already, else "pmu/a/MODS".
 */
static int
reparse_member(struct pctr_event *ev, const char *mods)
{
	static const char *const forms[] = { "%s:%s", "%s%s" };
	char spec[PCTR_NAME_MAX + 8];
	struct pctr_event again;

	for (size_t f = 0; f < PCTR_ARRAY_SIZE(forms); f++) {
		if (snprintf(spec, sizeof(spec), forms[f], ev->name, mods) >=
		    PCTR_NAME_MAX)
			continue;
		if (pctr__event_parse(spec, &again) == 0 &&
		    again.type == ev->type && again.config == ev->config) {
			*ev = again;
			return 0;
		}
	}
	return -ENOENT;
}

/*
 * "{a,b}:u": the group's modifiers on each member, added to the member's
 * own; where its name takes no modifier (a libpfm4 name), the group's
 * replace the member's of the same kind, and the name says them too.
 */
static int
group_modifiers(struct pctr__event_list *l, const char *mods)
{
	for (int i = l->open; i < l->nr; i++) {
		struct pctr_event *ev = &l->ev[i];
		size_t n = strlen(ev->name);
		int r = reparse_member(ev, mods);

		if (r == 0)
			continue;
		r = pctr__event_apply_modifiers(ev, mods);
		if (r < 0)
			return r;
		if (n + strlen(mods) + 2 > sizeof(ev->name))
			return pctr__error(EINVAL, "event '%s' with ':%s' is "
						   "too long", ev->name, mods);
		snprintf(ev->name + n, sizeof(ev->name) - n, ":%s", mods);
	}
	return 0;
}

/*
 * One item, with perf's group braces: "{a" opens a group at this event,
 * "b}" or "b}:mods" closes it (@l->open is the first event of the open
 * group, or -1).
 */
static int
parse_item(struct pctr__event_list *l, char *item)
{
	char *close = strchr(item, '}');
	const char *mods = "";
	int r;

	if (close && close[1] && (close[1] != ':' || !close[2]))
		return pctr__error(EINVAL, "'%s': a group's '}' is followed "
					   "by nothing or ':MODIFIERS'", item);
	if (close) {
		mods = close[1] ? close + 2 : "";
		*close = '\0';
	}
	if (item[0] == '{') {
		if (l->open >= 0)
			return pctr__error(EINVAL, "'{' inside a group: groups "
						   "do not nest");
		l->open = l->nr;
		l->nr_groups++;
		item++;
	}
	if (strlen(item) >= PCTR_NAME_MAX)
		return pctr__error(EINVAL, "event '%.40s...' is too long",
				   item);
	if (!*item)
		return pctr__error(EINVAL, "empty event in a group");
	r = add_item(l, item);
	if (r < 0 || !close)
		return r;
	if (l->open < 0)
		return pctr__error(EINVAL, "'}' without its '{'");
	r = *mods ? group_modifiers(l, mods) : 0;
	l->open = -1;
	return r;
}

int
pctr__event_list_parse(const char *list, struct pctr__event_list *l)
{
	char item[2 * PCTR_NAME_MAX];
	const char *p = list;
	int r = 0;

	*l = (struct pctr__event_list){ .open = -1 };
	if (!list)
		return pctr__error(EINVAL, "NULL event list");
	while (r >= 0 && *(p = next_item(p, item, sizeof(item))))
		r = parse_item(l, item);
	if (r >= 0 && *item)
		r = parse_item(l, item);
	if (r >= 0 && l->open >= 0)
		r = pctr__error(EINVAL, "'{' without its '}'");
	if (r >= 0 && !l->nr)
		r = pctr__error(EINVAL, "empty event list");
	return r < 0 ? r : l->nr;
}

void
pctr__event_list_free(struct pctr__event_list *l)
{
	free(l->ev);
	free(l->group);
	*l = (struct pctr__event_list){ .open = -1 };
}

PCTR_EXPORT int
pctr_event_parse_list(const char *list,
		      int (*cb)(const struct pctr_event *ev, int group,
				void *arg),
		      void *arg)
{
	struct pctr__event_list l;
	int r;

	if (!cb)
		return pctr__error(EINVAL, "NULL callback");
	r = pctr__event_list_parse(list, &l);
	for (int i = 0; r > 0 && i < l.nr; i++) {
		int stop = cb(&l.ev[i], l.group[i], arg);

		if (stop) {
			r = stop;
			break;
		}
	}
	pctr__event_list_free(&l);
	return r;
}

/*
 * What perf prints for an event: its name, or the one a "name=" term gave
 * it, and ":u" ("u" after a sysfs "pmu/.../") where the kernel allowed
 * user mode only (PCTR_EVENT_USER_FALLBACK).
 */
PCTR_EXPORT int
pctr_event_display_name(const struct pctr_event *ev, char *buf, size_t len)
{
	const char *tail = "", *name;
	size_t n;

	if (!ev || (!buf && len))
		return pctr__error(EINVAL, "NULL event or buffer");
	n = strnlen(ev->name, PCTR_NAME_MAX) < PCTR_NAME_MAX
		    ? pctr__term_value(ev->name, "name", &name) /* ",name=N" */
		    : 0;
	if (ev->flags & PCTR_EVENT_USER_FALLBACK)
		tail = strchr(ev->name, '/') && !n ? "u" : ":u";
	if (!n) {
		name = ev->name;
		n = strnlen(ev->name, PCTR_NAME_MAX);
	}
	return snprintf(buf, len, "%.*s%s", (int)n, name, tail);
}
