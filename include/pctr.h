/* SPDX-License-Identifier: MIT */
/*
 * pctr.h - direct, cheap, honest access to CPU performance counters.
 *
 * The whole public API of libpctr.  Conventions:
 *
 *  - Every call that can fail returns an int: 0 (or a non-negative value
 *    where stated) on success, a negative errno on failure.  Constructors
 *    take an out-pointer.  Destructors accept NULL.
 *  - The library never prints, exits or aborts.  pctr_strerror() says why a
 *    call failed and what to do about it.
 *  - Objects are not thread-safe unless stated: one set is used by one
 *    thread at a time.  Different sets may be used by different threads.
 *  - No PMU is a normal state: hardware events fail with -ENODEV, software
 *    events and the timestamp counter keep working.
 *  - Structs that start with a size field (struct pctr_event,
 *    pctr_machine, pctr_summary, pctr_region_config, pctr_overflow,
 *    pctr_overflow_info, pctr_overflow_stats, pctr_sampling) can grow
 *    without breaking programs built against an older version, by one rule
 *    for all, as libpfm4's and perf_event_open(2)'s: the caller sets ->size
 *    to sizeof the struct it was built with, before passing the struct in
 *    or out.  Each struct has a published minimum, its size in version 0,
 *    PCTR_<NAME>_SIZE_VER0 (on 64-bit Linux).  A smaller size fails with
 *    -EINVAL; a larger one is accepted when the bytes past the library's
 *    own struct are all zero (fields this library does not know, at their
 *    defaults), else -E2BIG, as for one over 4096 bytes.  The library reads
 *    or writes min(size, its sizeof) bytes and never touches the bytes past
 *    the caller's size; a struct it fills gets ->size set to the number of
 *    bytes it wrote.  Fields new in a later version are added at the end,
 *    and their zero means what the earlier versions did.
 *  - <pctr.h> includes no kernel header: kernel structs grow with the
 *    kernel, so none is part of a public struct.  pctr_event_attr() fills
 *    a struct perf_event_attr of the caller's size for those who want one.
 */
#ifndef PCTR_H
#define PCTR_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PCTR_VERSION_MAJOR 0
#define PCTR_VERSION_MINOR 1
#define PCTR_VERSION_PATCH 0

/**
 * pctr_version() - the library's version string, "MAJOR.MINOR.PATCH".
 */
const char *pctr_version(void);

/* ------------------------------------------------------------------------
 * Errors
 * ------------------------------------------------------------------------ */

/**
 * pctr_strerror() - explain a negative errno returned by this library.
 * @err: a value returned by a pctr_ call (negative errno; positive accepted)
 *
 * When @err is the error of the last failed call in this thread, the text is
 * specific to that failure (the event's name, the knob and its value, the
 * closest known event names).  Otherwise it is the general explanation for
 * that errno in the context of performance counters.  The text says why and
 * what to do.  Thread-safe; the string stays valid until the next failing
 * pctr_ call in the same thread.
 */
const char *pctr_strerror(int err);

/**
 * pctr_strerror_r() - pctr_strerror()'s text, copied into @buf: a copy that
 * outlives the next failing call (to keep, log later, or hand to another
 * thread).  At most @len - 1 bytes and a NUL; a longer text is cut short.
 * Return: the length of the whole text, as snprintf() counts it (so a
 * return >= @len means it was cut), or -EINVAL for a NULL @buf with @len
 * above 0.  @len 0 only measures.
 */
int pctr_strerror_r(int err, char *buf, size_t len);

/**
 * pctr_errname() - the symbolic name of an errno ("ENODEV"), or "E?".
 */
const char *pctr_errname(int err);

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

#define PCTR_NAME_MAX 128
#define PCTR_MAX_PARTS 4

/* struct pctr_event.flags: what the modifiers asked for */
#define PCTR_EVENT_EXCLUDE_USER 0x01u /* not in user mode */
#define PCTR_EVENT_EXCLUDE_KERNEL 0x02u /* not in kernel mode */
#define PCTR_EVENT_EXCLUDE_HV 0x04u /* not in the hypervisor */
#define PCTR_EVENT_EXCLUDE_GUEST 0x08u /* not while a guest runs (H) */
#define PCTR_EVENT_EXCLUDE_HOST 0x10u /* only while a guest runs (G) */
#define PCTR_EVENT_EXCLUDE_IDLE 0x20u /* not while the CPU idles */
#define PCTR_EVENT_PINNED 0x40u /* always on a counter, or in error (D) */
#define PCTR_EVENT_EXCLUSIVE 0x80u /* alone on the PMU (libpfm4's excl) */
/*
 * Set by pctr_set_open() in the set's copy (pctr_set_event()), with
 * _EXCLUDE_KERNEL and _EXCLUDE_HV: the event asked for no privilege level,
 * the kernel refused kernel counting (perf_event_paranoid), and it is
 * counted in user mode only, as perf does.  The name stays as given;
 * perf and pctr stat show such an event as "name:u".
 */
#define PCTR_EVENT_USER_FALLBACK 0x100u
#define PCTR_EVENT_FLAGS 0x1ffu /* every flag this version knows */

/* sizeof(struct pctr_event) in version 0, on 64-bit Linux */
#define PCTR_EVENT_SIZE_VER0 256

/**
 * struct pctr_event - one parsed event: what to ask perf_event_open for.
 * @size:      set by the caller to sizeof(struct pctr_event) before
 *             pctr_event_parse() or pctr_event_from_x86(); the size rule
 *             at the top of this file
 * @type:      PMU type (perf_event_attr.type: PERF_TYPE_* or a sysfs PMU's
 *             "type")
 * @flags:     PCTR_EVENT_* flags
 * @config:    perf_event_attr.config, the PMU's event encoding
 * @config1:   perf_event_attr.config1 (extra registers, e.g. offcore)
 * @config2:   perf_event_attr.config2
 * @config3:   perf_event_attr.config3 (kernel 6.3 on)
 * @precise:   perf_event_attr.precise_ip, 0 .. 3 (the "p" modifiers)
 * @nr_parts:  how many kernel events count this one event (more than one
 *             on hybrid CPUs, where a generic event is opened once per
 *             core type and the parts are summed)
 * @part_type: PMU type of each part (extended hardware type), 0 if unused
 * @hardware:  1 if the event needs a hardware PMU
 * @bp_type:   a hardware breakpoint's access (perf_event_attr.bp_type:
 *             1 read, 2 write, 3 both, 4 execute), whose address is in
 *             @config1 and length in @config2 (bp_addr and bp_len); 0 for
 *             every other event (this was reserved, zero, in 0.1)
 * @name:      canonical name; parsing it again gives the same fields
 * @reserved:  zero: room for fields of later versions, which keep the
 *             struct's size.  pctr_set_add_event() refuses an event where
 *             they are not zero (-E2BIG: it asks for what this version
 *             does not know).
 *
 * Only fixed-width fields of the library's own: the same 256 bytes
 * whichever kernel headers a program is built with.
 */
struct pctr_event {
	size_t size;
	uint32_t type;
	uint32_t flags;
	uint64_t config;
	uint64_t config1;
	uint64_t config2;
	uint64_t config3;
	uint32_t precise;
	uint32_t nr_parts;
	uint32_t part_type[PCTR_MAX_PARTS];
	int32_t hardware;
	uint32_t bp_type;
	char name[PCTR_NAME_MAX];
	uint64_t reserved[6];
};

/**
 * pctr_event_attr() - the kernel attributes that count @ev, as
 * perf_event_open(2) takes them, for programs that open events themselves.
 * @ev:        a parsed event
 * @attr:      a struct perf_event_attr of the caller's <linux/perf_event.h>
 * @attr_size: sizeof that struct
 *
 * Fills min(@attr_size, 136) bytes of @attr (136: through config3, the
 * last field this version knows), and sets attr->size to that number;
 * bytes past it are left alone.  Only what the event asks for is set
 * (type, config..config3, exclude_*, pinned, exclusive, precise_ip); the
 * read format, sampling, inherit and disabled are the caller's choice.
 * For a hybrid event (@nr_parts > 1) this is part 0; part i puts
 * @part_type[i] in the config's upper 32 bits (PERF_PMU_TYPE_SHIFT).
 *
 * Return: 0; -EINVAL if @attr_size is under 64 (PERF_ATTR_SIZE_VER0), if
 * the event sets config2 (or config3) and @attr_size is too small to hold
 * it (72, 136), or if @ev is malformed (pctr_strerror() says which).
 * Thread-safe.
 */
int pctr_event_attr(const struct pctr_event *ev, void *attr, size_t attr_size);

/**
 * pctr_event_parse() - parse an event specification.
 * @spec: text in any of these forms, with optional ":u", ":k", ":h", ":uk"...
 *        modifiers:
 *        generic names ("cycles", "instructions", "task-clock",
 *        "L1-dcache-load-misses"), libpfm4 names ("INST_RETIRED.ANY",
 *        "amd64_fam19h_zen4::RETIRED_INSTRUCTIONS:u"), the kernel's sysfs
 *        syntax ("cpu/event=0xc0,umask=0x1,cmask=2,inv,edge/u",
 *        "armv8_pmuv3_0/inst_retired/"), raw codes ("r01c0"), and the
 *        x86 counter function of the seeds ("fn:0x4300c0", see
 *        pctr_event_from_x86()).
 * @ev:   filled on success; set @ev->size first (sizeof(struct pctr_event))
 *
 * Return: 0, -ENOENT for an unknown event (pctr_strerror() names the
 * closest known ones), -EINVAL for a malformed specification or a bad
 * @ev->size, -E2BIG for an @ev->size over the library's with non-zero
 * bytes past it.  On failure @ev is left as it was.  Thread-safe.
 */
int pctr_event_parse(const char *spec, struct pctr_event *ev);

/**
 * pctr_event_parse_list() - parse a list of events as pctr_set_add_list()
 * reads it, without a set: commas and blanks separate events (not inside
 * "pmu/.../"), braces group them as in perf ("{cycles,instructions},x").
 * @list:  the list
 * @cb:    called for each event in order, and only once the whole list has
 *         parsed: @ev is the library's struct (@ev->size says how big),
 *         @group is 0 for an event in no group, else the group's number
 *         (1 for the list's first group, 2 for the next...).  A non-zero
 *         return stops the walk and is returned.
 * @arg:   passed to @cb
 *
 * A list has no limit of its own: one longer than a set holds
 * (PCTR_MAX_EVENTS) parses, for a caller that opens several sets.
 *
 * Return: the number of events; -EINVAL (pctr_strerror() names the item),
 * -ENOENT or -E2BIG as pctr_event_parse() returns them, -ENOMEM, and then
 * @cb was never called; or @cb's non-zero return.
 * Thread-safe.
 */
int pctr_event_parse_list(const char *list,
			  int (*cb)(const struct pctr_event *ev, int group,
				    void *arg),
			  void *arg);

/**
 * pctr_event_display_name() - the name to show for @ev, as perf shows it:
 * @ev->name, or the NAME of a "pmu/...,name=NAME/" term (the first, as in
 * perf; @ev->name stays the whole specification), with ":u" ("u" after
 * "pmu/.../" without a name term) for an event counted in user mode only
 * because the kernel refused more (PCTR_EVENT_USER_FALLBACK).
 * @buf:  filled as snprintf() fills it (cut short, NUL-terminated)
 * @len:  its size; 0 with @buf NULL asks for the length
 *
 * Return: the length of the whole name (snprintf's), or -EINVAL.
 * Thread-safe.
 */
int pctr_event_display_name(const struct pctr_event *ev, char *buf,
			    size_t len);

/**
 * pctr_event_unit() - what @ev's count is counted in, and what one count
 * is worth there, as perf applies them.
 * @ev:    a parsed event
 * @unit:  filled as snprintf() fills it: "" for a plain count, "ns" for
 *         task-clock and cpu-clock, or a PMU's named event's own unit
 *         ("Joules"); 32 bytes hold any
 * @len:   its size; 0 with @unit NULL asks for @scale alone
 * @scale: set to the worth of one count in @unit: 1, or a PMU's named
 *         event's own factor (RAPL's energy-pkg: 2.3283064365386962890625e-10)
 *
 * A PMU's named event ("power/energy-pkg/", with any modifiers, or a bare
 * name found on a PMU) takes what the kernel publishes beside it,
 * events/NAME.unit and events/NAME.scale under the PMU's sysfs directory,
 * read at each call; in "pmu/a,b/", the first term that names an event.
 * A count times @scale is in @unit; pctr_count_scaled() is still a count.
 *
 * Return: 0; -EINVAL for a NULL argument, or a NAME.scale that is not a
 * decimal number above 0 (pctr_event_parse() refuses such an event
 * already), -errno when NAME.scale or NAME.unit is there but cannot be
 * read; pctr_strerror() names the file.  Thread-safe.
 */
int pctr_event_unit(const struct pctr_event *ev, char *unit, size_t len,
		    double *scale);

/*
 * The x86 counter function of the seeds: event | unit mask << 8 | flags |
 * counter mask << 24.  Named PCTR_FN_* so that they never clash with
 * <machine/pctr.h>, which owns PCTR_U, PCTR_K and friends.
 */
#define PCTR_FN_USR 0x00010000u /* count in user mode */
#define PCTR_FN_OS 0x00020000u /* count in kernel mode */
#define PCTR_FN_EDGE 0x00040000u /* edge detect */
#define PCTR_FN_EN 0x00400000u /* counter enabled */
#define PCTR_FN_INV 0x00800000u /* invert the counter mask comparison */
#define PCTR_FN_RESERVED 0x00380000u /* pin control, APIC interrupt, any */

/**
 * pctr_event_from_x86() - decode an x86 PerfEvtSel-style counter function.
 * @fn: event | umask << 8 | PCTR_FN_* flags | cmask << 24
 * @ev: filled with a PERF_TYPE_RAW event; set @ev->size first
 *
 * Return: 0; -EINVAL if reserved bits are set, or if neither PCTR_FN_USR nor
 * PCTR_FN_OS is, or as pctr_event_parse() for @ev->size.  The function is
 * decoded the same way on every host.
 */
int pctr_event_from_x86(uint32_t fn, struct pctr_event *ev);

/**
 * struct pctr_event_info - one entry of the event listing.
 * @source: "generic", "software", "cache", "sysfs:<pmu>" or "pfm:<pmu>"
 * @name:   what to pass to pctr_event_parse()
 * @desc:   a one-line description ("" when the source has none)
 */
struct pctr_event_info {
	const char *source;
	const char *name;
	const char *desc;
};

/**
 * pctr_event_list() - enumerate the events this machine offers.
 * @cb:  called once per event; a non-zero return stops the walk and is
 *       returned by pctr_event_list()
 * @arg: passed to @cb
 *
 * Generic hardware events are listed only when a PMU is present.
 * Return: 0, @cb's non-zero value, or a negative errno.
 */
int pctr_event_list(int (*cb)(const struct pctr_event_info *info, void *arg),
		    void *arg);

/**
 * pctr_tracefs_check() - whether the kernel's tracepoints can be looked
 * up here (tracefs mounted and readable), which pctr_event_list() does not
 * tell: it lists none either way.
 * Return: 0, -ENOENT (tracefs not mounted) or -EACCES (readable by root
 * only), pctr_strerror() saying what to do.
 */
int pctr_tracefs_check(void);

/* ------------------------------------------------------------------------
 * The machine
 * ------------------------------------------------------------------------ */

#define PCTR_MAX_PMUS 8
#define PCTR_MACHINE_SIZE_VER0 344 /* sizeof(struct pctr_machine) in 0.x */

/**
 * struct pctr_machine - what this machine offers, detected once.
 * @size:          sizeof(struct pctr_machine); set by the caller (the size
 *                 rule at the top of this file)
 * @has_pmu:       a hardware (core) PMU is present
 * @nr_pmus:       core PMUs found (2 on hybrid CPUs)
 * @pmu:           their sysfs names ("cpu", "cpu_core", "armv8_pmuv3_0")
 * @pmu_type:      their perf_event_attr.type values
 * @paranoid:      kernel.perf_event_paranoid, or INT32_MIN if unreadable
 * @user_access:   x86 /sys/bus/event_source/devices/cpu/rdpmc or arm64
 *                 kernel.perf_user_access; -1 if there is no such knob
 * @tsc_hz:        timestamp counter frequency
 * @tsc_invariant: 1 if the TSC ticks at a constant rate, 0 if not, -1 unknown
 * @virtualized:   1 when running under a hypervisor (cpuid), -1 unknown
 * @arch:          "x86_64", "aarch64" or the build's architecture name
 */
struct pctr_machine {
	size_t size;
	int has_pmu;
	int nr_pmus;
	char pmu[PCTR_MAX_PMUS][32];
	uint32_t pmu_type[PCTR_MAX_PMUS];
	int paranoid;
	int user_access;
	uint64_t tsc_hz;
	int tsc_invariant;
	int virtualized;
	char arch[16];
};

/**
 * pctr_machine_get() - describe this machine.  Thread-safe.
 * Return: 0, or -EINVAL/-E2BIG for a bad @m->size.
 */
int pctr_machine_get(struct pctr_machine *m);

/* ------------------------------------------------------------------------
 * Time
 * ------------------------------------------------------------------------ */

/**
 * pctr_tsc() - read the timestamp counter (x86 TSC, arm64 CNTVCT_EL0).
 * Costs a few nanoseconds, no syscall.  Thread-safe.
 */
uint64_t pctr_tsc(void);

/**
 * pctr_tsc_hz() - the timestamp counter's frequency in Hz.
 *
 * From the perf mmap page's time conversion, else CPUID leaves 0x15/0x16
 * (arm64: CNTFRQ_EL0), else a 20 ms calibration against CLOCK_MONOTONIC the
 * first time it is needed.  Thread-safe.
 */
uint64_t pctr_tsc_hz(void);

/**
 * pctr_tsc_to_ns() - convert timestamp counter ticks to nanoseconds.
 */
uint64_t pctr_tsc_to_ns(uint64_t ticks);

/* ------------------------------------------------------------------------
 * Sets: events counted together, for one target
 * ------------------------------------------------------------------------ */

struct pctr_set;

/* Most events in one set. */
#define PCTR_MAX_EVENTS 64

/* pctr_set_new() flags */
#define PCTR_SET_NO_MULTIPLEX 0x1u /* fail with -EBUSY instead of multiplexing */
#define PCTR_SET_NO_USER_READ 0x2u /* never read in user space */
/* leave out the events the target cannot count: pctr_set_skipped() */
#define PCTR_SET_SKIP_UNSUPPORTED 0x4u
/*
 * a process's or a command's threads and children made after the open are
 * not counted (perf stat -i): PCTR_TARGET_PROCESS, _PID, a command
 */
#define PCTR_SET_NO_INHERIT 0x8u

/* serialisation of user-space reads, pctr_set_serialize() */
#define PCTR_SERIAL_NONE 0 /* plain rdtsc/rdpmc */
#define PCTR_SERIAL_FENCE 1 /* lfence before the reads (arm64: isb) */
#define PCTR_SERIAL_RDTSCP 2 /* rdtscp for the timestamp (arm64: isb; x86
			      * without rdtscp in CPUID: lfence) */

/**
 * pctr_set_new() - create an empty set of events.
 * @setp:  receives the set
 * @flags: PCTR_SET_* flags
 */
int pctr_set_new(struct pctr_set **setp, unsigned int flags);

/**
 * pctr_set_free() - close every counter of the set and free it.  NULL is
 * accepted.
 *
 * Return: 0, or -EDEADLK, doing nothing, when called from a callback that
 * is reading the set's own notifications or samples (its overflow
 * callback, or pctr_set_sampling_read()'s): freeing would wait for the very
 * callback that asks.  Free the set once the callback has returned.
 * In a child forked after pctr_set_open(), only the child's descriptors
 * are closed: see "Fork" below pctr_set_fd().
 */
int pctr_set_free(struct pctr_set *set);

/**
 * pctr_set_add() - parse @spec and add the event to the set.
 *
 * Return: the event's index (0, 1, ...) or a negative errno.  Events can be
 * added only before pctr_set_open().
 */
int pctr_set_add(struct pctr_set *set, const char *spec);

/**
 * pctr_set_add_event() - add an already parsed (or hand-made) event.
 * @ev: ->size set by the caller; an older caller's smaller struct is read
 *      up to its size (the size rule at the top of this file)
 * Return: the event's index or a negative errno (-EINVAL for bad flags,
 * parts or size, -E2BIG for non-zero reserved fields or bytes past the
 * library's struct).
 */
int pctr_set_add_event(struct pctr_set *set, const struct pctr_event *ev);

/**
 * pctr_set_add_list() - add a comma- or whitespace-separated list of events
 * ("cycles,instructions:u,cpu/event=0xc0/").  Commas inside "pmu/.../"
 * belong to the event.  Braces make a group as in perf:
 * "{cycles,instructions},cache-misses" (pctr_set_group()).  Nothing is
 * added if one entry fails.
 * Return: the number of events added or a negative errno.
 */
int pctr_set_add_list(struct pctr_set *set, const char *list);

/**
 * pctr_set_group() - make events @first .. @first + @nr - 1 one kernel group
 * of their own: counted together (on the counters at the same time, or not
 * at all), never joined by other events.  Without it the library groups
 * what fits, in order.  Only before pctr_set_open(); an event is in one
 * group at most.
 * Return: 0 or a negative errno (-EINVAL for a bad range or an event
 * already grouped, -EBUSY once opened).  pctr_set_open() fails with -EBUSY
 * when a group does not fit on the counters.
 */
int pctr_set_group(struct pctr_set *set, int first, int nr);

/**
 * pctr_set_nr() - the number of events in the set.
 */
int pctr_set_nr(const struct pctr_set *set);

/**
 * pctr_set_event() - the event at @idx, or NULL.  The library's own
 * struct: ->size is sizeof(struct pctr_event) of the library, and a caller
 * built against an older version reads only the fields it knows.  After
 * pctr_set_open(), @flags shows PCTR_EVENT_USER_FALLBACK (with
 * PCTR_EVENT_EXCLUDE_KERNEL and _HV) when the kernel allowed user mode
 * only (perf_event_paranoid) and the event, which asked for no privilege
 * level, is counted in user mode; its name is left as it was.
 */
const struct pctr_event *pctr_set_event(const struct pctr_set *set, int idx);

/**
 * pctr_set_skipped() - whether event @idx was left out by the last open
 * (PCTR_SET_SKIP_UNSUPPORTED), and why.
 * @err: receives the negative errno of the refusal, 0 for an event
 *       counted; may be NULL
 * @why: receives the refusal's text as pctr_strerror() gave it then, why
 *       and what to do ("" for an event counted), cut to @len - 1 bytes
 * @len: room in @why; 0 (with @why NULL) for none
 *
 * Return: 1 if left out, 0 if counted or not opened yet, -EINVAL for a
 * NULL set or @why, -ERANGE for an @idx out of range.
 */
int pctr_set_skipped(const struct pctr_set *set, int idx, int *err,
		     char *why, size_t len);

/**
 * pctr_set_serialize() - choose how user-space reads are serialised.
 * @mode: PCTR_SERIAL_*
 */
int pctr_set_serialize(struct pctr_set *set, int mode);

/* targets */
#define PCTR_TARGET_THREAD 0 /* the calling thread (the fast path) */
#define PCTR_TARGET_PROCESS 1 /* the calling process, its threads now and later */
#define PCTR_TARGET_PID 2 /* another process and its threads now and later */
#define PCTR_TARGET_TID 3 /* one thread */
#define PCTR_TARGET_CPU 4 /* whole CPUs: every task on them */
#define PCTR_TARGET_CGROUP 5 /* whole CPUs: the tasks of one cgroup */

/**
 * struct pctr_target - what a set counts.
 * @type:    PCTR_TARGET_*
 * @pid:     the process or thread for PID and TID; for CGROUP a descriptor
 *           of the cgroup's directory (cgroup2, or cgroup v1's perf_event
 *           hierarchy), opened with O_RDONLY | O_DIRECTORY, which
 *           pctr_set_open() uses and leaves open (perf_event_open(2)'s
 *           PERF_FLAG_PID_CGROUP)
 * @nr_cpus: for CPU and CGROUP: how many entries in @cpus; 0 means every
 *           online CPU
 * @cpus:    for CPU and CGROUP: the CPU numbers
 *
 * CPU and CGROUP need what whole-CPU counting needs: perf_event_paranoid
 * 0 or less, or CAP_PERFMON (root).
 */
struct pctr_target {
	int type;
	pid_t pid;
	int nr_cpus;
	const int *cpus;
};

/**
 * pctr_set_open() - open the set's counters on a target, stopped.
 *
 * Events go into one kernel group when they fit on the PMU together, into
 * several groups otherwise (the kernel multiplexes them and every count
 * carries its enabled and running times; with PCTR_SET_NO_MULTIPLEX the
 * call fails with -EBUSY instead).  On failure nothing stays open and the
 * set can be opened again.
 *
 * With PCTR_SET_SKIP_UNSUPPORTED, an event the target cannot count here
 * (-ENODEV, -ENOENT, -EOPNOTSUPP, -EINVAL, -EACCES, -EPERM on the first
 * thread or CPU) is left out instead, as perf stat shows "<not
 * supported>": it keeps its index, reads as 0 with enabled and running
 * times 0, and pctr_set_skipped() says why.  The rest of its group stays
 * one group.  The open fails only when every event is left out, or for an
 * event set up for overflow or sampling, which is never left out.  Same
 * for pctr_set_open_command().
 *
 * Return: 0 or a negative errno: -ENODEV (no PMU for a hardware event),
 * -ENOENT (the PMU lacks the event), -EACCES (perf_event_paranoid),
 * -ESRCH (no such process), -EMFILE (out of file descriptors).
 */
int pctr_set_open(struct pctr_set *set, const struct pctr_target *target);

/**
 * pctr_set_open_command() - start a command and count it from its exec.
 * @argv: the command and its arguments (looked up in PATH)
 * @pidp: receives the child's pid; the caller waits for it with waitpid()
 *
 * The counters follow the command's threads and children.  Counting starts
 * exactly at exec: nothing of the library or the fork is counted, and the
 * caller is not woken while the command runs.  The call returns when the
 * command has been looked up (as execvp() does) and is about to exec; an
 * enable, disable or reset before the exec waits for it.  An exec that
 * fails after the lookup (E2BIG, ETXTBSY, a format the kernel cannot load)
 * ends the child with status 127.
 * Return: 0, -ENOENT/-EACCES if the command cannot be found or executed
 * (the child is then already reaped), or an error of pctr_set_open().
 */
int pctr_set_open_command(struct pctr_set *set, char *const argv[],
			  pid_t *pidp);

/**
 * pctr_set_open_command_sets() - pctr_set_open_command() for several
 * sets: one child, and every set's counters on it before its exec, so that
 * each set counts the same run from its exec (more events than one set
 * holds, as pctr stat counts them).
 * @sets: the sets, none of them open
 * @nr:   how many, 1 or more
 * @argv: the command and its arguments (looked up in PATH)
 * @pidp: receives the child's pid; the caller waits for it with waitpid()
 *
 * Return: as pctr_set_open_command().  On failure none of the sets is
 * open, and the child, if one was made, ended before its exec and was
 * reaped: the command did not run.
 */
int pctr_set_open_command_sets(struct pctr_set *const sets[], int nr,
			       char *const argv[], pid_t *pidp);

/**
 * pctr_set_enable() - start counting.
 * pctr_set_disable() - stop counting; counts are kept.
 *   Both return -ECHILD in a child forked after the open (see "Fork").
 * pctr_set_reset() - make the counts, enabled and running times start
 *                    again from zero (the counters keep running).
 */
int pctr_set_enable(struct pctr_set *set);
int pctr_set_disable(struct pctr_set *set);
int pctr_set_reset(struct pctr_set *set);

/**
 * struct pctr_count - one event's count, as in libperf.
 * @value:   raw count while the event was on a counter
 * @enabled: nanoseconds the event was enabled
 * @running: nanoseconds it was really counting (< @enabled: multiplexed)
 */
struct pctr_count {
	uint64_t value;
	uint64_t enabled;
	uint64_t running;
};

/* how a read was done, struct pctr_sample.path */
#define PCTR_PATH_USER 0x1u /* at least one count read in user space */
#define PCTR_PATH_SYSCALL 0x2u /* at least one count read with read(2) */

/**
 * struct pctr_sample - all counts of a set, and the time they were read.
 * @tsc:   timestamp counter taken with the counts
 * @nr:    number of counts filled (the set's events, in order)
 * @path:  PCTR_PATH_* bits: which read paths were taken
 * @count: the counts
 */
struct pctr_sample {
	uint64_t tsc;
	uint32_t nr;
	uint32_t path;
	struct pctr_count count[PCTR_MAX_EVENTS];
};

/**
 * pctr_set_read() - read every count of the set and the timestamp.
 *
 * A set counting the calling thread is read in user space through the perf
 * mmap page (x86 rdpmc, arm64 mrs) when the kernel allows it: no syscall,
 * no lock, no allocation.  Otherwise one read(2) per kernel group.  Counts
 * are 64-bit whatever the hardware width.
 */
int pctr_set_read(struct pctr_set *set, struct pctr_sample *s);

/**
 * pctr_set_read_values() - the cheapest read: the raw counts alone.
 * @values: receives pctr_set_nr() counts, the set's events in order
 *
 * No times, no timestamp, no scaling: for measuring code whose events are
 * not multiplexed (check once with pctr_set_read()).  In user space when
 * every counter is on the hardware (the fast path of pctr_set_read()
 * without its time arithmetic), else through pctr_set_read().
 *
 * Return: PCTR_PATH_USER or PCTR_PATH_SYSCALL (the path taken), or a
 * negative errno.
 */
int pctr_set_read_values(struct pctr_set *set, uint64_t *values);

/**
 * pctr_set_user_read() - 1 if the last read of every event could be done
 * in user space, 0 otherwise.  Before the first read since the set was
 * opened or last enabled: whether the fast path is offered for this set
 * at all.
 */
int pctr_set_user_read(const struct pctr_set *set);

/**
 * pctr_set_nr_instances() - how many targets the set was opened on (the
 * threads of a process, or the CPUs).
 * pctr_set_instance_id() - the tid or CPU number of instance @i.
 * pctr_set_read_instance() - read the counts of instance @i alone.
 */
int pctr_set_nr_instances(const struct pctr_set *set);
int pctr_set_instance_id(const struct pctr_set *set, int i);
int pctr_set_read_instance(struct pctr_set *set, int i, struct pctr_sample *s);

/**
 * pctr_set_fd() - the perf_event file descriptor of event @idx, part 0,
 * instance 0, for callers that want to go beyond this API (poll, ioctl).
 * Return: the fd or a negative errno.  The set keeps owning it: if the
 * caller closes it, the set's reads fail with -EBADF and pctr_set_free()
 * leaves whatever the number has become alone.
 */
int pctr_set_fd(const struct pctr_set *set, int idx);

/*
 * Fork.  A child forked after pctr_set_open() holds a copy of the set
 * whose descriptors share the parent's counters: the same kernel objects,
 * with the parent's state, flags and signal routing; the sample buffers
 * are not mapped in the child (the kernel does not copy perf mappings).
 * A child's copy therefore never changes the parent's counters:
 *
 *  - pctr_set_read(), _read_values(), _read_instance(): work, with
 *    read(2); they read the parent's counters (for PCTR_TARGET_PROCESS
 *    and _PID, also what the children that exited gave back).
 *  - pctr_set_reset(): works; it moves the copy's own baseline only.
 *  - pctr_set_enable(), _disable(), pctr_set_overflow_pause(), _resume(),
 *    _rearm(): -ECHILD, nothing done.
 *  - pctr_set_sampling_read(), _wait(), _pollfd(): -ECHILD.
 *  - pctr_set_overflow_stats(): the copy's figures at the fork.
 *  - pctr_overflow_decode(): 0; the child receives no notification of
 *    the parent's counters.  (With PCTR_TARGET_PROCESS, the child's own
 *    overflows are counted on inherited counters and notified to the
 *    parent, as every thread created after the open.)
 *  - pctr_set_free(): close the child's descriptors
 *    and free the copy; no ioctl or fcntl, and no munmap of addresses the
 *    child may use for something else since.
 *
 * A child of fork() is seen through pthread_atfork(); one made without
 * its handlers (_Fork(), syscall(SYS_fork), clone() without CLONE_VM) by
 * its pid, which the calls above that act on the counters or the buffers,
 * and the free, compare with the opener's (getpid(), a system call).  The
 * user-space read asks nothing: in such a child, a set read in user space
 * (pctr_set_user_read(), hardware counters) must not be read, since its
 * pages are not mapped there.
 */

/**
 * pctr_count_scaled() - the count estimated for the whole enabled time:
 * value * enabled / running; 0 if the event never ran.  How far off it
 * may be: pctr_scale_bounds(), from successive reads.
 */
double pctr_count_scaled(const struct pctr_count *c);

/**
 * pctr_count_delta() - @after minus @before, field by field.
 */
struct pctr_count pctr_count_delta(const struct pctr_count *after,
				   const struct pctr_count *before);

/**
 * pctr_count_add() - @a plus @b, field by field: the count of two threads,
 * CPUs or sets together (all zero if either pointer is NULL).
 */
struct pctr_count pctr_count_add(const struct pctr_count *a,
				 const struct pctr_count *b);

/**
 * struct pctr_scale - the interval around a scaled count, from successive
 * reads of the event (src/scale.c, pctr_set(3) "MULTIPLEXING").  Zero it
 * before the first pctr_scale_add(); it holds no resources.  Fixed size
 * (like struct pctr_count): it has no size field and never grows.
 * @last:     the last count added
 * @rate_min: the lowest rate (events per running ns) of a slice between
 *            two reads in which the event ran
 * @rate_max: the highest such rate
 * @nr_ran:   the slices in which the event ran
 */
struct pctr_scale {
	struct pctr_count last;
	double rate_min;
	double rate_max;
	uint64_t nr_ran;
};

/**
 * pctr_scale_add() - add a read of the event: its count since it was
 * enabled (or a pctr_count_delta() from one base read), not behind the
 * last one added.  The slice since the last read gives one rate.
 * Return: 0, or -EINVAL (a count behind the last one, running time past
 * enabled time: nothing is added).
 *
 * pctr_scale_bounds() - *@low and *@high: the count over the whole enabled
 * time, assuming the event's rate while it was off the counters lay
 * within the lowest and highest rates of the slices in which it ran:
 * value + (enabled - running) * rate_min (rate_max).  They contain
 * pctr_count_scaled() and are @value itself for a count that was never
 * multiplexed.
 * Return: 0, or -ENODATA with both NAN: the event never ran, or ran in
 * fewer than two slices (one rate says nothing about the error).
 */
int pctr_scale_add(struct pctr_scale *s, const struct pctr_count *c);
int pctr_scale_bounds(const struct pctr_scale *s, double *low, double *high);

/* ---- statistics and regions (src/stats.c, src/region.c) ---------------- */

/*
 * Statistics over intervals, in the manner of pmc_lib's pmc_accumulate():
 * read, do something, read, add the difference.  For every event, and for
 * the elapsed time in timestamp counter ticks, a struct pctr_stats keeps
 * integer sums from which the number of intervals, total, minimum, mean,
 * maximum and standard deviation are derived, optionally percentiles, and
 * events per second, events per cycle and ratios of pairs of events as
 * ratios of sums (delta-method spread).  See pctr_stats(3).
 */
struct pctr_stats;

#define PCTR_STATS_TIME (-1) /* index of the elapsed time, in TSC ticks */
#define PCTR_STATS_RATIO_MAX 8 /* events with pair ratios */

#define PCTR_SUMMARY_SIZE_VER0 56 /* sizeof(struct pctr_summary) in 0.x */
#define PCTR_SUMMARY_SIZE_VER1 80 /* + std_error, ci95_low, ci95_high */

/* report formats, pctr_stats_write() and pctr_region_write() */
#define PCTR_REPORT_TEXT 0
#define PCTR_REPORT_CSV 1
#define PCTR_REPORT_JSON 2

/**
 * struct pctr_summary - statistics of one series of intervals.
 * @size:   sizeof(struct pctr_summary); set by the caller, who gets
 *          min(size, the library's) bytes filled
 * @n:      number of intervals in the series
 * @total:  sum of the series; for a ratio series, the ratio of the totals
 * @min:    smallest value
 * @mean:   arithmetic mean
 * @max:    largest value
 * @stddev: sample standard deviation (divisor n - 1); 0 when n < 2
 * @std_error: standard error of the mean, stddev / sqrt(n); NaN when n < 2
 * @ci95_low:  the 95% confidence interval of the mean by Student's t,
 * @ci95_high: mean -/+ t(0.975, n - 1) * std_error; NaN when n < 2, where
 *             one value says nothing of the spread (pctr_stats(3))
 *
 * With n = 0 every figure but the last three is 0.  A caller built with
 * PCTR_SUMMARY_SIZE_VER0 gets the first seven members, as before.
 */
struct pctr_summary {
	size_t size;
	uint64_t n;
	double total;
	double min;
	double mean;
	double max;
	double stddev;
	double std_error;
	double ci95_low;
	double ci95_high;
};

/**
 * pctr_values_summary() - the statistics of @n values, as pctr_stats_get()
 * gives them for intervals: @out->total is their sum.  Values that are not
 * finite (NaN: a rate over no time) are left out of every figure and of n.
 * Return: 0, -EINVAL (NULL @x with @n > 0, NULL @out, bad @out->size).
 */
int pctr_values_summary(const double *x, size_t n, struct pctr_summary *out);

/**
 * pctr_values_percentile() - the @p-th percentile (0 <= @p <= 100) of the
 * finite ones of @n values, interpolated linearly between the closest
 * ranks as pctr_stats_percentile() does.  Return: 0, -ENODATA (no finite
 * value), -EINVAL, -ENOMEM (it sorts a copy).
 */
int pctr_values_percentile(const double *x, size_t n, double p, double *out);

/**
 * pctr_stats_new() - create empty statistics for @nr_events events.
 * @stp:       receives the object
 * @nr_events: 1 .. PCTR_MAX_EVENTS
 * @keep:      intervals kept for percentiles (0: none).  The first @keep
 *             intervals are kept, later ones replace them at random
 *             (reservoir sampling), so percentiles are exact up to @keep
 *             intervals and estimated from a uniform sample beyond.
 *
 * Events are named "event 0", "event 1"... until pctr_stats_name_set().
 * Memory is allocated here only: adding intervals never allocates.
 * Return: 0, -EINVAL, -ENOMEM.
 */
int pctr_stats_new(struct pctr_stats **stp, int nr_events, unsigned int keep);

/**
 * pctr_stats_new_for_set() - pctr_stats_new() for the events of @set, named as
 * in the set; a "cycles" event of the set becomes the cycle basis.
 */
int pctr_stats_new_for_set(struct pctr_stats **stp, const struct pctr_set *set,
		       unsigned int keep);

/**
 * pctr_stats_free() - free the statistics.  NULL is accepted.
 */
void pctr_stats_free(struct pctr_stats *st);

/**
 * pctr_stats_name_set() - name event @idx in reports (copied).
 */
int pctr_stats_name_set(struct pctr_stats *st, int idx, const char *name);

/**
 * pctr_stats_cycles_set() - use event @idx as the cycles of "events per
 * cycle"; PCTR_STATS_TIME uses timestamp counter ticks (the default, as
 * pmc_lib does).  Only before the first interval.
 */
int pctr_stats_cycles_set(struct pctr_stats *st, int idx);

/**
 * pctr_stats_nr() - the number of events.
 * pctr_stats_name() - the name of event @idx ("tsc_ticks" for
 * PCTR_STATS_TIME), or NULL.
 * pctr_stats_cycles() - the cycles basis: an event index or PCTR_STATS_TIME.
 */
int pctr_stats_nr(const struct pctr_stats *st);
const char *pctr_stats_name(const struct pctr_stats *st, int idx);
int pctr_stats_cycles(const struct pctr_stats *st);

/**
 * pctr_stats_add() - add the interval from @t0 to @t1: counter += t1 - t0.
 *
 * Each count is scaled for multiplexing over the interval (its enabled and
 * running time differences), rounded, and the overhead found by
 * pctr_stats_calibrate() or given with pctr_stats_overhead_set() is taken
 * off, clamped at zero.  The samples must hold the statistics' number of
 * events.  Return: 0, -EINVAL (NULL, wrong number of events, @t1 before
 * @t0).
 */
int pctr_stats_add(struct pctr_stats *st, const struct pctr_sample *t1,
		   const struct pctr_sample *t0);

/**
 * pctr_stats_add_values() - add one interval given as net values: @ticks
 * of elapsed time and @values[i] for each event.  No overhead is taken off.
 */
int pctr_stats_add_values(struct pctr_stats *st, uint64_t ticks,
			  const uint64_t *values);

/**
 * pctr_stats_merge() - add every interval of @src to @dst, as if they had
 * been added to @dst one by one (exactly: the integer sums add).  Both
 * must have the same number of events.  The overhead of @dst becomes the
 * smaller of the two, event by event.
 */
int pctr_stats_merge(struct pctr_stats *dst, const struct pctr_stats *src);

/**
 * pctr_stats_reset() - forget every interval; names, cycle basis and
 * overhead stay.
 */
int pctr_stats_reset(struct pctr_stats *st);

/**
 * pctr_stats_get() - statistics of event @idx, or of the elapsed ticks for
 * PCTR_STATS_TIME.
 */
int pctr_stats_get(const struct pctr_stats *st, int idx,
		   struct pctr_summary *out);

/**
 * pctr_stats_per_second() - event @idx per second (ticks converted with
 * pctr_tsc_hz()): mean and total are the total count over the total time
 * (ratio of sums), stddev the delta method's per interval; min and max
 * those of single intervals (a region's: NaN unless every one was kept).
 */
int pctr_stats_per_second(const struct pctr_stats *st, int idx,
			  struct pctr_summary *out);

/**
 * pctr_stats_per_cycle() - event @idx per cycle (see
 * pctr_stats_cycles_set()), as pctr_stats_per_second().
 */
int pctr_stats_per_cycle(const struct pctr_stats *st, int idx,
			 struct pctr_summary *out);

/**
 * pctr_stats_ratio() - event @num over event @den, both below
 * PCTR_STATS_RATIO_MAX, as pctr_stats_per_second(); single intervals where
 * @den counted 0 are left out of min and max.  Return: 0, -ERANGE.
 */
int pctr_stats_ratio(const struct pctr_stats *st, int num, int den,
		     struct pctr_summary *out);

/**
 * pctr_stats_percentile() - the @p-th percentile (0 <= @p <= 100) of event
 * @idx or PCTR_STATS_TIME over the kept intervals, interpolated linearly
 * between the closest ranks.  Return: 0, -ENODATA (nothing kept),
 * -EINVAL.  Allocates a scratch copy (-ENOMEM).
 */
int pctr_stats_percentile(const struct pctr_stats *st, int idx, double p,
			  double *out);

/**
 * pctr_stats_calibrate() - the -Clean method of pmc_lib: read @set twice in
 * a row @n times, and keep the smallest difference of each event and of
 * the ticks as the overhead that pctr_stats_add() takes off later
 * intervals, and the differences' standard deviation as its spread
 * (pctr_stats_overhead_spread()).  @set must be open and enabled, with the
 * statistics' events.
 *
 * The overhead is that of the pairs of calls made here.  A pair of reads
 * at another call site can differ by the few instructions the compiler
 * puts between the two calls there (in the arm64 guest, one instruction
 * more at a test's call site): exact to the instruction for the regions,
 * which calibrate with the very calls they measure with, an estimate for
 * pairs of your own.
 */
int pctr_stats_calibrate(struct pctr_stats *st, struct pctr_set *set,
			 unsigned int n);

/**
 * pctr_stats_overhead_set() - set the overhead per interval: @ticks and one
 * value per event (NULL: 0 for every event).
 * pctr_stats_overhead() - the overhead of event @idx or PCTR_STATS_TIME.
 */
int pctr_stats_overhead_set(struct pctr_stats *st, uint64_t ticks,
			    const uint64_t *values);
int pctr_stats_overhead(const struct pctr_stats *st, int idx, uint64_t *out);

/**
 * pctr_stats_overhead_spread_set() - set how much the overhead spreads: the
 * standard deviation of what one measurement costs, @ticks and one per
 * event (NULL: 0 for every event).  pctr_stats_get() adds it in quadrature
 * to the mean's standard error, and widens the 95% interval to match.
 * pctr_stats_overhead_spread() - that of event @idx or PCTR_STATS_TIME.
 * Return: 0, -EINVAL (NULL, a negative or not finite spread: nothing set).
 */
int pctr_stats_overhead_spread_set(struct pctr_stats *st, double ticks,
				   const double *values);
int pctr_stats_overhead_spread(const struct pctr_stats *st, int idx,
			       double *out);

/**
 * pctr_stats_disturbed() - how many intervals of a region were found
 * disturbed (a context switch or migration, the kernel rewriting a
 * counter's page, an event off its counter for a while, a kernel-only
 * event counting: pctr_region(3)), into @out.
 * Return: 0 if they are in the figures ($PCTR_REGION_DISTURBED=keep), 1 if
 * they were left out (drop), -ENODATA for statistics not gathered by
 * regions, -EINVAL.
 */
int pctr_stats_disturbed(const struct pctr_stats *st, uint64_t *out);

/**
 * pctr_stats_add_diff() - the differencing method: run @body @n times
 * between two reads, then 2 * @n times between two reads, and add the
 * difference (the cost of @n repetitions, clamped at zero) as one interval.
 * The reads' own cost cancels without being assumed constant; no overhead
 * is taken off.  @body runs @n more times first, to warm up.
 */
int pctr_stats_add_diff(struct pctr_stats *st, struct pctr_set *set,
			void (*body)(void *arg), void *arg, unsigned long n);

/**
 * pctr_stats_write() - write a report of the statistics to @f.
 * @format: PCTR_REPORT_TEXT (laid out as pmc_lib's), PCTR_REPORT_CSV or
 *          PCTR_REPORT_JSON (schema "pctr-region/1", doc/json-schema.md)
 * @title:  the name of the measured code, or NULL
 * Return: 0, -EINVAL, -EIO if writing failed.
 */
int pctr_stats_write(const struct pctr_stats *st, FILE *f, int format,
		     const char *title);

/*
 * Regions: named, nestable, per-thread code regions.  Each thread counts
 * itself with its own set (opened at its first region), keeps its own
 * statistics per region and merges them into the process's when it exits.
 * Off until pctr_region_init() is called or $PCTR_EVENTS is set; when off,
 * begin and end return at once.  See pctr_region(3).
 */

#define PCTR_REGION_MAX_DEPTH 32 /* regions open at once in one thread */
#define PCTR_REGION_CALIBRATE 1000 /* default empty regions per thread */
#define PCTR_REGION_CONFIG_SIZE_VER0 24 /* sizeof(pctr_region_config), 0.x */
#define PCTR_REGION_CONFIG_SIZE_VER1 32 /* + disturbed */

/* struct pctr_region_config.disturbed */
#define PCTR_REGION_DISTURBED_KEEP 0 /* disturbed intervals in the figures */
#define PCTR_REGION_DISTURBED_DROP 1 /* counted, but left out */

/**
 * struct pctr_region_config - how regions are measured.
 * @size:      sizeof(struct pctr_region_config); set by the caller (a
 *             field past an older caller's size takes its default)
 * @events:    events to count; NULL: "task-clock".  $PCTR_EVENTS, when
 *             set, replaces it.
 * @keep:      intervals kept per region and thread for percentiles
 *             (their memory is written at a thread's first begin of the
 *             region, so that the regions around it count none of it)
 * @calibrate: empty regions measured when a thread starts, whose minimum
 *             is taken off every later interval of that thread; 0 for no
 *             overhead subtraction
 * @disturbed: PCTR_REGION_DISTURBED_KEEP or _DROP: whether intervals found
 *             disturbed stay in the statistics (they are counted either
 *             way); $PCTR_REGION_DISTURBED ("keep" or "drop") replaces it
 */
struct pctr_region_config {
	size_t size;
	const char *events;
	unsigned int keep;
	unsigned int calibrate;
	unsigned int disturbed;
};

/**
 * pctr_region_init() - configure and switch on region measurement.
 * @cfg: NULL for the defaults (events "task-clock", keep 0, calibrate
 *       PCTR_REGION_CALIBRATE)
 *
 * The events are parsed here; each thread opens them at its first region.
 * Call it before any thread enters a region.  Also registers the
 * $PCTR_REPORT report at exit.  Return: 0, -EALREADY once a region has
 * been entered, or an error of pctr_set_add_list().  Thread-safe.
 */
int pctr_region_init(const struct pctr_region_config *cfg);

/**
 * pctr_region_enable() - switch measurement on (1) or off (0) without
 * forgetting anything.  Switch only while no thread is inside a region.
 * Return: 0, or -EBADFD if pctr_region_init() never succeeded.
 */
int pctr_region_enable(int on);

/**
 * pctr_region_id() - the identifier of the region called @name, created on
 * first use.  Thread-safe (takes a lock): call it once, then use the _id
 * calls in hot code.  Return: the id (>= 0) or a negative errno.
 */
int pctr_region_id(const char *name);

/**
 * pctr_region_begin() - enter region @name in the calling thread.
 * pctr_region_end() - leave it; regions must end innermost first.
 *
 * The thread's first region opens its counters and calibrates; a region's
 * first use in a thread allocates its statistics; later calls allocate
 * nothing, take no lock and, when the counters can be read in user space,
 * make no syscall.  @name is looked up by address first: pass string
 * constants, or use the _id variants.  Return: 0 (also when measurement is
 * off), -EINVAL (ending a region that is not the innermost one open),
 * -E2BIG (more than PCTR_REGION_MAX_DEPTH open), or an error from opening
 * or reading the counters.
 */
int pctr_region_begin(const char *name);
int pctr_region_end(const char *name);
int pctr_region_begin_id(int id);
int pctr_region_end_id(int id);

/**
 * pctr_region_flush() - merge the calling thread's statistics into the
 * process's now, as its exit would, and start it afresh.  Return: 0,
 * -EBUSY if the thread is inside a region.
 */
int pctr_region_flush(void);

/**
 * pctr_region_stats() - a copy of the statistics of region @name, merged
 * over the threads that have exited or flushed, and the calling thread.
 * The caller frees it with pctr_stats_free().  Return: 0, -ENOENT.
 */
int pctr_region_stats(const char *name, struct pctr_stats **stp);

/**
 * pctr_region_write() - write the report of every region (merged as in
 * pctr_region_stats()) to @f in a PCTR_REPORT_* format.
 */
int pctr_region_write(FILE *f, int format);

/**
 * pctr_region_write_to() - write the report to @dest, given as in
 * $PCTR_REPORT: "text:FILE", "csv:FILE", "json:FILE", "-" or "stderr"
 * (text to standard error); "%p" in FILE becomes the process id and a FILE
 * of "-" is standard error.
 */
int pctr_region_write_to(const char *dest);

/**
 * pctr_region_report() - choose the report written at exit, in place of
 * $PCTR_REPORT: @dest as pctr_region_write_to() takes it, or NULL (or ""
 * or "none") for none.  A layer that writes a report of its own instead (the MPI
 * library, pctr_mpi(3), gathers every rank's regions into one) cancels the
 * process's.  Return: 0, -EINVAL (a destination of no known form),
 * -ENAMETOOLONG.  Thread-safe.
 */
int pctr_region_report(const char *dest);

/* ---- statistics across processes (src/stats_pack.c, src/region.c) ------ */

/*
 * What the ranks of a parallel job need to gather their statistics in one
 * place: a byte form of struct pctr_stats that another process, on another
 * host, rebuilds exactly (pctr_stats_merge() then reduces them), and the
 * regions of this process, walked one by one.  See pctr_stats(3) and
 * pctr_region(3).
 */

#define PCTR_STATS_PACK_VERSION 2 /* the layout pctr_stats_pack() writes */

/**
 * pctr_stats_pack() - write @st into @buf as a pack: a fixed little-endian
 * layout ("PCTRSTAT", the version, the length, then every figure; doubles
 * as IEEE-754 bit patterns, counts as uint64), the same bytes on every
 * host.  Names, cycle basis, overhead and the kept intervals travel too.
 * @buf: NULL to learn the size only
 * @len: bytes available at @buf
 *
 * The size depends only on the number of events and of intervals kept for
 * percentiles (none when the statistics were made with keep 0).
 * Return: the pack's size in bytes, -EINVAL, -ENOSPC if @len is smaller.
 */
ssize_t pctr_stats_pack(const struct pctr_stats *st, void *buf, size_t len);

/**
 * pctr_stats_unpack() - new statistics from a pack of pctr_stats_pack(),
 * made by this or any other host.  @len must be the pack's exact length.
 * Nothing is read past @buf + @len; a pack that is truncated, has another
 * magic, version or length, or figures that disagree (a minimum above its
 * maximum, a non-finite mean) is refused.  The caller frees the result with
 * pctr_stats_free().  Return: 0, -EINVAL, -ENOMEM.
 */
int pctr_stats_unpack(struct pctr_stats **stp, const void *buf, size_t len);

/**
 * struct pctr_regions - the regions of this process at one moment: each
 * region with intervals, its name, its statistics merged over threads as
 * pctr_region_stats() gives them, and how many threads entered it; the
 * regions of the report pctr_region_write() would write, in the same order.
 */
struct pctr_regions;

/**
 * pctr_regions_get() - take the snapshot.  Thread-safe.  Return: 0,
 * -ENOMEM.  With no region measured yet, an empty snapshot.
 * pctr_regions_free() - free it; NULL is accepted.
 */
int pctr_regions_get(struct pctr_regions **rp);
void pctr_regions_free(struct pctr_regions *r);

/**
 * pctr_regions_nr() - the number of regions in the snapshot.
 * pctr_regions_name() - the name of region @i (0 .. nr - 1), or NULL.
 * pctr_regions_stats() - its statistics (owned by the snapshot), or NULL.
 * pctr_regions_threads() - the threads that entered it, or -ERANGE.
 */
int pctr_regions_nr(const struct pctr_regions *r);
const char *pctr_regions_name(const struct pctr_regions *r, int i);
const struct pctr_stats *pctr_regions_stats(const struct pctr_regions *r,
					    int i);
int pctr_regions_threads(const struct pctr_regions *r, int i);

/* ---- overflow and sampling (src/overflow.c, src/sampling.c) ------------ */

/*
 * siginfo_t is POSIX, not ISO C: <signal.h> of a program built with
 * -std=c99 or -std=c11 and no feature macro has no siginfo_t, and no
 * SA_SIGINFO either.  Such a program cannot have a handler that receives
 * a siginfo_t, so pctr_overflow_decode() is declared only where both
 * exist; everything else in this header is plain ISO C.
 */
#include <signal.h>

/*
 * Overflow notification: an event of a set can notify the program every
 * @period events.  The kernel raises the notification in the thread whose
 * counter overflowed when that counter is its own (PCTR_TARGET_THREAD, the
 * threads present when a PCTR_TARGET_PROCESS set is opened, a
 * PCTR_TARGET_TID of this process).  Threads created later count on
 * counters inherited from their creator, whose notifications the kernel
 * sends to the creator's thread: every notification therefore carries the
 * thread that overflowed (@tid) read from the kernel's sample record, never
 * guessed from which thread took the signal.
 */

/**
 * struct pctr_overflow_info - one overflow.
 * @size:     sizeof(struct pctr_overflow_info): the library's, in what it
 *            passes to the callback; the caller's, in the first element
 *            of pctr_overflow_decode()'s array
 * @event:    index of the event that overflowed
 * @instance: the set's instance whose counter overflowed
 * @tid:      the thread that was running when the counter overflowed
 * @ip:       its program counter at the overflow
 * @period:   events counted since its previous overflow
 * @count:    the event's count on that thread when it overflowed (the sum
 *            of the periods it went through; with a fixed period, @seq
 *            times the period)
 * @time:     CLOCK_MONOTONIC-based time of the overflow in ns (perf clock)
 * @seq:      1 for the first notification of @event on @tid, then 2, ...
 *
 * @seq and @count are kept for up to 256 threads that exist at once per
 * counter (0 beyond); a thread's slot is given back when it exits (the
 * kernel's exit record), and a thread that reuses an exited thread's tid
 * starts again at 1.
 */
#define PCTR_OVERFLOW_INFO_SIZE_VER0 64 /* sizeof(pctr_overflow_info), 0.x */

struct pctr_overflow_info {
	size_t size;
	int event;
	int instance;
	pid_t tid;
	uint64_t ip;
	uint64_t period;
	uint64_t count;
	uint64_t time;
	uint64_t seq;
};

/**
 * typedef pctr_overflow_fn - called by the library's signal handler.
 * @info: the overflow; valid during the call only
 * @arg:  &struct pctr_overflow.arg
 *
 * Runs inside a signal handler: it may call async-signal-safe functions
 * only (signal-safety(7): write(2), not printf or malloc), must not call
 * pctr_ functions other than pctr_set_overflow_rearm() and
 * pctr_set_overflow_restart(), and must save and restore errno if it changes
 * it.  A set cannot be freed from its own callback: pctr_set_free()
 * returns -EDEADLK there, at once.
 */
typedef void (*pctr_overflow_fn)(const struct pctr_overflow_info *info,
				 void *arg);

/* struct pctr_overflow.flags */
#define PCTR_OVF_ONESHOT 0x1u /* stop the event after one notification */
#define PCTR_OVF_FREQ 0x2u /* @period is a rate in Hz, not a count */

/**
 * struct pctr_overflow - how one event notifies its overflows.
 * @size:   sizeof(struct pctr_overflow), set by the caller
 * @period: events between notifications, 1 .. 2^63 - 1; with PCTR_OVF_FREQ
 *          notifications per second, up to kernel.perf_event_max_sample_rate
 * @preset: instead of @period, the libcpc way: the counter starts at
 *          @preset and overflows when it wraps at 2^64, so the period is
 *          2^64 - @preset (UINT64_MAX - 999 gives 1000).  Set one of the two.
 * @flags:  PCTR_OVF_*.  With PCTR_OVF_ONESHOT the event stops counting at
 *          its first overflow (libcpc semantics) until pctr_set_overflow_rearm();
 *          without it notifications keep coming, every @period events.
 *          ONESHOT needs counters of their own (PCTR_TARGET_THREAD or
 *          _TID): pctr_set_open() refuses inherited ones with -EOPNOTSUPP.
 * @signo:  the signal that carries the notifications; 0 means SIGIO
 * @fn:     called by the library's handler, which the library installs for
 *          @signo at pctr_set_open().  NULL: the program installs its own
 *          SA_SIGINFO handler for @signo and calls pctr_overflow_decode().
 * @arg:    passed to @fn
 */
#define PCTR_OVERFLOW_SIZE_VER0 48 /* sizeof(struct pctr_overflow) in 0.x */

struct pctr_overflow {
	size_t size;
	uint64_t period;
	uint64_t preset;
	unsigned int flags;
	int signo;
	pctr_overflow_fn fn;
	void *arg;
};

/**
 * pctr_set_overflow() - notify the overflows of event @idx.
 * @set: a set not yet open
 * @idx: the event's index
 * @ovf: the period and the way to be notified
 *
 * Takes effect at pctr_set_open(), which fails with -EOPNOTSUPP for targets
 * outside this process (use pctr_set_sampling() for those).  Counts stay
 * exact: the counter keeps counting across notifications.  The setting
 * survives a pctr_set_open() that fails, so the set can be opened again.
 *
 * Return: 0; -EINVAL for a bad period, flags or signal; -EOPNOTSUPP (the
 * same value as ENOTSUP) when this machine cannot interrupt on the
 * overflow of this event; -EBUSY if the event is already sampled.
 */
int pctr_set_overflow(struct pctr_set *set, int idx,
		      const struct pctr_overflow *ovf);

/**
 * pctr_overflow_decode() - the overflows behind a signal, for programs
 * that handle the signal themselves (&struct pctr_overflow.fn NULL).
 * @si:   the siginfo_t the handler received
 * @info: filled with up to @max overflows.  The caller sets @info[0].size
 *        to sizeof(struct pctr_overflow_info): every element has that
 *        size, and min(size, the library's) bytes of each are filled.
 * @max:  room in @info
 *
 * Async-signal-safe; call it from the handler.  One signal can stand for
 * several overflows (the kernel merges signals that are already pending):
 * when it returns @max, call it again.
 *
 * Return: the number of overflows filled, 0 if the signal does not come
 * from an open set's counter, or -EINVAL (also for an @info[0].size under
 * PCTR_OVERFLOW_INFO_SIZE_VER0) or -E2BIG (a larger @info[0].size with
 * non-zero bytes past the library's struct).  Being async-signal-safe, it
 * records no detail for pctr_strerror().
 */
#ifdef SA_SIGINFO
int pctr_overflow_decode(const siginfo_t *si, struct pctr_overflow_info *info,
			 int max);
#endif

/**
 * pctr_set_overflow_pause() - stop notifications of event @idx (-1: every
 * event with overflow notification); counting goes on.
 * pctr_set_overflow_resume() - notify again.
 *
 * The overflows that fall while paused are not notified; they are counted
 * in pctr_set_overflow_stats()' @lost.  -ECHILD in a child forked after the
 * open (the notifications are the parent's).
 */
int pctr_set_overflow_pause(struct pctr_set *set, int idx);
int pctr_set_overflow_resume(struct pctr_set *set, int idx);

/**
 * pctr_set_overflow_rearm() - let a PCTR_OVF_ONESHOT event count and notify
 * once more.  Async-signal-safe: may be called from the callback.
 * -ECHILD in a child forked after the open.
 */
int pctr_set_overflow_rearm(struct pctr_set *set, int idx);

/* pctr_set_overflow_restart() @flags */
#define PCTR_OVF_STOP 0x1u /* stop every counter and return: step 1 alone */

/**
 * pctr_set_overflow_restart() - stop the set, zero its counts, give every
 * notified event a full period, re-arm the PCTR_OVF_ONESHOT events that
 * notified since the last restart (the others are still armed) and start
 * counting.  Mixing it with pctr_set_overflow_rearm() on one set is not
 * supported.
 * @set:    an open set with overflow notification
 * @period: NULL, or pctr_set_nr() new periods (in each event's own unit;
 *          0 keeps that event's period; ignored for events not notified)
 * @flags:  0, or PCTR_OVF_STOP to stop every counter and do nothing else
 *          (counts are kept: the freeze of libcpc's overflow)
 *
 * Async-signal-safe: system calls only, no lock, no allocation, and the
 * error is returned without setting pctr_strerror()'s text; the overflow
 * callback may call it.  The enabled and running times are not reset.
 * Return: 0, -EINVAL (bad set, flags or period), -EBADFD (not open), or
 * the errno of a failed ioctl.
 */
int pctr_set_overflow_restart(struct pctr_set *set, const uint64_t *period,
			  unsigned int flags);

/**
 * struct pctr_overflow_stats - what became of the overflows of an event.
 * @size:     sizeof(struct pctr_overflow_stats), set by the caller, who
 *            gets min(size, the library's) bytes filled
 * @notified: overflows handed to the program (callback, decode, or read
 *            from the sample buffer)
 * @lost:     overflows the kernel could not record (full buffer, paused):
 *            its count (Linux 6.0), else its notes in the buffers
 */
#define PCTR_OVERFLOW_STATS_SIZE_VER0 24 /* sizeof(struct pctr_overflow_stats) */

struct pctr_overflow_stats {
	size_t size;
	uint64_t notified;
	uint64_t lost;
};

/**
 * pctr_set_overflow_stats() - counts of notified and lost overflows of event
 * @idx (-1: all events), for overflow notification and sampling alike.
 */
int pctr_set_overflow_stats(const struct pctr_set *set, int idx,
			struct pctr_overflow_stats *st);

/* struct pctr_sampling.flags: what each sample holds besides the IP */
#define PCTR_SAMPLE_TID 0x1u /* process and thread ids */
#define PCTR_SAMPLE_TIME 0x2u /* timestamp */
#define PCTR_SAMPLE_CALLCHAIN 0x4u /* user call chain */
#define PCTR_SAMPLE_FREQ 0x8u /* @period is a rate in Hz */
/*
 * Also deliver the sampled tasks' memory maps, names, forks and exits
 * (records of kind PCTR_REC_MMAP, _COMM, _FORK, _EXIT) among the samples,
 * each task's in its own order: enough to name every sample of every
 * process of an inherited target, mappings that came and went between two
 * reads too.
 */
#define PCTR_SAMPLE_SIDEBAND 0x10u
/*
 * With PCTR_SAMPLE_CALLCHAIN: the kernel part of the chain too.  Alone
 * (new in 0.2): the kernel part only, for a program that unwinds the user
 * part itself from PCTR_SAMPLE_USER_STACK.
 */
#define PCTR_SAMPLE_CALLCHAIN_KERNEL 0x20u
/*
 * The user-mode registers and a copy of the user stack at the sample (new
 * in 0.2), for unwinding code built without frame pointers after the
 * fact, as perf record --call-graph dwarf does: @regs_abi, @regs_mask,
 * @regs, @stack_len and @stack of struct pctr_sample_record.  x86-64 and
 * arm64 (else -EOPNOTSUPP).  With PCTR_SAMPLE_SIDEBAND, the mappings that
 * do not execute come too (@prot tells them apart): an unwinder reads the
 * tables of read-only segments (.eh_frame_hdr) there.
 */
#define PCTR_SAMPLE_USER_STACK 0x40u
/* the CPU each sample was taken on, in @cpu (new in 0.2) */
#define PCTR_SAMPLE_CPU 0x80u

/**
 * struct pctr_sampling - how one event samples into a buffer.
 * @size:      sizeof(struct pctr_sampling), set by the caller
 * @period:    events between samples, or with PCTR_SAMPLE_FREQ samples per
 *             second
 * @flags:     PCTR_SAMPLE_*
 * @pages:     buffer size per counter in pages, a power of two; 0 means 64.
 *             When the program does not read fast enough, the kernel drops
 *             samples and says how many (pctr_set_overflow_stats()).
 * @max_stack: deepest call chain kept; 0 means 127
 * @stack_size: with PCTR_SAMPLE_USER_STACK, bytes of user stack copied
 *             into each sample from its stack pointer up, a multiple of 8
 *             up to 65528; 0 means 8192.  New in 0.2, in what was the
 *             struct's padding: read only with PCTR_SAMPLE_USER_STACK, a
 *             flag older programs never set.  The kernel copies less where
 *             a sample record would pass its 64 KiB limit.
 */
#define PCTR_SAMPLING_SIZE_VER0 32 /* sizeof(struct pctr_sampling) in 0.x */

struct pctr_sampling {
	size_t size;
	uint64_t period;
	unsigned int flags;
	unsigned int pages;
	unsigned int max_stack;
	unsigned int stack_size;
};

/**
 * pctr_set_sampling() - record the IP (and more, see @cfg->flags) of
 * every overflow of event @idx into a buffer, without signals.
 *
 * Works on every target, including other processes and pctr_set_open_command().
 * Return: 0, -EINVAL, -EOPNOTSUPP (cannot sample this event), -EBUSY
 * (the event already has overflow notification).
 */
int pctr_set_sampling(struct pctr_set *set, int idx,
		      const struct pctr_sampling *cfg);

/**
 * pctr_set_sampling_attr() - the perf_event_attr event @idx samples with,
 * as pctr_set_sampling() configured it: its sample_type, period or
 * frequency, user registers and stack size, and side-band bits, which say
 * how the kernel lays out its records.  For a program that keeps the
 * samples (a perf.data file) and must state their layout.
 * @attr:      a struct perf_event_attr of the caller's <linux/perf_event.h>
 * @attr_size: sizeof that struct; min(@attr_size, 136) bytes are filled
 *             and attr->size says how many
 *
 * New in 0.2.  Thread-safe against other readers of the set.
 * Return: 0; -EINVAL for a bad set or index, an @attr_size under 64, or
 * an event that does not sample into a buffer.
 */
int pctr_set_sampling_attr(const struct pctr_set *set, int idx, void *attr,
			   size_t attr_size);

/* struct pctr_sample_record.kind */
#define PCTR_REC_SAMPLE 0 /* a sample: the only kind without SIDEBAND */
#define PCTR_REC_MMAP 1 /* @pid, @tid mapped @name at @addr, @len, @pgoff */
#define PCTR_REC_COMM 2 /* @pid, @tid is now called @name (@exec: by exec) */
#define PCTR_REC_FORK 3 /* @pid, @tid created by @ppid, @ptid */
#define PCTR_REC_EXIT 4 /* @pid, @tid exited */

/**
 * struct pctr_sample_record - one sample read from the buffer.
 * @event:        the event's index
 * @instance:     the set's instance whose buffer held it
 * @pid:          the process (PCTR_SAMPLE_TID; else -1)
 * @tid:          the thread (PCTR_SAMPLE_TID; else -1)
 * @ip:           the program counter
 * @time:         perf clock ns, local_clock() (CLOCK_MONOTONIC if an event
 *                of the set signals); PCTR_SAMPLE_TIME, else 0
 * @period:       events since the previous sample
 * @user:         1 if @ip is in user space
 * @nr_callchain: entries in @callchain (PCTR_SAMPLE_CALLCHAIN; else 0)
 * @callchain:    return addresses, innermost first, user space only
 *                (kernel addresses first with PCTR_SAMPLE_CALLCHAIN_KERNEL);
 *                an entry the kernel gave as user space but that lies in
 *                the kernel's half (an unwinder's garbage past the last
 *                frame), or the reverse, is left out; valid during the
 *                callback only
 *
 * With PCTR_SAMPLE_SIDEBAND, records of other kinds come too; for them
 * @event, @instance, @pid, @tid and @time are filled (@time with
 * PCTR_SAMPLE_TIME), @ip, @period and @callchain are 0:
 * @kind:         PCTR_REC_*
 * @ppid, @ptid:  the creator (PCTR_REC_FORK; a new thread has
 *                @pid == @ppid), else -1
 * @addr, @len, @pgoff: the mapping (PCTR_REC_MMAP), else 0
 * @prot:         PROT_* of the mapping (PCTR_REC_MMAP)
 * @exec:         1 if the name changed by exec (PCTR_REC_COMM)
 * @name:         the mapped file, or "[vdso]", "//anon", ...
 *                (PCTR_REC_MMAP); the command (PCTR_REC_COMM); else NULL;
 *                valid during the callback only
 * The fields from @kind on are new in 0.2: the library fills them for
 * every record, and callers that know only the earlier ones never see
 * other kinds, since they do not ask for PCTR_SAMPLE_SIDEBAND.
 *
 * With PCTR_SAMPLE_USER_STACK (new in 0.2; all 0 and NULL without it and
 * in records of other kinds), the user-mode state of the sampled thread,
 * at the sample when it was in user mode, else at its last entry into the
 * kernel:
 * @regs_abi:     64, or 32 for a 32-bit task; 0 when the thread has no
 *                user mode (a kernel thread): no registers, no stack
 * @regs_mask:    which registers @regs holds: bit N is register N of the
 *                kernel's numbering for the architecture (asm/perf_regs.h:
 *                enum perf_event_x86_regs, perf_event_arm64_regs);
 *                x86-64: AX to SS (bits 0-11) and R8 to R15 (16-23);
 *                arm64: X0 to X30, SP, PC (bits 0-32)
 * @regs:         one value per bit of @regs_mask, lowest bit first
 * @stack_len:    bytes of @stack: the user stack from the stack pointer
 *                up, as many as asked for, or fewer up to the first page
 *                not in memory (the kernel copies in its interrupt,
 *                without faulting pages in): the stack's end, or a page
 *                of it never touched
 * @stack:        the copy; @regs and @stack are valid during the callback
 *                only
 *
 * New in 0.2, for every kind (a reader of a perf.data file needs them):
 * @cpu:          the CPU the record was written on (PCTR_SAMPLE_CPU;
 *                else -1)
 * @nr_callchain_kernel: how many of @callchain's entries, the first
 *                ones, are the kernel's, as the kernel's own markers in
 *                the chain say (PERF_CONTEXT_KERNEL, _USER)
 */
struct pctr_sample_record {
	int event;
	int instance;
	pid_t pid;
	pid_t tid;
	uint64_t ip;
	uint64_t time;
	uint64_t period;
	int user;
	uint32_t nr_callchain;
	const uint64_t *callchain;
	int kind;
	pid_t ppid;
	pid_t ptid;
	uint64_t addr;
	uint64_t len;
	uint64_t pgoff;
	uint32_t prot;
	int exec;
	const char *name;
	int regs_abi;
	uint64_t regs_mask;
	const uint64_t *regs;
	uint64_t stack_len;
	const unsigned char *stack;
	int cpu;
	uint32_t nr_callchain_kernel;
};

/**
 * pctr_set_sampling_read() - hand every sample buffered so far to @cb.
 * @cb:  called for each sample in order per buffer; a non-zero return
 *       stops the walk (the sample counts as read).  @cb cannot free the
 *       set (pctr_set_free() returns -EDEADLK there).
 * @arg: passed to @cb
 *
 * The program being sampled keeps running.  Not async-signal-safe.
 * Return: the number of samples read, or a negative errno (-ECHILD in a
 * child forked after the open: the buffers stay with the parent).
 */
int pctr_set_sampling_read(struct pctr_set *set,
		       int (*cb)(const struct pctr_sample_record *rec,
				 void *arg),
		       void *arg);

/**
 * pctr_set_sampling_wait() - wait until a buffer is a quarter full or
 * @timeout_ms passes (-1: no limit).
 * Return: 1 if samples are ready, 0 on timeout, 0 too when interrupted by a
 * signal, or a negative errno.  -ESRCH when every sampled target is gone;
 * -ECHILD in a child forked after the open.
 */
int pctr_set_sampling_wait(struct pctr_set *set, int timeout_ms);

struct pollfd;

/**
 * pctr_set_sampling_pollfd() - the descriptors pctr_set_sampling_wait()
 * polls, for a program's own poll(2) or ppoll(2) loop beside its other
 * files and signals (a signalfd).
 * @pfd: receives up to @nr entries, each with .events POLLIN
 * @nr:  room in @pfd; 0 (with @pfd NULL) only counts
 *
 * POLLIN on one: samples are ready for pctr_set_sampling_read(); POLLHUP
 * on every one: every sampled task has exited (read what is left).  The
 * set keeps owning them, as pctr_set_fd()'s.
 * Return: how many the set has (only @nr filled when more), or a negative
 * errno as pctr_set_sampling_wait().
 */
int pctr_set_sampling_pollfd(struct pctr_set *set, struct pollfd *pfd,
			     int nr);

#ifdef __cplusplus
}
#endif

#endif /* PCTR_H */
