/* SPDX-License-Identifier: MIT */
/*
 * test_mpi_blob - libpctr-mpi's parts that need no MPI: a rank's regions
 * packed and read back (mpi/blob.c), every truncation and foreign block
 * refused without a byte read past it, and the job's report (mpi/report.c)
 * reduced over ranks, with names that are no valid UTF-8 kept valid JSON.
 * Leaks and over-reads are the asan and valgrind stages' to find here; the
 * ranks of a real job run in tests/mpi.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "pctr.h"
#include "pctr_mpi.h"
#include "test.h"

#define ODD_NAME "q\"\xff\x01"

static unsigned char *blob;
static size_t blob_len;

/* regions "a" (2 intervals) and ODD_NAME (1), page faults counted */
static void
measure(void)
{
	struct pctr_region_config cfg = { .size = sizeof(cfg),
					  .events = "page-faults,task-clock" };
	long page = sysconf(_SC_PAGESIZE);

	ASSERT_OK(pctr_region_init(&cfg));
	for (int i = 0; i < 2; i++) {
		char *p = mmap(NULL, 5 * page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		ASSERT(p != MAP_FAILED);
		ASSERT_OK(pctr_region_begin("a"));
		memset(p, 1, 5 * page);
		ASSERT_OK(pctr_region_end("a"));
		munmap(p, 5 * page);
	}
	ASSERT_OK(pctr_region_begin(ODD_NAME));
	ASSERT_OK(pctr_region_end(ODD_NAME));
	ASSERT_OK(pctr_mpi__encode(2, 1.5, 0.5, &blob, &blob_len));
}

static double
total_of(const struct pctr_stats *st, int idx)
{
	struct pctr_summary s = { .size = sizeof(s) };

	ASSERT_OK(pctr_stats_get(st, idx, &s));
	return s.total;
}

TEST(packed_and_read_back)
{
	struct mpi_rank r;
	struct pctr_stats *a;

	measure();
	printf("# a rank's block: %zu bytes for 2 regions of 2 events\n",
	       blob_len);
	ASSERT_OK(pctr_mpi__decode(blob, blob_len, &r));
	ASSERT_EQ(r.rank, 2);
	ASSERT_DBL_NEAR(r.run_s, 1.5, 0);
	ASSERT_DBL_NEAR(r.mpi_s, 0.5, 0);
	ASSERT_EQ(r.nr, 2);
	ASSERT_STR_EQ(r.reg[0].name, "a");
	ASSERT_STR_EQ(r.reg[1].name, ODD_NAME);
	ASSERT_EQ(r.reg[0].threads, 1);
	ASSERT_OK(pctr_region_stats("a", &a));
	ASSERT_EQ(pctr_stats_nr(r.reg[0].st), 2);
	ASSERT_STR_EQ(pctr_stats_name(r.reg[0].st, 0), "page-faults");
	/* every figure as measured: the pack is exact */
	for (int i = PCTR_STATS_TIME; i < 2; i++)
		ASSERT_DBL_NEAR(total_of(r.reg[0].st, i), total_of(a, i), 0);
	ASSERT_GE(total_of(a, 0), 10);
	ASSERT(r.reg[0].seconds > 0);
	pctr_stats_free(a);
	pctr_mpi__rank_free(&r);
	free(blob);
}

/* each prefix in a buffer of its own size: a read past it is ASan's */
TEST(every_truncation_is_refused)
{
	struct mpi_rank r;

	measure();
	for (size_t n = 0; n < blob_len; n++) {
		unsigned char *cut = malloc(n ? n : 1);

		memcpy(cut, blob, n);
		ASSERT_EQ(pctr_mpi__decode(cut, n, &r), -EINVAL);
		ASSERT_EQ(r.nr, -1);
		ASSERT(r.why[0] != '\0');
		free(cut);
	}
	blob = realloc(blob, blob_len + 1);
	blob[blob_len] = 0;
	ASSERT_EQ(pctr_mpi__decode(blob, blob_len + 1, &r), -EINVAL);
	ASSERT_STR_EQ(r.why, "bytes after the last region");
	blob[0] = 'X';
	ASSERT_EQ(pctr_mpi__decode(blob, blob_len, &r), -EINVAL);
	ASSERT_STR_EQ(r.why, "not a libpctr-mpi block");
	free(blob);
}

static char *
slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	static char text[65536];
	size_t n;

	ASSERT(f != NULL);
	n = fread(text, 1, sizeof(text) - 1, f);
	text[n] = '\0';
	fclose(f);
	return text;
}

/* three ranks of the same figures and one that is missing */
TEST(report_over_ranks)
{
	struct mpi_rank ranks[4];
	char path[64], dest[80], *text, want[128];
	double pf;

	measure();
	for (int k = 0; k < 3; k++)
		ASSERT_OK(pctr_mpi__decode(blob, blob_len, &ranks[k]));
	pf = total_of(ranks[0].reg[0].st, 0);
	memset(&ranks[3], 0, sizeof(ranks[3]));
	ranks[3].nr = -1;
	snprintf(ranks[3].why, sizeof(ranks[3].why), "never came back");
	snprintf(path, sizeof(path), "/tmp/pctr-mpi-blob-%d.json", getpid());
	snprintf(dest, sizeof(dest), "json:%s", path);
	/* numbers in their shortest form: 0.1, not 0.10000000000000001 */
	ASSERT_OK(pctr_mpi__report(dest, ranks, 4, 0.1));
	text = slurp(path);
	ASSERT_CONTAINS(text, "{\"schema\":\"pctr-mpi-regions/1\",\"size\":4,"
			      "\"gather_s\":0.1,");
	snprintf(want, sizeof(want), "\"page-faults\":{\"ranks\":3,\"total\":"
		 "%.15g,\"min\":%.15g", 3 * pf, pf);
	ASSERT_CONTAINS(text, want);
	ASSERT_CONTAINS(text, "\"imbalance\":1}");
	/* a quote escaped, a byte that is no character replaced */
	ASSERT_CONTAINS(text, "\"name\":\"q\\\"\\ufffd\\u0001\"");
	ASSERT_CONTAINS(text, "{\"rank\":3,\"host\":\"\",\"missing\":"
			      "\"never came back\"}");
	snprintf(dest, sizeof(dest), "text:%s", path);
	ASSERT_OK(pctr_mpi__report(dest, ranks, 4, 0.25));
	text = slurp(path);
	ASSERT_CONTAINS(text, "region \"a\", measured by 3 of 4 ranks");
	ASSERT_CONTAINS(text, "3 missing: never came back");
	unlink(path);
	ASSERT_EQ(pctr_mpi__report("csv:/tmp/x", ranks, 4, 0), -EINVAL);
	ASSERT(!pctr_mpi__report_dest_ok("text:"));
	ASSERT(pctr_mpi__report_dest_ok("stderr"));
	for (int k = 0; k < 3; k++)
		pctr_mpi__rank_free(&ranks[k]);
	free(blob);
}

int
main(void)
{
	unsetenv("PCTR_EVENTS");
	unsetenv("PCTR_REPORT");
	return test_main(TESTS(TEST_CASE(packed_and_read_back)
			       TEST_CASE(every_truncation_is_refused)
			       TEST_CASE(report_over_ranks)));
}
