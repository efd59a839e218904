/* SPDX-License-Identifier: MIT */
/*
 * test_struct.c - the size rule of the public structs (src/struct.c) and
 * pctr_event_attr(), which fills a kernel attr of the caller's size.
 */
#include <errno.h>
#include <linux/perf_event.h>

#include "internal.h"
#include "test.h"

/* a struct of this library's, at version 0 and now */
struct thing {
	size_t size;
	uint64_t a;
	uint64_t b;
};
#define THING_VER0 16 /* size and a */
static const struct pctr__sized thing = { "thing", THING_VER0,
					  sizeof(struct thing) };

/* a caller's struct of @size bytes, then a guard */
struct buf {
	size_t size;
	unsigned char rest[120];
};

static void
buf_init(struct buf *b, size_t size, unsigned char fill)
{
	memset(b, fill, sizeof(*b));
	b->size = size;
}

TEST(smaller_than_version_0)
{
	struct buf b;

	buf_init(&b, THING_VER0 - 1, 0);
	ASSERT_EQ(pctr__struct_check(&thing, &b), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "struct thing: ->size is 15");
	buf_init(&b, 0, 0);
	ASSERT_EQ(pctr__struct_check(&thing, &b), -EINVAL);
	ASSERT_EQ(pctr__struct_check(&thing, NULL), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "NULL struct thing");
}

TEST(equal_sizes)
{
	struct buf b;

	buf_init(&b, THING_VER0, 0xee);
	ASSERT_EQ(pctr__struct_check(&thing, &b), THING_VER0);
	buf_init(&b, sizeof(struct thing), 0xee);
	ASSERT_EQ(pctr__struct_check(&thing, &b), (int)sizeof(struct thing));
}

TEST(larger_with_zeros)
{
	struct buf b;

	buf_init(&b, sizeof(b), 0xee);
	memset((char *)&b + sizeof(struct thing), 0,
	       sizeof(b) - sizeof(struct thing));
	/* what is past the library's struct is zero: copy the library's */
	ASSERT_EQ(pctr__struct_check(&thing, &b), (int)sizeof(struct thing));
}

TEST(larger_with_garbage)
{
	struct buf b;

	buf_init(&b, sizeof(b), 0);
	b.rest[sizeof(b.rest) - 1] = 1;
	ASSERT_EQ(pctr__struct_check(&thing, &b), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), "struct thing: ->size is 128");
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), "not all zero");
	/* a byte past the caller's size is not the caller's: never read */
	buf_init(&b, sizeof(b) - 1, 0);
	b.rest[sizeof(b.rest) - 1] = 1;
	ASSERT_EQ(pctr__struct_check(&thing, &b), (int)sizeof(struct thing));
	/* an unset size, as big as garbage is: refused without reading */
	buf_init(&b, 0x7fff0000, 0);
	ASSERT_EQ(pctr__struct_check(&thing, &b), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), "over 4096 bytes");
}

TEST(no_detail_when_nameless)
{
	const struct pctr__sized quiet = { NULL, THING_VER0,
					   sizeof(struct thing) };
	struct buf b;

	ASSERT_EQ(pctr_event_parse("nosuchevent_xyz",
				   &(struct pctr_event){
					   .size = sizeof(struct pctr_event) }),
		  -ENOENT);
	buf_init(&b, 1, 0);
	ASSERT_EQ(pctr__struct_check(&quiet, &b), -EINVAL);
	/* the text of the earlier failure is left alone */
	ASSERT_CONTAINS(pctr_strerror(-ENOENT), "nosuchevent_xyz");
}

TEST(copy_in_and_out)
{
	struct thing full = { .size = sizeof(full), .a = 7, .b = 9 };
	struct thing in;
	struct buf b;

	/* in: an older caller's fields, the newer ones at zero */
	buf_init(&b, THING_VER0, 0x11);
	ASSERT_OK(pctr__struct_in(&thing, &in, &b));
	ASSERT_UEQ(in.size, sizeof(in));
	ASSERT_HEX_EQ(in.a, 0x1111111111111111ull);
	ASSERT_UEQ(in.b, 0);
	/* out: as much as the caller's size holds, the size it got */
	buf_init(&b, THING_VER0, 0x5a);
	ASSERT_OK(pctr__struct_out(&thing, &b, &full));
	ASSERT_UEQ(b.size, THING_VER0);
	ASSERT_UEQ(((struct thing *)&b)->a, 7);
	for (size_t i = THING_VER0 - sizeof(size_t); i < sizeof(b.rest); i++)
		ASSERT_HEX_EQ(b.rest[i], 0x5a);
	/* a refused struct is not written */
	buf_init(&b, 4, 0x5a);
	ASSERT_EQ(pctr__struct_out(&thing, &b, &full), -EINVAL);
	for (size_t i = 0; i < sizeof(b.rest); i++)
		ASSERT_HEX_EQ(b.rest[i], 0x5a);
}

/* ---- pctr_event_attr() ---------------------------------------------- */

/* a kernel attr of 6.3's size and more, to see what is filled */
union attr_buf {
	struct perf_event_attr a;
	unsigned char raw[256];
};

TEST(event_attr_fields)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	union attr_buf u;
	uint64_t c3;

	ASSERT_OK(pctr_event_parse("cycles:uppD", &ev));
	ev.config1 = 0x11;
	ev.config2 = 0x22;
	ev.config3 = 0x33;
	ev.flags |= PCTR_EVENT_EXCLUDE_IDLE | PCTR_EVENT_EXCLUSIVE;
	memset(&u, 0xa5, sizeof(u));
	ASSERT_OK(pctr_event_attr(&ev, &u, sizeof(u)));
	/* 136 filled (through config3), the rest left alone */
	ASSERT_UEQ(u.a.size, 136);
	ASSERT_HEX_EQ(u.raw[136], 0xa5);
	ASSERT_HEX_EQ(u.raw[255], 0xa5);
	ASSERT_UEQ(u.a.type, PERF_TYPE_HARDWARE);
	ASSERT_UEQ(u.a.config, PERF_COUNT_HW_CPU_CYCLES);
	ASSERT_HEX_EQ(u.a.config1, 0x11);
	ASSERT_HEX_EQ(u.a.config2, 0x22);
	memcpy(&c3, u.raw + 128, sizeof(c3));
	ASSERT_HEX_EQ(c3, 0x33);
	ASSERT_UEQ(u.a.precise_ip, 2);
	ASSERT_UEQ(u.a.pinned, 1);
	ASSERT_UEQ(u.a.exclusive, 1);
	ASSERT_UEQ(u.a.exclude_idle, 1);
	ASSERT_UEQ(u.a.exclude_user, 0);
	ASSERT_UEQ(u.a.exclude_kernel, 1);
	ASSERT_UEQ(u.a.exclude_hv, 1);
	ASSERT_UEQ(u.a.exclude_guest, 0);
	ASSERT_UEQ(u.a.exclude_host, 0);
	/* nothing the caller chooses: sampling, read format, state */
	ASSERT_UEQ(u.a.sample_period, 0);
	ASSERT_UEQ(u.a.read_format, 0);
	ASSERT_UEQ(u.a.disabled, 0);
	ASSERT_UEQ(u.a.inherit, 0);
}

TEST(event_attr_sizes)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	union attr_buf u;

	ASSERT_OK(pctr_event_parse("task-clock:u", &ev));
	/* the first published attr (64 bytes): filled, the rest left alone */
	memset(&u, 0xa5, sizeof(u));
	ASSERT_OK(pctr_event_attr(&ev, &u, PERF_ATTR_SIZE_VER0));
	ASSERT_UEQ(u.a.size, PERF_ATTR_SIZE_VER0);
	ASSERT_UEQ(u.a.type, PERF_TYPE_SOFTWARE);
	ASSERT_UEQ(u.a.config, PERF_COUNT_SW_TASK_CLOCK);
	ASSERT_UEQ(u.a.exclude_kernel, 1);
	ASSERT_HEX_EQ(u.raw[PERF_ATTR_SIZE_VER0], 0xa5);
	/* this build's headers (6.1's: 128 bytes) */
	memset(&u, 0xa5, sizeof(u));
	ASSERT_OK(pctr_event_attr(&ev, &u, sizeof(u.a)));
	ASSERT_UEQ(u.a.size, sizeof(u.a));
	ASSERT_HEX_EQ(u.raw[sizeof(u.a)], 0xa5);
	/* smaller than any attr */
	memset(&u, 0xa5, sizeof(u));
	ASSERT_EQ(pctr_event_attr(&ev, &u, PERF_ATTR_SIZE_VER0 - 8), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "PERF_ATTR_SIZE_VER0");
	ASSERT_HEX_EQ(u.raw[0], 0xa5);
	ASSERT_EQ(pctr_event_attr(&ev, NULL, sizeof(u.a)), -EINVAL);
	/* a field the caller's attr cannot hold is an error, not dropped */
	ev.config2 = 1;
	ASSERT_EQ(pctr_event_attr(&ev, &u, PERF_ATTR_SIZE_VER0), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "config2");
	ASSERT_OK(pctr_event_attr(&ev, &u, PERF_ATTR_SIZE_VER1));
	ev.config3 = 1;
	ASSERT_EQ(pctr_event_attr(&ev, &u, 128), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "config3");
}

TEST(event_attr_refusals)
{
	struct pctr_event ev = { .size = sizeof(ev) };
	union attr_buf u;

	ASSERT_OK(pctr_event_parse("task-clock", &ev));
	ev.flags = 0x200; /* past PCTR_EVENT_FLAGS */
	ASSERT_EQ(pctr_event_attr(&ev, &u, sizeof(u.a)), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "unknown flags 0x200");
	ev.flags = 0;
	ev.precise = 4;
	ASSERT_EQ(pctr_event_attr(&ev, &u, sizeof(u.a)), -EINVAL);
	ev.precise = 0;
	ev.reserved[5] = 1;
	ASSERT_EQ(pctr_event_attr(&ev, &u, sizeof(u.a)), -E2BIG);
	ASSERT_CONTAINS(pctr_strerror(-E2BIG), "reserved");
	ev.reserved[5] = 0;
	ev.size = 8;
	ASSERT_EQ(pctr_event_attr(&ev, &u, sizeof(u.a)), -EINVAL);
	ASSERT_CONTAINS(pctr_strerror(-EINVAL), "struct pctr_event");
}

/* every modifier and syntax ends up in the attr as it did in the event */
TEST(event_attr_round_trip)
{
	static const char *const specs[] = {
		"instructions:H", "instructions:G", "cycles:k", "r1c0:u",
		"fn:0x4300c0", "L1-dcache-load-misses", "context-switches:uk",
	};

	for (size_t i = 0; i < PCTR_ARRAY_SIZE(specs); i++) {
		struct pctr_event ev = { .size = sizeof(ev) };
		struct perf_event_attr a;

		ASSERT_OK(pctr_event_parse(specs[i], &ev));
		ASSERT_OK(pctr_event_attr(&ev, &a, sizeof(a)));
		ASSERT_UEQ(a.type, ev.type);
		ASSERT_HEX_EQ(a.config, ev.config);
		ASSERT_EQ(a.exclude_user,
			  !!(ev.flags & PCTR_EVENT_EXCLUDE_USER));
		ASSERT_EQ(a.exclude_kernel,
			  !!(ev.flags & PCTR_EVENT_EXCLUDE_KERNEL));
		ASSERT_EQ(a.exclude_hv, !!(ev.flags & PCTR_EVENT_EXCLUDE_HV));
		ASSERT_EQ(a.exclude_guest,
			  !!(ev.flags & PCTR_EVENT_EXCLUDE_GUEST));
		ASSERT_EQ(a.exclude_host,
			  !!(ev.flags & PCTR_EVENT_EXCLUDE_HOST));
	}
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(smaller_than_version_0)
			       TEST_CASE(equal_sizes)
			       TEST_CASE(larger_with_zeros)
			       TEST_CASE(larger_with_garbage)
			       TEST_CASE(no_detail_when_nameless)
			       TEST_CASE(copy_in_and_out)
			       TEST_CASE(event_attr_fields)
			       TEST_CASE(event_attr_sizes)
			       TEST_CASE(event_attr_refusals)
			       TEST_CASE(event_attr_round_trip)));
}
