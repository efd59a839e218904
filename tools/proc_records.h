/* SPDX-License-Identifier: MIT */
/*
 * proc_records.h - processes already running when a recording starts, as
 * the side-band records the kernel would have written had it seen them
 * start (PCTR_REC_COMM, PCTR_REC_MMAP at time 0): perf record writes the
 * same for -p and -a, so that a recording names them after they are gone.
 */
#ifndef PCTR_TOOL_PROC_RECORDS_H
#define PCTR_TOOL_PROC_RECORDS_H

#include <sys/types.h>

#include "pctr.h"

typedef int (*proc_record_fn)(const struct pctr_sample_record *r, void *arg);

/*
 * Process @pid's name and executable file mappings to @cb; a @pid that
 * is a thread stands for its process.  Return 0, @cb's non-zero value, or
 * -errno when /proc has no such process.
 */
int proc_records(pid_t pid, proc_record_fn cb, void *arg);
/* every process of /proc; 0 or @cb's non-zero value */
int proc_records_all(proc_record_fn cb, void *arg);

#endif
