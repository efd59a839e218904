/* SPDX-License-Identifier: MIT */
/*
 * test_bsd_sync - the BSD layers' readers and writers (compat/bsd/
 * bsd_sync.c), driven directly: a signal handler that interrupted its own
 * thread's read (a reader that cannot finish until the handler returns)
 * closes device after device.  Each close parks the counters' sets; no
 * close may wait for the reader, and nothing may be freed in the handler.
 * Parking used to have 16 places and waited for a free one: the 17th set
 * spun forever.
 */
#include <pctr.h>

#include "bsd_sync.h"
#include "test.h"

#define NR_SETS 40 /* more than the 16 places parking used to have */

static struct pctr_set *
adopted_set(void)
{
	struct pctr_set *set;
	sigset_t old;

	ASSERT_OK(pctr_set_new(&set, 0));
	ASSERT_EQ(pctr_set_add(set, "task-clock"), 0);
	pctr_bsd_write_lock(&old);
	ASSERT_OK(pctr_bsd_adopt());
	pctr_bsd_write_unlock(&old);
	return set;
}

TEST(closes_in_a_handler_during_a_read_never_wait)
{
	struct pctr_set *set[NR_SETS], *more;
	sigset_t old;

	for (int i = 0; i < NR_SETS; i++)
		set[i] = adopted_set();
	pctr_bsd_read_begin(); /* the interrupted read */
	for (int i = 0; i < NR_SETS; i++) {
		/* close() in the handler: may_free false */
		pctr_bsd_write_lock(&old);
		pctr_bsd_retire(set[i], false);
		pctr_bsd_write_unlock(&old);
	}
	ASSERT_EQ(pctr_bsd_nr_parked(), NR_SETS);
	/* a writer outside the handler frees nothing while the read lasts */
	more = adopted_set();
	pctr_bsd_write_lock(&old);
	pctr_bsd_retire(more, true);
	pctr_bsd_write_unlock(&old);
	ASSERT_EQ(pctr_bsd_nr_parked(), NR_SETS + 1);
	pctr_bsd_read_end(); /* the handler returned, the read ended */
	/* the next writer frees every parked set, and its own at once */
	more = adopted_set();
	pctr_bsd_write_lock(&old);
	pctr_bsd_retire(more, true);
	pctr_bsd_write_unlock(&old);
	ASSERT_EQ(pctr_bsd_nr_parked(), 0);
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE_TIMEOUT(
		closes_in_a_handler_during_a_read_never_wait, 30)));
}
