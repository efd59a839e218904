/* SPDX-License-Identifier: MIT */
/*
 * profile_nofp - the workload of test_profile's --call-graph dwarf cases:
 * a user-mode arithmetic loop in hot(), reached through main -> a -> b ->
 * hot, built without frame pointers (-O2 -fomit-frame-pointer), as most
 * distributions build their programs and libraries.  Each function keeps
 * a value on its stack across the call (-O2 would otherwise keep the
 * frames empty), so that the unwinder has to find each return address by
 * the function's own unwinding table; frame pointers find none of them.
 * Built with debugging information (-g), which names the calls inlined.
 *
 *   profile_nofp MS            spin for MS ms of CPU time
 */
#include <stdlib.h>
#include <time.h>

volatile unsigned long sink;

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* pure arithmetic: no system call, so every sample lands in user mode */
__attribute__((noinline)) void
hot(unsigned long n)
{
	volatile unsigned long keep[4] = { n, n, n, n };
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	sink = x + keep[3];
}

__attribute__((noinline)) void
b(unsigned long n)
{
	volatile unsigned long keep[2] = { n, n };

	hot(n);
	sink += keep[1];
}

__attribute__((noinline)) void
a(unsigned long n)
{
	volatile unsigned long keep[3] = { n, n, n };

	b(n);
	sink += keep[2];
}

/*
 * main's call of a, always inlined: the debugging information says the
 * call instruction is round's, so perf script names main's frame
 * "round_of+0xOFF (inlined)", then main's
 */
static inline __attribute__((always_inline)) void
round_of(unsigned long n)
{
	a(n);
}

/* a clock read every 10^7 iterations (some ms): a negligible share */
int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 100;
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		round_of(10000000);
	return 0;
}
