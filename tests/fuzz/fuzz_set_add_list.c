/* SPDX-License-Identifier: MIT */
/*
 * fuzz_set_add_list.c - pctr_set_add_list(): splitting at commas and blanks
 * outside "pmu/.../", and "nothing is added if one entry fails".
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

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *list = fuzz_string(data, size, 4096);
	struct pctr_set *set;
	int r, before;

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
	for (int i = 0; i < pctr_set_nr(set); i++)
		if (!pctr_set_event(set, i))
			abort();
	if (pctr_set_event(set, pctr_set_nr(set)) || pctr_set_event(set, -1))
		abort();
	pctr_set_free(set);
	free(list);
	return 0;
}
