/* SPDX-License-Identifier: MIT */
/*
 * cfig.c - the C side of the Fortran tests (tap.f90): the same work as
 * theirs counted by the C library, for the Fortran figures to be held to.
 */
#include <errno.h>
#include <pctr.h>
#include <stdint.h>

#include "test.h"

int64_t ftest_c_faults(size_t n);
int ftest_c_region(const char *name, size_t n);

/* the page faults of touching @n pages in this thread, or -errno */
int64_t
ftest_c_faults(size_t n)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_sample a, b;
	struct pctr_set *set = NULL;
	int r = pctr_set_new(&set, 0);

	if (r == 0)
		r = pctr_set_add_list(set, "page-faults");
	if (r >= 0)
		r = pctr_set_open(set, &self);
	if (r >= 0)
		r = pctr_set_enable(set);
	if (r >= 0)
		r = pctr_set_read(set, &a);
	if (r >= 0 && test_touch_pages(n) < 0)
		r = -ENOMEM;
	if (r >= 0)
		r = pctr_set_read(set, &b);
	pctr_set_free(set);
	return r < 0 ? r : (int64_t)(b.count[0].value - a.count[0].value);
}

/* touch @n pages inside region @name, marked in C */
int
ftest_c_region(const char *name, size_t n)
{
	int r = pctr_region_begin(name);

	if (r == 0 && test_touch_pages(n) < 0)
		r = -ENOMEM;
	if (r == 0)
		r = pctr_region_end(name);
	return r;
}
