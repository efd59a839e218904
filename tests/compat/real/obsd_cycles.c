/*
 * obsd_cycles - time a loop the way OpenBSD programs did with pctr(4):
 * rdtsc() around it, PCIOCRD for the device's view, and, with -f, counter
 * 0 programmed through PCIOCS0 and read in user mode with rdpmc().
 *
 *	obsd_cycles [-f function] [-n loops]
 */
#include <sys/types.h>
#include <sys/ioctl.h>
#include <machine/pctr.h>

#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile u_int64_t sink;

static void
work(int n)
{
	int i;

	for (i = 0; i < n * 1000; i++)
		sink += i;
}

int
main(int argc, char *argv[])
{
	struct pctrst st0, st1;
	pctrval t0, t1, p0 = 0, p1 = 0;
	const char *errstr;
	char *ep;
	u_int fn = 0;
	int ch, fd, loops = 20000;

	while ((ch = getopt(argc, argv, "f:n:")) != -1) {
		switch (ch) {
		case 'f':
			fn = strtoul(optarg, &ep, 16);
			if (*ep || fn == 0)
				errx(1, "function %s: not a hex number", optarg);
			break;
		case 'n':
			loops = strtonum(optarg, 1, 1000000, &errstr);
			if (errstr)
				errx(1, "loops %s: %s", optarg, errstr);
			break;
		default:
			fprintf(stderr, "usage: obsd_cycles [-f fn] [-n n]\n");
			exit(1);
		}
	}
	if ((fd = open(_PATH_PCTR, fn ? O_RDWR : O_RDONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (fn && ioctl(fd, PCIOCS0, &fn) == -1)
		err(1, "PCIOCS0");
	if (ioctl(fd, PCIOCRD, &st0) == -1)
		err(1, "PCIOCRD");
	t0 = rdtsc();
	if (fn)
		p0 = rdpmc(0);
	work(loops);
	if (fn)
		p1 = rdpmc(0);
	t1 = rdtsc();
	if (ioctl(fd, PCIOCRD, &st1) == -1)
		err(1, "PCIOCRD");
	close(fd);

	printf("rdtsc: %llu cycles\n", (unsigned long long)(t1 - t0));
	printf("PCIOCRD tsc: %llu cycles\n",
	    (unsigned long long)(st1.pctr_tsc - st0.pctr_tsc));
	if (fn) {
		printf("rdpmc(0): %llu\n", (unsigned long long)(p1 - p0));
		printf("PCIOCRD ctr0: %llu [%x]\n",
		    (unsigned long long)(st1.pctr_hwc[0] - st0.pctr_hwc[0]),
		    st1.pctr_fn[0]);
	}
	exit(0);
}
