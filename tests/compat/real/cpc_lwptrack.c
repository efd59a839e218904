/*
 * cpc_lwptrack - count one event in a worker LWP and the LWPs it starts,
 * the way a Solaris 10 program did with CPCv2: the worker binds with
 * CPC_BIND_LWP_INHERIT, so its helpers are counted and the main LWP,
 * busy meanwhile, is not.
 *
 *	cpc_lwptrack [-c event] [-n helpers]
 *
 * Prints the count and, to compare it with, the CPU time each side spent
 * (gethrvtime() was per-LWP on Solaris; CLOCK_THREAD_CPUTIME_ID is
 * the same thing).
 */
#include <sys/types.h>
#include <sys/time.h>
#include <sys/lwp.h>
#include <libcpc.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define	WORK_NS	(60 * 1000000LL)	/* CPU time each LWP spends */

static char event[CPC_MAX_EVENT_LEN] = "PAPI_tot_ins";
static int nhelpers = 2;
static volatile hrtime_t helper_ns;	/* CPU time of the helpers */
static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;

static hrtime_t
lwp_vtime(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

static hrtime_t
burn(void)
{
	hrtime_t start = lwp_vtime(), now;
	volatile unsigned long x = 0;

	do {
		for (int i = 0; i < 10000; i++)
			x += i;
	} while ((now = lwp_vtime()) - start < WORK_NS);
	return (now - start);
}

static void *
helper(void *arg)
{
	hrtime_t t = burn();

	(void) pthread_mutex_lock(&helper_lock);
	helper_ns += t;
	(void) pthread_mutex_unlock(&helper_lock);
	return (arg);
}

struct result {
	uint64_t count;
	hrtime_t vtime;		/* the worker's own CPU time, bound */
	hrtime_t wall;
	int status;
};

static void *
worker(void *arg)
{
	struct result *r = arg;
	cpc_t *cpc;
	cpc_set_t *set;
	cpc_buf_t *before, *after, *diff;
	pthread_t tid[16];
	hrtime_t t0, v0;
	int i;

	r->status = 1;
	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		perror("cpc_open");
		return (r);
	}
	if ((set = cpc_set_create(cpc)) == NULL ||
	    cpc_set_add_request(cpc, set, event, 0,
	    CPC_COUNT_USER | CPC_COUNT_SYSTEM, 0, NULL) == -1) {
		(void) fprintf(stderr, "cannot count %s\n", event);
		(void) cpc_close(cpc);
		return (r);
	}
	before = cpc_buf_create(cpc, set);
	after = cpc_buf_create(cpc, set);
	diff = cpc_buf_create(cpc, set);
	if (cpc_bind_curlwp(cpc, set, CPC_BIND_LWP_INHERIT) == -1) {
		perror("cpc_bind_curlwp");
		(void) cpc_close(cpc);
		return (r);
	}
	t0 = gethrtime();
	(void) cpc_set_sample(cpc, set, before);
	v0 = lwp_vtime();
	(void) printf("lwp %d: counting %s with %d helpers\n",
	    (int)_lwp_self(), event, nhelpers);
	for (i = 0; i < nhelpers; i++)
		(void) pthread_create(&tid[i], NULL, helper, NULL);
	(void) burn();
	for (i = 0; i < nhelpers; i++)
		(void) pthread_join(tid[i], NULL);
	r->vtime = lwp_vtime() - v0;
	(void) cpc_set_sample(cpc, set, after);
	r->wall = gethrtime() - t0;
	cpc_buf_sub(cpc, diff, after, before);
	(void) cpc_buf_get(cpc, diff, 0, &r->count);
	(void) cpc_unbind(cpc, set);
	(void) cpc_close(cpc);	/* frees the set and the buffers */
	r->status = 0;
	return (r);
}

int
main(int argc, char *argv[])
{
	struct result r;
	pthread_t w;
	hrtime_t main_ns;
	int c;

	while ((c = getopt(argc, argv, "c:n:")) != EOF) {
		switch (c) {
		case 'c':
			if (strlen(optarg) >= sizeof (event)) {
				(void) fprintf(stderr, "event name too long\n");
				return (2);
			}
			(void) strcpy(event, optarg);
			break;
		case 'n':
			nhelpers = atoi(optarg);
			if (nhelpers < 0 || nhelpers > 16)
				nhelpers = 2;
			break;
		default:
			(void) fprintf(stderr,
			    "usage: %s [-c event] [-n helpers]\n", argv[0]);
			return (2);
		}
	}
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT) {
		(void) fprintf(stderr, "libcpc version mismatch\n");
		return (1);
	}
	(void) pthread_create(&w, NULL, worker, &r);
	main_ns = burn();	/* the main LWP works too, uncounted */
	(void) pthread_join(w, NULL);
	if (r.status != 0)
		return (r.status);
	(void) printf("%s %llu\n", event, (unsigned long long)r.count);
	(void) printf("worker cpu %lld helpers cpu %lld main cpu %lld "
	    "wall %lld\n", (long long)r.vtime, (long long)helper_ns,
	    (long long)main_ns, (long long)r.wall);
	return (0);
}
