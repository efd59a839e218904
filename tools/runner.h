/* SPDX-License-Identifier: MIT */
/*
 * runner.h - how a subcommand runs its workload (runner.c): the files it
 * writes, opened before anything runs and closed with their errors said;
 * the command it starts or the processes it attaches to; the signals that
 * end the wait or are passed on to the command; and the wait itself, one
 * ppoll(2) over a signalfd and the caller's descriptors.  pctr stat and
 * pctr profile run through it.
 *
 * In this order:
 *
 *	runner_init(&rn);
 *	f = runner_output(&rn, "-o", path, false);   each file, before all
 *	runner_check_command(argv);                  said before anything runs
 *	runner_catch();                              before the command starts
 *	pctr_set_open_command(set, argv, &rn.child)  or runner_spawn(), or
 *	                                             pctr_set_open() to attach
 *	runner_watch(&rn);
 *	while (!done) {
 *		runner_wait(&rn, fds, nr, timeout_ns);
 *		done = runner_reap(&rn, false) || rn.stop || ...;
 *	}
 *	runner_unwatch(&rn);
 *	runner_close(&rn);                           each error said: exit 1
 *
 * Signals: SIGINT, SIGTERM, SIGHUP and SIGQUIT are caught from
 * runner_catch() on (a command started then gets the default handlers
 * back at its exec), then blocked and read from a signalfd between
 * runner_watch() and runner_unwatch(), so that a signal, a child's exit
 * and the caller's descriptors wake one ppoll() without a race.  With a
 * command, a signal sent to pctr by another process is passed on to it
 * and the wait goes on until it exits; one the terminal raised (si_code
 * SI_KERNEL) already reached it, in the same process group, and is not
 * sent twice.  Without a command, the signal ends the wait (rn.stop).
 */
#ifndef PCTR_TOOL_RUNNER_H
#define PCTR_TOOL_RUNNER_H

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/types.h>

#define RUNNER_MAX_OUT 4
#define RUNNER_FOREVER UINT64_MAX /* runner_wait(): no timeout */

struct runner {
	pid_t child; /* the command: > 0 until reaped, then 0; -1 none */
	int status; /* its wait status, once reaped */
	struct rusage ru; /* its CPU time, once reaped */
	bool interrupted; /* SIGINT, SIGTERM, SIGHUP or SIGQUIT came */
	bool stop; /* one came with no command to pass it to */
	/* the runner's own */
	int sigfd;
	sigset_t old;
	struct pollfd *pfd;
	int cap;
	int nr_out;
	FILE *out[RUNNER_MAX_OUT];
};

void runner_init(struct runner *rn);

/*
 * A file written by the subcommand (out_open()): @path for writing,
 * truncated or appended to, close-on-exec; "-" is standard output, NULL
 * standard error.  NULL after saying why ("OPT PATH: reason").
 */
FILE *runner_output(struct runner *rn, const char *opt, const char *path,
		    bool append);
/* an output opened otherwise (out_open_fd()), closed as the others; NULL
 * stays NULL */
FILE *runner_adopt(struct runner *rn, FILE *f);
/* every output closed, newest first: 0, or -1 once any error was said */
int runner_close(struct runner *rn);

/* 0, or EXIT_NOTFOUND / EXIT_NOEXEC after saying so, as a shell would */
int runner_check_command(char *const argv[]);

/* catch the signals; before the command starts */
void runner_catch(void);
/* start @argv (a command beside attached counters); 0 or an exit status */
int runner_spawn(struct runner *rn, char *const argv[]);

/* from here on the signals come through the wait; 0 or a negative errno */
int runner_watch(struct runner *rn);
/*
 * Wait for a signal, one of @fds (their revents set), or @timeout_ns
 * (RUNNER_FOREVER: none); the signals that came are handled as above.
 * Return: how many of @fds are ready, or a negative errno.
 */
int runner_wait(struct runner *rn, struct pollfd *fds, int nr,
		uint64_t timeout_ns);
/* the command reaped (wait4(): status and rusage), waiting if @block */
bool runner_reap(struct runner *rn, bool block);
void runner_unwatch(struct runner *rn);

#endif
