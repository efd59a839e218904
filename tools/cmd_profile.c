/* SPDX-License-Identifier: MIT */
/*
 * cmd_profile.c - pctr profile: where a command spends its events.
 *
 *   pctr profile [-e EVENT] [-c PERIOD | -F HZ] [--json] [-o FILE]
 *                -- COMMAND ...
 *
 * The command runs under a set that samples EVENT into a buffer (one
 * sample every PERIOD events, or HZ times a second of it); the samples are
 * read while it runs, and its memory map is noted as it changes, so that
 * after it exits every sampled address can be named with libdwfl.  The
 * report lists functions by their share of the samples.
 *
 * As with pctr stat, the report never mixes with the command's output: it
 * goes to standard error, or to FILE (opened close-on-exec, so the command
 * cannot write into it), or with "-o -" to standard output.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "pctr.h"
#include "symbols.h"

#define DEFAULT_HZ 1000

struct opts {
	const char *event;
	uint64_t period;
	uint64_t hz;
	int json;
	const char *output;
	FILE *out;
	char **argv;
};

struct hist {
	uint64_t *ip;
	uint64_t *n;
	size_t cap, used;
	uint64_t total;
};

struct func {
	char name[256];
	char mod[128];
	uint64_t n;
};

static void
hist_put(struct hist *h, uint64_t ip, uint64_t n)
{
	size_t i = (ip * 0x9e3779b97f4a7c15ull) & (h->cap - 1);

	while (h->n[i] && h->ip[i] != ip)
		i = (i + 1) & (h->cap - 1);
	h->used += !h->n[i];
	h->ip[i] = ip;
	h->n[i] += n;
}

static int
hist_add(struct hist *h, uint64_t ip)
{
	if (2 * (h->used + 1) > h->cap) {
		struct hist g = { .cap = h->cap ? 2 * h->cap : 4096,
				  .total = h->total };

		g.ip = calloc(g.cap, sizeof(*g.ip));
		g.n = calloc(g.cap, sizeof(*g.n));
		if (!g.ip || !g.n) {
			free(g.ip);
			free(g.n);
			return -ENOMEM;
		}
		for (size_t i = 0; i < h->cap; i++)
			if (h->n[i])
				hist_put(&g, h->ip[i], h->n[i]);
		free(h->ip);
		free(h->n);
		*h = g;
	}
	hist_put(h, ip, 1);
	h->total++;
	return 0;
}

static int
on_sample(const struct pctr_sample_record *r, void *arg)
{
	return hist_add(arg, r->ip) < 0;
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
usage_error(const char *msg, const char *arg)
{
	fprintf(stderr, "pctr profile: %s%s%s\n", msg, arg ? ": " : "",
		arg ? arg : "");
	fprintf(stderr, "usage: pctr profile [-e EVENT] [-c PERIOD | -F HZ] "
			"[--json] [-o FILE] -- COMMAND ...\n");
	return EXIT_USAGE;
}

static int
parse(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "+e:c:F:o:", lo, NULL)) != -1) {
		if (c == 'e')
			o->event = optarg;
		else if (c == 'c' && parse_u64(optarg, &o->period) < 0)
			return usage_error("bad period", optarg);
		else if (c == 'F' && parse_u64(optarg, &o->hz) < 0)
			return usage_error("bad frequency", optarg);
		else if (c == 'j')
			o->json = 1;
		else if (c == 'o')
			o->output = optarg;
		else if (c == '?')
			return EXIT_USAGE;
	}
	if (o->period && o->hz)
		return usage_error("give -c or -F, not both", NULL);
	if (optind >= argc)
		return usage_error("no command to profile", NULL);
	o->argv = argv + optind;
	return 0;
}

static int
fail(const char *what, int r)
{
	fprintf(stderr, "pctr profile: %s: %s\n", what, pctr_strerror(r));
	if (r == -ENOENT || r == -ENODEV || r == -EOPNOTSUPP)
		return EXIT_EVENT;
	return r == -EACCES || r == -EPERM ? EXIT_PERM : 1;
}

static const char *
default_event(void)
{
	struct pctr_machine m = { .size = sizeof(m) };

	return pctr_machine_get(&m) == 0 && m.has_pmu ? "cycles" : "task-clock";
}

static int
open_set(const struct opts *o, struct pctr_set **setp)
{
	struct pctr_sampling cfg = { .size = sizeof(cfg), .pages = 128 };
	int r;

	cfg.period = o->period ? o->period : o->hz ? o->hz : DEFAULT_HZ;
	cfg.flags = o->period ? 0 : PCTR_SAMPLE_FREQ;
	r = pctr_set_new(setp, 0);
	if (r == 0)
		r = pctr_set_add(*setp, o->event);
	if (r < 0)
		return fail(o->event, r);
	r = pctr_set_sampling(*setp, 0, &cfg);
	return r < 0 ? fail("cannot sample", r) : 0;
}

/* read samples and note the map until the command exits */
static int
run(struct pctr_set *set, pid_t pid, struct syms *syms, struct hist *h,
    int *status)
{
	int r;

	syms_snapshot(syms);
	for (;;) {
		pid_t w = waitpid(pid, status, WNOHANG);

		if (w == pid)
			break;
		r = pctr_sampling_wait(set, 20);
		syms_snapshot(syms);
		if (pctr_sampling_read(set, on_sample, h) < 0)
			return -1;
		if (r == -ESRCH && waitpid(pid, status, 0) == pid)
			break;
	}
	return pctr_sampling_read(set, on_sample, h) < 0 ? -1 : 0;
}

static int
cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	return x->n < y->n ? 1 : x->n > y->n ? -1 : strcmp(x->name, y->name);
}

/* name every distinct IP and add up the samples per function */
static struct func *
by_function(const struct hist *h, struct syms *syms, size_t *nr)
{
	struct func *f = calloc(h->used + 1, sizeof(*f));
	size_t n = 0;

	for (size_t i = 0; f && i < h->cap; i++) {
		struct func cur = { .n = h->n[i] };
		size_t k;

		if (!h->n[i])
			continue;
		syms_name(syms, h->ip[i], cur.name, sizeof(cur.name), cur.mod,
			  sizeof(cur.mod));
		for (k = 0; k < n; k++)
			if (!strcmp(f[k].name, cur.name) &&
			    !strcmp(f[k].mod, cur.mod))
				break;
		if (k == n)
			f[n++] = cur;
		else
			f[k].n += cur.n;
	}
	if (f)
		qsort(f, n, sizeof(*f), cmp_func);
	*nr = n;
	return f;
}

static void
json_str(FILE *f, const char *s)
{
	putc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(f, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(f, "\\u%04x", *s);
		else
			putc(*s, f);
	}
	putc('"', f);
}

static void
print_json(const struct opts *o, const struct pctr_set *set,
	   const struct func *f, size_t n, uint64_t total, uint64_t lost)
{
	FILE *out = o->out;

	fprintf(out, "{\"schema\":\"pctr-profile/1\",\"event\":");
	json_str(out, pctr_set_event(set, 0)->name);
	if (o->period)
		fprintf(out, ",\"period\":%llu", (unsigned long long)o->period);
	else
		fprintf(out, ",\"frequency\":%llu",
		       (unsigned long long)(o->hz ? o->hz : DEFAULT_HZ));
	fprintf(out, ",\"samples\":%llu,\"lost\":%llu,\"functions\":[",
	       (unsigned long long)total, (unsigned long long)lost);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s{\"name\":", i ? "," : "");
		json_str(out, f[i].name);
		fprintf(out, ",\"module\":");
		json_str(out, f[i].mod);
		fprintf(out, ",\"samples\":%llu,\"share\":%.4f}",
		       (unsigned long long)f[i].n,
		       (double)f[i].n / (double)total);
	}
	fprintf(out, "]}\n");
}

static void
print_text(const struct opts *o, const struct pctr_set *set,
	   const struct func *f, size_t n, uint64_t total, uint64_t lost)
{
	FILE *out = o->out;

	fprintf(out, "# %llu samples of %s (", (unsigned long long)total,
	       pctr_set_event(set, 0)->name);
	if (o->period)
		fprintf(out, "every %llu events", (unsigned long long)o->period);
	else
		fprintf(out, "%llu Hz", (unsigned long long)(o->hz ? o->hz
							     : DEFAULT_HZ));
	fprintf(out, "), %llu lost\n", (unsigned long long)lost);
	fprintf(out, "%7s %9s  %-40s %s\n", "share", "samples", "function",
	       "module");
	for (size_t i = 0; i < n; i++)
		fprintf(out, "%6.2f%% %9llu  %-40s %s\n",
		       100.0 * (double)f[i].n / (double)total,
		       (unsigned long long)f[i].n, f[i].name, f[i].mod);
}

/* stderr, stdout for "-", or FILE: close-on-exec, never the command's */
static int
open_output(struct opts *o)
{
	o->out = stderr;
	if (!o->output)
		return 0;
	if (!strcmp(o->output, "-")) {
		o->out = stdout;
		return 0;
	}
	o->out = fopen(o->output, "we");
	if (o->out)
		return 0;
	fprintf(stderr, "pctr profile: -o: cannot write '%s': %s\n",
		o->output, strerror(errno));
	return 1;
}

static int
close_output(const struct opts *o, int r)
{
	if (o->out && o->out != stderr && o->out != stdout &&
	    fclose(o->out) != 0 && r == 0) {
		fprintf(stderr, "pctr profile: -o: cannot write '%s': %s\n",
			o->output, strerror(errno));
		return 1;
	}
	if (o->out == stdout && fflush(stdout) != 0 && r == 0) {
		fprintf(stderr, "pctr profile: cannot write the report: %s\n",
			strerror(errno));
		return 1;
	}
	return r;
}

static int
exit_status(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : 1;
}

static int
report(const struct opts *o, struct pctr_set *set, struct syms *syms,
       const struct hist *h)
{
	struct pctr_overflow_stats st = { .size = sizeof(st) };
	struct func *f;
	size_t n;

	pctr_overflow_stats(set, 0, &st);
	f = by_function(h, syms, &n);
	if (!f) {
		fprintf(stderr, "pctr profile: out of memory\n");
		return 1;
	}
	if (o->json)
		print_json(o, set, f, n, h->total, st.lost);
	else
		print_text(o, set, f, n, h->total, st.lost);
	if (st.lost)
		fprintf(stderr, "pctr profile: %llu samples lost: the buffer "
				"filled up; lower the rate (-F) or raise the "
				"period (-c)\n",
			(unsigned long long)st.lost);
	free(f);
	return 0;
}

int
cmd_profile(int argc, char **argv)
{
	struct opts o = { .event = NULL };
	struct pctr_set *set = NULL;
	struct syms *syms = NULL;
	struct hist h = { 0 };
	int r, status = 0;
	pid_t pid;

	r = parse(argc, argv, &o);
	if (r)
		return r;
	if (!o.event)
		o.event = default_event();
	r = open_set(&o, &set);
	if (r == 0)
		r = open_output(&o);
	if (r) {
		pctr_set_free(set);
		return close_output(&o, r);
	}
	r = pctr_set_open_command(set, o.argv, &pid);
	if (r < 0) {
		int code = r == -ENOENT ? EXIT_NOTFOUND
			   : r == -EACCES ? EXIT_NOEXEC : fail(o.argv[0], r);

		if (r == -ENOENT || r == -EACCES)
			fprintf(stderr, "pctr profile: %s\n", pctr_strerror(r));
		pctr_set_free(set);
		return close_output(&o, code);
	}
	if (syms_new(&syms, pid) < 0 || run(set, pid, syms, &h, &status) < 0) {
		fprintf(stderr, "pctr profile: out of memory\n");
		r = 1;
	} else
		r = report(&o, set, syms, &h);
	syms_free(syms);
	pctr_set_free(set);
	free(h.ip);
	free(h.n);
	r = close_output(&o, r);
	return r ? r : exit_status(status);
}
