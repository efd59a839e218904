/*
 * obsd_sigclose - sample the counters until a timer says stop; the
 * SIGALRM handler closes the device, as programs that clean up in their
 * signal handlers do, and the main loop ends when PCIOCRD sees the
 * descriptor gone.  The main loop also opens and closes other files, so
 * the handler can interrupt the program inside any of those calls.
 *
 *	obsd_sigclose [milliseconds]
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

static int fd = -1;
static volatile sig_atomic_t closed, close_failed;

static void
stop(int sig)
{
	int save = errno;

	if (close(fd) == -1)
		close_failed = 1;
	closed = 1;
	errno = save;
}

int
main(int argc, char *argv[])
{
	struct itimerval it;
	struct pctrst st;
	pctrval first = 0, last = 0;
	unsigned long reads = 0, others = 0;
	int ms = argc > 1 ? atoi(argv[1]) : 100;

	if ((fd = open(_PATH_PCTR, O_RDONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	signal(SIGALRM, stop);
	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_usec = (ms % 1000) * 1000;
	if (setitimer(ITIMER_REAL, &it, NULL) == -1)
		err(1, "setitimer");
	for (;;) {
		int nfd;

		if (ioctl(fd, PCIOCRD, &st) == -1) {
			if (errno != EBADF)
				err(1, "PCIOCRD");
			break;
		}
		if (reads++ == 0)
			first = st.pctr_tsc;
		last = st.pctr_tsc;
		/* the handler may come in the middle of these */
		if ((nfd = open("/dev/null", O_RDONLY)) != -1) {
			ioctl(nfd, FIONREAD, &(int){ 0 });
			close(nfd);
			others++;
		}
	}
	printf("closed in the handler: %s\n", closed && !close_failed ?
	    "yes" : "no");
	printf("%lu reads, %lu other files, tsc advanced: %s\n", reads,
	    others, last > first ? "yes" : "no");
	if (close(fd) != -1 || errno != EBADF)
		errx(1, "the device was still open");
	exit(0);
}
