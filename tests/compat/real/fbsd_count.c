/*
 * fbsd_count - count one event around a piece of work with perfmon(4):
 * PMIOSETUP, PMIOSTART, the work, PMIOREAD, PMIOSTOP, and PMIOTSTAMP for
 * the time, as the FreeBSD 2.x-4.x tuning programs did.
 *
 *	fbsd_count [-k] [-n counter] event
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <machine/perfmon.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static volatile long sink;

static void
work(void)
{
	long i;

	for (i = 0; i < 20000000; i++)
		sink += i;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fbsd_count [-k] [-n counter] event\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct pmc pmc;
	struct pmc_data pmcd;
	struct pmc_tstamp t0, t1;
	int ch, fd, num = 0, flags = PMCF_USR;
	char *end;

	while ((ch = getopt(argc, argv, "kn:")) != -1) {
		switch (ch) {
		case 'k':
			flags |= PMCF_OS;
			break;
		case 'n':
			num = atoi(optarg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc - 1)
		usage();
	bzero(&pmc, sizeof(pmc));
	pmc.pmc_num = num;
	pmc.pmc_event = strtoul(argv[optind], &end, 0);
	if (*end)
		errx(1, "%s: not an event number", argv[optind]);
	pmc.pmc_flags = flags;

	fd = open(_PATH_PERFMON, O_RDWR);
	if (fd < 0)
		err(1, "open %s", _PATH_PERFMON);
	if (ioctl(fd, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(fd, PMIOTSTAMP, &t0) < 0)
		err(1, "ioctl(PMIOTSTAMP)");
	if (ioctl(fd, PMIOSTART, &num) < 0)
		err(1, "ioctl(PMIOSTART)");
	work();
	pmcd.pmcd_num = num;
	if (ioctl(fd, PMIOREAD, &pmcd) < 0)
		err(1, "ioctl(PMIOREAD)");
	if (ioctl(fd, PMIOSTOP, &num) < 0)
		err(1, "ioctl(PMIOSTOP)");
	if (ioctl(fd, PMIOTSTAMP, &t1) < 0)
		err(1, "ioctl(PMIOTSTAMP)");
	if (ioctl(fd, PMIOGET, &pmc) < 0)
		err(1, "ioctl(PMIOGET)");
	close(fd);
	printf("counter %d event %#x flags %#x: %qd\n", num, pmc.pmc_event,
	    pmc.pmc_flags, pmcd.pmcd_value);
	printf("%qd cycles at about %d MHz\n", t1.pmct_value - t0.pmct_value,
	    t1.pmct_rate);
	return 0;
}
