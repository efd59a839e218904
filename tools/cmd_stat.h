/* SPDX-License-Identifier: MIT */
/*
 * cmd_stat.h - what pctr stat's options set (stat_options.c parses them,
 * cmd_stat.c counts).
 */
#ifndef PCTR_CMD_STAT_H
#define PCTR_CMD_STAT_H

#include <stdbool.h>
#include <stdio.h>

#include "tool.h"
#include "util.h"

struct stat_ctx {
	struct stat_report rep;
	char *events; /* -e lists, joined with commas */
	long repeat;
	long interval_ms;
	double duration;
	bool all_cpus;
	bool detailed; /* -d: the cache events too, as perf stat -d */
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
	bool interrupted; /* SIGINT/SIGTERM/SIGHUP/SIGQUIT arrived */
	int group[PCTR_MAX_EVENTS]; /* "{a,b}" of -e: 0 none, 1, 2, ... */
	int nr_set; /* events in the set: those not marked in rep.err */
	int map[PCTR_MAX_EVENTS]; /* set index -> report index */
};

/*
 * Parse pctr stat's arguments into @c (zeroed, with repeat 1, multiplex
 * on, ctl_fd and ack_fd -1, out stdout).  -h prints the help and exits 0.
 * Return: 0, or EXIT_USAGE after a message on stderr.
 */
int stat_parse_options(struct stat_ctx *c, int argc, char **argv);
/* close what --control fifo: opened (nothing for fd:) */
void stat_close_control(struct stat_ctx *c);

#endif
