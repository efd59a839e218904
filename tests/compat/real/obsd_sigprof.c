/*
 * obsd_sigprof - a sampling profiler of the simple kind: a SIGPROF timer
 * whose handler reads the counters with PCIOCRD and keeps the deltas, while
 * the measured code itself reads counter 0 with rdpmc() around its inner
 * loop.  On OpenBSD the ioctl is a system call and rdpmc an instruction,
 * both safe wherever a signal lands.
 *
 *	obsd_sigprof [samples]
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/time.h>
#include <machine/pctr.h>

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
static volatile sig_atomic_t nsamples, failures;
static pctrval sample_tsc[MAXSAMPLES], sample_ctr[MAXSAMPLES];

static void
profile(int sig)
{
	struct pctrst st;
	int save = errno;

	/* a tick between the loop's end and the timer's stop adds none */
	if (nsamples < want) {
		if (ioctl(fd, PCIOCRD, &st) == -1)
			failures++;
		sample_tsc[nsamples] = st.pctr_tsc;
		sample_ctr[nsamples] = st.pctr_hwc[0];
		nsamples++;
	}
	errno = save;
}

int
main(int argc, char *argv[])
{
	struct itimerval it;
	u_int fn = PCTR_U | PCTR_K | PCTR_EN | 0xc0;
	pctrval inner = 0, p;
	int i, rising = 0;
	volatile unsigned long sink = 0;

	want = argc > 1 ? atoi(argv[1]) : 50;
	if (want < 2 || want > MAXSAMPLES)
		errx(1, "samples: 2 to %d", MAXSAMPLES);
	if ((fd = open(_PATH_PCTR, O_RDWR)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (ioctl(fd, PCIOCS0, &fn) == -1)
		err(1, "PCIOCS0");
	signal(SIGPROF, profile);
	memset(&it, 0, sizeof(it));
	it.it_interval.tv_usec = it.it_value.tv_usec = 2000;
	if (setitimer(ITIMER_PROF, &it, NULL) == -1)
		err(1, "setitimer");
	while (nsamples < want) {
		p = rdpmc(0);
		for (i = 0; i < 1000; i++)
			sink += i;
		inner += rdpmc(0) - p;
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_PROF, &it, NULL);
	for (i = 1; i < want; i++)
		rising += sample_tsc[i] > sample_tsc[i - 1] &&
		    sample_ctr[i] > sample_ctr[i - 1];
	printf("%d samples, %d failed, %d rising\n", (int)nsamples,
	    (int)failures, rising);
	printf("inner loops: %llu\n", (unsigned long long)inner);
	close(fd);
	exit(0);
}
