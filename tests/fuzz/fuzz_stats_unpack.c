/* SPDX-License-Identifier: MIT */
/*
 * fuzz_stats_unpack.c - bytes from another process or host, as a rank
 * receives them: pctr_stats_unpack() must refuse what is not a pack and
 * never read past it; what it accepts must be usable (read, merged into
 * with a second copy, packed again to the same bytes: the layout has one
 * pack for one set of statistics).  An older version's pack, which the
 * reader still takes, packs again as the current version, whose bytes
 * then read back to the same bytes again.
 */
#include <errno.h>
#include <pctr.h>

#include "fuzz.h"

/* the pack's version: a little-endian u32 after the 8 bytes of magic */
static uint32_t
version(const uint8_t *d, size_t size)
{
	if (size < 12)
		abort(); /* accepted, so it had a header */
	return d[8] | d[9] << 8 | d[10] << 16 | (uint32_t)d[11] << 24;
}

/* a current pack (@buf, @n bytes) reads back and packs to itself */
static void
same_again(const unsigned char *buf, size_t n)
{
	struct pctr_stats *st;
	unsigned char *again = malloc(n);

	if (!again || pctr_stats_unpack(&st, buf, n) < 0 ||
	    pctr_stats_pack(st, again, n) != (ssize_t)n ||
	    memcmp(again, buf, n))
		abort();
	pctr_stats_free(st);
	free(again);
}

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
	if (n < 0 || !(again = malloc((size_t)n)) ||
	    pctr_stats_pack(st, again, (size_t)n) != n)
		abort();
	if (version(data, size) == PCTR_STATS_PACK_VERSION) {
		if (n != (ssize_t)size || memcmp(again, data, size))
			abort();
	} else {
		same_again(again, (size_t)n);
	}
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
