/* SPDX-License-Identifier: MIT */
/*
 * test_hw_tool.c - the pctr command on the emulated PMU: pctr stat counts
 * hw_loop (a libc-free program with a known instruction count) exactly,
 * in CSV, JSON and the human report; its default events are hardware ones;
 * -r gives a standard deviation of zero; pctr info and pctr list see the
 * PMU; pctr profile takes floor(count / P) samples, all in the loop, names
 * a forked child's, and unwinds them to main.  The command is a static
 * build of tools/, carried inside this program (embed.py) and written to
 * /tmp/pctr, with hw_chain.c, the program it profiles.
 */
#include <elf.h>
#include <math.h>
#include <stdlib.h>

#include "hw_ovf.h"
#include "hw_prog.h"

HW_BLOB(pctr);
HW_BLOB(hw_chain);

#define PCTR "/tmp/pctr"

static void
install(void)
{
	hw_pmu();
	hw_prog_install(PCTR, hw_blob_pctr, hw_blob_pctr_end);
}

/* pctr stat ARGS... -- hw_loop N, captured */
static void
stat_loop(const char *const *args, uint64_t n, struct hw_run *r)
{
	char *argv[32], arg[32];
	int i = 0;

	argv[i++] = PCTR;
	argv[i++] = "stat";
	while (*args)
		argv[i++] = (char *)*args++;
	snprintf(arg, sizeof(arg), "%llu", (unsigned long long)n);
	argv[i++] = "--";
	argv[i++] = "hw_loop";
	argv[i++] = arg;
	argv[i] = NULL;
	hw_run(argv, NULL, r);
	if (r->status != 0)
		hw_run_show(r, 20);
	ASSERT_EQ(r->status, 0);
}

#define CSV_HEADER                                                            \
	"kind,run,time_ns,id,event,value,scaled,unit,enabled_ns,running_ns,"  \
	"running_pct,note,n,mean,stddev,stderr,ci95_low,ci95_high,median,"    \
	"p5,p95,user_ns,sys_ns,scaled_low,scaled_high,scale\n"

struct csv_row {
	int run;
	char event[64];
	unsigned long long value, scaled;
	char pct[16];
};

/* field @i (from 0) of a CSV line, in @buf; the fields have no quotes */
static const char *
csv_field(const char *line, int i, char *buf, size_t len)
{
	size_t n;

	while (i-- > 0) {
		line += strcspn(line, ",\n");
		ASSERT(*line == ',');
		line++;
	}
	n = strcspn(line, ",\n");
	ASSERT_LT(n, len);
	memcpy(buf, line, n);
	buf[n] = '\0';
	return buf;
}

/* the "total" rows of a CSV report; returns how many */
static int
csv_totals(const char *csv, struct csv_row *rows, int max)
{
	const char *line = csv;
	char b[64];
	int n = 0;

	ASSERT(!strncmp(csv, CSV_HEADER, strlen(CSV_HEADER)));
	while ((line = strchr(line, '\n')) && *++line) {
		struct csv_row *r = &rows[n];

		if (strncmp(line, "total,", 6))
			continue;
		ASSERT_LT(n, max);
		/* total,RUN,TIME,ID,EVENT,VALUE,SCALED,UNIT,EN,RUN,PCT,NOTE */
		r->run = atoi(csv_field(line, 1, b, sizeof(b)));
		csv_field(line, 4, r->event, sizeof(r->event));
		r->value = strtoull(csv_field(line, 5, b, sizeof(b)), NULL, 10);
		r->scaled = strtoull(csv_field(line, 6, b, sizeof(b)), NULL, 10);
		csv_field(line, 10, r->pct, sizeof(r->pct));
		n++;
	}
	return n;
}

/* the value of the one "total" row of @event in run @run */
static unsigned long long
csv_value(const char *csv, int run, const char *event)
{
	struct csv_row rows[32];
	int n = csv_totals(csv, rows, 32), found = -1;

	for (int i = 0; i < n; i++) {
		if (rows[i].run == run && !strcmp(rows[i].event, event)) {
			ASSERT_EQ(found, -1);
			found = i;
		}
	}
	if (found < 0)
		TEST_FAIL("no total row of %s, run %d in:\n%s", event, run,
			  csv);
	/* one event, never multiplexed: counted all the time */
	ASSERT_STR_EQ(rows[found].pct, "100.00");
	ASSERT_UEQ(rows[found].scaled, rows[found].value);
	return rows[found].value;
}

/* pctr stat --format=pctr-csv -e instructions:u -- hw_loop N: its count */
TEST(stat_exact_instructions)
{
	static const char *const args[] = { "--format=pctr-csv", "-o", "-",
					    "-e", "instructions:u", NULL };
	static const uint64_t ns[] = { 1000000, 2000000, 30000000,
				       60000000 };
	unsigned long long v[4];
	struct hw_run r;

	install();
	for (int i = 0; i < 4; i++) {
		stat_loop(args, ns[i], &r);
		v[i] = csv_value(r.out, 1, "instructions:u");
		printf("# pctr stat, hw_loop %llu: %llu instructions:u, "
		       "expected %llu\n", (unsigned long long)ns[i], v[i],
		       (unsigned long long)hw_loop_exec_count(ns[i]));
		ASSERT_UEQ(v[i], hw_loop_exec_count(ns[i]));
	}
	/* N and 2N (as many digits): the difference is the loop body, 2N */
	ASSERT_UEQ(v[1] - v[0], 2 * ns[0]);
	ASSERT_UEQ(v[3] - v[2], 2 * ns[2]);
}

/* the default report goes to stderr, numbers grouped; stdout stays clean */
TEST(stat_human_report_exact)
{
	static const char *const args[] = { "-e", "instructions:u", NULL };
	char want[64];
	uint64_t n = 1000000, c = hw_loop_exec_count(n);
	struct hw_run r;

	install();
	stat_loop(args, n, &r);
	ASSERT_STR_EQ(r.out, "");
	snprintf(want, sizeof(want), " %llu,%03llu,%03llu ",
		 (unsigned long long)(c / 1000000),
		 (unsigned long long)(c / 1000 % 1000),
		 (unsigned long long)(c % 1000));
	printf("# looking for \"%s\" in the report\n", want);
	ASSERT_CONTAINS(r.err, "instructions:u");
	ASSERT_CONTAINS(r.err, want);
	ASSERT_CONTAINS(r.err, "command exit status 0");
}

/*
 * Without -e: the hardware events this PMU has (cycles, instructions) are
 * counted, and the line that says there are none is absent.
 */
TEST(stat_default_events_hardware)
{
	static const char *const args[] = { "--format=pctr-csv", "-o", "-",
					    NULL };
	uint64_t n = 1000000;
	struct hw_run r;

	install();
	stat_loop(args, n, &r);
	printf("# %s", r.out);
	ASSERT(strstr(r.out, "no hardware events") == NULL);
	ASSERT(strstr(r.err, "no hardware events") == NULL);
	/* user and kernel: at least the loop's own */
	ASSERT_GE(csv_value(r.out, 1, "instructions"), hw_loop_exec_count(n));
	ASSERT_GE(csv_value(r.out, 1, "cycles"), 2 * n);
	ASSERT_GT(csv_value(r.out, 1, "task-clock"), 0);
}

static double
json_number_after(const char *json, const char *from, const char *key)
{
	const char *p = strstr(json, from);
	char k[64];

	if (!p)
		TEST_FAIL("no %s in:\n%s", from, json);
	snprintf(k, sizeof(k), "\"%s\": ", key);
	p = strstr(p, k);
	if (!p)
		TEST_FAIL("no %s after %s", k, from);
	return strtod(p + strlen(k), NULL);
}

/*
 * -M ipc,ghz alone counts their events only (instructions, cycles and
 * task-clock), and each metric is the ratio of its events' counts in the
 * same report: the same doubles divided, so equal to the last bit.
 */
TEST(stat_metrics_from_their_events)
{
	static const char *const args[] = { "-M", "ipc,ghz",
					    "--format=pctr-json", "-o", "-",
					    NULL };
	double ins, cyc, tc;
	struct hw_run r;

	install();
	stat_loop(args, 1000000, &r);
	ASSERT(strstr(r.out, "\"name\": \"page-faults\"") == NULL);
	ins = json_number_after(r.out, "\"name\": \"instructions\"", "value");
	cyc = json_number_after(r.out, "\"name\": \"cycles\"", "value");
	tc = json_number_after(r.out, "\"name\": \"task-clock\"", "value");
	ASSERT_GE(ins, hw_loop_exec_count(1000000));
	printf("# ipc %.6f, ghz %.6f\n", ins / cyc, cyc / tc);
	ASSERT(json_number_after(r.out, "\"name\": \"ipc\"", "mean") ==
	       ins / cyc);
	ASSERT(json_number_after(r.out, "\"name\": \"ghz\"", "mean") ==
	       cyc / tc);
	/* and pctr list metrics says ipc is countable here */
	{
		char *argv[] = { PCTR, "list", "metrics", "--json", NULL };
		const char *p, *c;

		hw_run(argv, NULL, &r);
		ASSERT_EQ(r.status, 0);
		p = strstr(r.out, "\"name\": \"ipc\"");
		ASSERT(p != NULL);
		c = strstr(p, "\"countable\": true");
		ASSERT(c != NULL && c < strchr(p, '}'));
	}
}

/* -r 3 over an exact loop: three equal counts, standard deviation 0 */
TEST(stat_repeat_stddev_zero)
{
	static const char *const csv[] = { "-r", "3", "--format=pctr-csv",
					   "-o", "-", "-e", "instructions:u",
					   NULL };
	static const char *const json[] = { "-r", "3", "--format=pctr-json",
					    "-o", "-", "-e", "instructions:u",
					    NULL };
	uint64_t n = 10000000, c = hw_loop_exec_count(n);
	const char *ev = "\"name\": \"instructions:u\"";
	struct hw_run r;

	install();
	stat_loop(csv, n, &r);
	for (int run = 1; run <= 3; run++)
		ASSERT_UEQ(csv_value(r.out, run, "instructions:u"), c);
	stat_loop(json, n, &r);
	ASSERT_CONTAINS(r.out, "\"runs\": 3");
	printf("# -r 3: n %g min %.0f mean %.0f max %.0f stddev %g\n",
	       json_number_after(r.out, ev, "n"),
	       json_number_after(r.out, ev, "min"),
	       json_number_after(r.out, ev, "mean"),
	       json_number_after(r.out, ev, "max"),
	       json_number_after(r.out, ev, "stddev"));
	ASSERT(json_number_after(r.out, ev, "n") == 3);
	ASSERT(json_number_after(r.out, ev, "min") == (double)c);
	ASSERT(json_number_after(r.out, ev, "mean") == (double)c);
	ASSERT(json_number_after(r.out, ev, "max") == (double)c);
	ASSERT(json_number_after(r.out, ev, "stddev") == 0);
	/* no spread: the mean is known exactly, its interval is the mean */
	ASSERT(json_number_after(r.out, ev, "stderr") == 0);
	ASSERT(json_number_after(r.out, ev, "median") == (double)c);
}

/*
 * 11 instruction events on the 6 counters, -r 5: each run's total row of
 * each event carries the interval of its scaled count (pctr stat reads
 * the counters every 10 ms for it), which holds the scaled count always
 * and the exact count in at least 95% of the rows, as the library's
 * intervals do in test_hw_mux.  Fields from 0: 6 scaled, 10 running_pct,
 * 23 scaled_low, 24 scaled_high.
 */
#define MUX_EVENTS "instructions:u,instructions:u,instructions:u,"       \
		   "instructions:u,instructions:u,instructions:u,"       \
		   "instructions:u,instructions:u,instructions:u,"       \
		   "instructions:u,instructions:u"

TEST(stat_multiplexed_interval)
{
	static const char *const csv[] = { "-r", "5", "--format=pctr-csv",
					   "-o", "-", "-e", MUX_EVENTS, NULL };
	static const char *const human[] = { "-e", MUX_EVENTS, NULL };
	uint64_t n = 50000000;
	double exact = (double)hw_loop_exec_count(n), wmax = 0;
	const char *line;
	int rows = 0, held = 0;
	struct hw_run r;
	char b[64];

	install();
	stat_loop(csv, n, &r);
	for (line = r.out; (line = strstr(line, "\ntotal,")); rows++) {
		double sc, lo, hi;

		line++;
		ASSERT(atof(csv_field(line, 10, b, sizeof(b))) < 100.0);
		sc = atof(csv_field(line, 6, b, sizeof(b)));
		ASSERT(*csv_field(line, 23, b, sizeof(b)));
		lo = atof(b);
		ASSERT(*csv_field(line, 24, b, sizeof(b)));
		hi = atof(b);
		/* the CSV rounds each figure to an integer: 1 either way */
		ASSERT(lo <= sc + 1 && sc <= hi + 1);
		held += lo <= exact && exact <= hi;
		wmax = fmax(wmax, (hi - lo) / exact);
	}
	printf("# pctr stat -r 5, 11 events: %d of %d intervals held the "
	       "exact count %.0f, the widest %.3f%% of it\n", held, rows,
	       exact, 100.0 * wmax);
	ASSERT_EQ(rows, 55);
	ASSERT_GE(held * 100, rows * 95);
	/* one run: the report (stderr) shows the interval after the share */
	stat_loop(human, n, &r);
	for (line = r.err; (line = strstr(line, "\n instructions:u")); rows++) {
		char one[256];
		size_t len = strcspn(++line, "\n");

		ASSERT_LT(len, sizeof(one));
		memcpy(one, line, len);
		one[len] = '\0';
		if (rows == 55)
			printf("# %s\n", one);
		ASSERT_CONTAINS(one, "%  [");
		ASSERT_CONTAINS(one, " .. ");
	}
	ASSERT_EQ(rows, 55 + 11);
}

/*
 * The same events on a command of 5e6 instructions, 5 ms of guest time:
 * the kernel rotates the groups at least once (every 4 ms at HZ 250), so
 * the counts are multiplexed, and the command ends before pctr stat's
 * first read for the intervals (at 10 ms): one slice, one rate, no
 * interval.  Every multiplexed row has empty bounds, and the report says
 * why instead of showing a number.
 */
TEST(stat_short_multiplexed_unknown)
{
	static const char *const csv[] = { "--format=pctr-csv", "-o", "-",
					   "-e", MUX_EVENTS, NULL };
	static const char *const human[] = { "-e", MUX_EVENTS, NULL };
	uint64_t n = 2500000;
	int rows = 0, mux = 0, unknown = 0;
	const char *line;
	struct hw_run r;
	char b[64];

	install();
	stat_loop(csv, n, &r);
	for (line = r.out; (line = strstr(line, "\ntotal,")); rows++) {
		line++;
		printf("# %.*s\n", (int)strcspn(line, "\n"), line);
		if (atof(csv_field(line, 10, b, sizeof(b))) >= 100.0 ||
		    !strcmp(csv_field(line, 9, b, sizeof(b)), "0"))
			continue; /* exact, or never ran */
		mux++;
		ASSERT_STR_EQ(csv_field(line, 23, b, sizeof(b)), "");
		ASSERT_STR_EQ(csv_field(line, 24, b, sizeof(b)), "");
	}
	ASSERT_EQ(rows, 11);
	ASSERT_GT(mux, 0);
	stat_loop(human, n, &r);
	for (line = r.err; (line = strstr(line, "[interval unknown: too few "
						"reads]"));
	     line++)
		unknown++;
	printf("# %d multiplexed rows in CSV, %d unknown intervals in the "
	       "report\n", mux, unknown);
	ASSERT_GT(unknown, 0);
	ASSERT(strstr(r.err, " .. ") == NULL);
}

/*
 * A pinned group of instruction events as large as the counters that
 * count instructions (arm64: its 6 event counters; x86: fixed counter 0
 * and the 4 general ones, 5) holds them for the whole run (pinned is the
 * leader's: the kernel refuses a pinned member with EINVAL), so one more,
 * not pinned, is enabled and never finds room: its row says "not
 * counted", the report shows no number for it, its interval is empty;
 * the pinned ones count hw_loop exactly.
 */
#define INST_COUNTERS (HW_ARCH[0] == 'x' ? 5 : 6)

/* "{instructions:uD,instructions:u,...},instructions:u" */
static const char *
pinned_all(char *buf, size_t len)
{
	snprintf(buf, len, "{instructions:uD");
	for (int i = 1; i < INST_COUNTERS; i++)
		strncat(buf, ",instructions:u", len - strlen(buf) - 1);
	strncat(buf, "},instructions:u", len - strlen(buf) - 1);
	return buf;
}

/*
 * The "total" rows of run 1 of a CSV report: INST_COUNTERS events (named
 * @counted, if not NULL) counting hw_loop N exactly, then one
 * instructions:u that never ran on a counter and says so, no interval.
 */
static void
check_counted_then_never(const char *out, const char *counted, uint64_t n)
{
	const char *line, *p;
	int rows = 0;
	char b[128];

	for (p = out; (p = strstr(p, "\ntotal,1,")); rows++) {
		line = ++p;
		printf("# %.*s\n", (int)strcspn(line, "\n"), line);
		if (rows < INST_COUNTERS) {
			if (counted)
				ASSERT_STR_EQ(csv_field(line, 4, b, sizeof(b)),
					      counted);
			ASSERT_UEQ(strtoull(csv_field(line, 5, b, sizeof(b)),
					    NULL, 10),
				   hw_loop_exec_count(n));
			continue;
		}
		ASSERT_STR_EQ(csv_field(line, 4, b, sizeof(b)),
			      "instructions:u");
		ASSERT_STR_EQ(csv_field(line, 9, b, sizeof(b)), "0");
		ASSERT_STR_EQ(csv_field(line, 11, b, sizeof(b)),
			      "not counted: the event never ran on a counter");
		ASSERT_STR_EQ(csv_field(line, 23, b, sizeof(b)), "");
		ASSERT_STR_EQ(csv_field(line, 24, b, sizeof(b)), "");
	}
	ASSERT_EQ(rows, INST_COUNTERS + 1);
}

TEST(stat_never_ran_not_counted)
{
	char events[256];
	const char *const csv[] = { "--format=pctr-csv", "-o", "-", "-e",
				    pinned_all(events, sizeof(events)), NULL };
	const char *const human[] = { "-e", events, NULL };
	uint64_t n = 1000000;
	const char *line, *p;
	int never = 0;
	struct hw_run r;

	install();
	stat_loop(csv, n, &r);
	check_counted_then_never(r.out, NULL, n);
	stat_loop(human, n, &r);
	for (line = r.err; *line; line += line[strcspn(line, "\n")] != 0) {
		size_t len = strcspn(line, "\n");

		printf("# %.*s\n", (int)len, line);
		p = strstr(line, "<not counted>");
		if (p && p < line + len) {
			never++;
			ASSERT(strstr(p, "never") && strstr(p, "never") <
							     line + len);
		}
		line += len;
	}
	ASSERT_EQ(never, 1);
}

/*
 * The same number of pinned events, each on its own (D on every one, no
 * braces), and one more: each pinned event is a group of its own and the
 * free one joins none of them, so the pinned ones count hw_loop exactly
 * and the free one never runs.  (When the free event joined the last
 * pinned one's group, that group of two did not fit beside the others
 * and counted nothing, reported as "never ran".)
 */
TEST(stat_pinned_events_keep_their_counters)
{
	char events[256] = "instructions:uD";
	const char *const csv[] = { "--format=pctr-csv", "-o", "-", "-e",
				    events, NULL };
	uint64_t n = 1000000;
	struct hw_run r;

	for (int i = 1; i < INST_COUNTERS; i++)
		strncat(events, ",instructions:uD",
			sizeof(events) - strlen(events) - 1);
	strncat(events, ",instructions:u", sizeof(events) - strlen(events) - 1);
	install();
	stat_loop(csv, n, &r);
	check_counted_then_never(r.out, "instructions:uD", n);
}

/*
 * An event this PMU lacks, alone: the command runs, as under perf stat,
 * and its row says not supported and why; with --strict, refused, nothing
 * on stdout.
 */
TEST(stat_unsupported_event)
{
	char *argv[] = { PCTR, "stat", "--format=pctr-csv", "-o", "-", "-e",
			 "branch-misses", "--", "hw_loop", "1000", NULL };
	char *strict[] = { PCTR, "stat", "--strict", "--format=pctr-csv",
			   "-o", "-", "-e", "branch-misses", "--", "hw_loop",
			   "1000", NULL };
	struct hw_run r;

	install();
	hw_run(argv, NULL, &r);
	hw_run_show(&r, 3);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "not supported: cannot count 'branch-misses'");
	hw_run(strict, NULL, &r);
	hw_run_show(&r, 3);
	ASSERT_NE(r.status, 0);
	ASSERT_STR_EQ(r.out, "");
	ASSERT_CONTAINS(r.err, "branch-misses");
}

TEST(info_json_has_pmu)
{
	char *argv[] = { PCTR, "info", "--json", NULL };
	char want[96];
	struct hw_run r;

	install();
	hw_run(argv, NULL, &r);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\"schema\": \"pctr-info/1\"");
	ASSERT_CONTAINS(r.out, "\"arch\": \"" HW_ARCH "\"");
	ASSERT_CONTAINS(r.out, "\"has_pmu\": true");
	snprintf(want, sizeof(want), "\"name\": \"%s\"", hw_pmu());
	ASSERT_CONTAINS(r.out, want);
	ASSERT(strstr(r.out, "\"has_pmu\": false") == NULL);
}

TEST(list_shows_pmu_events)
{
	char *argv[] = { PCTR, "list", NULL };
	char want[96];
	struct hw_run r;

	install();
	hw_run(argv, NULL, &r);
	ASSERT_EQ(r.status, 0);
	printf("# PMU %s\n", hw_pmu());
	snprintf(want, sizeof(want), "%s/" HW_EV_INST "/", hw_pmu());
	ASSERT_CONTAINS(r.out, want);
	snprintf(want, sizeof(want), "%s/" HW_EV_CYCLES "/", hw_pmu());
	ASSERT_CONTAINS(r.out, want);
	ASSERT_CONTAINS(r.out, "instructions");
	/* and the pattern narrows the list to them */
	{
		char *argv2[] = { PCTR, "list", HW_EV_INST, NULL };

		hw_run(argv2, NULL, &r);
		ASSERT_EQ(r.status, 0);
		snprintf(want, sizeof(want), "%s/" HW_EV_INST "/", hw_pmu());
		ASSERT_CONTAINS(r.out, want);
		ASSERT(strstr(r.out, "task-clock") == NULL);
	}
}

/* ---- pctr profile ------------------------------------------------------ */

#define CHAIN "/tmp/hw_chain"

struct range {
	uint64_t lo, hi;
};

/* where function @name of the static program @path is: its symbol */
static struct range
elf_function(const char *path, const char *name)
{
	struct stat sb;
	char *img;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;

	ASSERT(fd >= 0);
	ASSERT_OK(fstat(fd, &sb));
	img = malloc((size_t)sb.st_size);
	ASSERT(img != NULL);
	ASSERT_EQ(read(fd, img, (size_t)sb.st_size), sb.st_size);
	close(fd);
	eh = (const Elf64_Ehdr *)img;
	ASSERT(memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0);
	/* a fixed address: what the samples show is what the file says */
	ASSERT_EQ(eh->e_type, ET_EXEC);
	sh = (const Elf64_Shdr *)(img + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym = (const void *)(img + sh[i].sh_offset);
		const char *str = img + sh[sh[i].sh_link].sh_offset;

		if (sh[i].sh_type != SHT_SYMTAB)
			continue;
		for (size_t k = 0; k < sh[i].sh_size / sizeof(*sym); k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) == STT_FUNC &&
			    !strcmp(str + sym[k].st_name, name)) {
				struct range r = { sym[k].st_value,
						   sym[k].st_value +
							   sym[k].st_size };

				free(img);
				ASSERT_GT(r.hi, r.lo);
				return r;
			}
		}
	}
	TEST_FAIL("%s: no function %s", path, name);
}

#define MAX_FRAMES 32

struct stack {
	char comm[32];
	uint64_t frame[MAX_FRAMES]; /* root first */
	int nr;
	unsigned long long count;
};

/*
 * The lines of a --folded report, "COMM;ROOT;...;LEAF COUNT".  The
 * guest's pctr has no libdw: user frames are addresses ("0x4005d0").
 */
static int
folded(const char *out, struct stack *st, int max)
{
	int n = 0;

	for (const char *l = out; *l; l += strcspn(l, "\n") + 1) {
		size_t len = strcspn(l, "\n");
		const char *sp = memrchr(l, ' ', len), *p = l;
		struct stack *s = &st[n];

		if (!len)
			break;
		ASSERT_LT(n, max);
		if (!sp)
			TEST_FAIL("not a folded line: %.*s", (int)len, l);
		s->count = strtoull(sp + 1, NULL, 10);
		len = strcspn(p, ";");
		ASSERT_LT(len, sizeof(s->comm));
		memcpy(s->comm, p, len);
		s->comm[len] = '\0';
		p += len;
		s->nr = 0;
		while (*p == ';' && p < sp) {
			char *end;

			ASSERT_LT(s->nr, MAX_FRAMES);
			s->frame[s->nr++] = strtoull(p + 1, &end, 16);
			if (strncmp(p + 1, "0x", 2) || (*end != ';' && end != sp))
				TEST_FAIL("frame %d of %.*s is no address",
					  s->nr, (int)(strcspn(l, "\n")), l);
			p = end;
		}
		n++;
		if (!l[strcspn(l, "\n")])
			break;
	}
	return n;
}

static int
in(uint64_t a, struct range r)
{
	return a >= r.lo && a < r.hi;
}

/*
 * pctr profile -e EVENT -c P OPTIONS -o - -- hw_chain N [ARG]:
 * with 2N = K P + P / 2 (hw_ovf.h) the program runs K periods and a half
 * in its loop, and far less than P / 2 outside it (a static program's
 * start-up and exit, the fork: a few hundred thousand instructions at
 * most, printed by profile_period_exact's JSON), so the counter overflows
 * exactly K times, every time inside the loop.  EVENT: instructions:u,
 * or cycles:u (a user-mode cycle is an instruction under -icount
 * shift=0).
 */
static void
profile_chain(const char *event, const char *const *opts, const char *arg,
	      struct hw_run *r)
{
	char *argv[32], nbuf[32], pbuf[32];
	uint64_t p = HW_OVF_PERIOD, n = hw_ovf_iterations(p, HW_OVF_K);
	int i = 0;

	install();
	hw_prog_install(CHAIN, hw_blob_hw_chain, hw_blob_hw_chain_end);
	snprintf(nbuf, sizeof(nbuf), "%llu", (unsigned long long)n);
	snprintf(pbuf, sizeof(pbuf), "%llu", (unsigned long long)p);
	argv[i++] = PCTR;
	argv[i++] = "profile";
	argv[i++] = "-e";
	argv[i++] = (char *)event;
	argv[i++] = "-c";
	argv[i++] = pbuf;
	while (*opts)
		argv[i++] = (char *)*opts++;
	argv[i++] = "-o";
	argv[i++] = "-";
	argv[i++] = "--";
	argv[i++] = CHAIN;
	argv[i++] = nbuf;
	if (arg)
		argv[i++] = (char *)arg;
	argv[i] = NULL;
	hw_run(argv, NULL, r);
	if (r->status != 0)
		hw_run_show(r, 20);
	ASSERT_EQ(r->status, 0);
}

/*
 * The samples of a folded report, all of @comm: every stack at least
 * @min_frames deep, its leaf in the loop.
 */
static unsigned long long
folded_total(const char *out, const char *comm, int min_frames)
{
	static struct stack st[256];
	struct range loop = elf_function(CHAIN, "hw_loop");
	int nr = folded(out, st, 256);
	unsigned long long total = 0;

	printf("# %d stacks; hw_loop at [%#llx, %#llx)\n", nr,
	       (unsigned long long)loop.lo, (unsigned long long)loop.hi);
	for (int i = 0; i < nr; i++) {
		printf("# %s, %d frames, leaf %#llx: %llu\n", st[i].comm,
		       st[i].nr, (unsigned long long)st[i].frame[st[i].nr - 1],
		       st[i].count);
		ASSERT_STR_EQ(st[i].comm, comm);
		ASSERT_GE(st[i].nr, min_frames);
		ASSERT(in(st[i].frame[st[i].nr - 1], loop));
		total += st[i].count;
	}
	return total;
}

/* a compact JSON document's integer member @key (its first) */
static unsigned long long
json_int(const char *json, const char *key)
{
	char k[64];
	const char *p;

	snprintf(k, sizeof(k), "\"%s\":", key);
	p = strstr(json, k);
	if (!p)
		TEST_FAIL("no %s in:\n%s", k, json);
	return strtoull(p + strlen(k), NULL, 10);
}

/* K samples exactly, every one in the loop; the JSON says K, none lost */
TEST(profile_period_exact)
{
	static const char *const fold[] = { "--folded", NULL };
	static const char *const json[] = { "--json", NULL };
	static const char *const events[] = { "instructions:u", "cycles:u" };
	char want[64];
	struct hw_run r;

	for (int e = 0; e < 2; e++) {
		profile_chain(events[e], fold, NULL, &r);
		ASSERT_UEQ(folded_total(r.out, "hw_chain", 1), HW_OVF_K);
		profile_chain(events[e], json, NULL, &r);
		printf("# %s\n", r.out);
		ASSERT_UEQ(json_int(r.out, "samples"), HW_OVF_K);
		ASSERT_UEQ(json_int(r.out, "lost"), 0);
		ASSERT_UEQ(json_int(r.out, "period"), HW_OVF_PERIOD);
		snprintf(want, sizeof(want), "\"event\":\"%s\"", events[e]);
		ASSERT_CONTAINS(r.out, want);
		/* by address (no libdw here), in the module MMAP2 named */
		ASSERT_CONTAINS(r.out, "\"module\":\"hw_chain\"");
		ASSERT(strstr(r.out, "\"module\":\"?\"") == NULL);
	}
}

/*
 * The loop in a forked child that renamed itself: every sample is the
 * child's (its COMM record), K of them (the counter is inherited at the
 * fork with a period of its own); the parent runs less than a period.
 */
TEST(profile_forked_child)
{
	static const char *const fold[] = { "--folded", NULL };
	struct hw_run r;

	profile_chain("instructions:u", fold, "fork", &r);
	ASSERT_UEQ(folded_total(r.out, "hw_child", 1), HW_OVF_K);
}

/*
 * -g: frame pointers from the loop to main.  hw_loop() has no frame, so
 * its caller inner() is not seen (its return address is in a register):
 * the leaf's parent is outer(), then main(); what is above main (the C
 * library's start, built without frame pointers) is not checked.
 */
TEST(profile_call_chain_to_main)
{
	static const char *const fold[] = { "-g", "--folded", NULL };
	static struct stack st[256];
	struct range outer, mainf;
	struct hw_run r;
	int nr;

	profile_chain("instructions:u", fold, NULL, &r);
	ASSERT_UEQ(folded_total(r.out, "hw_chain", 3), HW_OVF_K);
	outer = elf_function(CHAIN, "outer");
	mainf = elf_function(CHAIN, "main");
	nr = folded(r.out, st, 256);
	for (int i = 0; i < nr; i++) {
		const uint64_t *f = st[i].frame + st[i].nr;

		printf("# callers %#llx %#llx; outer() at %#llx, main() at "
		       "%#llx\n",
		       (unsigned long long)f[-2], (unsigned long long)f[-3],
		       (unsigned long long)outer.lo,
		       (unsigned long long)mainf.lo);
		ASSERT(in(f[-2], outer));
		ASSERT(in(f[-3], mainf));
	}
}

int
main(void)
{
	return test_main(TESTS(
		TEST_CASE(stat_exact_instructions)
		TEST_CASE(stat_human_report_exact)
		TEST_CASE(stat_default_events_hardware)
		TEST_CASE(stat_metrics_from_their_events)
		TEST_CASE(stat_repeat_stddev_zero)
		TEST_CASE(stat_multiplexed_interval)
		TEST_CASE(stat_short_multiplexed_unknown)
		TEST_CASE(stat_never_ran_not_counted)
		TEST_CASE(stat_pinned_events_keep_their_counters)
		TEST_CASE(stat_unsupported_event)
		TEST_CASE(info_json_has_pmu)
		TEST_CASE(list_shows_pmu_events)
		TEST_CASE(profile_period_exact)
		TEST_CASE(profile_forked_child)
		TEST_CASE(profile_call_chain_to_main)));
}
