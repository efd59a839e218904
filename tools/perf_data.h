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
#include <stdio.h>

#include "pctr.h"

struct perf_data;

/*
 * Start a recording in @f (a new file, seekable; the caller's to close)
 * of the samples of event @idx of @set, which samples into a buffer: the
 * file states their layout as the set configured it
 * (pctr_set_sampling_attr()).  @cmdline: the command line that recorded
 * (HEADER_CMDLINE), NULL-terminated.  Return: 0, or -errno.
 */
int perf_data_open(struct perf_data **pd, FILE *f, const struct pctr_set *set,
		   int idx, char *const *cmdline);
/* one record as pctr_set_sampling_read() gives it; 0 or -errno */
int perf_data_record(struct perf_data *pd,
		     const struct pctr_sample_record *r);
/*
 * The feature sections and the header written and flushed, @pd freed
 * (also after an error); *@bytes and *@samples (each may be NULL): the
 * file's size and samples.  Return 0 or -errno (-E2BIG: a record past
 * the format's limit).
 */
int perf_data_close(struct perf_data *pd, uint64_t *bytes,
		    uint64_t *samples);

/* what a file read back said about itself (perf_data_read.c) */
struct perf_data_info {
	char event[PCTR_NAME_MAX + 2]; /* its name, or "type T config C" */
	uint64_t period, freq; /* as sampled (one of them 0) */
	bool callchain;
	bool user_stack; /* samples with user registers and stack copies */
	uint64_t samples, lost; /* samples read; lost (PERF_RECORD_LOST) */
	const char *why; /* after -EINVAL: what is wrong with the file */
};

/*
 * Read @path (perf.data, version 2: pctr profile --perf-data's or perf
 * record's) and hand each record to @cb as pctr_set_sampling_read() would,
 * in time order.  Return: 0; -ECANCELED if @cb returned non-zero; -EINVAL
 * with @info->why for a file that is not one; -ENOMEM or -errno.
 */
int perf_data_read(const char *path, struct perf_data_info *info,
		   int (*cb)(const struct pctr_sample_record *, void *),
		   void *arg);
/* the same of @size bytes at @p (the file's contents) */
int perf_data_parse(const void *p, size_t size, struct perf_data_info *info,
		    int (*cb)(const struct pctr_sample_record *, void *),
		    void *arg);

#endif
