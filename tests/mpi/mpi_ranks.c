/* SPDX-License-Identifier: MIT */
/*
 * mpi_ranks - an MPI program whose page faults are known per rank: rank r
 * touches (r + 1) * PAGES fresh pages, in region "touch" when built with
 * REGIONS (it then links libpctr and marks the region), then meets the
 * other ranks in a barrier and an allreduce.  Built without REGIONS it
 * knows nothing of pctr: the program a user preloads libpctr-mpi into.
 * "sleep" as the first argument: after a first barrier rank 0 sleeps
 * 200 ms before a second, so that the other ranks wait inside MPI about
 * that long and rank 0 spends it outside.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#ifdef REGIONS
#include <pctr.h>
#endif

#define PAGES 64

/*
 * No transparent huge pages: one fault per page, as counted.  Not
 * instrumented: AddressSanitizer's checks of the stores would fault in
 * the shadow pages of the new memory too (9 more for 64 pages).
 */
#if defined(__has_attribute) && __has_attribute(no_sanitize_address)
__attribute__((no_sanitize_address))
#endif
static void
touch(long pages)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, (size_t)(pages * page),
				PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return;
	madvise((void *)p, (size_t)(pages * page), MADV_NOHUGEPAGE);
	for (long i = 0; i < pages; i++)
		p[i * page] = 1;
	munmap((void *)p, (size_t)(pages * page));
}

int
main(int argc, char **argv)
{
	int rank, sum = 0, one = 1;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	touch(1); /* the loop's own code and stack, before the region */
#ifdef REGIONS
	pctr_region_begin("touch");
#endif
	touch((long)(rank + 1) * PAGES);
#ifdef REGIONS
	pctr_region_end("touch");
#endif
	MPI_Barrier(MPI_COMM_WORLD);
	if (argc > 1 && !strcmp(argv[1], "sleep")) {
		if (rank == 0)
			nanosleep(&(struct timespec){ 0, 200000000 }, NULL);
		MPI_Barrier(MPI_COMM_WORLD);
	}
	MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (rank == 0)
		printf("ranks %d\n", sum);
	MPI_Finalize();
	return 0;
}
