/* SPDX-License-Identifier: MIT */
/*
 * test_event.c - every event syntax, parsed against described machines.
 *
 * $PCTR_SYSFS_ROOT points the parser at a fixture tree (fixtures/x86,
 * hybrid, arm64, nopmu) instead of /sys; each test runs in its own process,
 * so each sees the machine it sets.
 */
#include <errno.h>
#include <stdlib.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <pctr.h>

#include "test.h"

/* an exclusion flag of an event, as 0 or 1 */
#define EXCL(ev, what) (!!((ev).flags & PCTR_EVENT_EXCLUDE_##what))

static void
use_machine(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", getenv("PCTR_FIXTURES"), name);
	setenv("PCTR_SYSFS_ROOT", path, 1);
}

struct row {
	int line;
	const char *spec;
	int err;
	uint32_t type;
	uint64_t config, config1;
	int eu, ek, eh; /* exclude_user, exclude_kernel, exclude_hv */
	const char *name;
};

#define R(...) { __LINE__, __VA_ARGS__ }

static const struct row x86_rows[] = {
	R("cycles", 0, 0, 0, 0, 0, 0, 0, "cycles"),
	R("cpu-cycles:u", 0, 0, 0, 0, 0, 1, 1, "cpu-cycles:u"),
	R("instructions:k", 0, 0, 1, 0, 1, 0, 1, "instructions:k"),
	R("instructions:uk", 0, 0, 1, 0, 0, 0, 1, "instructions:uk"),
	R("branch-misses", 0, 0, 5, 0, 0, 0, 0, "branch-misses"),
	R("branches", 0, 0, 4, 0, 0, 0, 0, "branches"),
	R("cache-references", 0, 0, 2, 0, 0, 0, 0, "cache-references"),
	R("cache-misses", 0, 0, 3, 0, 0, 0, 0, "cache-misses"),
	R("ref-cycles", 0, 0, 9, 0, 0, 0, 0, "ref-cycles"),
	R("stalled-cycles-frontend", 0, 0, 7, 0, 0, 0, 0,
	  "stalled-cycles-frontend"),
	R("stalled-cycles-backend", 0, 0, 8, 0, 0, 0, 0,
	  "stalled-cycles-backend"),
	R("CYCLES", 0, 0, 0, 0, 0, 0, 0, "cycles"),
	R("task-clock", 0, 1, 1, 0, 0, 0, 0, "task-clock"),
	R("cpu-clock", 0, 1, 0, 0, 0, 0, 0, "cpu-clock"),
	R("page-faults", 0, 1, 2, 0, 0, 0, 0, "page-faults"),
	R("faults", 0, 1, 2, 0, 0, 0, 0, "faults"),
	R("minor-faults", 0, 1, 5, 0, 0, 0, 0, "minor-faults"),
	R("major-faults", 0, 1, 6, 0, 0, 0, 0, "major-faults"),
	R("context-switches", 0, 1, 3, 0, 0, 0, 0, "context-switches"),
	R("cs", 0, 1, 3, 0, 0, 0, 0, "cs"),
	R("cpu-migrations", 0, 1, 4, 0, 0, 0, 0, "cpu-migrations"),
	R("alignment-faults", 0, 1, 7, 0, 0, 0, 0, "alignment-faults"),
	R("emulation-faults", 0, 1, 8, 0, 0, 0, 0, "emulation-faults"),
	/* the kernel's names, not libpfm4's PERF_COUNT_SW_* strings */
	R("cgroup-switches", 0, 1, 11, 0, 0, 0, 0, "cgroup-switches"),
	R("bpf-output", 0, 1, 10, 0, 0, 0, 0, "bpf-output"),
	/* cache family: id | op << 8 | result << 16 */
	R("L1-dcache-load-misses", 0, 3, 0x10000, 0, 0, 0, 0,
	  "L1-dcache-load-misses"),
	R("L1-dcache-loads", 0, 3, 0x00000, 0, 0, 0, 0, "L1-dcache-loads"),
	R("L1-dcache-stores", 0, 3, 0x00100, 0, 0, 0, 0, "L1-dcache-stores"),
	R("L1-icache-load-misses", 0, 3, 0x10001, 0, 0, 0, 0,
	  "L1-icache-load-misses"),
	R("LLC-prefetch-misses", 0, 3, 0x10202, 0, 0, 0, 0,
	  "LLC-prefetch-misses"),
	R("dTLB-load-misses:u", 0, 3, 0x10003, 0, 0, 1, 1,
	  "dTLB-load-misses:u"),
	R("iTLB-loads", 0, 3, 0x00004, 0, 0, 0, 0, "iTLB-loads"),
	R("branch-load-misses", 0, 3, 0x10005, 0, 0, 0, 0,
	  "branch-load-misses"),
	R("node-stores", 0, 3, 0x00106, 0, 0, 0, 0, "node-stores"),
	/* raw */
	R("r1c0", 0, 4, 0x1c0, 0, 0, 0, 0, "r1c0"),
	R("r01C0:u", 0, 4, 0x1c0, 0, 0, 1, 1, "r01C0:u"), /* as typed */
	R("rffffffffffffffff", 0, 4, ~0ull, 0, 0, 0, 0, "rffffffffffffffff"),
	/* sysfs syntax, formats from the fixture */
	R("cpu/event=0xc0,umask=0x1,cmask=2,inv,edge/u", 0, 4, 0x028401c0, 0,
	  0, 1, 1, "cpu/event=0xc0,umask=0x1,cmask=2,inv,edge/u"),
	R("cpu/event=0x3c/", 0, 4, 0x3c, 0, 0, 0, 0, "cpu/event=0x3c/"),
	R("cpu/cpu-cycles/k", 0, 4, 0x3c, 0, 1, 0, 1, "cpu/cpu-cycles/k"),
	R("cpu/ref-cycles/", 0, 4, 0x0300, 0, 0, 0, 0, "cpu/ref-cycles/"),
	R("cpu/mem-loads/", 0, 4, 0xcd | 0x100, 3, 0, 0, 0, "cpu/mem-loads/"),
	R("cpu/config=0x1234,config1=5/", 0, 4, 0x1234, 5, 0, 0, 0,
	  "cpu/config=0x1234,config1=5/"),
	/* perf's name= term: the row's name; the first of two kept */
	R("cpu/event=0x3c,name=cyc/u", 0, 4, 0x3c, 0, 0, 1, 1,
	  "cpu/event=0x3c,name=cyc/u"),
	R("cpu/name=a_1.b-c!,event=0x3c,name=z/", 0, 4, 0x3c, 0, 0, 0, 0,
	  "cpu/name=a_1.b-c!,event=0x3c,name=z/"),
	R("task-clock/name=tc/u", 0, 1, 1, 0, 0, 1, 1, "task-clock/name=tc/u"),
	R("cycles/name=cy/", 0, 0, 0, 0, 0, 0, 0, "cycles/name=cy/"),
	R("task-clock/period=10/", 0, 1, 1, 0, 0, 0, 0, "task-clock/period=10/"),
	R("cpu/event=0x3c,freq=99/", 0, 4, 0x3c, 0, 0, 0, 0,
	  "cpu/event=0x3c,freq=99/"),
	R("task-clock/period=0/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("task-clock/freq=x/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("task-clock/period/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("task-clock/config=1/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("task-clock/name=tc/x", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=0x3c,name=/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=0x3c,name/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=0x3c,name=9a/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=0x3c,name=a:b/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=300/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/nosuch=1/", -ENOENT, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=0xzz/", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=1/x", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("nopmu/event=1/", -ENOENT, 0, 0, 0, 0, 0, 0, NULL),
	R("cpu/event=1", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("msr/tsc/", 0, 9, 0, 0, 0, 0, 0, "msr/tsc/"),
	R("msr/aperf/", 0, 9, 1, 0, 0, 0, 0, "msr/aperf/"),
	/* a bare sysfs event of the core PMU */
	R("topdown-retiring", 0, 4, 0x8000, 0, 0, 0, 0,
	  "cpu/topdown-retiring/"),
	/* the seeds' counter function */
	R("fn:0x4300c0", 0, 4, 0xc0, 0, 0, 0, 1, "fn:0x4300c0"),
	R("fn:0x1c10079", 0, 4, 0x1800079, 0, 0, 1, 1, "fn:0x1c10079"),
	R("fn:0x4200c0", 0, 4, 0xc0, 0, 1, 0, 1, "fn:0x4200c0"),
	R("fn:0x4000c0", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("fn:0x4b00c0", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("fn:xyz", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("fn:0x123456789", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	/* modifiers and mistakes */
	R("cycles:x", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cycles:pppp", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("   ", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	/* perf's breakpoints: type 5, the address in config1 (bp_addr) */
	R("mem:0x1000", 0, 5, 0, 0x1000, 0, 0, 0, "mem:0x1000/4:rw"),
	R("mem:4096/8:w", 0, 5, 0, 0x1000, 0, 0, 0, "mem:0x1000/8:w"),
	R("mem:0x10:x", 0, 5, 0, 0x10, 0, 0, 0, "mem:0x10/8:x"),
	R("mem:0x10/1:r", 0, 5, 0, 0x10, 0, 0, 0, "mem:0x10/1:r"),
	R("mem:", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:zz", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:-1", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:0x10:rx", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:0x10:ww", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:0x10:", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:0x10/3", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("mem:0x10/8x", -EINVAL, 0, 0, 0, 0, 0, 0, NULL),
	R("cyclez", -ENOENT, 0, 0, 0, 0, 0, 0, NULL),
	R("L1-dcache-frobs", -ENOENT, 0, 0, 0, 0, 0, 0, NULL),
	R("rxyz", -ENOENT, 0, 0, 0, 0, 0, 0, NULL),
};

static void
check_rows(const struct row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *w = &rows[i];
		struct pctr_event ev = { .size = sizeof(ev) };
		int r = pctr_event_parse(w->spec, &ev);

		if (r != w->err)
			TEST_FAIL("line %d: '%s' gave %d (%s), expected %d",
				  w->line, w->spec, r, pctr_strerror(r), w->err);
		if (r)
			continue;
		if (ev.type != w->type || ev.config != w->config ||
		    ev.config1 != w->config1 ||
		    EXCL(ev, USER) != w->eu ||
		    EXCL(ev, KERNEL) != w->ek ||
		    EXCL(ev, HV) != w->eh || strcmp(ev.name, w->name))
			TEST_FAIL("line %d: '%s' gave type %u config %#llx "
				  "config1 %#llx excl u%d k%d h%d name '%s'",
				  w->line, w->spec, ev.type,
				  (unsigned long long)ev.config,
				  (unsigned long long)ev.config1,
				  EXCL(ev, USER), EXCL(ev, KERNEL),
				  EXCL(ev, HV), ev.name);
	}
}

TEST(x86_syntaxes)
{
	use_machine("x86");
	check_rows(x86_rows, sizeof(x86_rows) / sizeof(x86_rows[0]));
}

/* every canonical name parses back to the same attributes */
TEST(canonical_names_round_trip)
{
	use_machine("x86");
	for (size_t i = 0; i < sizeof(x86_rows) / sizeof(x86_rows[0]); i++) {
		struct pctr_event a = { .size = sizeof(a) };
		struct pctr_event b = { .size = sizeof(b) };
		char name[PCTR_NAME_MAX];

		if (x86_rows[i].err)
			continue;
		ASSERT_OK(pctr_event_parse(x86_rows[i].spec, &a));
		ASSERT_OK(pctr_event_parse(a.name, &b));
		/* every field but the name: the struct has no padding */
		memcpy(name, a.name, sizeof(name));
		memset(a.name, 0, sizeof(a.name));
		memset(b.name, 0, sizeof(b.name));
		if (memcmp(&a, &b, sizeof(a)))
			TEST_FAIL("line %d: '%s' -> '%s' differs",
				  x86_rows[i].line, x86_rows[i].spec, name);
	}
}

/* a breakpoint's length and access, and what the kernel is given */
TEST(breakpoints)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	struct perf_event_attr a;

	ASSERT_OK(pctr_event_parse("mem:0x1000", &ev));
	ASSERT_EQ(ev.config2, 4); /* perf's default length */
	ASSERT_EQ(ev.bp_type, HW_BREAKPOINT_RW);
	ASSERT_OK(pctr_event_parse("mem:0x2000/2:w", &ev));
	ASSERT_OK(pctr_event_attr(&ev, &a, sizeof(a)));
	ASSERT_EQ(a.type, PERF_TYPE_BREAKPOINT);
	ASSERT_EQ(a.bp_type, HW_BREAKPOINT_W);
	ASSERT_EQ(a.bp_addr, 0x2000);
	ASSERT_EQ(a.bp_len, 2);
	ASSERT_OK(pctr_event_parse("mem:0x3000:x", &ev));
	ASSERT_EQ(ev.config2, sizeof(long));
	ASSERT_EQ(ev.bp_type, HW_BREAKPOINT_X);
	ASSERT_EQ(pctr_event_parse("mem:0x10:rx", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "the access is r, w, rw or x");
	/* bp_type belongs to breakpoints only */
	ASSERT_OK(pctr_event_parse("task-clock", &ev));
	ev.bp_type = HW_BREAKPOINT_W;
	ASSERT_EQ(pctr_event_attr(&ev, &a, sizeof(a)), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "no breakpoint");
}

TEST(modifiers)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("x86");
	ASSERT_OK(pctr_event_parse("cycles:uppD", &ev));
	ASSERT_EQ(ev.precise, 2);
	ASSERT_EQ(!!(ev.flags & PCTR_EVENT_PINNED), 1);
	ASSERT_EQ(EXCL(ev, KERNEL), 1);
	ASSERT_OK(pctr_event_parse("instructions:H", &ev));
	ASSERT_EQ(EXCL(ev, GUEST), 1);
	ASSERT_EQ(EXCL(ev, KERNEL), 0);
	ASSERT_OK(pctr_event_parse("instructions:G", &ev));
	ASSERT_EQ(EXCL(ev, HOST), 1);
	ASSERT_EQ(pctr_event_parse("cycles:q", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "unknown modifier 'q'");
}

/* the name shown: a name= term's (the first), with a fallback's ":u" */
TEST(display_name_takes_the_name_term)
{
	static const struct {
		const char *spec, *shown, *fallback;
	} rows[] = {
		{ "cpu/event=0x3c,name=cyc/u", "cyc", "cyc:u" },
		{ "cpu/name=a,event=0x3c,name=b/", "a", "a:u" },
		{ "cpu/event=0x3c/", "cpu/event=0x3c/", "cpu/event=0x3c/u" },
		{ "cycles", "cycles", "cycles:u" },
		{ "task-clock/name=tc/", "tc", "tc:u" },
		{ "mem:0x1000/4:rw", "mem:0x1000/4:rw", "mem:0x1000/4:rwu" },
	};
	char buf[PCTR_NAME_MAX];

	use_machine("x86");
	for (size_t i = 0; i < sizeof(rows) / sizeof(*rows); i++) {
		struct pctr_event ev = { .size = sizeof(ev) };

		ASSERT_OK(pctr_event_parse(rows[i].spec, &ev));
		ASSERT_EQ(pctr_event_display_name(&ev, buf, sizeof(buf)),
			  (int)strlen(rows[i].shown));
		ASSERT_STR_EQ(buf, rows[i].shown);
		ev.flags |= PCTR_EVENT_USER_FALLBACK;
		pctr_event_display_name(&ev, buf, sizeof(buf));
		ASSERT_STR_EQ(buf, rows[i].fallback);
	}
	ASSERT_EQ(pctr_event_display_name(NULL, buf, sizeof(buf)), -EINVAL);
}

TEST(unknown_event_suggests)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("x86");
	ASSERT_EQ(pctr_event_parse("instrutions", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "'instrutions'");
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "did you mean 'instructions'");
	ASSERT_EQ(pctr_event_parse("task-clok", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "'task-clock'");
	ASSERT_EQ(pctr_event_parse("zzzzzzzzzzzzzz", &ev), -ENOENT);
	ASSERT(!strstr(pctr_strerror(-ENOENT), "did you mean"));
}

TEST(too_long)
{
	char spec[300];
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("x86");
	memset(spec, 'a', sizeof(spec) - 1);
	spec[sizeof(spec) - 1] = '\0';
	ASSERT_EQ(pctr_event_parse(spec, &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "longer than");
	ASSERT_EQ(pctr_event_parse(NULL, &ev), -EINVAL);
	ASSERT_EQ(pctr_event_parse("cycles", NULL), -EINVAL);
}

TEST(hardware_flag)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("x86");
	ASSERT_OK(pctr_event_parse("cycles", &ev));
	ASSERT_EQ(ev.hardware, 1);
	ASSERT_OK(pctr_event_parse("task-clock", &ev));
	ASSERT_EQ(ev.hardware, 0);
	ASSERT_OK(pctr_event_parse("cpu/event=0xc0/", &ev));
	ASSERT_EQ(ev.hardware, 1);
	ASSERT_OK(pctr_event_parse("msr/tsc/", &ev));
	ASSERT_EQ(ev.hardware, 0);
	ASSERT_EQ(ev.nr_parts, 1);
}

/* a generic event counts on both core types of a hybrid CPU */
TEST(hybrid_generic_events_have_parts)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("hybrid");
	ASSERT_OK(pctr_event_parse("instructions:u", &ev));
	ASSERT_EQ(ev.nr_parts, 2);
	ASSERT_EQ(ev.part_type[0], 10); /* cpu_atom */
	ASSERT_EQ(ev.part_type[1], 4); /* cpu_core */
	ASSERT_OK(pctr_event_parse("L1-dcache-load-misses", &ev));
	ASSERT_EQ(ev.nr_parts, 2);
	ASSERT_OK(pctr_event_parse("task-clock", &ev));
	ASSERT_EQ(ev.nr_parts, 1);
	ASSERT_OK(pctr_event_parse("cpu_atom/event=0xc0/", &ev));
	ASSERT_EQ(ev.nr_parts, 1);
	ASSERT_EQ(ev.type, 10);
	ASSERT_OK(pctr_event_parse("topdown-bad-spec", &ev));
	ASSERT_STR_EQ(ev.name, "cpu_atom/topdown-bad-spec/");
}

TEST(arm64_named_events)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	use_machine("arm64");
	ASSERT_OK(pctr_event_parse("armv8_pmuv3_0/inst_retired/", &ev));
	ASSERT_EQ(ev.type, 8);
	ASSERT_HEX_EQ(ev.config, 0x08);
	ASSERT_OK(pctr_event_parse("armv8_pmuv3_0/inst_retired,long/u", &ev));
	ASSERT_HEX_EQ(ev.config1, 1);
	ASSERT_EQ(EXCL(ev, KERNEL), 1);
	ASSERT_OK(pctr_event_parse("inst_retired:u", &ev));
	ASSERT_STR_EQ(ev.name, "armv8_pmuv3_0/inst_retired/u");
	ASSERT_OK(pctr_event_parse("cpu_cycles", &ev));
	ASSERT_HEX_EQ(ev.config, 0x11);
	ASSERT_EQ(pctr_event_parse("inst_retird", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "inst_retired");
}

TEST(no_pmu_machine)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	struct pctr_machine m = { .size = sizeof(m) };

	use_machine("nopmu");
	ASSERT_OK(pctr_machine_get(&m));
	ASSERT_EQ(m.has_pmu, 0);
	ASSERT_EQ(m.nr_pmus, 0);
	/* generic hardware names still parse: opening them says ENODEV */
	ASSERT_OK(pctr_event_parse("cycles", &ev));
	ASSERT_EQ(pctr_event_parse("cpu/event=0xc0/", &ev), -ENODEV);
	ASSERT_CONTAINS(pctr_strerror(-ENODEV), "no hardware performance "
						"counters");
	ASSERT_EQ(pctr_event_parse("NOT_AN_EVENT", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "no hardware PMU");
	ASSERT_OK(pctr_event_parse("msr/tsc/", &ev));
}

TEST(machine_detection)
{
	struct pctr_machine m = { .size = sizeof(m) };

	use_machine("hybrid");
	ASSERT_OK(pctr_machine_get(&m));
	ASSERT_EQ(m.has_pmu, 1);
	ASSERT_EQ(m.nr_pmus, 2);
	ASSERT_STR_EQ(m.pmu[0], "cpu_atom");
	ASSERT_STR_EQ(m.pmu[1], "cpu_core");
	ASSERT_GT(m.tsc_hz, 0);
	m.size = 0;
	ASSERT_EQ(pctr_machine_get(&m), -EINVAL);
	/* smaller than any version's struct: refused, by name */
	struct {
		size_t size;
		int has_pmu;
	} old = { sizeof(old), -1 };
	ASSERT_EQ(pctr_machine_get((struct pctr_machine *)&old), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "struct pctr_machine");
	ASSERT_EQ(old.has_pmu, -1);
}

struct listing {
	int generic, software, cache, sysfs, total;
	int saw_inst_retired;
};

static int
count_cb(const struct pctr_event_info *info, void *arg)
{
	struct listing *l = arg;

	l->total++;
	l->generic += !strcmp(info->source, "generic");
	l->software += !strcmp(info->source, "software");
	l->cache += !strcmp(info->source, "cache");
	l->sysfs += !strncmp(info->source, "sysfs:", 6);
	l->saw_inst_retired += !strcmp(info->name,
				       "armv8_pmuv3_0/inst_retired/");
	if (!info->name || !info->desc)
		return -1;
	return 0;
}

static int
stop_cb(const struct pctr_event_info *info, void *arg)
{
	(void)info;
	return ++*(int *)arg == 3 ? 42 : 0;
}

TEST(listing)
{
	struct listing l = { 0 };
	int n = 0;

	use_machine("arm64");
	ASSERT_OK(pctr_event_list(count_cb, &l));
	ASSERT_EQ(l.generic, 14);
	ASSERT_EQ(l.software, 15); /* with cgroup-switches and bpf-output */
	ASSERT_EQ(l.cache, 7 * 3 * 2);
	ASSERT_EQ(l.saw_inst_retired, 1);
	ASSERT_GE(l.sysfs, 3);
	ASSERT_EQ(pctr_event_list(stop_cb, &n), 42);
	ASSERT_EQ(n, 3);
	ASSERT_EQ(pctr_event_list(NULL, NULL), -EINVAL);
}

TEST(listing_without_pmu_has_no_generic_hardware)
{
	struct listing l = { 0 };

	use_machine("nopmu");
	ASSERT_OK(pctr_event_list(count_cb, &l));
	ASSERT_EQ(l.generic, 0);
	ASSERT_EQ(l.cache, 0);
	ASSERT_EQ(l.software, 15); /* with cgroup-switches and bpf-output */
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(x86_syntaxes)
			       TEST_CASE(canonical_names_round_trip)
			       TEST_CASE(breakpoints)
			       TEST_CASE(modifiers)
			       TEST_CASE(display_name_takes_the_name_term)
			       TEST_CASE(unknown_event_suggests)
			       TEST_CASE(too_long)
			       TEST_CASE(hardware_flag)
			       TEST_CASE(hybrid_generic_events_have_parts)
			       TEST_CASE(arm64_named_events)
			       TEST_CASE(no_pmu_machine)
			       TEST_CASE(machine_detection)
			       TEST_CASE(listing)
			       TEST_CASE(listing_without_pmu_has_no_generic_hardware)));
}
