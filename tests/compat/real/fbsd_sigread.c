/*
 * fbsd_sigread - a profiler that samples counter 0 from a SIGPROF handler
 * while the program reads it too, and whose handler closes the device
 * after the last sample, whatever the program was doing: the program's
 * next PMIOREAD then fails with EBADF and it stops.  On FreeBSD each is a
 * system call, safe wherever the signal lands.
 *
 *	fbsd_sigread event samples
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

#define	MAXSAMPLES	1000

static int fd, want;
static volatile sig_atomic_t nsamples, failed, closed;
static quad_t samples[MAXSAMPLES];

static void
sample(int sig)
{
	struct pmc_data d;
	int save = errno;

	if (closed)
		return;
	bzero(&d, sizeof(d));
	if (ioctl(fd, PMIOREAD, &d) < 0)
		failed++;
	samples[nsamples++] = d.pmcd_value;
	if (nsamples == want) {
		close(fd);
		closed = 1;
	}
	errno = save;
}

int
main(int argc, char **argv)
{
	struct itimerval it;
	struct pmc pmc;
	struct pmc_data d;
	unsigned long reads = 0;
	int zero = 0, i, rising = 0;

	if (argc != 3)
		errx(1, "usage: fbsd_sigread event samples");
	want = atoi(argv[2]);
	if (want < 2 || want > MAXSAMPLES)
		errx(1, "samples: 2 to %d", MAXSAMPLES);
	if ((fd = open(_PATH_PERFMON, O_RDWR)) < 0)
		err(1, "%s", _PATH_PERFMON);
	bzero(&pmc, sizeof(pmc));
	pmc.pmc_event = strtoul(argv[1], NULL, 0);
	pmc.pmc_flags = PMCF_USR | PMCF_OS;
	if (ioctl(fd, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");
	if (ioctl(fd, PMIOSTART, &zero) < 0)
		err(1, "ioctl(PMIOSTART)");
	signal(SIGPROF, sample);
	bzero(&it, sizeof(it));
	it.it_interval.tv_usec = it.it_value.tv_usec = 2000;
	if (setitimer(ITIMER_PROF, &it, NULL) < 0)
		err(1, "setitimer");
	for (;;) {
		bzero(&d, sizeof(d));
		if (ioctl(fd, PMIOREAD, &d) < 0) {
			if (errno == EBADF && closed)
				break;
			err(1, "ioctl(PMIOREAD)");
		}
		reads++;
	}
	bzero(&it, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	for (i = 1; i < want; i++)
		rising += samples[i] > samples[i - 1];
	printf("%d samples, %d failed, %d rising, %lu reads between\n",
	    (int)nsamples, (int)failed, rising, reads);
	return 0;
}
