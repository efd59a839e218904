/* SPDX-License-Identifier: MIT */
/*
 * rdpmc.h - rdpmc()'s slots (rdpmc.c) and the device (pctr_dev.c).
 */
#ifndef PCTR_COMPAT_OPENBSD_RDPMC_H
#define PCTR_COMPAT_OPENBSD_RDPMC_H

#include <machine/pctr.h>

#include "pctr.h"

/*
 * pctr_openbsd_rdpmc_install() - counter @n is now @set (NULL: off):
 * rdpmc(@n) reads its page from now on when it counts the calling thread.
 * The device's write lock held; @set stays open until a later install.
 */
void pctr_openbsd_rdpmc_install(unsigned int n, struct pctr_set *set);

/* pctr_openbsd_rdpmc_forked() - in a child after fork(): no fast reads */
void pctr_openbsd_rdpmc_forked(void);

/* pctr_openbsd_rdpmc_slow() - counter @n read through its set (pctr_dev.c) */
pctrval pctr_openbsd_rdpmc_slow(unsigned int n);

#endif
