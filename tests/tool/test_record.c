/* SPDX-License-Identifier: MIT */
/*
 * test_record - pctr record, report and script, judged by Debian's perf
 * on the same files: perf script reads the times, CPUs, threads and
 * periods pctr record wrote, filters on them (--time), and perf report
 * --header shows the feature sections (hostname, OS release, CPUs,
 * command line, event; build-ids of the modules hit, against readelf's);
 * pctr script prints what perf script prints, field for field.  The
 * workload is profile_chain (main -> a -> b -> hot, frame pointers).
 */
#include <linux/perf_event.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "tool.h"

static const char *
chain_prog(void)
{
	const char *p = getenv("PROFILE_CHAIN");

	if (!p)
		SKIP("$PROFILE_CHAIN is not set (run through meson test)");
	return p;
}

/*
 * Now in the perf clock, the clock samples and side-band records are
 * stamped with (perf record's and pctr record's default: the kernel's
 * local_clock(), not CLOCK_MONOTONIC; the two drift apart, by 3.07 ms on
 * this VM after 11 hours up): the time of the COMM record that renaming
 * this thread to its own name makes a counter on it write.
 */
static uint64_t
perf_clock_ns(void)
{
	struct perf_event_attr a = {
		.size = sizeof(a),
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_DUMMY,
		.sample_type = PERF_SAMPLE_TIME,
		.sample_id_all = 1,
		.comm = 1,
		.exclude_kernel = 1,
	};
	long page = sysconf(_SC_PAGESIZE);
	const struct perf_event_header *h;
	struct perf_event_mmap_page *m;
	char name[17] = "";
	uint64_t t;
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1,
			      PERF_FLAG_FD_CLOEXEC);

	ASSERT(fd >= 0);
	m = mmap(NULL, 2 * page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	ASSERT(m != MAP_FAILED);
	ASSERT_EQ(prctl(PR_GET_NAME, name), 0);
	ASSERT_EQ(prctl(PR_SET_NAME, name), 0);
	ASSERT(__atomic_load_n(&m->data_head, __ATOMIC_ACQUIRE) > 0);
	h = (const void *)((const char *)m +
			   (m->data_offset ? m->data_offset : (uint64_t)page));
	ASSERT_EQ(h->type, PERF_RECORD_COMM);
	memcpy(&t, (const char *)h + h->size - sizeof(t), sizeof(t));
	munmap(m, 2 * page);
	close(fd);
	return t;
}

/*
 * a recording of profile_chain MS MODE, a sample every PERIOD ns of
 * task-clock, with -g or without, into @data; of @prog, a copy of
 * profile_chain, where not NULL
 */
static void
record_of(char *data, const char *prog, const char *ms, const char *mode,
	  const char *period, uint64_t *t0, uint64_t *t1, bool chain)
{
	struct result r;
	int fd;

	strcpy(data, "/tmp/pctr-record-XXXXXX");
	fd = mkstemp(data);
	ASSERT(fd >= 0);
	close(fd);
	*t0 = perf_clock_ns();
	r = pctr("record", "-e", "task-clock", "-c", period, "-o", data,
		 chain ? "-g" : "--", chain ? "--" : prog,
		 chain ? prog : ms, chain ? ms : mode,
		 chain ? mode : NULL, NULL);
	*t1 = perf_clock_ns();
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.err, "[ pctr record: Captured and wrote ");
	ASSERT_STR_EQ(r.out, "");
}

static void
record_mode(char *data, const char *ms, const char *mode, const char *period,
	    uint64_t *t0, uint64_t *t1, bool chain)
{
	record_of(data, chain_prog(), ms, mode, period, t0, t1, chain);
}

static void
record_chain(char *data, const char *ms, uint64_t *t0, uint64_t *t1)
{
	record_mode(data, ms, "fork", "1000000", t0, t1, true);
}

static struct result
perf_run(const char *a, const char *b, const char *c, const char *d,
	 const char *e)
{
	char *argv[] = { PERF, (char *)a, (char *)b, (char *)c, (char *)d,
			 (char *)e, NULL };

	return run_in(argv, NULL);
}

/*
 * perf script -F pid,tid,cpu,time,period,ip,sym: every sample has its
 * thread, a CPU that exists, the period it was taken at, and a time in
 * the perf clock between the record's start and end, as read in that
 * clock (perf_clock_ns(); once against CLOCK_MONOTONIC, which it is
 * not: a sample 0.53 ms after the record had ended), increasing over
 * the file; hot is named.  Zeros once: every time was 0.
 */
TEST(perf_script_reads_times_cpus_threads_periods)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF);
	char data[64];
	uint64_t t0, t1, prev = 0, first = 0;
	struct result p;
	int n = 0, hot = 0;
	bool leaf = false;
	char *line, *save;

	needs_perf();
	record_chain(data, "300", &t0, &t1);
	p = perf_run("script", "-i", data, "-F",
		     "pid,tid,cpu,time,period,ip,sym");
	ASSERT_EQ(p.status, 0);
	for (line = strtok_r(p.out, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		int pid, tid, cpu;
		unsigned long s, us;
		unsigned long long period;
		uint64_t t;

		if (line[0] == '\t') { /* a frame of the chain, leaf first */
			hot += leaf && strstr(line, " hot") != NULL;
			leaf = false;
			continue;
		}
		if (sscanf(line, " %d/%d [%d] %lu.%lu: %llu", &pid, &tid, &cpu,
			   &s, &us, &period) != 6)
			TEST_FAIL("a line perf script printed is not "
				  "'PID/TID [CPU] TIME: PERIOD': %s",
				  line);
		t = (uint64_t)s * 1000000000ull + us * 1000;
		ASSERT_GT(pid, 0);
		ASSERT_GT(tid, 0);
		ASSERT(cpu >= 0 && cpu < cpus);
		ASSERT_UEQ(period, 1000000);
		ASSERT_GE(t + 1000, t0);
		ASSERT_LE(t, t1);
		ASSERT_GE(t, prev);
		prev = t;
		first = first ? first : t;
		leaf = true;
		n++;
	}
	printf("# %d samples over %.3f s (the record ran %.3f s), %d in "
	       "hot\n",
	       n, (double)(prev - first) / 1e9, (double)(t1 - t0) / 1e9, hot);
	ASSERT_GE(n, 100);
	ASSERT_GE(hot, n / 2);
	/* the 300 ms of CPU took at least that long */
	ASSERT_GE(prev - first, 250000000ull);
	/* the fields the issue names */
	p = perf_run("script", "-i", data, "-F", "cpu,time,ip,sym");
	ASSERT_EQ(p.status, 0);
	ASSERT_CONTAINS(p.out, " hot");
	unlink(data);
}

/*
 * perf script --time START,END: the samples of that window, and fewer.
 * The window runs from the time of the sample a third of the way in to
 * that of the sample two thirds in: a third of the samples, whatever the
 * load.  A third of the span in wall time held 23 of 308 beside a loaded
 * suite: task-clock samples come with the CPU time the program gets, and
 * a burst of other work can take nearly all of it for a while
 * (tests/repro/repro_task_clock_wall_window: under a sixth of them in
 * such a third).
 */
TEST(perf_script_time_window)
{
	char data[64], win[64], t[2][32];
	uint64_t t0, t1;
	struct result all, part;
	int n_all = 0, n_part = 0, k = 0;
	const char *at;

	needs_perf();
	record_chain(data, "300", &t0, &t1);
	all = perf_run("script", "-i", data, "-F", "time");
	ASSERT_EQ(all.status, 0);
	for (at = all.out; (at = strchr(at, ':')); at++)
		n_all++;
	ASSERT_GE(n_all, 100);
	/* each line " SECS.USECS:": the times of samples n/3 and 2n/3 */
	at = all.out;
	for (int i = 0; i < n_all && k < 2; i++, at = strchr(at, '\n') + 1) {
		if (i == n_all / 3 || i == 2 * n_all / 3)
			ASSERT_EQ(sscanf(at, " %31[0-9.]:", t[k++]), 1);
	}
	ASSERT_EQ(k, 2);
	snprintf(win, sizeof(win), "%s,%s", t[0], t[1]);
	part = run_in((char *[]){ PERF, "script", "-i", data, "-F", "time",
				  "--time", win, NULL },
		      NULL);
	ASSERT_EQ(part.status, 0);
	for (at = part.out; (at = strchr(at, ':')); at++)
		n_part++;
	printf("# %d samples, %d in %s\n", n_all, n_part, win);
	ASSERT_GT(n_part, n_all / 6);
	ASSERT_LT(n_part, n_all / 2);
	unlink(data);
}

/*
 * The side-band records carry their times too (sample_id): perf script
 * shows the program's mapping and the fork at times within the record's
 * run, on a CPU, not at 0.
 */
TEST(sideband_records_have_times)
{
	char data[64], prog[4096], want[4200];
	uint64_t t0, t1;
	struct result p;
	const char *at;
	int cpu;
	unsigned long s, us;
	uint64_t t;

	needs_perf();
	ASSERT(realpath(chain_prog(), prog) != NULL);
	record_chain(data, "50", &t0, &t1);
	p = perf_run("script", "-i", data, "--show-mmap-events",
		     "--show-task-events");
	ASSERT_EQ(p.status, 0);
	snprintf(want, sizeof(want), "r-xp %s\n", prog);
	at = strstr(p.out, want);
	ASSERT(at != NULL);
	while (at > p.out && at[-1] != '\n')
		at--;
	at = strchr(at, '[');
	ASSERT(at != NULL);
	ASSERT_EQ(sscanf(at, "[%d] %lu.%lu: PERF_RECORD_MMAP2", &cpu, &s, &us),
		  3);
	t = (uint64_t)s * 1000000000ull + us * 1000;
	printf("# the program mapped at %lu.%06lu on CPU %d\n", s, us, cpu);
	ASSERT_GE(t + 1000, t0);
	ASSERT_LE(t, t1);
	ASSERT_CONTAINS(p.out, "PERF_RECORD_FORK(");
	ASSERT_CONTAINS(p.out, "PERF_RECORD_EXIT(");
	unlink(data);
}

/* readelf's build-id of @path, in hex, into @id */
static void
readelf_build_id(const char *path, char *id, size_t len)
{
	char cmd[4200];
	FILE *f;

	snprintf(cmd, sizeof(cmd),
		 "readelf -n '%s' | sed -n 's/.*Build ID: //p'", path);
	f = popen(cmd, "r");
	ASSERT(f != NULL);
	if (!fgets(id, (int)len, f))
		id[0] = '\0';
	pclose(f);
	id[strcspn(id, "\n")] = '\0';
}

/*
 * perf report --header: hostname, OS release, CPUs, command line, the
 * event; perf buildid-list: the build-id of the program sampled, as
 * readelf reads it from the file, and the kernel's.
 */
TEST(perf_report_header_features)
{
	char data[64], want[512], id[128];
	char prog[4096];
	uint64_t t0, t1;
	struct utsname u;
	struct result p;

	needs_perf();
	ASSERT(realpath(chain_prog(), prog) != NULL);
	ASSERT_EQ(uname(&u), 0);
	record_chain(data, "100", &t0, &t1);
	p = perf_run("report", "-i", data, "--stdio", "--header-only");
	ASSERT_EQ(p.status, 0);
	snprintf(want, sizeof(want), "# hostname : %s\n", u.nodename);
	ASSERT_CONTAINS(p.out, want);
	snprintf(want, sizeof(want), "# os release : %s\n", u.release);
	ASSERT_CONTAINS(p.out, want);
	snprintf(want, sizeof(want), "# arch : %s\n", u.machine);
	ASSERT_CONTAINS(p.out, want);
	snprintf(want, sizeof(want), "# nrcpus online : %ld\n",
		 sysconf(_SC_NPROCESSORS_ONLN));
	ASSERT_CONTAINS(p.out, want);
	ASSERT_CONTAINS(p.out, " record -e task-clock -c 1000000 -o /tmp/pctr-record-");
	ASSERT_CONTAINS(p.out, "# event : name = task-clock, ");
	ASSERT_CONTAINS(p.out, "sample_type = IP|TID|TIME|CALLCHAIN|CPU|PERIOD");
	p = perf_run("buildid-list", "-i", data, NULL, NULL);
	ASSERT_EQ(p.status, 0);
	readelf_build_id(prog, id, sizeof(id));
	ASSERT_GT(strlen(id), 0);
	snprintf(want, sizeof(want), "%s %s\n", id, prog);
	printf("# %s", want);
	ASSERT_CONTAINS(p.out, want);
	unlink(data);
}

/* one field of perf script's line with the symbol's name masked */
static void
mask_symbol(char *line)
{
	char *plus = strstr(line, "+0x"), *sp;

	if (!plus)
		return;
	for (sp = plus; sp > line && sp[-1] != ' '; sp--)
		;
	memmove(sp + 1, plus, strlen(plus) + 1);
	*sp = '*';
}

/*
 * pctr script prints perf script's lines for file @data: every line the
 * same once symbol names are masked (of two names of one address, perf
 * and libdw may pick another alias: free or cfree), and the lines of the
 * program's own frames (module @prog, or holding @own when not NULL) the
 * same to the byte.  Returns the lines of pctr script's output that hold
 * @dso.
 */
static int
scripts_agree(const char *data, const char *prog, const char *own,
	      const char *dso, const char *what)
{
	struct result p, q;
	char *a, *b, *sa, *sb;
	int lines = 0, same = 0, in_dso = 0;

	p = perf_run("script", "-i", data, NULL, NULL);
	ASSERT_EQ(p.status, 0);
	q = pctr("script", "-i", data, NULL);
	ASSERT_EQ(q.status, 0);
	a = strtok_r(p.out, "\n", &sa);
	b = strtok_r(q.out, "\n", &sb);
	for (; a && b; a = strtok_r(NULL, "\n", &sa),
		       b = strtok_r(NULL, "\n", &sb)) {
		bool ours = strstr(a, prog) || (own && strstr(a, own));

		lines++;
		in_dso += strstr(b, dso) != NULL;
		if (!strcmp(a, b)) {
			same++;
			continue;
		}
		if (ours)
			TEST_FAIL("line %d: perf script '%s', pctr script "
				  "'%s'",
				  lines, a, b);
		mask_symbol(a);
		mask_symbol(b);
		if (strcmp(a, b))
			TEST_FAIL("line %d, names masked: perf script '%s', "
				  "pctr script '%s'",
				  lines, a, b);
	}
	printf("# %s: %d lines, %d the same to the byte, %d with %s\n", what,
	       lines, same, in_dso, dso);
	if (a || b)
		TEST_FAIL("line %d: perf script '%s', pctr script '%s'",
			  lines + 1, a ? a : "(no more)", b ? b : "(no more)");
	ASSERT_GE(lines, 150);
	return in_dso;
}

/* scripts_agree() on a recording of @prog, named @own (record_of()) */
static int
script_of_is_perf_script(const char *prog, const char *own, const char *mode,
			 bool chain, const char *dso, const char *ms,
			 const char *period)
{
	char data[64], what[64];
	uint64_t t0, t1;
	int n;

	record_of(data, prog, ms, mode, period, &t0, &t1, chain);
	snprintf(what, sizeof(what), "%s, %s", mode,
		 chain ? "-g" : "no chains");
	n = scripts_agree(data, own, NULL, dso, what);
	unlink(data);
	return n;
}

/* the same of profile_chain itself */
static int
script_is_perf_script(const char *mode, bool chain, const char *dso,
		      const char *ms, const char *period)
{
	return script_of_is_perf_script(chain_prog(), "profile_chain)", mode,
					chain, dso, ms, period);
}

TEST(pctr_script_is_perf_script)
{
	needs_perf();
	ASSERT_GT(script_is_perf_script("fork", true, " hot+0x", "200",
					"1000000"),
		  0);
	ASSERT_GT(script_is_perf_script("fork", false, " hot+0x", "200",
					"1000000"),
		  0);
}

/*
 * Samples in code no symbol table names: the vDSO (a clock read's own
 * code), which perf script names in "[vdso]" from the image the kernel
 * maps into every process, and a PLT entry (a call of getauxval()),
 * which perf names "getauxval@plt" from the relocations.  pctr script
 * names both as perf does.  Once both were "[unknown]".  The PLT's jump
 * holds few samples, and how many varies from run to run far more than
 * chance would, with where the program and libc were placed
 * (tests/repro/repro_plt_sample_spread: 2 to 62 of 3050 on raw
 * perf_event_open): 3000 samples (0.3 s at a 0.1 ms period) had none
 * there with call chains in a fresh container's run.  So each run takes
 * 15000 (14 to 333 there seen).
 */
TEST(pctr_script_names_the_vdso_and_the_plt)
{
	static const char *plt = " getauxval@plt+0x";

	needs_perf();
	ASSERT_GE(script_is_perf_script("vdso", false, "([vdso])", "200",
					"1000000"),
		  100);
	ASSERT_GE(script_is_perf_script("vdso", true, "([vdso])", "200",
					"1000000"),
		  100);
	ASSERT_GT(script_is_perf_script("plt", false, plt, "1500", "100000"),
		  0);
	ASSERT_GT(script_is_perf_script("plt", true, plt, "1500", "100000"),
		  0);
}

/*
 * A function named by a weak symbol and by a local one at the same
 * address and size (glibc's IFUNC resolvers in libc6-dbg's table: weak
 * strnlen, local __strnlen_ifunc): perf names it by the local one, as its
 * choose_best_symbol() prefers a symbol that is not weak; pctr script
 * said "hot_weak", libdwfl's answer.  Seen as a share perf report gave
 * __strnlen_ifunc and pctr strnlen (test_profile, a fresh container).
 */
TEST(pctr_script_names_weak_aliases_as_perf)
{
	needs_perf();
	ASSERT_GE(script_is_perf_script("weak", false, " hot_local+0x", "200",
					"1000000"),
		  100);
	ASSERT_GE(script_is_perf_script("weak", true, " hot_local+0x", "200",
					"1000000"),
		  100);
}

/*
 * Code no symbol holds, in a section after another section's sizeless
 * symbol: perf gives a sizeless symbol the end of the next one's start,
 * so it names the code by that symbol ("hot_mark+0x1b"), where libdwfl,
 * which pctr asked, names nothing across sections.  So is the PLT's
 * header after a sizeless _init in .init (a sample in the lazy binding
 * of getauxval(), a loaded suite: perf "_init+0x26", pctr "[unknown]").
 */
TEST(pctr_script_names_code_after_a_sizeless_symbol)
{
	const char *anon = getenv("PROFILE_ANON");

	needs_perf();
	if (!anon)
		TEST_FAIL("$PROFILE_ANON is not set (objcopy is missing: "
			  "binutils)");
	ASSERT_GE(script_of_is_perf_script(anon, "profile_chain_anon)",
					   "anon", false, " hot_mark+0x", "200",
					   "1000000"),
		  100);
	ASSERT_GE(script_of_is_perf_script(anon, "profile_chain_anon)",
					   "anon", true, " hot_mark+0x", "200",
					   "1000000"),
		  100);
}

/*
 * A call chain's address that the program's file holds but no executable
 * mapping covers (a frame whose return address is in the ELF headers, the
 * file's first, read-only page): perf script says "[unknown]
 * ([unknown])"; pctr script said "__ehdr_start+0x40 (profile_chain)",
 * libdwfl's module spanning the whole file.  Seen first under ASan as a
 * stray frame of the plt case.
 */
TEST(pctr_script_unknown_outside_the_mappings)
{
	needs_perf();
	ASSERT_GT(script_is_perf_script("headers", true,
					" [unknown] ([unknown])", "200",
					"1000000"),
		  100);
}

/*
 * --call-graph dwarf: perf script unwinds the registers and stack copies
 * pctr record kept with its libdw unwinder, and prints a caller's frame
 * at its return address - 1, inside the call (dwfl_frame_pc()'s
 * activation flag: only the innermost frame and signal frames are at
 * their own address), and before a frame's function each call inlined
 * there ("round_of+0x81 (inlined)": addr2line -i); pctr script prints the
 * same lines.  Once pctr printed the return address ("1296 b+0x16" where
 * perf has "1295 b+0x15") and no inlined calls.  The workload is
 * profile_nofp (main -> a -> b -> hot, no frame pointers; main's call of
 * a inlined from round_of()).
 */
TEST(pctr_script_dwarf_is_perf_script)
{
	const char *prog = getenv("PROFILE_NOFP");
	char data[] = "/tmp/pctr-record-XXXXXX";
	struct result r;
	int fd = mkstemp(data);

	needs_perf();
	if (!prog)
		SKIP("$PROFILE_NOFP is not set (run through meson test)");
	ASSERT(fd >= 0);
	close(fd);
	r = pctr("record", "-e", "task-clock:u", "-c", "1000000",
		 "--call-graph", "dwarf", "-o", data, "--", prog, "200", NULL);
	ASSERT_EQ(r.status, 0);
	/* every sample in hot has the frame of main's call of a */
	ASSERT_GT(scripts_agree(data, "profile_nofp)", " round_of+0x",
				" round_of+0x", "dwarf"),
		  100);
	unlink(data);
}

/*
 * Without -o: ./perf.data; an existing one is kept as perf.data.old, as
 * perf record keeps it.  The command's output is its own (nothing of
 * pctr's on standard output); pctr report prints to standard output.
 */
TEST(default_file_old_kept_report_on_stdout)
{
	char dir[] = "/tmp/pctr-record-dir-XXXXXX", cwd[4096], prog[4096];
	struct result r;
	FILE *f;

	ASSERT(realpath(chain_prog(), prog) != NULL);
	ASSERT(getcwd(cwd, sizeof(cwd)) != NULL);
	ASSERT(mkdtemp(dir) != NULL);
	ASSERT_EQ(chdir(dir), 0);
	f = fopen("perf.data", "w");
	ASSERT(f != NULL);
	fputs("an older recording\n", f);
	ASSERT_EQ(fclose(f), 0);
	r = pctr("record", "-g", "--", "sh", "-c",
		 "echo the command says; exec \"$0\" 200", prog, NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.out, "the command says\n");
	ASSERT_STR_EQ(slurp("perf.data.old"), "an older recording\n");
	r = pctr("report", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, " hot ");
	ASSERT_STR_EQ(r.err, "");
	r = pctr("report", "--folded", NULL);
	ASSERT_CONTAINS(r.out, ";main;spin;a;b;hot ");
	r = pctr("script", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, " hot+0x");
	unlink("perf.data");
	unlink("perf.data.old");
	ASSERT_EQ(chdir(cwd), 0);
	ASSERT_EQ(rmdir(dir), 0);
}

/*
 * -p PID: a process that ran before the recording is named in the file
 * (its name and maps, as perf record writes them), so that perf script
 * and pctr report name its samples after it has gone.
 */
TEST(attached_process_named_after_it_ends)
{
	char data[64], prog[4096], spid[16];
	pid_t pid;
	struct result r, p;
	int status;

	needs_perf();
	ASSERT(realpath(chain_prog(), prog) != NULL);
	strcpy(data, "/tmp/pctr-record-XXXXXX");
	ASSERT((status = mkstemp(data)) >= 0);
	close(status);
	pid = fork();
	ASSERT(pid >= 0);
	if (pid == 0) {
		execl(prog, prog, "1500", (char *)NULL);
		_exit(127);
	}
	usleep(200000); /* exec'd and spinning */
	snprintf(spid, sizeof(spid), "%d", (int)pid);
	r = pctr("record", "-e", "task-clock", "-p", spid, "-d", "0.5", "-o",
		 data, NULL);
	kill(pid, SIGKILL);
	ASSERT(waitpid(pid, &status, 0) == pid);
	ASSERT_EQ(r.status, 0);
	p = perf_run("script", "-i", data, "-F", "comm,ip,sym,dso");
	ASSERT_EQ(p.status, 0);
	ASSERT_CONTAINS(p.out, "profile_chain ");
	ASSERT_CONTAINS(p.out, "hot (");
	ASSERT_CONTAINS(p.out, "/profile_chain)");
	r = pctr("report", "-i", data, "-s", "comm,sym", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "profile_chain");
	ASSERT_CONTAINS(r.out, " hot ");
	unlink(data);
}

/* the sample frequency in @data's header, as perf evlist -v reads it */
static long
header_freq(const char *data)
{
	struct result p = perf_run("evlist", "-v", "-i", data, NULL);
	const char *f;

	ASSERT_EQ(p.status, 0);
	f = strstr(p.out, "sample_freq }: ");
	if (!f || !strstr(p.out, "freq: 1"))
		TEST_FAIL("%s: no sample frequency in perf evlist -v: %s", data,
			  p.out);
	return atol(f + strlen("sample_freq }: "));
}

/*
 * pctr record (and perf record) of profile_chain with their default
 * frequency, where /proc/sys/kernel/perf_event_max_sample_rate reads
 * @limit (NULL: the kernel's own): a file bound over it in a mount
 * namespace of their own (which the kernel's limit does not see), the
 * mount that holds it made private there first.  Not unshare's
 * "--propagation private", which changes the root's: in a chroot the
 * root is no mount, and unshare failed ("cannot change root filesystem
 * propagation: Invalid argument", scripts/newcomer.sh).  The frequencies
 * in the headers of their recordings.
 */
static void
record_at(const char *limit, long *perf_hz, long *pctr_hz, struct result *pr,
	  struct result *r)
{
	static const char *const bind =
		"f=/proc/sys/kernel/perf_event_max_sample_rate; "
		"[ -z \"$0\" ] || { mount --make-rprivate "
		"\"$(findmnt -no TARGET -T $f)\" && mount --bind \"$0\" $f; "
		"} && exec \"$@\"";
	char data[2][64], rate[64] = "";
	struct result *res[2] = { pr, r };

	if (limit) {
		FILE *f;

		close(tmp_file(rate));
		f = fopen(rate, "w");
		ASSERT(f && fprintf(f, "%s\n", limit) > 0 && fclose(f) == 0);
	}
	for (int t = 0; t < 2; t++) {
		char *argv[] = { "/usr/bin/unshare", "-m", "--propagation",
				 "unchanged", "sh", "-c", (char *)bind, rate,
				 t ? (char *)pctr_path() : PERF, "record",
				 "-o", data[t], "--", (char *)chain_prog(),
				 "100", NULL };

		close(tmp_file(data[t]));
		*res[t] = run_in(argv, NULL);
		if (res[t]->status != 0)
			TEST_FAIL("%s record (limit %s): status %d: %s",
				  t ? "pctr" : "perf", limit ? limit : "the "
				  "kernel's", res[t]->status, res[t]->err);
	}
	*perf_hz = header_freq(data[0]);
	*pctr_hz = header_freq(data[1]);
	unlink(data[0]);
	unlink(data[1]);
	if (limit)
		unlink(rate);
}

/*
 * pctr record samples 4000 times a second by default, as perf record
 * does (once 1000, pctr profile's default, which stays); where
 * kernel.perf_event_max_sample_rate is lower, at that rate, said on
 * standard error, as perf record lowers its default.  An -F over it is
 * refused (perf lowers it too): test_profile.c, exit_status_and_errors.
 */
TEST(default_frequency_as_perf_record)
{
	long perf_hz, pctr_hz, max = 0;
	struct result p, r;
	FILE *f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "re");

	needs_perf();
	if (geteuid() != 0)
		SKIP("binding a file over /proc/sys/kernel/"
		     "perf_event_max_sample_rate needs root");
	ASSERT(f && fscanf(f, "%ld", &max) == 1);
	fclose(f);
	record_at(NULL, &perf_hz, &pctr_hz, &p, &r);
	ASSERT_EQ(pctr_hz, perf_hz);
	ASSERT_EQ(pctr_hz, max < 4000 ? max : 4000);
	record_at("1000", &perf_hz, &pctr_hz, &p, &r);
	ASSERT_CONTAINS(p.err, "Lowering default frequency rate from 4000 "
			       "to 1000.");
	ASSERT_EQ(perf_hz, 1000);
	ASSERT_EQ(pctr_hz, 1000);
	ASSERT_CONTAINS(r.err, "pctr record: the default frequency, 4000 Hz, "
			       "is over kernel.perf_event_max_sample_rate: "
			       "sampling at 1000 Hz\n");
	r = pctr("profile", "-j", "-o", "-", "--", chain_prog(), "20", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_CONTAINS(r.out, "\"frequency\":1000,");
}

/*
 * cycles where there is no PMU: cpu-clock instead, said by the command
 * that runs (pctr record's notice once began "pctr profile:")
 */
TEST(cycles_fallback_names_the_command)
{
	char data[64];
	struct result r;

	if (has_pmu())
		SKIP("this machine samples cycles: nothing to fall back from");
	close(tmp_file(data));
	r = pctr("record", "-q", "-e", "cycles", "-o", data, "--",
		 chain_prog(), "20", NULL);
	ASSERT_EQ(r.status, 0);
	ASSERT_STR_EQ(r.err, "pctr record: cycles cannot be sampled here (no "
			     "hardware PMU): sampling cpu-clock instead, as "
			     "perf record does\n");
	unlink(data);
}

/* what each verb refuses (2), and files that are not there (1) */
/*
 * perf record's flags that pctr record had refused ("invalid option"),
 * run through both on the same command: -q says nothing; -T, --sample-cpu,
 * -P, -N change nothing (every sample has its time, CPU and period; no
 * build-id cache is kept); -m sizes the ring; -F max is the kernel's
 * limit; an event's period= or freq= term comes before -c and -F, and
 * perf script reads the period back.
 */
TEST(perf_record_flags_taken)
{
	static const char *const runs[][6] = {
		{ "-q" },
		{ "-T", "--sample-cpu", "-P", "-N" },
		{ "-m", "3" },
		{ "--mmap-pages=512K" },
		{ "-F", "max" },
		{ "-e", "task-clock/period=20000/", "-F", "99" },
		{ "-e", "task-clock/freq=300/", "-c", "5" },
	};
	char data[64];
	int n;

	needs_perf();
	strcpy(data, "/tmp/pctr-record-XXXXXX");
	n = mkstemp(data);
	ASSERT(n >= 0);
	close(n);
	for (size_t i = 0; i < sizeof(runs) / sizeof(*runs); i++) {
		static const char *const head[] = { "record", NULL };
		const char *const cmd[] = { "-o", data, "--", chain_prog(),
					    "50", NULL };
		const char *const *const parts[] = { head, runs[i], cmd, NULL };
		struct result p, r;

		perf_and_pctr(parts, &p, &r);
		ASSERT_EQ(p.status, 0);
		ASSERT_EQ(r.status, 0);
		if (i == 0)
			ASSERT(!strstr(r.err, "Captured"));
		else
			ASSERT_CONTAINS(r.err, "[ pctr record: Captured and ");
		p = perf_run("script", "-i", data, "-F", "period");
		ASSERT_EQ(p.status, 0);
		if (i == 5) { /* the term's period, each sample */
			char *save, *l = strtok_r(p.out, "\n", &save);
			int samples = 0;

			for (; l; l = strtok_r(NULL, "\n", &save), samples++)
				ASSERT_EQ(atol(l), 20000);
			ASSERT_GT(samples, 100);
		}
	}
	unlink(data);
}

TEST(usage_and_missing_files)
{
	struct result r;

	r = pctr("record", "--folded", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "are pctr report's");
	r = pctr("record", "-o", "-", "--", "true", NULL);
	ASSERT_EQ(r.status, 2);
	ASSERT_CONTAINS(r.err, "a file it can seek in");
	r = pctr("record", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("report", "-F", "99", "-i", "x", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("script", "extra", NULL);
	ASSERT_EQ(r.status, 2);
	r = pctr("report", "-i", "/nonexistent/perf.data", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "/nonexistent/perf.data: No such file");
	r = pctr("script", "-i", "/etc/hostname", NULL);
	ASSERT_EQ(r.status, 1);
	ASSERT_CONTAINS(r.err, "not a perf.data file");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(perf_script_reads_times_cpus_threads_periods)
			       TEST_CASE(perf_script_time_window)
			       TEST_CASE(sideband_records_have_times)
			       TEST_CASE(perf_report_header_features)
			       TEST_CASE(pctr_script_is_perf_script)
			       TEST_CASE(pctr_script_names_weak_aliases_as_perf)
			       TEST_CASE(pctr_script_names_code_after_a_sizeless_symbol)
			       TEST_CASE(pctr_script_names_the_vdso_and_the_plt)
			       TEST_CASE(pctr_script_unknown_outside_the_mappings)
			       TEST_CASE(pctr_script_dwarf_is_perf_script)
			       TEST_CASE(default_file_old_kept_report_on_stdout)
			       TEST_CASE(attached_process_named_after_it_ends)
			       TEST_CASE(perf_record_flags_taken)
			       TEST_CASE(default_frequency_as_perf_record)
			       TEST_CASE(cycles_fallback_names_the_command)
			       TEST_CASE(usage_and_missing_files)));
}
