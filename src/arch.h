/* SPDX-License-Identifier: MIT */
/*
 * arch.h - what the core asks of an architecture, and what the legacy
 * layers and the command take of it (arch_bsd.h, arch_cpu.h, arch_regs.h:
 * no architecture is named outside src/arch/).
 *
 * Each of the headers below is looked up first in arch/<arch>/ and
 * then in arch/generic/ (the build puts the directories on the include
 * path in that order, src/meson.build), so a port overrides what it has
 * and inherits the rest, as musl's arch/ directories do.  The build names
 * the architecture: PCTR_ARCH_NAME.
 *
 * arch_tsc.h   pctr__arch_tsc(serial): the timestamp counter, after the
 *              fence @serial asks for (PCTR_SERIAL_*);
 *              pctr__arch_tsc_serial(mode): the @serial the port will
 *              take for a mode asked for, the same or one that orders as
 *              it does where the CPU lacks its instruction;
 *              pctr__arch_tsc_hz_hint(): its frequency as the CPU states
 *              it, 0 if it does not; pctr__arch_tsc_invariant(): 1, 0, -1
 *              (unknown); PCTR_ARCH_TSC_IS_PERF_CLOCK: 1 if the perf mmap
 *              page's time_mult and time_shift convert this counter (then
 *              the kernel's conversion gives its frequency, src/tsc.c).
 * arch_pmc.h   PCTR_ARCH_USER_READ: 1 if counters are read in user mode
 *              by the mmap page's index; pctr__arch_read_pmc(index - 1);
 *              PCTR_ARCH_USER_ACCESS_SYSCTL: the path of the system-wide
 *              switch for those reads, or NULL when each PMU's sysfs
 *              directory has its own "rdpmc" (src/machine.c).  For read
 *              plans (src/plan.c): PCTR_ARCH_PMC_OPERAND, 1 if the counter
 *              read takes the counter's number as an operand (x86 rdpmc),
 *              0 if the instruction names it (arm64 mrs: one reader is
 *              compiled per counter); PCTR_ARCH_PMC_HALVES, 1 if the port
 *              reads a counter in two 32-bit halves,
 *              pctr__arch_read_pmc_halves(hw, &lo, &hi) (x86 rdpmc's eax
 *              and edx), which plans join with the sign extension
 *              (mmap_read.h); PCTR_ARCH_PMC_SHIFT, 64 - pmc_width
 *              of the usual counter; PCTR_ARCH_TIME_SHORT, 1 if the port's
 *              kernel sets cap_user_time_short, and then always with
 *              cap_user_time; PCTR_ARCH_TAIL_FN(type, name, value), a
 *              function pointer the caller then calls as its tail call;
 *              PCTR_ARCH_TAIL_FN_PAIR(type, name, word, at), the same from
 *              at[0] and the word at[1] with it, one load where the port
 *              can (arm64 ldp), the function then called as
 *              PCTR_ARCH_TAIL(name).  PCTR_ARCH_KEEP_AT(at): a sample
 *              reader's sample address kept in the register it came in.
 *              PCTR_ARCH_PLAN_PAIR(x),
 *              PCTR_ARCH_PLAN_BASE(early, late), PCTR_ARCH_PLAN_PIN_X2(x):
 *              where a plan's reader keeps its values (generic/arch_pmc.h).
 * arch_cpu.h   pctr__arch_virtualized(): 1, 0, -1 (the CPU does not say).
 *              pctr__arch_cpuid_leaf(leaf, r): 1 and cpuid's leaf @leaf
 *              in r[4] where the CPU has it, else 0 (and on ports with
 *              no cpuid).
 * arch_thread.h pctr__arch_thread_self(): the calling thread's identity,
 *              unique among the live threads, for the owner of a page
 *              (struct pctr__hot, compat/openbsd/rdpmc.c's slots): a page
 *              shows the counter of the thread it counts, on that thread's
 *              CPU, so only that thread may read it in user space.  One
 *              instruction where the compiler reads the thread pointer.
 * arch_time.h  pctr__arch_cyc_ns(cyc, mult, shift): timestamp ticks to
 *              nanoseconds by a perf mmap page's time_mult and time_shift
 *              (generic/arch_time.h).
 * arch_regs.h  PCTR_ARCH_REGS_USER: the kernel's register mask
 *              (sample_regs_user) an unwinder of user stacks needs, 0 if
 *              the port has none; where it has them, PCTR_ARCH_REGS_DWARF,
 *              an initializer: the kernel's number of each DWARF register
 *              from 0, and PCTR_ARCH_REG_SP and PCTR_ARCH_REG_PC, the
 *              kernel's numbers of the stack pointer and the PC
 *              (tools/unwind.c).
 * arch_bsd.h   the port as the BSD layers show it (compat/bsd,
 *              compat/openbsd; not included here):
 *              PCTR_ARCH_BSD_MACHINE, its name there (hw.machine), NULL if
 *              none; PCTR_ARCH_BSD_EVENT_MASK, 0 where a function word is
 *              x86's PerfEvtSel, else its bits that are the PMU's raw event
 *              number; PCTR_ARCH_SYS_FSTAT, the fstat system call where
 *              the kernel's struct stat is the C library's, else -1.
 *
 * generic: no user-mode counter reads, CLOCK_MONOTONIC_RAW in nanoseconds
 * as the "TSC".  x86_64: rdtsc, rdpmc, cpuid.  aarch64: CNTVCT_EL0 and the
 * PMU's registers.
 */
#ifndef PCTR_ARCH_CONTRACT_H
#define PCTR_ARCH_CONTRACT_H

#ifndef PCTR_ARCH_NAME
#error "the build names the architecture: -DPCTR_ARCH_NAME=\"...\""
#endif

#include "arch_tsc.h"
#include "arch_pmc.h"
#include "arch_cpu.h"
#include "arch_thread.h"
#include "arch_time.h"
#include "arch_regs.h"

#endif
