/*
 * fbsd_ticker - print counter 0 every interval until told to stop, as
 * the interval monitors of perfmon's time did: SIGALRM ticks, SIGTERM (or
 * the last tick) stops, and the SIGTERM handler closes the device itself
 * so that nothing is left counting whatever the main loop was doing.
 *
 *	fbsd_ticker event ticks [milliseconds]
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <machine/perfmon.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int fd;
static volatile sig_atomic_t ticks, stopped;

static void
tick(int sig)
{
	ticks++;
}

static void
terminate(int sig)
{
	int save = errno;

	close(fd);
	stopped = 1;
	errno = save;
}

int
main(int argc, char **argv)
{
	struct itimerval it;
	struct pmc pmc;
	struct pmc_data d;
	quad_t last = 0;
	int zero = 0, seen = 0, want, ms, rising = 0;
	volatile long sink = 0;

	if (argc < 3)
		errx(1, "usage: fbsd_ticker event ticks [ms]");
	want = atoi(argv[2]);
	ms = argc > 3 ? atoi(argv[3]) : 20;
	if ((fd = open(_PATH_PERFMON, O_RDWR)) < 0)
		err(1, "%s", _PATH_PERFMON);
	bzero(&pmc, sizeof(pmc));
	bzero(&d, sizeof(d));
	pmc.pmc_event = strtoul(argv[1], NULL, 0);
	pmc.pmc_flags = PMCF_USR | PMCF_OS;
	if (ioctl(fd, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(fd, PMIOSTART, &zero) < 0)
		err(1, "ioctl(PMIOSTART)");
	signal(SIGALRM, tick);
	signal(SIGTERM, terminate);
	bzero(&it, sizeof(it));
	it.it_interval.tv_usec = it.it_value.tv_usec = ms * 1000;
	if (setitimer(ITIMER_REAL, &it, NULL) < 0)
		err(1, "setitimer");
	for (;;) {
		sink++;
		if (ticks == seen)
			continue;
		seen = ticks;
		d.pmcd_num = 0;
		if (ioctl(fd, PMIOREAD, &d) < 0) {
			if (errno == EBADF && stopped)
				break;
			err(1, "ioctl(PMIOREAD)");
		}
		printf("%d: %qd\n", seen, d.pmcd_value - last);
		rising += d.pmcd_value > last;
		last = d.pmcd_value;
		if (seen >= want)
			kill(getpid(), SIGTERM);
	}
	printf("stopped after %d ticks, %d rising\n", seen, rising);
	return 0;
}
