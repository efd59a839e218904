/* SPDX-License-Identifier: MIT */
/*
 * struct.c - the one size rule of the public structs that start with a
 * size field, as libpfm4's pfmlib_check_struct() and perf_event_open(2)'s
 * attr.size.
 *
 * The caller sets ->size to sizeof the struct it was built with.  A struct
 * only grows, at its end, and a new field's zero means what the versions
 * before it did; so:
 *  - a size under the published minimum (the struct's size in version 0,
 *    PCTR_*_SIZE_VER0) was never sizeof any version: -EINVAL;
 *  - a size over the library's comes from a newer caller: its extra bytes
 *    are fields this library does not know.  All zero, they ask for
 *    nothing more and the struct is accepted; otherwise the library cannot
 *    do what was asked: -E2BIG, as the kernel answers for attr.  Over 4096
 *    bytes (the kernel's limit for attr too) the size is garbage, -E2BIG,
 *    and nothing past it is read;
 *  - the library then reads in, or writes out, min(size, sizeof) bytes, and
 *    never touches a byte past the caller's size.
 */
#include <errno.h>
#include <string.h>

#include "internal.h"

#define SIZE_MAX_ACCEPTED 4096

_Static_assert(sizeof(struct pctr_event) == PCTR_EVENT_SIZE_VER0,
	       "struct pctr_event keeps its size: use the reserved fields");
_Static_assert(offsetof(struct pctr_event, size) == 0 &&
		       offsetof(struct pctr_machine, size) == 0 &&
		       offsetof(struct pctr_summary, size) == 0 &&
		       offsetof(struct pctr_region_config, size) == 0 &&
		       offsetof(struct pctr_overflow, size) == 0 &&
		       offsetof(struct pctr_overflow_info, size) == 0 &&
		       offsetof(struct pctr_overflow_stats, size) == 0 &&
		       offsetof(struct pctr_sampling, size) == 0,
	       "every sized struct starts with its size");
_Static_assert(sizeof(struct pctr_machine) >= PCTR_MACHINE_SIZE_VER0 &&
		       sizeof(struct pctr_summary) >= PCTR_SUMMARY_SIZE_VER0 &&
		       sizeof(struct pctr_region_config) >=
			       PCTR_REGION_CONFIG_SIZE_VER0 &&
		       sizeof(struct pctr_overflow) >= PCTR_OVERFLOW_SIZE_VER0 &&
		       sizeof(struct pctr_overflow_info) >=
			       PCTR_OVERFLOW_INFO_SIZE_VER0 &&
		       sizeof(struct pctr_overflow_stats) >=
			       PCTR_OVERFLOW_STATS_SIZE_VER0 &&
		       sizeof(struct pctr_sampling) >= PCTR_SAMPLING_SIZE_VER0,
	       "a struct never shrinks below its version 0");

static int
fail(const struct pctr__sized *t, int err, size_t size)
{
	if (!t->name)
		return -err; /* async-signal-safe callers: no detail */
	if (err == EINVAL)
		return pctr__error(EINVAL, "struct %s: ->size is %zu, under "
					   "its smallest, %zu (version 0): set "
					   "->size = sizeof(struct %s)",
				   t->name, size, t->min, t->name);
	return pctr__error(E2BIG, "struct %s: ->size is %zu, over this "
				  "library's %zu, and %s: the program was "
				  "built for a newer libpctr, or ->size is "
				  "not set (zero the struct and set ->size = "
				  "sizeof(struct %s))",
			   t->name, size, t->ours,
			   size > SIZE_MAX_ACCEPTED ? "over 4096 bytes"
						    : "the bytes past it are "
						      "not all zero",
			   t->name);
}

int
pctr__struct_check(const struct pctr__sized *t, const void *p)
{
	const unsigned char *b = p;
	size_t size;

	if (!p)
		return t->name ? pctr__error(EINVAL, "NULL struct %s", t->name)
			       : -EINVAL;
	memcpy(&size, p, sizeof(size));
	if (size < t->min)
		return fail(t, EINVAL, size);
	if (size > SIZE_MAX_ACCEPTED)
		return fail(t, E2BIG, size);
	for (size_t i = t->ours; i < size; i++)
		if (b[i])
			return fail(t, E2BIG, size);
	return (int)(size < t->ours ? size : t->ours);
}

int
pctr__struct_in(const struct pctr__sized *t, void *dst, const void *src)
{
	int n = pctr__struct_check(t, src);

	if (n < 0)
		return n;
	memset(dst, 0, t->ours);
	memcpy(dst, src, (size_t)n);
	memcpy(dst, &t->ours, sizeof(size_t));
	return 0;
}

int
pctr__struct_out(const struct pctr__sized *t, void *dst, const void *src)
{
	int n = pctr__struct_check(t, dst);
	size_t size;

	if (n < 0)
		return n;
	size = (size_t)n;
	memcpy(dst, src, size);
	memcpy(dst, &size, sizeof(size));
	return 0;
}
