/* SPDX-License-Identifier: MIT */
/*
 * pctrstat - show or set the performance counters, written the way
 * OpenBSD's pctr(1) is: the same headers, sysctl(3) for the CPU, getopt,
 * strtonum(3), err(3) and /dev/pctr.  It is built with nothing but
 * `pkg-config --cflags --libs pctr-openbsd`, as a program for that system
 * would be.
 */
#include <sys/param.h>
#include <sys/types.h>
#include <sys/stat.h>
#include <sys/sysctl.h>
#include <sys/ioctl.h>

#include <machine/cpu.h>
#include <machine/pctr.h>
#include <machine/specialreg.h>

#include <errno.h>
#include <err.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct fnname {
	u_int fn;
	const char *name;
};

static const struct fnname fnnames[] = {
	{ 0x3c, "unhalted core cycles" },
	{ 0xc0, "instructions retired" },
	{ 0xc4, "branch instructions retired" },
	{ 0xc5, "mispredicted branches retired" },
	{ 0x2e, "last level cache references" },
	{ 0, NULL }
};

static int tsc_avail;
static int ctr, func, masku, thold;
static int eflag, iflag, kflag, uflag;

static void	cpu_creds(void);
static void	list(void);
static void	show(void);
static void	set(void);
static void	usage(void) __dead;

int
main(int argc, char **argv)
{
	const char *errstr;
	int ch, lflag = 0, sflag = 0;

	cpu_creds();
	while ((ch = getopt(argc, argv, "ef:iklm:s:t:u")) != -1)
		switch (ch) {
		case 'e':
			eflag++;
			break;
		case 'f':
			if (sscanf(optarg, "%x", &func) <= 0 || func < 0 ||
			    func > 0xff)
				errx(1, "invalid function number");
			break;
		case 'i':
			iflag++;
			break;
		case 'k':
			kflag++;
			break;
		case 'l':
			lflag++;
			break;
		case 'm':
			if (sscanf(optarg, "%x", &masku) <= 0 || masku < 0 ||
			    masku > 0xff)
				errx(1, "invalid unit mask number");
			break;
		case 's':
			sflag++;
			ctr = strtonum(optarg, 0, PCTR_NUM - 1, &errstr);
			if (errstr)
				errx(1, "counter number is %s: %s", errstr,
				    optarg);
			break;
		case 't':
			thold = strtonum(optarg, 0, 0xff, &errstr);
			if (errstr)
				errx(1, "threshold is %s: %s", errstr, optarg);
			break;
		case 'u':
			uflag++;
			break;
		default:
			usage();
		}
	if (argc != optind)
		usage();

	if (lflag)
		list();
	else if (sflag)
		set();
	else
		show();
	return (0);
}

static void
cpu_creds(void)
{
	int mib[2], cpu_id, cpu_feature;
	char arch[16], vendor[64];
	size_t len;

	mib[0] = CTL_HW;
	mib[1] = HW_MACHINE;
	len = sizeof(arch) - 1;
	bzero(arch, sizeof(arch));
	if (sysctl(mib, 2, arch, &len, NULL, 0) == -1)
		err(1, "HW_MACHINE");
	if (strcmp(arch, "amd64") != 0 && strcmp(arch, "arm64") != 0)
		errx(1, "architecture %s is not supported", arch);
	if (strcmp(arch, "arm64") == 0)
		return;

	mib[0] = CTL_MACHDEP;
	mib[1] = CPU_CPUID;
	len = sizeof(cpu_id);
	if (sysctl(mib, 2, &cpu_id, &len, NULL, 0) == -1)
		err(1, "CPU_CPUID");
	mib[1] = CPU_CPUFEATURE;
	len = sizeof(cpu_feature);
	if (sysctl(mib, 2, &cpu_feature, &len, NULL, 0) == -1)
		err(1, "CPU_CPUFEATURE");
	mib[1] = CPU_CPUVENDOR;
	len = sizeof(vendor) - 1;
	bzero(vendor, sizeof(vendor));
	if (sysctl(mib, 2, vendor, &len, NULL, 0) == -1)
		err(1, "CPU_CPUVENDOR");
	printf("cpu: %s family %d\n", vendor, (cpu_id >> 8) & 15);
	if (cpu_feature & CPUID_TSC)
		tsc_avail = 1;
}

static const char *
fn2str(u_int sel)
{
	static char buf[128];
	const char *name = "unknown function";
	int i;

	for (i = 0; fnnames[i].name != NULL; i++)
		if (fnnames[i].fn == (sel & 0xff))
			name = fnnames[i].name;
	snprintf(buf, sizeof(buf), "%c%c%c%c %02x %02x %s",
	    sel & PCTR_I ? 'i' : '-', sel & PCTR_E ? 'e' : '-',
	    sel & PCTR_K ? 'k' : '-', sel & PCTR_U ? 'u' : '-',
	    sel & 0xff, (sel >> PCTR_UM_SHIFT) & 0xff, sel ? name : "off");
	return (buf);
}

static void
show(void)
{
	struct pctrst st;
	int fd, i;

	bzero(&st, sizeof(st));
	if ((fd = open(_PATH_PCTR, O_RDONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (ioctl(fd, PCIOCRD, &st) == -1)
		err(1, "PCIOCRD");
	close(fd);
	for (i = 0; i < PCTR_NUM; i++)
		printf(" ctr%d = %16llu  [%s]\n", i, st.pctr_hwc[i],
		    fn2str(st.pctr_fn[i]));
	if (tsc_avail)
		printf("  tsc = %16llu\n", st.pctr_tsc);
}

static void
list(void)
{
	int i;

	for (i = 0; fnnames[i].name != NULL; i++)
		printf("%02x  %s\n", fnnames[i].fn, fnnames[i].name);
}

static void
set(void)
{
	u_int32_t val = func;
	int fd;

	if (eflag)
		val |= PCTR_E;
	if (iflag)
		val |= PCTR_I;
	if (kflag)
		val |= PCTR_K;
	if (uflag)
		val |= PCTR_U;
	if (func && !kflag && !uflag)
		val |= PCTR_K | PCTR_U;
	val |= masku << PCTR_UM_SHIFT;
	val |= thold << PCTR_CM_SHIFT;
	if (func)
		val |= PCTR_EN;

	if ((fd = open(_PATH_PCTR, O_WRONLY)) == -1)
		err(1, "%s", _PATH_PCTR);
	if (ioctl(fd, PCIOCS0 + ctr, &val) == -1)
		err(1, "set counter %d", ctr);
	/* the counters live as long as this process: show them counting */
	close(fd);
	show();
}

static void
usage(void)
{
	extern char *__progname;

	fprintf(stderr, "usage: %s [-eiklu] [-f funct] [-m umask] [-s ctr] "
	    "[-t thold]\n", __progname);
	exit(1);
}
