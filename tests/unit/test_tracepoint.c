/* SPDX-License-Identifier: MIT */
/*
 * test_tracepoint.c - tracepoints by name, "subsystem:name", from fixture
 * tracefs trees (tests/unit/fixtures/tracefs, debugtracing): the id, the
 * modifiers, the canonical name, the listing, and what is said when
 * tracefs is not there.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <pctr.h>
#include <linux/perf_event.h>

#include "test.h"

/* an exclusion flag of an event, as 0 or 1 */
#define EXCL(ev, what) (!!((ev).flags & PCTR_EVENT_EXCLUDE_##what))

static void
use_fixture(const char *name)
{
	const char *dir = getenv("PCTR_FIXTURES");
	char root[512];

	if (!dir)
		SKIP("$PCTR_FIXTURES is not set (run through meson test)");
	snprintf(root, sizeof(root), "%s/%s", dir, name);
	setenv("PCTR_SYSFS_ROOT", root, 1);
}

TEST(id_and_canonical_name)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	struct pctr_event again = { .size = sizeof(again) };

	use_fixture("tracefs");
	ASSERT_OK(pctr_event_parse("sched:sched_switch", &ev));
	ASSERT_EQ(ev.type, PERF_TYPE_TRACEPOINT);
	ASSERT_EQ(ev.config, 316);
	ASSERT_EQ(ev.hardware, 0);
	ASSERT_STR_EQ(ev.name, "sched:sched_switch");
	/* no modifier: kernel and user both, never a user-only fallback */
	ASSERT_EQ(EXCL(ev, KERNEL), 0);
	ASSERT_EQ(EXCL(ev, USER), 0);
	ASSERT_EQ(EXCL(ev, HV), 1);
	ASSERT_OK(pctr_event_parse(ev.name, &again));
	ASSERT_EQ(again.config, ev.config);
	ASSERT_OK(pctr_event_parse("syscalls:sys_enter_getpid", &ev));
	ASSERT_EQ(ev.config, 1234);
}

TEST(modifiers)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_fixture("tracefs");
	ASSERT_OK(pctr_event_parse("sched:sched_wakeup:k", &ev));
	ASSERT_EQ(ev.config, 318);
	ASSERT_EQ(EXCL(ev, KERNEL), 0);
	ASSERT_EQ(EXCL(ev, USER), 1);
	ASSERT_STR_EQ(ev.name, "sched:sched_wakeup:k");
	ASSERT_OK(pctr_event_parse("sched:sched_wakeup:u", &ev));
	ASSERT_EQ(EXCL(ev, KERNEL), 1);
	ASSERT_EQ(pctr_event_parse("sched:sched_wakeup:z", &ev), -EINVAL);
}

TEST(not_tracepoints)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_fixture("tracefs");
	/* a directory without an id, a file, a name that is not a word */
	ASSERT_EQ(pctr_event_parse("sched:enable_dir_without_id", &ev),
		  -ENOENT);
	ASSERT_EQ(pctr_event_parse("sched:enable", &ev), -ENOENT);
	ASSERT_EQ(pctr_event_parse("sched:no_such", &ev), -ENOENT);
	ASSERT_EQ(pctr_event_parse("sched:..", &ev), -ENOENT);
	/* tracefs is there: the message says the tracepoint is not */
	ASSERT(strstr(pctr_strerror(pctr_event_parse("sched:sched_swtich",
						     &ev)),
		      "no such tracepoint"));
	/* ordinary names still win */
	ASSERT_OK(pctr_event_parse("task-clock:u", &ev));
	ASSERT_EQ(ev.type, PERF_TYPE_SOFTWARE);
}

TEST(debugfs_place)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_fixture("debugtracing");
	ASSERT_OK(pctr_event_parse("irq:irq_handler_entry", &ev));
	ASSERT_EQ(ev.config, 42);
	ASSERT_STR_EQ(ev.name, "irq:irq_handler_entry");
}

TEST(not_mounted_is_explained)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	int r;

	use_fixture("nopmu");
	r = pctr_event_parse("sched:sched_switch", &ev);
	ASSERT_EQ(r, -ENOENT);
	ASSERT(strstr(pctr_strerror(r), "tracefs is not mounted"));
	ASSERT(!strstr(pctr_strerror(r), "PMU"));
}

struct seen {
	int nr;
	char names[16][PCTR_NAME_MAX];
};

static int
collect(const struct pctr_event_info *info, void *arg)
{
	struct seen *s = arg;

	if (strcmp(info->source, "tracepoint"))
		return 0;
	if (s->nr < 16)
		snprintf(s->names[s->nr++], PCTR_NAME_MAX, "%s", info->name);
	return 0;
}

TEST(listed_sorted)
{
	struct seen s = { 0 };

	use_fixture("tracefs");
	ASSERT_OK(pctr_event_list(collect, &s));
	ASSERT_EQ(s.nr, 3);
	ASSERT_STR_EQ(s.names[0], "sched:sched_switch");
	ASSERT_STR_EQ(s.names[1], "sched:sched_wakeup");
	ASSERT_STR_EQ(s.names[2], "syscalls:sys_enter_getpid");
	memset(&s, 0, sizeof(s));
	use_fixture("nopmu");
	ASSERT_OK(pctr_event_list(collect, &s));
	ASSERT_EQ(s.nr, 0);
}

/* a list's events, as pctr_event_parse_list() hands them over */
struct got {
	int nr;
	struct pctr_event ev[8];
	int group[8];
};

static int
take(const struct pctr_event *ev, int group, void *arg)
{
	struct got *g = arg;

	if (g->nr < 8) {
		g->ev[g->nr] = *ev;
		g->group[g->nr] = group;
	}
	g->nr++;
	return 0;
}

/* perf's "sched:*": each tracepoint that matches, in tracefs's order */
TEST(globs_expand)
{
	struct got g = { 0 };
	int r;

	use_fixture("tracefs");
	ASSERT_EQ(pctr_event_parse_list("cs,sched:*", take, &g), 3);
	ASSERT_STR_EQ(g.ev[1].name, "sched:sched_switch");
	ASSERT_STR_EQ(g.ev[2].name, "sched:sched_wakeup");
	ASSERT_EQ(g.ev[2].config, 318);
	memset(&g, 0, sizeof(g));
	ASSERT_EQ(pctr_event_parse_list("{*:sys_enter_*:u,sched:sched_s?itch}",
					take, &g), 2);
	ASSERT_STR_EQ(g.ev[0].name, "syscalls:sys_enter_getpid:u");
	ASSERT_EQ(EXCL(g.ev[0], KERNEL), 1);
	ASSERT_EQ(g.group[0], 1);
	ASSERT_EQ(g.group[1], 1);
	memset(&g, 0, sizeof(g));
	r = pctr_event_parse_list("cs,sched:nothing_*", take, &g);
	ASSERT_EQ(r, -ENOENT);
	ASSERT(strstr(pctr_strerror(r), "no tracepoint matches "
					"'sched:nothing_*'"));
	ASSERT_EQ(g.nr, 0);
	use_fixture("nopmu");
	r = pctr_event_parse_list("sched:*", take, &g);
	ASSERT_EQ(r, -ENOENT);
	ASSERT(strstr(pctr_strerror(r), "tracefs is not mounted"));
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(id_and_canonical_name)
			       TEST_CASE(modifiers) TEST_CASE(not_tracepoints)
			       TEST_CASE(debugfs_place)
			       TEST_CASE(not_mounted_is_explained)
			       TEST_CASE(listed_sorted)
			       TEST_CASE(globs_expand)));
}
