/* SPDX-License-Identifier: MIT */
/*
 * fuzz_region_env.c - $PCTR_EVENTS and $PCTR_REPORT as an instrumented
 * program reads them: first line the events, second line the report
 * destination ("json:FILE", "csv:out.%p", "-"...).  The report is written
 * too, into a private directory: '/' in the destination becomes '_' so
 * that nothing is written elsewhere.
 */
#include <dirent.h>
#include <pctr.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static char dir[256];

static void
empty_dir(void)
{
	DIR *d = opendir(".");
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' || (e->d_name[1] && e->d_name[1] != '.' &&
					    strcmp(e->d_name, "..")))
			unlink(e->d_name);
	if (d)
		closedir(d);
}

static void
remove_dir(void)
{
	empty_dir();
	if (chdir("/") == 0)
		rmdir(dir);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_use_fixture("x86");
	snprintf(dir, sizeof(dir), "/tmp/pctr-fuzz-region.%d", (int)getpid());
	if (mkdir(dir, 0700) || chdir(dir))
		abort();
	atexit(remove_dir);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_string(data, size, 1024), *report;
	int r;

	for (char *p = text; *p; p++)
		if (*p == '/')
			*p = '_';
	report = strchr(text, '\n');
	if (report)
		*report++ = '\0';
	setenv("PCTR_EVENTS", text, 1);
	if (report && *report != '-' && strcmp(report, "stderr"))
		setenv("PCTR_REPORT", report, 1);
	else
		unsetenv("PCTR_REPORT");
	r = pctr_region_init(NULL);
	if (r > 0 || (r < 0 && !*pctr_strerror(r)))
		abort();
	if (report && *report != '-' && strcmp(report, "stderr"))
		pctr_region_write_to(report);
	empty_dir();
	free(text);
	return 0;
}
