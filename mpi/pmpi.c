/* SPDX-License-Identifier: MIT */
/*
 * pmpi.c - libpctr-mpi's side of MPI's profiling interface: the library
 * defines MPI_Init, MPI_Finalize and the blocking calls, and calls the
 * implementation through their PMPI_ names.  Linked into a program, or
 * preloaded into one that was not (mpirun -x LD_PRELOAD=libpctr-mpi.so).
 *
 * MPI_Init: regions are switched on ($PCTR_EVENTS, or task-clock,
 * page-faults and context-switches), each process's own report at exit is
 * cancelled (this library writes one for the job instead), and the region
 * RUN_REGION opens: the whole run is measured even in a program that
 * defines no region of its own.
 *
 * The blocking calls: the time inside them is summed per rank (the
 * timestamp counter before and after, the outermost call only).
 *
 * MPI_Finalize: RUN_REGION closes, every rank's regions are packed
 * (blob.c) and gathered to rank 0, which reduces them and writes the
 * report to $PCTR_REPORT, standard error by default (report.c).  Then the
 * implementation's MPI_Finalize.  Only this library's own PMPI calls are
 * made meanwhile, on MPI_COMM_WORLD.
 */
#include <mpi.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pctr_mpi.h"

#define RUN_REGION "MPI_Init..MPI_Finalize"
#define DEFAULT_EVENTS "task-clock,page-faults,context-switches"

static struct {
	bool on; /* MPI_Init went through this library */
	bool in_run; /* RUN_REGION is open */
	uint64_t t0; /* the timestamp counter at MPI_Init */
	_Atomic uint64_t mpi_ticks; /* inside blocking calls, every thread */
	char report[4096]; /* $PCTR_REPORT, or "stderr" */
} job;

static __thread int depth; /* blocking calls this thread is inside */

static void
say(const char *what, int err)
{
	fprintf(stderr, "libpctr-mpi: %s: %s\n", what, pctr_strerror(err));
}

void
pctr_mpi__start(void)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = DEFAULT_EVENTS,
					  .calibrate = PCTR_REGION_CALIBRATE };
	const char *dest = secure_getenv("PCTR_REPORT");
	int r, rank;

	if (job.on)
		return; /* an MPI whose Fortran MPI_INIT calls C's MPI_Init */
	snprintf(job.report, sizeof(job.report), "%s",
		 dest && *dest ? dest : "stderr");
	if (!pctr_mpi__report_dest_ok(job.report)) {
		fprintf(stderr, "libpctr-mpi: PCTR_REPORT=%s: the job's report "
				"is text:FILE, json:FILE, '-' or 'stderr'; "
				"writing it to standard error\n",
			job.report);
		snprintf(job.report, sizeof(job.report), "stderr");
	}
	/*
	 * A FIFO or a device named there: said now, by rank 0 (which writes
	 * the report), not after the run; the report keeps its form and goes
	 * to standard error.
	 */
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	if (rank == 0 && !pctr_mpi__report_file_ok(job.report)) {
		char form[6]; /* "text:" or "json:" */

		snprintf(form, sizeof(form), "%s", job.report);
		snprintf(job.report, sizeof(job.report), "%s-", form);
	}
	r = pctr_region_init(&cfg);
	if (r < 0 && r != -EALREADY) {
		say("regions", r);
		return;
	}
	if ((r = pctr_region_report(NULL)) < 0) {
		say("the report at exit", r);
		return;
	}
	job.on = true;
	job.t0 = pctr_tsc();
	r = pctr_region_begin(RUN_REGION);
	if (r < 0)
		say(RUN_REGION, r);
	job.in_run = r == 0;
}

int
MPI_Init(int *argc, char ***argv)
{
	int r = PMPI_Init(argc, argv);

	if (r == MPI_SUCCESS)
		pctr_mpi__start();
	return r;
}

int
MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	int r = PMPI_Init_thread(argc, argv, required, provided);

	if (r == MPI_SUCCESS)
		pctr_mpi__start();
	return r;
}

/* ---- MPI_Finalize: every rank's regions to rank 0 ------------------------ */

/* rank 0: each rank's block, read back (NULL on failure) */
static struct mpi_rank *
gather(const unsigned char *blob, size_t len, int rank, int size)
{
	int *lens = NULL, *offs = NULL, n = (int)len;
	unsigned char *all = NULL;
	struct mpi_rank *ranks = NULL;
	long total = 0;

	if (rank == 0) {
		lens = calloc((size_t)size, sizeof(*lens));
		offs = calloc((size_t)size, sizeof(*offs));
	}
	PMPI_Gather(&n, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; rank == 0 && lens && offs && i < size; i++) {
		offs[i] = (int)total;
		total += lens[i];
	}
	if (rank == 0)
		all = malloc(total ? (size_t)total : 1);
	PMPI_Gatherv(blob, n, MPI_BYTE, all, lens, offs, MPI_BYTE, 0,
		     MPI_COMM_WORLD);
	if (rank == 0 && all && lens)
		ranks = calloc((size_t)size, sizeof(*ranks));
	for (int i = 0; ranks && i < size; i++) {
		ranks[i].rank = i;
		if (lens[i] == 0) {
			ranks[i].nr = -1;
			snprintf(ranks[i].why, sizeof(ranks[i].why),
				 "measured nothing (see its standard error)");
		} else if (pctr_mpi__decode(all + offs[i], (size_t)lens[i],
					    &ranks[i]) == 0 &&
			   ranks[i].rank != i) {
			pctr_mpi__rank_free(&ranks[i]);
			ranks[i].nr = -1;
			snprintf(ranks[i].why, sizeof(ranks[i].why),
				 "its block names rank %d", ranks[i].rank);
		}
	}
	free(lens);
	free(offs);
	free(all);
	return ranks;
}

static void
finish(void)
{
	unsigned char *blob = NULL;
	size_t len = 0;
	int rank, size, r;
	double hz = (double)pctr_tsc_hz();
	double run_s = (double)(pctr_tsc() - job.t0) / hz;
	double mpi_s = (double)atomic_load(&job.mpi_ticks) / hz, gather_s;
	struct mpi_rank *ranks;
	uint64_t t0;

	if (job.in_run && (r = pctr_region_end(RUN_REGION)) < 0)
		say(RUN_REGION, r);
	if ((r = pctr_region_flush()) < 0)
		say("regions still open at MPI_Finalize", r);
	PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
	PMPI_Comm_size(MPI_COMM_WORLD, &size);
	if ((r = pctr_mpi__encode(rank, run_s, mpi_s, &blob, &len)) < 0) {
		say("packing this rank's regions", r);
		len = 0;
	}
	/* every rank here first: the time is the gather's, not the wait */
	PMPI_Barrier(MPI_COMM_WORLD);
	t0 = pctr_tsc();
	ranks = gather(blob, len, rank, size);
	gather_s = (double)(pctr_tsc() - t0) / hz;
	free(blob);
	if (rank == 0 && !ranks)
		fprintf(stderr, "libpctr-mpi: out of memory gathering the "
				"ranks' regions\n");
	if (ranks &&
	    (r = pctr_mpi__report(job.report, ranks, size, gather_s)) < 0)
		fprintf(stderr, "libpctr-mpi: the report %s: %s\n", job.report,
			strerror(-r));
	for (int i = 0; ranks && i < size; i++)
		pctr_mpi__rank_free(&ranks[i]);
	free(ranks);
}

void
pctr_mpi__stop(void)
{
	if (job.on) {
		job.on = false;
		finish();
	}
}

int
MPI_Finalize(void)
{
	pctr_mpi__stop();
	return PMPI_Finalize();
}

/* ---- blocking calls: the time inside them ------------------------------- */

uint64_t
pctr_mpi__enter(void)
{
	return depth++ ? 0 : pctr_tsc();
}

void
pctr_mpi__leave(uint64_t t0)
{
	if (--depth == 0)
		atomic_fetch_add(&job.mpi_ticks, pctr_tsc() - t0);
}

#define TIMED(call)                                                           \
	do {                                                                  \
		uint64_t t0_ = pctr_mpi__enter();                             \
		int r_ = call;                                                \
		pctr_mpi__leave(t0_);                                         \
		return r_;                                                    \
	} while (0)

int
MPI_Send(const void *buf, int n, MPI_Datatype t, int dest, int tag,
	 MPI_Comm comm)
{
	TIMED(PMPI_Send(buf, n, t, dest, tag, comm));
}

int
MPI_Ssend(const void *buf, int n, MPI_Datatype t, int dest, int tag,
	  MPI_Comm comm)
{
	TIMED(PMPI_Ssend(buf, n, t, dest, tag, comm));
}

int
MPI_Recv(void *buf, int n, MPI_Datatype t, int src, int tag, MPI_Comm comm,
	 MPI_Status *st)
{
	TIMED(PMPI_Recv(buf, n, t, src, tag, comm, st));
}

int
MPI_Sendrecv(const void *sbuf, int sn, MPI_Datatype st, int dest, int stag,
	     void *rbuf, int rn, MPI_Datatype rt, int src, int rtag,
	     MPI_Comm comm, MPI_Status *status)
{
	TIMED(PMPI_Sendrecv(sbuf, sn, st, dest, stag, rbuf, rn, rt, src, rtag,
			    comm, status));
}

int
MPI_Probe(int src, int tag, MPI_Comm comm, MPI_Status *st)
{
	TIMED(PMPI_Probe(src, tag, comm, st));
}

int
MPI_Wait(MPI_Request *req, MPI_Status *st)
{
	TIMED(PMPI_Wait(req, st));
}

int
MPI_Waitall(int n, MPI_Request reqs[], MPI_Status sts[])
{
	TIMED(PMPI_Waitall(n, reqs, sts));
}

int
MPI_Waitany(int n, MPI_Request reqs[], int *idx, MPI_Status *st)
{
	TIMED(PMPI_Waitany(n, reqs, idx, st));
}

int
MPI_Barrier(MPI_Comm comm)
{
	TIMED(PMPI_Barrier(comm));
}

int
MPI_Bcast(void *buf, int n, MPI_Datatype t, int root, MPI_Comm comm)
{
	TIMED(PMPI_Bcast(buf, n, t, root, comm));
}

int
MPI_Reduce(const void *sbuf, void *rbuf, int n, MPI_Datatype t, MPI_Op op,
	   int root, MPI_Comm comm)
{
	TIMED(PMPI_Reduce(sbuf, rbuf, n, t, op, root, comm));
}

int
MPI_Allreduce(const void *sbuf, void *rbuf, int n, MPI_Datatype t,
	      MPI_Op op, MPI_Comm comm)
{
	TIMED(PMPI_Allreduce(sbuf, rbuf, n, t, op, comm));
}

int
MPI_Gather(const void *sbuf, int sn, MPI_Datatype st, void *rbuf, int rn,
	   MPI_Datatype rt, int root, MPI_Comm comm)
{
	TIMED(PMPI_Gather(sbuf, sn, st, rbuf, rn, rt, root, comm));
}

int
MPI_Allgather(const void *sbuf, int sn, MPI_Datatype st, void *rbuf, int rn,
	      MPI_Datatype rt, MPI_Comm comm)
{
	TIMED(PMPI_Allgather(sbuf, sn, st, rbuf, rn, rt, comm));
}

int
MPI_Scatter(const void *sbuf, int sn, MPI_Datatype st, void *rbuf, int rn,
	    MPI_Datatype rt, int root, MPI_Comm comm)
{
	TIMED(PMPI_Scatter(sbuf, sn, st, rbuf, rn, rt, root, comm));
}

int
MPI_Alltoall(const void *sbuf, int sn, MPI_Datatype st, void *rbuf, int rn,
	     MPI_Datatype rt, MPI_Comm comm)
{
	TIMED(PMPI_Alltoall(sbuf, sn, st, rbuf, rn, rt, comm));
}
