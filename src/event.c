/* SPDX-License-Identifier: MIT */
/*
 * event.c - one parser for every event syntax people use.
 *
 * Order of interpretation, first match wins:
 *   "fn:0x4300c0"        the seeds' x86 counter function
 *   "mem:ADDR[/LEN][:rwx]" a hardware breakpoint, as perf's
 *   "pmu/terms/mods"     the kernel's sysfs syntax (sysfs.c)
 *   "name[:mods]"        generic hardware, software and cache names
 *   "rHHHH[:mods]"       raw code for the core PMU
 *   "subsys:name[:mods]" a tracepoint of tracefs (sysfs.c)
 *   "inst_retired[:mods]" a sysfs event of a core PMU
 *   anything else        libpfm4's tables (pfm.c), Intel's dotted names too
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/hw_breakpoint.h>

#include "internal.h"
#include "text.h"

struct named {
	const char *name;
	uint32_t type;
	uint64_t config;
	const char *desc;
};

#define HW(n, c, d) { n, PERF_TYPE_HARDWARE, PERF_COUNT_HW_##c, d }
#define SW(n, c, d) { n, PERF_TYPE_SOFTWARE, PERF_COUNT_SW_##c, d }

static const struct named named_events[] = {
	HW("cycles", CPU_CYCLES, "CPU cycles"),
	HW("cpu-cycles", CPU_CYCLES, "CPU cycles"),
	HW("instructions", INSTRUCTIONS, "instructions retired"),
	HW("cache-references", CACHE_REFERENCES, "last-level cache accesses"),
	HW("cache-misses", CACHE_MISSES, "last-level cache misses"),
	HW("branches", BRANCH_INSTRUCTIONS, "branch instructions retired"),
	HW("branch-instructions", BRANCH_INSTRUCTIONS,
	   "branch instructions retired"),
	HW("branch-misses", BRANCH_MISSES, "mispredicted branches"),
	HW("bus-cycles", BUS_CYCLES, "bus cycles"),
	HW("stalled-cycles-frontend", STALLED_CYCLES_FRONTEND,
	   "cycles the front end delivered nothing"),
	HW("idle-cycles-frontend", STALLED_CYCLES_FRONTEND,
	   "cycles the front end delivered nothing"),
	HW("stalled-cycles-backend", STALLED_CYCLES_BACKEND,
	   "cycles the back end made no progress"),
	HW("idle-cycles-backend", STALLED_CYCLES_BACKEND,
	   "cycles the back end made no progress"),
	HW("ref-cycles", REF_CPU_CYCLES,
	   "reference cycles, not affected by frequency scaling"),
	SW("cpu-clock", CPU_CLOCK, "CPU clock timer, nanoseconds"),
	SW("task-clock", TASK_CLOCK, "time the task ran, nanoseconds"),
	SW("page-faults", PAGE_FAULTS, "page faults"),
	SW("faults", PAGE_FAULTS, "page faults"),
	SW("minor-faults", PAGE_FAULTS_MIN, "page faults served without I/O"),
	SW("major-faults", PAGE_FAULTS_MAJ, "page faults that needed I/O"),
	SW("context-switches", CONTEXT_SWITCHES, "context switches"),
	SW("cs", CONTEXT_SWITCHES, "context switches"),
	SW("cpu-migrations", CPU_MIGRATIONS, "moves to another CPU"),
	SW("migrations", CPU_MIGRATIONS, "moves to another CPU"),
	SW("alignment-faults", ALIGNMENT_FAULTS, "alignment fixups"),
	SW("emulation-faults", EMULATION_FAULTS, "instruction emulations"),
	SW("cgroup-switches", CGROUP_SWITCHES,
	   "context switches to a task of another cgroup"),
	SW("bpf-output", BPF_OUTPUT, "counts nothing; BPF programs' output"),
	SW("dummy", DUMMY, "counts nothing; a placeholder"),
};

static const char *const cache_name[] = { "L1-dcache", "L1-icache", "LLC",
					  "dTLB",      "iTLB",      "branch",
					  "node" };
static const char *const cache_op[] = { "load", "store", "prefetch" };
static const char *const cache_op_plural[] = { "loads", "stores",
					       "prefetches" };

/* "L1-dcache-load-misses" -> config; -ENOENT if not of that family */
static int
parse_cache(const char *name, uint64_t *config)
{
	for (size_t c = 0; c < PCTR_ARRAY_SIZE(cache_name); c++) {
		size_t n = strlen(cache_name[c]);

		if (strncasecmp(name, cache_name[c], n) || name[n] != '-')
			continue;
		for (size_t o = 0; o < 3; o++) {
			const char *rest = name + n + 1;
			uint64_t base = c | o << 8;

			if (!strcasecmp(rest, cache_op_plural[o])) {
				*config = base |
					  (uint64_t)PERF_COUNT_HW_CACHE_RESULT_ACCESS
						  << 16;
				return 0;
			}
			size_t m = strlen(cache_op[o]);
			if (!strncasecmp(rest, cache_op[o], m) &&
			    !strcasecmp(rest + m, "-misses")) {
				*config = base |
					  (uint64_t)PERF_COUNT_HW_CACHE_RESULT_MISS
						  << 16;
				return 0;
			}
		}
	}
	return -ENOENT;
}

/*
 * Modifiers: u k h select the privilege levels counted (any given: only
 * those), H host only, G guest only, p more precise (up to ppp), D pinned.
 */
int
pctr__event_apply_modifiers(struct pctr_event *ev, const char *mods)
{
	bool u = false, k = false, h = false, priv = false;
	int precise = 0;

	for (const char *m = mods; *m; m++) {
		switch (*m) {
		case 'u':
			u = priv = true;
			break;
		case 'k':
			k = priv = true;
			break;
		case 'h':
			h = priv = true;
			break;
		case 'H':
			ev->flags |= PCTR_EVENT_EXCLUDE_GUEST;
			break;
		case 'G':
			ev->flags |= PCTR_EVENT_EXCLUDE_HOST;
			break;
		case 'p':
			precise++;
			break;
		case 'D':
			ev->flags |= PCTR_EVENT_PINNED;
			break;
		default:
			return pctr__error(EINVAL,
					   "unknown modifier '%c' in ':%s' "
					   "(known: u k h H G p D)",
					   *m, mods);
		}
	}
	if (precise > 3)
		return pctr__error(EINVAL, "at most 3 'p' modifiers");
	ev->precise = (uint32_t)precise;
	if (priv) {
		ev->flags &= ~(PCTR_EVENT_EXCLUDE_USER |
			       PCTR_EVENT_EXCLUDE_KERNEL |
			       PCTR_EVENT_EXCLUDE_HV);
		ev->flags |= (u ? 0 : PCTR_EVENT_EXCLUDE_USER) |
			     (k ? 0 : PCTR_EVENT_EXCLUDE_KERNEL) |
			     (h ? 0 : PCTR_EVENT_EXCLUDE_HV);
	}
	return 0;
}

static void
event_init(struct pctr_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->size = sizeof(*ev);
	ev->nr_parts = 1;
}

/* A generic hardware event counts on every core type of a hybrid CPU. */
static void
expand_hybrid(struct pctr_event *ev)
{
	const struct pctr_machine *m = pctr__machine();

	if (m->nr_pmus < 2 || (ev->type != PERF_TYPE_HARDWARE &&
			       ev->type != PERF_TYPE_HW_CACHE))
		return;
	ev->nr_parts = m->nr_pmus > PCTR_MAX_PARTS ? PCTR_MAX_PARTS
						   : (unsigned)m->nr_pmus;
	for (unsigned int i = 0; i < ev->nr_parts; i++)
		ev->part_type[i] = m->pmu_type[i];
}

static int
parse_named(const char *base, const char *mods, struct pctr_event *ev)
{
	uint64_t config;
	size_t i;

	for (i = 0; i < PCTR_ARRAY_SIZE(named_events); i++)
		if (!strcasecmp(base, named_events[i].name))
			break;
	if (i < PCTR_ARRAY_SIZE(named_events)) {
		ev->type = named_events[i].type;
		ev->config = named_events[i].config;
		snprintf(ev->name, sizeof(ev->name), "%s", named_events[i].name);
	} else if (parse_cache(base, &config) == 0) {
		ev->type = PERF_TYPE_HW_CACHE;
		ev->config = config;
		snprintf(ev->name, sizeof(ev->name), "%s", base);
	} else {
		return -ENOENT;
	}
	ev->hardware = ev->type != PERF_TYPE_SOFTWARE;
	if (*mods)
		snprintf(ev->name + strlen(ev->name),
			 sizeof(ev->name) - strlen(ev->name), ":%s", mods);
	expand_hybrid(ev);
	return pctr__event_apply_modifiers(ev, mods);
}

static int
parse_raw(const char *base, const char *mods, struct pctr_event *ev)
{
	char *end;
	size_t n = strlen(base);

	if (base[0] != 'r' || n < 2 || n > 17 ||
	    strspn(base + 1, "0123456789abcdefABCDEF") != n - 1)
		return -ENOENT;
	ev->type = PERF_TYPE_RAW;
	ev->config = strtoull(base + 1, &end, 16);
	ev->hardware = 1;
	/* named as typed ("r00c0:u", "r1A2"), as perf names it */
	snprintf(ev->name, sizeof(ev->name), "%s%s%s", base, *mods ? ":" : "",
		 mods);
	return pctr__event_apply_modifiers(ev, mods);
}

static int
parse_pfm(const char *spec, struct pctr_event *ev)
{
	struct pctr__pfm_enc enc;
	char buf[PCTR_NAME_MAX * 2];
	int r;

	snprintf(buf, sizeof(buf), "%s", spec);
	for (char *p = buf; *p && *p != ':'; p++)
		if (*p == '.')
			*p = ':'; /* INST_RETIRED.ANY -> INST_RETIRED:ANY */
	r = pctr__pfm_encode(buf, &enc);
	if (r < 0)
		return r;
	ev->type = enc.type;
	ev->config = enc.config;
	ev->config1 = enc.config1;
	ev->config2 = enc.config2;
	ev->flags = enc.flags;
	ev->precise = enc.precise;
	ev->hardware = enc.type != PERF_TYPE_SOFTWARE &&
		       enc.type != PERF_TYPE_TRACEPOINT;
	snprintf(ev->name, sizeof(ev->name), "%s", enc.fstr);
	return 0;
}

/*
 * "sched:sched_switch" when tracefs cannot be read: say so, not "no PMU".
 * Tracepoint subsystems are lower case; libpfm4's "EVENT:UMASK" is not.
 */
static bool
tracepoint_shaped(const char *spec)
{
	size_t n = strcspn(spec, ":");

	if (!spec[n] || spec[n + 1] == ':' || !spec[n + 1])
		return false;
	for (size_t i = 0; i < n; i++)
		if (!islower((unsigned char)spec[i]) &&
		    !isdigit((unsigned char)spec[i]) && spec[i] != '_')
			return false;
	return n > 0;
}

static int
unknown_event(const char *spec, const char *base)
{
	const char *why = pctr__tracefs_problem();
	char sugg[256];

	if (tracepoint_shaped(spec) && *why)
		return pctr__error(ENOENT,
				   "unknown event '%s': not a known event, "
				   "and tracepoints (subsystem:name) cannot "
				   "be looked up: %s",
				   spec, why);
	if (tracepoint_shaped(spec))
		return pctr__error(ENOENT,
				   "unknown event '%s': no such tracepoint "
				   "('pctr list tracepoint %s' lists those of "
				   "the subsystem)",
				   spec, base);
	pctr__event_suggest(base, sugg, sizeof(sugg));
	if (pctr__pfm_missing())
		return pctr__error(ENOENT,
				   "unknown event '%s'%s%s%s; CPU event tables "
				   "are not available because libpfm4 could "
				   "not be loaded (apt-get install libpfm4)",
				   spec, *sugg ? " (did you mean " : "", sugg,
				   *sugg ? "?)" : "");
	if (!pctr__machine()->has_pmu)
		return pctr__error(ENOENT,
				   "unknown event '%s'%s%s%s; this machine has "
				   "no hardware PMU, so no CPU event table "
				   "applies (software events and the "
				   "timestamp counter still work)",
				   spec, *sugg ? " (did you mean " : "", sugg,
				   *sugg ? "?)" : "");
	return pctr__error(ENOENT,
			   "unknown event '%s'%s%s%s ('pctr list' shows every "
			   "event)",
			   spec, *sugg ? " (did you mean " : "", sugg,
			   *sugg ? "?)" : "");
}

static int x86_event(uint32_t fn, struct pctr_event *ev);

/* "r", "w", "x" of a breakpoint's access into bp_type bits, or 0 */
static uint32_t
bp_access(const char *p)
{
	uint32_t type = 0;

	for (; *p; p++) {
		uint32_t bit = *p == 'r' ? HW_BREAKPOINT_R
			       : *p == 'w' ? HW_BREAKPOINT_W
			       : *p == 'x' ? HW_BREAKPOINT_X
					   : 0;

		if (!bit || (type & bit))
			return 0;
		type |= bit;
	}
	return type;
}

/*
 * perf's "mem:ADDR[/LEN][:ACCESS]": a hardware breakpoint on ADDR, LEN
 * bytes (1, 2, 4 or 8; as perf, 4 by default, and the size of a long for
 * x), ACCESS r, w or both (the default), or x alone.  The kernel takes the
 * address as bp_addr and the length as bp_len, config1's and config2's
 * places; the canonical name spells every part.
 */
static int
parse_breakpoint(const char *spec, struct pctr_event *ev)
{
	unsigned long long addr, len = 0;
	uint32_t type = HW_BREAKPOINT_RW;
	char *end;

	errno = 0;
	addr = strtoull(spec + 4, &end, 0);
	if (errno || end == spec + 4 || !isxdigit((unsigned char)spec[4]))
		return pctr__error(EINVAL, "breakpoint '%s': expected "
					   "mem:ADDR[/LEN][:ACCESS]", spec);
	if (*end == '/') {
		len = strtoull(end + 1, &end, 0);
		if (len != 1 && len != 2 && len != 4 && len != 8)
			return pctr__error(EINVAL, "breakpoint '%s': a length "
						   "of 1, 2, 4 or 8 bytes",
					   spec);
	}
	if (*end == ':')
		type = bp_access(end + 1);
	else if (*end)
		type = 0;
	if (!type || ((type & HW_BREAKPOINT_X) && type != HW_BREAKPOINT_X))
		return pctr__error(EINVAL, "breakpoint '%s': the access is r, "
					   "w, rw or x", spec);
	if (!len)
		len = type == HW_BREAKPOINT_X ? sizeof(long) : 4;
	ev->type = PERF_TYPE_BREAKPOINT;
	ev->config1 = addr;
	ev->config2 = len;
	ev->bp_type = type;
	snprintf(ev->name, sizeof(ev->name), "mem:0x%llx/%llu:%s%s%s", addr,
		 len, type & HW_BREAKPOINT_R ? "r" : "",
		 type & HW_BREAKPOINT_W ? "w" : "",
		 type & HW_BREAKPOINT_X ? "x" : "");
	return 0;
}

/* perf's "fn:HEX": the seeds' x86 counter function */
static int
parse_fn(const char *spec, struct pctr_event *ev)
{
	unsigned long long fn;
	char *end;

	errno = 0;
	fn = strtoull(spec + 3, &end, 16);
	if (errno || *end || end == spec + 3 || fn > UINT32_MAX)
		return pctr__error(EINVAL, "bad counter function '%s': expected "
					   "fn:HEX of at most 32 bits",
				   spec);
	return x86_event((uint32_t)fn, ev);
}

/*
 * "name[:mods]" and what shares its shape, tried in the order of the
 * table atop this file; each try starts from a fresh event.
 */
static int
parse_plain(const char *spec, struct pctr_event *ev)
{
	const char *colon = strstr(spec, "::") ? NULL : strchr(spec, ':');
	const char *mods = colon ? colon + 1 : "";
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	char base[PCTR_NAME_MAX];
	int r;

	memcpy(base, spec, n);
	base[n] = '\0';
	r = parse_named(base, mods, ev);
	if (r == -ENOENT)
		r = parse_raw(base, mods, ev);
	if (r == -ENOENT && colon) {
		event_init(ev);
		r = pctr__tracepoint_parse(base, mods, ev);
	}
	if (r == -ENOENT) {
		event_init(ev);
		r = pctr__sysfs_find_event(spec, ev);
	}
	if (r == -ENOENT) {
		event_init(ev);
		r = parse_pfm(spec, ev);
	}
	return r == -ENOENT ? unknown_event(spec, base) : r;
}

/*
 * perf's "name/terms/modifiers" for a generic event ("task-clock/name=tc/u"):
 * -ENOENT, nothing said, if @spec does not start with one; the terms are
 * pctr__sysfs_terms()'s without a PMU (name=, period=, freq=).
 */
int
pctr__generic_with_terms(const char *spec, struct pctr_event *ev)
{
	const char *s1 = strchr(spec, '/'), *s2 = strchr(s1 + 1, '/');
	char base[PCTR_NAME_MAX], terms[PCTR_NAME_MAX];
	int r;

	if (!s2 || strchr(s2 + 1, ':') || strchr(s2 + 1, '/'))
		return -ENOENT;
	memcpy(base, spec, (size_t)(s1 - spec));
	base[s1 - spec] = '\0';
	memcpy(terms, s1 + 1, (size_t)(s2 - s1 - 1));
	terms[s2 - s1 - 1] = '\0';
	event_init(ev);
	r = parse_named(base, s2 + 1, ev);
	if (r < 0)
		return r;
	r = pctr__sysfs_terms(ev, NULL, terms);
	if (r < 0)
		return r;
	snprintf(ev->name, sizeof(ev->name), "%s", spec);
	return 0;
}

/* pctr_event_parse() into the library's own full struct */
int
pctr__event_parse(const char *spec, struct pctr_event *ev)
{
	size_t n;

	if (!spec || !ev)
		return pctr__error(EINVAL, "NULL event specification");
	event_init(ev);
	while (isspace((unsigned char)*spec))
		spec++;
	n = strlen(spec);
	if (n == 0)
		return pctr__error(EINVAL, "empty event specification");
	if (n >= PCTR_NAME_MAX)
		return pctr__error(EINVAL, "event specification longer than "
					   "%d characters", PCTR_NAME_MAX - 1);
	if (!strncmp(spec, "fn:", 3))
		return parse_fn(spec, ev);
	if (!strncmp(spec, "mem:", 4))
		return parse_breakpoint(spec, ev);
	if (strchr(spec, '/'))
		return pctr__sysfs_parse(spec, ev);
	return parse_plain(spec, ev);
}

#define EVENT_SIZED PCTR__SIZED(pctr_event, PCTR_EVENT_SIZE_VER0)

/* Parse into the library's struct; the caller gets its size's worth. */
PCTR_EXPORT int
pctr_event_parse(const char *spec, struct pctr_event *ev)
{
	struct pctr_event full;
	int r = pctr__struct_check(&EVENT_SIZED, ev);

	if (r < 0)
		return r;
	r = pctr__event_parse(spec, &full);
	return r < 0 ? r : pctr__struct_out(&EVENT_SIZED, ev, &full);
}

PCTR_EXPORT int
pctr_event_from_x86(uint32_t fn, struct pctr_event *ev)
{
	struct pctr_event full;
	int r = pctr__struct_check(&EVENT_SIZED, ev);

	if (r < 0)
		return r;
	r = x86_event(fn, &full);
	return r < 0 ? r : pctr__struct_out(&EVENT_SIZED, ev, &full);
}

static int
x86_event(uint32_t fn, struct pctr_event *ev)
{
	event_init(ev);
	if (fn & PCTR_FN_RESERVED)
		return pctr__error(EINVAL,
				   "counter function 0x%08x sets reserved "
				   "bits 0x%08x (pin control, APIC interrupt "
				   "or any-thread)",
				   fn, fn & PCTR_FN_RESERVED);
	if (!(fn & (PCTR_FN_USR | PCTR_FN_OS)))
		return pctr__error(EINVAL,
				   "counter function 0x%08x counts nothing: "
				   "set user (0x%x) and/or kernel (0x%x) mode",
				   fn, PCTR_FN_USR, PCTR_FN_OS);
	ev->type = PERF_TYPE_RAW;
	/* event, unit mask, edge, invert and counter mask keep their bits */
	ev->config = fn & (0xffu | 0xffu << 8 | PCTR_FN_EDGE | PCTR_FN_INV |
			   0xffu << 24);
	ev->flags = (fn & PCTR_FN_USR ? 0 : PCTR_EVENT_EXCLUDE_USER) |
		    (fn & PCTR_FN_OS ? 0 : PCTR_EVENT_EXCLUDE_KERNEL) |
		    PCTR_EVENT_EXCLUDE_HV;
	ev->hardware = 1;
	snprintf(ev->name, sizeof(ev->name), "fn:0x%x", fn);
	return 0;
}

/* ---- to the kernel ------------------------------------------------------ */

/*
 * What an event given by a program may hold: the flags and precision this
 * version knows, one to PCTR_MAX_PARTS parts, and zero in the reserved
 * fields, which a later version's fields fill (-E2BIG, as for the bytes
 * past a struct: the event asks for what this version cannot do).
 */
int
pctr__event_check(const struct pctr_event *ev)
{
	if (ev->flags & ~PCTR_EVENT_FLAGS)
		return pctr__error(EINVAL, "event '%.*s': unknown flags 0x%x",
				   PCTR_NAME_MAX, ev->name,
				   ev->flags & ~PCTR_EVENT_FLAGS);
	if (ev->precise > 3)
		return pctr__error(EINVAL, "event '%.*s': precise level %u, "
					   "at most 3",
				   PCTR_NAME_MAX, ev->name, ev->precise);
	if (ev->nr_parts < 1 || ev->nr_parts > PCTR_MAX_PARTS)
		return pctr__error(EINVAL, "event '%.*s' has %u parts",
				   PCTR_NAME_MAX, ev->name, ev->nr_parts);
	if (ev->bp_type && ev->type != PERF_TYPE_BREAKPOINT)
		return pctr__error(EINVAL, "event '%.*s': a breakpoint access "
					   "(bp_type %u) on an event that is "
					   "no breakpoint",
				   PCTR_NAME_MAX, ev->name, ev->bp_type);
	if (memcmp(ev->reserved, (uint64_t[6]){ 0 }, sizeof(ev->reserved)))
		return pctr__error(E2BIG, "event '%.*s': its reserved fields "
					  "are not zero (built for a newer "
					  "libpctr?)",
				   PCTR_NAME_MAX, ev->name);
	return 0;
}

/* perf_event_attr's layout, by its published sizes (PERF_ATTR_SIZE_VER*) */
#define ATTR_SIZE_VER0 64 /* through config1 */
#define ATTR_SIZE_VER1 72 /* config2 */
#define ATTR_CONFIG3 128 /* config3's offset, in VER8 (136, kernel 6.3) */

/* the attr of @ev into the library's own, of @size bytes */
void
pctr__event_kattr(const struct pctr_event *ev, union pctr__attr *u,
		  size_t size)
{
	struct perf_event_attr *a = &u->a;
	unsigned int f = ev->flags;

	memset(u, 0, sizeof(*u));
	a->type = ev->type;
	a->size = (uint32_t)size;
	a->config = ev->config;
	a->config1 = ev->config1;
	a->config2 = ev->config2;
	a->bp_type = ev->bp_type;
	memcpy(u->raw + ATTR_CONFIG3, &ev->config3, sizeof(ev->config3));
	a->precise_ip = ev->precise;
	a->exclude_user = !!(f & PCTR_EVENT_EXCLUDE_USER);
	a->exclude_kernel = !!(f & PCTR_EVENT_EXCLUDE_KERNEL);
	a->exclude_hv = !!(f & PCTR_EVENT_EXCLUDE_HV);
	a->exclude_guest = !!(f & PCTR_EVENT_EXCLUDE_GUEST);
	a->exclude_host = !!(f & PCTR_EVENT_EXCLUDE_HOST);
	a->exclude_idle = !!(f & PCTR_EVENT_EXCLUDE_IDLE);
	a->pinned = !!(f & PCTR_EVENT_PINNED);
	a->exclusive = !!(f & PCTR_EVENT_EXCLUSIVE);
}

/* the size the library opens @ev with: config3's only when it is used */
size_t
pctr__event_kattr_size(const struct pctr_event *ev)
{
	return ev->config3 || sizeof(struct perf_event_attr) > PCTR__ATTR_SIZE
		       ? PCTR__ATTR_SIZE
		       : sizeof(struct perf_event_attr);
}

PCTR_EXPORT int
pctr_event_attr(const struct pctr_event *ev, void *attr, size_t attr_size)
{
	size_t n = attr_size < PCTR__ATTR_SIZE ? attr_size : PCTR__ATTR_SIZE;
	struct pctr_event full;
	union pctr__attr u;
	int r = pctr__struct_in(&EVENT_SIZED, &full, ev);

	if (r < 0 || (r = pctr__event_check(&full)) < 0)
		return r;
	if (!attr)
		return pctr__error(EINVAL, "NULL struct perf_event_attr");
	if (attr_size < ATTR_SIZE_VER0)
		return pctr__error(EINVAL, "a struct perf_event_attr of %zu "
					   "bytes: under PERF_ATTR_SIZE_VER0 "
					   "(64)",
				   attr_size);
	if ((full.config2 && n < ATTR_SIZE_VER1) ||
	    (full.config3 && n < PCTR__ATTR_SIZE))
		return pctr__error(EINVAL, "event '%s' sets config%s, which a "
					   "struct perf_event_attr of %zu "
					   "bytes cannot hold (%d)",
				   full.name, full.config3 ? "3" : "2",
				   attr_size,
				   full.config3 ? PCTR__ATTR_SIZE
						: ATTR_SIZE_VER1);
	pctr__event_kattr(&full, &u, n);
	memcpy(attr, &u, n);
	return 0;
}

/* ---- suggestions ------------------------------------------------------ */

struct suggest {
	const char *name;
	int nr;
	char best[3][PCTR_NAME_MAX];
	size_t dist[3];
};

static int
suggest_cb(const struct pctr_event_info *info, void *arg)
{
	struct suggest *s = arg;
	const char *cand = info->name;
	char plain[PCTR_NAME_MAX];
	const char *slash = strchr(cand, '/');
	size_t d;

	/* compare against "inst_retired" in "armv8_pmuv3_0/inst_retired/" */
	if (slash) {
		snprintf(plain, sizeof(plain), "%s", slash + 1);
		plain[strcspn(plain, "/")] = '\0';
		d = pctr__text_distance(s->name, plain);
	} else {
		d = pctr__text_distance(s->name, cand);
	}
	for (int i = 0; i < s->nr; i++)
		if (!strcmp(s->best[i], cand))
			return 0;
	for (int i = 0; i < 3; i++) {
		if (i == s->nr || d < s->dist[i]) {
			for (int j = 2; j > i; j--) {
				memcpy(s->best[j], s->best[j - 1], PCTR_NAME_MAX);
				s->dist[j] = s->dist[j - 1];
			}
			snprintf(s->best[i], PCTR_NAME_MAX, "%s", cand);
			s->dist[i] = d;
			if (s->nr < 3)
				s->nr++;
			break;
		}
	}
	return 0;
}

/* Up to three known names close to @name: "'cycles', 'ref-cycles'". */
void
pctr__event_suggest(const char *name, char *out, size_t len)
{
	struct suggest s = { .name = name };
	size_t limit = strlen(name) / 3 + 1;
	size_t used = 0;
	int n = 0;

	out[0] = '\0';
	pctr__event_table_list(suggest_cb, &s, true);
	pctr__sysfs_list(suggest_cb, &s);
	while (n < s.nr && s.dist[n] <= limit)
		n++;
	for (int i = 0; i < n && used < len; i++)
		used += snprintf(out + used, len - used, "%s'%s'",
				 i == 0 ? "" : i == n - 1 ? " or " : ", ",
				 s.best[i]);
}

/* ---- listing ---------------------------------------------------------- */

int
pctr__event_table_list(int (*cb)(const struct pctr_event_info *, void *),
		       void *arg, bool hardware)
{
	static const char *const result_desc[] = { "accesses", "misses" };
	char name[PCTR_NAME_MAX], desc[128];
	int r;

	for (size_t i = 0; i < PCTR_ARRAY_SIZE(named_events); i++) {
		const struct named *e = &named_events[i];
		struct pctr_event_info info = {
			e->type == PERF_TYPE_SOFTWARE ? "software" : "generic",
			e->name, e->desc
		};

		if (e->type != PERF_TYPE_SOFTWARE && !hardware)
			continue;
		r = cb(&info, arg);
		if (r)
			return r;
	}
	if (!hardware)
		return 0;
	for (size_t c = 0; c < PCTR_ARRAY_SIZE(cache_name); c++) {
		for (size_t o = 0; o < 3; o++) {
			for (int res = 0; res < 2; res++) {
				struct pctr_event_info info = { "cache", name,
								desc };

				if (res)
					snprintf(name, sizeof(name),
						 "%s-%s-misses", cache_name[c],
						 cache_op[o]);
				else
					snprintf(name, sizeof(name), "%s-%s",
						 cache_name[c],
						 cache_op_plural[o]);
				snprintf(desc, sizeof(desc), "%s %s %s",
					 cache_name[c], cache_op[o],
					 result_desc[res]);
				r = cb(&info, arg);
				if (r)
					return r;
			}
		}
	}
	return 0;
}

PCTR_EXPORT int
pctr_event_list(int (*cb)(const struct pctr_event_info *info, void *arg),
		void *arg)
{
	int r;

	if (!cb)
		return pctr__error(EINVAL, "NULL callback");
	r = pctr__event_table_list(cb, arg, pctr__machine()->has_pmu);
	if (!r)
		r = pctr__sysfs_list(cb, arg);
	if (!r)
		r = pctr__pfm_list(cb, arg);
	if (!r)
		r = pctr__tracepoint_list(cb, arg);
	return r;
}
