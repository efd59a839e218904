/* SPDX-License-Identifier: MIT */
/*
 * pmcloop - sample one counter N times around a command or a sleep,
 * written the way FreeBSD's perfmon(8) example is: <machine/perfmon.h>,
 * quad_t, __dead2, getopt, err(3) and /dev/perfmon.  It is built with
 * nothing but `pkg-config --cflags --libs pctr-freebsd`.
 */
#include <sys/types.h>
#include <sys/ioctl.h>

#include <machine/cpu.h>
#include <machine/perfmon.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int	number(const char *, int, int);
static void	usage(const char *) __dead2;

int
main(int argc, char **argv)
{
	struct pmc pmc;
	struct pmc_data value;
	struct pmc_tstamp then, now;
	quad_t *samples, sum;
	const char *cmd = NULL;
	int c, fd, i, loops = 5, num = 0;

	memset(&pmc, 0, sizeof(pmc));
	while ((c = getopt(argc, argv, "c:eil:m:n:oU:u")) != -1) {
		switch (c) {
		case 'c':
			cmd = optarg;
			break;
		case 'e':
			pmc.pmc_flags |= PMCF_E;
			break;
		case 'i':
			pmc.pmc_flags |= PMCF_INV;
			break;
		case 'l':
			loops = number(optarg, 1, 1000);
			break;
		case 'm':
			pmc.pmc_mask = number(optarg, 0, 255);
			break;
		case 'n':
			num = number(optarg, 0, NPMC - 1);
			break;
		case 'o':
			pmc.pmc_flags |= PMCF_OS;
			break;
		case 'U':
			pmc.pmc_unit = number(optarg, 0, 255);
			break;
		case 'u':
			pmc.pmc_flags |= PMCF_USR;
			break;
		default:
			usage(argv[0]);
		}
	}
	if (argc - optind != 1)
		usage(argv[0]);
	pmc.pmc_num = num;
	pmc.pmc_event = number(argv[optind], 0, 255);

	if ((samples = calloc(loops, sizeof(*samples))) == NULL)
		err(1, "calloc");
	if ((fd = open(_PATH_PERFMON, O_RDWR)) < 0)
		err(1, "open: %s", _PATH_PERFMON);
	if (ioctl(fd, PMIOTSTAMP, &then) < 0)
		err(1, "ioctl(PMIOTSTAMP)");
	if (ioctl(fd, PMIOSETUP, &pmc) < 0)
		err(1, "ioctl(PMIOSETUP)");

	value.pmcd_num = num;
	for (i = 0; i < loops; i++) {
		if (ioctl(fd, PMIORESET, &num) < 0)
			err(1, "ioctl(PMIORESET)");
		if (ioctl(fd, PMIOSTART, &num) < 0)
			err(1, "ioctl(PMIOSTART)");
		if (cmd != NULL)
			system(cmd);
		else
			usleep(1000);
		if (ioctl(fd, PMIOSTOP, &num) < 0)
			err(1, "ioctl(PMIOSTOP)");
		if (ioctl(fd, PMIOREAD, &value) < 0)
			err(1, "ioctl(PMIOREAD)");
		samples[i] = value.pmcd_value;
	}
	if (ioctl(fd, PMIOTSTAMP, &now) < 0)
		err(1, "ioctl(PMIOTSTAMP)");
	close(fd);

	for (sum = 0, i = 0; i < loops; i++) {
		printf("%d: %qd\n", i + 1, (long long)samples[i]);
		sum += samples[i];
	}
	printf("mean: %qd\n", (long long)(sum / loops));
	printf("clocks (at %d-MHz): %qd\n", now.pmct_rate,
	    (long long)(now.pmct_value - then.pmct_value));
	free(samples);
	return (0);
}

static int
number(const char *s, int min, int max)
{
	char *ep;
	long l;

	errno = 0;
	l = strtol(s, &ep, 0);
	if (*s == '\0' || *ep != '\0' || errno != 0)
		errx(1, "%s: parameter must be an integer", s);
	if (l < min || l > max)
		errx(1, "%s: must be between %d and %d", s, min, max);
	return ((int)l);
}

static void
usage(const char *name)
{
	fprintf(stderr, "usage: %s [-eiou] [-c command] [-l loops] "
	    "[-m mask] [-n counter] [-U unit] event\n", name);
	exit(1);
}
