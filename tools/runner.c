/* SPDX-License-Identifier: MIT */
/*
 * runner.c - the workload of pctr stat and pctr profile: outputs, the
 * command, signals and the wait (the protocol is in runner.h).
 */
#include <errno.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "runner.h"
#include "tool.h"
#include "util.h"

extern char **environ;

void
runner_init(struct runner *rn)
{
	memset(rn, 0, sizeof(*rn));
	rn->child = -1;
	rn->sigfd = -1;
}

/* ---- outputs ------------------------------------------------------------ */

FILE *
runner_output(struct runner *rn, const char *opt, const char *path,
	      bool append)
{
	if (rn->nr_out == RUNNER_MAX_OUT) {
		tool_err("%s %s: more than %d outputs", opt, path,
			 RUNNER_MAX_OUT);
		return NULL;
	}
	return runner_adopt(rn, path ? out_open(opt, path, append) : stderr);
}

FILE *
runner_adopt(struct runner *rn, FILE *f)
{
	if (f && rn->nr_out < RUNNER_MAX_OUT)
		rn->out[rn->nr_out++] = f;
	return f;
}

int
runner_close(struct runner *rn)
{
	int bad = 0;

	while (rn->nr_out > 0)
		bad |= out_close(rn->out[--rn->nr_out]) < 0;
	return bad ? -1 : 0;
}

/* ---- the command -------------------------------------------------------- */

int
runner_check_command(char *const argv[])
{
	int r = find_command(argv[0]);

	if (r == -ENOENT) {
		tool_err("%s: command not found", argv[0]);
		return EXIT_NOTFOUND;
	}
	if (r == -EACCES) {
		tool_err("%s: permission denied (not an executable file)",
			 argv[0]);
		return EXIT_NOEXEC;
	}
	return 0;
}

int
runner_spawn(struct runner *rn, char *const argv[])
{
	int r = posix_spawnp(&rn->child, argv[0], NULL, NULL, argv, environ);

	if (r) {
		rn->child = -1;
		tool_err("%s: %s", argv[0], strerror(r));
		return r == ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
	}
	return 0;
}

bool
runner_reap(struct runner *rn, bool block)
{
	int status;
	pid_t p;

	if (rn->child <= 0)
		return false;
	do
		p = wait4(rn->child, &status, block ? 0 : WNOHANG, &rn->ru);
	while (p < 0 && errno == EINTR);
	if (p != rn->child)
		return false;
	rn->status = status;
	rn->child = 0;
	return true;
}

/* ---- signals ------------------------------------------------------------ */

static volatile sig_atomic_t early_sig, early_code;

static void
on_signal(int sig, siginfo_t *info, void *uc)
{
	(void)uc;
	if (sig == SIGCHLD)
		return;
	early_sig = sig;
	early_code = info->si_code;
}

/* what is caught; SIGCHLD only wakes the wait */
static void
signal_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	sigaddset(set, SIGCHLD);
}

void
runner_catch(void)
{
	struct sigaction sa;
	sigset_t set;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	signal_set(&set);
	for (int s = 1; s < NSIG; s++)
		if (sigismember(&set, s) == 1)
			sigaction(s, &sa, NULL);
}

static void
got_signal(struct runner *rn, int sig, int code)
{
	if (sig == SIGCHLD || sig <= 0)
		return;
	rn->interrupted = true;
	if (rn->child > 0 && code != SI_KERNEL)
		kill(rn->child, sig);
	else if (rn->child <= 0)
		rn->stop = true;
}

int
runner_watch(struct runner *rn)
{
	sigset_t set;
	int err;

	signal_set(&set);
	sigprocmask(SIG_BLOCK, &set, &rn->old);
	rn->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (rn->sigfd < 0) {
		err = errno;
		sigprocmask(SIG_SETMASK, &rn->old, NULL);
		return -err;
	}
	/* one that came before: while the command was being started */
	got_signal(rn, early_sig, early_code);
	early_sig = 0;
	return 0;
}

void
runner_unwatch(struct runner *rn)
{
	if (rn->sigfd < 0)
		return;
	close(rn->sigfd);
	rn->sigfd = -1;
	sigprocmask(SIG_SETMASK, &rn->old, NULL);
	free(rn->pfd);
	rn->pfd = NULL;
	rn->cap = 0;
}

static void
take_signals(struct runner *rn)
{
	struct signalfd_siginfo si;

	while (read(rn->sigfd, &si, sizeof(si)) == sizeof(si))
		got_signal(rn, (int)si.ssi_signo, si.ssi_code);
}

/* ---- the wait ----------------------------------------------------------- */

int
runner_wait(struct runner *rn, struct pollfd *fds, int nr,
	    uint64_t timeout_ns)
{
	struct timespec ts = { (time_t)(timeout_ns / 1000000000u),
			       (long)(timeout_ns % 1000000000u) };
	int n;

	if (nr + 1 > rn->cap) {
		struct pollfd *p = realloc(rn->pfd, (nr + 1) * sizeof(*p));

		if (!p)
			return -ENOMEM;
		rn->pfd = p;
		rn->cap = nr + 1;
	}
	rn->pfd[0] = (struct pollfd){ .fd = rn->sigfd, .events = POLLIN };
	if (nr)
		memcpy(rn->pfd + 1, fds, nr * sizeof(*fds));
	n = ppoll(rn->pfd, (nfds_t)nr + 1,
		  timeout_ns == RUNNER_FOREVER ? NULL : &ts, NULL);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	for (int i = 0; i < nr; i++)
		fds[i].revents = rn->pfd[i + 1].revents;
	if (rn->pfd[0].revents) {
		take_signals(rn);
		n--;
	}
	return n;
}
