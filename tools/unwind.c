/* SPDX-License-Identifier: MIT */
/*
 * unwind.c - user call chains from the registers and the stack copy of
 * each sample (PCTR_SAMPLE_USER_STACK), with elfutils' libdwfl.
 *
 * libdwfl unwinds a thread of a process it is attached to
 * (dwfl_attach_state()) through four callbacks of ours, standing in for a
 * live process that is long gone or still running on:
 *   get_thread             any thread asked for is the sample's;
 *   set_initial_registers  the sample's user registers, renumbered from
 *                          the kernel's order (asm/perf_regs.h) to the
 *                          architecture's DWARF numbers;
 *   memory_read            8 bytes from the stack copy, which starts at
 *                          the sampled stack pointer; anything else from
 *                          the file mapped there, for read-only segments
 *                          only (what the process wrote is not known);
 *   next_thread            required, never used.
 * It finds each frame's rule in the modules' .eh_frame or .debug_frame,
 * the same modules symbols.c reported for naming: one Dwfl per address
 * space, attached once (the callbacks' argument is this unwinder, which
 * holds the sample being unwound) and again after its maps changed.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arch_regs.h"
#include "dw.h"
#include "unwind.h"

#define MAX_USER 127 /* user frames, perf's default max-stack */

struct unwind {
	const struct pctr_sample_record *r; /* the sample being unwound */
	uint64_t sp;
	uint64_t *chain;
	size_t n, max, first;
};

/* a port without the numbering (src/arch.h) unwinds nothing */
#ifdef PCTR_ARCH_REGS_DWARF
/* the kernel's number of each DWARF register from 0 */
static const int perf_reg[] = PCTR_ARCH_REGS_DWARF;
#define NR_DWARF ((int)(sizeof(perf_reg) / sizeof(perf_reg[0])))

/* register @bit of the kernel's numbering in @r, or false */
static bool
perf_reg_get(const struct pctr_sample_record *r, int bit, uint64_t *v)
{
	if (bit >= 64 || !(r->regs_mask >> bit & 1))
		return false;
	/* @regs holds one value per bit of the mask, lowest first */
	*v = r->regs[__builtin_popcountll(r->regs_mask &
					  ((1ull << bit) - 1))];
	return true;
}

int
unwind_regs_dwarf(const struct pctr_sample_record *r, uint64_t *dwarf,
		  int max, uint64_t *pc, uint64_t *sp)
{
	if (r->regs_abi != 64 || !r->regs || max < NR_DWARF ||
	    !perf_reg_get(r, PCTR_ARCH_REG_PC, pc) ||
	    !perf_reg_get(r, PCTR_ARCH_REG_SP, sp))
		return -1;
	for (int i = 0; i < NR_DWARF; i++)
		if (!perf_reg_get(r, perf_reg[i], &dwarf[i]))
			return -1;
	return NR_DWARF;
}
#else
int
unwind_regs_dwarf(const struct pctr_sample_record *r, uint64_t *dwarf,
		  int max, uint64_t *pc, uint64_t *sp)
{
	(void)r, (void)dwarf, (void)max, (void)pc, (void)sp;
	return -1;
}
#endif

int
unwind_new(struct unwind **up)
{
	*up = calloc(1, sizeof(**up));
	return *up ? 0 : -ENOMEM;
}

void
unwind_free(struct unwind *u)
{
	free(u);
}

#if defined(HAVE_DWFL) && defined(PCTR_ARCH_REGS_DWARF)
static bool
get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_arg)
{
	(void)dwfl, (void)tid;
	*thread_arg = arg;
	return true;
}

static pid_t
next_thread(Dwfl *dwfl, void *arg, void **thread_arg)
{
	(void)dwfl, (void)arg, (void)thread_arg;
	return 0;
}

static bool
set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	struct unwind *u = arg;
	uint64_t regs[NR_DWARF], pc, sp;
	int n = unwind_regs_dwarf(u->r, regs, NR_DWARF, &pc, &sp);

	if (n < 0 || !DW(dwfl_thread_state_registers)(thread, 0, (unsigned)n,
						      regs))
		return false;
	DW(dwfl_thread_state_register_pc)(thread, pc);
	return true;
}

/* 8 bytes at @addr of a read-only PT_LOAD segment of the module there */
static bool
file_read(Dwfl *dwfl, uint64_t addr, uint64_t *out)
{
	Dwfl_Module *m = DW(dwfl_addrmodule)(dwfl, addr);
	GElf_Addr bias;
	Elf *elf = m ? DW(dwfl_module_getelf)(m, &bias) : NULL;
	const char *raw;
	size_t n, size;

	if (!elf || DW(elf_getphdrnum)(elf, &n) < 0 ||
	    !(raw = DW(elf_rawfile)(elf, &size)))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		uint64_t v = addr - bias, off;

		if (!DW(gelf_getphdr)(elf, (int)i, &ph) ||
		    ph.p_type != PT_LOAD || ph.p_flags & PF_W ||
		    v < ph.p_vaddr || ph.p_filesz < 8 ||
		    v - ph.p_vaddr > ph.p_filesz - 8)
			continue;
		off = ph.p_offset + (v - ph.p_vaddr);
		if (off > size || size - off < 8)
			return false;
		memcpy(out, raw + off, 8);
		return true;
	}
	return false;
}

static bool
memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *out, void *arg)
{
	struct unwind *u = arg;
	uint64_t len = u->r->stack_len;

	if (addr >= u->sp && len >= 8 && addr - u->sp <= len - 8) {
		memcpy(out, u->r->stack + (addr - u->sp), 8);
		return true;
	}
	return file_read(dwfl, addr, out);
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static int
on_frame(Dwfl_Frame *state, void *arg)
{
	struct unwind *u = arg;
	Dwarf_Addr pc;
	bool activation;

	if (!DW(dwfl_frame_pc)(state, &pc, &activation) || u->n == u->max)
		return DWARF_CB_ABORT;
	/* a caller's frame resumes after its call: named by the call */
	u->chain[u->n++] = activation ? pc : pc - 1;
	return u->n - u->first < MAX_USER ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* the space's Dwfl, attached to its process once; NULL if it cannot be */
static Dwfl *
attached(struct unwind *u, struct syms *s, int space, pid_t pid)
{
	Dwfl *d = syms_dwfl(s, space);

	if (!d || DW(dwfl_pid)(d) > 0)
		return d;
	return DW(dwfl_attach_state)(d, NULL, pid, &callbacks, u) ? d : NULL;
}

/* the user frames of @r after the @u->n entries so far */
static void
unwind_user(struct unwind *u, struct syms *s, int space,
	    const struct pctr_sample_record *r)
{
	uint64_t regs[NR_DWARF], pc;
	Dwfl *d;

	if (unwind_regs_dwarf(r, regs, NR_DWARF, &pc, &u->sp) < 0 ||
	    r->pid <= 0 || !dw_load() || !(d = attached(u, s, space, r->pid)))
		return;
	u->r = r;
	u->first = u->n;
	/* its end, or a frame it could not step past: what was found stays */
	DW(dwfl_getthread_frames)(d, r->tid > 0 ? r->tid : r->pid, on_frame,
				  u);
	if (u->n == u->first)
		u->chain[u->n++] = pc;
}
#else
static void
unwind_user(struct unwind *u, struct syms *s, int space,
	    const struct pctr_sample_record *r)
{
	(void)u, (void)s, (void)space, (void)r;
}
#endif

size_t
unwind_sample(struct unwind *u, struct syms *s, int space,
	      const struct pctr_sample_record *r, uint64_t *chain, size_t max,
	      size_t *nr_kernel)
{
	u->chain = chain;
	u->max = max;
	u->n = 0;
	/* the kernel part, as the kernel's markers in the chain said */
	for (uint32_t i = 0; i < r->nr_callchain_kernel && u->n < max; i++)
		chain[u->n++] = r->callchain[i];
	/* none: a sample in the kernel (its cpumode) is its own address */
	if (u->n == 0 && !r->user)
		chain[u->n++] = r->ip;
	*nr_kernel = u->n;
	if (u->n < max)
		unwind_user(u, s, space, r);
	if (u->n == 0)
		chain[u->n++] = r->ip;
	return u->n;
}
