/* SPDX-License-Identifier: MIT */
/*
 * cmd_profile.c - pctr profile: where a command, a process, a thread or
 * whole CPUs spend their events.
 *
 *   pctr profile [OPTIONS] -- COMMAND ...
 *   pctr profile [OPTIONS] -p PID | -t TID | -a [-C CPUS] [-d SECONDS]
 *
 * One event samples into a buffer (every PERIOD events, or HZ times a
 * second), with the side-band records of the kernel (PCTR_SAMPLE_SIDEBAND:
 * maps, names, forks, execs, exits) in order with the samples, so that
 * every sample of every process of the tree is named in the address space
 * its process had when it was taken (symbols.c).  With -g each sample
 * carries its call chain from frame pointers, kernel and user.
 *
 * Views: rows by symbol (--sort over comm, dso, sym), with the share of
 * the events whose samples' leaf is the row (self) and, with -g, of those
 * with the row anywhere on the stack (children); or --folded, one line per
 * distinct stack and its samples, for flame graphs.  A share is of the
 * events, each sample standing for its period, as perf report's
 * overhead: with -F the kernel changes the period as it goes (from 1 at
 * the start, for an event that is not a clock), so that samples alone
 * over-weigh where it sampled more often.
 *
 * As with pctr stat, the report never mixes with the command's output: it
 * goes to standard error, or to FILE (opened close-on-exec, so the command
 * cannot write into it), or with "-o -" to standard output.
 */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <linux/perf_event.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "text.h"
#include "tool.h"
#include "flame.h"
#include "perf_data.h"
#include "proc_records.h"
#include "runner.h"
#include "symbols.h"
#include "unwind.h"
#include "util.h"

#define DEFAULT_HZ 1000 /* pctr profile's */
#define RECORD_HZ 4000 /* pctr record's, perf record's */
#define MAX_KEYS 3
#define DEFAULT_STACK_COPY 8192 /* --call-graph dwarf, as perf's */
#define MAX_STACK_COPY 65528 /* the kernel's limit (pctr_sampling) */
/* kernel part (the library's limit) and user part (unwind.c's) */
#define MAX_CHAIN (1024 + 128)

/*
 * The verbs over this file: profile (sample, then report), record (sample
 * into perf.data) and report (a recording, to standard output).
 */
enum mode { MODE_PROFILE, MODE_RECORD, MODE_REPORT };

/* -g, --call-graph: none, frame pointers, or unwinding stack copies */
enum call_graph { CG_NONE, CG_FP, CG_DWARF };

enum key { KEY_COMM, KEY_DSO, KEY_SYM };

struct opts {
	enum mode mode;
	char **cmdline; /* the verb and its arguments (HEADER_CMDLINE) */
	const char *event;
	uint64_t period;
	uint64_t hz;
	enum call_graph callgraph;
	unsigned int stack_copy; /* --call-graph dwarf,SIZE */
	int json, folded;
	const char *svg; /* --svg FILE, or NULL */
	const char *perf_data; /* --perf-data FILE, or NULL */
	const char *input; /* --input FILE, or NULL */
	double percent_limit;
	long top;
	enum key keys[MAX_KEYS];
	int nr_keys;
	bool sort_given;
	struct pctr_target target;
	bool attach;
	double duration;
	const char *output;
	FILE *out; /* the report: stderr, stdout or -o FILE */
	FILE *svg_out, *perf_data_out; /* open before the command runs */
	struct runner rn; /* the outputs, the command, signals (runner.h) */
	char **argv;
	bool quiet; /* -q: no "[ pctr record: ... ]" */
	unsigned int pages; /* -m: the ring's data pages, a power of 2 */
	char event_buf[PCTR_NAME_MAX]; /* -e's without period= and freq= */
};

/*
 * every sample: its process's address space, its stack (leaf first), how
 * many of the stack's first frames are the kernel's (as the sample said:
 * the markers in its chain, or its cpumode), whether its user frames are
 * the unwinder's (unwind_sample(): callers already at their call), and
 * the events it stands for (its period; 1 when the recording has none)
 */
struct smp {
	int space;
	uint32_t off, n, nk;
	bool unwound;
	uint64_t period;
};

struct prof {
	struct smp *s;
	size_t ns, caps;
	uint64_t *ip;
	size_t nip, capip;
	struct syms *syms;
	struct unwind *unw; /* once a sample brings a stack copy */
	struct perf_data *pd; /* --perf-data: every record goes there too */
	bool record_only; /* pctr record: the file only, no report */
	int err;
};

/* a named frame */
struct frame {
	const char *comm;
	char sym[256];
	char dso[128];
};

/* a row of the report: samples, and the events they stand for */
struct row {
	char key[512]; /* the sort keys' values, '\t' between */
	struct frame f;
	uint64_t self, children;
	uint64_t self_ev, children_ev;
	size_t last; /* the last sample counted in children, + 1 */
};

static const char *const verb[] = { "profile", "record", "report" };

/* ---- reading ------------------------------------------------------------ */

static int
grow(void **p, size_t *cap, size_t need, size_t size)
{
	size_t c = *cap ? *cap : 1024;
	void *g;

	if (need <= *cap)
		return 0;
	while (c < need)
		c *= 2;
	g = realloc(*p, c * size);
	if (!g)
		return -1;
	*p = g;
	*cap = c;
	return 0;
}

/*
 * A sample with a user stack copy (--call-graph dwarf, or a recording of
 * one): its chain unwound now, in the address space its process has now,
 * the one it was taken in (the side-band records come in order).
 */
static int
add_unwound(struct prof *p, const struct pctr_sample_record *r, int space)
{
	size_t n, nk;

	if (!p->unw && unwind_new(&p->unw) < 0)
		return -1;
	if (grow((void **)&p->ip, &p->capip, p->nip + MAX_CHAIN,
		 sizeof(*p->ip)) < 0)
		return -1;
	n = unwind_sample(p->unw, p->syms, space, r, p->ip + p->nip,
			  MAX_CHAIN, &nk);
	p->s[p->ns++] = (struct smp){ space, (uint32_t)p->nip, (uint32_t)n,
				      (uint32_t)nk, true,
				      r->period ? r->period : 1 };
	p->nip += n;
	return 0;
}

static int
add_sample(struct prof *p, const struct pctr_sample_record *r)
{
	uint32_t n = r->nr_callchain ? r->nr_callchain : 1;
	int space = syms_space(p->syms, r->pid);

	if (space < 0 || grow((void **)&p->s, &p->caps, p->ns + 1,
			      sizeof(*p->s)) < 0)
		return -1;
	if (r->regs_abi || r->stack_len)
		return add_unwound(p, r, space);
	if (grow((void **)&p->ip, &p->capip, p->nip + n, sizeof(*p->ip)) < 0)
		return -1;
	p->s[p->ns++] = (struct smp){ space, (uint32_t)p->nip, n,
				      r->nr_callchain ? r->nr_callchain_kernel
						      : !r->user,
				      false, r->period ? r->period : 1 };
	/* a call chain starts with the sampled IP itself */
	if (r->nr_callchain)
		memcpy(p->ip + p->nip, r->callchain, n * sizeof(*p->ip));
	else
		p->ip[p->nip] = r->ip;
	p->nip += n;
	return 0;
}

static int
on_record(const struct pctr_sample_record *r, void *arg)
{
	struct prof *p = arg;

	if (p->record_only)
		return perf_data_record(p->pd, r) == -ENOMEM ? (p->err = -1) : 0;
	if (r->kind == PCTR_REC_SAMPLE)
		p->err = add_sample(p, r);
	else
		p->err = syms_record(p->syms, r) < 0 ? -1 : 0;
	/* a recording that cannot be written is said at its close */
	if (p->err == 0 && p->pd)
		perf_data_record(p->pd, r);
	return p->err;
}

/* ---- options ------------------------------------------------------------ */

static void
usage_record(FILE *f)
{
	fprintf(f,
		"usage: pctr record [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       pctr record [OPTIONS] -p PID | -t TID | -a [-C CPUS] "
		"[-d SECONDS]\n"
		"  -o, --output FILE         the recording (default perf.data; "
		"an existing\n"
		"                            one is renamed FILE.old first)\n"
		"  -F, --freq HZ             HZ samples a second (default "
		"4000, perf\n"
		"                            record's; max: the kernel's "
		"limit)\n"
		"  -e, -c, -g, --call-graph, -p, -t, -a, -C, -d: as pctr "
		"profile's\n"
		"  -q, --quiet               no line on what was written\n"
		"  -m, --mmap-pages N        the ring: N pages, or a size "
		"(512K)\n"
		"  -T, --sample-cpu, -P, -N  taken (samples always have their "
		"time, CPU\n"
		"                            and period)\n"
		"  -h, --help                this text\n");
}

static void
usage_report(FILE *f)
{
	fprintf(f,
		"usage: pctr report [-i FILE] [VIEW OPTIONS]\n"
		"  -i, --input FILE          the recording (default perf.data: "
		"pctr record's\n"
		"                            or perf record's)\n"
		"  -s, --percent-limit, --top, --folded, --svg, -j: as pctr "
		"profile's\n"
		"  -o, --output FILE         write the report to FILE "
		"(default: stdout)\n"
		"  -h, --help                this text\n");
}

static void
usage(const struct opts *o, FILE *f)
{
	if (o->mode == MODE_RECORD)
		return usage_record(f);
	if (o->mode == MODE_REPORT)
		return usage_report(f);
	fprintf(f,
		"usage: pctr profile [OPTIONS] [--] COMMAND [ARGS...]\n"
		"       pctr profile [OPTIONS] -p PID | -t TID | -a [-C CPUS] "
		"[-d SECONDS]\n"
		"       pctr profile [VIEW OPTIONS] --input FILE\n"
		"  -e, --event EVENT         the event to sample (one; default "
		"cycles, or\n"
		"                            task-clock without a PMU, "
		"cpu-clock with -a)\n"
		"  -c, --period N            a sample every N events\n"
		"  -F, --freq HZ             HZ samples a second (default "
		"1000; max:\n"
		"                            the kernel's limit)\n"
		"  -g                        call chains (frame pointers), "
		"kernel and user\n"
		"      --call-graph fp|dwarf[,SIZE]\n"
		"                            call chains from frame pointers "
		"(fp, as -g), or\n"
		"                            unwound from SIZE bytes of user "
		"stack copied\n"
		"                            with each sample (dwarf; default "
		"8192)\n"
		"  -p, --pid PID             a running process and its "
		"threads\n"
		"  -t, --tid TID             one thread\n"
		"  -a, --all-cpus            whole CPUs (every task on them)\n"
		"  -C, --cpu CPUS            with -a: only these CPUs (0-3,6)\n"
		"  -d, --duration SECONDS    when attaching: stop after this "
		"long\n"
		"  -s, --sort KEYS           rows by comm, dso, sym, in the "
		"order given\n"
		"                            (default sym: one row per "
		"function)\n"
		"      --percent-limit PCT   rows of at least PCT%% only\n"
		"      --top N               the first N rows only\n"
		"      --folded              one 'comm;root;...;leaf count' "
		"line per stack\n"
		"      --svg FILE            also a flame graph of the stacks "
		"(SVG; with -g)\n"
		"      --perf-data FILE      also every sample in perf.data "
		"format (perf report -i)\n"
		"  -i, --input FILE          report a recording again "
		"(--perf-data's, perf record's)\n"
		"  -j, --json                one JSON document "
		"(schema pctr-profile/1)\n"
		"  -o, --output FILE         write the report to FILE ('-': "
		"stdout)\n"
		"                            (default: stderr)\n"
		"  -h, --help                this text\n");
}

static int
usage_error(const struct opts *o, const char *msg, const char *arg)
{
	fprintf(stderr, "pctr %s: %s%s%s\n", verb[o->mode], msg,
		arg ? ": " : "", arg ? arg : "");
	usage(o, stderr);
	return EXIT_USAGE;
}

static int
parse_u64(const char *s, uint64_t *v)
{
	char *end;

	errno = 0;
	*v = strtoull(s, &end, 10);
	return errno || end == s || *end || *v == 0 || *s == '-' ? -1 : 0;
}

static int
parse_sort(struct opts *o, const char *arg)
{
	static const char *const names[] = { "comm", "dso", "sym" };
	char buf[64], *save = NULL, *t;

	snprintf(buf, sizeof(buf), "%s", arg);
	o->nr_keys = 0;
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		int k = 0;

		while (k < 3 && strcmp(t, names[k]))
			k++;
		if (k == 3 || o->nr_keys == MAX_KEYS)
			return usage_error(o, "--sort takes comm, dso, sym, "
					   "each once, comma-separated", arg);
		for (int i = 0; i < o->nr_keys; i++)
			if (o->keys[i] == (enum key)k)
				return usage_error(o, "--sort: a key twice", arg);
		o->keys[o->nr_keys++] = (enum key)k;
	}
	return o->nr_keys ? 0 : usage_error(o, "--sort: no key", arg);
}

enum {
	OPT_CALL_GRAPH = 255,
	OPT_PERCENT = 256,
	OPT_TOP,
	OPT_FOLDED,
	OPT_SVG,
	OPT_PERF_DATA,
	OPT_SAMPLE_CPU,
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "period", required_argument, NULL, 'c' },
	{ "freq", required_argument, NULL, 'F' },
	{ "call-graph", required_argument, NULL, OPT_CALL_GRAPH },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "duration", required_argument, NULL, 'd' },
	{ "sort", required_argument, NULL, 's' },
	{ "percent-limit", required_argument, NULL, OPT_PERCENT },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "svg", required_argument, NULL, OPT_SVG },
	{ "perf-data", required_argument, NULL, OPT_PERF_DATA },
	{ "input", required_argument, NULL, 'i' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	/* perf record's */
	{ "count", required_argument, NULL, 'c' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "mmap-pages", required_argument, NULL, 'm' },
	{ "timestamp", no_argument, NULL, 'T' },
	{ "sample-cpu", no_argument, NULL, OPT_SAMPLE_CPU },
	{ "no-buildid-cache", no_argument, NULL, 'N' },
	{ NULL, 0, NULL, 0 }
};

/*
 * -F max: the kernel's limit (perf_event_max_sample_rate), as perf
 * record takes it; 0 if it cannot be read
 */
static uint64_t
max_sample_rate(void)
{
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");
	unsigned long long v = 0;

	if (f) {
		if (fscanf(f, "%llu", &v) != 1)
			v = 0;
		fclose(f);
	}
	return v;
}

/*
 * -m N: N data pages, or a size with B, K, M or G, as perf record takes
 * it (rounded up to pages, then to a power of 2)
 */
static int
parse_pages(struct opts *o, const char *arg)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *end;
	unsigned long long v, n;

	errno = 0;
	v = strtoull(arg, &end, 10);
	if (errno || end == arg || *arg == '-' || v == 0)
		return usage_error(o, "-m takes pages or a size (512K, 4M)",
				   arg);
	if (*end) {
		const char *units = "BKMG", *u = strchr(units, toupper(*end));

		if (!u || end[1] || v > (1ull << 40))
			return usage_error(o, "-m takes pages or a size (512K, "
					   "4M)", arg);
		v <<= 10 * (u - units);
		v = (v + page - 1) / page;
	}
	for (n = 1; n < v; n <<= 1)
		;
	v = n;
	if (v > 1u << 16)
		return usage_error(o, "-m: at most 65536 pages", arg);
	o->pages = (unsigned int)v;
	return 0;
}

/* fp | dwarf[,SIZE]: SIZE bytes, rounded up to 8 as perf does */
static int
parse_call_graph(struct opts *o, const char *arg)
{
	long size = DEFAULT_STACK_COPY;

	if (!strcmp(arg, "fp")) {
		o->callgraph = CG_FP;
		return 0;
	}
	if (strncmp(arg, "dwarf", 5) || (arg[5] && arg[5] != ','))
		return usage_error(o, "--call-graph takes fp or dwarf[,SIZE]",
				   arg);
	if (arg[5] && parse_long("--call-graph dwarf,SIZE", arg + 6, 1,
				 MAX_STACK_COPY, &size) < 0)
		return EXIT_USAGE;
	o->callgraph = CG_DWARF;
	o->stack_copy = (unsigned int)(size + 7) & ~7u;
	return 0;
}

static int
set_target(struct opts *o, int type, const char *arg)
{
	long v = 0;

	if (o->target.type != PCTR_TARGET_PROCESS && o->target.type != type)
		return usage_error(o, "give one of -p, -t, -a", NULL);
	if (arg && parse_long(type == PCTR_TARGET_PID ? "-p" : "-t", arg, 1,
			      0x7fffffff, &v) < 0)
		return EXIT_USAGE;
	o->target.type = type;
	o->target.pid = (pid_t)v;
	o->attach = true;
	return 0;
}

/* what is sampled, and where: -e -c -F -g --call-graph -p -t -a -C -d */
static int
parse_sample_opt(struct opts *o, int c, const char *arg)
{
	int *cpus;

	switch (c) {
	case 'e':
		o->event = arg;
		return 0;
	case 'c':
		return parse_u64(arg, &o->period) ? usage_error(o, "bad period",
								arg)
						   : 0;
	case 'F':
		if (!strcmp(arg, "max") && (o->hz = max_sample_rate()) != 0)
			return 0;
		return parse_u64(arg, &o->hz) ? usage_error(o, "bad frequency",
							    arg)
					      : 0;
	case 'q':
		o->quiet = true;
		return 0;
	case 'm':
		return parse_pages(o, arg);
	case 'T':	     /* perf record's: every sample has its time, */
	case OPT_SAMPLE_CPU: /* its CPU */
	case 'P':	     /* and its period */
	case 'N':	     /* and no build-id cache is kept */
		return 0;
	case 'g':
		o->callgraph = CG_FP;
		return 0;
	case OPT_CALL_GRAPH:
		return parse_call_graph(o, arg);
	case 'p':
		return set_target(o, PCTR_TARGET_PID, arg);
	case 't':
		return set_target(o, PCTR_TARGET_TID, arg);
	case 'a':
		return set_target(o, PCTR_TARGET_CPU, NULL);
	case 'C':
		if (parse_cpu_list("-C", arg, &cpus, &o->target.nr_cpus) < 0)
			return EXIT_USAGE;
		free((void *)o->target.cpus);
		o->target.cpus = cpus;
		return 0;
	case 'd':
		return parse_double("-d", arg, 0.001, 31536000.0,
				    &o->duration) < 0 ? EXIT_USAGE : 0;
	}
	return EXIT_USAGE;
}

/* the files and the report's view, else parse_sample_opt()'s options */
static int
parse_opt(struct opts *o, int c, const char *arg)
{
	switch (c) {
	case 's':
		o->sort_given = true;
		return parse_sort(o, arg);
	case OPT_PERCENT:
		return parse_double("--percent-limit", arg, 0, 100,
				    &o->percent_limit) < 0 ? EXIT_USAGE : 0;
	case OPT_TOP:
		return parse_long("--top", arg, 1, 1L << 30, &o->top) < 0
			       ? EXIT_USAGE : 0;
	case OPT_FOLDED:
		o->folded = 1;
		return 0;
	case OPT_PERF_DATA:
		o->perf_data = arg;
		return 0;
	case 'i':
		o->input = arg;
		return 0;
	case OPT_SVG:
		o->svg = arg;
		return 0;
	case 'j':
		o->json = 1;
		return 0;
	case 'o':
		o->output = arg;
		return 0;
	case 'h':
		usage(o, stdout);
		return -1;
	}
	return parse_sample_opt(o, c, arg);
}

/* --input: a recording, reported with the view options only */
static int
check_input(const struct opts *o, int argc, char **argv)
{
	if (optind < argc)
		return usage_error(o, "--input reports a recording: no command",
				   argv[optind]);
	if (o->attach || o->event || o->period || o->hz || o->callgraph ||
	    o->duration > 0 || o->target.nr_cpus || o->perf_data)
		return usage_error(o, "--input takes the view options only "
				   "(-s, --percent-limit, --top, --folded, "
				   "--svg, -j, -o): the recording says what "
				   "was sampled",
				   NULL);
	return 0;
}

/* pctr record: the samples into -o FILE, nothing to view */
static int
check_record(struct opts *o)
{
	if (o->folded || o->json || o->svg || o->percent_limit > 0 ||
	    o->top || o->sort_given || o->perf_data || o->input)
		return usage_error(o, "record writes the samples only: -s, "
				   "--percent-limit, --top, --folded, --svg "
				   "and -j are pctr report's",
				   NULL);
	o->perf_data = o->output ? o->output : "perf.data";
	o->output = NULL;
	if (!strcmp(o->perf_data, "-"))
		return usage_error(o, "a recording needs a file it can seek "
				   "in (perf's pipe format is not written)",
				   "-o -");
	return 0;
}

/*
 * perf's sampling terms of "EVENT/...,period=N,.../" (or freq=N), which
 * the library checks and leaves to the sampler: N, or 0 without one.  As
 * in perf, they come before -c and -F.
 */
static uint64_t
event_term(const char *spec, const char *term)
{
	const char *t = strchr(spec, '/'), *end = t ? strchr(t + 1, '/') : NULL;
	size_t n = strlen(term);

	for (; t && t < end; t = strchr(t + 1, ','))
		if (!strncmp(t + 1, term, n) && t[n + 1] == '=')
			return strtoull(t + n + 2, NULL, 0);
	return 0;
}

static int
no_op(const struct pctr_event *ev, int group, void *arg)
{
	(void)ev, (void)group, (void)arg;
	return 0;
}

/* the events of @list (commas inside "pmu/.../" part no two); < 0: bad */
static int
events_in(const char *list)
{
	return pctr_event_parse_list(list, no_op, NULL);
}

/*
 * Without -c or -F, the verb's default frequency, lowered to
 * kernel.perf_event_max_sample_rate where that is less, and said so, as
 * perf record lowers its default (a higher -F is the kernel's to refuse)
 */
static void
default_freq(struct opts *o)
{
	uint64_t max = max_sample_rate();

	if (o->period || o->hz)
		return;
	o->hz = o->mode == MODE_RECORD ? RECORD_HZ : DEFAULT_HZ;
	if (!max || o->hz <= max)
		return;
	tool_err("the default frequency, %llu Hz, is over "
		 "kernel.perf_event_max_sample_rate: sampling at %llu Hz",
		 (unsigned long long)o->hz, (unsigned long long)max);
	o->hz = max;
}

static int
check_opts(struct opts *o, int argc, char **argv)
{
	if (o->mode == MODE_REPORT) {
		o->input = o->input ? o->input : "perf.data";
		o->output = o->output ? o->output : "-";
	}
	if (o->mode == MODE_RECORD && check_record(o))
		return EXIT_USAGE;
	if (o->json && o->folded)
		return usage_error(o, "give --json or --folded, not both", NULL);
	if (o->input)
		return check_input(o, argc, argv);
	if (o->period && o->hz)
		return usage_error(o, "give -c or -F, not both", NULL);
	if (o->event && event_term(o->event, "period")) {
		o->period = event_term(o->event, "period");
		o->hz = 0;
	} else if (o->event && event_term(o->event, "freq")) {
		o->hz = event_term(o->event, "freq");
		o->period = 0;
	}
	if (o->target.nr_cpus && o->target.type != PCTR_TARGET_CPU)
		return usage_error(o, "-C needs -a", NULL);
	if (o->json && o->folded)
		return usage_error(o, "give --json or --folded, not both", NULL);
	if (o->event && events_in(o->event) > 1)
		return usage_error(o, "profile samples one event; -e names "
				   "several (run one profile per event)",
				   o->event);
	if (o->attach && optind < argc)
		return usage_error(o, "give a command or -p/-t/-a, not both",
				   argv[optind]);
	if (o->duration > 0 && !o->attach)
		return usage_error(o, "-d is for -p, -t, -a (a command runs "
				   "until it exits)", NULL);
	if (!o->attach && optind >= argc)
		return usage_error(o, "no command to profile", NULL);
	o->argv = argv + optind;
	default_freq(o);
	return 0;
}

/* 0, EXIT_USAGE, or -1 after --help */
static int
parse(int argc, char **argv, struct opts *o)
{
	int c, r;

	o->target.type = PCTR_TARGET_PROCESS; /* none given yet */
	o->keys[0] = KEY_SYM;
	o->nr_keys = 1;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:c:F:gp:t:aC:d:s:jo:i:hqm:TPN",
				long_options, NULL)) != -1)
		if ((r = parse_opt(o, c, optarg)) != 0)
			return r;
	return check_opts(o, argc, argv);
}

/* ---- the set ------------------------------------------------------------ */

static int
fail(const char *what, int r)
{
	tool_err("%s: %s", what, pctr_strerror(r));
	if (r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP)
		return EXIT_EVENT;
	return r == -EACCES || r == -EPERM ? EXIT_PERM : 1;
}

/* cycles where there is a PMU; else the software clock of the target */
static const char *
default_event(const struct opts *o)
{
	struct pctr_machine m = { .size = sizeof(m) };

	if (pctr_machine_get(&m) == 0 && m.has_pmu)
		return "cycles";
	return o->target.type == PCTR_TARGET_CPU ? "cpu-clock" : "task-clock";
}

/*
 * cycles without a hardware PMU: cpu-clock instead, its privilege levels
 * kept, as perf record falls back, and said so.
 */
static int
cycles_fallback(struct pctr_set **setp)
{
	struct pctr_event ev = *pctr_set_event(*setp, 0);
	struct pctr_machine m = { .size = sizeof(m) };
	char mods[PCTR_NAME_MAX];
	int r;

	if (ev.type != PERF_TYPE_HARDWARE ||
	    ev.config != PERF_COUNT_HW_CPU_CYCLES ||
	    pctr_machine_get(&m) < 0 || m.has_pmu)
		return 0;
	tool_err("%s cannot be sampled here (no hardware PMU): sampling "
		 "cpu-clock instead, as perf record does", ev.name);
	snprintf(mods, sizeof(mods), "%s", strchr(ev.name, ':') ?: "");
	ev.type = PERF_TYPE_SOFTWARE;
	ev.config = PERF_COUNT_SW_CPU_CLOCK;
	ev.hardware = 0;
	ev.precise = 0;
	ev.nr_parts = 1;
	snprintf(ev.name, sizeof(ev.name), "cpu-clock%.*s",
		 (int)sizeof(ev.name) - 10, mods);
	pctr_set_free(*setp);
	r = pctr_set_new(setp, 0);
	return r < 0 ? r : pctr_set_add_event(*setp, &ev);
}

static int
open_set(const struct opts *o, struct pctr_set **setp)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg),
				     .pages = o->pages ? o->pages : 128 };
	int r;

	cfg.period = o->period ? o->period : o->hz ? o->hz : DEFAULT_HZ;
	/* times and CPUs for a recording's readers (perf script --time) */
	cfg.flags = PCTR_SAMPLE_TID | PCTR_SAMPLE_SIDEBAND | PCTR_SAMPLE_TIME |
		    PCTR_SAMPLE_CPU | (o->period ? 0 : PCTR_SAMPLE_FREQ);
	if (o->callgraph == CG_FP)
		cfg.flags |= PCTR_SAMPLE_CALLCHAIN |
			     PCTR_SAMPLE_CALLCHAIN_KERNEL;
	/* the kernel's chain of kernel frames, the user part unwound */
	if (o->callgraph == CG_DWARF) {
		cfg.flags |= PCTR_SAMPLE_USER_STACK |
			     PCTR_SAMPLE_CALLCHAIN_KERNEL;
		cfg.stack_size = o->stack_copy;
	}
	r = pctr_set_new(setp, 0);
	if (r == 0)
		r = pctr_set_add(*setp, o->event);
	if (r < 0)
		return fail(o->event, r);
	if (pctr_set_nr(*setp) != 1)
		return usage_error(o, "profile samples one event; -e names "
				   "several (run one profile per event)",
				   o->event);
	r = cycles_fallback(setp);
	if (r < 0)
		return fail(o->event, r);
	r = pctr_set_sampling(*setp, 0, &cfg);
	return r < 0 ? fail("cannot sample", r) : 0;
}

static int
drain(struct pctr_set *set, struct prof *p)
{
	int r = pctr_set_sampling_read(set, on_record, p);

	if (p->err)
		return -1;
	return r < 0 ? fail("cannot read the samples", r) : 0;
}

/* every buffer hung up: every sampled task has exited */
static bool
all_hung_up(const struct pollfd *pfd, int n)
{
	for (int i = 0; i < n; i++)
		if (!(pfd[i].revents & POLLHUP))
			return false;
	return n > 0;
}

/*
 * Read samples and records as the buffers fill (the runner's wait over
 * them and the signals) until the command exits, or, attached, until
 * the targets are gone, -d is over, or a signal ends it.
 */
static int
sample_until_done(const struct opts *o, struct pctr_set *set,
		  struct prof *p, struct runner *rn)
{
	uint64_t end = o->duration > 0
			       ? now_ns() + (uint64_t)(o->duration * 1e9)
			       : RUNNER_FOREVER;
	int n = pctr_set_sampling_pollfd(set, NULL, 0), r = n;
	struct pollfd *pfd = n > 0 ? calloc(n, sizeof(*pfd)) : NULL;

	if (n >= 0 && !pfd)
		r = -ENOMEM;
	if (r >= 0)
		r = pctr_set_sampling_pollfd(set, pfd, n);
	if (r >= 0)
		r = runner_watch(rn);
	while (r >= 0 && !rn->stop && !runner_reap(rn, false)) {
		uint64_t now = now_ns();

		if (end != RUNNER_FOREVER && now >= end)
			break;
		r = runner_wait(rn, pfd, n,
				end == RUNNER_FOREVER ? end : end - now);
		if (r >= 0 && drain(set, p) < 0)
			r = -ECANCELED;
		if (r > 0 && all_hung_up(pfd, n)) {
			runner_reap(rn, true);
			break;
		}
	}
	runner_unwatch(rn);
	free(pfd);
	if (r == -ECANCELED)
		return -1;
	return r < 0 ? fail("cannot wait for the samples", r) : 0;
}

static int
run_command(const struct opts *o, struct pctr_set *set, struct prof *p,
	    struct runner *rn)
{
	int r = sample_until_done(o, set, p, rn);

	return r ? r : drain(set, p);
}

static int
run_attached(const struct opts *o, struct pctr_set *set, struct prof *p,
	     struct runner *rn)
{
	int r = pctr_set_enable(set);

	if (r < 0)
		return fail("cannot start", r);
	r = sample_until_done(o, set, p, rn);
	pctr_set_disable(set);
	return r ? r : drain(set, p);
}

/* ---- naming ------------------------------------------------------------- */

/*
 * The frame's name, in the kernel or in user space as the sample said: a
 * return address is named by its call instruction (the unwinder's user
 * frames are there already).
 */
static void
name_frame(struct prof *p, const struct smp *s, uint32_t i, struct frame *f)
{
	uint64_t ip = p->ip[s->off + i];
	bool kernel = i < s->nk, ret = i > 0 && (kernel || !s->unwound);

	f->comm = syms_comm(p->syms, s->space);
	syms_name(p->syms, s->space, kernel, ret ? ip - 1 : ip, f->sym,
		  sizeof(f->sym), f->dso, sizeof(f->dso));
}

static void
make_key(const struct opts *o, const struct frame *f, char *key, size_t len)
{
	size_t n = 0;

	key[0] = 0;
	for (int i = 0; i < o->nr_keys && n < len; i++) {
		const char *v = o->keys[i] == KEY_COMM ? f->comm
				: o->keys[i] == KEY_DSO ? f->dso
							: f->sym;

		n += (size_t)snprintf(key + n, len - n, "%s%s", i ? "\t" : "",
				      v);
		/* a symbol is one in its module: main of two programs */
		if (o->keys[i] == KEY_SYM && n < len)
			n += (size_t)snprintf(key + n, len - n, "\t@%s",
					      f->dso);
	}
}

/*
 * The rows, and an index of them by key (open addressing, linear probing,
 * at most half full): a report names every frame of every sample, and a
 * walk over the rows for each was most of its time.
 */
struct table {
	struct row *r;
	size_t n, cap;
	size_t *idx; /* row + 1, or 0: free */
	size_t nidx; /* a power of two */
};

static size_t
key_hash(const char *key)
{
	size_t h = 14695981039346656037u;

	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 1099511628211u;
	return h;
}

/* the index twice as large, the rows put in again */
static int
reindex(struct table *t)
{
	size_t n = t->nidx ? 2 * t->nidx : 1024;
	size_t *idx = calloc(n, sizeof(*idx));

	if (!idx)
		return -1;
	for (size_t i = 0; i < t->n; i++) {
		size_t h = key_hash(t->r[i].key) & (n - 1);

		while (idx[h])
			h = (h + 1) & (n - 1);
		idx[h] = i + 1;
	}
	free(t->idx);
	t->idx = idx;
	t->nidx = n;
	return 0;
}

static struct row *
find_row(struct table *t, const char *key, const struct frame *f)
{
	size_t h;

	if (2 * (t->n + 1) > t->nidx && reindex(t) < 0)
		return NULL;
	for (h = key_hash(key) & (t->nidx - 1); t->idx[h];
	     h = (h + 1) & (t->nidx - 1))
		if (!strcmp(t->r[t->idx[h] - 1].key, key))
			return &t->r[t->idx[h] - 1];
	if (grow((void **)&t->r, &t->cap, t->n + 1, sizeof(*t->r)) < 0)
		return NULL;
	memset(&t->r[t->n], 0, sizeof(t->r[0]));
	snprintf(t->r[t->n].key, sizeof(t->r[0].key), "%s", key);
	t->r[t->n].f = *f;
	t->idx[h] = t->n + 1;
	return &t->r[t->n++];
}

/* the larger of a row's two shares, in events */
static uint64_t
row_events(const struct row *r)
{
	return r->children_ev > r->self_ev ? r->children_ev : r->self_ev;
}

static int
cmp_row(const void *a, const void *b)
{
	const struct row *x = a, *y = b;
	uint64_t vx = row_events(x), vy = row_events(y);

	if (x->self_ev != y->self_ev && vx == vy)
		return x->self_ev < y->self_ev ? 1 : -1;
	return vx < vy ? 1 : vx > vy ? -1 : strcmp(x->key, y->key);
}

/* self: the leaf's row; children: every row on the stack, once a sample */
static int
count_sample(const struct opts *o, struct prof *p, struct table *t, size_t k)
{
	const struct smp *s = &p->s[k];
	uint32_t n = o->callgraph ? s->n : 1;

	for (uint32_t i = 0; i < n; i++) {
		struct frame f;
		char key[512];
		struct row *r;

		name_frame(p, s, i, &f);
		make_key(o, &f, key, sizeof(key));
		r = find_row(t, key, &f);
		if (!r)
			return -1;
		if (i == 0) {
			r->self++;
			r->self_ev += s->period;
		}
		if (o->callgraph && r->last != k + 1) {
			r->children++;
			r->children_ev += s->period;
			r->last = k + 1;
		}
	}
	return 0;
}

/* ---- views -------------------------------------------------------------- */

static const char *
key_name(enum key k)
{
	return k == KEY_COMM ? "command" : k == KEY_DSO ? "module" : "function";
}

static const char *
key_value(const struct row *r, enum key k)
{
	return k == KEY_COMM ? r->f.comm : k == KEY_DSO ? r->f.dso : r->f.sym;
}

/* rows shown: --percent-limit on the larger share, then --top */
static size_t
shown(const struct opts *o, const struct table *t, uint64_t total)
{
	size_t n = 0;

	while (n < t->n && (!o->top || n < (size_t)o->top)) {
		uint64_t v = row_events(&t->r[n]);

		if (100.0 * (double)v < o->percent_limit * (double)total)
			break;
		n++;
	}
	return n;
}

/* the sampled event's name as perf shows it (":u" after a fallback) */
static const char *
event_name(const struct pctr_set *set, char *buf, size_t len)
{
	pctr_event_display_name(pctr_set_event(set, 0), buf, len);
	return buf;
}

static void
print_head(const struct opts *o, const char *event, uint64_t total,
	   uint64_t lost)
{
	FILE *out = o->out;

	fprintf(out, "# %llu samples of %s (", (unsigned long long)total,
		event);
	if (o->period)
		fprintf(out, "every %llu events",
			(unsigned long long)o->period);
	else
		fprintf(out, "%llu Hz", (unsigned long long)(o->hz ? o->hz
							      : DEFAULT_HZ));
	fprintf(out, "), %llu lost\n", (unsigned long long)lost);
}

static bool
has_key(const struct opts *o, enum key k)
{
	for (int i = 0; i < o->nr_keys; i++)
		if (o->keys[i] == k)
			return true;
	return false;
}

/* the sort keys, and the module of a function when it is not one of them */
static int
columns(const struct opts *o, enum key *cols)
{
	int n = o->nr_keys;

	memcpy(cols, o->keys, n * sizeof(*cols));
	if (has_key(o, KEY_SYM) && !has_key(o, KEY_DSO))
		cols[n++] = KEY_DSO;
	return n;
}

static void
print_text(const struct opts *o, const struct table *t, size_t n,
	   uint64_t total)
{
	FILE *out = o->out;
	double tot = total ? (double)total : 1;
	enum key cols[MAX_KEYS + 1];
	int nc = columns(o, cols);

	if (o->callgraph)
		fprintf(out, "%8s ", "children");
	fprintf(out, "%7s %9s ", o->callgraph ? "self" : "share", "samples");
	for (int k = 0; k < nc; k++)
		fprintf(out, " %-*s", k + 1 < nc ? 30 : 0, key_name(cols[k]));
	fputc('\n', out);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &t->r[i];

		if (o->callgraph)
			fprintf(out, "%7.2f%% ", 100.0 * r->children_ev / tot);
		fprintf(out, "%6.2f%% %9llu ", 100.0 * r->self_ev / tot,
			(unsigned long long)r->self);
		for (int k = 0; k < nc; k++)
			fprintf(out, " %-*s", k + 1 < nc ? 30 : 0,
				key_value(r, cols[k]));
		fputc('\n', out);
	}
	if (n < t->n)
		fprintf(out, "# %zu more rows below the limit\n", t->n - n);
}

static void
json_row(const struct opts *o, struct pctr_json *j, const struct row *r,
	 uint64_t total)
{
	static const char *const names[] = { "comm", "module", "name" };
	double tot = total ? (double)total : 1;

	pctr__json_obj(j, NULL);
	for (int k = 0; k < o->nr_keys; k++)
		pctr__json_str(j, names[o->keys[k]], key_value(r, o->keys[k]));
	/* a function is one of a module's (make_key()) */
	if (has_key(o, KEY_SYM) && !has_key(o, KEY_DSO))
		pctr__json_str(j, "module", r->f.dso);
	pctr__json_uint(j, "samples", r->self);
	pctr__json_uint(j, "events", r->self_ev);
	pctr__json_num(j, "share", (double)r->self_ev / tot);
	if (o->callgraph) {
		pctr__json_uint(j, "children_samples", r->children);
		pctr__json_uint(j, "children_events", r->children_ev);
		pctr__json_num(j, "children_share",
			       (double)r->children_ev / tot);
	}
	pctr__json_obj_end(j);
}

/* pctr-profile/1 (doc/json-schema.md), one line */
static void
print_json(const struct opts *o, const char *event, const struct table *t,
	   size_t n, uint64_t total, uint64_t events, uint64_t lost,
	   const char *khidden)
{
	static const char *const names[] = { "comm", "dso", "sym" };
	static const char *const method[] = { [CG_NONE] = NULL,
					      [CG_FP] = "fp",
					      [CG_DWARF] = "dwarf" };
	struct pctr_json j;

	pctr__json_begin(&j, o->out, true);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-profile/1");
	pctr__json_str(&j, "event", event);
	if (o->period)
		pctr__json_uint(&j, "period", o->period);
	else
		pctr__json_uint(&j, "frequency", o->hz ? o->hz : DEFAULT_HZ);
	pctr__json_uint(&j, "samples", total);
	pctr__json_uint(&j, "events", events);
	pctr__json_uint(&j, "lost", lost);
	pctr__json_bool(&j, "call_graph", o->callgraph != CG_NONE);
	pctr__json_str(&j, "call_graph_method", method[o->callgraph]);
	pctr__json_arr(&j, "sort");
	for (int k = 0; k < o->nr_keys; k++)
		pctr__json_str(&j, NULL, names[o->keys[k]]);
	pctr__json_arr_end(&j);
	pctr__json_str(&j, "kernel_hidden", khidden);
	pctr__json_uint(&j, "rows_omitted", t->n - n);
	pctr__json_arr(&j, "functions");
	for (size_t i = 0; i < n; i++)
		json_row(o, &j, &t->r[i], events);
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

/* ---- folded stacks ------------------------------------------------------ */

static int
cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct flame_stack *)a)->text,
		      ((const struct flame_stack *)b)->text);
}

/* "comm;root;...;leaf", kernel frames marked _[k] as flame graphs expect */
static char *
fold(const struct opts *o, struct prof *p, const struct smp *s)
{
	uint32_t n = o->callgraph ? s->n : 1;
	size_t cap = 64 + (size_t)n * 300, len;
	char *b = malloc(cap);

	if (!b)
		return NULL;
	len = flame_frame(b, cap, syms_comm(p->syms, s->space));
	for (uint32_t i = n; i-- > 0;) {
		struct frame f;

		name_frame(p, s, i, &f);
		len += (size_t)snprintf(b + len, cap - len, ";");
		len += flame_frame(b + len, cap - len, f.sym);
		len += (size_t)snprintf(b + len, cap - len, "%s",
					f.dso[0] == '[' && strcmp(f.dso, "?")
						? "_[k]" : "");
	}
	return b;
}

/*
 * Every sample's stack folded, sorted and counted: *@out holds the
 * distinct stacks (*@nr of them), each with its samples.  0 or -1.
 */
static int
collect_folded(const struct opts *o, struct prof *p,
	       struct flame_stack **out, size_t *nr)
{
	struct flame_stack *st = calloc(p->ns + 1, sizeof(*st));
	size_t m = 0, k, d = 0;

	for (k = 0; st && k < p->ns; k++)
		if ((st[k].text = fold(o, p, &p->s[k])) == NULL)
			break;
	if (!st || k < p->ns) {
		for (size_t i = 0; st && i < k; i++)
			free(st[i].text);
		free(st);
		return -1;
	}
	qsort(st, p->ns, sizeof(*st), cmp_stack);
	for (k = 0; k < p->ns; k = m) {
		for (m = k; m < p->ns && !strcmp(st[m].text, st[k].text); m++)
			if (m > k)
				free(st[m].text);
		st[d].text = st[k].text;
		st[d++].n = m - k;
	}
	*out = st;
	*nr = d;
	return 0;
}

static void
free_folded(struct flame_stack *st, size_t nr)
{
	for (size_t k = 0; k < nr; k++)
		free(st[k].text);
	free(st);
}

static int
print_folded(const struct opts *o, struct prof *p)
{
	struct flame_stack *st;
	size_t nr;

	if (collect_folded(o, p, &st, &nr) < 0)
		return -1;
	for (size_t k = 0; k < nr; k++)
		fprintf(o->out, "%s %llu\n", st[k].text,
			(unsigned long long)st[k].n);
	free_folded(st, nr);
	return 0;
}

/* --svg FILE: the flame graph of the same stacks (its errors: at close) */
static int
write_svg(const struct opts *o, struct prof *p, const char *event)
{
	struct flame_stack *st;
	char title[PCTR_NAME_MAX + 64];
	size_t nr;
	int r;

	if (collect_folded(o, p, &st, &nr) < 0)
		return -1;
	snprintf(title, sizeof(title), "pctr profile: %s, %zu samples", event,
		 p->ns);
	r = flame_svg(o->svg_out, st, nr, title);
	free_folded(st, nr);
	return r < 0 ? -1 : 0;
}

/* perf's habit: an existing recording is kept, renamed FILE.old */
static int
keep_old(const char *path)
{
	char old[PATH_MAX];
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
		return 0;
	if ((size_t)snprintf(old, sizeof(old), "%s.old", path) >= sizeof(old))
		errno = ENAMETOOLONG;
	else if (rename(path, old) == 0)
		return 0;
	tool_err("cannot keep the recording %s as %s.old: %s", path, path,
		 strerror(errno));
	return -1;
}

/*
 * stderr, stdout for "-", or FILE; --svg and --perf-data: all opened
 * before the command starts, close-on-exec, never the command's.
 */
static int
open_outputs(struct opts *o, bool recording)
{
	struct runner *rn = &o->rn;

	if (!(o->out = runner_output(rn, "-o", o->output, false)))
		return 1;
	if (o->svg && !(o->svg_out = runner_output(rn, "--svg", o->svg, false)))
		return 1;
	if (recording && o->perf_data && o->mode == MODE_RECORD &&
	    keep_old(o->perf_data) < 0)
		return 1;
	if (recording && o->perf_data &&
	    !(o->perf_data_out = runner_output(rn, o->mode == MODE_RECORD
							   ? "-o"
							   : "--perf-data",
					       o->perf_data, false)))
		return 1;
	return 0;
}

/* every output closed, each error said; @r, or 1 after an error */
static int
close_outputs(struct opts *o, int r)
{
	int bad = runner_close(&o->rn) < 0;

	o->out = o->svg_out = o->perf_data_out = NULL;
	return bad && r == 0 ? 1 : r;
}

static void
warnings(const struct opts *o, const struct prof *p, uint64_t lost)
{
	const char *k = syms_kernel_hidden(p->syms);

	if (syms_can_name() < 0)
		tool_err("warning: libdw.so.1 cannot be "
				"loaded (install the package libdw1): "
				"user-space samples are named by address "
				"and module only%s",
			o->callgraph == CG_DWARF ? " nor unwound" : "");
	if (k)
		tool_err("warning: %s", k);
	if (lost)
		tool_err("%llu samples lost: the buffer "
				"filled up; lower the rate (-F) or raise the "
				"period (-c)",
			(unsigned long long)lost);
}

/* the report of the samples in @p, of @event, @lost of them lost */
static int
report(const struct opts *o, const char *event, uint64_t lost,
       struct prof *p)
{
	struct table t = { 0 };
	uint64_t events = 0;
	int r = 0;

	for (size_t k = 0; k < p->ns; k++)
		events += p->s[k].period;
	if (o->folded) {
		r = print_folded(o, p);
	} else {
		for (size_t k = 0; k < p->ns && r == 0; k++)
			r = count_sample(o, p, &t, k);
		if (r == 0) {
			size_t n;

			if (t.n) /* t.r is NULL when no sample came */
				qsort(t.r, t.n, sizeof(*t.r), cmp_row);
			n = shown(o, &t, events);
			if (o->json)
				print_json(o, event, &t, n, p->ns, events,
					   lost, syms_kernel_hidden(p->syms));
			else {
				locale_t old = text_locale();

				print_head(o, event, p->ns, lost);
				print_text(o, &t, n, events);
				text_locale_end(old);
			}
		}
	}
	free(t.r);
	free(t.idx);
	if (r < 0) {
		tool_err("out of memory");
		return 1;
	}
	warnings(o, p, lost);
	if (o->svg && write_svg(o, p, event) < 0) {
		tool_err("--svg: out of memory");
		return 1;
	}
	return 0;
}

/* the live report: the set's event and what its buffers lost */
static int
report_set(const struct opts *o, struct pctr_set *set, struct prof *p)
{
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	char name[PCTR_NAME_MAX + 2];

	pctr_set_overflow_stats(set, 0, &st);
	if (o->mode == MODE_RECORD) {
		warnings(o, p, st.lost);
		return 0;
	}
	return report(o, event_name(set, name, sizeof(name)), st.lost, p);
}

static int
start(struct opts *o, struct pctr_set *set)
{
	int r;

	if (o->attach) {
		r = pctr_set_open(set, &o->target);
		return r < 0 ? fail("cannot attach", r) : 0;
	}
	r = pctr_set_open_command(set, o->argv, &o->rn.child);
	if (r == -ENOENT || r == -EACCES) {
		tool_err("%s", pctr_strerror(r));
		return r == -ENOENT ? EXIT_NOTFOUND : EXIT_NOEXEC;
	}
	return r < 0 ? fail(o->argv[0], r) : 0;
}

static int
profile(struct opts *o, struct pctr_set *set, struct prof *p)
{
	int r;

	runner_catch(); /* before the command: exec resets them there */
	r = start(o, set);
	if (r)
		return r;
	r = o->attach ? run_attached(o, set, p, &o->rn)
		      : run_command(o, set, p, &o->rn);
	if (r < 0 && p->err)
		tool_err("out of memory");
	if (r == 0)
		r = report_set(o, set, p);
	else if (r < 0)
		r = 1;
	if (r == 0 && !o->attach)
		r = -wait_status_code(o->rn.status) - 1;
	return r;
}

/* a running process's record, into the recording (1: stop) */
static int
synthesized(const struct pctr_sample_record *r, void *arg)
{
	return perf_data_record(arg, r) < 0;
}

static int
open_perf_data(const struct opts *o, const struct pctr_set *set,
	       struct prof *p)
{
	int r = perf_data_open(&p->pd, o->perf_data_out, set, 0, o->cmdline);

	if (r < 0) {
		tool_err("%s: %s", o->perf_data,
			 r == -EINVAL ? pctr_strerror(r) : strerror(-r));
		return 1;
	}
	p->record_only = o->mode == MODE_RECORD;
	/*
	 * What runs already is named in the file as perf record names it:
	 * its name and maps as records at time 0 (their write errors, if
	 * any, are the file's, said at its close)
	 */
	if (o->target.type == PCTR_TARGET_CPU)
		proc_records_all(synthesized, p->pd);
	else if (o->attach)
		proc_records(o->target.pid, synthesized, p->pd);
	return 0;
}

/*
 * --input FILE: the recording's records through the same reading as live
 * ones (on_record), then the report as it was sampled: its event, period
 * or frequency, call chains or not, and the samples its buffers lost.
 */
static int
profile_input(struct opts *o, struct prof *p)
{
	struct perf_data_info info;
	int r = perf_data_read(o->input, &info, on_record, p);

	if (r == -ECANCELED || r == -ENOMEM) {
		tool_err("out of memory");
		return 1;
	}
	if (r < 0) {
		tool_err("%s: %s", o->input,
			r == -EINVAL && info.why ? info.why : strerror(-r));
		return 1;
	}
	o->period = info.period;
	o->hz = info.freq;
	o->callgraph = info.user_stack ? CG_DWARF
		       : info.callchain ? CG_FP : CG_NONE;
	return report(o, info.event, info.lost, p);
}

/*
 * The recording's end; its write errors are said at its close.  pctr
 * record says what it wrote, as perf record does.
 */
static int
close_perf_data(const struct opts *o, struct prof *p)
{
	uint64_t bytes = 0, samples = 0;
	int r = p->pd ? perf_data_close(p->pd, &bytes, &samples) : 0;

	if (r == 0 && p->pd && o->mode == MODE_RECORD && !o->quiet)
		fprintf(stderr, "[ pctr record: Captured and wrote %.3f MB %s "
				"(%llu samples) ]\n",
			(double)bytes / (1024 * 1024), o->perf_data,
			(unsigned long long)samples);
	p->pd = NULL;
	/* a failed write: the stream's, said by out_close() */
	if (r == 0 || ferror(o->perf_data_out))
		return 0;
	tool_err("%s: %s", o->perf_data,
		 r == -E2BIG || r == -EINVAL ? pctr_strerror(r) : strerror(-r));
	return 1;
}

/* a recording reported: pctr report, pctr profile --input */
static int
run_report(struct opts *o)
{
	struct prof p = { 0 };
	int r = open_outputs(o, false);

	if (r == 0)
		r = syms_new(&p.syms) < 0 ? 1 : 0;
	if (r == 0)
		r = profile_input(o, &p);
	syms_free(p.syms);
	unwind_free(p.unw);
	free(p.s);
	free(p.ip);
	return close_outputs(o, r);
}

static int
run_verb(enum mode mode, int argc, char **argv)
{
	struct opts o = { .mode = mode, .cmdline = argv };
	struct pctr_set *set = NULL;
	struct prof p = { 0 };
	int r;

	runner_init(&o.rn);
	tool_set_name(mode == MODE_RECORD   ? "pctr record"
		      : mode == MODE_REPORT ? "pctr report"
					    : "pctr profile");
	r = parse(argc, argv, &o);
	if (r) {
		free((void *)o.target.cpus);
		return r < 0 ? 0 : r;
	}
	if (o.input)
		return run_report(&o);
	if (!o.event)
		o.event = default_event(&o);
	/* a command that is not there is said first, as pctr stat says it */
	r = o.attach ? 0 : runner_check_command(o.argv);
	if (r == 0)
		r = open_set(&o, &set);
	if (r == 0)
		r = open_outputs(&o, true);
	if (r == 0)
		r = syms_new(&p.syms) < 0 ? 1 : 0;
	if (r == 0 && o.perf_data)
		r = open_perf_data(&o, set, &p);
	if (r == 0)
		r = profile(&o, set, &p);
	if (close_perf_data(&o, &p) && r <= 0)
		r = 1;
	syms_free(p.syms);
	unwind_free(p.unw);
	pctr_set_free(set);
	free(p.s);
	free(p.ip);
	free((void *)o.target.cpus);
	/* a command's own exit status, once every output is out */
	if (r < 0)
		return close_outputs(&o, 0) ? 1 : -r - 1;
	return close_outputs(&o, r);
}

int
cmd_profile(int argc, char **argv)
{
	return run_verb(MODE_PROFILE, argc, argv);
}

int
cmd_record(int argc, char **argv)
{
	return run_verb(MODE_RECORD, argc, argv);
}

int
cmd_report(int argc, char **argv)
{
	return run_verb(MODE_REPORT, argc, argv);
}
