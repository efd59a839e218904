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
 */
#ifndef PCTR_H
#define PCTR_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/perf_event.h>

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
 * pctr_errname() - the symbolic name of an errno ("ENODEV"), or "E?".
 */
const char *pctr_errname(int err);

/* ------------------------------------------------------------------------
 * Events
 * ------------------------------------------------------------------------ */

#define PCTR_NAME_MAX 128
#define PCTR_MAX_PARTS 4

/**
 * struct pctr_event - one parsed event, ready for perf_event_open.
 * @size:     sizeof(struct pctr_event), set by pctr_event_parse()
 * @attr:     the kernel attributes (type, config, config1, exclude_*)
 * @name:     canonical name; parsing it again gives the same attributes
 * @nr_parts: how many kernel events count this one event (more than one
 *            on hybrid CPUs, where a generic event is opened once per core
 *            type and the parts are summed)
 * @part_type: PMU type of each part (extended hardware type), 0 if unused
 * @hardware: 1 if the event needs a hardware PMU
 */
struct pctr_event {
	size_t size;
	struct perf_event_attr attr;
	char name[PCTR_NAME_MAX];
	unsigned int nr_parts;
	uint32_t part_type[PCTR_MAX_PARTS];
	int hardware;
};

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
 * @ev:   filled on success
 *
 * Return: 0, -ENOENT for an unknown event (pctr_strerror() names the
 * closest known ones), -EINVAL for a malformed specification.
 * Thread-safe.
 */
int pctr_event_parse(const char *spec, struct pctr_event *ev);

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
 * @ev: filled with a PERF_TYPE_RAW event
 *
 * Return: 0; -EINVAL if reserved bits are set, or if neither PCTR_FN_USR nor
 * PCTR_FN_OS is.  The function is decoded the same way on every host.
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

/* ------------------------------------------------------------------------
 * The machine
 * ------------------------------------------------------------------------ */

#define PCTR_MAX_PMUS 8

/**
 * struct pctr_machine - what this machine offers, detected once.
 * @size:          sizeof(struct pctr_machine); set by the caller
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

/* serialisation of user-space reads, pctr_set_serialize() */
#define PCTR_SERIAL_NONE 0 /* plain rdtsc/rdpmc */
#define PCTR_SERIAL_FENCE 1 /* lfence before the reads (arm64: isb) */
#define PCTR_SERIAL_RDTSCP 2 /* rdtscp for the timestamp (arm64: isb) */

/**
 * pctr_set_new() - create an empty set of events.
 * @setp:  receives the set
 * @flags: PCTR_SET_* flags
 */
int pctr_set_new(struct pctr_set **setp, unsigned int flags);

/**
 * pctr_set_free() - close every counter of the set and free it.  NULL is
 * accepted.
 */
void pctr_set_free(struct pctr_set *set);

/**
 * pctr_set_add() - parse @spec and add the event to the set.
 *
 * Return: the event's index (0, 1, ...) or a negative errno.  Events can be
 * added only before pctr_set_open().
 */
int pctr_set_add(struct pctr_set *set, const char *spec);

/**
 * pctr_set_add_event() - add an already parsed (or hand-made) event.
 * Return: the event's index or a negative errno.
 */
int pctr_set_add_event(struct pctr_set *set, const struct pctr_event *ev);

/**
 * pctr_set_add_list() - add a comma- or whitespace-separated list of events
 * ("cycles,instructions:u,cpu/event=0xc0/").  Commas inside "pmu/.../"
 * belong to the event.  Nothing is added if one entry fails.
 * Return: the number of events added or a negative errno.
 */
int pctr_set_add_list(struct pctr_set *set, const char *list);

/**
 * pctr_set_nr() - the number of events in the set.
 */
int pctr_set_nr(const struct pctr_set *set);

/**
 * pctr_set_event() - the event at @idx, or NULL.
 */
const struct pctr_event *pctr_set_event(const struct pctr_set *set, int idx);

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

/**
 * struct pctr_target - what a set counts.
 * @type:    PCTR_TARGET_*
 * @pid:     the process or thread for PID and TID
 * @nr_cpus: for CPU: how many entries in @cpus; 0 means every online CPU
 * @cpus:    for CPU: the CPU numbers
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
 * exactly at exec: nothing of the library or the fork is counted.
 * Return: 0, -ENOENT/-EACCES if the command cannot be executed (the child
 * is then already reaped), or an error of pctr_set_open().
 */
int pctr_set_open_command(struct pctr_set *set, char *const argv[],
			  pid_t *pidp);

/**
 * pctr_set_enable() - start counting.
 * pctr_set_disable() - stop counting; counts are kept.
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
 * pctr_set_user_read() - 1 if the last read of every event could be done
 * in user space, 0 otherwise.  Before the first read: whether the fast path
 * is offered for this set at all.
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
 * Return: the fd or a negative errno.  The set keeps owning it.
 */
int pctr_set_fd(const struct pctr_set *set, int idx);

/**
 * pctr_count_scaled() - the count estimated for the whole enabled time:
 * value * enabled / running; 0 if the event never ran.
 */
double pctr_count_scaled(const struct pctr_count *c);

/**
 * pctr_count_delta() - @after minus @before, field by field.
 */
struct pctr_count pctr_count_delta(const struct pctr_count *after,
				   const struct pctr_count *before);

/* ---- statistics and regions (src/stats.c, src/region.c) ---------------- */

/* ---- overflow and sampling (src/overflow.c, src/sampling.c) ------------ */

#ifdef __cplusplus
}
#endif

#endif /* PCTR_H */
