/*
 * cpc_events - what the counters of this machine can count, printed the
 * way cpustat -h and cputrack -h did on Solaris: the processor, the
 * number of counters, the events of each counter, the generic events and
 * the attributes, then the number of distinct events.
 *
 *	cpc_events [-1]		(-1: the events, one a line, nothing else)
 */
#include <sys/types.h>
#include <libcpc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char **names;
static int nnames, maxnames;
static int column;

static void
remember(void *arg, const char *name)
{
	int i;

	for (i = 0; i < nnames; i++)
		if (strcmp(names[i], name) == 0)
			return;
	if (nnames == maxnames) {
		maxnames = maxnames ? 2 * maxnames : 64;
		names = realloc(names, maxnames * sizeof (char *));
		if (names == NULL) {
			perror("realloc");
			exit(1);
		}
	}
	names[nnames++] = strdup(name);
}

/* cpustat's layout: names wrapped at 72 columns, indented by a tab */
static void
list(const char *name)
{
	size_t len = strlen(name);

	if (column == 0 || column + len + 1 > 72) {
		(void) printf("%s\t", column ? "\n" : "");
		column = 8;
	} else {
		(void) putchar(' ');
		column++;
	}
	(void) fputs(name, stdout);
	column += len;
}

static void
pic_event(void *arg, uint_t picno, const char *name)
{
	if (strlen(name) >= CPC_MAX_EVENT_LEN) {
		(void) fprintf(stderr, "event name too long: %s\n", name);
		exit(1);
	}
	list(name);
	remember(arg, name);
}

static void
generic_event(void *arg, const char *name)
{
	list(name);
}

static void
attr(void *arg, const char *name)
{
	(*(int *)arg)++;
	list(name);
}

static int
cmp(const void *a, const void *b)
{
	return (strcmp(*(char *const *)a, *(char *const *)b));
}

int
main(int argc, char *argv[])
{
	cpc_t *cpc;
	uint_t pic, npic;
	int nattrs = 0, total = 0, i;

	if ((cpc = cpc_open(CPC_VER_CURRENT)) == NULL) {
		perror("cpc_open");
		return (1);
	}
	if (argc > 1 && strcmp(argv[1], "-1") == 0) {
		cpc_walk_events_all(cpc, NULL, remember);
		qsort(names, nnames, sizeof (char *), cmp);
		for (i = 0; i < nnames; i++)
			(void) printf("%s\n", names[i]);
		goto out;
	}
	npic = cpc_npic(cpc);
	(void) printf("CPU performance counter interface: %s\n",
	    cpc_cciname(cpc));
	(void) printf("%s\n\n", cpc_cpuref(cpc));
	(void) printf("\tevent specification syntax:\n\t[picn=]<eventn>"
	    "[,attr[n][=<val>]][,[picn=]<eventn>[,attr[n][=<val>]],...]\n");
	for (pic = 0; pic < npic; pic++) {
		(void) printf("\n\tevent%u:\n", pic);
		column = 0;
		cpc_walk_events_pic(cpc, pic, NULL, pic_event);
		(void) printf("\n");
	}
	(void) printf("\n\tgeneric events:\n");
	column = 0;
	cpc_walk_generic_events_all(cpc, NULL, generic_event);
	(void) printf("\n\n\tattributes:");
	column = 0;
	cpc_walk_attrs(cpc, &nattrs, attr);
	(void) printf("\n\n");
	cpc_walk_events_all(cpc, &total, remember);
	(void) printf("%d counters, %d events, %d attributes\n", npic,
	    nnames, nattrs);
out:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	(void) cpc_close(cpc);
	return (0);
}
