/* SPDX-License-Identifier: MIT */
/*
 * repro_group_read_echild.c - a PERF_FORMAT_GROUP read of an inherited
 * group fails with ECHILD while threads exit; a read of one counter of the
 * same group never does.
 *
 * Since Linux 6.6 (the CVE-2023-5717 fix), __perf_read_group_add() compares
 * each inherited child group with its parent (group_generation and
 * nr_siblings) and returns -ECHILD when they differ.  A thread that exits
 * takes its child group apart one event at a time, and for that moment the
 * child group is smaller than the parent's: a group read that walks the
 * children then fails.  A read without PERF_FORMAT_GROUP sums the event and
 * its children (perf_read_one) with no such check.
 *
 * The group here is laid out as libpctr lays out an inherited group:
 * task-clock (leader), page-faults, context-switches, cpu-migrations, each
 * with read_format ID | TOTAL_TIME_ENABLED | TOTAL_TIME_RUNNING so that it
 * reads alone, and a software dummy sibling whose read_format adds
 * PERF_FORMAT_GROUP and so reads the whole group in one call.
 *
 * Two threads create and join short threads while this thread reads the
 * group through the dummy, then each counter alone, READS times.  The
 * longest run of group reads failing back to back is printed too: it says
 * how far retrying alone gets (the exiting thread may be preempted halfway
 * through).  Passes while group reads fail with ECHILD and not one
 * single-counter read fails.
 *
 * Relied on by src/read.c (group reads of inherited sets: bounded retry,
 * then counter by counter).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define READS 200000
#define CHURNERS 2
#define ONE (PERF_FORMAT_ID | PERF_FORMAT_TOTAL_TIME_ENABLED | \
	     PERF_FORMAT_TOTAL_TIME_RUNNING)

static atomic_int stop;
static atomic_long threads;

static int
open_counter(uint64_t config, int group_fd, uint64_t read_format)
{
	struct perf_event_attr a;

	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_SOFTWARE;
	a.config = config;
	a.inherit = 1;
	a.exclude_kernel = 1; /* perf_event_paranoid 2 allows it unprivileged */
	a.exclude_hv = 1;
	a.read_format = read_format;
	return (int)syscall(SYS_perf_event_open, &a, 0, -1, group_fd,
			    PERF_FLAG_FD_CLOEXEC);
}

static void *
short_thread(void *arg)
{
	return arg;
}

static void *
churn(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop)) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, NULL) == 0) {
			pthread_join(t, NULL);
			atomic_fetch_add(&threads, 1);
		}
	}
	return NULL;
}

int
main(void)
{
	static const uint64_t cfg[] = {
		PERF_COUNT_SW_TASK_CLOCK, PERF_COUNT_SW_PAGE_FAULTS,
		PERF_COUNT_SW_CONTEXT_SWITCHES, PERF_COUNT_SW_CPU_MIGRATIONS,
	};
	int fd[4], dummy, nr = 4;
	long echild = 0, group_other = 0, one_fail = 0, ok_group = 0;
	long run = 0, longest = 0, runs3 = 0;
	uint64_t buf[3 + 2 * 5], one[4];
	pthread_t ch[CHURNERS];

	printf("TAP version 13\n1..2\n");
	for (int i = 0; i < nr; i++) {
		fd[i] = open_counter(cfg[i], i ? fd[0] : -1, ONE);
		if (fd[i] < 0) {
			printf("not ok 1 - perf_event_open: %s\n",
			       strerror(errno));
			return 1;
		}
	}
	dummy = open_counter(PERF_COUNT_SW_DUMMY, fd[0],
			     ONE | PERF_FORMAT_GROUP);
	if (dummy < 0) {
		printf("not ok 1 - perf_event_open (dummy): %s\n",
		       strerror(errno));
		return 1;
	}
	for (int i = 0; i < CHURNERS; i++)
		pthread_create(&ch[i], NULL, churn, NULL);
	for (int r = 0; r < READS; r++) {
		ssize_t n = read(dummy, buf, sizeof(buf));

		if (n < 0 && errno == ECHILD) {
			echild++;
			runs3 += ++run == 3;
			longest = run > longest ? run : longest;
		} else if (n != (ssize_t)((3 + 2 * (nr + 1)) * 8))
			group_other++;
		else
			ok_group++;
		if (!(n < 0 && errno == ECHILD))
			run = 0;
		for (int i = 0; i < nr; i++)
			if (read(fd[i], one, sizeof(one)) != sizeof(one))
				one_fail++;
	}
	atomic_store(&stop, 1);
	for (int i = 0; i < CHURNERS; i++)
		pthread_join(ch[i], NULL);
	printf("# %d group reads: %ld ECHILD, %ld other failures, %ld whole\n",
	       READS, echild, group_other, ok_group);
	printf("# longest run of ECHILD in a row: %ld; runs of 3 or more: "
	       "%ld\n", longest, runs3);
	printf("# %d single-counter reads: %ld failed\n", READS * nr,
	       one_fail);
	printf("# %ld threads created and exited meanwhile\n",
	       atomic_load(&threads));
	printf("%s 1 - group reads of an inherited group fail with ECHILD "
	       "while threads exit\n",
	       echild > 0 && !group_other ? "ok" : "not ok");
	printf("%s 2 - single-counter reads of the same counters never "
	       "fail\n", one_fail == 0 ? "ok" : "not ok");
	return echild > 0 && !group_other && one_fail == 0 ? 0 : 1;
}
