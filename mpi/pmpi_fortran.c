/* SPDX-License-Identifier: MIT */
/*
 * pmpi_fortran.c - MPI_INIT, MPI_FINALIZE and the blocking calls of
 * Fortran programs, intercepted as pmpi.c intercepts C's.
 *
 * Open MPI's Fortran bindings do not call the C MPI_Init: its mpi_init_
 * (mpif.h and "use mpi", libmpi_mpifh) and mpi_init_f08_ ("use mpi_f08",
 * libmpi_usempif08) call PMPI_Init directly, and so for every call (in
 * Open MPI 4.1, "nm -D libmpi_mpifh.so" lists PMPI_Init, PMPI_Barrier...
 * as undefined, and no MPI_Init).  A PMPI library of C names alone sees
 * nothing of a Fortran program.  So this file defines the Fortran names,
 * as gfortran spells them, for both bindings, and calls the Fortran
 * profiling entry points (pmpi_init_, pmpi_init_f08_...), which MPI
 * defines for this.  Their arguments are all addresses (no strings, so no
 * hidden lengths): they are passed on as they came.  The library links
 * MPI's Fortran libraries for them (mpi/meson.build): a Fortran program
 * whose every MPI call is one of these needs no MPI library of its own,
 * and, linked --as-needed, has none (the PMPI names were weak once, and
 * such a program called address 0).
 *
 * Whether MPI started is asked of MPI (PMPI_Initialized), not read from
 * the error argument, which "use mpi_f08" makes optional (NULL).
 */
#include <mpi.h>

#include "pctr_mpi.h"

#define P void *

/* an initialisation call NAME (mpi_NAME_, mpi_NAME_f08_) */
#define INIT(name, params, args)                                              \
	void pmpi_##name params;                        \
	void mpi_##name params;                                               \
	void mpi_##name params                                                \
	{                                                                     \
		int on = 0;                                                   \
                                                                              \
		pmpi_##name args;                                             \
		if (PMPI_Initialized(&on) == MPI_SUCCESS && on)               \
			pctr_mpi__start();                                    \
	}

INIT(init_, (P e), (e))
INIT(init_f08_, (P e), (e))
INIT(init_thread_, (P req, P prov, P e), (req, prov, e))
INIT(init_thread_f08_, (P req, P prov, P e), (req, prov, e))

/* the job's report first, while MPI still runs */
#define FINALIZE(name)                                                        \
	void pmpi_##name(P e);                          \
	void mpi_##name(P e);                                                 \
	void mpi_##name(P e)                                                  \
	{                                                                     \
		pctr_mpi__stop();                                             \
		pmpi_##name(e);                                               \
	}

FINALIZE(finalize_)
FINALIZE(finalize_f08_)

/* a blocking call NAME, timed as pmpi.c times C's, in both bindings */
#define TIMED_ONE(name, params, args)                                         \
	void pmpi_##name params;                        \
	void mpi_##name params;                                               \
	void mpi_##name params                                                \
	{                                                                     \
		uint64_t t0 = pctr_mpi__enter();                              \
                                                                              \
		pmpi_##name args;                                             \
		pctr_mpi__leave(t0);                                          \
	}
#define TIMED(name, params, args)                                             \
	TIMED_ONE(name##_, params, args)                                      \
	TIMED_ONE(name##_f08_, params, args)

TIMED(send, (P b, P n, P t, P d, P tag, P c, P e), (b, n, t, d, tag, c, e))
TIMED(ssend, (P b, P n, P t, P d, P tag, P c, P e), (b, n, t, d, tag, c, e))
TIMED(recv, (P b, P n, P t, P s, P tag, P c, P st, P e),
      (b, n, t, s, tag, c, st, e))
TIMED(sendrecv,
      (P sb, P sn, P stp, P d, P stag, P rb, P rn, P rtp, P s, P rtag, P c,
       P st, P e),
      (sb, sn, stp, d, stag, rb, rn, rtp, s, rtag, c, st, e))
TIMED(probe, (P s, P tag, P c, P st, P e), (s, tag, c, st, e))
TIMED(wait, (P r, P st, P e), (r, st, e))
TIMED(waitall, (P n, P r, P st, P e), (n, r, st, e))
TIMED(waitany, (P n, P r, P i, P st, P e), (n, r, i, st, e))
TIMED(barrier, (P c, P e), (c, e))
TIMED(bcast, (P b, P n, P t, P root, P c, P e), (b, n, t, root, c, e))
TIMED(reduce, (P sb, P rb, P n, P t, P op, P root, P c, P e),
      (sb, rb, n, t, op, root, c, e))
TIMED(allreduce, (P sb, P rb, P n, P t, P op, P c, P e),
      (sb, rb, n, t, op, c, e))
TIMED(gather, (P sb, P sn, P st, P rb, P rn, P rt, P root, P c, P e),
      (sb, sn, st, rb, rn, rt, root, c, e))
TIMED(allgather, (P sb, P sn, P st, P rb, P rn, P rt, P c, P e),
      (sb, sn, st, rb, rn, rt, c, e))
TIMED(scatter, (P sb, P sn, P st, P rb, P rn, P rt, P root, P c, P e),
      (sb, sn, st, rb, rn, rt, root, c, e))
TIMED(alltoall, (P sb, P sn, P st, P rb, P rn, P rt, P c, P e),
      (sb, sn, st, rb, rn, rt, c, e))
