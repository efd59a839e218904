/* SPDX-License-Identifier: MIT */
/*
 * perf_data.h - pctr profile's samples kept for later, in perf's own file
 * format (perf.data, version 2: tools/perf/Documentation/
 * perf.data-file-format.txt in the kernel's source), so that "perf report
 * -i FILE" and every tool that reads perf.data read them.
 */
#ifndef PCTR_TOOL_PERF_DATA_H
#define PCTR_TOOL_PERF_DATA_H

#include <stdbool.h>
#include <stdint.h>

#include "pctr.h"

struct perf_data;

/*
 * Start @path (created or truncated): the sampled event @ev, one sample
 * every @period events or @freq a second (the other 0), with call chains
 * or not.  Return: 0, or -errno.
 */
int perf_data_open(struct perf_data **pd, const char *path,
		   const struct pctr_event *ev, uint64_t period, uint64_t freq,
		   bool callchain);
/* one record as pctr_set_sampling_read() gives it; 0 or -errno */
int perf_data_record(struct perf_data *pd,
		     const struct pctr_sample_record *r);
/* the header written, the file closed (also after an error); 0 or -errno */
int perf_data_close(struct perf_data *pd);

#endif
