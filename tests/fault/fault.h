/* SPDX-License-Identifier: MIT */
/*
 * fault.h - deterministic fault injection into the library's calls to libc.
 *
 * libpctr_fault.so defines syscall(), mmap(), read(), ioctl(), malloc(),
 * calloc() and realloc(); linked into a test (or loaded with LD_PRELOAD) it
 * comes before libc, so the library's calls land here first.  Each kind of
 * call is counted; an armed fault makes calls number @nth, @nth + 1, ...,
 * @nth + @times - 1 of that kind fail with @err (@times < 0: every call
 * from @nth on).  Only calls that concern perf events are counted: the
 * perf_event_open system call, mmap, read and ioctl of perf event
 * descriptors.  Allocations are all counted.
 *
 * Without a test, $PCTR_FAULT arms faults at load time, for commands run
 * under LD_PRELOAD: "KIND:NTH:ERRNO[:TIMES],...", for example
 * PCTR_FAULT=perf_open:3:EMFILE or PCTR_FAULT=read:1:short.
 */
#ifndef PCTR_FAULT_H
#define PCTR_FAULT_H

enum fault_kind {
	FAULT_PERF_OPEN, /* syscall(SYS_perf_event_open) */
	FAULT_MMAP, /* mmap of a perf fd */
	FAULT_READ, /* read of a perf fd */
	FAULT_IOCTL, /* ioctl of a perf fd */
	FAULT_ALLOC, /* malloc, calloc, realloc */
	FAULT_NR
};

/* read faults: a real error, or these pseudo-errors */
#define FAULT_SHORT (-1) /* the read succeeds but reports 8 bytes fewer */
#define FAULT_ZERO (-2) /* the read returns 0 */

/* arm a fault; clears the kind's call count */
void fault_arm(enum fault_kind kind, int nth, int err, int times);
/* disarm everything and clear the counts */
void fault_reset(void);
/* calls of @kind since it was last armed or reset */
int fault_calls(enum fault_kind kind);
/* failures injected for @kind since then */
int fault_injected(enum fault_kind kind);
/* 1 if allocations really go through this library (not a sanitizer's) */
int fault_alloc_works(void);

#endif
