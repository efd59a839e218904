/* SPDX-License-Identifier: MIT */
/*
 * internal.h - what the core's files share.  Nothing here is public.
 *
 * Names: pctr__ for internal functions with external linkage; the build
 * hides everything that is not marked PCTR_EXPORT.
 */
#ifndef PCTR_INTERNAL_H
#define PCTR_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <linux/perf_event.h>
#include "pctr.h"
#include "mmap_read.h"

#define PCTR_EXPORT __attribute__((visibility("default")))
#define PCTR_ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * struct.c: the size rule of the public structs (see the top of pctr.h).
 * A sized struct type: its name for the error text (NULL: set no text,
 * for async-signal-safe callers), published minimum and sizeof.
 */
struct pctr__sized {
	const char *name;
	size_t min;
	size_t ours;
};
#define PCTR__SIZED(type, MIN) \
	((const struct pctr__sized){ #type, MIN, sizeof(struct type) })
/* bytes to read or write, min(->size, sizeof), or -EINVAL/-E2BIG */
int pctr__struct_check(const struct pctr__sized *t, const void *p);
/* check @src, and copy it into the library's full @dst, zero-extended */
int pctr__struct_in(const struct pctr__sized *t, void *dst, const void *src);
/* check @dst, and copy the library's full @src into as much as it holds */
int pctr__struct_out(const struct pctr__sized *t, void *dst, const void *src);

/* error.c: record the detail of a failure for pctr_strerror() */
int pctr__error(int err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void pctr__error_clear(void);

/* What a refused perf_event_open knew, for pctr__perm_error() to explain */
struct pctr__perm {
	const char *event; /* its name as the user wrote it */
	const char *who; /* "this thread", "task 42", "CPU 0" */
	int pid; /* 0 the calling thread, -1 a CPU, else a task */
	bool kernel; /* kernel mode was asked for, not only allowed */
};
int pctr__perm_error(int err, const struct pctr__perm *p);

/*
 * sysfs.c: the kernel's files describing PMUs and tracepoints, rooted at
 * $PCTR_SYSFS_ROOT or /sys; -errno, no messages
 */
const char *pctr__sysfs_root(void);
const char *pctr__sysfs_devices(void);
int pctr__sysfs_read(const char *path, char *buf, size_t len);
int pctr__sysfs_pmu_read(const char *pmu, const char *file, char *buf,
			 size_t len);
int pctr__sysfs_pmu_type(const char *pmu, uint32_t *type);
int pctr__sysfs_walk_pmus(int (*cb)(const char *pmu, void *), void *arg);
int pctr__sysfs_walk_events(const char *pmu, int (*cb)(const char *, void *),
			    void *arg);
int pctr__tracefs_events(char *dir, size_t len);
const char *pctr__tracefs_problem(void);
int pctr__tracefs_read_id(const char *sys, const char *name, char *buf,
			  size_t len, char *path, size_t path_len);
int pctr__tracefs_walk(int (*cb)(const char *sys, const char *name, void *),
		       void *arg);
/* pmu_syntax.c: "pmu/terms/mods", named events, tracepoints, listings */
int pctr__sysfs_parse(const char *spec, struct pctr_event *ev);
/* a term list "t=v,t" on @ev; @pmu NULL: after a generic event (name=,
 * period=, freq=) */
int pctr__sysfs_terms(struct pctr_event *ev, const char *pmu,
		      const char *terms);
/* "pmu/terms/mods": its named event's unit and scale from sysfs: 1; 0 if
 * none (unit "", scale 1); -errno (pctr_event_unit()) */
int pctr__sysfs_unit(const char *spec, char *unit, size_t len, double *scale);
/* a NAME.scale's text: a decimal number above 0, C locale; else -EINVAL */
int pctr__scale_parse(const char *text, double *scale);
/* unit.c: pctr_event_unit() of an event known by its name only */
int pctr__name_unit(const char *name, char *unit, size_t len, double *scale);
/* the first "TERM=VALUE" of "pmu/...,TERM=VALUE,.../": VALUE's length, at
 * *@value; 0 if @spec has none */
size_t pctr__term_value(const char *spec, const char *term,
			const char **value);
/* event.c: "task-clock/name=tc/u"; -ENOENT if not a generic event */
int pctr__generic_with_terms(const char *spec, struct pctr_event *ev);
int pctr__sysfs_find_event(const char *name, struct pctr_event *ev);
int pctr__sysfs_list(int (*cb)(const struct pctr_event_info *, void *),
		     void *arg);
int pctr__tracepoint_parse(const char *sys, const char *rest,
			   struct pctr_event *ev);
int pctr__tracepoint_list(int (*cb)(const struct pctr_event_info *, void *),
			  void *arg);
int pctr__tracepoint_glob(const char *sys, const char *name,
			  int (*cb)(const char *spec, void *), void *arg);

/* pfm.c: libpfm4 tables; plain types because pfmlib has its own attr */
struct pctr__pfm_enc {
	uint32_t type;
	uint64_t config, config1, config2;
	uint32_t flags; /* PCTR_EVENT_* */
	uint32_t precise;
	char fstr[PCTR_NAME_MAX];
};
int pctr__pfm_encode(const char *spec, struct pctr__pfm_enc *enc);
int pctr__pfm_list(int (*cb)(const struct pctr_event_info *, void *),
		   void *arg);
int pctr__pfm_missing(void);

/*
 * An event's kernel attributes as the library opens them.  The build's
 * <linux/perf_event.h> may be older than the kernel and than what the
 * library knows (config3, at offset 128, came with 6.3): the union leaves
 * room for it, and pctr_event_attr() fills it by size as a caller's.
 */
#define PCTR__ATTR_SIZE 136 /* PERF_ATTR_SIZE_VER8: through config3 */
union pctr__attr {
	struct perf_event_attr a;
	unsigned char raw[PCTR__ATTR_SIZE];
};

/* event.c */
int pctr__event_parse(const char *spec, struct pctr_event *ev);
int pctr__event_check(const struct pctr_event *ev);
void pctr__event_kattr(const struct pctr_event *ev, union pctr__attr *u,
		       size_t size);
size_t pctr__event_kattr_size(const struct pctr_event *ev);
int pctr__event_apply_modifiers(struct pctr_event *ev, const char *mods);
void pctr__event_suggest(const char *name, char *out, size_t len);
int pctr__event_table_list(int (*cb)(const struct pctr_event_info *, void *),
			   void *arg, bool hardware);

/*
 * event_list.c: a parsed list, each event's group 0 (none) or 1, 2...; as
 * long as the text (a set holds PCTR_MAX_EVENTS of it, a caller such as
 * pctr stat opens several)
 */
struct pctr__event_list {
	struct pctr_event *ev;
	int *group;
	int nr, cap, nr_groups, open;
};
/*
 * The number of events, or -errno with nothing else of use in @l; either
 * way pctr__event_list_free() frees what @l holds.
 */
int pctr__event_list_parse(const char *list, struct pctr__event_list *l);
void pctr__event_list_free(struct pctr__event_list *l);

/* machine.c: detected once, then read-only */
const struct pctr_machine *pctr__machine(void);
int pctr__read_int_file(const char *path, long *val);
bool pctr__is_core_pmu_name(const char *pmu);
bool pctr__breakpoints_fire(void);
/* PERF_FORMAT_LOST (Linux 6.0): a counter's read says the records it lost */
#ifndef PERF_FORMAT_LOST
#define PERF_FORMAT_LOST (1U << 4)
#endif
bool pctr__format_lost(void);

/* tsc.c */
uint64_t pctr__tsc_hz_from_page(const struct perf_event_mmap_page *pc);

/* set.c: perf_event_open(2) of a counter of @set (a cgroup's, for one) */
int pctr__set_perf_open(const struct pctr_set *set,
			struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd);
/* whole CPUs: PCTR_TARGET_CPU or _CGROUP, instances are CPUs */
bool pctr__set_on_cpus(const struct pctr_set *set);

/* os/perf_event.c: everything that talks to the kernel */
int pctr__sys_perf_open(struct perf_event_attr *attr, pid_t pid, int cpu,
			int group_fd, unsigned long flags);
int pctr__sys_close(int fd);
ssize_t pctr__sys_read(int fd, void *buf, size_t len);
int pctr__sys_ioctl(int fd, unsigned long req, unsigned long arg);
int pctr__sys_fstat(int fd, uint64_t *dev, uint64_t *ino, unsigned int *mode);
void *pctr__sys_mmap(int fd, size_t len);
int pctr__sys_munmap(void *addr, size_t len);

/*
 * A set, opened: for each instance (a thread, a CPU) one kernel counter per
 * event part, grouped (struct pctr__inst).
 */
struct pctr__ctr {
	int fd;
	int event; /* index into set->ev */
	int part;
	int group; /* index into the instance's groups */
	uint64_t id; /* PERF_EVENT_IOC_ID; 0 until the set is built */
	uint64_t dev, ino; /* fstat() of fd once id is known: see ctr_check */
	struct perf_event_mmap_page *page; /* self-monitoring only */
};

/*
 * Inherited sets (process, pid, command) open their counters without
 * PERF_FORMAT_GROUP, so that each can be read alone when a group read
 * fails with ECHILD (read.c), and read a group of two or more through
 * @reader: a software dummy sibling opened last with PERF_FORMAT_GROUP,
 * whose read returns the whole group, itself last.  Other sets read the
 * group through its leader; their @reader.fd is -1.
 */
struct pctr__group {
	int leader_fd;
	int nr; /* counters in the group */
	int first; /* its members are member[first .. first + nr - 1] */
	struct pctr__ctr reader; /* fd -1 if none */
};

/*
 * One instance of an open set: a thread, a CPU, or a thread on a CPU
 * (spread_over_cpus() in set.c).  Its arrays are one allocation, owned
 * by the instance, and its rings another (overflow.c's), so an instance
 * moves as a struct copy, its rings with it: what its rings point at is
 * in those allocations, never the instance itself.
 */
struct pctr__ring;
struct pctr__inst {
	int id; /* the thread or CPU counted */
	int cpu; /* a thread's CPU when the set is spread, else -1 */
	int nr_groups;
	struct pctr__ctr guard; /* fd -1 if none (open_instance() in set.c) */
	/* set->nr_ctr counters: the events and their parts, in order */
	struct pctr__ctr *ctr;
	struct pctr__group *groups; /* [nr_groups], at most set->nr_ctr */
	struct pctr_count *base; /* reset baseline, [set->nr_events] */
	int *member; /* [set->nr_ctr]: counter indexes, group by group */
	/*
	 * [set->nr_ctr]: counter c's ring buffer (ring.h), while a set with
	 * overflow notification or sampling is open; else NULL
	 */
	struct pctr__ring *ring;
};

/*
 * plan.c: a self-monitoring set's read plan.  A reader gets the entries
 * of the events it reads and where their results go; a reader for the
 * whole set gets set->pc, which is the set's address (set->pc comes
 * first), and the exported reads call it with nothing in between.  A
 * sample's reader gets @at, the sample's address moved on by the counts
 * before its first (a run after the first): its counts are
 * PCTR__AT_COUNTS(at)[0..], and pctr_set_read() passes the sample as it
 * got it.
 */
typedef int (*pctr__values_fn)(const struct pctr__plan_ctr *pc,
			       uint64_t *out);
typedef int (*pctr__sample_fn)(const struct pctr__plan_ctr *pc, char *at,
			       uint64_t cyc);
#define PCTR__AT_COUNTS(at)                                                    \
	((struct pctr_count *)((at) + offsetof(struct pctr_sample, count)))
#define PCTR__AT_MOVE(at, n) ((at) + (size_t)(n) * sizeof(struct pctr_count))

struct pctr__plan_seg {
	pctr__values_fn values; /* NULL after the last */
	const struct pctr__plan_ctr *pc; /* &set->pc[first] */
	pctr__sample_fn sample;
	int first; /* its entries: pc[first .. first + nr - 1] */
	int nr;
};

/*
 * What a read loads first, in the 32 bytes before the set (its allocation
 * starts there, set.c): pc[] must stay at the set's offset 0, and arm64's
 * load pair reaches only 504 bytes past its base, so there one ldp gets
 * the reader with its owner, another the sample's reader with the head.
 */
struct pctr__hot {
	pctr__values_fn values; /* the plan's, for the whole set */
	/*
	 * The thread whose counters the pages show (its thread pointer, set
	 * at the open; 0 when the set has no user path).  A page shows the
	 * counter of the thread it counts, on that thread's CPU: read from
	 * another thread the counter instruction reads the reader's CPU (a
	 * wrong count on x86, SIGILL on arm64 where the kernel lets only
	 * a thread with counters of its own read them): such reads take
	 * read(2) (tests/repro/repro_other_thread_user_read.c).
	 */
	uintptr_t owner;
	pctr__sample_fn sample;
	uint64_t head; /* pctr_sample's nr and path, stored at once */
};
#define PCTR__HOT(set) ((struct pctr__hot *)(uintptr_t)(set) - 1)

struct pctr__plan {
	pctr__sample_fn serial; /* what sample calls after a fence, if it must */
	int nr_seg;
	struct pctr__plan_seg seg[PCTR_MAX_EVENTS + 1];
	struct pctr_set *next, *prev; /* set.c: sets a fork must unplan */
	bool listed;
};

struct pctr_set {
	struct pctr__plan_ctr pc[PCTR_MAX_EVENTS]; /* first: see above */
	struct pctr__plan plan;
	unsigned int flags;
	int serial;
	int nr_events;
	struct pctr_event ev[PCTR_MAX_EVENTS];
	/* ev's kernel attributes, with overflow.c's and sampling.c's settings */
	union pctr__attr attr[PCTR_MAX_EVENTS];
	int group_id[PCTR_MAX_EVENTS]; /* pctr_set_group(): 0 none, 1, 2... */
	int nr_group_ids;
	/*
	 * PCTR_SET_SKIP_UNSUPPORTED: the events left out (their refusal's
	 * negative errno; 0: counted), how many, and the event the first
	 * instance refused in the open under way (-1: none, or a later one)
	 */
	int skip_err[PCTR_MAX_EVENTS];
	char *skip_why[PCTR_MAX_EVENTS]; /* the refusal's text, or NULL */
	int nr_skipped;
	int refused;

	bool open;
	int target;
	int cgroup_fd; /* PCTR_TARGET_CGROUP: the caller's, during the open */
	bool inherit; /* counters inherited by new threads: see pctr__group */
	/*
	 * Sets that sample, where the kernel has it: PERF_FORMAT_LOST in
	 * every counter's read format, each entry then { value, id, lost }
	 * and a read of one counter { value, enabled, running, id, lost }.
	 */
	bool read_lost;
	bool user_read; /* fast path offered */
	bool last_user; /* last read took it for every event */
	bool spread; /* thread instances, one per thread and CPU */
	int nr_inst;
	struct pctr__inst *inst; /* [nr_inst]: &one for a set of one */
	/*
	 * The instance of a set of one, such as a thread's, the only sets
	 * read in user space: a read without a plan finds its counters and
	 * bases at the set's offsets, one load each.
	 */
	struct pctr__inst one;
	int nr_ctr; /* counters per instance */
	uint64_t *buf; /* group read buffer */
	size_t buf_len;
	bool has_base; /* a reset happened: subtract the bases */
	bool simple; /* one counter per event (no hybrid parts) */
	bool fast_values; /* user_read && simple: pctr_set_read_values() */
	unsigned long reads;
	unsigned long forks; /* pctr__forks when opened: mappings are ours */
	pid_t pid; /* the process that opened it: see pctr__set_forked() */
	pid_t exec_pid; /* a command before its exec: pctr_set_open_command() */
	struct pctr__overflow *ovf; /* overflow.c: notification state, or NULL */
};

_Static_assert(sizeof(struct pctr__hot) % _Alignof(max_align_t) == 0,
	       "the set after its hot words is aligned as calloc() aligns");
/* pc[]'s baseline times are read as 16-byte pairs: calloc() aligns them */
_Static_assert(_Alignof(struct pctr_set) <= _Alignof(max_align_t),
	       "a set from calloc() is aligned");

/*
 * overflow.c: called by set.c once every counter of the set is open (the
 * set is fully built; return a negative errno to fail the open) and before
 * the counters are closed.
 */
struct pctr__overflow;
int pctr__overflow_open(struct pctr_set *set);
void pctr__overflow_close(struct pctr_set *set);
/* -EDEADLK when called from a callback reading one of the set's rings */
int pctr__overflow_busy(const struct pctr_set *set);
int pctr__overflow_start(struct pctr_set *set, int i, int g,
			 unsigned long *req);
void pctr__overflow_stop(struct pctr_set *set);

/*
 * set.c: forks of the process so far, counted in the child.  The kernel
 * does not copy perf mappings into a child (VM_DONTCOPY): a set opened
 * before a fork must not touch its pages in the child, nor unmap what the
 * child may have mapped at the same address since.
 */
extern unsigned long pctr__forks;
/*
 * set.c: whether @set is a copy in a child, the set's counters and rings
 * being the parent's.  fork() is counted by its atfork handler
 * (pctr__forks); a child made by _Fork(), syscall(SYS_fork) or clone()
 * runs no handler and is told by its pid.  getpid() is a system call:
 * control calls and frees ask, the user-space read does not.
 */
bool pctr__set_forked(const struct pctr_set *set);

/*
 * set.c: a counter's descriptor is the library's only while it is still
 * the perf event it opened (the program may close it and get the number
 * back for a pipe or a file).  Return 0, or -EBADF with what happened.
 */
int pctr__ctr_check(const struct pctr__ctr *c);
/* the same check, without the error text: async-signal-safe */
bool pctr__ctr_owned(const struct pctr__ctr *c);
/* remember what @c->fd is (its id, device and inode) for the checks */
int pctr__ctr_identify(struct pctr__ctr *c);
int pctr__inst_range(const struct pctr_set *set, int i, int *lo, int *hi);
int pctr__inst_public(const struct pctr_set *set, int k);
struct perf_event_attr;
void pctr__set_clock(const struct pctr_set *set, struct perf_event_attr *attr);

/*
 * plan.c: pctr__plan_build() makes the plan for the counters where they
 * are now, or sets the slow readers when there cannot be one;
 * pctr__plan_none() sets the slow readers (a new, closed or forked set).
 * set.c: pctr__plan_list()/_unlist() keep the sets with a plan, which a
 * fork turns back to the slow readers in the child.
 */
void pctr__plan_build(struct pctr_set *set);
void pctr__plan_none(struct pctr_set *set);
void pctr__plan_list(struct pctr_set *set);
void pctr__plan_unlist(struct pctr_set *set);
/* plan.c's segmentation, alone for the unit tests: see plan.c */
struct pctr__plan_run {
	int first, nr;
};
int pctr__plan_runs(const uint32_t *hw, const uint16_t *shift,
		    const int *group, int n, bool consecutive,
		    bool (*has)(uint32_t hw, int nr, unsigned int shift),
		    struct pctr__plan_run *run);

/* read.c: the reads without a plan (plan.c calls them on a miss) */
int pctr__read_sample_slow(struct pctr_set *set, struct pctr_sample *s);
int pctr__read_values_slow(struct pctr_set *set, uint64_t *values);

/* read.c */
/* the kernel's count of the records counter @x lost (set->read_lost) */
int pctr__ctr_lost(const struct pctr_set *set, const struct pctr__ctr *x,
		   uint64_t *lost);
int pctr__set_read_inst(struct pctr_set *set, const struct pctr__inst *in,
			struct pctr_count *out);
int pctr__set_read_user(struct pctr_set *set, struct pctr_count *out,
			uint64_t cyc);
void pctr__combine_part(struct pctr_count *dst, const struct pctr_count *src,
			int part);

/*
 * @after - @before, field by field: pctr_count_delta() without its
 * argument check, for the library's own callers (no call through the PLT)
 */
static inline struct pctr_count
pctr__count_delta(const struct pctr_count *after,
		  const struct pctr_count *before)
{
	return (struct pctr_count){ after->value - before->value,
				    after->enabled - before->enabled,
				    after->running - before->running };
}

#endif
