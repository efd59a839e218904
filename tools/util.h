/* SPDX-License-Identifier: MIT */
/*
 * util.h - helpers of the pctr command: checked number parsing, messages,
 * running statistics, CSV fields, and the stat report (JSON: src/text).
 */
#ifndef PCTR_TOOL_UTIL_H
#define PCTR_TOOL_UTIL_H

#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "tool.h"

/* ---- messages (util.c) ------------------------------------------------ */

/* "pctr stat: ..." on stderr; the prefix is set once by each subcommand */
void tool_set_name(const char *name);
void tool_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* exit status for a negative errno of the library (tools/tool.h) */
int tool_exit_status(int err);

/*
 * Range-checked numbers for option values: on error, say which option, what
 * was wrong and the accepted range, and return -1.
 */
int parse_long(const char *opt, const char *s, long min, long max, long *out);
int parse_double(const char *opt, const char *s, double min, double max,
		 double *out);
/* "0-3,6" into a new array of CPU numbers; -1 with a message on error */
int parse_cpu_list(const char *opt, const char *s, int **cpus, int *nr);

struct option;
/*
 * The entry of getopt table @t whose value is @val (a letter if the
 * option has one), or NULL: an option named once, in its table.
 */
const struct option *option_by_val(const struct option *t, int val);

/*
 * Look a command up as a shell would: 0 if it can be executed, -ENOENT if
 * not found, -EACCES if found but not executable.
 */
int find_command(const char *name);

/* 128 + N for a death by signal N, the exit code otherwise (like a shell) */
int wait_status_code(int status);

/* monotonic clock, nanoseconds */
uint64_t now_ns(void);

/* ---- outputs (util.c) ------------------------------------------------ */

/*
 * Every file the command writes: opened before any workload starts (a
 * destination that cannot be made is said before anything runs),
 * close-on-exec, and closed with out_close(), which says a write, flush,
 * fsync or close error on one line, "OPTION FILE: reason" or "standard
 * output: reason", and returns -1.
 */
/* stdout through out_close()'s checks; once, at the start */
void out_stdout_init(void);
/* @path for writing, truncated or appended to; "-": stdout; NULL: said */
FILE *out_open(const char *opt, const char *path, bool append);
/*
 * The same on a copy of descriptor @fd, open already (perf's --log-fd):
 * writes go where the descriptor stands; the copy is closed at the end.
 */
FILE *out_open_fd(const char *opt, int fd);
/* 0, or -1 with the error said; stdout and stderr stay open */
int out_close(FILE *f);

/* ---- number formatting (output.c) ------------------------------------- */

/*
 * Text in the numeric locale of the environment (LC_NUMERIC): switch the
 * thread to it, and give the result back to text_locale_end().
 */
locale_t text_locale(void);
void text_locale_end(locale_t old);
/* 1234567 -> "1,234,567" (in the current locale's groups, a comma every
 * three digits where it has none); fractions kept to @decimals places */
char *fmt_group(char *buf, size_t len, double v, int decimals);
/* fmt_group()'s thousands separators: on, off with --no-big-num */
extern bool fmt_big_num;
/* 1234567 -> "1.235 M"; plain below 1000 */
char *fmt_si(char *buf, size_t len, double v);

/* ---- perf's tool events ----------------------------------------------- */

/*
 * perf stat's tool events, which the library does not know: the run's
 * wall-clock time, and the command's user and system CPU time, in ns.
 * pctr stat opens a dummy software event in the place of each, spelled
 * tool_events[].spec (which no one types: config1, which the kernel
 * ignores for a software event, tells them apart), and names it back;
 * its count comes from the clock or from wait4() (cmd_stat.c:
 * tool_count()).
 */
enum tool_event {
	TOOL_NONE = -1,
	TOOL_DURATION, /* duration_time */
	TOOL_USER, /* user_time */
	TOOL_SYSTEM, /* system_time */
	NR_TOOL_EVENTS
};

struct tool_event_name {
	const char *name; /* as perf and the user spell it */
	const char *spec; /* the dummy pctr stat opens in its place */
};

extern const struct tool_event_name tool_events[NR_TOOL_EVENTS];

/*
 * which tool event @ev is: as parsed from its spec (with a group's
 * modifiers after it), or as the report names it; TOOL_NONE for any
 * other event, "dummy" among them
 */
enum tool_event tool_event_of(const struct pctr_event *ev);

/* ---- JSON: the one writer of src/text (text.h) ------------------------ */

#include "text.h"

/* ---- CSV (output.c) ---------------------------------------------------- */

/* one field, quoted as RFC 4180 says when it holds @sep, '"' or a newline */
void csv_field(FILE *f, const char *sep, bool first, const char *s);

/* ---- the stat report (output.c) --------------------------------------- */

enum stat_target {
	STAT_COMMAND,
	STAT_PID,
	STAT_TID,
	STAT_CPU,
};

enum stat_format {
	FMT_HUMAN,
	FMT_JSON, /* --format=pctr-json: pctr-stat/1 */
	FMT_CSV, /* --format=pctr-csv: pctr's columns, a header */
	FMT_PERF_JSON, /* -j: perf stat's JSON lines (stat_perf.c) */
	FMT_PERF_CSV, /* -x SEP: perf stat's CSV lines */
};

/* how the counts of CPUs are shown (-A, --per-core, --per-socket, ...) */
enum stat_aggr {
	AGGR_GLOBAL, /* one total */
	AGGR_THREAD, /* --per-thread, -A: each thread or CPU too */
	AGGR_CORE,
	AGGR_SOCKET,
	AGGR_NODE,
	AGGR_DIE, /* --per-die, --per-cluster, --per-cache: in their socket */
	AGGR_CLUSTER,
	AGGR_CACHE,
};

/* a core, die, cluster or cache: numbered within its socket */
static inline bool
stat_aggr_in_socket(enum stat_aggr a)
{
	return a == AGGR_CORE || a == AGGR_DIE || a == AGGR_CLUSTER ||
	       a == AGGR_CACHE;
}

/* one run's totals */
/*
 * The interval around a multiplexed count (pctr_scale_bounds()); not
 * known (zero) for a count that was never multiplexed, an event that never
 * ran, or one read too few.
 */
struct stat_bounds {
	bool known;
	double low, high;
};

/*
 * The events of a report are as many as -e lists: the library's sets hold
 * PCTR_MAX_EVENTS each and pctr stat opens as many as it needs, so each
 * array of counts below has nr_events entries of its own (report_free()).
 */
struct stat_run {
	struct pctr_count *count;
	struct stat_bounds *bounds;
	uint64_t elapsed_ns;
	uint64_t tsc_ticks;
	bool has_rusage; /* a command was reaped: its CPU time is known */
	uint64_t user_ns, sys_ns; /* wait4()'s rusage of the command */
	uint64_t delay_ns; /* -D: from the run's start to counting's */
};

#define STAT_MAX_PIDS 64 /* -p and -t lists */

/* the counts of one interval (-I), or of one thread, CPU or CPU group */
struct stat_slice {
	int run;
	uint64_t time_ns; /* interval end since the start of the run */
	int id; /* thread id, CPU number, or core/socket/node number */
	int socket; /* --per-core, --per-die: the core's or die's socket */
	int die; /* --per-core, -cluster, -cache: the core's (...) die */
	int cache_level, cache_cpu; /* --per-cache: its level, first CPU */
	int nr_cpus; /* --per-core/-socket/-node: CPUs added up */
	struct pctr_count *count; /* nr_events */
};

/*
 * @dst: @src (NULL: zeros) with counts of its own, for @nr events.
 * Return: 0, or -1 out of memory (@dst's counts NULL).
 */
int slice_copy(struct stat_slice *dst, const struct stat_slice *src, int nr);
/* the counts of @n slices, and the array */
void slices_free(struct stat_slice *s, int n);

struct stat_report {
	/* what was asked */
	enum stat_target target;
	enum stat_format format;
	const char *sep;
	bool append; /* --append: the file may hold reports already */
	bool continued; /* and it begins with the CSV header: not again */
	char *const *argv; /* the command, or NULL */
	pid_t pid; /* the first of pids */
	int nr_pids;
	pid_t pids[STAT_MAX_PIDS]; /* -p, -t */
	const int *cpus;
	int nr_cpus;
	const char *cgroup; /* -G: with -a, only this cgroup's tasks */
	bool multiplex;
	bool per_thread; /* instances are read and shown (aggr != GLOBAL) */
	enum stat_aggr aggr;
	bool repeated; /* -r given: report statistics even for one run */
	unsigned int metrics; /* -M: bit i for metric_table[i]; 0: all */

	/* the events */
	int nr_events, cap_events;
	struct pctr_event *ev;
	/* ev's names as perf 6.1 shows them in -x and -j: a group's
	 * modifiers left off ("{cs:k}:u" counts cs:ku, named cs:k) */
	char (*perf_name)[PCTR_NAME_MAX];
	int *err; /* not 0: cannot be counted here, why */
	char (*why)[512]; /* err's text, as the open said it */
	bool interval; /* -I given */
	bool summary; /* --summary: perf's layouts end -I with the totals */
	bool no_csv_summary; /* --no-csv-summary: those rows unmarked */
	bool delayed; /* -D given: runs[].delay_ns is known */

	/* what happened */
	struct pctr_machine machine; /* filled for JSON only */
	int nr_notes;
	char *notes[8];
	int nr_runs;
	struct stat_run *runs;
	int nr_intervals, cap_intervals;
	struct stat_slice *intervals; /* collected for JSON only */
	int nr_instances;
	struct stat_slice *instances; /* last run, --per-thread */
	/* -I with instances: their counts at the last interval, and when */
	int nr_last;
	struct stat_slice *last;
	uint64_t last_time_ns;
	int last_run;
	bool has_exit;
	int exit_status, exit_signal;
};

void report_note(struct stat_report *r, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/*
 * -o FILE (@path), just opened: note whether --append adds to reports,
 * and write what perf stat writes first into a file
 */
void report_start(FILE *f, struct stat_report *r, const char *path);
void report_print(FILE *f, const struct stat_report *r);
/* -I: print (human, CSV) or keep (JSON) one interval */
int report_interval(FILE *f, struct stat_report *r,
		    const struct stat_slice *s);

/*
 * what @ev's count is counted in (into @unit, of STAT_UNIT_MAX bytes) and
 * what one count is worth there (*@scale): pctr_event_unit()'s, and ns
 * for a tool event; a scale that cannot be read NaN
 */
#define STAT_UNIT_MAX 32
const char *stat_event_unit(const struct pctr_event *ev, char *unit,
			    double *scale);

/* perf stat's layouts of -x and -j (stat_perf.c) */
void perf_report_print(FILE *f, const struct stat_report *r);
/* one interval: @total, or the @n instances' counts of the interval */
void perf_report_interval(FILE *f, const struct stat_report *r,
			  const struct stat_slice *total,
			  const struct stat_slice *inst, int n,
			  uint64_t len_ns);
void report_free(struct stat_report *r);

/* ---- CPU topology (topology.c) ----------------------------------------- */

/*
 * The core (with its socket in *@socket), socket or node of @cpu for
 * @aggr, from sysfs; -1 if sysfs does not say.
 */
int cpu_topology_id(int cpu, enum stat_aggr aggr, int *socket);
/* the die of @cpu; 0 where the kernel names none (one die a socket) */
int cpu_die_id(int cpu);
/* @cpu's last level cache: its id, *@level, its first CPU *@first; -1 */
int cpu_last_cache(int cpu, int *level, int *first);

/* event_attr.c: @ev's perf_event_attr as perf stat -vv prints it */
int event_attr_print(FILE *f, const struct pctr_event *ev);

#endif
