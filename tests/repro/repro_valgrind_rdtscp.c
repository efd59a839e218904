/* SPDX-License-Identifier: MIT */
/*
 * repro_valgrind_rdtscp - valgrind (3.19) translates rdtscp only where the
 * host's CPUID reports it, while the CPUID it shows the program claims it
 * on any host: on a VM whose hypervisor hides rdtscp (CPUID 0x80000001
 * EDX bit 27 clear; the instruction still runs natively, its TSC_AUX the
 * host's CPU), a program that checks CPUID and then runs rdtscp dies of
 * SIGILL under valgrind ("unhandled instruction bytes: 0xF 0x1 0xF9").
 *
 * The program runs itself twice, natively and under valgrind: each run
 * prints CPUID's bit, then runs rdtscp.  Where the host's CPUID has the
 * bit there is nothing to reproduce and the case is skipped.  Cited by
 * src/arch/x86_64/arch_tsc.h (pctr__arch_tsc_serial(): lfence; rdtsc
 * where CPUID lacks rdtscp, and under valgrind whatever its CPUID says).
 *
 * Relied on by src/arch/x86_64/arch_tsc.h (pctr__arch_tsc_serial(): lfence;
 * rdtsc where CPUID lacks rdtscp, and under valgrind); tests/sys/test_set.c
 * (misuse_gives_clear_errors under valgrind).
 */
#include <cpuid.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "repro.h"

static int
cpuid_rdtscp(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid(0x80000001, &a, &b, &c, &d))
		return 0;
	return (d >> 27) & 1;
}

static int
child(void)
{
	unsigned int lo, hi, aux;

	printf("cpuid %d ", cpuid_rdtscp());
	fflush(stdout);
	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	printf("rdtscp ran\n");
	return 0;
}

/*
 * Run this program with --child, under valgrind where @vg is set, through
 * /proc/self/exe (repro_self_for_exec()); its output in @out; its wait
 * status, or -1.
 */
static int
run(int vg, char *out, size_t len)
{
	char self[64] = "";
	char *native[] = { "/proc/self/exe", "--child", NULL };
	char *valgrind[] = { "valgrind", "-q", self, "--child", NULL };
	char *const *argv = vg ? valgrind : native;
	int fd[2], status;
	ssize_t n, got = 0;
	pid_t pid;

	if (pipe(fd) < 0 || (pid = fork()) < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], 1);
		dup2(open("/dev/null", O_WRONLY), 2); /* valgrind's report */
		close(fd[0]);
		if (vg && repro_self_for_exec(self, sizeof(self)) < 0)
			repro_exec_failed("open(/proc/self/exe)");
		execvp(argv[0], argv);
		repro_exec_failed(vg ? "execvp(valgrind)"
				     : "execv(/proc/self/exe)");
	}
	close(fd[1]);
	while ((n = read(fd[0], out + got, len - 1 - got)) > 0)
		got += n;
	close(fd[0]);
	out[got] = '\0';
	waitpid(pid, &status, 0);
	printf("# %s: %s%s", vg ? "valgrind" : "natively",
	       out[0] ? out : "(nothing)",
	       strchr(out, '\n') ? "" : "\n");
	return status;
}

int
main(int argc, char **argv)
{
	char o[2][256];
	int st[2];

	if (argc > 1 && !strcmp(argv[1], "--child"))
		return child();
	printf("1..1\n");
	if (cpuid_rdtscp()) {
		printf("ok 1 # SKIP the CPU reports rdtscp here: nothing to "
		       "reproduce\n");
		return 0;
	}
	st[0] = run(0, o[0], sizeof(o[0]));
	st[1] = run(1, o[1], sizeof(o[1]));
	if (st[1] != -1 && WIFEXITED(st[1]) && WEXITSTATUS(st[1]) == 127) {
		printf("not ok 1 - valgrind did not run: %.*s\n",
		       (int)strcspn(o[1], "\n"), o[1]);
		return 1;
	}
	if (strstr(o[1], "cpuid 1") && st[1] != -1 && WIFSIGNALED(st[1]) &&
	    WTERMSIG(st[1]) == SIGILL) {
		printf("ok 1 - CPUID lacks rdtscp; under valgrind CPUID claims "
		       "it and rdtscp dies of SIGILL (natively: %s)\n",
		       st[0] == 0 ? "it runs" : "it fails");
		return 0;
	}
	printf("not ok 1 - under valgrind rdtscp no longer dies where the "
	       "host lacks it (or CPUID says so): the workaround may go\n");
	return 0;
}
