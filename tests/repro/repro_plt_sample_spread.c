/* SPDX-License-Identifier: MIT */
/*
 * repro_plt_sample_spread - how many of a task-clock sampler's samples
 * land in the PLT entry a loop calls through varies from one run of the
 * program to the next far more than chance would: the share is the
 * program's, set by where its code and libc's were placed in that run.
 * So a run of a few thousand samples can have none there.
 *
 * Shown on raw perf_event_open, nothing of libpctr: RUNS runs of this
 * program (20 by default), each a new process (a new layout), each
 * sampling its own loop of getauxval() calls (through the program's PLT)
 * with task-clock at a 0.1 ms period for 300 ms of its CPU time, as
 * `pctr record -e task-clock -c 100000 profile_chain 300 plt` does.  A
 * sample is in the PLT when its IP is in the program's .plt or .plt.sec
 * (the section headers of its own file).  Printed: each run's samples and
 * those in the PLT, and the runs' index of dispersion (variance / mean:
 * about 1 for counts that vary by chance alone; above 3 by chance in
 * about one set of 100,000).  "ok" while the index is above 3.  Relied
 * on by tests/tool/test_record.c (pctr_script_names_the_vdso_and_the_plt),
 * whose runs take 15000 samples.  Usage: repro_plt_sample_spread [RUNS]
 *
 * As seen on the 2-CPU x86-64 VMs of the project's CI: 2 to 52 of about
 * 3050 samples in the PLT, index 4.7 to 19.1 over 10 runs; through pctr
 * script, 3, 8, 70 and 72 of 3000 without call chains, 0 in a fresh
 * container's run with them.  Under AddressSanitizer the loop's own
 * instrumented code leaves the PLT a mean of 3, too few to show the
 * spread: the normal build runs it.
 */
#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/wait.h>

#include "repro.h"

#define MAX_RUNS 50
#define RING_PAGES 64 /* 256 KiB: 3000 samples of 24 bytes, and room */

static volatile unsigned long sink;

struct range {
	uint64_t lo, hi;
};

/* the program's load address: the first object dl_iterate_phdr() gives */
static int
first_object(struct dl_phdr_info *info, size_t size, void *arg)
{
	*(uint64_t *)arg = info->dlpi_addr;
	return 1;
}

/* where .plt and .plt.sec are, from the section headers of our file */
static int
plt_ranges(struct range r[2])
{
	FILE *f = fopen("/proc/self/exe", "rb");
	Elf64_Ehdr eh;
	Elf64_Shdr sh[256];
	char names[4096];
	uint64_t base = 0;
	int n = 0;

	if (!f || fread(&eh, sizeof(eh), 1, f) != 1 || eh.e_shnum > 256 ||
	    fseek(f, (long)eh.e_shoff, SEEK_SET) ||
	    fread(sh, sizeof(sh[0]), eh.e_shnum, f) != eh.e_shnum ||
	    fseek(f, (long)sh[eh.e_shstrndx].sh_offset, SEEK_SET) ||
	    fread(names, 1, sizeof(names) - 1, f) == 0) {
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	names[sizeof(names) - 1] = '\0';
	dl_iterate_phdr(first_object, &base);
	for (int i = 0; i < eh.e_shnum && n < 2; i++) {
		const char *name = names + sh[i].sh_name;

		if (sh[i].sh_name < sizeof(names) &&
		    (!strcmp(name, ".plt") || !strcmp(name, ".plt.sec"))) {
			r[n].lo = base + sh[i].sh_addr;
			r[n].hi = r[n].lo + sh[i].sh_size;
			n++;
		}
	}
	return n;
}

struct tally {
	struct range plt[2];
	int nr;
	unsigned long long n, in;
};

static void
tally_ip(uint64_t ip, void *arg)
{
	struct tally *t = arg;

	t->n++;
	for (int i = 0; i < t->nr; i++)
		t->in += ip >= t->plt[i].lo && ip < t->plt[i].hi;
}

/* one run: "SAMPLES IN_PLT" on standard output */
static int
child(void)
{
	size_t len = (RING_PAGES + 1) * (size_t)sysconf(_SC_PAGESIZE);
	struct tally t = { .n = 0 };
	struct perf_event_mmap_page *pg;
	uint64_t end;
	int fd;

	t.nr = plt_ranges(t.plt);
	if (t.nr <= 0) {
		printf("no .plt in the program's section headers\n");
		return 1;
	}
	fd = repro_task_clock_sampler(100000, 0);
	pg = fd < 0 ? MAP_FAILED :
		mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (pg == MAP_FAILED) {
		printf("task-clock sampler: %s\n", strerror(errno));
		return 1;
	}
	end = repro_ns(CLOCK_THREAD_CPUTIME_ID) + 300000000u;
	while (repro_ns(CLOCK_THREAD_CPUTIME_ID) < end)
		for (int i = 0; i < 100000; i++)
			sink += getauxval(AT_PAGESZ);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	repro_ring_ips(pg, tally_ip, &t);
	printf("%llu %llu\n", t.n, t.in);
	return 0;
}

/* run @self once; its two figures into @n and @in */
static int
one_run(const char *self, unsigned long long *n, unsigned long long *in)
{
	int p[2], status;
	char out[256] = "";
	ssize_t got;
	pid_t pid;

	if (pipe(p) < 0)
		return -1;
	pid = fork();
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execl(self, self, "child", (char *)NULL);
		repro_exec_failed("execl(/proc/self/exe)");
	}
	close(p[1]);
	got = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	waitpid(pid, &status, 0);
	if (got > 0)
		out[got] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    sscanf(out, "%llu %llu", n, in) != 2) {
		printf("# a run: %s", out[0] ? out : "no output\n");
		return -1;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	unsigned long long n[MAX_RUNS], in[MAX_RUNS];
	double mean = 0, var = 0, index;
	char self[64];
	int runs;

	if (argc > 1 && !strcmp(argv[1], "child"))
		return child();
	runs = argc > 1 ? atoi(argv[1]) : 20;
	if (runs < 2 || runs > MAX_RUNS)
		runs = 20;
	printf("1..1\n");
	if (repro_self_for_exec(self, sizeof(self)) < 0) {
		printf("not ok 1 - /proc/self/exe: %s\n", strerror(errno));
		return 1;
	}
	for (int r = 0; r < runs; r++) {
		if (one_run(self, &n[r], &in[r]) < 0) {
			printf("not ok 1 - run %d of the sampled loop failed\n",
			       r);
			return 1;
		}
		printf("# run %d: %llu samples, %llu in the PLT\n", r, n[r],
		       in[r]);
		mean += (double)in[r] / runs;
	}
	for (int r = 0; r < runs; r++)
		var += ((double)in[r] - mean) * ((double)in[r] - mean) /
		       (runs - 1);
	index = mean > 0 ? var / mean : 0;
	printf("%sok 1 - samples in the PLT over %d runs: mean %.1f, index of "
	       "dispersion %.1f (chance alone: about 1)\n",
	       index > 3 ? "" : "not ", runs, mean, index);
	return index > 3 ? 0 : 1;
}
