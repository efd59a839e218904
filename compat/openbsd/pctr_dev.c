/* SPDX-License-Identifier: MIT */
/*
 * pctr_dev.c - OpenBSD's /dev/pctr over libpctr.
 *
 * The driver's contract (pctr(4), sys/arch/amd64/amd64/pctr.c):
 *   PCIOCRD   the functions, the TSC and the counters; without counters
 *             only the TSC (the rest of the buffer is zero, as the kernel
 *             clears it).
 *   PCIOCSn   ENODEV without counters, EPERM if not open for writing,
 *             EINVAL for reserved bits (0x380000); else counter n is reset
 *             to zero and runs the function, counting only if PCTR_EN is
 *             set; function 0 turns it off.
 *   other     EINVAL.
 * The counters belong to the process (not to the descriptor), so a setting
 * survives close() and a later open(), as the hardware's does.
 *
 * Thread-safe, and PCIOCRD and rdpmc() are async-signal-safe: readers
 * take no lock, PCIOCSn takes one with signals blocked (bsd_sync.h).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include "pctr.h"
#include <machine/pctr.h>

#include "bsd_counter.h"
#include "bsd_sync.h"
#include "devsw.h"
#include "rdpmc.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

struct counter {
	atomic_uint fn;
	_Atomic(struct pctr_set *) set; /* NULL: off, or counting nothing */
};

static struct counter ctr[PCTR_NUM];

static int
pctr_open(int oflags)
{
	return 0;
}

static void
pctr_close(int oflags)
{
}

static int
pctr_read_all(struct pctrst *st)
{
	int r = 0;

	memset(st, 0, sizeof(*st));
	pctr_bsd_read_begin();
	st->pctr_tsc = pctr_tsc();
	for (int i = 0; i < PCTR_NUM && r == 0; i++) {
		uint64_t v;

		st->pctr_fn[i] = atomic_load(&ctr[i].fn);
		r = pctr_bsd_counter_read(atomic_load(&ctr[i].set), &v);
		st->pctr_hwc[i] = v;
	}
	pctr_bsd_read_end();
	return pctr_bsd_errno(r);
}

/* program counter @n; a failure leaves the counter as it was */
static int
pctr_select(int oflags, int n, uint32_t fn)
{
	struct pctr_set *set = NULL;
	struct pctr_event ev;
	sigset_t old;
	int r;

	if (!pctr_bsd_have_counters())
		return ENODEV;
	if (!pctr_bsd_fwrite(oflags))
		return EPERM;
	if (fn & PCTR_FN_RESERVED)
		return EINVAL;
	r = fn ? pctr_bsd_fn_event(fn, &ev) : 1;
	if (r == 0)
		r = pctr_bsd_counter_open(&ev, fn & PCTR_EN, &set);
	if (r < 0)
		return pctr_bsd_errno(r);
	pctr_bsd_write_lock(&old);
	if (set && pctr_bsd_adopt() < 0) {
		pctr_bsd_write_unlock(&old);
		pctr_set_free(set);
		return ENOMEM;
	}
	pctr_openbsd_rdpmc_install((unsigned int)n, set);
	set = atomic_exchange(&ctr[n].set, set);
	atomic_store(&ctr[n].fn, fn);
	pctr_bsd_retire(set, true);
	pctr_bsd_write_unlock(&old);
	return 0;
}

static int
pctr_ioctl(int oflags, unsigned long req, void *arg)
{
	if (req == PCIOCRD)
		return pctr_read_all(arg);
	if (req >= PCIOCS0 && req <= PCIOCS3)
		return pctr_select(oflags, (int)(req - PCIOCS0),
				   *(unsigned int *)arg);
	return EINVAL;
}

PCTR_EXPORT const struct pctr_bsd_dev pctr_openbsd_dev = {
	.path = _PATH_PCTR,
	.open = pctr_open,
	.ioctl = pctr_ioctl,
	.close = pctr_close,
};

/*
 * rdpmc()'s slow read (its fast one: rdpmc.c): the counter's set, for
 * a counter of the whole process, of another thread, not on the hardware
 * now, or read while a writer changes it.  A counter of the process is
 * read with read(2) (pctr_openbsd(4) says what that costs).
 */
pctrval
pctr_openbsd_rdpmc_slow(unsigned int n)
{
	struct pctr_set *set;
	uint64_t v;

	if (n >= PCTR_NUM)
		return 0;
	pctr_bsd_read_begin();
	set = atomic_load(&ctr[n].set);
	if (!set || pctr_set_read_values(set, &v) < 0)
		v = 0;
	pctr_bsd_read_end();
	return v;
}

__attribute__((constructor)) static void
pctr_dev_atfork(void)
{
	pthread_atfork(NULL, NULL, pctr_openbsd_rdpmc_forked);
}
