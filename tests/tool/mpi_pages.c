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
 *
 * Built without sanitizers: their run-time would add faults of its own.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static void
touch(long n)
{
	long page = sysconf(_SC_PAGESIZE);
	char *p;

	if (n == 0)
		return;
	p = mmap(NULL, n * page, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		exit(99);
	madvise(p, n * page, MADV_NOHUGEPAGE);
	for (long i = 0; i < n; i++)
		((volatile char *)p)[i * page] = 1;
}

int
main(int argc, char **argv)
{
	const char *r = getenv("OMPI_COMM_WORLD_RANK");
	long rank = r ? atol(r) : -1;
	long n = argc > 1 ? atol(argv[1]) * (rank + 1) : 0;
	bool me = argc > 3 && atol(argv[3]) == rank;

	touch(n);
	printf("rank %ld touched %ld pages\n", rank, n);
	fprintf(stderr, "rank %ld: stderr passes through\n", rank);
	fflush(NULL);
	if (me && !strcmp(argv[2], "exit"))
		return argc > 4 ? atoi(argv[4]) : 1;
	if (me && !strcmp(argv[2], "raise"))
		raise(SIGKILL);
	if (me && !strcmp(argv[2], "kill"))
		kill(getppid(), SIGKILL);
	return 0;
}
