/* SPDX-License-Identifier: MIT */
/*
 * repro_lsan_dtls_libdw - LeakSanitizer's exit-time scan dies
 * ("Tracer caught signal 11", "LeakSanitizer has encountered a fatal
 * error", exit status 1) in a program that loaded libdw with dlopen() and
 * attached a Dwfl to a process (dwfl_attach_state()), although it leaks
 * nothing (an error it set, dwfl_pid() of a Dwfl not yet attached, is
 * what brings libdw's thread-local block in): GCC 12's sanitizer run-time (Debian 12) takes a block of
 * dynamic TLS that __tls_get_addr handed out for a glibc before 2.25 when
 * its address modulo 4096 happens to be that old header's size, and reads
 * a bogus range for it (LSAN_OPTIONS=verbosity=1 prints one such as
 * "DTLS 3 at 0x1e-0x1000001120"), which the scan then faults on.  Not
 * libdw's fault nor pctr's: with ASAN_OPTIONS=intercept_tls_get_addr=0
 * (the run-time no longer tracks dynamic TLS) the same program exits 0
 * with no leak reported.  pctr profile --call-graph dwarf attaches a Dwfl
 * per address space the same way (tools/unwind.c), and its --input runs
 * met the fatal error under AddressSanitizer; scripts/check.sh's asan
 * stage sets intercept_tls_get_addr=0 for this.
 *
 * Here: repro_lsan_dtls_libdw_helper (built with AddressSanitizer in
 * every build) run 8 times with leak detection, as the asan stage runs
 * it, each with its blocks moved by a different first allocation, and
 * again with intercept_tls_get_addr=0.  Passes while some of the first
 * die with the fatal error (8 of 8 here, 7 of 8 in the asan build) and all of the second exit 0.
 *
 * Relied on by scripts/check.sh (the asan stage's
 * intercept_tls_get_addr=0), for pctr profile --call-graph dwarf
 * (tools/unwind.c).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#define RUNS 8

/* the helper's exit status (-1: could not run); its standard error */
static int
run(const char *helper, int k, const char *asan_options, char *err,
    size_t len)
{
	char cmd[4096];
	FILE *p;
	size_t n;
	int st;

	snprintf(cmd, sizeof(cmd),
		 "ASAN_OPTIONS=%s LSAN_OPTIONS= %s %d 2>&1 >/dev/null",
		 asan_options, helper, k);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	n = fread(err, 1, len - 1, p);
	err[n] = 0;
	st = pclose(p);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
main(void)
{
	const char *helper = getenv("REPRO_HELPER");
	static char err[1 << 16];
	int fatal = 0, clean = 0;

	if (!helper) {
		printf("1..0 # SKIP $REPRO_HELPER is not set (meson test sets "
		       "it)\n");
		return 0;
	}
	printf("1..1\n");
	for (int k = 0; k < RUNS; k++) {
		int st = run(helper, k, "detect_leaks=1", err, sizeof(err));

		if (st == 77) {
			printf("ok 1 # SKIP libdw.so.1 is not installed\n");
			return 0;
		}
		fatal += st != 0 && strstr(err, "Tracer caught signal") &&
			 strstr(err, "LeakSanitizer has encountered a fatal "
				     "error");
		st = run(helper, k, "detect_leaks=1:intercept_tls_get_addr=0",
			 err, sizeof(err));
		clean += st == 0 && !err[0];
	}
	printf("# tracking dynamic TLS: %d of %d runs died in LeakSanitizer's "
	       "scan; with intercept_tls_get_addr=0: %d of %d exited 0, "
	       "nothing reported\n", fatal, RUNS, clean, RUNS);
	if (fatal > 0 && clean == RUNS) {
		printf("ok 1 - LeakSanitizer's scan dies after a libdw error "
		       "and dwfl_attach_state() only while it tracks dynamic "
		       "TLS\n");
		return 0;
	}
	printf("not ok 1 - the fatal error is gone (or the workaround no "
	       "longer works): drop intercept_tls_get_addr=0 from "
	       "scripts/check.sh\n");
	return 1;
}
