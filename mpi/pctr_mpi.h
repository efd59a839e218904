/* SPDX-License-Identifier: MIT */
/*
 * pctr_mpi.h - what the parts of libpctr-mpi share (nothing public: the
 * library's interface is MPI's own, intercepted, pctr_mpi(3)).
 */
#ifndef PCTR_MPI_INTERNAL_H
#define PCTR_MPI_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <pctr.h>

/* one region of one rank, as it came back */
struct mpi_region {
	char name[PCTR_NAME_MAX];
	double seconds; /* its intervals' time, summed */
	int threads;
	struct pctr_stats *st;
};

/* one rank, as it came back (nr < 0: its data could not be read) */
struct mpi_rank {
	int rank;
	char host[64];
	double run_s; /* MPI_Init to MPI_Finalize */
	double mpi_s; /* inside blocking MPI calls */
	int nr;
	struct mpi_region *reg;
	char why[128]; /* nr < 0: why */
};

/*
 * pmpi.c: what MPI_Init and MPI_Finalize add (also for Fortran's, in
 * pmpi_fortran.c), and the time inside blocking calls: t0 =
 * pctr_mpi__enter() before one, pctr_mpi__leave(t0) after.
 */
void pctr_mpi__start(void);
void pctr_mpi__stop(void);
uint64_t pctr_mpi__enter(void);
void pctr_mpi__leave(uint64_t t0);

/* blob.c: a rank's regions in bytes that any host reads back */
int pctr_mpi__encode(int rank, double run_s, double mpi_s,
		     unsigned char **buf, size_t *len);
int pctr_mpi__decode(const unsigned char *buf, size_t len,
		     struct mpi_rank *out);
void pctr_mpi__rank_free(struct mpi_rank *r);

/* report.c: the ranks reduced, written to a $PCTR_REPORT destination */
bool pctr_mpi__report_dest_ok(const char *dest);
bool pctr_mpi__report_file_ok(const char *dest);
int pctr_mpi__report(const char *dest, const struct mpi_rank *ranks,
		     int size, double gather_s);

#endif
