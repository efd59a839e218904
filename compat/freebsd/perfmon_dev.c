/* SPDX-License-Identifier: MIT */
/*
 * perfmon_dev.c - FreeBSD's /dev/perfmon over libpctr.
 *
 * The driver's contract (perfmon(4), sys/i386/i386/perfmon.c):
 *   open      one descriptor open for writing at a time (EBUSY);
 *             closing it releases the counters it set up.
 *   PMIOSETUP needs FWRITE (EPERM), pmc_num < NPMC (EINVAL); the counter
 *             is programmed stopped and zero.  PMCF_INT and PMCF_EN are
 *             dropped, as the driver does.
 *   PMIOGET   the setup, PMCF_EN set while running; EBUSY if not set up.
 *   PMIOSTART, PMIOSTOP, PMIORESET
 *             need FWRITE; EINVAL for a bad number, EBUSY if not set up.
 *             A stopped counter keeps its value; reset zeroes it (the
 *             counter should be stopped first; like the driver, a running
 *             one simply continues from zero).
 *   PMIOREAD  the value; EINVAL, EBUSY as above.
 *   PMIOTSTAMP the TSC and its rate in MHz, a hint.
 *   other     ENOTTY.
 * Without counters PMIOSETUP fails with ENODEV and the TSC still reads.
 *
 * Thread-safe, and PMIOREAD, PMIOGET, PMIOTSTAMP and close() are
 * async-signal-safe: readers take no lock, writers take one with signals
 * blocked, and close() frees nothing (bsd_sync.h).
 */
#include <errno.h>
#include <stdatomic.h>
#include <string.h>

#include "pctr.h"
#include <machine/perfmon.h>

#include "bsd_counter.h"
#include "bsd_sync.h"
#include "devsw.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

/*
 * A counter's setup is published in one word, so that a reader sees one
 * setup whole: PMIOSTART and PMIOSTOP change the word, not the set.
 */
#define CTL_INUSE (1ull << 32)
#define CTL_EN ((unsigned long long)PMCF_EN << 16)

struct counter {
	atomic_ullong ctl; /* CTL_INUSE | pmc_val as set up, PMCF_EN running */
	_Atomic(struct pctr_set *) set; /* NULL: counts nothing */
};

static struct counter ctr[NPMC];
static bool writer;

/* take counter @c's set out of readers' reach; writer lock held */
static void
release(struct counter *c, bool may_free)
{
	atomic_store(&c->ctl, 0);
	pctr_bsd_retire(atomic_exchange(&c->set, NULL), may_free);
}

static int
perfmon_open(int oflags)
{
	sigset_t old;
	int err = 0;

	if (!pctr_bsd_fwrite(oflags))
		return 0;
	pctr_bsd_write_lock(&old);
	if (writer)
		err = EBUSY;
	writer = true;
	pctr_bsd_write_unlock(&old);
	return err;
}

/* the writer's last close; a signal handler may be the one closing */
static void
perfmon_close(int oflags)
{
	sigset_t old;

	if (!pctr_bsd_fwrite(oflags))
		return;
	pctr_bsd_write_lock(&old);
	for (int i = 0; i < NPMC; i++)
		release(&ctr[i], false);
	writer = false;
	pctr_bsd_write_unlock(&old);
}

static int
setup(const struct pmc *pmc)
{
	unsigned int ctl = pmc->pmc_val & ~((unsigned int)PMCF_SYS_FLAGS << 16);
	struct pctr_set *set = NULL;
	struct pctr_event ev;
	sigset_t old;
	int r;

	if (pmc->pmc_num < 0 || pmc->pmc_num >= NPMC)
		return EINVAL;
	if (!pctr_bsd_have_counters())
		return ENODEV;
	r = pctr_bsd_fn_event(ctl, &ev);
	if (r == 0)
		r = pctr_bsd_counter_open(&ev, false, &set);
	if (r < 0)
		return pctr_bsd_errno(r);
	pctr_bsd_write_lock(&old);
	if (set && pctr_bsd_adopt() < 0) {
		pctr_bsd_write_unlock(&old);
		pctr_set_free(set);
		return ENOMEM;
	}
	release(&ctr[pmc->pmc_num], true);
	atomic_store(&ctr[pmc->pmc_num].set, set);
	atomic_store(&ctr[pmc->pmc_num].ctl, CTL_INUSE | ctl);
	pctr_bsd_write_unlock(&old);
	return 0;
}

/* counter @num's setup word, or 0 with *err set */
static unsigned long long
counter(int num, int *err)
{
	unsigned long long ctl;

	if (num < 0 || num >= NPMC) {
		*err = EINVAL;
		return 0;
	}
	ctl = atomic_load(&ctr[num].ctl);
	if (!(ctl & CTL_INUSE))
		*err = EBUSY;
	return ctl;
}

static int
start_stop(int num, bool start)
{
	unsigned long long ctl;
	struct pctr_set *set;
	sigset_t old;
	int err = 0, r = 0;

	pctr_bsd_write_lock(&old);
	ctl = counter(num, &err);
	set = err ? NULL : atomic_load(&ctr[num].set);
	if (set)
		r = start ? pctr_set_enable(set) : pctr_set_disable(set);
	if (!err && r == 0)
		atomic_store(&ctr[num].ctl, start ? ctl | CTL_EN : ctl & ~CTL_EN);
	pctr_bsd_write_unlock(&old);
	return err ? err : pctr_bsd_errno(r);
}

static int
reset(int num)
{
	struct pctr_set *set;
	sigset_t old;
	int err = 0, r = 0;

	pctr_bsd_write_lock(&old);
	counter(num, &err);
	set = err ? NULL : atomic_load(&ctr[num].set);
	if (set)
		r = pctr_set_reset(set);
	pctr_bsd_write_unlock(&old);
	return err ? err : pctr_bsd_errno(r);
}

static int
get(struct pmc *pmc)
{
	int err = 0;
	unsigned long long ctl = counter(pmc->pmc_num, &err);

	if (!err)
		pmc->pmc_val = (unsigned int)ctl;
	return err;
}

static int
read_value(struct pmc_data *d)
{
	uint64_t v = 0;
	int err = 0, r = 0;

	pctr_bsd_read_begin();
	counter(d->pmcd_num, &err);
	if (!err)
		r = pctr_bsd_counter_read(atomic_load(&ctr[d->pmcd_num].set),
					  &v);
	pctr_bsd_read_end();
	if (!err && r == 0)
		d->pmcd_value = (quad_t)v;
	return err ? err : pctr_bsd_errno(r);
}

static int
tstamp(struct pmc_tstamp *t)
{
	uint64_t hz = pctr_tsc_hz();

	if (hz == 0)
		return ENOTTY; /* the driver's answer when it has no rate */
	t->pmct_rate = (int)(hz / 1000000);
	t->pmct_value = (quad_t)pctr_tsc();
	return 0;
}

static int
perfmon_ioctl(int oflags, unsigned long req, void *arg)
{
	bool fwrite = pctr_bsd_fwrite(oflags);

	switch (req) {
	case PMIOSETUP:
		return fwrite ? setup(arg) : EPERM;
	case PMIOGET:
		return get(arg);
	case PMIOSTART:
		return fwrite ? start_stop(*(int *)arg, true) : EPERM;
	case PMIOSTOP:
		return fwrite ? start_stop(*(int *)arg, false) : EPERM;
	case PMIORESET:
		return fwrite ? reset(*(int *)arg) : EPERM;
	case PMIOREAD:
		return read_value(arg);
	case PMIOTSTAMP:
		return tstamp(arg);
	}
	return ENOTTY;
}

PCTR_EXPORT const struct pctr_bsd_dev pctr_freebsd_dev = {
	.path = _PATH_PERFMON,
	.open = perfmon_open,
	.ioctl = perfmon_ioctl,
	.close = perfmon_close,
};
