/* SPDX-License-Identifier: MIT */
/*
 * test_x86_fn.c - x86 encodings checked on any host: the seeds' counter
 * function decoded into perf_event_attr, and libpfm4 tables forced with
 * LIBPFM_FORCE_PMU (the real CPU does not matter).
 */
#include <errno.h>
#include <stdlib.h>
#include <pctr.h>
#include <linux/perf_event.h>

#include "test.h"

/* an exclusion flag of an event, as 0 or 1 */
#define EXCL(ev, what) (!!((ev).flags & PCTR_EVENT_EXCLUDE_##what))

struct fn_row {
	int line;
	uint32_t fn;
	int err;
	uint64_t config;
	int eu, ek;
};

#define R(...) { __LINE__, __VA_ARGS__ }

static const struct fn_row fn_rows[] = {
	/* event 0xc0, user+kernel+enable */
	R(0x004300c0, 0, 0xc0, 0, 0),
	/* user only; unit mask MESI (0x0f) */
	R(0x00410f2e, 0, 0x0f2e, 0, 1),
	/* kernel only, edge detect */
	R(0x00460079, 0, 0x040079, 1, 0),
	/* counter mask 2, invert */
	R(0x02c300a2, 0, 0x028000a2, 0, 0),
	/* every field at once */
	R(0xffc7ffff, 0, 0xff84ffff, 0, 0),
	/* without the enable bit it still decodes: perf enables by itself */
	R(0x000300c0, 0, 0xc0, 0, 0),
	/* reserved: pin control (19), APIC interrupt (20), any thread (21) */
	R(0x004b00c0, -EINVAL, 0, 0, 0),
	R(0x005300c0, -EINVAL, 0, 0, 0),
	R(0x006300c0, -EINVAL, 0, 0, 0),
	/* neither user nor kernel: counts nothing */
	R(0x004000c0, -EINVAL, 0, 0, 0),
	R(0x00000000, -EINVAL, 0, 0, 0),
};

TEST(counter_function_decoding)
{
	for (size_t i = 0; i < sizeof(fn_rows) / sizeof(fn_rows[0]); i++) {
		const struct fn_row *w = &fn_rows[i];
		struct pctr_event ev = { .size = sizeof(ev) };
		int r = pctr_event_from_x86(w->fn, &ev);

		if (r != w->err)
			TEST_FAIL("line %d: fn %#x gave %d, expected %d", w->line,
				  w->fn, r, w->err);
		if (r)
			continue;
		if (ev.type != PERF_TYPE_RAW || ev.config != w->config ||
		    EXCL(ev, USER) != w->eu ||
		    EXCL(ev, KERNEL) != w->ek || !EXCL(ev, HV))
			TEST_FAIL("line %d: fn %#x gave config %#llx u%d k%d",
				  w->line, w->fn,
				  (unsigned long long)ev.config,
				  EXCL(ev, USER), EXCL(ev, KERNEL));
	}
}

TEST(reserved_bits_are_explained)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	ASSERT_EQ(pctr_event_from_x86(0x004b00c0, &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "reserved");
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "0x00080000");
	ASSERT_EQ(pctr_event_from_x86(0x004000c0, &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "counts nothing");
	ASSERT_EQ(pctr_event_from_x86(0x4300c0, NULL), -EINVAL);
}

struct pfm_row {
	int line;
	const char *pmu, *spec;
	int err;
	uint64_t config;
	int eu, ek;
	const char *name_prefix;
};

static const struct pfm_row pfm_rows[] = {
	R("skl", "INST_RETIRED.ANY_P", 0, 0xc0, 0, 0, "skl::INST_RETIRED:ANY_P"),
	R("skl", "INST_RETIRED:ANY_P:u", 0, 0xc0, 0, 1, "skl::INST_RETIRED"),
	R("skl", "skl::BR_MISP_RETIRED.ALL_BRANCHES:k", 0, 0xc5, 1, 0,
	  "skl::BR_MISP_RETIRED:ALL_BRANCHES"),
	R("skl", "UOPS_ISSUED.ANY:c=1:i", 0, 0x0180010e, 0, 0,
	  "skl::UOPS_ISSUED:ANY"),
	R("skl", "INST_RETIRED.NO_SUCH_UMASK", -EINVAL, 0, 0, 0, NULL),
	R("skl", "NO_SUCH_EVENT_AT_ALL", -ENOENT, 0, 0, 0, NULL),
	R("amd64_fam19h_zen4", "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u", 0,
	  0xc0, 0, 1, "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS"),
	R("amd64_fam19h_zen4", "RETIRED_BRANCH_INSTRUCTIONS", 0, 0xc2, 0, 0,
	  "amd64_fam19h_zen4::RETIRED_BRANCH_INSTRUCTIONS"),
};

static void
check_pfm(const char *pmu)
{
	setenv("LIBPFM_FORCE_PMU", pmu, 1);
	for (size_t i = 0; i < sizeof(pfm_rows) / sizeof(pfm_rows[0]); i++) {
		const struct pfm_row *w = &pfm_rows[i];
		struct pctr_event ev = { .size = sizeof(ev) };
		int r;

		if (strcmp(w->pmu, pmu))
			continue;
		r = pctr_event_parse(w->spec, &ev);
		if (r != w->err)
			TEST_FAIL("line %d: '%s' gave %d (%s), expected %d",
				  w->line, w->spec, r, pctr_strerror(r), w->err);
		if (r)
			continue;
		if (ev.type != PERF_TYPE_RAW ||
		    (ev.config & 0xffffffff) != w->config ||
		    EXCL(ev, USER) != w->eu ||
		    EXCL(ev, KERNEL) != w->ek ||
		    strncmp(ev.name, w->name_prefix, strlen(w->name_prefix)))
			TEST_FAIL("line %d: '%s' gave type %u config %#llx u%d "
				  "k%d name '%s'",
				  w->line, w->spec, ev.type,
				  (unsigned long long)ev.config,
				  EXCL(ev, USER), EXCL(ev, KERNEL),
				  ev.name);
		/* the canonical name parses to the same attributes */
		struct pctr_event again = { .size = sizeof(again) };
		ASSERT_OK(pctr_event_parse(ev.name, &again));
		ASSERT_HEX_EQ(again.config, ev.config);
	}
}

TEST(libpfm_intel_skylake_forced)
{
	check_pfm("skl");
}

TEST(libpfm_amd_zen4_forced)
{
	check_pfm("amd64_fam19h_zen4");
}

/* everything libpfm4's encoder sets reaches the event, or is refused */
TEST(libpfm_fields_kept)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	setenv("LIBPFM_FORCE_PMU", "skl", 1);
	/* libpfm4 excludes the guest unless told otherwise (mg=0, mh=1) */
	ASSERT_OK(pctr_event_parse("INST_RETIRED.ANY_P", &ev));
	ASSERT_EQ(EXCL(ev, GUEST), 1);
	ASSERT_EQ(EXCL(ev, HOST), 0);
	/* mg alone: the guest only (libpfm4 reads mh's presence, not value) */
	ASSERT_OK(pctr_event_parse("INST_RETIRED:ANY_P:mg=1", &ev));
	ASSERT_EQ(EXCL(ev, GUEST), 0);
	ASSERT_EQ(EXCL(ev, HOST), 1);
	ASSERT_OK(pctr_event_parse("INST_RETIRED:ANY_P:mg=1:mh=1", &ev));
	ASSERT_EQ(EXCL(ev, GUEST), 0);
	ASSERT_EQ(EXCL(ev, HOST), 0);
	ASSERT_OK(pctr_event_parse("INST_RETIRED:ANY_P:excl=1", &ev));
	ASSERT_HEX_EQ(ev.flags & PCTR_EVENT_EXCLUSIVE, PCTR_EVENT_EXCLUSIVE);
	ASSERT_OK(pctr_event_parse("INST_RETIRED:PREC_DIST:precise=2", &ev));
	ASSERT_EQ(ev.precise, 2);
	/* a sampling period is not part of an event: said, not dropped */
	ASSERT_EQ(pctr_event_parse("INST_RETIRED:ANY_P:period=1000", &ev),
		  -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "pctr_set_sampling()");
	ASSERT_EQ(pctr_event_parse("INST_RETIRED:ANY_P:freq=100", &ev),
		  -EINVAL);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(counter_function_decoding)
			       TEST_CASE(reserved_bits_are_explained)
			       TEST_CASE(libpfm_intel_skylake_forced)
			       TEST_CASE(libpfm_amd_zen4_forced)
			       TEST_CASE(libpfm_fields_kept)));
}
