/*
 * obsd_forkwork - a threaded program that forks: two threads keep reading
 * the counters and opening other files while the main thread forks
 * children, each of which opens /dev/pctr, reads it, closes it and exits,
 * as a job runner with a statistics thread would.  A child that hangs
 * (a lock its parent's thread held at the fork) stops the program; the
 * caller's timeout catches it.
 *
 *	obsd_forkwork [children]
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <machine/pctr.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int done;
static int shared_fd;

static void *
reader(void *arg)
{
	struct pctrst st;
	unsigned long *n = arg;

	while (!done) {
		int fd = open(_PATH_PCTR, O_RDONLY);

		if (fd == -1 || ioctl(fd, PCIOCRD, &st) == -1 ||
		    ioctl(shared_fd, PCIOCRD, &st) == -1)
			err(1, "reader");
		close(fd);
		(*n)++;
	}
	return NULL;
}

static int
child(void)
{
	struct pctrst st;
	int fd;

	/* the inherited descriptor is the device, and so is a new one */
	if (ioctl(shared_fd, PCIOCRD, &st) == -1)
		return 2;
	if ((fd = open(_PATH_PCTR, O_RDONLY)) == -1)
		return 3;
	if (ioctl(fd, PCIOCRD, &st) == -1 || st.pctr_tsc == 0)
		return 4;
	if (close(fd) == -1 || close(shared_fd) == -1)
		return 5;
	return 0;
}

int
main(int argc, char *argv[])
{
	pthread_t t[2];
	unsigned long n[2] = { 0, 0 };
	int i, status, kids = argc > 1 ? atoi(argv[1]) : 50, good = 0;

	if ((shared_fd = open(_PATH_PCTR, O_RDONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	for (i = 0; i < 2; i++)
		if (pthread_create(&t[i], NULL, reader, &n[i]) != 0)
			errx(1, "pthread_create");
	for (i = 0; i < kids; i++) {
		pid_t pid = fork();

		if (pid == -1)
			err(1, "fork");
		if (pid == 0)
			_exit(child());
		if (waitpid(pid, &status, 0) == -1)
			err(1, "waitpid");
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			good++;
		else
			warnx("child %d: status %#x", i, status);
	}
	done = 1;
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	close(shared_fd);
	printf("%d of %d children read the counters\n", good, kids);
	printf("threads read %s\n", n[0] && n[1] ? "both" : "not both");
	exit(good == kids ? 0 : 1);
}
