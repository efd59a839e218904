/* SPDX-License-Identifier: MIT */
/*
 * count - the shortest useful libpctr program: count events around a piece
 * of work in this thread and print them.
 *
 *   count [EVENTS]     default "task-clock,page-faults,instructions:u"
 *
 * On a machine without a hardware PMU, hardware events cannot be counted;
 * the program then says why and counts the software events alone.
 */
#include <errno.h>
#include <pctr.h>
#include <stdio.h>
#include <stdlib.h>

static void
work(void)
{
	size_t len = 16 << 20;
	volatile char *p = malloc(len);

	for (size_t i = 0; p && i < len; i += 4096)
		p[i] = 1;
	free((void *)p);
}

static int
open_set(struct pctr_set **set, const char *events)
{
	struct pctr_target self = { .type = PCTR_TARGET_THREAD };
	int r;

	r = pctr_set_new(set, 0);
	if (r == 0)
		r = pctr_set_add_list(*set, events);
	if (r >= 0)
		r = pctr_set_open(*set, &self);
	return r;
}

int
main(int argc, char **argv)
{
	const char *events = argc > 1 ? argv[1]
				      : "task-clock,page-faults,instructions:u";
	struct pctr_sample before, after;
	struct pctr_set *set;
	int r = open_set(&set, events);

	if (r == -ENODEV && argc == 1) {
		fprintf(stderr, "count: %s\n", pctr_strerror(r));
		pctr_set_free(set);
		r = open_set(&set, "task-clock,page-faults");
	}
	if (r < 0) {
		fprintf(stderr, "count: %s\n", pctr_strerror(r));
		pctr_set_free(set);
		return 1;
	}
	pctr_set_enable(set);
	pctr_set_read(set, &before);
	work();
	pctr_set_read(set, &after);
	for (int i = 0; i < pctr_set_nr(set); i++) {
		struct pctr_count d = pctr_count_delta(&after.count[i],
						       &before.count[i]);

		printf("%20.0f  %s\n", pctr_count_scaled(&d),
		       pctr_set_event(set, i)->name);
	}
	printf("%20llu  ns elapsed (%s read)\n",
	       (unsigned long long)pctr_tsc_to_ns(after.tsc - before.tsc),
	       after.path & PCTR_PATH_USER ? "user-space" : "syscall");
	pctr_set_free(set);
	return 0;
}
