/* SPDX-License-Identifier: MIT */
/*
 * tools/mpi.h - counts of many ranks (processes of an MPI job, or runs on
 * other hosts) reduced to one report: pctr merge and pctr mpirun.
 */
#ifndef PCTR_TOOL_MPI_H
#define PCTR_TOOL_MPI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* a rank's line on the stderr that mpirun forwards: the tag, the key */
#define MPI_TAG "@pctr-mpi/1 "

struct mpi_rank {
	long rank;
	char *host;
	char *file; /* the report it came from (pctr merge), or NULL */
	int exit_status; /* of its program, -1 unknown */
	int signal; /* that killed its program, 0 none */
	int nr; /* counts */
	int *event; /* index into mpi_report.event */
	uint64_t *value;
};

struct mpi_report {
	long size; /* ranks expected: 0 .. size - 1 */
	int nr_events;
	char **event;
	uint64_t *total; /* per event, over the ranks: never past 2^64 - 1 */
	int nr_ranks;
	struct mpi_rank *ranks;
	bool has_exit; /* the job's: pctr mpirun */
	int exit_status;
};

/*
 * Add the ranks of one report: the pctr-stat/1 or pctr-mpi/1 document in
 * @text (JSON Lines allowed: pctr-stat-interval/1 lines are skipped).  A
 * pctr-stat/1 document is rank @base; a pctr-mpi/1 document's ranks are
 * numbered from @base on.  @file names the report in messages and in the
 * ranks (NULL: not kept).  Return the number of ranks the report spans, or
 * -1 with the reason in @err (the report adds nothing then).
 */
long mpi_report_read(struct mpi_report *r, const char *text, size_t len,
		     const char *file, long base, char *err, size_t errlen);

/*
 * Ranks 0 .. size - 1 that have no counts, at most @max into @out; return
 * how many.  Sorts the ranks.
 */
long mpi_report_missing(struct mpi_report *r, long *out, long max);

/* the report as text (with every rank when @per_rank) or pctr-mpi/1 */
void mpi_report_print(FILE *f, struct mpi_report *r, bool json,
		      bool per_rank);

/* one rank as a single pctr-mpi/1 line, without its newline */
char *mpi_rank_line(const struct mpi_report *r, int i);

/*
 * The report, made whole in memory first, to @f (out_open()'s, or stderr),
 * which is then closed with out_close(): nothing is half-written.  Return
 * 0, or 1 with a message.
 */
int mpi_report_write(struct mpi_report *r, FILE *f, bool json,
		     bool per_rank);

/* forget the ranks from @keep on */
void mpi_report_drop(struct mpi_report *r, int keep);
void mpi_report_free(struct mpi_report *r);

#endif
