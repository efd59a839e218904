/* SPDX-License-Identifier: MIT */
/*
 * tools/dw.h - elfutils' libdwfl (and the libelf it brings), for naming
 * (symbols.c) and unwinding (unwind.c).
 *
 * libdw and the compression libraries it brings are loaded when the first
 * sample is named or unwound, not when pctr starts: "pctr stat" never pays
 * for them.  With PCTR_DWFL_DLOPEN every function is called through one
 * table filled by dw_load() (dlsym() of libdw.so.1, which also finds the
 * functions of its dependency libelf.so.1); without it, directly.
 */
#ifndef PCTR_TOOL_DW_H
#define PCTR_TOOL_DW_H

#if !defined(PCTR_NO_DWFL) && __has_include(<elfutils/libdwfl.h>)
#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>
#define HAVE_DWFL 1
#endif

#ifdef HAVE_DWFL
#define DWFL_FUNCS(X)                                                         \
	X(dwfl_linux_proc_find_elf)                                           \
	X(dwfl_standard_find_debuginfo)                                       \
	X(dwfl_begin)                                                         \
	X(dwfl_end)                                                           \
	X(dwfl_report_begin)                                                  \
	X(dwfl_linux_proc_maps_report)                                        \
	X(dwfl_report_end)                                                    \
	X(dwfl_report_module)                                                 \
	X(dwfl_addrmodule)                                                    \
	X(dwfl_module_addrname)                                               \
	X(dwfl_module_addrinfo)                                               \
	X(dwfl_module_getsymtab)                                              \
	X(dwfl_module_getsymtab_first_global)                                 \
	X(dwfl_module_getsym_info)                                            \
	X(dwfl_module_info)                                                   \
	X(dwfl_module_getelf)                                                 \
	X(dwfl_attach_state)                                                  \
	X(dwfl_pid)                                                           \
	X(dwfl_getthread_frames)                                              \
	X(dwfl_thread_state_registers)                                        \
	X(dwfl_thread_state_register_pc)                                      \
	X(dwfl_frame_pc)                                                      \
	X(dwfl_module_addrdie)                                                \
	X(dwarf_getscopes)                                                    \
	X(dwarf_getscopes_die)                                                \
	X(dwarf_tag)                                                          \
	X(dwarf_diename)                                                      \
	X(elf_getphdrnum)                                                     \
	X(elf_memory)                                                         \
	X(elf_nextscn)                                                        \
	X(elf_getscn)                                                         \
	X(elf_getdata)                                                        \
	X(elf_strptr)                                                         \
	X(elf_getshdrstrndx)                                                  \
	X(gelf_getehdr)                                                       \
	X(gelf_getshdr)                                                       \
	X(gelf_getrel)                                                        \
	X(gelf_getrela)                                                       \
	X(gelf_getsym)                                                        \
	X(elf_rawfile)                                                        \
	X(gelf_getphdr)

#ifdef PCTR_DWFL_DLOPEN
struct dw_table {
#define X(f) __typeof__(f) *f;
	DWFL_FUNCS(X)
#undef X
};
extern struct dw_table dw_fn;
#define DW(f) dw_fn.f
#else
#define DW(f) f
#endif
#endif /* HAVE_DWFL */

/* 1 if the functions above can be called (libdw is there), else 0 */
int dw_load(void);

#endif
