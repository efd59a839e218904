/* SPDX-License-Identifier: MIT */
/*
 * mpi_pages - a rank of test_mpirun's jobs, started by mpirun (no MPI
 * calls): touches PAGES * (rank + 1) fresh pages, the rank read from
 * $OMPI_COMM_WORLD_RANK, so that every rank's page faults are known; says
 * so on standard output and standard error.  Then, if asked, on one rank:
 *
 *   exit RANK CODE   exits with CODE
 *   raise RANK       is killed by SIGKILL
 *   kill RANK        kills its parent (the pctr stat around it), so that
 *                    the rank never reports, then exits 0
 *   say TEXT...      rank R writes the R-th TEXT to standard error as it
 *                    is, no newline added (a progress meter, a line that
 *                    looks like pctr's own): no page is touched for it
 *
 * Its own page faults must be the same in every run, so it is built
 * freestanding: static, no C library, its own _start and raw system calls
 * (x86-64 and arm64), text and read-only data of a page each, a stack of
 * its own.  A program with the C library faults in the pages of ld.so and
 * libc through the kernel's fault-around, which maps the neighbours of a
 * faulting page that are in the page cache and not locked at that moment:
 * with other processes starting at the same time (the other ranks, the
 * machine's other users) some neighbours are skipped and fault later, one
 * job in a few dozen (measured: 553 faults where 552 were expected), and
 * its stack and heap move with address-space randomisation (47 to 53
 * faults over 30 runs).  Here a mapping of one page has no neighbour to
 * skip and nothing used moves: 3 faults in each of 30 runs, with or
 * without randomisation.  No sanitizer either: its run-time would bring
 * the C library back.
 */
#include <stddef.h>

#define SIGKILL 9
#define PAGE 4096 /* at least: pages are touched PAGE bytes apart */

#if defined(__x86_64__)
#define NR_WRITE 1
#define NR_MMAP 9
#define NR_MADVISE 28
#define NR_GETPID 39
#define NR_KILL 62
#define NR_GETPPID 110
#define NR_EXIT_GROUP 231

static long
sys(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			   "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/*
 * The kernel's stack at entry: argc, argv..., NULL, envp..., NULL.  The
 * program runs on a stack of its own: see below.
 */
__asm__(".globl _start\n"
	"_start:\n"
	"	xor %rbp, %rbp\n"
	"	mov %rsp, %rdi\n"
	"	lea stack+16384(%rip), %rsp\n"
	"	call start\n"
	"	hlt\n");
#elif defined(__aarch64__)
#define NR_WRITE 64
#define NR_MMAP 222
#define NR_MADVISE 233
#define NR_GETPID 172
#define NR_KILL 129
#define NR_GETPPID 173
#define NR_EXIT_GROUP 94

static long
sys(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	register long x3 __asm__("x3") = d;
	register long x4 __asm__("x4") = e;
	register long x5 __asm__("x5") = f;

	__asm__ volatile("svc 0"
			 : "+r"(x0)
			 : "r"(x8), "r"(x1), "r"(x2), "r"(x3), "r"(x4), "r"(x5)
			 : "memory");
	return x0;
}

__asm__(".globl _start\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x0, sp\n"
	"	adrp x1, stack\n"
	"	add x1, x1, :lo12:stack\n"
	"	add x1, x1, #16384\n"
	"	mov sp, x1\n"
	"	bl start\n"
	"	brk #0\n");
#else
#error "mpi_pages: raw system calls for x86-64 and arm64 only"
#endif

/*
 * The stack the program runs on, at a fixed address: the kernel's stack
 * ends where the environment's size puts it, which mpirun changes from
 * job to job (its URI, the job's number), so frames there would cross
 * into a new page in some jobs and not in others.
 */
__attribute__((used, aligned(16))) char stack[16384];

#define PROT_RW 3 /* PROT_READ | PROT_WRITE */
#define MAP_PRIVATE_ANON 0x22 /* MAP_PRIVATE | MAP_ANONYMOUS */
#define MADV_NOHUGEPAGE 15

static __attribute__((noreturn)) void
quit(long code)
{
	sys(NR_EXIT_GROUP, code, 0, 0, 0, 0, 0);
	for (;;)
		;
}

static long
number(const char *s)
{
	long n = 0;

	while (s && *s >= '0' && *s <= '9')
		n = n * 10 + (*s++ - '0');
	return n;
}

static int
same(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static const char *
env(char **envp, const char *name)
{
	for (; *envp; envp++) {
		const char *e = *envp, *n = name;

		while (*n && *e == *n)
			e++, n++;
		if (!*n && *e == '=')
			return e + 1;
	}
	return NULL;
}

/* "rank R touched N pages\n" or "rank R: stderr passes through\n" */
static void
say(int fd, long rank, long n)
{
	static const char *const tail[] = { " pages\n",
					    ": stderr passes through\n" };
	char buf[96], num[24];
	size_t len = 0;
	long v[2] = { rank, n };

	for (const char *p = "rank "; *p; p++)
		buf[len++] = *p;
	for (int k = 0; k < (fd == 1 ? 2 : 1); k++) {
		int d = 0;

		if (k == 1)
			for (const char *p = " touched "; *p; p++)
				buf[len++] = *p;
		do
			num[d++] = (char)('0' + v[k] % 10);
		while (v[k] /= 10);
		while (d)
			buf[len++] = num[--d];
	}
	for (const char *p = tail[fd == 1 ? 0 : 1]; *p; p++)
		buf[len++] = *p;
	sys(NR_WRITE, fd, (long)buf, (long)len, 0, 0, 0);
}

static void
touch(long n)
{
	long p;

	if (n == 0)
		return;
	p = sys(NR_MMAP, 0, n * PAGE, PROT_RW, MAP_PRIVATE_ANON, -1, 0);
	if (p < 0 && p > -4096)
		quit(99);
	sys(NR_MADVISE, p, n * PAGE, MADV_NOHUGEPAGE, 0, 0, 0);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * PAGE] = 1;
}

__attribute__((used, noreturn)) void
start(long *sp)
{
	long argc = sp[0];
	char **argv = (char **)(sp + 1), **envp = argv + argc + 1;
	const char *r = env(envp, "OMPI_COMM_WORLD_RANK");
	long rank = r ? number(r) : 0;
	long n = argc > 1 ? number(argv[1]) * (rank + 1) : 0;
	int me = argc > 3 && number(argv[3]) == rank;

	touch(n);
	say(1, rank, n);
	say(2, rank, 0);
	if (argc > 3 + rank && same(argv[2], "say")) {
		const char *t = argv[3 + rank];
		long len = 0;

		while (t[len])
			len++;
		sys(NR_WRITE, 2, (long)t, len, 0, 0, 0);
	}
	if (me && same(argv[2], "exit"))
		quit(argc > 4 ? number(argv[4]) : 1);
	if (me && same(argv[2], "raise"))
		sys(NR_KILL, sys(NR_GETPID, 0, 0, 0, 0, 0, 0), SIGKILL, 0, 0,
		    0, 0);
	if (me && same(argv[2], "kill"))
		sys(NR_KILL, sys(NR_GETPPID, 0, 0, 0, 0, 0, 0), SIGKILL, 0, 0,
		    0, 0);
	quit(0);
}
