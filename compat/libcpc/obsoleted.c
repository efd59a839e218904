/* SPDX-License-Identifier: MIT */
/*
 * obsoleted.c - the CPCv1 interfaces, a thin shim over CPCv2.
 *
 * One CPCv2 handle, opened lazily on first use, serves every thread.  A
 * cpc_event_t carries its selection in ce_pes[]: P6 PerfEvtSel values for
 * numeric x86 events, and for named events CPC_PES_NAMED with an index into
 * a table of the names seen by cpc_strtoevent().  Binding translates that
 * selection into a CPCv2 set, one request per enabled counter:
 *
 *	CPC_PES_USR            -> CPC_COUNT_USER
 *	CPC_PES_OS             -> CPC_COUNT_SYSTEM
 *	CPC_BIND_EMT_OVF       -> CPC_OVF_NOTIFY_EMT on every request
 *	CPC_BIND_LWP_INHERIT   -> CPC_BIND_LWP_INHERIT
 *	ce_pic[n]              -> the request's preset
 *
 * Rebinding the selection that is already bound (what an overflow handler
 * does) only changes the presets and restarts: system calls only, safe in
 * a signal handler.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpc_impl.h"

static cpc_t *v1_cpc;
static pthread_once_t v1_once = PTHREAD_ONCE_INIT;
static cpc_errfn_t *v1_errfn;

/* the calling LWP's binding */
struct v1_bind {
	cpc_set_t *set;
	cpc_buf_t *buf;
	uint32_t pes[2];
	int flags;
	int pic_of[2]; /* request index -> counter number */
	int cpuver; /* the handle's, for ce_cpuver */
	bool direct; /* two requests, request i on counter i */
};
static __thread struct v1_bind bound;

/* ---- errors --------------------------------------------------------------- */

static void
v1_err(const char *fn, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (v1_errfn) {
		v1_errfn(fn, fmt, ap);
	} else {
		fprintf(stderr, "libcpc: %s: ", fn);
		vfprintf(stderr, fmt, ap);
		fputc('\n', stderr);
	}
	va_end(ap);
}

static void
v1_errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	if (v1_errfn) {
		v1_errfn(fn, fmt, ap);
		return;
	}
	fprintf(stderr, "libcpc: %s: ", fn);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

CPC_EXPORT void
cpc_seterrfn(cpc_errfn_t *errfn)
{
	v1_errfn = errfn;
}

static void
v1_open(void)
{
	v1_cpc = cpc_open(CPC_VER_CURRENT);
	if (v1_cpc)
		cpc_seterrhndlr(v1_cpc, v1_errhndlr);
}

static cpc_t *
v1_handle(void)
{
	pthread_once(&v1_once, v1_open);
	return v1_cpc;
}

/* ---- the names seen by cpc_strtoevent() ------------------------------------ */

#define NAMES_MAX 0x10000
static char **names;
static int nr_names;
static pthread_mutex_t names_lock = PTHREAD_MUTEX_INITIALIZER;

static int
name_index(const char *name)
{
	int idx = -1;

	pthread_mutex_lock(&names_lock);
	for (int i = 0; i < nr_names && idx < 0; i++)
		if (!strcmp(names[i], name))
			idx = i;
	if (idx < 0 && nr_names < NAMES_MAX) {
		char **n = realloc(names, (nr_names + 1) * sizeof(*n));
		char *dup = strdup(name);

		if (n)
			names = n;
		if (n && dup) {
			names[nr_names] = dup;
			idx = nr_names++;
		} else {
			free(dup);
		}
	}
	pthread_mutex_unlock(&names_lock);
	return idx;
}

static const char *
name_of(uint32_t pes)
{
	const char *n = NULL;
	int idx = (int)(pes & 0xffff);

	pthread_mutex_lock(&names_lock);
	if (idx < nr_names)
		n = names[idx];
	pthread_mutex_unlock(&names_lock);
	return n;
}

/* ---- processor information ------------------------------------------------- */

CPC_EXPORT uint_t
cpc_version(uint_t ver)
{
	if (ver == CPC_VER_NONE)
		return CPC_VER_CURRENT;
	if (ver > CPC_VER_CURRENT)
		return CPC_VER_NONE;
	return ver;
}

CPC_EXPORT int
cpc_getcpuver(void)
{
	return cpc__cpuver();
}

CPC_EXPORT const char *
cpc_getcciname(int cpuver)
{
	cpc_t *cpc = v1_handle();

	if (!cpc || cpuver != cpc__cpuver())
		return NULL;
	return cpc_cciname(cpc);
}

CPC_EXPORT const char *
cpc_getcpuref(int cpuver)
{
	cpc_t *cpc = v1_handle();

	if (!cpc || cpuver != cpc__cpuver())
		return NULL;
	return cpc_cpuref(cpc);
}

CPC_EXPORT const char *
cpc_getusage(int cpuver)
{
	if (cpuver != cpc__cpuver())
		return NULL;
	return "[[pic0=]<event0>] [,[pic1=]<event1>] [,sys] [,nouser] "
	       "[,edge] [,noedge] [,pc] [,int] [,inv] [,cmask0=<n>] "
	       "[,cmask1=<n>] [,umask0=<n>] [,umask1=<n>]; events: "
	       "libpctr names, PAPI_* generic names, x86 event codes";
}

CPC_EXPORT uint_t
cpc_getnpic(int cpuver)
{
	return cpuver == cpc__cpuver() ? 2 : 0;
}

struct walk_names {
	int regno;
	void *arg;
	void (*action)(void *arg, int regno, const char *name, uint8_t bits);
};

static void
walk_name(void *arg, const char *name)
{
	struct walk_names *w = arg;

	w->action(w->arg, w->regno, name, 64);
}

CPC_EXPORT void
cpc_walk_names(int cpuver, int regno, void *arg,
	       void (*action)(void *arg, int regno, const char *name,
			      uint8_t bits))
{
	struct walk_names w = { regno, arg, action };

	if (cpuver != cpc__cpuver() || regno < 0 || regno > 1)
		return;
	cpc__walk_all(&w, walk_name);
}

/* ---- event specifications ------------------------------------------------- */

struct spec {
	char *event[2];
	uint32_t umask[2], cmask[2];
	int user, sys, edge, inv;
};

static int
parse_num(const char *s, uint32_t max, uint32_t *v)
{
	char *end;
	unsigned long n;

	errno = 0;
	n = strtoul(s, &end, 0);
	if (!*s || *end || errno || n > max)
		return -1;
	*v = (uint32_t)n;
	return 0;
}

/* next comma-separated token; commas inside "pmu/.../" belong to it */
static char *
next_token(char **p)
{
	char *tok = *p, *s = *p;
	int in_pmu = 0;

	if (!tok)
		return NULL;
	for (; *s; s++) {
		if (*s == '/')
			in_pmu = !in_pmu;
		else if (*s == ',' && !in_pmu)
			break;
	}
	*p = *s ? s + 1 : NULL;
	*s = '\0';
	return tok;
}

static int
spec_keyword(struct spec *sp, const char *tok)
{
	static const char *const nkw[] = { "umask0=", "umask1=", "cmask0=",
					   "cmask1=" };
	uint32_t *nv[] = { &sp->umask[0], &sp->umask[1], &sp->cmask[0],
			   &sp->cmask[1] };

	if (!strcmp(tok, "nouser"))
		sp->user = 0;
	else if (!strcmp(tok, "sys"))
		sp->sys = 1;
	else if (!strcmp(tok, "edge"))
		sp->edge = 1;
	else if (!strcmp(tok, "noedge"))
		sp->edge = 0;
	else if (!strcmp(tok, "inv"))
		sp->inv = 1;
	else if (!strcmp(tok, "pc") || !strcmp(tok, "int"))
		; /* pins and APIC belong to the kernel */
	else {
		for (int i = 0; i < 4; i++)
			if (!strncmp(tok, nkw[i], 7))
				return parse_num(tok + 7, 0xff, nv[i]) ? -1 : 1;
		return 0;
	}
	return 1;
}

static int
spec_parse(char *text, struct spec *sp)
{
	char *p = text, *tok;

	memset(sp, 0, sizeof(*sp));
	sp->user = 1;
	while ((tok = next_token(&p))) {
		int k, pic = -1;

		if (!*tok)
			continue;
		if (!strncmp(tok, "pic0=", 5) || !strncmp(tok, "pic1=", 5)) {
			pic = tok[3] - '0';
			tok += 5;
		} else if ((k = spec_keyword(sp, tok)) != 0) {
			if (k < 0) {
				v1_err("cpc_strtoevent", "bad value in '%s'",
				       tok);
				return -1;
			}
			continue;
		} else {
			pic = sp->event[0] ? 1 : 0;
		}
		if (sp->event[pic] || !*tok) {
			v1_err("cpc_strtoevent", "counter pic%d given twice "
			       "or empty", pic);
			return -1;
		}
		sp->event[pic] = tok;
	}
	return 0;
}

static int
code_of(const char *name, uint32_t *code)
{
	if (!(name[0] >= '0' && name[0] <= '9'))
		return 0;
	return parse_num(name, 0xff, code) == 0;
}

/* one counter's selection; -1 if its event is not available here */
static int
pes_of(const struct spec *sp, int pic, uint32_t *pes)
{
	const char *ev = sp->event[pic];
	uint32_t flags = CPC_PES_EN | (sp->user ? CPC_PES_USR : 0) |
			 (sp->sys ? CPC_PES_OS : 0);
	uint32_t code;
	int idx;

	if (code_of(ev, &code)) {
		*pes = code | sp->umask[pic] << 8 | sp->cmask[pic] << 24 |
		       flags | (sp->edge ? CPC_PES_EDGE : 0) |
		       (sp->inv ? CPC_PES_INV : 0);
		return 0;
	}
	if (sp->umask[pic] || sp->cmask[pic]) {
		v1_err("cpc_strtoevent", "umask%d and cmask%d apply to "
		       "numeric event codes only", pic, pic);
		return -1;
	}
	idx = name_index(ev);
	if (idx < 0)
		return -1;
	*pes = CPC_PES_NAMED | (uint32_t)idx | flags;
	return 0;
}

/* a request's event name and attributes for one selection */
static const char *
request_of(uint32_t pes, char *buf, size_t len, cpc_attr_t *attrs,
	   int *nattrs)
{
	*nattrs = 0;
	if (pes & CPC_PES_NAMED)
		return name_of(pes);
	snprintf(buf, len, "0x%x", pes & CPC_PES_EVENT);
	attrs[0].ca_name = (char *)"umask";
	attrs[0].ca_val = (pes & CPC_PES_UMASK) >> 8;
	attrs[1].ca_name = (char *)"cmask";
	attrs[1].ca_val = (pes & CPC_PES_CMASK) >> 24;
	attrs[2].ca_name = (char *)"edge";
	attrs[2].ca_val = !!(pes & CPC_PES_EDGE);
	attrs[3].ca_name = (char *)"inv";
	attrs[3].ca_val = !!(pes & CPC_PES_INV);
	*nattrs = 4;
	return buf;
}

static uint_t
request_flags(uint32_t pes, int bind_flags)
{
	return (pes & CPC_PES_USR ? CPC_COUNT_USER : 0) |
	       (pes & CPC_PES_OS ? CPC_COUNT_SYSTEM : 0) |
	       (bind_flags & CPC_BIND_EMT_OVF ? CPC_OVF_NOTIFY_EMT : 0);
}

/* add the requests of @event's enabled counters to @set */
static int
event_to_set(cpc_t *cpc, const cpc_event_t *event, int flags,
	     cpc_set_t *set, int pic_of[2])
{
	for (int pic = 0; pic < 2; pic++) {
		uint32_t pes = event->ce_pes[pic];
		cpc_attr_t attrs[4];
		char buf[16];
		const char *name;
		int n, idx;

		if (!(pes & CPC_PES_EN))
			continue;
		name = request_of(pes, buf, sizeof(buf), attrs, &n);
		if (!name)
			return -1;
		idx = cpc_set_add_request(cpc, set, name, event->ce_pic[pic],
					  request_flags(pes, flags), (uint_t)n,
					  attrs);
		if (idx < 0)
			return -1;
		pic_of[idx] = pic;
	}
	return set->nreq ? 0 : -1;
}

static int
check_event(cpc_t *cpc, uint32_t pes)
{
	struct pctr_event pe;
	cpc_attr_t attrs[4];
	char buf[16];
	const char *name;
	int n, r;

	name = request_of(pes, buf, sizeof(buf), attrs, &n);
	if (!name)
		return -1;
	r = cpc__resolve(name, request_flags(pes, 0), n, attrs, &pe);
	if (r < 0)
		cpc__event_error(cpc, "cpc_strtoevent", name, r);
	return r;
}

CPC_EXPORT int
cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event)
{
	cpc_t *cpc = v1_handle();
	cpc_event_t ev;
	struct spec sp;
	int r = -1;
	char *text;

	if (!spec || !event || !cpc) {
		errno = EINVAL;
		return -1;
	}
	if (cpuver != cpc__cpuver()) {
		v1_err("cpc_strtoevent", "processor version %d is not this "
		       "processor's (%d)", cpuver, cpc__cpuver());
		return -1;
	}
	text = strdup(spec);
	if (!text || spec_parse(text, &sp) < 0)
		goto out;
	memset(&ev, 0, sizeof(ev));
	ev.ce_cpuver = cpuver;
	for (int pic = 0; pic < 2; pic++)
		if (sp.event[pic] && pes_of(&sp, pic, &ev.ce_pes[pic]) < 0)
			goto out;
	if (!sp.event[0] && !sp.event[1]) {
		v1_err("cpc_strtoevent", "no event in '%s'", spec);
		goto out;
	}
	/* check now that every event can be counted on this processor */
	for (int pic = 0; pic < 2; pic++)
		if (sp.event[pic] && check_event(cpc, ev.ce_pes[pic]) < 0)
			goto out;
	*event = ev;
	r = 0;
out:
	free(text);
	return r;
}

static int
append(char **s, size_t *len, const char *fmt, ...)
{
	va_list ap;
	char *n;
	int add;

	va_start(ap, fmt);
	add = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	n = realloc(*s, *len + (size_t)add + 1);
	if (!n)
		return -1;
	*s = n;
	va_start(ap, fmt);
	vsnprintf(n + *len, (size_t)add + 1, fmt, ap);
	va_end(ap);
	*len += (size_t)add;
	return 0;
}

CPC_EXPORT char *
cpc_eventtostr(cpc_event_t *event)
{
	uint32_t all = 0, first = 0;
	char *s = NULL;
	size_t len = 0;
	int r = 0;

	for (int pic = 0; pic < 2; pic++) {
		uint32_t pes = event->ce_pes[pic];
		const char *name;

		if (!(pes & CPC_PES_EN))
			continue;
		if (!first)
			first = pes;
		all |= pes;
		name = pes & CPC_PES_NAMED ? name_of(pes) : NULL;
		if (name)
			r |= append(&s, &len, "%spic%d=%s", len ? "," : "",
				    pic, name);
		else
			r |= append(&s, &len, "%spic%d=0x%x", len ? "," : "",
				    pic, pes & CPC_PES_EVENT);
		if (!(pes & CPC_PES_NAMED) && (pes & CPC_PES_UMASK))
			r |= append(&s, &len, ",umask%d=0x%x", pic,
				    (pes & CPC_PES_UMASK) >> 8);
		if (!(pes & CPC_PES_NAMED) && (pes & CPC_PES_CMASK))
			r |= append(&s, &len, ",cmask%d=0x%x", pic,
				    (pes & CPC_PES_CMASK) >> 24);
	}
	if (!first) {
		errno = EINVAL;
		return NULL;
	}
	if (first & CPC_PES_OS)
		r |= append(&s, &len, ",sys");
	if (!(first & CPC_PES_USR))
		r |= append(&s, &len, ",nouser");
	if (!(all & CPC_PES_NAMED) && (all & CPC_PES_EDGE))
		r |= append(&s, &len, ",edge");
	if (!(all & CPC_PES_NAMED) && (all & CPC_PES_INV))
		r |= append(&s, &len, ",inv");
	if (r) {
		free(s);
		return NULL;
	}
	return s;
}

CPC_EXPORT void
cpc_event_accum(cpc_event_t *accum, cpc_event_t *event)
{
	if (accum->ce_hrt < event->ce_hrt)
		accum->ce_hrt = event->ce_hrt;
	accum->ce_tsc += event->ce_tsc;
	accum->ce_pic[0] += event->ce_pic[0];
	accum->ce_pic[1] += event->ce_pic[1];
}

CPC_EXPORT void
cpc_event_diff(cpc_event_t *diff, cpc_event_t *left, cpc_event_t *right)
{
	diff->ce_hrt = left->ce_hrt;
	diff->ce_tsc = left->ce_tsc - right->ce_tsc;
	diff->ce_pic[0] = left->ce_pic[0] - right->ce_pic[0];
	diff->ce_pic[1] = left->ce_pic[1] - right->ce_pic[1];
}

/* ---- binding to the calling LWP -------------------------------------------- */

CPC_EXPORT int
cpc_access(void)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_set *ps = NULL;
	int r;

	if (cpc__cpuver() == -1) {
		v1_err("cpc_access", "this kernel has no performance "
		       "counter support (perf_event_open)");
		errno = ENOSYS;
		return -1;
	}
	r = pctr_set_new(&ps, 0);
	if (r == 0)
		r = pctr_set_add(ps, "task-clock:u");
	if (r >= 0)
		r = pctr_set_open(ps, &self);
	pctr_set_free(ps);
	if (r < 0) {
		v1_err("cpc_access", "%s", pctr_strerror(r));
		errno = r == -EBUSY ? EAGAIN : ENOSYS;
		return -1;
	}
	return 0;
}

static int
same_selection(const cpc_event_t *event, int flags)
{
	return bound.set && cpc__bound == bound.set &&
	       bound.flags == flags && bound.pes[0] == event->ce_pes[0] &&
	       bound.pes[1] == event->ce_pes[1];
}

/* the overflow handler's path: new presets, restart; no allocation */
static int
rebind(cpc_t *cpc, const cpc_event_t *event)
{
	for (int i = 0; i < bound.set->nreq; i++)
		cpc_request_preset(cpc, i, event->ce_pic[bound.pic_of[i]]);
	return cpc_set_restart(cpc, bound.set);
}

CPC_EXPORT int
cpc_rele(void)
{
	cpc_t *cpc = v1_cpc;

	if (!bound.set)
		return 0;
	cpc_set_destroy(cpc, bound.set);
	cpc_buf_destroy(cpc, bound.buf);
	memset(&bound, 0, sizeof(bound));
	return 0;
}

static int bind_new(cpc_t *cpc, const cpc_event_t *event, int flags);

CPC_EXPORT int
cpc_bind_event(cpc_event_t *event, int flags)
{
	sigset_t emt, old;
	cpc_t *cpc;
	int r;

	if (!event)
		return cpc_rele();
	cpc = v1_handle();
	if (!cpc) {
		errno = EAGAIN;
		return -1;
	}
	if (flags & ~(CPC_BIND_EMT_OVF | CPC_BIND_LWP_INHERIT)) {
		errno = EINVAL;
		return -1;
	}
	if (same_selection(event, flags))
		return rebind(cpc, event);
	/*
	 * An overflow may fire as soon as the counters start: hold SIGEMT
	 * back until this LWP's binding is recorded for its handler.
	 */
	sigemptyset(&emt);
	sigaddset(&emt, SIGEMT);
	pthread_sigmask(SIG_BLOCK, &emt, &old);
	r = bind_new(cpc, event, flags);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

static int
bind_new(cpc_t *cpc, const cpc_event_t *event, int flags)
{
	struct v1_bind nb = { 0 };

	nb.set = cpc_set_create(cpc);
	if (!nb.set || event_to_set(cpc, event, flags, nb.set, nb.pic_of)) {
		cpc_set_destroy(cpc, nb.set);
		errno = EINVAL;
		return -1;
	}
	nb.buf = cpc_buf_create(cpc, nb.set);
	if (!nb.buf || cpc_bind_curlwp(cpc, nb.set,
				       (uint_t)flags & CPC_BIND_LWP_INHERIT)) {
		int e = nb.buf ? errno : ENOMEM;

		cpc_buf_destroy(cpc, nb.buf);
		cpc_set_destroy(cpc, nb.set);
		errno = e;
		return -1;
	}
	cpc_rele();
	nb.pes[0] = event->ce_pes[0];
	nb.pes[1] = event->ce_pes[1];
	nb.flags = flags;
	nb.cpuver = cpc->cpuver;
	nb.direct = nb.set->nreq == 2 && nb.pic_of[0] == 0 && nb.pic_of[1] == 1;
	bound = nb;
	return 0;
}

/*
 * A sample's counts into the counters they were bound to, presets added:
 * off the plan, and out of line so that the plan's path keeps a small
 * frame.
 */
static __attribute__((noinline)) int
sample_mapped(const struct v1_bind *b, uint64_t *pic)
{
	const cpc_set_t *set = b->set;
	uint64_t val[CPC_MAX_REQUESTS];
	int r = cpc__sample(b->set, val);

	if (r < 0)
		return r;
	pic[0] = pic[1] = 0;
	for (int i = 0; i < set->nreq; i++)
		pic[b->pic_of[i]] = set->preset[i] + val[i];
	return 0;
}

/*
 * The read plan: two requests on counters 0 and 1 without presets (what
 * most programs bind) are read straight into ce_pic.  Else, and when
 * that read fails, the counts go to a copy first and then to their
 * counters: a sample that fails again leaves ce_pic as it was, or, after
 * a failed direct read, with part of it.  The binding is thread-local:
 * its address is taken once.  The handle's version was noted at binding:
 * cpc__cpuver() asks the file system.
 */
CPC_EXPORT int
cpc_take_sample(cpc_event_t *event)
{
	const struct v1_bind *b = &bound;
	cpc_set_t *set = b->set;
	uint64_t tick;
	int r = 0;

	if (!event || !set || cpc__bound != set) {
		errno = EINVAL;
		return -1;
	}
	tick = cpc__tsc();
	if (__builtin_expect(!b->direct || set->preset_any ||
				     cpc__sample(set, event->ce_pic) < 0,
			     0))
		r = sample_mapped(b, event->ce_pic);
	if (r < 0) {
		errno = -r;
		return -1;
	}
	event->ce_cpuver = b->cpuver;
	event->ce_hrt = cpc__hrtime_at(tick);
	event->ce_tsc = tick;
	memcpy(event->ce_pes, b->pes, sizeof(event->ce_pes));
	return 0;
}

/* switch a mode of the bound counters; the counts carry on */
static int
count_mode(uint32_t bit, int enable)
{
	cpc_event_t ev;

	if (cpc_take_sample(&ev) < 0)
		return -1;
	for (int pic = 0; pic < 2; pic++) {
		if (!(ev.ce_pes[pic] & CPC_PES_EN))
			continue;
		if (enable)
			ev.ce_pes[pic] |= bit;
		else
			ev.ce_pes[pic] &= ~bit;
	}
	return cpc_bind_event(&ev, bound.flags);
}

CPC_EXPORT int
cpc_count_usr_events(int enable)
{
	return count_mode(CPC_PES_USR, enable);
}

CPC_EXPORT int
cpc_count_sys_events(int enable)
{
	return count_mode(CPC_PES_OS, enable);
}
