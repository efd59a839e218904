/* SPDX-License-Identifier: MIT */
/*
 * fuzz_event_parse.c - pctr_event_parse() in every syntax, against the x86
 * fixture's sysfs tree (or $PCTR_SYSFS_ROOT) and a forced libpfm4 table.
 *
 * Beyond "no crash": a parsed event carries a canonical name that parses
 * again to the same attributes (include/pctr.h promises it), and a failure
 * always comes with an explanation.
 */
#include <errno.h>
#include <pctr.h>

#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_use_fixture("x86");
	setenv("LIBPFM_FORCE_PMU", "skl", 0);
	return 0;
}

static void
check_round_trip(const struct pctr_event *ev)
{
	struct pctr_event again = { .size = sizeof(again) };
	int r = pctr_event_parse(ev->name, &again);

	if (r < 0) {
		fprintf(stderr, "canonical name '%s' fails: %s\n", ev->name,
			pctr_strerror(r));
		abort();
	}
	if (again.type != ev->type ||
	    again.config != ev->config ||
	    again.config1 != ev->config1 ||
	    again.config2 != ev->config2 ||
	    again.config3 != ev->config3 || again.flags != ev->flags ||
	    again.precise != ev->precise ||
	    again.nr_parts != ev->nr_parts) {
		fprintf(stderr, "'%s' parses to other attributes\n", ev->name);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *spec = fuzz_string(data, size, 512);
	struct pctr_event ev = { .size = sizeof(ev) };
	int r = pctr_event_parse(spec, &ev);

	if (r == 0) {
		if (ev.size != sizeof(ev) || ev.nr_parts < 1 ||
		    ev.nr_parts > PCTR_MAX_PARTS ||
		    !memchr(ev.name, '\0', sizeof(ev.name)))
			abort();
		check_round_trip(&ev);
	} else if (r > 0 || !*pctr_strerror(r)) {
		abort();
	}
	free(spec);
	return 0;
}
