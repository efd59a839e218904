/* SPDX-License-Identifier: MIT */
/* tools/symbols.h - instruction pointers of another process to names. */
#ifndef PCTR_TOOL_SYMBOLS_H
#define PCTR_TOOL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct syms;

int syms_new(struct syms **sp, pid_t pid);
void syms_snapshot(struct syms *s);
void syms_name(struct syms *s, uint64_t ip, char *fn, size_t fn_len,
	       char *mod, size_t mod_len);
void syms_free(struct syms *s);

#endif
