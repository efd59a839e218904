/* SPDX-License-Identifier: MIT */
/*
 * profile_chain - the workload of test_profile: a user-mode arithmetic
 * loop in hot(), reached through main -> a -> b -> hot, built with frame
 * pointers (leaf functions too), so that a call chain from frame pointers
 * names every caller.
 *
 *   profile_chain MS            spin for MS ms of CPU time
 *   profile_chain MS fork       the same in a forked child; the parent waits
 *   profile_chain MS exec       exec itself (by argv[0]) with MS: a new
 *                               address space
 *   profile_chain MS vdso       the same in a forked child, the loop a
 *                               CLOCK_MONOTONIC read (the vDSO's code)
 *   profile_chain MS plt        the same, the loop a call of libc's
 *                               getauxval() (through the PLT: a short
 *                               function, so the PLT's jump is a good share)
 *   profile_chain MS weak       the same, the loop in a local function
 *                               that a weak symbol names too, as glibc's
 *                               IFUNC resolvers are named in libc6-dbg's
 *                               table (weak strnlen, local
 *                               __strnlen_ifunc)
 *   profile_chain MS anon       the same, the loop in a section of its
 *                               own (.hot_anon) whose symbol the copy
 *                               profile_chain_anon has not, after a
 *                               sizeless symbol in another section, as
 *                               the PLT's header follows _init
 *   profile_chain MS headers    the same, the loop's frame pointer on a
 *                               frame whose return address is in the
 *                               program's ELF headers: mapped with the
 *                               program, but by no executable mapping
 *                               (x86-64 and arm64)
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

volatile unsigned long sink;

static double
cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) void
store(unsigned long x)
{
	sink = x;
}

/*
 * Pure arithmetic: no system call, so every sample lands in user mode.  It
 * calls store() so that it is not a leaf: GCC leaves out the frame of a
 * leaf that needs no stack even with -fno-omit-frame-pointer, and without
 * it the unwinder would step from hot() straight to a(), past b().
 */
__attribute__((noinline)) void
hot(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	store(x);
}

__attribute__((noinline)) void
b(unsigned long n)
{
	hot(n);
	sink++;
}

__attribute__((noinline)) void
a(unsigned long n)
{
	b(n);
	sink++;
}

/* a clock read every 10^7 iterations (some ms): a negligible share */
static void
spin(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		a(10000000);
}

/* hot()'s loop, in a local function and its weak alias */
__attribute__((noinline)) static void
hot_local(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	store(x);
}

void hot_weak(unsigned long n) __attribute__((weak, alias("hot_local")));

static void
spin_weak(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		hot_weak(10000000);
}

/* a sizeless symbol with an instruction, in a section of its own */
__asm__(".section .hot_mark,\"ax\"\n"
	".globl hot_mark\n"
	".type hot_mark, %function\n"
	"hot_mark:\n"
	"nop\n"
	".previous\n");

__attribute__((noinline, section(".hot_anon"))) void
hot_anon(unsigned long n)
{
	unsigned long x = sink;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ul + 1442695040888963407ul;
	store(x);
}

static void
spin_anon(double ms)
{
	double end = cpu_ms() + ms;

	while (cpu_ms() < end)
		hot_anon(10000000);
}

/* clock reads (in the vDSO) or getauxval() calls for @ms of CPU time */
static void
spin_calls(double ms, bool vdso)
{
	double end = cpu_ms() + ms;
	struct timespec ts;

	while (cpu_ms() < end)
		for (int i = 0; i < 100000; i++) {
			if (vdso) {
				clock_gettime(CLOCK_MONOTONIC, &ts);
				sink += (unsigned long)ts.tv_nsec;
			} else {
				sink += getauxval(AT_PAGESZ);
			}
		}
}

/*
 * The loop with the frame pointer on a made-up frame: no caller, and a
 * return address 0x40 into the program's ELF header (its program
 * headers), which the first, read-only mapping of the file holds.  The
 * frame pointer is put back before anything else runs.
 */
extern const char __ehdr_start[];
static const void *frame[2];

static void
spin_headers(double ms)
{
	double end = cpu_ms() + ms;

	frame[1] = __ehdr_start + 0x40;
	while (cpu_ms() < end) {
		unsigned long n = 10000000, saved;

#if defined(__x86_64__)
		__asm__ volatile("mov %%rbp, %1\n\t"
				 "mov %2, %%rbp\n\t"
				 "1: dec %0\n\t"
				 "jnz 1b\n\t"
				 "mov %1, %%rbp"
				 : "+r"(n), "=&r"(saved)
				 : "r"(frame)
				 : "memory", "cc");
#elif defined(__aarch64__)
		__asm__ volatile("mov %1, x29\n\t"
				 "mov x29, %2\n\t"
				 "1: subs %0, %0, #1\n\t"
				 "b.ne 1b\n\t"
				 "mov x29, %1"
				 : "+r"(n), "=&r"(saved)
				 : "r"(frame)
				 : "memory", "cc");
#else
		a(n), saved = 0;
#endif
		sink += saved & 1;
	}
}

int
main(int argc, char **argv)
{
	double ms = argc > 1 ? atof(argv[1]) : 100;
	bool vdso = argc > 2 && !strcmp(argv[2], "vdso");
	bool plt = argc > 2 && !strcmp(argv[2], "plt");
	bool headers = argc > 2 && !strcmp(argv[2], "headers");
	bool weak = argc > 2 && !strcmp(argv[2], "weak");
	bool anon = argc > 2 && !strcmp(argv[2], "anon");
	pid_t pid;

	if (argc > 2 && !strcmp(argv[2], "exec")) {
		execl(argv[0], argv[0], argv[1], (char *)NULL);
		return 126;
	}
	if (argc > 2 &&
	    (vdso || plt || headers || weak || anon ||
	     !strcmp(argv[2], "fork"))) {
		pid = fork();
		if (pid == 0) {
			if (headers)
				spin_headers(ms);
			else if (weak)
				spin_weak(ms);
			else if (anon)
				spin_anon(ms);
			else if (vdso || plt)
				spin_calls(ms, vdso);
			else
				spin(ms);
			_exit(0);
		}
		return waitpid(pid, NULL, 0) == pid ? 0 : 1;
	}
	spin(ms);
	return 0;
}
