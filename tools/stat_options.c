/* SPDX-License-Identifier: MIT */
/*
 * stat_options.c - pctr stat's options: getopt, range-checked numbers, the
 * lists of -p, -t and -C, the --control endpoints, and the checks of
 * options against each other.  Nothing is counted here and no command is
 * started, so the fuzz target fuzz_tool_stat_options links this unit
 * alone.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_stat.h"
#include "metrics.h"
#include "util.h"

static const char usage_text[] =
	"usage: pctr stat [OPTIONS] [--] COMMAND [ARGS...]\n"
	"       pctr stat [OPTIONS] -p PID | -t TID | -a [-C CPUS] "
	"[--duration SECONDS] [-- COMMAND ...]\n"
	"  -e, --event EVENTS        events to count, comma-separated "
	"('pctr list');\n"
	"                            '{a,b}' counts a and b as one "
	"group,\n"
	"                            '{a,b}:u' both in user mode; "
	"'sched:*' each\n"
	"                            tracepoint that matches\n"
	"  -r, --repeat N            run the command N times, report "
	"statistics\n"
	"  -I, --interval MS         print counts every MS milliseconds\n"
	"      --interval-count N    with -I: stop after N intervals\n"
	"  -D, --delay MS            start counting MS milliseconds "
	"late\n"
	"                            (-1: at 'enable' on --control)\n"
	"      --control fd:CTL[,ACK] 'enable'/'disable' read from fd "
	"CTL,\n"
	"                            'ack' written to fd ACK (or "
	"fifo:PATH[,PATH])\n"
	"  -p, --pid PIDS            count running processes and their "
	"threads\n"
	"  -t, --tid TIDS            count threads (comma-separated)\n"
	"  -i, --no-inherit          the command's or process's threads "
	"and\n"
	"                            children made later not counted\n"
	"  -a, --all-cpus            count whole CPUs (every task on "
	"them)\n"
	"  -C, --cpu CPUS            count these CPUs (0-3,6); -a "
	"implied\n"
	"  -G, --cgroup NAME         with -a: only the tasks of cgroup "
	"NAME\n"
	"                            (under the cgroup2 mount, or a "
	"path)\n"
	"  -A, --no-aggr             with -a: the counts of each CPU\n"
	"      --per-core, --per-socket, --per-node, --per-die,\n"
	"      --per-cluster, --per-cache\n"
	"                            with -a: the counts of each core, "
	"socket, node,\n"
	"                            die, cluster, last level cache\n"
	"  -d, --detailed            add the cache events (-dd, -ddd: "
	"more), as perf\n"
	"  -M, --metrics NAMES       these derived metrics, their "
	"events added\n"
	"                            ('pctr list metrics')\n"
	"      --duration SECONDS    when attaching: stop after this "
	"long\n"
	"      --strict              fail if any event cannot be "
	"counted\n"
	"      --per-thread          counts of each thread (-p) or CPU "
	"(-a) too\n"
	"      --no-multiplex        fail rather than multiplex the "
	"counters\n"
	"  -B, --big-num             thousands separators in counts "
	"(the default;\n"
	"                            --no-big-num: none)\n"
	"  -j, --json                perf stat's JSON: an object a "
	"line\n"
	"  -x, --field-separator SEP perf stat's CSV, fields split by "
	"SEP\n"
	"      --format FORMAT       pctr-json: one JSON document "
	"(pctr-stat/1)\n"
	"                            with statistics; pctr-csv: pctr's "
	"CSV\n"
	"                            columns, a header (-x SEP: its "
	"separator)\n"
	"  -o, --output FILE         write the report to FILE ('-': "
	"stdout)\n"
	"                            (default: stderr)\n"
	"      --append              with -o: add to FILE\n"
	"      --log-fd FD           write the report to descriptor "
	"FD\n"
	"  -q, --quiet               no report (errors only)\n"
	"  -v, --verbose             each event's count and times "
	"(-vv: its\n"
	"                            perf_event_attr first, and each "
	"CPU's)\n"
	"  -n, --null                no default events (-e's only): "
	"the times\n"
	"      --timeout MS          end the command after MS "
	"milliseconds\n"
	"      --all-user, --all-kernel\n"
	"                            every event in user (kernel) "
	"mode only\n"
	"      --pre CMD, --post CMD run sh -c CMD before (after) each "
	"run\n"
	"  -S, --sync                sync(2) before each run\n"
	"      --interval-clear      clear the screen before each "
	"interval\n"
	"      --summary             -x and -j: the totals after -I's "
	"intervals\n"
	"                            (-x: marked summary; "
	"--no-csv-summary: not)\n"
	"  -g, --group               every event in one group\n"
	"      --scale, --metric-no-group\n"
	"                            taken, as perf's defaults here\n";

static void
usage(FILE *f)
{
	fputs(usage_text, f);
}

/* ---- options ------------------------------------------------------------ */

enum {
	OPT_PER_THREAD = 256,
	OPT_NO_MULTIPLEX,
	OPT_DURATION,
	OPT_STRICT,
	OPT_INTERVAL_COUNT,
	OPT_APPEND,
	OPT_CONTROL,
	OPT_PER_CORE,
	OPT_PER_SOCKET,
	OPT_PER_NODE,
	OPT_NO_BIG_NUM,
	OPT_TIMEOUT,
	OPT_ALL_USER,
	OPT_ALL_KERNEL,
	OPT_PRE,
	OPT_POST,
	OPT_LOG_FD,
	OPT_PER_DIE,
	OPT_PER_CACHE,
	OPT_PER_CLUSTER,
	OPT_SUMMARY,
	OPT_INTERVAL_CLEAR,
	OPT_METRIC_ONLY,
	OPT_FOR_EACH_CGROUP,
	OPT_TABLE,
	OPT_FORMAT,
	OPT_NO_MERGE,
	OPT_TOPDOWN,
	OPT_TD_LEVEL,
	OPT_SMI_COST,
	OPT_METRIC_NO_GROUP,
	OPT_METRIC_NO_MERGE,
	OPT_PERCORE_SHOW_THREAD,
	OPT_IOSTAT,
	OPT_SCALE,
	OPT_NO_CSV_SUMMARY,
};

/*
 * perf stat's flags that pctr does not take (named in long_options), each
 * with what to type instead, so that a command line from perf fails
 * saying how to fix it.
 */
static const struct {
	int opt;
	const char *instead;
} refused[] = {
	{ 'T', "name the transactional memory events with -e, as "
	       "-e '{cycles,cpu/cycles-t/,cpu/tx-start/}' on a CPU with TSX" },
	{ OPT_METRIC_ONLY, "-M NAMES shows each metric beside its events (-j "
			   "for the values alone)" },
	{ OPT_FOR_EACH_CGROUP, "run one 'pctr stat -a -G NAME' for each "
			       "cgroup" },
	{ OPT_TABLE, "-r N -j lists each run's counts under \"runs\"" },
	{ OPT_NO_MERGE, "a hybrid CPU's parts of an event are counted in one "
			"row; count one part with -e PMU/EVENT/, as "
			"-e cpu_core/cycles/" },
	{ OPT_TOPDOWN, "-M frontend_bound,backend_bound,bad_speculation,"
		       "retiring (the first level, where the PMU has it)" },
	{ OPT_TD_LEVEL, "-M frontend_bound,backend_bound,bad_speculation,"
			"retiring (the first level, where the PMU has it)" },
	{ OPT_SMI_COST, "-e msr/smi/ counts the SMIs, where the msr PMU has "
			"them" },
	{ OPT_METRIC_NO_MERGE, "-M adds an event two metrics share once, "
			       "in no group (the top-down ones excepted)" },
	{ OPT_PERCORE_SHOW_THREAD, "-a -A shows each CPU's counts, "
				   "--per-core each core's" },
	{ OPT_IOSTAT, "count the I/O stacks' uncore events with -a -e "
		      "PMU/EVENT/ (pctr list shows the PMUs)" },
};

static const struct option long_options[] = {
	{ "event", required_argument, NULL, 'e' },
	{ "repeat", required_argument, NULL, 'r' },
	{ "interval", required_argument, NULL, 'I' },
	{ "pid", required_argument, NULL, 'p' },
	{ "tid", required_argument, NULL, 't' },
	{ "all-cpus", no_argument, NULL, 'a' },
	{ "cpu", required_argument, NULL, 'C' },
	{ "cgroup", required_argument, NULL, 'G' },
	{ "detailed", no_argument, NULL, 'd' },
	{ "group", no_argument, NULL, 'g' },
	{ "metrics", required_argument, NULL, 'M' },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "strict", no_argument, NULL, OPT_STRICT },
	{ "per-thread", no_argument, NULL, OPT_PER_THREAD },
	{ "no-aggr", no_argument, NULL, 'A' },
	{ "per-core", no_argument, NULL, OPT_PER_CORE },
	{ "per-die", no_argument, NULL, OPT_PER_DIE },
	{ "per-socket", no_argument, NULL, OPT_PER_SOCKET },
	{ "per-node", no_argument, NULL, OPT_PER_NODE },
	{ "delay", required_argument, NULL, 'D' },
	{ "interval-count", required_argument, NULL, OPT_INTERVAL_COUNT },
	{ "control", required_argument, NULL, OPT_CONTROL },
	{ "append", no_argument, NULL, OPT_APPEND },
	{ "no-multiplex", no_argument, NULL, OPT_NO_MULTIPLEX },
	{ "big-num", no_argument, NULL, 'B' },
	{ "no-big-num", no_argument, NULL, OPT_NO_BIG_NUM },
	{ "json", no_argument, NULL, 'j' },
	{ "field-separator", required_argument, NULL, 'x' },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "output", required_argument, NULL, 'o' },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "null", no_argument, NULL, 'n' },
	{ "no-inherit", no_argument, NULL, 'i' },
	{ "timeout", required_argument, NULL, OPT_TIMEOUT },
	{ "all-user", no_argument, NULL, OPT_ALL_USER },
	{ "all-kernel", no_argument, NULL, OPT_ALL_KERNEL },
	{ "metric-only", no_argument, NULL, OPT_METRIC_ONLY },
	{ "transaction", no_argument, NULL, 'T' },
	{ "pre", required_argument, NULL, OPT_PRE },
	{ "post", required_argument, NULL, OPT_POST },
	{ "log-fd", required_argument, NULL, OPT_LOG_FD },
	{ "per-cache", optional_argument, NULL, OPT_PER_CACHE },
	{ "per-cluster", no_argument, NULL, OPT_PER_CLUSTER },
	{ "for-each-cgroup", required_argument, NULL, OPT_FOR_EACH_CGROUP },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "table", no_argument, NULL, OPT_TABLE },
	{ "interval-clear", no_argument, NULL, OPT_INTERVAL_CLEAR },
	{ "sync", no_argument, NULL, 'S' },
	{ "scale", no_argument, NULL, OPT_SCALE },
	{ "no-csv-summary", no_argument, NULL, OPT_NO_CSV_SUMMARY },
	{ "no-merge", no_argument, NULL, OPT_NO_MERGE },
	{ "topdown", no_argument, NULL, OPT_TOPDOWN },
	{ "td-level", required_argument, NULL, OPT_TD_LEVEL },
	{ "smi-cost", no_argument, NULL, OPT_SMI_COST },
	{ "metric-no-group", no_argument, NULL, OPT_METRIC_NO_GROUP },
	{ "metric-no-merge", no_argument, NULL, OPT_METRIC_NO_MERGE },
	{ "percore-show-thread", no_argument, NULL, OPT_PERCORE_SHOW_THREAD },
	{ "iostat", optional_argument, NULL, OPT_IOSTAT },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int
add_events(struct stat_ctx *c, const char *list)
{
	size_t old = c->events ? strlen(c->events) : 0;
	char *n = realloc(c->events, old + strlen(list) + 2);

	if (!n)
		return -1;
	if (old)
		n[old++] = ',';
	strcpy(n + old, list);
	c->events = n;
	return 0;
}

/* "12,34": each process or thread once, in the order given */
static int
parse_pids(struct stat_ctx *c, const char *opt, const char *arg)
{
	char item[32];
	const char *p = arg;
	long v;

	do {
		size_t n = strcspn(p, ",");

		snprintf(item, sizeof(item), "%.*s", (int)n, p);
		if (parse_long(opt, item, 1, 0x7fffffff, &v) < 0)
			return -1;
		for (int i = 0; i < c->rep.nr_pids; i++)
			if (c->rep.pids[i] == (pid_t)v)
				goto next;
		if (c->rep.nr_pids == STAT_MAX_PIDS) {
			tool_err("%s: at most %d processes or threads", opt,
				 STAT_MAX_PIDS);
			return -1;
		}
		c->rep.pids[c->rep.nr_pids++] = (pid_t)v;
next:
		p += n;
	} while (*p++ == ',');
	c->rep.pid = c->rep.pids[0];
	return 0;
}

static int
set_target(struct stat_ctx *c, enum stat_target t, const char *opt,
	   const char *arg)
{
	if (c->rep.target != STAT_COMMAND) {
		tool_err("%s: only one of -p, -t and -a can be given", opt);
		return -1;
	}
	c->rep.target = t;
	if (t == STAT_CPU)
		return 0;
	return parse_pids(c, opt, arg);
}

/* the named pipes of --control fifo: (descriptors of fd: are not ours) */
void
stat_close_control(struct stat_ctx *c)
{
	if (!c->ctl_opened)
		return;
	if (c->ctl_fd >= 0)
		close(c->ctl_fd);
	if (c->ack_fd >= 0)
		close(c->ack_fd);
	c->ctl_fd = c->ack_fd = -1;
	c->ctl_opened = false;
}

/*
 * --control fifo:CTL[,ACK]: named pipes, opened read-write (so that
 * neither open waits for the other end, and the control pipe never reads
 * end-of-file when a writer closes it) and closed at exec.
 */
static int
open_fifo(const char *path, size_t len, int *fd)
{
	char name[4096];

	snprintf(name, sizeof(name), "%.*s", (int)len, path);
	*fd = open(name, O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	tool_err("--control: cannot open '%s': %s", name, strerror(errno));
	return -1;
}

static int
parse_control_fifo(struct stat_ctx *c, const char *arg)
{
	const char *comma = strchr(arg, ',');

	stat_close_control(c);
	if (open_fifo(arg, comma ? (size_t)(comma - arg) : strlen(arg),
		      &c->ctl_fd) < 0)
		return -1;
	if (comma && open_fifo(comma + 1, strlen(comma + 1), &c->ack_fd) < 0)
		return -1;
	/* the answers are written whole: the ACK pipe blocks as a pipe does */
	if (c->ack_fd >= 0)
		fcntl(c->ack_fd, F_SETFL,
		      fcntl(c->ack_fd, F_GETFL) & ~O_NONBLOCK);
	c->ctl_opened = true;
	return 0;
}

/*
 * --control fd:CTL[,ACK], as perf stat: the descriptors are open in pctr
 * already (inherited from the shell that started it, and by the command);
 * or fifo:CTL[,ACK], named pipes pctr opens.
 */
static int
parse_control(struct stat_ctx *c, const char *arg)
{
	char *end;
	long ctl, ack = -1;

	if (!strncmp(arg, "fifo:", 5) && arg[5])
		return parse_control_fifo(c, arg + 5);
	if (strncmp(arg, "fd:", 3))
		goto bad;
	ctl = strtol(arg + 3, &end, 10);
	if (end == arg + 3 || ctl < 0 || ctl > 0x7fffffff)
		goto bad;
	if (*end == ',') {
		const char *a = end + 1;

		ack = strtol(a, &end, 10);
		if (end == a || ack < 0 || ack > 0x7fffffff)
			goto bad;
	}
	if (*end)
		goto bad;
	stat_close_control(c);
	c->ctl_fd = (int)ctl;
	c->ack_fd = (int)ack;
	return 0;
bad:
	tool_err("--control: expected fd:CTL[,ACK] (descriptor numbers) or "
		 "fifo:CTL[,ACK] (named pipes), not '%s'",
		 arg);
	return -1;
}

static int
set_aggr(struct stat_ctx *c, enum stat_aggr a, bool no_aggr)
{
	c->rep.per_thread = true;
	c->no_aggr |= no_aggr;
	if ((c->rep.aggr > AGGR_THREAD && c->rep.aggr != a) ||
	    (c->no_aggr && a > AGGR_THREAD)) {
		tool_err("only one of -A, --per-core, --per-socket, "
			 "--per-node, --per-die, --per-cluster and --per-cache "
			 "can be given");
		return -1;
	}
	c->rep.aggr = a;
	return 0;
}

static const char *
format_flag(enum stat_format f)
{
	static const char *const flag[] = { "", "--format=pctr-json",
					    "--format=pctr-csv", "--json",
					    "-x" };

	return flag[f];
}

/*
 * -j and -x give perf stat's layouts; --format=pctr-json|pctr-csv pctr's
 * own, whichever comes first (-x then only gives pctr-csv its separator).
 */
static int
set_format(struct stat_ctx *c, enum stat_format f, const char *sep)
{
	enum stat_format old = c->rep.format;

	if (f == FMT_PERF_CSV && !*sep) {
		tool_err("-x: the separator must not be empty");
		return -1;
	}
	if (f == FMT_PERF_CSV && (old == FMT_CSV || old == FMT_PERF_CSV)) {
		c->rep.sep = sep; /* pctr-csv's separator */
		return 0;
	}
	if (f == FMT_CSV && old == FMT_PERF_CSV)
		sep = c->rep.sep;
	else if (old != FMT_HUMAN && old != f) {
		tool_err("%s cannot be used with %s", format_flag(f),
			 format_flag(old));
		return -1;
	}
	c->rep.format = f;
	c->rep.sep = sep;
	return 0;
}

static int
parse_format(struct stat_ctx *c, const char *arg)
{
	if (!strcmp(arg, "pctr-json"))
		return set_format(c, FMT_JSON, ",");
	if (!strcmp(arg, "pctr-csv"))
		return set_format(c, FMT_CSV, ",");
	tool_err("--format: '%s' is not pctr-json or pctr-csv (perf stat's "
		 "layouts are -j and -x SEP)",
		 arg);
	return -1;
}

static int
parse_cpus(struct stat_ctx *c, const char *arg)
{
	int *cpus, nr;

	if (parse_cpu_list("-C", arg, &cpus, &nr) < 0)
		return -1;
	free((void *)c->rep.cpus);
	c->rep.cpus = cpus;
	c->rep.nr_cpus = nr;
	return 0;
}

static int
refuse(int opt)
{
	const char *name;

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		if (refused[i].opt != opt)
			continue;
		name = option_by_val(long_options, opt)->name;
		if (opt < OPT_PER_THREAD) /* a letter too */
			tool_err("-%c, --%s is not supported: %s", opt, name,
				 refused[i].instead);
		else
			tool_err("--%s is not supported: %s", name,
				 refused[i].instead);
		return -1;
	}
	return 0;
}

static int
set_priv(struct stat_ctx *c, char priv)
{
	if (c->all_priv && c->all_priv != priv) {
		tool_err("--all-user and --all-kernel cannot be used "
			 "together (give no flag to count both)");
		return -1;
	}
	c->all_priv = priv;
	return 0;
}

/*
 * perf stat's flags of how a run goes, beside the counting, and when the
 * counting starts and ends (-D, --duration, --control)
 */
static int
parse_run_option(struct stat_ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'v':
		c->verbose++;
		return 0;
	case 'q':
		c->quiet = true;
		return 0;
	case 'i':
		c->no_inherit = true;
		return 0;
	case 'n':
		c->null_run = true;
		return 0;
	case 'S':
		c->sync = true;
		return 0;
	case OPT_TIMEOUT:
		c->timeout = true;
		if (parse_long("--timeout", arg, 10, 31536000000L,
			       &c->timeout_ms) < 0)
			return -1;
		c->duration = (double)c->timeout_ms / 1000;
		return 0;
	case OPT_PRE:
		c->pre = arg;
		return 0;
	case OPT_POST:
		c->post = arg;
		return 0;
	case OPT_LOG_FD:
		return parse_long("--log-fd", arg, 0, 0x7fffffff, &c->log_fd);
	case OPT_INTERVAL_CLEAR:
		c->interval_clear = true;
		return 0;
	case OPT_SUMMARY: /* pctr's own layouts always end with them */
		c->rep.summary = true;
		return 0;
	case OPT_NO_CSV_SUMMARY:
		c->rep.no_csv_summary = true;
		return 0;
	case OPT_DURATION:
		return parse_double("--duration", arg, 0.001, 31536000.0,
				    &c->duration);
	case 'D': {
		int r = parse_long("-D", arg, -1, 3600000, &c->delay_ms);

		c->rep.delayed = c->delay_ms != 0;
		return r;
	}
	case OPT_CONTROL:
		return parse_control(c, arg);
	}
	return refuse(opt) < 0 ? -1 : 1;
}

/* what is counted: -p, -t, -a, -C, -G, and how its parts are shown */
static int
parse_target_option(struct stat_ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'p':
		return set_target(c, STAT_PID, "-p", arg);
	case 't':
		return set_target(c, STAT_TID, "-t", arg);
	case 'a':
		c->all_cpus = true;
		return set_target(c, STAT_CPU, "-a", arg);
	case 'C':
		return parse_cpus(c, arg);
	case 'G':
		if (c->rep.cgroup || strchr(arg, ',')) {
			tool_err("-G: one cgroup, counted for every event");
			return -1;
		}
		c->rep.cgroup = arg;
		return 0;
	case OPT_PER_THREAD:
		return set_aggr(c, AGGR_THREAD, false);
	case 'A':
		return set_aggr(c, AGGR_THREAD, true);
	case OPT_PER_CORE:
		return set_aggr(c, AGGR_CORE, false);
	case OPT_PER_SOCKET:
		return set_aggr(c, AGGR_SOCKET, false);
	case OPT_PER_NODE:
		return set_aggr(c, AGGR_NODE, false);
	case OPT_PER_DIE:
		return set_aggr(c, AGGR_DIE, false);
	case OPT_PER_CLUSTER:
		return set_aggr(c, AGGR_CLUSTER, false);
	case OPT_PER_CACHE:
		if (arg && strcmp(arg, "L3") && strcmp(arg, "l3")) {
			tool_err("--per-cache=%s: pctr groups CPUs by their "
				 "last level cache (L3) only", arg);
			return -1;
		}
		return set_aggr(c, AGGR_CACHE, false);
	}
	return parse_run_option(c, opt, arg) ? -1 : 0;
}

/*
 * how the counts are written: repeated, at intervals, their number form,
 * the layout, the file
 */
static int
parse_output_option(struct stat_ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case 'r':
		c->rep.repeated = true;
		return parse_long("-r", arg, 1, 100000, &c->repeat);
	case 'I':
		c->rep.interval = true;
		return parse_long("-I", arg, 10, 3600000, &c->interval_ms);
	case OPT_INTERVAL_COUNT:
		return parse_long("--interval-count", arg, 1, 0x7fffffff,
				  &c->interval_count);
	case 'B':
		fmt_big_num = true;
		return 0;
	case OPT_NO_BIG_NUM:
		fmt_big_num = false;
		return 0;
	case 'j':
		return set_format(c, FMT_PERF_JSON, ",");
	case 'x':
		return set_format(c, FMT_PERF_CSV, arg);
	case OPT_FORMAT:
		return parse_format(c, arg);
	case 'o':
		c->output = arg;
		return 0;
	case OPT_APPEND:
		c->rep.append = true;
		return 0;
	}
	return parse_target_option(c, opt, arg);
}

/* what each event counts, and how the events go on the counters */
static int
parse_option(struct stat_ctx *c, int opt, const char *arg)
{
	switch (opt) {
	case OPT_ALL_USER:
		return set_priv(c, 'u');
	case OPT_ALL_KERNEL:
		return set_priv(c, 'k');
	case 'e':
		return add_events(c, arg);
	case 'd':
		c->detailed += c->detailed < 3;
		return 0;
	case 'g':
		c->group_all = true;
		return 0;
	case OPT_SCALE: /* perf's default: counts are always scaled */
		return 0;
	case OPT_METRIC_NO_GROUP: /* -M groups only the top-down events, */
		return 0;	  /* which perf's --metric-no-group keeps too */
	case 'M':
		return metric_parse(arg, &c->rep.metrics);
	case OPT_STRICT:
		c->strict = true;
		return 0;
	case OPT_NO_MULTIPLEX:
		c->rep.multiplex = false;
		return 0;
	}
	return parse_output_option(c, opt, arg);
}

static int
bad_option(int opt, char **argv)
{
	const char *given = argv[optind - 1];

	if (opt == ':')
		tool_err("option '%s' needs a value", given);
	else if (optopt)
		tool_err("unknown option '-%c'", optopt);
	else
		tool_err("unknown option '%s'", given);
	fprintf(stderr, "Try 'pctr stat --help'.\n");
	return EXIT_USAGE;
}

static int
check_more_options(struct stat_ctx *c)
{
	if (c->rep.aggr > AGGR_THREAD && c->rep.target != STAT_CPU)
		tool_err("--per-core, --per-socket, --per-node, --per-die, "
			 "--per-cluster, --per-cache: give -a (they group the "
			 "counts of CPUs)");
	else if (c->no_aggr && c->rep.target != STAT_CPU)
		tool_err("-A: give -a (it shows each CPU's counts)");
	else if (c->rep.per_thread && c->rep.target == STAT_COMMAND)
		tool_err("--per-thread: give -p or -t (a command's threads "
			 "are counted together; count a running process with "
			 "-p PID to see each thread)");
	else if (c->interval_count && !c->interval_ms)
		tool_err("--interval-count: give -I too");
	else if (c->rep.append && (!c->output || !strcmp(c->output, "-")))
		tool_err("--append: give -o FILE (the file to add to)");
	else if (c->delay_ms < 0 && c->ctl_fd < 0)
		tool_err("-D -1: counting waits for 'enable' on --control: "
			 "give --control fd:CTL");
	else if (c->ctl_fd >= 0 && fcntl(c->ctl_fd, F_GETFD) < 0)
		tool_err("--control: descriptor %d is not open", c->ctl_fd);
	else if (c->ack_fd >= 0 && fcntl(c->ack_fd, F_GETFD) < 0)
		tool_err("--control: descriptor %d is not open", c->ack_fd);
	else
		return 0;
	return -1;
}

/* perf stat's flags of how a run goes, against the others */
static int
check_run_options(struct stat_ctx *c)
{
	if (c->quiet && (c->output || c->log_fd >= 0))
		tool_err("--quiet: writes no report; -o and --log-fd say "
			 "where to write one");
	else if (c->log_fd >= 0 && c->output)
		tool_err("--log-fd and -o cannot be used together");
	else if (c->log_fd >= 0 && fcntl((int)c->log_fd, F_GETFD) < 0)
		tool_err("--log-fd: descriptor %ld is not open", c->log_fd);
	else if (c->timeout && c->rep.target != STAT_COMMAND)
		tool_err("--timeout: with -p, -t or -a, give --duration "
			 "SECONDS");
	else if ((c->pre || c->post || c->sync) &&
		 c->rep.target != STAT_COMMAND)
		tool_err("--pre, --post, -S: they run around each run of a "
			 "command, not with -p, -t or -a");
	else if (c->timeout && c->repeat > 1)
		tool_err("--timeout: not with -r (each run would be cut)");
	else
		return 0;
	return -1;
}

/* the combinations that make no sense, each said plainly */
static int
check_options(struct stat_ctx *c)
{
	bool attach;

	/* -C alone counts those CPUs, as perf stat -C does (-a implied) */
	if (c->rep.nr_cpus && !c->all_cpus &&
	    c->rep.target == STAT_COMMAND && !c->rep.cgroup) {
		c->rep.target = STAT_CPU;
		c->all_cpus = true;
	}
	attach = c->rep.target != STAT_COMMAND;
	if (check_run_options(c) < 0)
		return -1;
	if (c->rep.nr_cpus && !c->all_cpus)
		tool_err("-C: give -a too (-C chooses the CPUs of -a)");
	else if (c->rep.cgroup && !c->all_cpus)
		tool_err("-G: give -a too (a cgroup is counted on whole "
			 "CPUs, as with perf stat -a -G)");
	else if (!attach && !c->rep.argv)
		tool_err("nothing to count: give a command (after --), or "
			 "-p PID, -t TID or -a");
	else if (attach && c->repeat > 1)
		tool_err("-r: repeating needs a command started by pctr, not "
			 "-p, -t or -a");
	else if (c->duration > 0 && !c->timeout && (!attach || c->rep.argv))
		tool_err("--duration: only when attaching with -p, -t or -a "
			 "and no command (a command is counted for its whole "
			 "life)");
	else
		return check_more_options(c);
	return -1;
}

int
stat_parse_options(struct stat_ctx *c, int argc, char **argv)
{
	int opt;

	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "+:e:r:I:p:t:aAC:G:BdD:gM:jx:o:hvqniTS",
				  long_options, NULL)) != -1) {
		if (opt == 'h') {
			usage(stdout);
			exit(0);
		}
		if (opt == '?' || opt == ':')
			return bad_option(opt, argv);
		if (parse_option(c, opt, optarg) < 0)
			return EXIT_USAGE;
	}
	if (optind < argc)
		c->rep.argv = argv + optind;
	return check_options(c) < 0 ? EXIT_USAGE : 0;
}
