/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - names for the instruction pointers of a profiled process,
 * with elfutils' libdwfl.
 *
 * The process may be gone by the time its samples are named, so its
 * memory map is kept as text: every distinct line of /proc/PID/maps seen
 * while it ran (syms_snapshot(), called often enough to see libraries
 * loaded late).  Naming reports that text to libdwfl as if it were the
 * live map, which then reads the ELF files and their symbol tables.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

#if !defined(PCTR_NO_DWFL) && __has_include(<elfutils/libdwfl.h>)
#include <elfutils/libdwfl.h>
#define HAVE_DWFL 1
#endif

struct syms {
	pid_t pid;
	char *maps; /* distinct mapping lines of files */
	size_t len, cap;
	int dirty; /* maps changed since the last report */
#ifdef HAVE_DWFL
	Dwfl *dwfl;
#endif
};

int
syms_new(struct syms **sp, pid_t pid)
{
	struct syms *s = calloc(1, sizeof(*s));

	*sp = s;
	if (!s)
		return -ENOMEM;
	s->pid = pid;
	return 0;
}

static void
add_line(struct syms *s, const char *line)
{
	size_t n = strlen(line);

	if (!strchr(line, '/') || (s->maps && strstr(s->maps, line)))
		return;
	if (s->len + n + 1 > s->cap) {
		size_t cap = (s->cap + n + 1) * 2;
		char *m = realloc(s->maps, cap);

		if (!m)
			return;
		s->maps = m;
		s->cap = cap;
	}
	memcpy(s->maps + s->len, line, n + 1);
	s->len += n;
	s->dirty = 1;
}

void
syms_snapshot(struct syms *s)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)s->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f))
		add_line(s, line);
	fclose(f);
}

#ifdef HAVE_DWFL
static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static void
report(struct syms *s)
{
	FILE *f;

	if (s->dwfl && !s->dirty)
		return;
	if (s->dwfl)
		dwfl_end(s->dwfl);
	s->dwfl = dwfl_begin(&callbacks);
	s->dirty = 0;
	if (!s->dwfl || !s->maps)
		return;
	f = fmemopen(s->maps, s->len, "r");
	if (!f)
		return;
	dwfl_report_begin(s->dwfl);
	dwfl_linux_proc_maps_report(s->dwfl, f);
	dwfl_report_end(s->dwfl, NULL, NULL);
	fclose(f);
}

void
syms_name(struct syms *s, uint64_t ip, char *fn, size_t fn_len, char *mod,
	  size_t mod_len)
{
	Dwfl_Module *m;
	const char *name = NULL, *mname = NULL, *slash;
	Dwarf_Addr start = 0;

	report(s);
	m = s->dwfl ? dwfl_addrmodule(s->dwfl, ip) : NULL;
	if (m) {
		name = dwfl_module_addrname(m, ip);
		mname = dwfl_module_info(m, NULL, &start, NULL, NULL, NULL,
					 NULL, NULL);
	}
	slash = mname ? strrchr(mname, '/') : NULL;
	snprintf(mod, mod_len, "%s", slash ? slash + 1 : mname ? mname : "?");
	if (name)
		snprintf(fn, fn_len, "%s", name);
	else if (m)
		snprintf(fn, fn_len, "%s+%#llx", mod,
			 (unsigned long long)(ip - start));
	else
		snprintf(fn, fn_len, "[unknown]");
}
#else
void
syms_name(struct syms *s, uint64_t ip, char *fn, size_t fn_len, char *mod,
	  size_t mod_len)
{
	(void)s;
	snprintf(fn, fn_len, "%#llx", (unsigned long long)ip);
	snprintf(mod, mod_len, "?");
}
#endif

void
syms_free(struct syms *s)
{
	if (!s)
		return;
#ifdef HAVE_DWFL
	if (s->dwfl)
		dwfl_end(s->dwfl);
#endif
	free(s->maps);
	free(s);
}
