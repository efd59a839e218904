/* SPDX-License-Identifier: MIT */
/*
 * fuzz_set_add_list.c - pctr_set_add_list(): splitting at commas and blanks
 * outside "pmu/.../", and "nothing is added if one entry fails"; and
 * pctr_event_parse_list() of the same list agrees with it: whatever a set
 * takes parses to as many events, with a callback per event, and a list
 * that does not parse is never added.
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

static int
count(const struct pctr_event *ev, int group, void *arg)
{
	if (!ev || group < 0 || group > PCTR_MAX_EVENTS)
		abort();
	++*(int *)arg;
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = fuzz_string(data, size, 4096);
	struct pctr_set *set;
	int r, before, parsed, calls = 0;

	if (pctr_set_new(&set, 0) < 0)
		abort();
	/* a set that already holds one event must keep exactly that one */
	if (pctr_set_add(set, "task-clock") != 0)
		abort();
	before = pctr_set_nr(set);
	r = pctr_set_add_list(set, list);
	if (r < 0 && pctr_set_nr(set) != before)
		abort();
	if (r >= 0 && (r == 0 || pctr_set_nr(set) != before + r ||
		       pctr_set_nr(set) > PCTR_MAX_EVENTS))
		abort();
	parsed = pctr_event_parse_list(list, count, &calls);
	if (parsed >= 0 ? calls != parsed : calls != 0)
		abort();
	if ((r >= 0 && parsed != r) || (parsed < 0 && r >= 0))
		abort();
	for (int i = 0; i < pctr_set_nr(set); i++)
		if (!pctr_set_event(set, i))
			abort();
	if (pctr_set_event(set, pctr_set_nr(set)) || pctr_set_event(set, -1))
		abort();
	pctr_set_free(set);
	free(list);
	return 0;
}
