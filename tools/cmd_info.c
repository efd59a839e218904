/* SPDX-License-Identifier: MIT */
/*
 * cmd_info.c - pctr info [--json]: what this machine offers for counting,
 * and for each thing that stands in the way, what to do about it.
 *
 * The library says what it detected (pctr_machine_get()); this file adds
 * what the kernel tells in /sys and /proc, and what it finds by trying:
 * how many counters one group can really hold, whether a counter of the
 * calling thread can be read in user space, and what a user without
 * privileges may count at this kernel.perf_event_paranoid (level 3 stops
 * everything only on kernels with Debian's restriction patch, so the level
 * alone does not say).
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <grp.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "tool.h"
#include "util.h"

#define EVENT_SOURCES "/sys/bus/event_source/devices"
#define MAX_CAPS 16
#define MAX_PROBLEMS 8

struct pmu_info {
	int counters; /* one group holds this many, measured; -1 unknown */
	int width; /* counter width in bits; -1 unknown */
	int nr_caps;
	char caps[MAX_CAPS][2][64]; /* name, value from sysfs caps/ */
};

struct problem {
	const char *id;
	char problem[512];
	char fix[512];
};

/*
 * What a user without privileges may count here, found by trying: 1 yes,
 * 0 refused (EACCES, EPERM), -1 could not find out.  Root probes as the
 * user nobody, in a child.
 */
struct allowed {
	int user; /* user mode of its own threads */
	int kernel; /* kernel mode of its own threads */
	int cpu; /* a whole CPU (-a) */
	bool as_nobody;
};

struct info {
	struct pctr_machine m;
	char kernel[128];
	char cpu_model[128];
	long nr_cpus;
	struct pmu_info pmu[PCTR_MAX_PMUS];
	char sources[512];
	int user_read; /* 1 works, 0 does not, -1 could not find out */
	struct allowed allowed;
	int restrict_patch; /* CONFIG_SECURITY_PERF_EVENTS_RESTRICT: 1, 0, -1 */
	int nmi_watchdog;
	int nr_problems;
	struct problem problems[MAX_PROBLEMS];
};

/* ---- facts -------------------------------------------------------------- */

static int
read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return -1;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static int
read_number(const char *path)
{
	char buf[64];

	return read_line(path, buf, sizeof(buf)) == 0 ? atoi(buf) : -1;
}

static void
cpu_model(char *out, size_t len)
{
	static const char *const keys[] = { "model name", "Model", "cpu model" };
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];

	snprintf(out, len, "unknown");
	while (f && fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		for (size_t k = 0; colon && k < 3; k++) {
			if (strncmp(line, keys[k], strlen(keys[k])))
				continue;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon + 1 + (colon[1] == ' '));
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
}

static void
event_sources(char *out, size_t len)
{
	struct dirent **names;
	int n = scandir(EVENT_SOURCES, &names, NULL, alphasort);
	size_t used = 0;

	out[0] = '\0';
	for (int i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' && used < len)
			used += snprintf(out + used, len - used, "%s%s",
					 used ? " " : "", names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static void
pmu_caps(const char *pmu, struct pmu_info *p)
{
	char dir[256], path[512];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), EVENT_SOURCES "/%s/caps", pmu);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)) && p->nr_caps < MAX_CAPS) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		snprintf(p->caps[p->nr_caps][0], 64, "%s", d->d_name);
		if (read_line(path, p->caps[p->nr_caps][1], 64) == 0)
			p->nr_caps++;
	}
	if (dp)
		closedir(dp);
}

/* how many copies of @spec one group of the calling thread can hold */
static int
measure_counters(const char *spec)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	int best = -1;

	for (int n = 1; n <= 32; n++) {
		struct pctr_set *set;
		int r = pctr_set_new(&set, PCTR_SET_NO_MULTIPLEX |
						   PCTR_SET_NO_USER_READ);

		for (int i = 0; r >= 0 && i < n; i++)
			r = pctr_set_add(set, spec);
		if (r >= 0)
			r = pctr_set_open(set, &self);
		pctr_set_free(set);
		if (r < 0)
			break;
		best = n;
	}
	return best;
}

/*
 * Open one hardware counter on this thread, read it, and look at its perf
 * mmap page for the counter width the kernel reports.
 */
static void
probe_user_read(struct info *in)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_sample s;
	struct pctr_set *set;
	int r = pctr_set_new(&set, 0);

	in->user_read = -1;
	if (r == 0)
		r = pctr_set_add(set, "instructions");
	if (r >= 0)
		r = pctr_set_open(set, &self);
	if (r >= 0 && pctr_set_read(set, &s) == 0)
		in->user_read = pctr_set_user_read(set) == 1;
	if (r >= 0) {
		long page = sysconf(_SC_PAGESIZE);
		int fd = pctr_set_fd(set, 0);
		struct perf_event_mmap_page *pc =
			fd < 0 ? MAP_FAILED
			       : mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);

		if (pc != MAP_FAILED) {
			if (pc->cap_user_rdpmc && pc->pmc_width)
				in->pmu[0].width = pc->pmc_width;
			munmap(pc, page);
		}
	}
	pctr_set_free(set);
}

/* 1 when @event opens on the calling thread (or CPU 0), 0 when refused */
static int
try_count(const char *event, bool cpu)
{
	static const int cpu0 = 0;
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	struct pctr_target one = { .type = PCTR_TARGET_CPU, .nr_cpus = 1,
				   .cpus = &cpu0 };
	struct pctr_set *set;
	int r = pctr_set_new(&set, PCTR_SET_NO_USER_READ);

	if (r == 0)
		r = pctr_set_add(set, event);
	if (r >= 0)
		r = pctr_set_open(set, cpu ? &one : &self);
	pctr_set_free(set);
	return r >= 0 ? 1 : r == -EACCES || r == -EPERM ? 0 : -1;
}

static void
try_all(struct allowed *a)
{
	a->user = try_count("task-clock:u", false);
	a->kernel = try_count("task-clock:k", false);
	a->cpu = try_count("cpu-clock", true);
}

/* root: what the user nobody (65534) gets, probed in a child */
static void
try_as_nobody(struct allowed *a)
{
	int status;
	pid_t pid;

	a->as_nobody = true;
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		if (setgroups(0, NULL) < 0 || setgid(65534) < 0 ||
		    setuid(65534) < 0)
			_exit(255);
		try_all(a);
		_exit((a->user + 1) | (a->kernel + 1) << 2 |
		      (a->cpu + 1) << 4);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) == 255)
		return;
	a->user = (WEXITSTATUS(status) & 3) - 1;
	a->kernel = (WEXITSTATUS(status) >> 2 & 3) - 1;
	a->cpu = (WEXITSTATUS(status) >> 4 & 3) - 1;
}

/*
 * Does the kernel's configuration (/boot/config-RELEASE, else
 * /proc/config.gz) have Debian's level 3?  -1 when neither is readable.
 */
static int
restrict_patch(const char *release)
{
	char path[256], line[256];
	bool piped = false;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/boot/config-%s", release);
	f = fopen(path, "re");
	if (!f && access("/proc/config.gz", R_OK) == 0) {
		f = popen("zcat /proc/config.gz 2>/dev/null", "re");
		piped = true;
	}
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		found |= !strcmp(line,
				 "CONFIG_SECURITY_PERF_EVENTS_RESTRICT=y\n");
	if (piped)
		return pclose(f) == 0 ? found : -1;
	fclose(f);
	return found;
}

static void
probe_allowed(struct info *in)
{
	in->allowed = (struct allowed){ -1, -1, -1, false };
	if (geteuid() == 0)
		try_as_nobody(&in->allowed);
	else
		try_all(&in->allowed);
	in->restrict_patch = restrict_patch(in->kernel);
}

static void
gather(struct info *in)
{
	struct utsname u;

	in->m.size = sizeof(in->m);
	pctr_machine_get(&in->m);
	snprintf(in->kernel, sizeof(in->kernel), "%s",
		 uname(&u) == 0 ? u.release : "unknown");
	cpu_model(in->cpu_model, sizeof(in->cpu_model));
	in->nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	event_sources(in->sources, sizeof(in->sources));
	in->nmi_watchdog = read_number("/proc/sys/kernel/nmi_watchdog");
	probe_allowed(in);
	for (int i = 0; i < in->m.nr_pmus; i++) {
		in->pmu[i].width = -1;
		in->pmu[i].counters = -1;
		pmu_caps(in->m.pmu[i], &in->pmu[i]);
	}
	in->user_read = -1;
	if (!in->m.has_pmu)
		return;
	probe_user_read(in);
	if (in->m.nr_pmus == 1)
		in->pmu[0].counters = measure_counters("instructions");
}

/* ---- problems and their fixes ------------------------------------------- */

static struct problem *
add_problem(struct info *in, const char *id)
{
	struct problem *p = &in->problems[in->nr_problems];

	if (in->nr_problems == MAX_PROBLEMS)
		return NULL;
	in->nr_problems++;
	p->id = id;
	return p;
}

static void
problem_no_pmu(struct info *in)
{
	struct problem *p = add_problem(in, "no_pmu");

	if (!p)
		return;
	snprintf(p->problem, sizeof(p->problem), "%s", pctr_strerror(-ENODEV));
	if (in->m.virtualized == 1)
		snprintf(p->fix, sizeof(p->fix),
			 "give the virtual machine a PMU: QEMU/KVM '-cpu "
			 "host,pmu=on' (libvirt <pmu state='on'/>), VMware "
			 "'Virtualize CPU performance counters', or a cloud "
			 "instance type with a virtual PMU");
	else
		snprintf(p->fix, sizeof(p->fix),
			 "use a kernel that knows this CPU's PMU ('dmesg | "
			 "grep -i perf' says what it found)");
}

static void
problem_paranoid(struct info *in)
{
	struct problem *p;

	const struct allowed *a = &in->allowed;

	/* what was tried, not what the level means on some kernel */
	if (geteuid() == 0 || (a->user != 0 && a->kernel != 0))
		return;
	p = add_problem(in, "paranoid");
	if (!p)
		return;
	snprintf(p->problem, sizeof(p->problem),
		 "kernel.perf_event_paranoid is %d: %s", in->m.paranoid,
		 a->user == 0 ? "no counting at all without CAP_PERFMON"
			      : "user-mode counting of your own processes "
				"only; no kernel counts, no -a");
	snprintf(p->fix, sizeof(p->fix), "%s", pctr_strerror(-EACCES));
}

static void
problem_user_read(struct info *in)
{
	bool arm = !strcmp(in->m.arch, "aarch64");
	struct problem *p;

	if (!in->m.has_pmu || in->m.user_access != 0)
		return;
	p = add_problem(in, "user_read_off");
	if (!p)
		return;
	snprintf(p->problem, sizeof(p->problem),
		 "user-space counter reads are off: every read is a system "
		 "call (about 0.5 us instead of a few ns)");
	snprintf(p->fix, sizeof(p->fix), "%s",
		 arm ? "sysctl kernel.perf_user_access=1"
		     : "echo 1 > /sys/bus/event_source/devices/cpu/rdpmc "
		       "(or 2: for every process)");
}

static void
problem_tsc(struct info *in)
{
	struct problem *p;

	if (in->m.tsc_invariant != 0 || (p = add_problem(in, "tsc_not_invariant")) == NULL)
		return;
	snprintf(p->problem, sizeof(p->problem),
		 "the timestamp counter's rate changes with the CPU "
		 "frequency: times taken from it are not exact");
	snprintf(p->fix, sizeof(p->fix),
		 "use task-clock or CLOCK_MONOTONIC for time, or a CPU with an "
		 "invariant TSC (constant_tsc and nonstop_tsc in "
		 "/proc/cpuinfo)");
}

static void
problem_watchdog(struct info *in)
{
	struct problem *p;

	if (!in->m.has_pmu || strcmp(in->m.arch, "x86_64") ||
	    in->nmi_watchdog != 1 || (p = add_problem(in, "nmi_watchdog")) == NULL)
		return;
	snprintf(p->problem, sizeof(p->problem),
		 "the NMI watchdog keeps one hardware counter for itself");
	snprintf(p->fix, sizeof(p->fix), "sysctl kernel.nmi_watchdog=0");
}

static void
find_problems(struct info *in)
{
	if (!in->m.has_pmu)
		problem_no_pmu(in);
	problem_paranoid(in);
	problem_user_read(in);
	problem_tsc(in);
	problem_watchdog(in);
}

/* ---- for people --------------------------------------------------------- */

/* level 3 on a kernel with Debian's patch, or without it (as 2) */
static const char *
paranoid_meaning(int level, const struct info *in)
{
	if (level >= 3 && (in->restrict_patch == 0 || in->allowed.user == 1))
		return "as 2 on this kernel: no restriction patch";
	if (level == INT32_MIN)
		return "unreadable";
	if (level <= -1)
		return "no restrictions";
	if (level == 0)
		return "user and kernel, per process and per CPU";
	if (level == 1)
		return "user and kernel of your own processes; no per-CPU "
		       "counting";
	if (level == 2)
		return "user mode of your own processes only";
	return "nothing without CAP_PERFMON (Debian's restriction patch)";
}


static const char *
yes_no(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

static void
print_allowed(FILE *f, const struct info *in)
{
	const struct allowed *a = &in->allowed;

	fprintf(f, "%-22suser mode %s, kernel mode %s, whole CPUs %s "
		   "(tried%s)\n", "without privileges", yes_no(a->user),
		yes_no(a->kernel), yes_no(a->cpu),
		a->as_nobody ? " as the user nobody" : " as you");
}

static void
print_pmu(FILE *f, const struct info *in, int i)
{
	const struct pmu_info *p = &in->pmu[i];

	fprintf(f, "  %-20s type %u", in->m.pmu[i], in->m.pmu_type[i]);
	if (p->counters > 0)
		fprintf(f, ", %d counters in one group (measured)", p->counters);
	if (p->width > 0)
		fprintf(f, ", %d bits wide", p->width);
	fputc('\n', f);
	for (int c = 0; c < p->nr_caps; c++)
		fprintf(f, "  %-20s %s = %s\n", "", p->caps[c][0], p->caps[c][1]);
}

static void
print_user_read(FILE *f, const struct info *in)
{
	const char *knob = !strcmp(in->m.arch, "aarch64")
				   ? "kernel.perf_user_access"
				   : "rdpmc";

	fprintf(f, "%-22s", "user-space reads");
	if (!in->m.has_pmu)
		fprintf(f, "no (no hardware counters)");
	else if (in->user_read < 0)
		fprintf(f, "unknown (no counter could be opened)");
	else
		fprintf(f, "%s", in->user_read ? "yes" : "no");
	if (in->m.user_access >= 0)
		fprintf(f, ", %s = %d", knob, in->m.user_access);
	fputc('\n', f);
}

static void
print_human(FILE *f, const struct info *in)
{
	fprintf(f, "%-22spctr %s, %s, kernel %s\n", "system", pctr_version(),
		in->m.arch, in->kernel);
	fprintf(f, "%-22s%s, %ld CPUs online\n", "cpu", in->cpu_model,
		in->nr_cpus);
	fprintf(f, "%-22s%s\n", "hardware PMU", in->m.has_pmu ? "yes" : "no");
	for (int i = 0; i < in->m.nr_pmus; i++)
		print_pmu(f, in, i);
	fprintf(f, "%-22s%s\n", "hybrid", in->m.nr_pmus > 1 ? "yes" : "no");
	print_user_read(f, in);
	fprintf(f, "%-22s%d (%s)%s\n", "perf_event_paranoid", in->m.paranoid,
		paranoid_meaning(in->m.paranoid, in),
		geteuid() == 0 ? "; you are root: no limit" : "");
	print_allowed(f, in);
	fprintf(f, "%-22s%.6f GHz, invariant: %s\n", "timestamp counter",
		(double)in->m.tsc_hz / 1e9, yes_no(in->m.tsc_invariant));
	fprintf(f, "%-22s%s\n", "virtual machine", yes_no(in->m.virtualized));
	fprintf(f, "%-22s%s\n", "event sources", in->sources);
	fprintf(f, "\n%s\n", in->nr_problems ? "Problems:" : "No problems found.");
	for (int i = 0; i < in->nr_problems; i++)
		fprintf(f, "  - %s\n    fix: %s\n", in->problems[i].problem,
			in->problems[i].fix);
}

/* ---- for programs ------------------------------------------------------- */

static void
json_int_or_null(struct pctr_json *j, const char *key, int v)
{
	if (v < 0)
		pctr__json_null(j, key);
	else
		pctr__json_int(j, key, v);
}

static void
json_pmus(struct pctr_json *j, const struct info *in)
{
	pctr__json_arr(j, "pmus");
	for (int i = 0; i < in->m.nr_pmus; i++) {
		const struct pmu_info *p = &in->pmu[i];

		pctr__json_obj(j, NULL);
		pctr__json_str(j, "name", in->m.pmu[i]);
		pctr__json_uint(j, "type", in->m.pmu_type[i]);
		pctr__json_bool(j, "core", true);
		json_int_or_null(j, "counters", p->counters);
		json_int_or_null(j, "counter_width", p->width);
		pctr__json_obj(j, "caps");
		for (int c = 0; c < p->nr_caps; c++)
			pctr__json_str(j, p->caps[c][0], p->caps[c][1]);
		pctr__json_obj_end(j);
		pctr__json_obj_end(j);
	}
	pctr__json_arr_end(j);
}

static void
json_sources(struct pctr_json *j, const struct info *in)
{
	char buf[sizeof(in->sources)], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", in->sources);
	pctr__json_arr(j, "event_sources");
	for (char *s = strtok_r(buf, " ", &save); s;
	     s = strtok_r(NULL, " ", &save))
		pctr__json_str(j, NULL, s);
	pctr__json_arr_end(j);
}

static void
json_user_read(struct pctr_json *j, const struct info *in)
{
	bool arm = !strcmp(in->m.arch, "aarch64");

	pctr__json_obj(j, "user_read");
	pctr__json_str(j, "knob", in->m.user_access < 0 ? NULL
			    : arm ? "/proc/sys/kernel/perf_user_access"
				  : EVENT_SOURCES "/cpu/rdpmc");
	json_int_or_null(j, "value", in->m.user_access);
	pctr__json_tristate(j, "works", in->user_read);
	pctr__json_obj_end(j);
}

static void
json_allowed(struct pctr_json *j, const struct info *in)
{
	pctr__json_obj(j, "unprivileged");
	pctr__json_str(j, "tried_as",
		       in->allowed.as_nobody ? "nobody" : "self");
	pctr__json_tristate(j, "user", in->allowed.user);
	pctr__json_tristate(j, "kernel", in->allowed.kernel);
	pctr__json_tristate(j, "cpu", in->allowed.cpu);
	pctr__json_tristate(j, "restrict_patch", in->restrict_patch);
	pctr__json_obj_end(j);
}

static void
print_json(FILE *f, const struct info *in)
{
	struct pctr_json j;

	pctr__json_begin(&j, f, false);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "schema", "pctr-info/1");
	pctr__json_str(&j, "pctr_version", pctr_version());
	pctr__json_machine(&j, "machine", &in->m);
	pctr__json_str(&j, "kernel", in->kernel);
	pctr__json_str(&j, "cpu_model", in->cpu_model);
	pctr__json_int(&j, "nr_cpus", in->nr_cpus);
	json_pmus(&j, in);
	json_sources(&j, in);
	pctr__json_bool(&j, "hybrid", in->m.nr_pmus > 1);
	json_user_read(&j, in);
	json_allowed(&j, in);
	pctr__json_arr(&j, "problems");
	for (int i = 0; i < in->nr_problems; i++) {
		pctr__json_obj(&j, NULL);
		pctr__json_str(&j, "id", in->problems[i].id);
		pctr__json_str(&j, "problem", in->problems[i].problem);
		pctr__json_str(&j, "fix", in->problems[i].fix);
		pctr__json_obj_end(&j);
	}
	pctr__json_arr_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
}

int
cmd_info(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct info *in;
	bool json = false;
	int opt;

	tool_set_name("pctr info");
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		if (opt == 'j') {
			json = true;
			continue;
		}
		if (opt != 'h')
			tool_err("unknown option '%s'", argv[optind - 1]);
		fprintf(opt == 'h' ? stdout : stderr,
			"usage: pctr info [--json]\n");
		return opt == 'h' ? 0 : EXIT_USAGE;
	}
	if (optind < argc) {
		tool_err("unexpected argument '%s'", argv[optind]);
		return EXIT_USAGE;
	}
	in = calloc(1, sizeof(*in));
	if (!in) {
		tool_err("out of memory");
		return 1;
	}
	gather(in);
	find_problems(in);
	if (json)
		print_json(stdout, in);
	else
		print_human(stdout, in);
	free(in);
	return fflush(stdout) == 0 ? 0 : 1;
}
