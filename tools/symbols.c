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

/*
 * libdw and the compression libraries it brings are loaded when the first
 * sample is named, not when pctr starts: "pctr stat" never pays for them.
 */
#if defined(HAVE_DWFL) && defined(PCTR_DWFL_DLOPEN)
#include <dlfcn.h>

#define DWFL_FUNCS(X)                                                         \
	X(dwfl_linux_proc_find_elf)                                           \
	X(dwfl_standard_find_debuginfo)                                       \
	X(dwfl_begin)                                                         \
	X(dwfl_end)                                                           \
	X(dwfl_report_begin)                                                  \
	X(dwfl_linux_proc_maps_report)                                        \
	X(dwfl_report_end)                                                    \
	X(dwfl_addrmodule)                                                    \
	X(dwfl_module_addrname)                                               \
	X(dwfl_module_info)

static struct {
	int tried, ok;
#define X(f) __typeof__(f) *f;
	DWFL_FUNCS(X)
#undef X
} dw;

#define DW(f) dw.f

static int
dw_load(void)
{
	void *h;

	if (dw.tried)
		return dw.ok;
	dw.tried = 1;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
#define X(f)                                                                  \
	if (!(dw.f = (__typeof__(dw.f))dlsym(h, #f)))                         \
		return 0;
	DWFL_FUNCS(X)
#undef X
	dw.ok = 1;
	return 1;
}
#elif defined(HAVE_DWFL)
#define DW(f) f

static int
dw_load(void)
{
	return 1;
}
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
static Dwfl_Callbacks callbacks;

static void
report(struct syms *s)
{
	FILE *f;

	if (s->dwfl && !s->dirty)
		return;
	if (!dw_load())
		return; /* no libdw: samples are named by address */
	callbacks.find_elf = DW(dwfl_linux_proc_find_elf);
	callbacks.find_debuginfo = DW(dwfl_standard_find_debuginfo);
	if (s->dwfl)
		DW(dwfl_end)(s->dwfl);
	s->dwfl = DW(dwfl_begin)(&callbacks);
	s->dirty = 0;
	if (!s->dwfl || !s->maps)
		return;
	f = fmemopen(s->maps, s->len, "r");
	if (!f)
		return;
	DW(dwfl_report_begin)(s->dwfl);
	DW(dwfl_linux_proc_maps_report)(s->dwfl, f);
	DW(dwfl_report_end)(s->dwfl, NULL, NULL);
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
	m = s->dwfl ? DW(dwfl_addrmodule)(s->dwfl, ip) : NULL;
	if (m) {
		name = DW(dwfl_module_addrname)(m, ip);
		mname = DW(dwfl_module_info)(m, NULL, &start, NULL, NULL, NULL,
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
		DW(dwfl_end)(s->dwfl);
#endif
	free(s->maps);
	free(s);
}
