/* SPDX-License-Identifier: MIT */
/*
 * bsd_sync.c - readers without locks, writers with one (see bsd_sync.h).
 *
 * Why a retired set is safe to free once the reader count is zero: a
 * writer stores the new set (sequentially consistent) before it reads the
 * count; a reader adds itself to the count before it loads a set.  A
 * reader not counted by then loads the new set; one counted is waited
 * for, by parking.
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>

#include "bsd_sync.h"

#define MAX_PARKED 16

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static atomic_int readers;
static struct pctr_set *parked[MAX_PARKED];
static int nr_parked;

void
pctr_bsd_read_begin(void)
{
	atomic_fetch_add(&readers, 1);
}

void
pctr_bsd_read_end(void)
{
	atomic_fetch_sub(&readers, 1);
}

/*
 * fork() from a threaded program: the child must not inherit the lock held
 * by a thread that does not exist there, nor the count of readers that
 * were in other threads.  Held across the fork, released on both sides;
 * signals stay blocked from the lock to the release, so that a handler of
 * the forking thread cannot wait for the lock it holds.
 */
static __thread sigset_t fork_mask;

static void
fork_prepare(void)
{
	pctr_bsd_write_lock(&fork_mask);
}

static void
fork_parent(void)
{
	pctr_bsd_write_unlock(&fork_mask);
}

static void
fork_child(void)
{
	atomic_store(&readers, 0);
	pctr_bsd_write_unlock(&fork_mask);
}

__attribute__((constructor)) static void
bsd_sync_atfork(void)
{
	pthread_atfork(fork_prepare, fork_parent, fork_child);
}

/* free the parked sets if no reader can hold one; writer lock held */
static void
reap(void)
{
	if (atomic_load(&readers) != 0)
		return;
	while (nr_parked > 0)
		pctr_set_free(parked[--nr_parked]);
}

void
pctr_bsd_write_lock(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, old);
	pthread_mutex_lock(&lock);
}

void
pctr_bsd_write_unlock(const sigset_t *old)
{
	pthread_mutex_unlock(&lock);
	pthread_sigmask(SIG_SETMASK, old, NULL);
}

void
pctr_bsd_retire(struct pctr_set *set, bool may_free)
{
	if (!set)
		return;
	if (may_free)
		reap();
	if (may_free && atomic_load(&readers) == 0) {
		pctr_set_free(set);
		return;
	}
	/* full: a reader of another thread finishes within its read */
	while (nr_parked == MAX_PARKED) {
		sched_yield();
		reap();
	}
	parked[nr_parked++] = set;
}

/* what is parked at exit, so that no set is lost */
__attribute__((destructor)) static void
bsd_sync_exit(void)
{
	reap();
}
