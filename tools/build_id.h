/* SPDX-License-Identifier: MIT */
/*
 * build_id.h - the GNU build-id of an ELF file or of the running kernel,
 * which a perf.data file lists for the modules its samples fell in
 * (HEADER_BUILD_ID), so that a reader on another machine finds the same
 * binaries and their debugging information.
 */
#ifndef PCTR_TOOL_BUILD_ID_H
#define PCTR_TOOL_BUILD_ID_H

#include <stddef.h>

#define BUILD_ID_MAX 20 /* SHA-1's, the longest ld writes */

/*
 * The NT_GNU_BUILD_ID note of the ELF file @path (its PT_NOTE segments),
 * or with @path NULL of the kernel (/sys/kernel/notes).  Return its
 * length in bytes, copied to @id; 0 if there is none or it cannot be read.
 */
size_t build_id_read(const char *path, unsigned char id[BUILD_ID_MAX]);

#endif
