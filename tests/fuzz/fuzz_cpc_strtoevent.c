/* SPDX-License-Identifier: MIT */
/*
 * fuzz_cpc_strtoevent.c - libcpc's event specifications: CPCv1's
 * cpc_strtoevent() ("pic0=...,pic1=...,umask0=...,nouser1,...") with the
 * round trip through cpc_eventtostr(), and CPCv2's request names.
 */
#include <libcpc.h>

#include "fuzz.h"

static cpc_t *cpc;
static int cpuver;

static void
quiet(const char *fn, const char *fmt, va_list ap)
{
}

static void
quiet2(const char *fn, int subcode, const char *fmt, va_list ap)
{
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_use_fixture("x86");
	setenv("LIBPFM_FORCE_PMU", "skl", 0);
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT)
		abort();
	cpc_seterrfn(quiet);
	cpuver = cpc_getcpuver();
	cpc = cpc_open(CPC_VER_CURRENT);
	if (cpc)
		cpc_seterrhndlr(cpc, quiet2);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_string(data, size, 1024);
	cpc_event_t ev, again;

	if (cpc_strtoevent(cpuver, spec, &ev) == 0) {
		char *s = cpc_eventtostr(&ev);

		if (!s || cpc_strtoevent(cpuver, s, &again) != 0 ||
		    memcmp(&ev.ce_pes, &again.ce_pes, sizeof(ev.ce_pes)))
			abort();
		free(s); /* the caller's, as on Solaris */
	}
	if (cpc) {
		cpc_set_t *set = cpc_set_create(cpc);

		if (set) {
			cpc_set_add_request(cpc, set, spec, 0, CPC_COUNT_USER,
					    0, NULL);
			cpc_set_destroy(cpc, set);
		}
	}
	free(spec);
	return 0;
}
