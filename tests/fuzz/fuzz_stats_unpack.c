/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stats_unpack.c - bytes from another process or host, as a rank
 * receives them: pctr_stats_unpack() must refuse what is not a pack and
 * never read past it; what it accepts must be usable (read, merged into
 * with a second copy, packed again to the same bytes: the layout has one
 * pack for one set of statistics).
 */
#include <errno.h>
#include <pctr.h>

#include "fuzz.h"

static void
use(struct pctr_stats *st, const uint8_t *data, size_t size)
{
	struct pctr_summary s = { .size = sizeof(s) };
	ssize_t n = pctr_stats_pack(st, NULL, 0);
	struct pctr_stats *twin;
	unsigned char *again;
	double p;

	for (int i = PCTR_STATS_TIME; i < pctr_stats_nr(st); i++) {
		pctr_stats_get(st, i, &s);
		pctr_stats_percentile(st, i, 50, &p);
	}
	if (n != (ssize_t)size)
		abort();
	again = malloc(size);
	if (!again || pctr_stats_pack(st, again, size) != n ||
	    memcmp(again, data, size))
		abort();
	free(again);
	if (pctr_stats_unpack(&twin, data, size) < 0 ||
	    pctr_stats_merge(st, twin) < 0)
		abort();
	pctr_stats_free(twin);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy = malloc(size ? size : 1);
	struct pctr_stats *st;
	int r;

	if (!copy)
		abort();
	memcpy(copy, data, size); /* exactly @size bytes: overreads caught */
	r = pctr_stats_unpack(&st, copy, size);
	if (r == 0)
		use(st, copy, size);
	else if (r != -EINVAL && r != -ENOMEM)
		abort();
	pctr_stats_free(st);
	free(copy);
	return 0;
}
