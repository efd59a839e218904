/*
 * fbsd_dupfd - a monitor that moves its perfmon descriptor out of the way,
 * as daemons do before they close their standard descriptors: dup2()
 * onto a high number, close the original, then set up, start and read
 * counter 0 through the copy; a second copy from fcntl(F_DUPFD) reads the
 * same counter, and closing one copy leaves the device open.
 *
 *	fbsd_dupfd event
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <machine/perfmon.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define	PERFMON_FD	20

static volatile long sink;

static void
work(void)
{
	long i;

	for (i = 0; i < 10000000; i++)
		sink += i;
}

int
main(int argc, char **argv)
{
	struct pmc pmc;
	struct pmc_data a, b;
	int fd, fd2, zero = 0;

	if (argc != 2)
		errx(1, "usage: fbsd_dupfd event");
	if ((fd = open(_PATH_PERFMON, O_RDWR)) < 0)
		err(1, "%s", _PATH_PERFMON);
	if (dup2(fd, PERFMON_FD) != PERFMON_FD)
		err(1, "dup2");
	close(fd);
	bzero(&pmc, sizeof(pmc));
	pmc.pmc_num = 0;
	pmc.pmc_event = strtoul(argv[1], NULL, 0);
	pmc.pmc_flags = PMCF_USR | PMCF_OS;
	if (ioctl(PERFMON_FD, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(PERFMON_FD, PMIOSTART, &zero) < 0)
		err(1, "ioctl(PMIOSTART)");
	work();
	a.pmcd_num = 0;
	if (ioctl(PERFMON_FD, PMIOREAD, &a) < 0)
		err(1, "ioctl(PMIOREAD)");
	if ((fd2 = fcntl(PERFMON_FD, F_DUPFD, 3)) < 0)
		err(1, "F_DUPFD");
	if (close(PERFMON_FD) < 0)
		err(1, "close");
	work();
	b.pmcd_num = 0;
	if (ioctl(fd2, PMIOREAD, &b) < 0)
		err(1, "ioctl(PMIOREAD) on the second copy");
	printf("through the dup2 copy: %qd\n", a.pmcd_value);
	printf("through the F_DUPFD copy: %qd (%s)\n", b.pmcd_value,
	    b.pmcd_value > a.pmcd_value ? "still counting" : "stopped");
	if (ioctl(fd2, PMIOSTOP, &zero) < 0)
		err(1, "ioctl(PMIOSTOP)");
	close(fd2);
	return 0;
}
