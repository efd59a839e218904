/* SPDX-License-Identifier: MIT */
/*
 * test_sysfs.c - the kernel's format descriptions, written by the test
 * into a temporary tree: bit ranges spread over several fields, values
 * that do not fit, missing files.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <pctr.h>

#include "test.h"

static char root[64];

static void
put(const char *rel, const char *text)
{
	test_put_file(root, rel, text);
}

#define PMU "bus/event_source/devices/cpu/"

static void
make_machine(void)
{
	strcpy(root, "/tmp/pctr-sysfs-XXXXXX");
	ASSERT(mkdtemp(root));
	put(PMU "type", "4");
	put(PMU "format/event", "config:0-7,32-35");
	put(PMU "format/umask", "config:8-15");
	put(PMU "format/split", "config1:0-3,8-11,60-63");
	put(PMU "format/flag", "config2:5");
	put(PMU "format/broken", "config4:0-7");
	put(PMU "format/late", "config3:0-3,60-63");
	put(PMU "format/backwards", "config:9-2");
	put(PMU "events/big", "event=0xabc");
	put(PMU "events/loop", "loop");
	setenv("PCTR_SYSFS_ROOT", root, 1);
}

static void
cleanup(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ASSERT_EQ(system(cmd), 0);
}

TEST(split_bit_ranges)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	make_machine();
	/* 12-bit event: low 8 bits to 0-7, next 4 to 32-35 */
	ASSERT_OK(pctr_event_parse("cpu/event=0xabc,umask=0x12/", &ev));
	ASSERT_HEX_EQ(ev.config, 0xa000012bcull);
	ASSERT_OK(pctr_event_parse("cpu/split=0xfed/", &ev));
	/* nibbles go to bits 0-3, 8-11 and 60-63 */
	ASSERT_HEX_EQ(ev.config1, 0xf000000000000e0dull);
	ASSERT_EQ(pctr_event_parse("cpu/split=0x1fed/", &ev), -EINVAL);
	ASSERT_OK(pctr_event_parse("cpu/flag/", &ev));
	ASSERT_HEX_EQ(ev.config2, 0x20);
	ASSERT_OK(pctr_event_parse("cpu/big/", &ev));
	ASSERT_HEX_EQ(ev.config, 0xa000000bcull);
	/* config3 (kernel 6.3) is a field of the event like the others */
	ASSERT_OK(pctr_event_parse("cpu/late=0x5a/", &ev));
	ASSERT_HEX_EQ(ev.config3, 0x500000000000000aull);
	ASSERT_HEX_EQ(ev.config, 0);
	cleanup();
}

TEST(values_that_do_not_fit)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	make_machine();
	ASSERT_EQ(pctr_event_parse("cpu/umask=0x100/", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "too large for 'umask' (8 bits)");
	ASSERT_EQ(pctr_event_parse("cpu/event=0x1000/", &ev), -EINVAL);
	ASSERT_EQ(pctr_event_parse("cpu/broken=1/", &ev), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "unknown format");
	ASSERT_EQ(pctr_event_parse("cpu/backwards=1/", &ev), -EINVAL);
	ASSERT_EQ(pctr_event_parse("cpu/umask=-1/", &ev), -EINVAL);
	cleanup();
}

TEST(missing_and_recursive_terms)
{
	struct pctr_event ev = { .size = sizeof(ev) };

	make_machine();
	ASSERT_EQ(pctr_event_parse("cpu/nothing/", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "no format term or event "
						"named 'nothing'");
	/* an event file naming itself must not recurse forever */
	ASSERT_EQ(pctr_event_parse("cpu/loop/", &ev), -ENOENT);
	ASSERT_EQ(pctr_event_parse("gpu/event=1/", &ev), -ENOENT);
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "no PMU named 'gpu'");
	ASSERT_EQ(pctr_event_parse("../cpu/event=1/", &ev), -ENOENT);
	cleanup();
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(split_bit_ranges)
			       TEST_CASE(values_that_do_not_fit)
			       TEST_CASE(missing_and_recursive_terms)));
}
