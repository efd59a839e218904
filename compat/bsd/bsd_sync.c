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
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "bsd_sync.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
atomic_int pctr_bsd_readers;
/*
 * Room to park every set a writer has installed (nr_sets, counted by
 * pctr_bsd_adopt() and uncounted when freed): retiring never waits and
 * never allocates, not even in a signal handler that interrupted a read
 * of its own thread, whose reader cannot finish until the handler returns.
 */
static struct pctr_set **parked;
static int nr_parked, cap_parked, nr_sets;

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
	atomic_store(&pctr_bsd_readers, 0);
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
	if (atomic_load(&pctr_bsd_readers) != 0)
		return;
	while (nr_parked > 0) {
		pctr_set_free(parked[--nr_parked]);
		nr_sets--;
	}
}

int
pctr_bsd_adopt(void)
{
	if (nr_sets == cap_parked) {
		int cap = cap_parked ? 2 * cap_parked : 16;
		struct pctr_set **p = realloc(parked, cap * sizeof(*p));

		if (!p)
			return -ENOMEM;
		parked = p;
		cap_parked = cap;
	}
	nr_sets++;
	return 0;
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
	/*
	 * What earlier retires parked is freed here even when there is no
	 * set to retire: a setup of a counter that a close left empty is
	 * the first chance (a device opened, set up and closed in a loop
	 * kept every round's sets and their descriptors).
	 */
	if (may_free)
		reap();
	if (!set)
		return;
	if (may_free && atomic_load(&pctr_bsd_readers) == 0) {
		pctr_set_free(set);
		nr_sets--;
		return;
	}
	/* adopted, so there is room: nr_parked < nr_sets <= cap_parked */
	parked[nr_parked++] = set;
}

int
pctr_bsd_nr_parked(void)
{
	return nr_parked;
}

/* what is parked at exit, so that no set is lost */
__attribute__((destructor)) static void
bsd_sync_exit(void)
{
	reap();
}
