/*
 * cpc_sampler - an overflow-driven sampler of the Solaris 10 kind: one
 * request preset to overflow every PERIOD events, notified by SIGEMT,
 * restarted from the handler; a second request counts the same event
 * without a preset, to compare.  cpc_set_restart() starts every request
 * of the set from its preset again, so the handler first makes the
 * second request's count its new preset, as PAPI's Solaris substrate did.  configure decides whether <sys/time.h>
 * gives hrtime_t and gethrtime() (HAVE_HRTIME_T, HAVE_GETHRTIME) and the
 * program brings its own otherwise, as portable programs did.
 *
 *	cpc_sampler [-c event] [-p period] [-t milliseconds]
 */
#include <sys/types.h>
#include <sys/time.h>
#include <libcpc.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef HAVE_HRTIME_T
typedef long long hrtime_t;
#endif
#ifndef HAVE_GETHRTIME
#define	gethrtime	my_gethrtime
static hrtime_t
my_gethrtime(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_MONOTONIC, &ts);
	return ((hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}
#endif

static cpc_t *cpc;
static cpc_set_t *set;
static cpc_buf_t *hbuf;		/* the handler's */
static int total_idx;
static volatile sig_atomic_t overflows, bad_signals, restart_failed;

/*ARGSUSED*/
static void
emt_handler(int sig, siginfo_t *sip, void *arg)
{
	uint64_t v;

	if (sig != SIGEMT || sip->si_code != EMT_CPCOVF) {
		bad_signals++;
		return;
	}
	overflows++;
	if (cpc_set_sample(cpc, set, hbuf) != 0 ||
	    cpc_buf_get(cpc, hbuf, total_idx, &v) != 0 ||
	    cpc_request_preset(cpc, total_idx, v) != 0 ||
	    cpc_set_restart(cpc, set) != 0)
		restart_failed++;
}

static void
errhndlr(const char *fn, int subcode, const char *fmt, va_list ap)
{
	(void) fprintf(stderr, "cpc_sampler: %s: ", fn);
	(void) vfprintf(stderr, fmt, ap);
}

static hrtime_t
cpu_ns(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

int
main(int argc, char *argv[])
{
	char event[CPC_MAX_EVENT_LEN] = "PAPI_tot_cyc";
	uint64_t period = 1000000, total = 0, preset;
	long ms = 200;
	struct sigaction sa;
	cpc_buf_t *buf;
	hrtime_t start, end, cpu0;
	volatile unsigned long sink = 0;
	int c, idx;

	while ((c = getopt(argc, argv, "c:p:t:")) != EOF) {
		switch (c) {
		case 'c':
			(void) snprintf(event, sizeof (event), "%s", optarg);
			break;
		case 'p':
			period = strtoull(optarg, NULL, 0);
			break;
		case 't':
			ms = strtol(optarg, NULL, 0);
			break;
		default:
			(void) fprintf(stderr, "usage: cpc_sampler [-c event] "
			    "[-p period] [-t ms]\n");
			return (2);
		}
	}
	if (period == 0 || ms <= 0)
		return (2);
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		perror("cpc_open");
		return (1);
	}
	if (!(cpc_caps(cpc) & CPC_CAP_OVERFLOW_INTERRUPT)) {
		(void) fprintf(stderr, "no overflow interrupts\n");
		return (1);
	}
	(void) cpc_seterrhndlr(cpc, errhndlr);
	set = cpc_set_create(cpc);
	preset = UINT64_MAX - period + 1;
	if ((idx = cpc_set_add_request(cpc, set, event, preset,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM | CPC_OVF_NOTIFY_EMT, 0,
	    NULL)) == -1 ||
	    (total_idx = cpc_set_add_request(cpc, set, event, 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL)) == -1)
		return (1);

	(void) memset(&sa, 0, sizeof (sa));
	sa.sa_sigaction = emt_handler;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	(void) sigemptyset(&sa.sa_mask);
	if (sigaction(SIGEMT, &sa, NULL) == -1) {
		perror("sigaction");
		return (1);
	}
	buf = cpc_buf_create(cpc, set);
	hbuf = cpc_buf_create(cpc, set);
	if (cpc_bind_curlwp(cpc, set, 0) == -1) {
		(void) fprintf(stderr, "cpc_bind_curlwp: %s\n",
		    strerror(errno));
		return (1);
	}
	start = gethrtime();
	cpu0 = cpu_ns();
	while (cpu_ns() - cpu0 < ms * 1000000LL)
		for (int i = 0; i < 100000; i++)
			sink += i;
	if (cpc_set_sample(cpc, set, buf) == -1) {
		perror("cpc_set_sample");
		return (1);
	}
	end = gethrtime();
	(void) cpc_buf_get(cpc, buf, total_idx, &total);
	(void) cpc_unbind(cpc, set);
	(void) printf("%s: %" PRIu64 " in %.3f s, period %" PRIu64 "\n",
	    event, total, (end - start) / 1e9, period);
	(void) printf("overflows %d restart failures %d bad signals %d\n",
	    (int)overflows, (int)restart_failed, (int)bad_signals);
	(void) cpc_buf_destroy(cpc, buf);
	(void) cpc_buf_destroy(cpc, hbuf);
	(void) cpc_set_destroy(cpc, set);
	(void) cpc_close(cpc);
	return (0);
}
