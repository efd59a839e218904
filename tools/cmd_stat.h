/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.h - what pctr stat's options set (stat_options.c parses them,
 * cmd_stat.c counts).
 */
#ifndef PCTR_CMD_STAT_H
#define PCTR_CMD_STAT_H

#include <stdbool.h>
#include <stdio.h>

#include "runner.h"
#include "tool.h"
#include "util.h"

/*
 * A set holds PCTR_MAX_EVENTS events: pctr stat cuts the events, in their
 * order, into chunks of at most that many (a "{...}" group never split)
 * and opens a set for each chunk on each target; the reads of the sets
 * fill one array of counts, in the events' order.
 */
struct stat_chunk {
	int first, nr;
};

struct stat_ctx {
	struct stat_report rep;
	char *events; /* -e lists, joined with commas */
	const char *parsing; /* the list events_from_list() parses */
	long repeat;
	long interval_ms;
	double duration;
	bool all_cpus;
	int detailed; /* -d, -dd, -ddd: perf stat's levels of cache events */
	bool group_all; /* -g: every event in one group, as perf stat -g */
	bool strict; /* --strict: one event that cannot be counted fails */
	long delay_ms; /* -D: counting starts this late; -1: at "enable" */
	long interval_count; /* --interval-count: stop after so many rows */
	int ctl_fd, ack_fd; /* --control; -1 when not given */
	int cgroup_fd; /* -G: the cgroup's directory; -1 when not given */
	char ctl_buf[256]; /* a command not yet ended by '\n' */
	size_t ctl_len;
	bool ctl_opened; /* --control fifo: pctr opened ctl_fd and ack_fd */
	bool no_aggr; /* -A */
	FILE *out;
	const char *output;
	struct runner rn; /* the output, the command, signals (runner.h) */
	int verbose; /* -v: counts and times; -vv: attrs, each CPU's too */
	bool null_run; /* -n: no default counters (-e's only), no -d */
	bool quiet; /* --quiet: no report, errors only */
	bool no_inherit; /* -i: later threads and children not counted */
	long timeout_ms; /* --timeout */
	bool sync; /* -S: sync(2) before each run */
	bool interval_clear; /* --interval-clear: a clean screen each -I */
	bool timeout; /* --timeout: the command ends after c->duration */
	bool stopped; /* pctr ended the command (--interval-count) */
	char all_priv; /* --all-user 'u', --all-kernel 'k', or 0 */
	const char *pre, *post; /* --pre, --post: sh -c before/after a run */
	long log_fd; /* --log-fd: the report to this descriptor; -1 none */
	int *group; /* each event's "{a,b}" of -e: 0 none, 1, 2, ... */
	int nr_chunks; /* 1 or more: a set for each, for each target */
	struct stat_chunk *chunk;
	bool opened; /* a set was opened: rep.err says what it left out */
};

/*
 * Parse pctr stat's arguments into @c (zeroed, with repeat 1, multiplex
 * on, ctl_fd, ack_fd and log_fd -1, out stdout).  -h prints the help and
 * exits 0.
 * Return: 0, or EXIT_USAGE after a message on stderr.
 */
int stat_parse_options(struct stat_ctx *c, int argc, char **argv);
/* close what --control fifo: opened (nothing for fd:) */
void stat_close_control(struct stat_ctx *c);

#endif
