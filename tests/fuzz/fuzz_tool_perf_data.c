/* SPDX-License-Identifier: MIT */
/*
 * fuzz_tool_perf_data.c - pctr profile --input's reader of perf.data files
 * (tools/perf_data_read.c) on any bytes: every record it hands on is
 * checked to lie within the input (names NUL-terminated, call chains as
 * long as they say, stack copies), its registers read.
 */
#include <stdint.h>
#include <string.h>

#include "perf_data.h"

static const uint8_t *lo, *hi;

static void
within(const void *p, size_t n)
{
	if (n && ((const uint8_t *)p < lo || (const uint8_t *)p + n > hi) &&
	    p != NULL)
		__builtin_trap();
}

static int
check(const struct pctr_sample_record *r, void *arg)
{
	volatile uint64_t sum = 0;

	(void)arg;
	if (r->name) {
		within(r->name, strlen(r->name) + 1);
		sum += (uint64_t)strlen(r->name);
	}
	for (uint32_t i = 0; i < r->nr_callchain; i++)
		sum += r->callchain[i];
	/* a stack copy lies within the input; the registers are copied out */
	within(r->stack, r->stack_len);
	for (int i = 0; r->regs && i < __builtin_popcountll(r->regs_mask); i++)
		sum += r->regs[i];
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct perf_data_info info;

	lo = data;
	hi = data + size;
	perf_data_parse(data, size, &info, check, NULL);
	return 0;
}
