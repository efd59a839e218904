/* SPDX-License-Identifier: MIT */
/*
 * bsd_sync.h - how the emulated drivers share their counters between
 * threads and signal handlers.
 *
 * On BSD an ioctl is a system call and rdpmc an instruction: a program may
 * read the counters from a signal handler that interrupted its own read
 * (a SIGPROF sampler, a SIGALRM ticker) and close the device there.  So:
 *  - readers (PCIOCRD, rdpmc(), PMIOREAD, PMIOGET) take no lock: they
 *    announce themselves (pctr_bsd_read_begin/end, an atomic count), load
 *    the counter's set with one atomic load and read it;
 *  - writers (programming, starting, stopping, closing) take one mutex with
 *    every signal blocked, so a handler never interrupts a writer of its
 *    own thread; a set they replace is retired: freed at once if no
 *    reader is about, else parked and freed by a later writer when none
 *    is (a reader that loaded it may still be using it).  Parking never
 *    waits: room for every installed set is made when it is installed.
 */
#ifndef PCTR_COMPAT_BSD_SYNC_H
#define PCTR_COMPAT_BSD_SYNC_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>

#include "pctr.h"

/* readers about now (bsd_sync.c); inline: rdpmc() is one call */
extern atomic_int pctr_bsd_readers;

static inline void
pctr_bsd_read_begin(void)
{
	atomic_fetch_add(&pctr_bsd_readers, 1);
}

static inline void
pctr_bsd_read_end(void)
{
	atomic_fetch_sub(&pctr_bsd_readers, 1);
}

void pctr_bsd_write_lock(sigset_t *old);
void pctr_bsd_write_unlock(const sigset_t *old);

/*
 * pctr_bsd_adopt() - a set is about to be installed for readers: make room
 * to park it when it is retired.  Writer lock held, not in a signal
 * handler (it may allocate).  Return: 0 or -ENOMEM (do not install it).
 */
int pctr_bsd_adopt(void);

/*
 * pctr_bsd_retire() - @set, adopted, no longer reachable by a reader that
 * starts now.  Writer lock held.  Freed at once when no reader is about and
 * @may_free; else parked, without waiting: a later writer frees it once no
 * reader is about.  With @may_free false (close(), which a signal handler
 * may call) nothing is freed: free() is not async-signal-safe.
 */
void pctr_bsd_retire(struct pctr_set *set, bool may_free);

/* the sets parked now (for tests) */
int pctr_bsd_nr_parked(void);

#endif
