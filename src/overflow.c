/* SPDX-License-Identifier: MIT */
/* overflow.c - overflow notification (being written). */
#include "internal.h"

int
pctr__overflow_open(struct pctr_set *set)
{
	(void)set;
	return 0;
}

void
pctr__overflow_close(struct pctr_set *set)
{
	(void)set;
}
