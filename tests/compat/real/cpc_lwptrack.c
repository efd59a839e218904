/*
 * cpc_lwptrack - count one event in a worker LWP and the LWPs it starts,
 * the way a Solaris 10 program did with CPCv2: the worker binds with
 * CPC_BIND_LWP_INHERIT, so its helpers are counted and the main LWP,
 * busy meanwhile, is not.
 *
 *	cpc_lwptrack [-c event] [-n helpers] [-p pages]
 *
 * Prints the count and, to compare it with, the CPU time each side spent
 * (gethrvtime() was per-LWP on Solaris; CLOCK_THREAD_CPUTIME_ID is
 * the same thing).  With -p, each counted LWP also writes to that many
 * fresh pages of its own and the main LWP to eight times as many, so that
 * a page-fault count tells exactly who was counted.
 */
#include <sys/types.h>
#include <sys/mman.h>
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
static long npages;		/* fresh pages each counted LWP writes */
static volatile hrtime_t helper_ns;	/* CPU time of the helpers */
static pthread_mutex_t helper_lock = PTHREAD_MUTEX_INITIALIZER;

static hrtime_t
lwp_vtime(void)
{
	struct timespec ts;

	(void) clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ((hrtime_t)ts.tv_sec * 1000000000LL + ts.tv_nsec);
}

/* the first write to each page of a fresh mapping faults once */
static void
touch(long pages)
{
	long pgsz = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)pages * pgsz;
	volatile char *p;

	if (pages == 0)
		return;
	p = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return;
	(void) madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += pgsz)
		p[i] = 1;
	(void) munmap((void *)p, len);
}

static hrtime_t
burn(long pages)
{
	hrtime_t start = lwp_vtime(), now;
	volatile unsigned long x = 0;

	touch(pages);
	do {
		for (int i = 0; i < 10000; i++)
			x += i;
	} while ((now = lwp_vtime()) - start < WORK_NS);
	return (now - start);
}

static void *
helper(void *arg)
{
	hrtime_t t = burn(npages);

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
	(void) burn(npages);
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

	while ((c = getopt(argc, argv, "c:n:p:")) != EOF) {
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
		case 'p':
			npages = atol(optarg);
			if (npages < 0 || npages > 65536)
				npages = 0;
			break;
		default:
			(void) fprintf(stderr,
			    "usage: %s [-c event] [-n helpers] [-p pages]\n",
			    argv[0]);
			return (2);
		}
	}
	if (cpc_version(CPC_VER_CURRENT) != CPC_VER_CURRENT) {
		(void) fprintf(stderr, "libcpc version mismatch\n");
		return (1);
	}
	(void) pthread_create(&w, NULL, worker, &r);
	main_ns = burn(8 * npages);	/* the main LWP works too, uncounted */
	(void) pthread_join(w, NULL);
	if (r.status != 0)
		return (r.status);
	(void) printf("%s %llu\n", event, (unsigned long long)r.count);
	(void) printf("worker cpu %lld helpers cpu %lld main cpu %lld "
	    "wall %lld\n", (long long)r.vtime, (long long)helper_ns,
	    (long long)main_ns, (long long)r.wall);
	return (0);
}
