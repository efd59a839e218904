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
 * Thread-safe: one mutex guards the counters.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "pctr.h"
#include <machine/perfmon.h>

#include "bsd_counter.h"
#include "devsw.h"

#define PCTR_EXPORT __attribute__((visibility("default")))

struct counter {
	bool inuse;
	unsigned int ctl; /* pmc_val as set up, PMCF_EN while running */
	struct pctr_set *set; /* NULL: counts nothing */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * fork() from a threaded program: the child must not inherit the lock held
 * by a thread that does not exist there.  Held across the fork, released
 * on both sides.
 */
static void
fork_prepare(void)
{
	pthread_mutex_lock(&lock);
}

static void
fork_done(void)
{
	pthread_mutex_unlock(&lock);
}

__attribute__((constructor)) static void
perfmon_atfork(void)
{
	pthread_atfork(fork_prepare, fork_done, fork_done);
}
static struct counter ctr[NPMC];
static bool writer;

#define CTL_EN ((unsigned int)PMCF_EN << 16)

static void
release(struct counter *c)
{
	pctr_set_free(c->set);
	memset(c, 0, sizeof(*c));
}

static int
perfmon_open(int oflags)
{
	int err = 0;

	if (!pctr_bsd_fwrite(oflags))
		return 0;
	pthread_mutex_lock(&lock);
	if (writer)
		err = EBUSY;
	writer = true;
	pthread_mutex_unlock(&lock);
	return err;
}

static void
perfmon_close(int oflags)
{
	if (!pctr_bsd_fwrite(oflags))
		return;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < NPMC; i++)
		release(&ctr[i]);
	writer = false;
	pthread_mutex_unlock(&lock);
}

static int
setup(const struct pmc *pmc)
{
	unsigned int ctl = pmc->pmc_val & ~((unsigned int)PMCF_SYS_FLAGS << 16);
	struct pctr_set *set = NULL;
	struct pctr_event ev;
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
	pthread_mutex_lock(&lock);
	release(&ctr[pmc->pmc_num]);
	ctr[pmc->pmc_num] = (struct counter){ true, ctl, set };
	pthread_mutex_unlock(&lock);
	return 0;
}

/* the counter @num names, or NULL with *err set.  Lock held. */
static struct counter *
counter(int num, int *err)
{
	if (num < 0 || num >= NPMC) {
		*err = EINVAL;
		return NULL;
	}
	if (!ctr[num].inuse) {
		*err = EBUSY;
		return NULL;
	}
	return &ctr[num];
}

static int
start_stop(int num, bool start)
{
	struct counter *c;
	int err = 0, r = 0;

	pthread_mutex_lock(&lock);
	c = counter(num, &err);
	if (c && c->set)
		r = start ? pctr_set_enable(c->set) : pctr_set_disable(c->set);
	if (c && r == 0)
		c->ctl = start ? c->ctl | CTL_EN : c->ctl & ~CTL_EN;
	pthread_mutex_unlock(&lock);
	return err ? err : pctr_bsd_errno(r);
}

static int
reset(int num)
{
	struct counter *c;
	int err = 0, r = 0;

	pthread_mutex_lock(&lock);
	c = counter(num, &err);
	if (c && c->set)
		r = pctr_set_reset(c->set);
	pthread_mutex_unlock(&lock);
	return err ? err : pctr_bsd_errno(r);
}

static int
get(struct pmc *pmc)
{
	struct counter *c;
	int err = 0;

	pthread_mutex_lock(&lock);
	c = counter(pmc->pmc_num, &err);
	if (c)
		pmc->pmc_val = c->ctl;
	pthread_mutex_unlock(&lock);
	return err;
}

static int
read_value(struct pmc_data *d)
{
	struct counter *c;
	uint64_t v = 0;
	int err = 0, r = 0;

	pthread_mutex_lock(&lock);
	c = counter(d->pmcd_num, &err);
	if (c)
		r = pctr_bsd_counter_read(c->set, &v);
	pthread_mutex_unlock(&lock);
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
