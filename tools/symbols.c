/* SPDX-License-Identifier: MIT */
/*
 * symbols.c - names for the instruction pointers of a profiled tree of
 * processes: user space with elfutils' libdwfl, the kernel from
 * /proc/kallsyms.
 *
 * The processes may be gone by the time their samples are named, and a
 * mapping may have come and gone between two reads, so the maps are
 * rebuilt from the side-band records the kernel writes into the sample
 * buffer, in order with the samples (as perf record does):
 *   FORK   a new process: a new address space, a copy of its parent's;
 *          a new thread (pid == ppid) shares its process's
 *   COMM   with exec: a new, empty address space; else a new name
 *   MMAP2  an executable mapping added to the process's current space
 * A sample is named in the space its process had when it was taken.  Each
 * space's maps are kept as /proc/PID/maps text, which libdwfl reads as if
 * it were a live map, and then opens the ELF files by path.  The vDSO has
 * no file: the kernel maps one image into every process, so it is named
 * from this process's own copy, as perf script names it from perf's (a
 * recording read on another kernel is named by this one's image).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <inttypes.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <unistd.h>

#include "symbols.h"

#include "dw.h"

#if defined(HAVE_DWFL) && defined(PCTR_DWFL_DLOPEN)
#include <dlfcn.h>

struct dw_table dw_fn;

int
dw_load(void)
{
	static int tried, ok;
	void *h;

	if (tried)
		return ok;
	tried = 1;
	h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return 0;
#define X(f)                                                                  \
	if (!(dw_fn.f = (__typeof__(dw_fn.f))dlsym(h, #f)))                   \
		return 0;
	DWFL_FUNCS(X)
#undef X
	ok = 1;
	return 1;
}
#elif defined(HAVE_DWFL)
int
dw_load(void)
{
	return 1;
}
#else
int
dw_load(void)
{
	return 0;
}
#endif

/* an address space: one process between a fork or exec and the next */
struct space {
	pid_t pid;
	char comm[64];
	char *maps; /* distinct mapping lines of files */
	size_t len, cap;
	uint64_t (*text)[2]; /* the executable mappings as they are: lo, hi */
	size_t ntext, captext, hit; /* hit: the one mapped() found last */
	uint64_t vdso_lo, vdso_hi; /* where the vDSO is mapped (0, 0: not) */
	int dirty; /* maps changed since the last report */
	unsigned int gen; /* new maps reported: the cached names are stale */
#ifdef HAVE_DWFL
	Dwfl *dwfl;
#endif
};

struct ksym {
	uint64_t addr;
	const char *name, *mod; /* in syms' ktext */
};

/*
 * Names already looked up, by address space and address: a report names
 * each frame of each sample, and the same return addresses come back in
 * sample after sample, while libdwfl's lookup walks the module's symbol
 * table (dwfl_module_addrname: most of the CPU time of a --call-graph
 * dwarf profile without it).  Direct-mapped: a collision only costs a
 * lookup again.
 */
#define NAME_CACHE 4096 /* entries, a power of two */
struct named {
	uint64_t ip;
	int space; /* -1: free */
	unsigned int gen; /* the space's gen when named */
	char *fn, *mod;
};

/*
 * A sized symbol libdwfl may answer with, from the mapping's start: its
 * index in the module's table, its binding's rank, and the highest end
 * of those sorted before it.
 */
struct fn_sized {
	uint64_t lo, hi, maxhi;
	int ndx, rank;
};

/* addresses in [lo, hi) that libdwfl names @name (NULL: none), from @base */
struct fn_range {
	uint64_t lo, hi, base;
	const char *name;
};

/*
 * What libdwfl said of a module's file, by address within the file's
 * mapping (the same in every process that maps it): libdwfl looks a
 * symbol up by a walk over the module's whole table, and a shell script
 * runs the same libraries in many processes, so each function of a file
 * is asked once (struct fn_range, below).  Names are copies.
 *
 * And the file's symbols, sorted by address, each with the highest end
 * of those up to it, read once (a walk over the whole table too): where
 * no symbol lies, libdwfl's answer (a sizeless symbol before, or none)
 * is the same for the whole gap, asked once.
 */
struct fn_file {
	char *path;
	struct fn_range *fns;
	size_t nfns, capfns;
	uint64_t *start, *maxend; /* nsyms of each, from the mapping's */
	size_t nsyms;
	int bounds; /* 0: not read, 1: read, -1: no table to bound by */
	struct fn_sized *sized; /* nsized, by start */
	size_t nsized;
	uint64_t *exact; /* nexact global sizeless symbols' addresses, sorted */
	size_t nexact;
	int first_global; /* the table's first global symbol (0: all are) */
};

struct syms {
	struct space *sp;
	struct named *cache; /* NAME_CACHE, allocated at the first use */
	struct fn_file *files;
	size_t nfiles;
	size_t n, cap;
	struct ksym *k;
	size_t nk;
	char *ktext; /* /proc/kallsyms, its lines split in place */
	int kstate; /* 0: not read, 1: read, -1: hidden */
	char khidden[256];
};

/*
 * @src into @dst of @len bytes, cut short as snprintf would: a report
 * names every frame of every sample, and snprintf's "%s" was a tenth of
 * it.
 */
static void
copy_name(char *dst, size_t len, const char *src)
{
	size_t n = strlen(src);

	if (!len)
		return;
	n = n < len ? n : len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

int
syms_new(struct syms **sp)
{
	*sp = calloc(1, sizeof(**sp));
	return *sp ? 0 : -ENOMEM;
}

static void
add_line(struct space *sp, const char *line)
{
	size_t n = strlen(line);

	if (!strchr(line, '/') || (sp->maps && strstr(sp->maps, line)))
		return;
	if (sp->len + n + 1 > sp->cap) {
		size_t cap = (sp->cap + n + 1) * 2;
		char *m = realloc(sp->maps, cap);

		if (!m)
			return;
		sp->maps = m;
		sp->cap = cap;
	}
	memcpy(sp->maps + sp->len, line, n + 1);
	sp->len += n;
	sp->dirty = 1;
}

/*
 * An executable mapping as it is: a line of the maps starts lower, where
 * the file's offset 0 would be (add_mmap()); perf names only what the
 * mappings themselves cover.
 */
static void
add_text(struct space *sp, uint64_t lo, uint64_t hi)
{
	for (size_t i = 0; i < sp->ntext; i++)
		if (sp->text[i][0] == lo && sp->text[i][1] == hi)
			return;
	if (sp->ntext == sp->captext) {
		size_t cap = sp->captext ? 2 * sp->captext : 16;
		uint64_t(*t)[2] = realloc(sp->text, cap * sizeof(*t));

		if (!t)
			return;
		sp->text = t;
		sp->captext = cap;
	}
	sp->text[sp->ntext][0] = lo;
	sp->text[sp->ntext][1] = hi;
	sp->ntext++;
}

/* the latest space of @pid, or -1 */
static int
find(const struct syms *s, pid_t pid)
{
	for (size_t i = s->n; i-- > 0;)
		if (s->sp[i].pid == pid)
			return (int)i;
	return -1;
}

/* a new space for @pid, a copy of space @from (-1: empty) */
static int
new_space(struct syms *s, pid_t pid, int from)
{
	struct space *sp;

	if (s->n == s->cap) {
		size_t cap = s->cap ? 2 * s->cap : 16;
		struct space *g = realloc(s->sp, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		s->sp = g;
		s->cap = cap;
	}
	sp = &s->sp[s->n];
	memset(sp, 0, sizeof(*sp));
	sp->pid = pid;
	if (from >= 0) {
		snprintf(sp->comm, sizeof(sp->comm), "%s", s->sp[from].comm);
		sp->vdso_lo = s->sp[from].vdso_lo;
		sp->vdso_hi = s->sp[from].vdso_hi;
		if (s->sp[from].maps)
			add_line(sp, s->sp[from].maps);
		for (size_t i = 0; i < s->sp[from].ntext; i++)
			add_text(sp, s->sp[from].text[i][0],
				 s->sp[from].text[i][1]);
	}
	return (int)s->n++;
}

#define VDSO "[vdso]"

static void
set_vdso(struct space *sp, uint64_t lo, uint64_t hi)
{
	sp->vdso_lo = lo;
	sp->vdso_hi = hi;
	sp->dirty = 1;
}

/* a process running before the counter was opened: what /proc says now */
static void
from_proc(struct space *sp)
{
	char path[64], line[4096];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)sp->pid);
	f = fopen(path, "re");
	if (f && fgets(sp->comm, sizeof(sp->comm), f))
		sp->comm[strcspn(sp->comm, "\n")] = 0;
	if (f)
		fclose(f);
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)sp->pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		size_t n = strlen(line);
		char perms[8];

		if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) == 3 &&
		    strchr(perms, 'x'))
			add_text(sp, lo, hi);
		if (n > sizeof(VDSO) && !strcmp(line + n - sizeof(VDSO),
						 VDSO "\n") &&
		    sscanf(line, "%llx-%llx", &lo, &hi) == 2)
			set_vdso(sp, lo, hi);
		add_line(sp, line);
	}
	fclose(f);
}

int
syms_space(struct syms *s, pid_t pid)
{
	int i = find(s, pid);

	if (i >= 0)
		return i;
	i = new_space(s, pid, -1);
	/* pid 0 is each CPU's idle task, which /proc does not list */
	if (i >= 0 && pid == 0)
		snprintf(s->sp[i].comm, sizeof(s->sp[i].comm), "swapper");
	else if (i >= 0)
		from_proc(&s->sp[i]);
	return i;
}

const char *
syms_comm(const struct syms *s, int space)
{
	return space >= 0 && s->sp[space].comm[0] ? s->sp[space].comm : "?";
}

/* FNV-1a, never 0 */
static unsigned int
name_hash(const char *name)
{
	uint32_t h = 2166136261u;

	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h ? h : 1;
}

static int
add_mmap(struct syms *s, const struct pctr_sample_record *r)
{
	char line[4352];
	int i = syms_space(s, r->pid);

	if (i < 0)
		return i;
	/*
	 * Only executable mappings are named from, but libdwfl takes a
	 * file's lowest mapping for its load address: the line starts
	 * where the file's offset 0 is mapped, as ELF segments keep their
	 * file offsets and addresses congruent.  libdwfl takes
	 * a line of device 00:00 and inode 0 for an anonymous mapping, and
	 * lines of one device and inode for one file: the inode is made up
	 * from the name.
	 */
	/* data mappings (with stack copies): their offsets are not text's */
	if (r->pgoff > r->addr || !(r->prot & PROT_EXEC))
		return 0;
	if (r->name && !strcmp(r->name, VDSO)) {
		set_vdso(&s->sp[i], r->addr, r->addr + r->len);
		return 0;
	}
	snprintf(line, sizeof(line),
		 "%" PRIx64 "-%" PRIx64 " r-xp 00000000 00:00 %u %s\n",
		 r->addr - r->pgoff, r->addr + r->len, name_hash(r->name),
		 r->name);
	add_line(&s->sp[i], line);
	add_text(&s->sp[i], r->addr, r->addr + r->len);
	return 0;
}

int
syms_record(struct syms *s, const struct pctr_sample_record *r)
{
	int i;

	switch (r->kind) {
	case PCTR_REC_MMAP:
		return add_mmap(s, r);
	case PCTR_REC_FORK:
		if (r->pid == r->ppid)
			return 0; /* a thread: its process's space */
		/* a parent running before the profile: read from /proc */
		i = syms_space(s, r->ppid);
		return i < 0 || new_space(s, r->pid, i) < 0 ? -ENOMEM : 0;
	case PCTR_REC_COMM:
		i = r->exec ? new_space(s, r->pid, -1) : syms_space(s, r->pid);
		if (i < 0)
			return -ENOMEM;
		/* a thread's own name is not its process's */
		if (r->exec || r->pid == r->tid)
			snprintf(s->sp[i].comm, sizeof(s->sp[i].comm), "%s",
				 r->name);
		return 0;
	}
	return 0;
}

/* ---- the kernel --------------------------------------------------------- */

static int
cmp_ksym(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int
read_int(const char *path)
{
	FILE *f = fopen(path, "re");
	int v = -99;

	if (f && fscanf(f, "%d", &v) != 1)
		v = -99;
	if (f)
		fclose(f);
	return v;
}

static void
kernel_hidden(struct syms *s, const char *why)
{
	s->kstate = -1;
	snprintf(s->khidden, sizeof(s->khidden),
		 "kernel addresses have no names: %s "
		 "(kernel.kptr_restrict=%d, kernel.perf_event_paranoid=%d; "
		 "CAP_SYSLOG, or kptr_restrict 0 with paranoid 1 or less, "
		 "shows them)",
		 why, read_int("/proc/sys/kernel/kptr_restrict"),
		 read_int("/proc/sys/kernel/perf_event_paranoid"));
}

static int
add_ksym(struct syms *s, size_t *cap, uint64_t addr, const char *name,
	 const char *mod)
{
	if (s->nk == *cap) {
		size_t c = *cap ? 2 * *cap : 65536;
		struct ksym *k = realloc(s->k, c * sizeof(*k));

		if (!k)
			return -1;
		s->k = k;
		*cap = c;
	}
	s->k[s->nk++] = (struct ksym){ addr, name, mod };
	return 0;
}

/* the hexadecimal number at @p (strtoull's share of a report was 4%) */
static uint64_t
hex_at(char *p, char **end)
{
	uint64_t v = 0;

	for (;; p++) {
		unsigned int c = (unsigned char)*p, d;

		if (c - '0' < 10)
			d = c - '0';
		else if ((c | 0x20) - 'a' < 6)
			d = (c | 0x20) - 'a' + 10;
		else
			break;
		v = v << 4 | d;
	}
	*end = p;
	return v;
}

/*
 * A line of /proc/kallsyms, "ADDR TYPE NAME[\t[MODULE]]", split in
 * place (sscanf's conversions took most of a report's time).  Return 0,
 * or -1 for a line of another shape.
 */
static int
kallsyms_line(char *line, uint64_t *addr, char *type, char **name,
	      char **mod)
{
	char *end, *p;

	*addr = hex_at(line, &end);
	if (end == line || end[0] != ' ' || !end[1] || end[2] != ' ')
		return -1;
	*type = end[1];
	*name = end + 3;
	p = *name + strcspn(*name, " \t\n");
	*mod = NULL;
	if (*p && p[strspn(p, " \t")] == '[') {
		*mod = p + strspn(p, " \t") + 1;
		(*mod)[strcspn(*mod, "]")] = '\0';
	}
	*p = '\0';
	return **name ? 0 : -1;
}

/* the whole of @path (a /proc file: no size), NUL-terminated, or NULL */
static char *
read_all(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t len = 0, cap = 1 << 20;
	char *buf = fd >= 0 ? malloc(cap) : NULL, *g;
	ssize_t n;

	while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += (size_t)n;
		if (len + 1 < cap)
			continue;
		g = realloc(buf, cap *= 2);
		if (!g)
			free(buf);
		buf = g;
	}
	if (buf && n < 0) {
		free(buf);
		buf = NULL;
	}
	if (fd >= 0)
		close(fd);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/*
 * Text symbols of /proc/kallsyms: "ADDR TYPE NAME [MODULE]", read at
 * once and kept in place (a copy of each name was a tenth of a report).
 */
static void
read_kallsyms(struct syms *s)
{
	char *line, *next, *name, *mod, type;
	uint64_t addr;
	size_t cap = 0;
	int nonzero = 0;

	s->ktext = read_all("/proc/kallsyms");
	if (!s->ktext)
		return kernel_hidden(s, "/proc/kallsyms cannot be read");
	s->kstate = 1;
	for (line = s->ktext; *line; line = next) {
		next = line + strcspn(line, "\n");
		if (*next)
			*next++ = '\0';
		if (kallsyms_line(line, &addr, &type, &name, &mod) < 0)
			continue;
		nonzero |= addr != 0;
		if (type != 't' && type != 'T' && type != 'w' && type != 'W')
			continue;
		if (add_ksym(s, &cap, addr, name, mod) < 0)
			break;
	}
	if (!nonzero)
		return kernel_hidden(s, "/proc/kallsyms shows every address "
					"as 0");
	if (s->nk)
		qsort(s->k, s->nk, sizeof(*s->k), cmp_ksym);
}

/* the kernel symbol holding @ip: its index + 1 in s->k, or 0 */
static size_t
kernel_sym(struct syms *s, uint64_t ip)
{
	size_t lo = 0, hi;

	if (!s->kstate)
		read_kallsyms(s);
	hi = s->kstate > 0 ? s->nk : 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->k[mid].addr <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return s->kstate < 0 ? 0 : lo;
}

static void
kernel_name(struct syms *s, uint64_t ip, char *fn, size_t fn_len, char *mod,
	    size_t mod_len)
{
	size_t k = kernel_sym(s, ip);

	if (!k) {
		snprintf(fn, fn_len, "[kernel]");
		snprintf(mod, mod_len, "[kernel]");
		return;
	}
	copy_name(fn, fn_len, s->k[k - 1].name);
	if (s->k[k - 1].mod)
		snprintf(mod, mod_len, "[%s]", s->k[k - 1].mod);
	else
		copy_name(mod, mod_len, "[kernel.kallsyms]");
}

const char *
syms_kernel_hidden(const struct syms *s)
{
	return s->kstate < 0 ? s->khidden : NULL;
}

/*
 * Whether @ip is in one of the space's executable mappings or its vDSO.
 * libdwfl's module spans its file's whole image, the first page of
 * headers that no executable mapping covers included; perf names an
 * address outside its recorded mappings "[unknown]" in "[unknown]".
 */
static bool
mapped(struct space *sp, uint64_t ip)
{
	if (ip >= sp->vdso_lo && ip < sp->vdso_hi)
		return true;
	if (sp->hit < sp->ntext && ip >= sp->text[sp->hit][0] &&
	    ip < sp->text[sp->hit][1])
		return true;
	for (size_t i = 0; i < sp->ntext; i++)
		if (ip >= sp->text[i][0] && ip < sp->text[i][1]) {
			sp->hit = i;
			return true;
		}
	return false;
}

/*
 * Without libdw: the file that maps @ip in @sp (the last of its lines that
 * holds it), by its file name, or "?"; the function is the address itself,
 * one row per address.
 */
static void
name_by_maps(struct space *sp, uint64_t ip, char *fn, size_t fn_len,
	     char *mod, size_t mod_len)
{
	const char *p = sp && mapped(sp, ip) ? sp->maps : NULL;

	snprintf(fn, fn_len, "%#llx", (unsigned long long)ip);
	snprintf(mod, mod_len, "?");
	while (p && *p) {
		size_t len = strcspn(p, "\n");
		unsigned long long lo, hi;
		const char *path = memchr(p, '/', len), *base;

		if (sscanf(p, "%llx-%llx", &lo, &hi) == 2 && ip >= lo &&
		    ip < hi && path) {
			base = memrchr(path, '/', len - (size_t)(path - p));
			snprintf(mod, mod_len, "%.*s",
				 (int)(len - (size_t)(base + 1 - p)), base + 1);
		}
		p += len + (p[len] == '\n');
	}
}

static void
kernel_where(struct syms *s, uint64_t ip, struct sym_where *w)
{
	size_t k = kernel_sym(s, ip);

	w->rel = ip;
	w->has_map = 1;
	snprintf(w->path, sizeof(w->path), "[kernel.kallsyms]");
	if (!k)
		return;
	w->has_sym = 1;
	w->off = ip - s->k[k - 1].addr;
	snprintf(w->sym, sizeof(w->sym), "%s", s->k[k - 1].name);
	if (s->k[k - 1].mod)
		snprintf(w->path, sizeof(w->path), "[%s]", s->k[k - 1].mod);
}

/* without libdw: the file mapping @ip, from the maps' lines */
static void
maps_where(struct space *sp, uint64_t ip, struct sym_where *w)
{
	const char *p = sp && mapped(sp, ip) ? sp->maps : NULL;

	while (p && *p) {
		size_t len = strcspn(p, "\n");
		unsigned long long lo, hi, off;
		const char *path = memchr(p, '/', len);

		if (sscanf(p, "%llx-%llx %*s %llx", &lo, &hi, &off) == 3 &&
		    ip >= lo && ip < hi && path) {
			snprintf(w->path, sizeof(w->path), "%.*s",
				 (int)(len - (size_t)(path - p)), path);
			w->rel = ip - lo + off;
			w->has_map = 1;
		}
		p += len + (p[len] == '\n');
	}
	if (sp && ip >= sp->vdso_lo && ip < sp->vdso_hi) {
		snprintf(w->path, sizeof(w->path), VDSO);
		w->rel = ip - sp->vdso_lo;
		w->has_map = 1;
	}
}

#ifdef HAVE_DWFL
/*
 * This process's vDSO image, a copy (libelf may write to what it reads),
 * and its size: the furthest of its headers, segments and section table.
 */
static const char *
vdso_image(size_t *size)
{
	static char *copy;
	static size_t len;
	const ElfW(Ehdr) *e = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;

	if (copy || !e) {
		*size = len;
		return copy;
	}
	len = e->e_shoff + (size_t)e->e_shnum * e->e_shentsize;
	ph = (const void *)((const char *)e + e->e_phoff);
	for (size_t i = 0; i < e->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > len)
			len = ph[i].p_offset + ph[i].p_filesz;
	copy = malloc(len);
	if (copy)
		memcpy(copy, e, len);
	*size = copy ? len : 0;
	return copy;
}

/* the ELF of a module: the vDSO's from memory, any other's by its path */
static int
find_elf(Dwfl_Module *m, void **user, const char *name, Dwarf_Addr base,
	 char **file, Elf **elfp)
{
	const char *image;
	size_t len;

	if (strcmp(name, VDSO))
		return DW(dwfl_linux_proc_find_elf)(m, user, name, base, file,
						    elfp);
	image = vdso_image(&len);
	*file = NULL;
	*elfp = image ? DW(elf_memory)((char *)image, len) : NULL;
	return -1;
}

static Dwfl_Callbacks callbacks;

int
syms_can_name(void)
{
	return dw_load() ? 0 : -1;
}

static void
report(struct space *sp)
{
	FILE *f;

	if (sp->dwfl && !sp->dirty)
		return;
	if (!dw_load())
		return; /* no libdw: samples are named by address */
	callbacks.find_elf = find_elf;
	callbacks.find_debuginfo = DW(dwfl_standard_find_debuginfo);
	if (sp->dwfl)
		DW(dwfl_end)(sp->dwfl);
	sp->dwfl = DW(dwfl_begin)(&callbacks);
	sp->dirty = 0;
	sp->gen++;
	if (!sp->dwfl || !sp->maps)
		return;
	f = fmemopen(sp->maps, sp->len, "r");
	if (!f)
		return;
	DW(dwfl_report_begin)(sp->dwfl);
	DW(dwfl_linux_proc_maps_report)(sp->dwfl, f);
	if (sp->vdso_hi)
		DW(dwfl_report_module)(sp->dwfl, VDSO, sp->vdso_lo,
				       sp->vdso_hi);
	DW(dwfl_report_end)(sp->dwfl, NULL, NULL);
	fclose(f);
}

void *
syms_dwfl(struct syms *s, int space)
{
	if (space < 0 || (size_t)space >= s->n)
		return NULL;
	report(&s->sp[space]);
	return s->sp[space].dwfl;
}

/* @ip's slot in the cache: a multiplicative hash of the address */
static struct named *
cached(struct syms *s, int space, uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)(unsigned int)space << 48)) *
		     0x9e3779b97f4a7c15u;

	if (!s->cache) {
		s->cache = calloc(NAME_CACHE, sizeof(*s->cache));
		if (!s->cache)
			return NULL;
		for (size_t i = 0; i < NAME_CACHE; i++)
			s->cache[i].space = -1;
	}
	return &s->cache[h >> 52 & (NAME_CACHE - 1)];
}

/* the function known to hold @ip: its index + 1 in sp->fns, else 0 */
static size_t
fn_known(const struct fn_file *sp, uint64_t ip)
{
	size_t lo = 0, hi = sp->nfns;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (sp->fns[mid].lo <= ip)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo && ip < sp->fns[lo - 1].hi ? lo : 0;
}

/* a function libdwfl named, kept in order (no memory: not kept) */
static void
fn_keep(struct fn_file *sp, struct fn_range r)
{
	size_t at = 0;

	if (r.name && !(r.name = strdup(r.name)))
		return;

	if (sp->nfns == sp->capfns) {
		size_t cap = sp->capfns ? 2 * sp->capfns : 256;
		struct fn_range *g = realloc(sp->fns, cap * sizeof(*g));

		if (!g) {
			free((char *)r.name);
			return;
		}
		sp->fns = g;
		sp->capfns = cap;
	}
	while (at < sp->nfns && sp->fns[at].lo < r.lo)
		at++;
	memmove(sp->fns + at + 1, sp->fns + at,
		(sp->nfns - at) * sizeof(*sp->fns));
	sp->fns[at] = r;
	sp->nfns++;
}

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* a binding's rank as libdwfl prefers it: global, weak, local */
static int
rank_of(const GElf_Sym *sym)
{
	switch (GELF_ST_BIND(sym->st_info)) {
	case STB_GLOBAL:
		return 3;
	case STB_WEAK:
		return 2;
	case STB_LOCAL:
		return 1;
	}
	return 0;
}

static int
cmp_sized(const void *a, const void *b)
{
	const struct fn_sized *x = a, *y = b;

	return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/*
 * Symbol @i of @m (at @addr) among those libdwfl's addrinfo may answer
 * with: the sized ones into ff->sized, the global sizeless ones'
 * addresses into ff->exact (@ff's arrays have room).
 */
static void
keep_candidate(struct fn_file *ff, int i, const char *name,
	       const GElf_Sym *sym, uint64_t addr, uint64_t ml)
{
	int type = GELF_ST_TYPE(sym->st_info);

	if (!name || !*name || sym->st_shndx == SHN_UNDEF ||
	    type == STT_SECTION || type == STT_FILE || type == STT_TLS)
		return;
	if (sym->st_size)
		ff->sized[ff->nsized++] = (struct fn_sized){
			addr - ml, addr - ml + sym->st_size, 0, i,
			rank_of(sym)
		};
	else if (i >= ff->first_global)
		ff->exact[ff->nexact++] = addr - ml;
}

/* free what keep_candidate() filled */
static void
drop_candidates(struct fn_file *ff)
{
	free(ff->sized);
	free(ff->exact);
	ff->sized = NULL;
	ff->exact = NULL;
}

/* ff->sized by start, each with the highest end up to it; ff->exact sorted */
static void
sort_candidates(struct fn_file *ff)
{
	qsort(ff->sized, ff->nsized, sizeof(*ff->sized), cmp_sized);
	for (size_t i = 0; i < ff->nsized; i++) {
		struct fn_sized *c = &ff->sized[i];

		c->maxhi = i && c[-1].maxhi > c->hi ? c[-1].maxhi : c->hi;
	}
	qsort(ff->exact, ff->nexact, sizeof(*ff->exact), cmp_u64);
}

/*
 * The @k symbols' [start, end) pairs @v into ff->start and ff->maxend (by
 * start, and the highest end up to each).  False without memory (and no
 * tables).
 */
static bool
index_bounds(struct fn_file *ff, uint64_t (*v)[2], size_t k)
{
	qsort(v, k, sizeof(*v), cmp_u64); /* by start: the pair's first */
	ff->start = malloc((k + 1) * 8);
	ff->maxend = malloc((k + 1) * 8);
	if (!ff->start || !ff->maxend) {
		free(ff->start);
		free(ff->maxend);
		ff->start = ff->maxend = NULL;
		return false;
	}
	for (size_t i = 0; i < k; i++) {
		ff->start[i] = v[i][0];
		ff->maxend[i] = i && ff->maxend[i - 1] > v[i][1]
					? ff->maxend[i - 1]
					: v[i][1];
	}
	return true;
}

/*
 * @m's symbols into @ff, from @m's start @ml, at the file's first use:
 * their bounds, and the candidates of fn_sized().  False if it has none
 * (or no memory: asked again).
 */
static bool
bounds_of(struct fn_file *ff, Dwfl_Module *m, uint64_t ml)
{
	int n = ff->bounds ? 0 : DW(dwfl_module_getsymtab)(m);
	uint64_t (*v)[2];
	size_t k = 0;

	if (ff->bounds)
		return ff->bounds > 0;
	if (n <= 1) {
		ff->bounds = -1; /* no table to bound a gap by: ask each time */
		return false;
	}
	v = calloc((size_t)n, sizeof(*v));
	ff->sized = calloc((size_t)n, sizeof(*ff->sized));
	ff->exact = calloc((size_t)n, sizeof(*ff->exact));
	ff->first_global = DW(dwfl_module_getsymtab_first_global)(m);
	if (!v || !ff->sized || !ff->exact || ff->first_global < 0) {
		free(v);
		drop_candidates(ff);
		return false;
	}
	ff->nsized = ff->nexact = 0;
	for (int i = 1; i < n; i++) {
		GElf_Addr addr;
		GElf_Sym sym;
		const char *name = DW(dwfl_module_getsym_info)(m, i, &sym, &addr,
							    NULL, NULL, NULL);

		keep_candidate(ff, i, name, &sym, addr, ml);
		/* absolute symbols (versions, at 0) are no code's */
		if (name && sym.st_shndx != SHN_UNDEF &&
		    sym.st_shndx != SHN_ABS &&
		    GELF_ST_TYPE(sym.st_info) != STT_SECTION &&
		    GELF_ST_TYPE(sym.st_info) != STT_FILE) {
			v[k][0] = addr - ml;
			v[k++][1] = addr - ml + sym.st_size;
		}
	}
	sort_candidates(ff);
	if (!index_bounds(ff, v, k)) {
		free(v);
		drop_candidates(ff); /* no memory: asked again */
		return false;
	}
	free(v);
	ff->nsyms = k;
	ff->bounds = k ? 1 : -1;
	return k;
}

/* the last of the @n sorted @v at most @x: its index + 1, or 0 */
static size_t
last_at_most(const uint64_t *v, size_t n, uint64_t x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid] <= x)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* whether libdwfl's walk, holding @b, takes @c (found after it) instead */
static bool
takes(const struct fn_sized *b, const struct fn_sized *c)
{
	if (b->lo < c->lo || b->rank < c->rank)
		return true; /* starts later, or binds stronger */
	/* the same start, as strong a binding: the shorter */
	return b->lo == c->lo && b->rank == c->rank && b->hi > c->hi;
}

#define MAX_HOLDING 64 /* sized symbols holding one address, at most */

/*
 * Of the sized symbols of @ff holding @rel with @from <= index < @to,
 * the one libdwfl's addrinfo answers with, walking its table in order
 * (takes()).  NULL: none holds @rel, or *@unsure: too many to tell here.
 */
static const struct fn_sized *
sized_pass(const struct fn_file *ff, uint64_t rel, int from, int to,
	   bool *unsure)
{
	const struct fn_sized *in[MAX_HOLDING], *best = NULL;
	size_t l = 0, h = ff->nsized, n = 0;

	while (l < h) {
		size_t mid = l + (h - l) / 2;

		if (ff->sized[mid].lo <= rel)
			l = mid + 1;
		else
			h = mid;
	}
	/* maxhi never falls going back: those before end at rel or before */
	for (size_t i = l; i-- > 0 && ff->sized[i].maxhi > rel;) {
		const struct fn_sized *c = &ff->sized[i];
		size_t at = n;

		if (c->hi <= rel || c->ndx < from || c->ndx >= to)
			continue;
		if (n == MAX_HOLDING) {
			*unsure = true;
			return NULL;
		}
		for (; at > 0 && in[at - 1]->ndx > c->ndx; at--)
			in[at] = in[at - 1];
		in[at] = c;
		n++;
	}
	for (size_t i = 0; i < n; i++)
		if (!best || takes(best, in[i]))
			best = in[i];
	return best;
}

/*
 * What libdwfl's addrinfo answers for @ip in @m (file @ff, from @ml),
 * where a sized symbol holds it, without its walk over the whole table
 * at every call: the globals first, then, if none holds @ip and no
 * global sizeless symbol is at @ip, the locals.  NULL: ask libdwfl.
 */
static const char *
fn_sized(struct fn_file *ff, Dwfl_Module *m, uint64_t ml, uint64_t ip,
	 GElf_Off *off, GElf_Sym *sym)
{
	int first = ff->first_global, n = DW(dwfl_module_getsymtab)(m);
	uint64_t rel = ip - ml;
	const struct fn_sized *c;
	bool unsure = false;
	GElf_Addr addr;
	const char *name;
	size_t k;

	if (!bounds_of(ff, m, ml) || n < 0)
		return NULL;
	c = sized_pass(ff, rel, first ? first : 1, n, &unsure);
	if (!c && !unsure && first > 1) {
		k = last_at_most(ff->exact, ff->nexact, rel);
		if (k && ff->exact[k - 1] == rel)
			return NULL;
		c = sized_pass(ff, rel, 1, first, &unsure);
	}
	if (!c)
		return NULL;
	name = DW(dwfl_module_getsym_info)(m, c->ndx, sym, &addr, NULL, NULL,
					   NULL);
	*off = ip - addr;
	return name;
}

static int
underscores(const char *name)
{
	int n = 0;

	while (name[n] == '_')
		n++;
	return n;
}

/* whether perf takes alias @b (binding rank @rb) over @a (@ra) */
static bool
perf_prefers(const char *a, int ra, const char *b, int rb)
{
	/* rank_of()'s global 3, weak 2, local 1: perf's order is 3, 1, 2 */
	ra = ra == 2 ? 0 : ra;
	rb = rb == 2 ? 0 : rb;
	if (ra != rb)
		return rb > ra;
	if (underscores(a) != underscores(b))
		return underscores(b) < underscores(a);
	return strlen(b) > strlen(a);
}

/*
 * @name, a weak symbol of @size at @lo (from @ml) in @m, or the alias perf
 * names it by: a symbol of the same start and size that is not weak (its
 * choose_best_symbol(), perf 6.1's util/symbol.c: a weak one last, then a
 * global before a local, fewer leading underscores, the longer name).
 * libdwfl answers the weak one: glibc's IFUNC resolvers in libc6-dbg's
 * table are weak strnlen and local __strnlen_ifunc at one address.
 */
static const char *
perf_alias(struct fn_file *ff, Dwfl_Module *m, uint64_t ml, uint64_t lo,
	   uint64_t size, const char *name, GElf_Sym *sym)
{
	const char *best = name;
	int best_rank = 0;
	size_t l = 0, h;

	if (!bounds_of(ff, m, ml))
		return name;
	h = ff->nsized;
	while (l < h) { /* the first sized symbol starting at lo or after */
		size_t mid = l + (h - l) / 2;

		if (ff->sized[mid].lo < lo)
			l = mid + 1;
		else
			h = mid;
	}
	for (; l < ff->nsized && ff->sized[l].lo == lo; l++) {
		const struct fn_sized *c = &ff->sized[l];
		GElf_Addr at;
		GElf_Sym cs;
		const char *cn;

		if (c->hi - c->lo != size || c->rank == 2 /* weak */)
			continue;
		cn = DW(dwfl_module_getsym_info)(m, c->ndx, &cs, &at, NULL,
						 NULL, NULL);
		if (cn && (!best_rank || perf_prefers(best, best_rank, cn,
						      c->rank))) {
			best = cn;
			best_rank = c->rank;
			*sym = cs;
		}
	}
	return best;
}

/*
 * The symbol without a size at @lo (from @ml) in @m that perf names the
 * gap after it by, up to the next symbol: perf gives such a symbol the
 * end of the next one's start (symbols__fixup_end()), in whatever
 * section, where libdwfl names nothing across sections.  A sample in the
 * PLT's header, after a sizeless _init in .init: perf script "_init+0x26".
 * NULL: none.
 */
static const char *
sizeless_at(Dwfl_Module *m, uint64_t ml, uint64_t lo, GElf_Sym *best_sym)
{
	int n = DW(dwfl_module_getsymtab)(m), best_rank = 0;
	const char *best = NULL;

	for (int i = 1; i < n; i++) {
		GElf_Addr addr;
		GElf_Sym sym;
		const char *name = DW(dwfl_module_getsym_info)(m, i, &sym, &addr,
							    NULL, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);

		if (!name || !*name || addr - ml != lo || sym.st_size ||
		    sym.st_shndx == SHN_UNDEF || sym.st_shndx == SHN_ABS ||
		    (type != STT_FUNC && type != STT_NOTYPE &&
		     type != STT_GNU_IFUNC))
			continue;
		if (!best || perf_prefers(best, best_rank, name, rank_of(&sym))) {
			best = name;
			best_rank = rank_of(&sym);
			*best_sym = sym;
		}
	}
	return best;
}

/*
 * The gap around @rel in @m (from its start @ml, file @ff) where no
 * symbol starts or ends, in *@lo, *@hi, from @ml too: false if a sized
 * symbol holds @rel (or no memory).
 */
static bool
gap_of(struct fn_file *ff, Dwfl_Module *m, uint64_t ml, uint64_t rel,
       uint64_t *lo, uint64_t *hi)
{
	GElf_Addr mhi = 0;
	size_t l;

	if (!bounds_of(ff, m, ml))
		return false;
	l = last_at_most(ff->start, ff->nsyms, rel);
	DW(dwfl_module_info)(m, NULL, NULL, &mhi, NULL, NULL, NULL, NULL);
	if (l && ff->maxend[l - 1] > rel)
		return false;
	*lo = l ? (ff->maxend[l - 1] > ff->start[l - 1] ? ff->maxend[l - 1]
						       : ff->start[l - 1])
		: 0;
	*hi = l < ff->nsyms ? ff->start[l] : mhi - ml;
	/* within the module, whatever its table holds */
	*hi = *hi < mhi - ml ? *hi : mhi - ml;
	return *lo <= rel && rel < *hi;
}

/* the file's entry (NULL: no memory) */
static struct fn_file *
file_of(struct syms *s, const char *path)
{
	struct fn_file *g;

	for (size_t i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return &s->files[i];
	g = realloc(s->files, (s->nfiles + 1) * sizeof(*g));
	if (!g)
		return NULL;
	s->files = g;
	g = &s->files[s->nfiles];
	*g = (struct fn_file){ .path = strdup(path) };
	if (!g->path)
		return NULL;
	s->nfiles++;
	return g;
}

/*
 * A module's PLT, as perf (6.1) names its entries, "NAME@plt": .plt is a
 * header and then one entry per relocation of .rela.plt (or .rel.plt), in
 * their order, each for the .dynsym symbol its relocation names.  Entry
 * sizes are the architecture's (arm64: a 32-byte header, 16-byte
 * entries), else .plt's own entry size.  Addresses as the process has
 * them.  Always the module's own file: debug files keep no PLT.
 */
struct plt {
	uint64_t lo, hi, ent; /* the entries: [lo, hi), each ent bytes */
	Elf *elf;
	Elf_Data *rel, *dynsym;
	int rela;
	size_t strtab;
};

static Elf_Scn *
section(Elf *e, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	Elf_Scn *scn = NULL;

	while ((scn = DW(elf_nextscn)(e, scn))) {
		const char *n;

		if (!DW(gelf_getshdr)(scn, sh))
			continue;
		n = DW(elf_strptr)(e, shstrndx, sh->sh_name);
		if (n && !strcmp(n, name))
			return scn;
	}
	return NULL;
}

static bool
plt_of(Dwfl_Module *m, struct plt *p)
{
	GElf_Addr bias = 0;
	Elf *e = DW(dwfl_module_getelf)(m, &bias);
	GElf_Shdr plt, rel, dyn;
	Elf_Scn *rs, *ds;
	GElf_Ehdr eh;
	size_t shstrndx, head;

	if (!e || !DW(gelf_getehdr)(e, &eh) ||
	    DW(elf_getshdrstrndx)(e, &shstrndx) ||
	    !section(e, shstrndx, ".plt", &plt))
		return false;
	rs = section(e, shstrndx, ".rela.plt", &rel);
	if (!rs)
		rs = section(e, shstrndx, ".rel.plt", &rel);
	ds = rs ? DW(elf_getscn)(e, rel.sh_link) : NULL;
	if (!ds || !DW(gelf_getshdr)(ds, &dyn) || dyn.sh_type != SHT_DYNSYM ||
	    !rel.sh_entsize)
		return false;
	head = eh.e_machine == EM_AARCH64 ? 32 : plt.sh_entsize;
	p->ent = eh.e_machine == EM_AARCH64 ? 16 : plt.sh_entsize;
	p->lo = bias + plt.sh_addr + head;
	p->hi = p->lo + p->ent * (rel.sh_size / rel.sh_entsize);
	p->elf = e;
	p->rel = DW(elf_getdata)(rs, NULL);
	p->dynsym = DW(elf_getdata)(ds, NULL);
	p->rela = rel.sh_type == SHT_RELA;
	p->strtab = dyn.sh_link;
	return p->ent && p->rel && p->dynsym && p->hi <= bias + plt.sh_addr +
							 plt.sh_size;
}

/* the PLT entry holding @ip: its name into @buf and its start, or NULL */
static const char *
plt_entry(const struct plt *p, uint64_t ip, char *buf, size_t len,
	  uint64_t *start)
{
	size_t k = (size_t)((ip - p->lo) / p->ent);
	uint64_t info;
	const char *name;
	GElf_Rela ra;
	GElf_Rel r;
	GElf_Sym sym;

	if (ip < p->lo || ip >= p->hi)
		return NULL;
	if (p->rela ? !DW(gelf_getrela)(p->rel, (int)k, &ra)
		    : !DW(gelf_getrel)(p->rel, (int)k, &r))
		return NULL;
	info = p->rela ? ra.r_info : r.r_info;
	if (!DW(gelf_getsym)(p->dynsym, (int)GELF_R_SYM(info), &sym) ||
	    !(name = DW(elf_strptr)(p->elf, p->strtab, sym.st_name)))
		return NULL;
	snprintf(buf, len, "%s@plt", name);
	*start = p->lo + k * p->ent;
	return buf;
}

/*
 * The function holding @ip in module @m: its name and @ip's
 * offset.  What libdwfl answers is kept for the module's file, by
 * address within its mapping: a sized symbol for its range, a PLT entry
 * for its own, any other answer (a sizeless symbol before, or none) for
 * the gap between symbols, short of the PLT's entries.
 */
static const char *
fn_at(struct syms *s, Dwfl_Module *m, uint64_t ip, uint64_t *off)
{
	static char plt_name[300];
	GElf_Addr ml = 0;
	const char *path = DW(dwfl_module_info)(m, NULL, &ml, NULL, NULL, NULL,
						NULL, NULL);
	struct fn_file *ff = path ? file_of(s, path) : NULL;
	uint64_t rel = ip - ml, lo, hi, at;
	size_t k = ff ? fn_known(ff, rel) : 0;
	GElf_Off o = 0;
	GElf_Sym sym;
	const char *name;
	struct plt p = { 0 };
	bool has_plt;

	if (k) {
		*off = rel - ff->fns[k - 1].base;
		return ff->fns[k - 1].name;
	}
	name = ff ? fn_sized(ff, m, ml, ip, &o, &sym) : NULL;
	if (!name)
		name = DW(dwfl_module_addrinfo)(m, ip, &o, &sym, NULL, NULL,
						NULL);
	*off = o;
	if (name && ff && sym.st_size && o < sym.st_size &&
	    GELF_ST_BIND(sym.st_info) == STB_WEAK)
		name = perf_alias(ff, m, ml, rel - o, sym.st_size, name, &sym);
	if (name && sym.st_size && o < sym.st_size) {
		if (ff)
			fn_keep(ff, (struct fn_range){ rel - o,
						       rel - o + sym.st_size,
						       rel - o, name });
		return name;
	}
	has_plt = plt_of(m, &p);
	if (has_plt && plt_entry(&p, ip, plt_name, sizeof(plt_name), &at)) {
		*off = ip - at;
		if (ff)
			fn_keep(ff, (struct fn_range){ at - ml, at - ml + p.ent,
						       at - ml, plt_name });
		return plt_name;
	}
	if (!ff || !gap_of(ff, m, ml, rel, &lo, &hi))
		return name;
	if (has_plt && ip < p.lo && hi > p.lo - ml)
		hi = p.lo - ml;
	if (has_plt && ip >= p.hi && lo < p.hi - ml)
		lo = p.hi - ml;
	if (!name && (name = sizeless_at(m, ml, lo, &sym)))
		*off = o = rel - lo;
	fn_keep(ff, (struct fn_range){ lo, hi, name ? rel - o : 0, name });
	return name;
}

/* what libdwfl says of @ip in @sp: a symbol and a module, either NULL */
static void
look_up(struct syms *s, struct space *sp, uint64_t ip, const char **name,
	const char **mod)
{
	Dwfl_Module *m = sp && sp->dwfl && mapped(sp, ip)
				 ? DW(dwfl_addrmodule)(sp->dwfl, ip)
				 : NULL;
	const char *slash;
	uint64_t off;

	*name = *mod = NULL;
	if (!m)
		return;
	*name = fn_at(s, m, ip, &off);
	*mod = DW(dwfl_module_info)(m, NULL, NULL, NULL, NULL, NULL, NULL,
				    NULL);
	slash = *mod ? strrchr(*mod, '/') : NULL;
	if (slash)
		*mod = slash + 1;
}

/*
 * Addresses without a symbol (a stripped program) are one row per module,
 * "[unknown]", rather than one per address.
 */
void
syms_name(struct syms *s, int space, bool kernel, uint64_t ip, char *fn,
	  size_t fn_len, char *mod, size_t mod_len)
{
	struct space *sp = space >= 0 ? &s->sp[space] : NULL;
	const char *name, *mname;
	struct named *c;

	if (kernel)
		return kernel_name(s, ip, fn, fn_len, mod, mod_len);
	if (sp)
		report(sp);
	if (!sp || !sp->dwfl)
		return name_by_maps(sp, ip, fn, fn_len, mod, mod_len);
	c = cached(s, space, ip);
	if (c && c->space == space && c->ip == ip && c->gen == sp->gen) {
		copy_name(mod, mod_len, c->mod);
		copy_name(fn, fn_len, c->fn);
		return;
	}
	look_up(s, sp, ip, &name, &mname);
	snprintf(mod, mod_len, "%s", mname ? mname : "?");
	snprintf(fn, fn_len, "%s", name ? name : "[unknown]");
	if (!c)
		return;
	free(c->fn);
	free(c->mod);
	c->fn = strdup(fn);
	c->mod = strdup(mod);
	c->space = c->fn && c->mod ? space : -1; /* no memory: not cached */
	c->ip = ip;
	c->gen = sp->gen;
}

/* with libdw: the module (its file as mapped) and the symbol */
static void
dwfl_where(struct syms *s, struct space *sp, uint64_t ip,
	   struct sym_where *w)
{
	Dwfl_Module *m;
	GElf_Addr start = 0;
	uint64_t off = 0;
	const char *name, *file;

	if (!mapped(sp, ip))
		return;
	m = DW(dwfl_addrmodule)(sp->dwfl, ip);
	if (!m)
		return maps_where(sp, ip, w);
	file = DW(dwfl_module_info)(m, NULL, &start, NULL, NULL, NULL, NULL,
				    NULL);
	if (!file || (*file != '/' && strcmp(file, VDSO)))
		return maps_where(sp, ip, w);
	snprintf(w->path, sizeof(w->path), "%s", file);
	w->rel = ip - start;
	w->has_map = 1;
	name = fn_at(s, m, ip, &off);
	if (!name)
		return;
	snprintf(w->sym, sizeof(w->sym), "%s", name);
	w->off = off;
	w->has_sym = 1;
}

static void
user_where(struct syms *s, int space, uint64_t ip, struct sym_where *w)
{
	struct space *sp = space >= 0 ? &s->sp[space] : NULL;

	if (sp)
		report(sp);
	if (sp && sp->dwfl)
		dwfl_where(s, sp, ip, w);
	else
		maps_where(sp, ip, w);
}

/* scope @die's name into @names if it is a function's or an inlined call's */
static int
scope_name(Dwarf_Die *die, const char **names, int *n, int max)
{
	int tag = DW(dwarf_tag)(die);
	const char *name;

	if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
		return 0;
	name = DW(dwarf_diename)(die);
	if (*n < max)
		names[(*n)++] = name ? name : "??";
	return tag;
}

/*
 * As eu-addr2line -i: the innermost scope at the address that is a
 * function or an inlined call; for a call, the scopes around its
 * instance, out to the function it was inlined into (the scopes at the
 * address continue into the called function's abstract definition).
 */
int
syms_inlined(struct syms *s, int space, uint64_t ip, const char **names,
	     int max)
{
	struct space *sp = space >= 0 ? &s->sp[space] : NULL;
	Dwarf_Die *cu, *scopes = NULL, *outer = NULL;
	Dwfl_Module *m;
	Dwarf_Addr bias;
	int i, n = 0, nscopes, nouter, tag = 0;

	if (sp)
		report(sp);
	if (!sp || !sp->dwfl || !mapped(sp, ip) ||
	    !(m = DW(dwfl_addrmodule)(sp->dwfl, ip)) ||
	    !(cu = DW(dwfl_module_addrdie)(m, ip, &bias)))
		return 0;
	nscopes = DW(dwarf_getscopes)(cu, ip - bias, &scopes);
	for (i = 0; i < nscopes && !tag; i++)
		tag = scope_name(&scopes[i], names, &n, max);
	if (tag == DW_TAG_inlined_subroutine) {
		/* [0] is the call itself */
		nouter = DW(dwarf_getscopes_die)(&scopes[i - 1], &outer);
		for (int j = 1; j < nouter && tag != DW_TAG_subprogram; j++)
			tag = scope_name(&outer[j], names, &n, max);
	}
	free(outer);
	free(scopes);
	return n;
}
#else
int
syms_can_name(void)
{
	return -1;
}

static void
user_where(struct syms *s, int space, uint64_t ip, struct sym_where *w)
{
	maps_where(space >= 0 ? &s->sp[space] : NULL, ip, w);
}

void
syms_name(struct syms *s, int space, bool kernel, uint64_t ip, char *fn,
	  size_t fn_len, char *mod, size_t mod_len)
{
	if (kernel)
		return kernel_name(s, ip, fn, fn_len, mod, mod_len);
	name_by_maps(space >= 0 ? &s->sp[space] : NULL, ip, fn, fn_len, mod,
		     mod_len);
}

void *
syms_dwfl(struct syms *s, int space)
{
	(void)s, (void)space;
	return NULL;
}

int
syms_inlined(struct syms *s, int space, uint64_t ip, const char **names,
	     int max)
{
	(void)s, (void)space, (void)ip, (void)names, (void)max;
	return 0;
}
#endif

void
syms_where(struct syms *s, int space, bool kernel, uint64_t ip,
	   struct sym_where *w)
{
	memset(w, 0, sizeof(*w));
	snprintf(w->sym, sizeof(w->sym), "[unknown]");
	snprintf(w->path, sizeof(w->path), "[unknown]");
	if (kernel)
		kernel_where(s, ip, w);
	else
		user_where(s, space, ip, w);
}

void
syms_free(struct syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
#ifdef HAVE_DWFL
		if (s->sp[i].dwfl)
			DW(dwfl_end)(s->sp[i].dwfl);
#endif
		free(s->sp[i].maps);
		free(s->sp[i].text);
	}
	free(s->ktext);
	for (size_t i = 0; s->cache && i < NAME_CACHE; i++) {
		free(s->cache[i].fn);
		free(s->cache[i].mod);
	}
	for (size_t i = 0; i < s->nfiles; i++) {
		for (size_t j = 0; j < s->files[i].nfns; j++)
			free((char *)s->files[i].fns[j].name);
		free(s->files[i].fns);
		free(s->files[i].start);
		free(s->files[i].sized);
		free(s->files[i].exact);
		free(s->files[i].maxend);
		free(s->files[i].path);
	}
	free(s->files);
	free(s->cache);
	free(s->k);
	free(s->sp);
	free(s);
}
