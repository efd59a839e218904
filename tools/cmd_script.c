/* SPDX-License-Identifier: MIT */
/*
 * cmd_script.c - pctr script: a recording's samples, one by one, in perf
 * script's default line format, which FlameGraph's stackcollapse-perf.pl
 * and other profilers' importers read.
 *
 *   pctr script [-i FILE]
 *
 * A sample without a call chain is one line:
 *   COMM PID [CPU] SECS.USECS: PERIOD EVENT:  IP SYM+0xOFF (DSO)
 * with COMM right-aligned in 16 columns; one with a call chain is its
 * first line up to "EVENT: ", then a line per frame, leaf first,
 *   \t        IP SYM+0xOFF (DSO)
 * and an empty line.  As perf script (6.1) prints them: the CPU only when
 * the recording has it, the time in microseconds (truncated), a frame's
 * address within its module where the module is known, SYM "[unknown]"
 * (no offset) and DSO "[unknown]" where they are not.  Samples are named
 * in the address space their process had when they were taken (the
 * side-band records are read in order with them, symbols.c), in the
 * kernel or in user space as the sample says (its chain's markers, its
 * cpumode); --call-graph dwarf recordings are unwound as pctr report
 * unwinds them (unwind.c), callers at their return address - 1 as perf's
 * unwinder gives them.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "tool.h"
#include "perf_data.h"
#include "symbols.h"
#include "unwind.h"
#include "util.h"

#define MAX_CHAIN (1024 + 128) /* kernel part and user part (unwind.c's) */
#define MAX_INLINE 64 /* functions at one address: calls inlined, nested */

struct script {
	const struct perf_data_info *info;
	struct syms *syms;
	struct unwind *unw;
	uint64_t chain[MAX_CHAIN];
	int err;
};

/* a frame's line: its address, the function and offset, and its module */
static void
print_line(const struct sym_where *w, uint64_t ip, bool in_chain,
	   const char *sym, bool inlined)
{
	/* in a chain, perf shows a known module's address within it */
	printf(in_chain ? "\t%16llx " : " %16llx ",
	       (unsigned long long)(in_chain && w->has_map ? w->rel : ip));
	if (sym)
		printf("%s+0x%llx", sym, (unsigned long long)w->off);
	else
		printf("[unknown]");
	if (inlined)
		printf(" (inlined)\n");
	else
		printf(" (%s)\n", w->path);
}

/*
 * A frame @unwound from a stack copy (not the kernel's chain) is a line
 * for each call inlined there, then the function's, as perf script names
 * the frames of its unwinder from the debugging information (addr2line
 * -i): each at the frame's address and offset, a name other than the
 * symbol's "(inlined)" in place of the module.
 */
static void
print_frame(struct script *sc, int space, bool kernel, uint64_t ip,
	    bool in_chain, bool unwound)
{
	const char *in[MAX_INLINE];
	struct sym_where w;
	int n = 0;

	syms_where(sc->syms, space, kernel, ip, &w);
	if (unwound && w.has_sym)
		n = syms_inlined(sc->syms, space, ip, in, MAX_INLINE);
	for (int i = 0; i < n; i++)
		print_line(&w, ip, in_chain, in[i], strcmp(in[i], w.sym) != 0);
	if (n == 0)
		print_line(&w, ip, in_chain, w.has_sym ? w.sym : NULL, false);
}

/* COMM PID [CPU] TIME: PERIOD EVENT: */
static void
print_start(const struct script *sc, const struct pctr_sample_record *r,
	    int space, bool chain)
{
	const char *comm = syms_comm(sc->syms, space);
	uint64_t us = r->time / 1000;

	printf(chain ? "%s " : "%16s ", comm);
	printf("%5d ", r->tid);
	if (r->cpu >= 0)
		printf("[%03d] ", r->cpu);
	printf("%5llu.%06llu: ", (unsigned long long)(us / 1000000),
	       (unsigned long long)(us % 1000000));
	printf("%10llu %s: ", (unsigned long long)r->period, sc->info->event);
}

static int
print_sample(struct script *sc, const struct pctr_sample_record *r)
{
	int space = syms_space(sc->syms, r->pid);
	const uint64_t *chain = r->callchain;
	size_t n = r->nr_callchain, nk = r->nr_callchain_kernel;
	bool unwound = r->regs_abi || r->stack_len;

	if (space < 0)
		return -1;
	if (unwound) {
		if (!sc->unw && unwind_new(&sc->unw) < 0)
			return -1;
		n = unwind_sample(sc->unw, sc->syms, space, r, sc->chain,
				  MAX_CHAIN, &nk);
		chain = sc->chain;
	}
	print_start(sc, r, space, sc->info->callchain);
	if (!sc->info->callchain) {
		print_frame(sc, space, !r->user, r->ip, false, false);
		return 0;
	}
	putchar('\n');
	for (size_t i = 0; i < n; i++)
		print_frame(sc, space, i < nk, chain[i], true,
			    unwound && i >= nk);
	putchar('\n');
	return 0;
}

static int
on_record(const struct pctr_sample_record *r, void *arg)
{
	struct script *sc = arg;

	if (r->kind == PCTR_REC_SAMPLE)
		sc->err = print_sample(sc, r);
	else
		sc->err = syms_record(sc->syms, r) < 0 ? -1 : 0;
	return sc->err;
}

static void
usage(FILE *f)
{
	fprintf(f, "usage: pctr script [-i FILE]\n"
		   "  -i, --input FILE   the recording (default perf.data: "
		   "pctr record's or\n"
		   "                     perf record's)\n"
		   "  -h, --help         this text\n");
}

static int
parse(int argc, char **argv, const char **input)
{
	static const struct option opts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	int c;

	optind = 1;
	while ((c = getopt_long(argc, argv, "i:h", opts, NULL)) != -1) {
		if (c == 'i') {
			*input = optarg;
			continue;
		}
		usage(c == 'h' ? stdout : stderr);
		return c == 'h' ? -1 : EXIT_USAGE;
	}
	if (optind < argc) {
		tool_err("no arguments besides the options: %s",
			 argv[optind]);
		usage(stderr);
		return EXIT_USAGE;
	}
	return 0;
}

int
cmd_script(int argc, char **argv)
{
	const char *input = "perf.data";
	struct perf_data_info info;
	struct script sc = { .info = &info };
	int r;

	tool_set_name("pctr script");
	r = parse(argc, argv, &input);
	if (r)
		return r < 0 ? 0 : r;
	if (syms_new(&sc.syms) < 0) {
		tool_err("out of memory");
		return 1;
	}
	r = perf_data_read(input, &info, on_record, &sc);
	syms_free(sc.syms);
	unwind_free(sc.unw);
	if (r == -ECANCELED || r == -ENOMEM)
		tool_err("out of memory");
	else if (r < 0)
		tool_err("%s: %s", input,
			 r == -EINVAL && info.why ? info.why : strerror(-r));
	return r < 0 ? 1 : 0;
}
