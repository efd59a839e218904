/* SPDX-License-Identifier: MIT */
/*
 * tools/symbols.h - the address spaces of a profiled tree of processes,
 * rebuilt from the sample stream's side-band records, and names for the
 * addresses sampled in them.
 */
#ifndef PCTR_TOOL_SYMBOLS_H
#define PCTR_TOOL_SYMBOLS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "tool.h"

struct syms;

int syms_new(struct syms **sp);
/*
 * Note a side-band record (PCTR_REC_MMAP, _COMM, _FORK, _EXIT).  Return 0,
 * or -ENOMEM.
 */
int syms_record(struct syms *s, const struct pctr_sample_record *r);
/*
 * The address space process @pid has now, for its samples: an index for
 * syms_name() and syms_comm(), or -ENOMEM.  A process never announced by
 * a record (one running before the counter was opened) is read from /proc.
 */
int syms_space(struct syms *s, pid_t pid);
const char *syms_comm(const struct syms *s, int space);
/*
 * Addresses are named in the kernel (@kernel: from /proc/kallsyms) or in
 * address space @space as the sample said where it lies: its cpumode
 * (struct pctr_sample_record's @user), or the kernel's markers in its
 * call chain (@nr_callchain_kernel), never the address's value.
 */
void syms_name(struct syms *s, int space, bool kernel, uint64_t ip,
	       char *fn, size_t fn_len, char *mod, size_t mod_len);
/* where an address lies, as perf script prints it */
struct sym_where {
	char sym[256]; /* the function, "[unknown]" without one */
	uint64_t off; /* into it (when has_sym) */
	int has_sym;
	char path[512]; /* its module's file, "[kernel.kallsyms]", "[unknown]" */
	uint64_t rel; /* the address within the module (when has_map) */
	int has_map;
};

void syms_where(struct syms *s, int space, bool kernel, uint64_t ip,
		struct sym_where *w);
/*
 * The functions at user address @ip of space @space by its module's
 * debugging information (DWARF), as addr2line -i names them and perf
 * script prints a frame's: into @names (@max at most), innermost first,
 * each call inlined there, then the function the code is part of, by its
 * DWARF name (hot_one for the clone hot_one.constprop.0).  Valid until
 * the space's maps change.  Return their number, 0 without debugging
 * information (or libdw).
 */
int syms_inlined(struct syms *s, int space, uint64_t ip, const char **names,
		 int max);
/*
 * The libdwfl session (a Dwfl *) of address space @space with its maps
 * reported, for unwinding (unwind.c); NULL without libdw.  Valid until
 * the next call of syms_name() or syms_dwfl() (new maps make a new one).
 */
void *syms_dwfl(struct syms *s, int space);
/* why kernel addresses have no names, or NULL; after a kernel address */
const char *syms_kernel_hidden(const struct syms *s);
/* 0 if user-space addresses can be named (libdw is there) */
int syms_can_name(void);
void syms_free(struct syms *s);

#endif
