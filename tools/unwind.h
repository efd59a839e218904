/* SPDX-License-Identifier: MIT */
/*
 * tools/unwind.h - call chains of code built without frame pointers,
 * unwound after the fact from each sample's user registers and user stack
 * copy (PCTR_SAMPLE_USER_STACK) with the programs' own unwinding tables
 * (.eh_frame, .debug_frame), as perf report does for perf record
 * --call-graph dwarf.
 */
#ifndef PCTR_TOOL_UNWIND_H
#define PCTR_TOOL_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"

struct unwind;

int unwind_new(struct unwind **up);
/*
 * The call chain of sample @r, leaf first, into @chain (@max entries at
 * most, at least 1): the kernel part of @r->callchain (its first
 * @r->nr_callchain_kernel entries, as the kernel's markers said), or the
 * sampled address of a sample in the kernel without one, their number in
 * *@nr_kernel; then the user frames unwound from @r's registers and stack
 * copy in address space @space of @s: the sampled (or interrupted)
 * address, then each caller's return address - 1, inside its call
 * instruction, as perf's libdw unwinder gives it (dwfl_frame_pc() of a
 * frame that is not an activation) and perf script prints it.  A chain
 * whose unwinding stops early holds what was found; one that cannot be
 * unwound at all (no registers: a kernel thread; a 32-bit task; no
 * libdw) holds the sampled address.  Return the number of entries, at
 * least 1.
 */
size_t unwind_sample(struct unwind *u, struct syms *s, int space,
		     const struct pctr_sample_record *r, uint64_t *chain,
		     size_t max, size_t *nr_kernel);
void unwind_free(struct unwind *u);

/* the registers' DWARF numbering (unwind.c), for tests */
int unwind_regs_dwarf(const struct pctr_sample_record *r, uint64_t *dwarf,
		      int max, uint64_t *pc, uint64_t *sp);

#endif
