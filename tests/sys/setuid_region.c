/* SPDX-License-Identifier: MIT */
/*
 * setuid_region - a program that measures a region, for test_setuid to
 * install setuid root and run as an unprivileged user.  Linked statically,
 * since the loader of a setuid program ignores the build tree's $ORIGIN
 * run path.  Prints what the library made of the environment:
 *
 *   secure=AT_SECURE euid=N sysfs=ROOT from_env=0|1 pfm=N
 *
 * from_env is 1 when $PCTR_EVENTS switched measurement on by itself; pfm
 * is how many libpfm4 events are listed ($LIBPFM_FORCE_PMU lists a CPU's
 * table where there is no PMU).  It
 * then configures regions itself (page-faults), measures one region and
 * exits 0, leaving any report to the library's exit handler.
 */
#include <errno.h>
#include <pctr.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

const char *pctr__sysfs_root(void); /* internal: the static archive has it */

static int
count_pfm(const struct pctr_event_info *info, void *arg)
{
	*(int *)arg += !strncmp(info->source, "pfm:", 4);
	return 0;
}

int
main(void)
{
	struct pctr_region_config cfg = {
		.size = sizeof(cfg), .events = "page-faults",
	};
	int on = pctr_region_enable(1) != -EBADFD;
	int pfm = 0, r;

	pctr_event_list(count_pfm, &pfm);
	printf("secure=%lu euid=%d sysfs=%s from_env=%d pfm=%d\n",
	       getauxval(AT_SECURE), (int)geteuid(), pctr__sysfs_root(), on,
	       pfm);
	fflush(stdout);
	r = pctr_region_init(&cfg);
	if (r == 0)
		r = pctr_region_begin("work");
	if (r == 0)
		r = pctr_region_end("work");
	if (r < 0)
		fprintf(stderr, "setuid_region: %s\n", pctr_strerror(r));
	return r < 0;
}
