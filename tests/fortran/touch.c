/* SPDX-License-Identifier: MIT */
/*
 * touch.c - fresh pages for the Fortran tests (tap.f90): exactly n page
 * faults.  Apart from cfig.c, so that a program built without libpctr
 * (marker.F90 without PCTR_ENABLE) links it.
 */
#include "test.h"

int ftest_touch_pages(size_t n);

int
ftest_touch_pages(size_t n)
{
	return test_touch_pages(n);
}
