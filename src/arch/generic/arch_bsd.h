/* SPDX-License-Identifier: MIT */
/*
 * arch/generic/arch_bsd.h - the port as the BSD layers show it
 * (compat/bsd, compat/openbsd): no BSD name, x86's function words, and
 * fstat(3).  (src/arch.h: the contract.)
 */
#ifndef PCTR_ARCH_BSD_H
#define PCTR_ARCH_BSD_H

/* the architecture's name on the BSDs (hw.machine), NULL if none */
#define PCTR_ARCH_BSD_MACHINE NULL
/*
 * How a function word (PCIOCS0, PMIOSETUP) names an event the layers have
 * no name for: 0 as x86's PerfEvtSel (event, unit mask, edge, inv, cmask:
 * pctr_event_from_x86()), else the mask of its bits that are the PMU's
 * raw event number.
 */
#define PCTR_ARCH_BSD_EVENT_MASK 0u
/*
 * The fstat system call where the kernel's struct stat is the C
 * library's, else -1: fstat(3).
 */
#define PCTR_ARCH_SYS_FSTAT (-1)

#endif
