/* SPDX-License-Identifier: MIT */
/*
 * fuzz_sysfs_format.c - what the library reads from sysfs: a PMU's "type",
 * its "format/<term>" files ("config:0-7,21") and "events/<name>" files
 * (term lists), all written from the input into a private tree that
 * $PCTR_SYSFS_ROOT points at, then an event of that PMU is parsed.
 *
 * Input, one item per line:
 *   1  format/a       4  type
 *   2  format/b       5  the event's terms and modifiers: "a=1,b=2,ev/u"
 *   3  events/ev      6  format/rdpmc
 */
#include <errno.h>
#include <fcntl.h>
#include <pctr.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"

static char root[256];
static char pmu_dir[512];

static void
put(const char *rel, const char *text)
{
	char path[768];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", pmu_dir, rel);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		abort();
	if (write(fd, text, strlen(text)) < 0 || write(fd, "\n", 1) < 0)
		abort();
	close(fd);
}

static void
remove_tree(void)
{
	const char *files[] = { "format/a", "format/b", "format/rdpmc",
				"events/ev", "type" };
	char path[768];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", pmu_dir, files[i]);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/format", pmu_dir);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/events", pmu_dir);
	rmdir(path);
	rmdir(pmu_dir);
	for (int i = 0; i < 3; i++) {
		char *slash = strrchr(pmu_dir, '/');

		*slash = '\0';
		rmdir(pmu_dir);
	}
	rmdir(root);
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *base = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
	char path[768];

	snprintf(root, sizeof(root), "%s/pctr-fuzz-sysfs.%d", base,
		 (int)getpid());
	snprintf(pmu_dir, sizeof(pmu_dir), "%s/bus/event_source/devices/cpu",
		 root);
	snprintf(path, sizeof(path), "%s/bus", root);
	if (mkdir(root, 0755) || mkdir(path, 0755))
		abort();
	strcat(path, "/event_source");
	if (mkdir(path, 0755))
		abort();
	strcat(path, "/devices");
	if (mkdir(path, 0755) || mkdir(pmu_dir, 0755))
		abort();
	snprintf(path, sizeof(path), "%s/format", pmu_dir);
	if (mkdir(path, 0755))
		abort();
	snprintf(path, sizeof(path), "%s/events", pmu_dir);
	if (mkdir(path, 0755))
		abort();
	put("type", "4");
	setenv("PCTR_SYSFS_ROOT", root, 1);
	atexit(remove_tree);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const file[] = { "format/a", "format/b",
					    "events/ev", "type" };
	char *text = fuzz_string(data, size, 2048), *line[6] = { 0 };
	char *p = text, spec[2200];
	struct pctr_event ev = { .size = sizeof(ev) };
	int r;

	for (int i = 0; i < 6; i++) {
		line[i] = p;
		p = strchr(p, '\n');
		if (!p) {
			for (int j = i + 1; j < 6; j++)
				line[j] = "";
			break;
		}
		*p++ = '\0';
	}
	for (int i = 0; i < 4; i++)
		put(file[i], line[i]);
	put("format/rdpmc", line[5]);
	snprintf(spec, sizeof(spec), "cpu/%s", line[4]);
	r = pctr_event_parse(spec, &ev);
	if (r > 0 || (r < 0 && !*pctr_strerror(r)))
		abort();
	/* the library reads at most 31 bytes of "type" */
	if (r == 0 && strlen(line[3]) < 31 &&
	    ev.type != strtoul(line[3], NULL, 10))
		abort();
	free(text);
	return 0;
}
