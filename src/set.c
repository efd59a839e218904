/* SPDX-License-Identifier: MIT */
/*
 * set.c - building a set, opening it on a target, and controlling it.
 *
 * Opening: for each instance (a thread of the target, or a CPU) every event
 * part becomes one kernel counter.  Counters join their part's current
 * group; when the kernel refuses a sibling with EINVAL while the same event
 * opens fine alone, the group is full and a new one starts (with
 * PCTR_SET_NO_MULTIPLEX that is an error instead).  Leaders are opened
 * disabled, siblings follow their leader.  Inherited sets add a reader to
 * each group of two or more (internal.h, struct pctr__group).
 *
 * Threads exit while a process is opened thread by thread: a leader for a
 * thread that is gone fails with ESRCH, and a sibling whose leader's
 * thread is exiting fails with ENODEV, EINVAL or ESRCH
 * (tests/repro/repro_sibling_enodev.c); a failed sibling is checked
 * against the thread's own state (thread_exiting).  Such a thread is left
 * out; a process whose threads are all gone is ESRCH.
 *
 * Descriptors: the program can close one of the set's and get its number
 * back for a pipe or a file.  Before a read(2), an ioctl or a close, the
 * library checks the number is still its perf event (pctr__ctr_check());
 * overflow.c and ring.c do the same before their fcntl, ioctl and close.
 */
#include <ctype.h>
#include <dirent.h>
#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <linux/magic.h>
#include <unistd.h>

#include "internal.h"
#include "arch.h"

#define READ_ONE                                                              \
	(PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED |                    \
	 PERF_FORMAT_TOTAL_TIME_RUNNING)
#define READ_FORMAT (PERF_FORMAT_GROUP | READ_ONE)
/* attempts at a thread whose new siblings are refused while it lives */
#define OPEN_TRIES 8

PCTR_EXPORT int
pctr_set_new(struct pctr_set **setp, unsigned int flags)
{
	struct pctr__hot *hot;
	struct pctr_set *set;

	if (!setp)
		return pctr__error(EINVAL, "NULL set pointer");
	*setp = NULL;
	if (flags & ~(PCTR_SET_NO_MULTIPLEX | PCTR_SET_NO_USER_READ |
		      PCTR_SET_SKIP_UNSUPPORTED | PCTR_SET_NO_INHERIT))
		return pctr__error(EINVAL, "unknown set flags 0x%x", flags);
	/* the read's first loads before it (struct pctr__hot) */
	hot = calloc(1, sizeof(*hot) + sizeof(*set));
	if (!hot)
		return pctr__error(ENOMEM, "out of memory for a set");
	set = (struct pctr_set *)(hot + 1);
	set->flags = flags;
	pctr__plan_none(set);
	*setp = set;
	return 0;
}

unsigned long pctr__forks;

/*
 * The sets whose reads may follow a plan into their pages (plan.c): in a
 * child those pages are not mapped, and a plan's reader does not look at
 * pctr__forks, so the child's copies are set to the slow readers, which
 * do.  The lock is held across fork() so that the list is whole in the
 * child.
 */
static pthread_mutex_t plans_lock = PTHREAD_MUTEX_INITIALIZER;
static struct pctr_set *plans;

void
pctr__plan_list(struct pctr_set *set)
{
	pthread_mutex_lock(&plans_lock);
	set->plan.prev = NULL;
	set->plan.next = plans;
	if (plans)
		plans->plan.prev = set;
	plans = set;
	set->plan.listed = true;
	pthread_mutex_unlock(&plans_lock);
}

void
pctr__plan_unlist(struct pctr_set *set)
{
	if (!set->plan.listed)
		return;
	pthread_mutex_lock(&plans_lock);
	if (set->plan.prev)
		set->plan.prev->plan.next = set->plan.next;
	else
		plans = set->plan.next;
	if (set->plan.next)
		set->plan.next->plan.prev = set->plan.prev;
	set->plan.listed = false;
	pthread_mutex_unlock(&plans_lock);
}

static void
before_fork(void)
{
	pthread_mutex_lock(&plans_lock);
}

static void
after_fork_parent(void)
{
	pthread_mutex_unlock(&plans_lock);
}

static void
after_fork_child(void)
{
	pctr__forks++;
	for (struct pctr_set *set = plans; set; set = set->plan.next)
		pctr__plan_none(set);
	pthread_mutex_unlock(&plans_lock);
}

__attribute__((constructor)) static void
watch_forks(void)
{
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
}

bool
pctr__set_forked(const struct pctr_set *set)
{
	return set->forks != pctr__forks || set->pid != getpid();
}

/* ---- descriptors that are still ours ----------------------------------- */

static const char *
file_kind(unsigned int mode)
{
	if (S_ISFIFO(mode))
		return "a pipe";
	if (S_ISREG(mode))
		return "a file";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode) || S_ISBLK(mode))
		return "a device";
	return S_ISDIR(mode) ? "a directory" : "another file";
}

static int
not_ours(const struct pctr__ctr *c, const char *what)
{
	return pctr__error(EBADF, "counter descriptor %d was closed behind the "
				  "library's back%s%s: the set cannot be read; "
				  "pctr_set_free() leaves that number alone",
			   c->fd, *what ? " and its number reused for " : "",
			   what);
}

/* The number is not our counter any more: find out what it is now. */
static int
ctr_lost(const struct pctr__ctr *c, int err)
{
	uint64_t dev, ino;
	unsigned int mode;
	int r = pctr__sys_fstat(c->fd, &dev, &ino, &mode);

	if (r == -EBADF)
		return not_ours(c, "");
	if (r == 0 && (dev != c->dev || ino != c->ino))
		return not_ours(c, file_kind(mode));
	if (err == 0)
		return not_ours(c, "another perf event");
	if (err == -ENOTTY || err == -EINVAL)
		return not_ours(c, "another anonymous file (eventfd, epoll, "
				   "timerfd, ...)");
	return pctr__error(-err, "cannot check counter descriptor %d: %s",
			   c->fd, strerror(-err));
}

/*
 * One PERF_EVENT_IOC_ID: only our counter answers with its id (ids are
 * never reused).  Every other file answers with an error: the ioctl number
 * is perf's ('$' in the kernel's ioctl-number registry), and eventfd,
 * epoll, timerfd and the like, which share the perf events' anonymous
 * inode so that fstat() alone cannot tell them from ours, say ENOTTY or
 * EINVAL.  fstat() then only explains a failure.  Cost: one system call
 * before each read(2), ioctl or close; the user-space read touches no
 * descriptor.  A thread of the program that closes the number between the
 * check and the call is not caught: the check narrows the race, it cannot
 * shut it.
 */
static int
ctr_id_check(const struct pctr__ctr *c)
{
	uint64_t id = 0;
	int r = pctr__sys_ioctl(c->fd, PERF_EVENT_IOC_ID, (unsigned long)&id);

	return r < 0 ? r : id == c->id; /* 1 ours, 0 another perf event */
}

/* Async-signal-safe: no error text (the restart, a handler's rearm). */
bool
pctr__ctr_owned(const struct pctr__ctr *c)
{
	return ctr_id_check(c) == 1;
}

int
pctr__ctr_check(const struct pctr__ctr *c)
{
	int r = ctr_id_check(c);

	return r == 1 ? 0 : ctr_lost(c, r);
}

/*
 * A counter whose id is not known yet was opened by the call still
 * running, so it is ours; any other is closed only if it still is.
 */
static void
ctr_close(struct pctr__ctr *c)
{
	if (c->fd >= 0 && (c->id == 0 || pctr__ctr_check(c) == 0))
		pctr__sys_close(c->fd);
	c->fd = -1;
}

/* Remember what the descriptor is, for pctr__ctr_check(). */
int
pctr__ctr_identify(struct pctr__ctr *c)
{
	unsigned int mode;
	uint64_t id;
	int r = pctr__sys_ioctl(c->fd, PERF_EVENT_IOC_ID, (unsigned long)&id);

	if (r < 0)
		return pctr__error(-r, "cannot get a counter's id");
	r = pctr__sys_fstat(c->fd, &c->dev, &c->ino, &mode);
	if (r < 0)
		return pctr__error(-r, "cannot stat a counter's descriptor: %s",
				   strerror(-r));
	c->id = id;
	return 0;
}

static void
close_instance(const struct pctr_set *set, struct pctr__inst *in, bool forked)
{
	long page = sysconf(_SC_PAGESIZE);

	if (!in->ctr) /* never allocated: alloc_instance() */
		return;
	for (int c = 0; c < set->nr_ctr; c++) {
		if (in->ctr[c].page && !forked)
			pctr__sys_munmap(in->ctr[c].page, page);
		in->ctr[c].page = NULL;
		ctr_close(&in->ctr[c]);
		ctr_close(&in->groups[c].reader);
	}
	ctr_close(&in->guard);
}

static void
free_instance(const struct pctr_set *set, struct pctr__inst *in, bool forked)
{
	close_instance(set, in, forked);
	free(in->ctr); /* one block: alloc_instance() */
	*in = (struct pctr__inst){ .guard.fd = -1 };
}

static void
close_all(struct pctr_set *set)
{
	bool forked = pctr__set_forked(set);

	pctr__plan_unlist(set);
	pctr__plan_none(set);
	pctr__overflow_close(set);
	for (int i = 0; set->inst && i < set->nr_inst; i++)
		free_instance(set, &set->inst[i], forked);
	if (set->inst != &set->one)
		free(set->inst);
	free(set->buf);
	set->inst = NULL;
	set->buf = NULL;
	set->nr_inst = 0;
	set->exec_pid = 0;
	set->spread = false;
	set->open = false;
	set->user_read = false;
	PCTR__HOT(set)->owner = 0;
	set->fast_values = false;
	set->reads = 0;
}

/* PCTR_SET_SKIP_UNSUPPORTED: no event left out, no text kept */
static void
forget_skips(struct pctr_set *set)
{
	for (int e = 0; e < PCTR_MAX_EVENTS; e++)
		free(set->skip_why[e]);
	memset(set->skip_why, 0, sizeof(set->skip_why));
	memset(set->skip_err, 0, sizeof(set->skip_err));
	set->nr_skipped = 0;
	set->refused = -1;
}

PCTR_EXPORT int
pctr_set_free(struct pctr_set *set)
{
	int r;

	if (!set)
		return 0;
	r = pctr__overflow_busy(set);
	if (r < 0)
		return r;
	close_all(set);
	forget_skips(set);
	free(PCTR__HOT(set));
	return 0;
}

PCTR_EXPORT int
pctr_set_add_event(struct pctr_set *set, const struct pctr_event *ev)
{
	int n, r;

	if (!set || !ev)
		return pctr__error(EINVAL, "NULL set or event");
	if (set->open)
		return pctr__error(EALREADY, "the set is already open: add "
					     "events before pctr_set_open()");
	if (set->nr_events == PCTR_MAX_EVENTS)
		return pctr__error(E2BIG, "a set holds at most %d events",
				   PCTR_MAX_EVENTS);
	n = set->nr_events;
	r = pctr__struct_in(&PCTR__SIZED(pctr_event, PCTR_EVENT_SIZE_VER0),
			    &set->ev[n], ev);
	if (r < 0 || (r = pctr__event_check(&set->ev[n])) < 0)
		return r;
	set->ev[n].name[PCTR_NAME_MAX - 1] = '\0';
	pctr__event_kattr(&set->ev[n], &set->attr[n],
			  pctr__event_kattr_size(&set->ev[n]));
	set->group_id[n] = 0;
	return set->nr_events++;
}

PCTR_EXPORT int
pctr_set_add(struct pctr_set *set, const char *spec)
{
	struct pctr_event ev;
	int r;

	if (!set)
		return pctr__error(EINVAL, "NULL set");
	r = pctr__event_parse(spec, &ev);
	return r < 0 ? r : pctr_set_add_event(set, &ev);
}

/* group @g of list @l, whose events were added from index @base */
static int
add_group(struct pctr_set *set, int base, const struct pctr__event_list *l,
	  int g)
{
	int first = -1, nr = 0;

	for (int i = 0; i < l->nr; i++)
		if (l->group[i] == g) {
			first = first < 0 ? i : first;
			nr++;
		}
	return pctr_set_group(set, base + first, nr);
}

/* a list parses whole before any of it is added (event_list.c) */
PCTR_EXPORT int
pctr_set_add_list(struct pctr_set *set, const char *list)
{
	struct pctr__event_list l;
	int before, r;

	if (!set || !list)
		return pctr__error(EINVAL, "NULL set or event list");
	if (set->open)
		return pctr__error(EBUSY, "events can be added only before "
					  "the set is opened");
	before = set->nr_events;
	r = pctr__event_list_parse(list, &l);
	for (int i = 0; r >= 0 && i < l.nr; i++)
		r = pctr_set_add_event(set, &l.ev[i]);
	for (int g = 1; r >= 0 && g <= l.nr_groups; g++)
		r = add_group(set, before, &l, g);
	pctr__event_list_free(&l);
	if (r < 0) {
		set->nr_events = before;
		return r;
	}
	return set->nr_events - before;
}

/*
 * perf's "{a,b}": the events are one kernel group of their own, scheduled
 * on the counters together or not at all.  Other events never join it.
 */
PCTR_EXPORT int
pctr_set_group(struct pctr_set *set, int first, int nr)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (set->open)
		return pctr__error(EBUSY, "groups can be made only before the "
					  "set is opened");
	if (first < 0 || nr < 1 || nr > set->nr_events - first)
		return pctr__error(EINVAL, "no events %d to %d in a set of %d",
				   first, first + nr - 1, set->nr_events);
	for (int e = first; e < first + nr; e++)
		if (set->group_id[e])
			return pctr__error(EINVAL, "'%s' is in a group already",
					   set->ev[e].name);
	set->nr_group_ids++;
	for (int e = first; e < first + nr; e++)
		set->group_id[e] = set->nr_group_ids;
	return 0;
}

PCTR_EXPORT int
pctr_set_nr(const struct pctr_set *set)
{
	return set ? set->nr_events : pctr__error(EINVAL, "NULL set");
}

PCTR_EXPORT const struct pctr_event *
pctr_set_event(const struct pctr_set *set, int idx)
{
	if (!set || idx < 0 || idx >= set->nr_events)
		return NULL;
	return &set->ev[idx];
}

PCTR_EXPORT int
pctr_set_skipped(const struct pctr_set *set, int idx, int *err, char *why,
		 size_t len)
{
	const char *text;

	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (idx < 0 || idx >= set->nr_events)
		return pctr__error(ERANGE, "event %d out of range (0..%d)", idx,
				   set->nr_events - 1);
	if (!why && len)
		return pctr__error(EINVAL, "NULL text buffer of %zu bytes", len);
	if (err)
		*err = set->skip_err[idx];
	text = set->skip_why[idx] ? set->skip_why[idx] : "";
	if (len)
		snprintf(why, len, "%s", text);
	return set->skip_err[idx] != 0;
}

PCTR_EXPORT int
pctr_set_serialize(struct pctr_set *set, int mode)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (mode < PCTR_SERIAL_NONE || mode > PCTR_SERIAL_RDTSCP)
		return pctr__error(EINVAL, "unknown serialisation mode %d",
				   mode);
	set->serial = pctr__arch_tsc_serial(mode); /* arch.h */
	if (set->plan.nr_seg) /* the plan serialises */
		pctr__plan_build(set);
	return 0;
}

/* ---- instances ---------------------------------------------------------- */

static int
push_id(int **ids, int *nr, int *cap, int id)
{
	if (*nr == *cap) {
		int ncap = *cap ? *cap * 2 : 8;
		int *n = realloc(*ids, ncap * sizeof(int));

		if (!n)
			return pctr__error(ENOMEM, "out of memory");
		*ids = n;
		*cap = ncap;
	}
	(*ids)[(*nr)++] = id;
	return 0;
}

static int
list_tasks(pid_t pid, int **ids, int *nr)
{
	char path[64];
	struct dirent *d;
	DIR *dir;
	int cap = 0, r = 0;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/task");
	else
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	if (!dir && errno != ENOENT) /* out of memory or descriptors */
		return pctr__error(errno, "cannot list the threads of %s: %s",
				   path, strerror(errno));
	if (!dir)
		return pctr__error(ESRCH, "no process %d", (int)pid);
	while (!r && (d = readdir(dir)))
		if (isdigit((unsigned char)d->d_name[0]))
			r = push_id(ids, nr, &cap, atoi(d->d_name));
	closedir(dir);
	return r;
}

static int
list_cpus(const struct pctr_target *t, int **ids, int *nr)
{
	char path[512], buf[1024];
	int cap = 0, r = 0;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);

	for (int i = 0; i < t->nr_cpus; i++) {
		if (!t->cpus || t->cpus[i] < 0 || t->cpus[i] >= ncpu)
			return pctr__error(EINVAL, "no CPU %d (this machine has "
						   "%ld)",
					   t->cpus ? t->cpus[i] : -1, ncpu);
		r = push_id(ids, nr, &cap, t->cpus[i]);
		if (r < 0)
			return r;
	}
	if (t->nr_cpus)
		return 0;
	snprintf(path, sizeof(path), "%s/devices/system/cpu/online",
		 pctr__sysfs_root());
	if (pctr__sysfs_read(path, buf, sizeof(buf)) < 0)
		snprintf(buf, sizeof(buf), "0-%ld", ncpu - 1);
	for (char *p = buf; *p && !r;) {
		char *end;
		long lo = strtol(p, &end, 10), hi = lo;

		if (end == p)
			break;
		if (*end == '-')
			hi = strtol(end + 1, &end, 10);
		for (long c = lo; c <= hi && !r; c++)
			r = push_id(ids, nr, &cap, (int)c);
		p = *end == ',' ? end + 1 : end;
	}
	return r;
}

/* ---- opening ------------------------------------------------------------ */

struct how {
	pid_t pid; /* -1 for CPU instances */
	bool inherit;
	bool enable_on_exec;
	bool user_read;
	bool open_enabled; /* leaders count while groups are built */
	bool retry; /* open_instance() may answer -EAGAIN: try again */
};

static const char *
target_name(const struct pctr_set *set, const struct how *how, int cpu,
	    char *buf, size_t len)
{
	if (set->target == PCTR_TARGET_CGROUP)
		snprintf(buf, len, "the cgroup on CPU %d", cpu);
	else if (how->pid < 0)
		snprintf(buf, len, "CPU %d", cpu);
	else if (how->pid == 0)
		snprintf(buf, len, "this thread");
	else
		snprintf(buf, len, "%s %d",
			 set->target == PCTR_TARGET_TID ? "thread" : "task",
			 (int)how->pid);
	return buf;
}

/*
 * Kernel mode asked for, not just allowed: a refusal of an event without a
 * modifier was retried for user mode only (open_counter), so kernel mode
 * is not what the kernel refused there.
 */
static int
permission_error(const struct pctr_event *ev, const struct how *how,
		 const char *who, int err)
{
	struct pctr__perm p = {
		.event = ev->name,
		.who = who,
		.pid = how->pid,
		.kernel = !(ev->flags & PCTR_EVENT_EXCLUDE_KERNEL) &&
			  (ev->flags & (PCTR_EVENT_EXCLUDE_USER |
					PCTR_EVENT_EXCLUDE_HV)),
	};

	return pctr__perm_error(-err, &p);
}

static int
open_error(const struct pctr_set *set, const struct pctr_event *ev,
	   const struct how *how, int cpu, int err)
{
	const struct pctr_machine *m = pctr__machine();
	char who[64];

	target_name(set, how, cpu, who, sizeof(who));
	switch (-err) {
	case ENOENT:
	case EOPNOTSUPP:
		if (ev->hardware && !m->has_pmu)
			return pctr__error(ENODEV,
					   "cannot count '%s': this machine "
					   "has no hardware PMU (a VM without "
					   "PMU passthrough?); software events "
					   "and the timestamp counter still "
					   "work",
					   ev->name);
		return pctr__error(-err, "cannot count '%s': the kernel "
					 "says this PMU does not support it",
				   ev->name);
	case EACCES:
	case EPERM:
		return permission_error(ev, how, who, err);
	case ESRCH:
		return pctr__error(ESRCH, "cannot count %s: no such process "
					  "or thread",
				   who);
	case EMFILE:
	case ENFILE:
		return pctr__error(-err, "cannot count '%s': out of file "
					 "descriptors (one per event, thread "
					 "and CPU): raise 'ulimit -n'",
				   ev->name);
	case EBUSY:
		return pctr__error(EBUSY,
				   "cannot count '%s': the counter is in use "
				   "by another user (the NMI watchdog? "
				   "sysctl kernel.nmi_watchdog=0)",
				   ev->name);
	case ENODEV:
		return pctr__error(ENODEV, "cannot count '%s' on %s: no such "
					   "device (offline CPU?)",
				   ev->name, who);
	case ENOSYS:
		return pctr__error(ENOSYS, "perf_event_open is not available "
					   "(kernel without perf events, or a "
					   "seccomp filter in a container)");
	default:
		return pctr__error(-err, "cannot count '%s' on %s: the kernel "
					 "refused it (%s)",
				   ev->name, who, strerror(-err));
	}
}

/* the PMU format bit that lets user space read a counter (arm64 rdpmc) */
static uint64_t
user_read_bit(void)
{
	const struct pctr_machine *m = pctr__machine();
	char buf[64];
	char *end;
	long bit;

	if (!m->has_pmu ||
	    pctr__sysfs_pmu_read(m->pmu[0], "format/rdpmc", buf, sizeof(buf)) < 0 ||
	    strncmp(buf, "config1:", 8))
		return 0;
	bit = strtol(buf + 8, &end, 10);
	return bit >= 0 && bit < 64 && !*end ? 1ull << bit : 0;
}

static void
make_attr(const struct pctr_set *set, int e, int part, bool leader,
	  const struct how *how, union pctr__attr *u)
{
	const struct pctr_event *ev = &set->ev[e];
	struct perf_event_attr *attr = &u->a;

	*u = set->attr[e];
	if (ev->part_type[part])
		attr->config = (attr->config & PERF_HW_EVENT_MASK) |
			       (uint64_t)ev->part_type[part] << PERF_PMU_TYPE_SHIFT;
	attr->read_format = (how->inherit ? READ_ONE : READ_FORMAT) |
			    (set->read_lost ? PERF_FORMAT_LOST : 0);
	/*
	 * Leaders open enabled and are stopped as soon as their group is
	 * complete (open_instance), what they counted meanwhile becoming the
	 * reset baseline: arm_pmu's validate_group() leaves out a disabled
	 * leader unless it has enable_on_exec, so a group one event larger
	 * than the counters would be accepted and never scheduled.  A
	 * command's leaders wait for its exec instead, which the check
	 * counts.  Sets that sample open stopped, so that no period starts
	 * before pctr_set_enable() (the check then trusts the kernel).
	 */
	attr->disabled = leader && !how->open_enabled;
	attr->enable_on_exec = leader && how->enable_on_exec;
	attr->inherit = how->inherit;
	if (leader && (set->flags & PCTR_SET_NO_MULTIPLEX))
		attr->pinned = 1;
	if (how->user_read && ev->hardware)
		attr->config1 |= user_read_bit();
	pctr__set_clock(set, attr);
}

/*
 * Open one counter, retrying once for user-only counting when the event
 * asked for no particular privilege level and the kernel refuses kernel
 * counting (perf_event_paranoid >= 2), as perf does.
 */
static int
open_counter(struct pctr_set *set, int e, int part, int group_fd,
	     const struct how *how, int cpu)
{
	struct pctr_event *ev = &set->ev[e];
	union pctr__attr u;
	struct perf_event_attr *attr = &u.a;
	int fd;

	make_attr(set, e, part, group_fd < 0, how, &u);
	fd = pctr__set_perf_open(set, attr, how->pid, cpu, group_fd);
	if ((fd == -EACCES || fd == -EPERM) && !attr->exclude_user &&
	    !attr->exclude_kernel && !attr->exclude_hv) {
		attr->exclude_kernel = attr->exclude_hv = 1;
		fd = pctr__set_perf_open(set, attr, how->pid, cpu, group_fd);
		if (fd >= 0) {
			set->attr[e].a.exclude_kernel = 1;
			set->attr[e].a.exclude_hv = 1;
			ev->flags |= PCTR_EVENT_EXCLUDE_KERNEL |
				     PCTR_EVENT_EXCLUDE_HV |
				     PCTR_EVENT_USER_FALLBACK;
		}
	}
	return fd;
}

/*
 * Whether thread @tid has started to exit: PF_EXITING in the flags of
 * /proc/TID/stat (field 9), set early in do_exit() and never cleared, or
 * no such thread any more.  Opening a sibling for a thread that is
 * exiting fails with ENODEV, EINVAL or ESRCH depending on how far its exit
 * has gone, while the same event alone may still open
 * (tests/repro/repro_sibling_enodev.c): only the thread's own state tells.
 */
static bool
thread_exiting(pid_t tid)
{
	char path[64], buf[512], state;
	unsigned int flags;
	const char *p;
	ssize_t n;
	int fd;

	if (tid <= 0)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n == 0 || errno == ESRCH;
	buf[n] = '\0';
	p = strrchr(buf, ')'); /* the name may hold anything */
	if (!p || sscanf(p + 1, " %c %*d %*d %*d %*d %*d %u", &state,
			 &flags) != 2)
		return false;
	return state == 'Z' || state == 'X' || (flags & 0x4); /* PF_EXITING */
}

/*
 * A sibling (or a reader) refused for a thread: ESRCH if the thread is
 * exiting.  A live thread of an inherited set that creates threads can
 * also have a new sibling refused with ENODEV or EINVAL for a moment
 * (tests/repro/repro_sibling_enodev.c): then -EAGAIN, to open the thread
 * again, as long as how->retry allows.
 */
static int
sibling_refused(const struct how *how, int err)
{
	if (how->pid <= 0 ||
	    (err != -ENODEV && err != -EINVAL && err != -ESRCH))
		return err;
	if (thread_exiting(how->pid))
		return -ESRCH;
	return how->inherit && how->retry ? -EAGAIN : err;
}

/*
 * A leader refused for a thread: ENODEV or EINVAL as well as ESRCH come
 * back for a thread that is exiting (seen under load in
 * tests/sys/test_churn.c); such a thread is gone, not a reason to fail.
 */
static int
leader_refused(const struct how *how, int err)
{
	if (how->pid > 0 &&
	    (err == -ENODEV || err == -EINVAL || err == -ESRCH) &&
	    thread_exiting(how->pid))
		return -ESRCH;
	return err;
}

/*
 * A counter refused: say why (ESRCH for a thread that is exiting), and
 * name event @e as the one refused (leave_out()).
 */
static int
refused(struct pctr_set *set, int e, const struct how *how, int cpu, int err)
{
	set->refused = e;
	return open_error(set, &set->ev[e], how, cpu, leader_refused(how, err));
}

/*
 * The reader of an inherited group of two or more (struct pctr__group): a
 * dummy software event, which counts nothing and so joins any group, user
 * space only so that every perf_event_paranoid level allows it.
 */
static int
open_reader(struct pctr_set *set, struct pctr__inst *in, int g,
	    const struct how *how)
{
	struct pctr__group *grp = &in->groups[g];
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .read_format = READ_FORMAT,
		.inherit = 1, .exclude_kernel = 1, .exclude_hv = 1,
	};
	int fd, e = in->ctr[0].event;

	if (grp->nr < 2)
		return 0;
	if (set->read_lost)
		attr.read_format |= PERF_FORMAT_LOST;
	pctr__set_clock(set, &attr);
	for (int c = 0; c < set->nr_ctr; c++)
		if (in->ctr[c].fd == grp->leader_fd)
			e = in->ctr[c].event;
	fd = pctr__sys_perf_open(&attr, how->pid, in->cpu, grp->leader_fd, 0);
	if (fd < 0)
		fd = sibling_refused(how, fd);
	if (fd == -EAGAIN)
		return fd;
	if (fd < 0)
		return open_error(set, &set->ev[e], how, in->cpu, fd);
	grp->reader.fd = fd;
	return 0;
}

/* event @e's part @p alone, to lead a new group */
static int
open_leader(struct pctr_set *set, const struct pctr__inst *in, int e, int p,
	    const struct how *how)
{
	int fd = open_counter(set, e, p, -1, how, in->cpu);

	return fd < 0 ? refused(set, e, how, in->cpu, fd) : fd;
}

/*
 * Event @e's part @p in group *@g.  EINVAL: a full group, or an event the
 * PMU refuses?  Opened alone it then leads a group of its own (*@g = -1),
 * unless it had to join this one.
 */
static int
open_sibling(struct pctr_set *set, const struct pctr__inst *in, int e, int p,
	     int *g, const struct how *how)
{
	int fd = open_counter(set, e, p, in->groups[*g].leader_fd, how,
			      in->cpu);
	const char *with = NULL;

	if (fd < 0)
		fd = sibling_refused(how, fd);
	if (fd >= 0 || fd == -EAGAIN)
		return fd;
	if (fd != -EINVAL)
		return refused(set, e, how, in->cpu, fd);
	*g = -1;
	fd = open_leader(set, in, e, p, how);
	if (set->group_id[e])
		with = "the other events of its group";
	else if (set->flags & PCTR_SET_NO_MULTIPLEX)
		with = "the events before it and multiplexing was refused";
	if (fd < 0 || !with)
		return fd;
	pctr__sys_close(fd);
	return pctr__error(EBUSY, "'%s' does not fit on the counters with %s",
			   set->ev[e].name, with);
}

/* the group each part's next counter joins: -1 for a new one */
struct grouping {
	int cur[PCTR_MAX_PARTS];
	bool pinned[PCTR_MAX_PARTS]; /* its leader is pinned */
};

static void
grouping_restart(struct grouping *gr)
{
	for (int p = 0; p < PCTR_MAX_PARTS; p++) {
		gr->cur[p] = -1;
		gr->pinned[p] = false;
	}
}

/* counter @c: event @e's part @p, in its part's group or a new one */
static int
open_part(struct pctr_set *set, struct pctr__inst *in, struct grouping *gr,
	  int c, int e, int p, const struct how *how)
{
	bool pinned = set->attr[e].a.pinned;
	int g = gr->cur[p], fd;

	/*
	 * A pinned event (modifier D) leads a group of its own, and only its
	 * explicit group joins it: a pinned group grown past what was asked
	 * may no longer fit beside the other pinned ones, and then never
	 * counts at all (the kernel puts it in error, which a task's exit
	 * turns into "never ran").
	 */
	if (!set->group_id[e] && (pinned || gr->pinned[p]))
		g = -1;
	fd = g < 0 ? open_leader(set, in, e, p, how)
		   : open_sibling(set, in, e, p, &g, how);
	if (fd < 0)
		return fd;
	if (g < 0) {
		g = gr->cur[p] = in->nr_groups++;
		gr->pinned[p] = pinned;
		in->groups[g].leader_fd = fd;
		in->groups[g].nr = 0;
	}
	in->groups[g].nr++;
	in->ctr[c] = (struct pctr__ctr){
		.fd = fd, .event = e, .part = p, .group = g,
	};
	return 0;
}

/* Leaders opened enabled (make_attr()) stop once their groups are whole. */
static int
stop_groups(const struct pctr__inst *in)
{
	for (int g = 0; g < in->nr_groups; g++) {
		int r = pctr__sys_ioctl(in->groups[g].leader_fd,
					PERF_EVENT_IOC_DISABLE, 0);

		if (r < 0)
			return pctr__error(-r, "cannot stop a new counter group: "
					       "%s", strerror(-r));
	}
	return 0;
}

static int
open_groups(struct pctr_set *set, struct pctr__inst *in, const struct how *how)
{
	struct grouping gr;
	int c = 0, r = 0, prev = -1;

	in->nr_groups = 0;
	for (int e = 0; e < set->nr_events && r == 0; e++) {
		if (set->skip_err[e])
			continue; /* left out: no counter */
		/* a group of pctr_set_group() starts afresh, and ends so */
		if (prev < 0 || set->group_id[e] != set->group_id[prev])
			grouping_restart(&gr);
		prev = e;
		for (int p = 0; p < (int)set->ev[e].nr_parts && r == 0; p++)
			r = open_part(set, in, &gr, c++, e, p, how);
	}
	for (int g = 0; g < in->nr_groups && how->inherit && r == 0; g++)
		r = open_reader(set, in, g, how);
	if (r == 0 && how->open_enabled)
		r = stop_groups(in);
	return r;
}

/*
 * Open one instance's groups.  Counters inherited by the threads a thread
 * creates put cloned contexts in those threads, and the kernel swaps a
 * thread's context with an equivalent clone's when one follows the other
 * on a CPU (perf_event_context_sched_out()).  The counters lose nothing
 * by it (tests/repro/repro_inherit_swap_loss), but a group's leader opened
 * on the thread may then sit in the context a child now has, and its next
 * member, opened on the thread, is refused (EINVAL, group leader in
 * another context; or ENODEV once that child exited:
 * tests/repro/repro_sibling_enodev).  A counter that is not inherited, in
 * the thread's context, makes the children's contexts no clones, and so
 * never swapped: a dummy that counts nothing, the instance's guard, held
 * as long as the set is open.  A guard the kernel refuses is done without:
 * the set still counts, and a refused member opens the thread again.
 */
static int
open_instance(struct pctr_set *set, struct pctr__inst *in,
	      const struct how *how)
{
	struct perf_event_attr attr = {
		.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY, .exclude_kernel = 1,
		.exclude_hv = 1,
	};

	if (how->inherit && how->pid > 0 && set->nr_ctr > 1)
		in->guard.fd = pctr__sys_perf_open(&attr, how->pid, in->cpu,
						   -1, 0);
	if (in->guard.fd < 0)
		in->guard.fd = -1;
	return open_groups(set, in, how);
}

/* open_instance(), again while a new thread refuses siblings for a moment */
static int
open_retrying(struct pctr_set *set, struct pctr__inst *in, struct how *how)
{
	int r;

	for (int t = 1;; t++) {
		how->retry = t < OPEN_TRIES;
		r = open_instance(set, in, how);
		if (r != -EAGAIN)
			return r;
		close_instance(set, in, false);
	}
}

static bool
samples(const struct pctr_set *set)
{
	for (int e = 0; e < set->nr_events; e++)
		if (set->attr[e].a.sample_period)
			return true;
	return false;
}

/* What the leaders counted while their groups were being built. */
static int
take_baseline(struct pctr_set *set)
{
	for (int i = 0; i < set->nr_inst; i++) {
		struct pctr__inst *in = &set->inst[i];
		int r = pctr__set_read_inst(set, in, in->base);

		if (r < 0)
			return r;
	}
	set->has_base = true;
	return 0;
}

/* the ids of the readers and guard, for pctr__ctr_check() */
static int
identify_helpers(struct pctr__inst *in)
{
	int r = 0;

	for (int g = 0; g < in->nr_groups && r == 0; g++)
		if (in->groups[g].reader.fd >= 0)
			r = pctr__ctr_identify(&in->groups[g].reader);
	if (r == 0 && in->guard.fd >= 0)
		r = pctr__ctr_identify(&in->guard);
	return r;
}

/* ids for group reads, members listed group by group, user-read pages */
static int
finish_instance(struct pctr_set *set, struct pctr__inst *in, bool user_read)
{
	long page = sysconf(_SC_PAGESIZE);
	int k = 0, r;

	for (int g = 0; g < in->nr_groups; g++) {
		in->groups[g].first = k;
		for (int c = 0; c < set->nr_ctr; c++)
			if (in->ctr[c].group == g)
				in->member[k++] = c;
	}
	r = identify_helpers(in);
	for (int c = 0; c < set->nr_ctr && r == 0; c++) {
		struct pctr__ctr *x = &in->ctr[c];

		r = pctr__ctr_identify(x);
		if (r == 0 && user_read)
			x->page = pctr__sys_mmap(x->fd, page);
		if (r == 0 && user_read && !x->page)
			set->user_read = false;
	}
	return r;
}

/* The instances, each an allocation of its own: see struct pctr__inst. */
static int
alloc_open(struct pctr_set *set, int nr_inst)
{
	int nc = 0;

	for (int e = 0; e < set->nr_events; e++)
		nc += set->skip_err[e] ? 0 : set->ev[e].nr_parts;
	set->nr_ctr = nc;
	set->nr_inst = 0;
	set->inst = nr_inst == 1 ? &set->one
				 : calloc(nr_inst, sizeof(*set->inst));
	/*
	 * a group read: nr, enabled, running, then value and id of each
	 * counter and of a reader
	 */
	set->buf_len = (3 + 3 * ((size_t)nc + 1)) * sizeof(uint64_t);
	set->buf = malloc(set->buf_len);
	if (!set->inst || !set->buf)
		return pctr__error(ENOMEM, "out of memory opening a set");
	return 0;
}

static int
alloc_instance(const struct pctr_set *set, struct pctr__inst *in, int id,
	       int cpu)
{
	size_t nc = set->nr_ctr, ne = set->nr_events;
	char *p = calloc(1, nc * (sizeof(*in->ctr) + sizeof(*in->groups) +
				  sizeof(*in->member)) +
				    ne * sizeof(*in->base));

	*in = (struct pctr__inst){ .id = id, .cpu = cpu, .guard.fd = -1 };
	if (!p)
		return pctr__error(ENOMEM, "out of memory opening a set");
	/* largest alignment first */
	in->ctr = (struct pctr__ctr *)p;
	in->groups = (struct pctr__group *)(in->ctr + nc);
	in->base = (struct pctr_count *)(in->groups + nc);
	in->member = (int *)(in->base + ne);
	for (size_t c = 0; c < nc; c++) {
		in->ctr[c].fd = -1;
		in->groups[c].reader.fd = -1;
	}
	return 0;
}

/*
 * Inherited counters that sample write their records into their parent's
 * ring buffer from whatever CPU the inheriting thread runs on, and the
 * kernel's ring is written with CPU-local operations (perf_output_begin()
 * and perf_output_put_handle() use local_t): two CPUs writing one ring at
 * once can leave its published head stuck for good, every later record
 * written past it and never seen, not even as lost
 * (tests/repro/repro_shared_ring_head).  So a set that samples threads it
 * inherits into opens each thread once per online CPU, as perf record
 * does; each counter counts only while its thread runs on its CPU, and the
 * rings are per CPU (sampling.c).  @ids becomes thread x CPU, the thread
 * ids repeated, consecutive, and *cpus their CPUs.
 */
static int
spread_over_cpus(int **ids, int **cpus, int *nr)
{
	struct pctr_target all = { .type = PCTR_TARGET_CPU };
	int *cpu = NULL, ncpu = 0, *id, *c;
	int r = list_cpus(&all, &cpu, &ncpu);

	id = r < 0 ? NULL : calloc((size_t)*nr * ncpu + 1, sizeof(int));
	c = r < 0 ? NULL : calloc((size_t)*nr * ncpu + 1, sizeof(int));
	if (r == 0 && (!id || !c))
		r = pctr__error(ENOMEM, "out of memory opening a set");
	for (int i = 0; r == 0 && i < *nr * ncpu; i++) {
		id[i] = (*ids)[i / ncpu];
		c[i] = cpu[i % ncpu];
	}
	free(cpu);
	if (r < 0) {
		free(id);
		free(c);
		return r;
	}
	free(*ids);
	*ids = id;
	*cpus = c;
	*nr *= ncpu;
	return 0;
}

/* a thread that exited while the set was opened is left out */
static bool
may_lose_threads(const struct pctr_set *set)
{
	return set->target == PCTR_TARGET_PID ||
	       set->target == PCTR_TARGET_PROCESS;
}

/*
 * One instance per id, in set->inst[] from the first free slot: a thread
 * that exited meanwhile, the main one too, gives its slot to the next.
 */
static int
open_instances(struct pctr_set *set, const int *ids, const int *cpus, int nr,
	       const struct how *base, bool cpu_target)
{
	int r = 0;

	for (int i = 0; r == 0 && i < nr; i++) {
		struct pctr__inst *in = &set->inst[set->nr_inst++];
		struct how how = *base;

		if (!cpu_target && how.pid != 0)
			how.pid = ids[i];
		r = alloc_instance(set, in, ids[i],
				   cpu_target ? ids[i] : cpus ? cpus[i] : -1);
		if (r == 0)
			r = open_retrying(set, in, &how);
		if (r < 0 && set->nr_inst > 1)
			set->refused = -1; /* the event counts elsewhere */
		if (r == -ESRCH && may_lose_threads(set)) {
			free_instance(set, in, false);
			set->nr_inst--;
			r = 0;
		} else if (r == 0) {
			r = finish_instance(set, in, how.user_read);
		}
	}
	if (r == 0 && set->nr_inst == 0)
		r = pctr__error(ESRCH, "cannot count process %d: no such "
				       "process (it exited while its %d "
				       "thread%s being opened)",
				(int)base->pid, nr,
				nr == 1 ? " was" : "s were");
	return r;
}

/* the instances open: the baseline, then the overflow state */
static int
start_set(struct pctr_set *set, const struct how *how)
{
	int r = 0;

	set->simple = set->nr_ctr == set->nr_events && !set->nr_skipped;
	set->has_base = false;
	set->fast_values = set->user_read && set->simple;
	if (how->open_enabled)
		r = take_baseline(set);
	if (r == 0)
		r = pctr__overflow_open(set);
	return r;
}

/*
 * Open @set on the @nr threads or CPUs of @ids, which it frees; on failure
 * set->refused is the event refused, if that is why (else -1).
 */
static int
open_once(struct pctr_set *set, int *ids, int nr, const struct how *base,
	  bool cpu_target)
{
	struct how how = *base;
	int r = 0, *cpus = NULL;

	how.open_enabled = !base->enable_on_exec && !samples(set);
	set->forks = pctr__forks;
	set->pid = getpid();
	set->inherit = how.inherit;
	set->read_lost = samples(set) && pctr__format_lost();
	if (how.inherit && samples(set))
		r = spread_over_cpus(&ids, &cpus, &nr);
	set->spread = cpus != NULL;
	if (r == 0)
		r = alloc_open(set, nr);
	if (r == 0)
		r = open_instances(set, ids, cpus, nr, &how, cpu_target);
	free(ids);
	free(cpus);
	if (r == 0)
		r = start_set(set, &how);
	if (r < 0)
		goto out_close;
	set->open = true;
	PCTR__HOT(set)->owner = set->user_read ? pctr__arch_thread_self() : 0;
	if (set->user_read) {
		pctr__plan_list(set);
		pctr__plan_build(set);
	}
	pctr__error_clear();
	return 0;

out_close:
	close_all(set);
	return r;
}

/* the refusals that mean "not here": no PMU, no such event, not allowed */
static bool
not_countable(int r)
{
	return r == -ENODEV || r == -ENOENT || r == -EOPNOTSUPP ||
	       r == -EINVAL || r == -EACCES || r == -EPERM;
}

/*
 * PCTR_SET_SKIP_UNSUPPORTED: event set->refused, refused with *@r, is left
 * out, unless it samples, the refusal is not "not here", or it was the
 * last one: then the open fails as without the flag, with the first
 * event's refusal (*@r and its text), the one the caller listed first.
 */
static bool
leave_out(struct pctr_set *set, int *r)
{
	char why[512];
	int e = set->refused, first = 0;

	if (!(set->flags & PCTR_SET_SKIP_UNSUPPORTED) || e < 0 ||
	    set->attr[e].a.sample_period || !not_countable(*r))
		return false;
	set->skip_err[e] = *r;
	/* the text of the refusal just made (NULL: only its errno's) */
	if (pctr_strerror_r(*r, why, sizeof(why)) >= 0)
		set->skip_why[e] = strdup(why);
	if (++set->nr_skipped < set->nr_events)
		return true;
	while (!set->skip_err[first])
		first++;
	if (first != e)
		*r = set->skip_why[first]
			     ? pctr__error(-set->skip_err[first], "%s",
					   set->skip_why[first])
			     : set->skip_err[first];
	forget_skips(set);
	return false;
}

/*
 * Open on every instance; each event left out (leave_out()) starts the
 * open again without it, on the same instances.  Takes @ids.
 */
static int
open_on(struct pctr_set *set, int *ids, int nr, const struct how *base,
	bool cpu_target)
{
	int r;

	for (;;) {
		int *copy = malloc((size_t)nr * sizeof(int) + 1);

		if (!copy) {
			free(ids);
			return pctr__error(ENOMEM, "out of memory opening a set");
		}
		memcpy(copy, ids, (size_t)nr * sizeof(int));
		set->refused = -1;
		r = open_once(set, copy, nr, base, cpu_target);
		if (r == 0 || !leave_out(set, &r))
			break;
	}
	free(ids);
	if (r < 0)
		forget_skips(set);
	return r;
}

/*
 * Only hardware counters can be read in user space: a set with a software
 * event would always end in read(2), so it does not map pages or try.
 */
static bool
all_hardware(const struct pctr_set *set)
{
	for (int e = 0; e < set->nr_events; e++)
		if (!set->ev[e].hardware)
			return false;
	return true;
}

static int
check_openable(struct pctr_set *set)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (set->open)
		return pctr__error(EALREADY, "the set is already open");
	if (set->nr_events == 0)
		return pctr__error(EINVAL, "the set has no events: add some "
					   "before opening it");
	forget_skips(set);
	for (int e = 0; e < set->nr_events; e++) {
		int r;

		if (set->ev[e].type != PERF_TYPE_BREAKPOINT ||
		    pctr__breakpoints_fire())
			continue;
		r = pctr__error(ENODEV, "cannot count '%s': this machine's "
					"debug registers never fire (a VM "
					"that does not pass them through?): "
					"a breakpoint on a variable written "
					"twice counted 0; other events still "
					"work",
				set->ev[e].name);
		set->refused = e;
		if (!leave_out(set, &r))
			return r;
	}
	return 0;
}

bool
pctr__set_on_cpus(const struct pctr_set *set)
{
	return set->target == PCTR_TARGET_CPU ||
	       set->target == PCTR_TARGET_CGROUP;
}

int
pctr__set_perf_open(const struct pctr_set *set, struct perf_event_attr *attr,
		    pid_t pid, int cpu, int group_fd)
{
	if (set->target == PCTR_TARGET_CGROUP)
		return pctr__sys_perf_open(attr, set->cgroup_fd, cpu, group_fd,
					   PERF_FLAG_PID_CGROUP);
	return pctr__sys_perf_open(attr, pid, cpu, group_fd, 0);
}

/*
 * The kernel takes any descriptor and answers EBADF for one that is not a
 * directory of a hierarchy with the perf_event controller: say which it
 * is instead.
 */
static int
check_cgroup(int fd)
{
	struct statfs fs;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) < 0)
		return pctr__error(EBADF, "cgroup target: %d is no open "
					  "descriptor", fd);
	if (!S_ISDIR(st.st_mode) || fstatfs(fd, &fs) < 0 ||
	    (fs.f_type != CGROUP2_SUPER_MAGIC &&
	     fs.f_type != CGROUP_SUPER_MAGIC))
		return pctr__error(ENOTDIR, "cgroup target: descriptor %d is "
					    "not a cgroup's directory (open "
					    "one under the cgroup2 mount, "
					    "e.g. /sys/fs/cgroup/NAME)", fd);
	return 0;
}

PCTR_EXPORT int
pctr_set_open(struct pctr_set *set, const struct pctr_target *t)
{
	struct how how = { .pid = 0 };
	int *ids = NULL, nr = 0, r;

	r = check_openable(set);
	if (r < 0)
		return r;
	if (!t)
		return pctr__error(EINVAL, "NULL target");
	set->target = t->type;
	switch (t->type) {
	case PCTR_TARGET_THREAD:
		how.user_read = PCTR_ARCH_USER_READ &&
				!(set->flags & PCTR_SET_NO_USER_READ) &&
				all_hardware(set);
		set->user_read = how.user_read;
		r = push_id(&ids, &nr, &(int){ 0 }, (int)gettid());
		break;
	case PCTR_TARGET_PROCESS:
		how.pid = getpid();
		how.inherit = !(set->flags & PCTR_SET_NO_INHERIT);
		r = list_tasks(0, &ids, &nr);
		break;
	case PCTR_TARGET_PID:
		if (t->pid <= 0)
			return pctr__error(EINVAL, "bad pid %d", (int)t->pid);
		how.pid = t->pid;
		how.inherit = !(set->flags & PCTR_SET_NO_INHERIT);
		r = list_tasks(t->pid, &ids, &nr);
		break;
	case PCTR_TARGET_TID:
		if (t->pid <= 0)
			return pctr__error(EINVAL, "bad tid %d", (int)t->pid);
		how.pid = t->pid;
		r = push_id(&ids, &nr, &(int){ 0 }, (int)t->pid);
		break;
	case PCTR_TARGET_CGROUP: /* whole CPUs, counting the cgroup's tasks */
	case PCTR_TARGET_CPU:
		how.pid = -1;
		set->cgroup_fd = t->pid;
		if (t->type == PCTR_TARGET_CGROUP)
			r = check_cgroup(t->pid);
		if (r == 0 && t->nr_cpus < 0)
			r = pctr__error(EINVAL, "bad CPU count %d",
					t->nr_cpus);
		if (r == 0)
			r = list_cpus(t, &ids, &nr);
		break;
	default:
		return pctr__error(EINVAL, "unknown target type %d", t->type);
	}
	if (r < 0) {
		free(ids);
		return r;
	}
	return open_on(set, ids, nr, &how, pctr__set_on_cpus(set));
}

/*
 * A command is counted from its exec, and nothing of the library's may be
 * counted with it.  The child waits on @go until its counters exist, looks
 * its program up as execvp() does, sends 0 or the errno that stops it on
 * @report, and closes both pipes, and every other descriptor the exec
 * would close, itself before the exec: the exec closes nothing.  Its
 * closing would be counted in the command (a pipe's end is thousands of
 * kernel instructions: tests/hw/test_hw_perf.c, stat_kernel_agrees), and
 * a parent woken by it (the close of a pipe it reads) would be switched
 * in after counting began, and the switches to it and back counted too
 * (tests/sys/test_command.c, caller_is_not_woken_during_the_command).  An
 * exec that fails after the lookup (E2BIG, ETXTBSY, a format the kernel
 * cannot load) ends the child with status 127, as a shell's does.
 */
static int
may_exec(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return errno;
	if (!S_ISREG(st.st_mode) ||
	    faccessat(AT_FDCWD, path, X_OK, AT_EACCESS) < 0)
		return EACCES;
	return 0;
}

/* execvp()'s search of PATH: 0 with @buf naming the program, or an errno */
static int
command_lookup(const char *file, char *buf, size_t size)
{
	const char *dirs = getenv("PATH"), *p, *end;
	size_t len = strlen(file);
	int seen = ENOENT;

	if (!len)
		return ENOENT;
	if (strchr(file, '/')) {
		if (len >= size)
			return ENAMETOOLONG;
		memcpy(buf, file, len + 1);
		return may_exec(buf);
	}
	for (p = dirs ? dirs : "/bin:/usr/bin";; p = end + 1) {
		int n, r;

		end = strchrnul(p, ':');
		/* an empty entry is the current directory */
		n = end > p ? snprintf(buf, size, "%.*s/%s", (int)(end - p), p,
				       file)
			    : snprintf(buf, size, "./%s", file);
		r = n < (int)size ? may_exec(buf) : ENAMETOOLONG;
		if (r == 0)
			return 0;
		if (r == EACCES)
			seen = EACCES;
		if (!*end)
			return seen;
	}
}

/*
 * The descriptors the exec would close, closed before it: the exec's own
 * closing is counted in the command (/proc/self/fd read with getdents64,
 * which allocates nothing, in a child of a fork).
 */
static void
close_on_exec_now(void)
{
	char buf[2048] __attribute__((aligned(8)));
	int dir = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ssize_t n;

	if (dir < 0)
		return;
	while ((n = getdents64(dir, buf, sizeof(buf))) > 0) {
		for (ssize_t off = 0; off < n;) {
			struct dirent64 *d = (struct dirent64 *)(buf + off);
			int fd = atoi(d->d_name), fl;

			off += d->d_reclen;
			if (d->d_name[0] == '.' || fd == dir)
				continue;
			fl = fcntl(fd, F_GETFD);
			if (fl >= 0 && (fl & FD_CLOEXEC))
				close(fd);
		}
	}
	close(dir);
}

static _Noreturn void
command_child(int go, int report, char *const argv[])
{
	char path[PATH_MAX], c;
	int err;

	if (read(go, &c, 1) != 1)
		_exit(127);
	err = command_lookup(argv[0], path, sizeof(path));
	if (write(report, &err, sizeof(err)) != sizeof(err) || err)
		_exit(127);
	close_on_exec_now();
	execvp(path, argv);
	_exit(127);
}

/* the child's word on @fd: 0 when it is about to exec */
static int
command_started(int fd, const char *name)
{
	ssize_t n;
	int err;

	do
		n = read(fd, &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	if (n != sizeof(err))
		return pctr__error(ECHILD, "the process for '%s' ended before "
					   "its exec", name);
	if (err)
		return pctr__error(err, "cannot execute '%s': %s", name,
				   strerror(err));
	return 0;
}

/*
 * Each set's counters on the child @pid, which waits before its exec;
 * on failure none of them stays open.
 */
static int
open_on_child(struct pctr_set *const sets[], int nr, pid_t pid)
{
	struct how how = { .inherit = true, .enable_on_exec = true,
			   .pid = pid };
	int r = 0, i;

	for (i = 0; r == 0 && i < nr; i++) {
		int *ids = malloc(sizeof(int));

		if (!ids) {
			r = pctr__error(ENOMEM, "out of memory");
			break; /* sets[i] not tried: the ones before it closed */
		}
		ids[0] = pid;
		sets[i]->target = PCTR_TARGET_PID;
		how.inherit = !(sets[i]->flags & PCTR_SET_NO_INHERIT);
		r = open_on(sets[i], ids, 1, &how, false); /* takes ids */
	}
	/* the one unwind: the sets opened, and the one that failed */
	while (r < 0 && --i >= 0)
		close_all(sets[i]);
	return r;
}

/* the child released (its counters exist) and its word on @report */
static int
start_child(struct pctr_set *const sets[], int nr, int go[2], int report,
	    char *const argv[])
{
	int r = write(go[1], "g", 1) == 1
			? 0
			: pctr__error(errno, "cannot start the command");

	/* closed before the exec, so that the exec's close wakes nobody */
	close(go[1]);
	go[1] = -1;
	if (r == 0)
		r = command_started(report, argv[0]);
	for (int i = 0; r < 0 && i < nr; i++)
		close_all(sets[i]);
	return r;
}

static int
check_command_sets(struct pctr_set *const sets[], int nr, char *const argv[],
		   pid_t *pidp)
{
	int r = 0;

	if (!sets || nr < 1)
		return pctr__error(EINVAL, "no sets to open");
	for (int i = 0; r == 0 && i < nr; i++)
		r = check_openable(sets[i]);
	if (r == 0 && (!argv || !argv[0] || !pidp))
		r = pctr__error(EINVAL, "NULL command or pid pointer");
	return r;
}

PCTR_EXPORT int
pctr_set_open_command_sets(struct pctr_set *const sets[], int nr,
			   char *const argv[], pid_t *pidp)
{
	int go[2] = { -1, -1 }, report[2] = { -1, -1 };
	int r = check_command_sets(sets, nr, argv, pidp);
	pid_t pid = -1;

	if (r < 0)
		return r;
	if (pipe2(go, O_CLOEXEC) < 0 || pipe2(report, O_CLOEXEC) < 0) {
		r = pctr__error(errno, "pipe: %s", strerror(errno));
		goto out;
	}
	pid = fork();
	if (pid == 0) {
		close(go[1]);
		close(report[0]);
		command_child(go[0], report[1], argv);
	}
	if (pid < 0) {
		r = pctr__error(errno, "fork: %s", strerror(errno));
		goto out;
	}
	close(go[0]);
	close(report[1]);
	go[0] = report[1] = -1;
	r = open_on_child(sets, nr, pid);
	if (r == 0)
		r = start_child(sets, nr, go, report[0], argv);
out:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (report[i] >= 0)
			close(report[i]);
	}
	if (r < 0 && pid > 0)
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
	for (int i = 0; r == 0 && i < nr; i++)
		sets[i]->exec_pid = pid;
	if (r == 0)
		*pidp = pid;
	return r;
}

PCTR_EXPORT int
pctr_set_open_command(struct pctr_set *set, char *const argv[], pid_t *pidp)
{
	return pctr_set_open_command_sets(&set, 1, argv, pidp);
}

/*
 * pctr_set_open_command() returns when the command is about to exec, and
 * its counters start at the exec.  An ioctl before then would be undone by
 * the exec (a disable) or count the library's child (an enable), so it
 * waits for the exec, seen as the first kept event's enabled time (one left
 * out never runs), or for the child to end or stop before it.  Only a caller that acts on the counters
 * at once waits: one that waits for the command is not woken by it.
 */
static void
wait_exec(struct pctr_set *set)
{
	struct pctr_count now[PCTR_MAX_EVENTS];
	int e = 0;

	while (set->skip_err[e]) /* one is kept: leave_out() */
		e++;
	while (set->exec_pid > 0) {
		siginfo_t si = { .si_pid = 0 };

		if (pctr__set_read_inst(set, set->inst, now) < 0 ||
		    now[e].enabled ||
		    waitid(P_PID, (id_t)set->exec_pid, &si,
			   WEXITED | WSTOPPED | WNOHANG | WNOWAIT) < 0 ||
		    si.si_pid)
			set->exec_pid = 0;
		else
			nanosleep(&(struct timespec){ .tv_nsec = 20000 }, NULL);
	}
}

/* ---- control ------------------------------------------------------------ */

static int
ioctl_leaders(struct pctr_set *set, unsigned long req, const char *what)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (!set->open)
		return pctr__error(EBADFD, "cannot %s: the set is not open "
					   "(call pctr_set_open() first)",
				   what);
	/* a forked child's descriptors share the parent's counters */
	if (pctr__set_forked(set))
		return pctr__error(ECHILD, "cannot %s in a child: the set was "
					   "opened before fork() and its "
					   "counters are the parent's (the "
					   "child may read and free its copy)",
				   what);
	wait_exec(set);
	if (req == PERF_EVENT_IOC_DISABLE)
		pctr__overflow_stop(set);
	for (int i = 0; i < set->nr_inst; i++) {
		const struct pctr__inst *in = &set->inst[i];

		for (int g = 0; g < in->nr_groups; g++) {
			const struct pctr__group *grp = &in->groups[g];
			int r = pctr__ctr_check(&in->ctr[in->member[grp->first]]);
			unsigned long rq = req;

			if (r == 0 && req == PERF_EVENT_IOC_ENABLE)
				r = pctr__overflow_start(set, i, g, &rq);
			if (r < 0)
				return r;
			r = pctr__sys_ioctl(grp->leader_fd, rq,
					    rq == PERF_EVENT_IOC_REFRESH);
			if (r < 0)
				return pctr__error(-r, "cannot %s: %s", what,
						   strerror(-r));
		}
	}
	return 0;
}

/*
 * The enable puts a thread's own counters on the hardware before it
 * returns (the kernel schedules them in at once), so the read plan is
 * made here and the first read is already the plan's.  Reads start over:
 * pctr_set_user_read() says whether the plan is there until the next one.
 */
PCTR_EXPORT int
pctr_set_enable(struct pctr_set *set)
{
	int r = ioctl_leaders(set, PERF_EVENT_IOC_ENABLE, "enable");

	if (r == 0 && set->user_read) {
		pctr__plan_build(set);
		set->reads = 0;
	}
	return r;
}

PCTR_EXPORT int
pctr_set_disable(struct pctr_set *set)
{
	return ioctl_leaders(set, PERF_EVENT_IOC_DISABLE, "disable");
}

/* Reset is a new baseline, so enabled/running restart from zero too. */
PCTR_EXPORT int
pctr_set_reset(struct pctr_set *set)
{
	struct pctr_count now[PCTR_MAX_EVENTS];

	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (!set->open)
		return pctr__error(EBADFD, "cannot reset: the set is not open");
	for (int i = 0; i < set->nr_inst; i++) {
		struct pctr_count *base = set->inst[i].base;
		int r;

		/* counts since the old baseline move it; a failed read keeps it */
		r = pctr__set_read_inst(set, &set->inst[i], now);
		if (r < 0)
			return r;
		for (int e = 0; e < set->nr_events; e++)
			base[e] = pctr_count_add(&base[e], &now[e]);
	}
	set->has_base = true;
	if (set->plan.nr_seg) /* the plan holds the baseline: a new one */
		pctr__plan_build(set);
	return 0;
}

/*
 * Public instances are the threads or CPUs.  A set spread over CPUs
 * (spread_over_cpus()) has one internal instance per thread and CPU, a
 * thread's consecutive: public instance @i is internal [*lo, *hi).
 * Return: the number of public instances.
 */
int
pctr__inst_range(const struct pctr_set *set, int i, int *lo, int *hi)
{
	int n = 0;

	*lo = *hi = 0;
	for (int k = 0; k < set->nr_inst; k++) {
		if (set->spread && k > 0 &&
		    set->inst[k].id == set->inst[k - 1].id) {
			*hi += n - 1 == i;
			continue;
		}
		if (n++ == i) {
			*lo = k;
			*hi = k + 1;
		}
	}
	return n;
}

/* the public index of internal instance @k: pctr__inst_range()'s inverse */
int
pctr__inst_public(const struct pctr_set *set, int k)
{
	int n = 0;

	for (int i = 1; i <= k; i++)
		n += !set->spread || set->inst[i].id != set->inst[i - 1].id;
	return n;
}

PCTR_EXPORT int
pctr_set_nr_instances(const struct pctr_set *set)
{
	int lo, hi;

	if (!set)
		return pctr__error(EINVAL, "NULL set");
	return set->open ? pctr__inst_range(set, -1, &lo, &hi)
			 : pctr__error(EBADFD, "not open");
}

PCTR_EXPORT int
pctr_set_instance_id(const struct pctr_set *set, int i)
{
	int lo, hi, n;

	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (!set->open)
		return pctr__error(EBADFD, "the set is not open");
	n = pctr__inst_range(set, i, &lo, &hi);
	if (i < 0 || i >= n)
		return pctr__error(ERANGE, "instance %d out of range (0..%d)",
				   i, n - 1);
	return set->inst[lo].id;
}

PCTR_EXPORT int
pctr_set_fd(const struct pctr_set *set, int idx)
{
	if (!set)
		return pctr__error(EINVAL, "NULL set");
	if (!set->open)
		return pctr__error(EBADFD, "the set is not open");
	if (idx >= 0 && idx < set->nr_events && set->skip_err[idx])
		return pctr__error(-set->skip_err[idx], "event %d was left out: "
				   "it has no counter (pctr_set_skipped())",
				   idx);
	for (int c = 0; c < set->nr_ctr; c++)
		if (set->inst->ctr[c].event == idx &&
		    set->inst->ctr[c].part == 0)
			return set->inst->ctr[c].fd;
	return pctr__error(ERANGE, "event %d out of range", idx);
}

PCTR_EXPORT const char *
pctr_version(void)
{
#define STR2(x) #x
#define STR(x) STR2(x)
	return STR(PCTR_VERSION_MAJOR) "." STR(PCTR_VERSION_MINOR) "." STR(
		PCTR_VERSION_PATCH);
}
