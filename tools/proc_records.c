/* SPDX-License-Identifier: MIT */
/*
 * proc_records.c - running processes as side-band records (proc_records.h),
 * from /proc/PID/status (Tgid), /proc/PID/comm and /proc/PID/maps: a line
 * "START-END PERMS OFFSET DEV INODE PATH" that executes a file is a
 * PCTR_REC_MMAP.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "proc_records.h"

/* the process a thread belongs to; @tid itself when it cannot be read */
static pid_t
tgid_of(pid_t tid)
{
	char path[64], line[256];
	FILE *f;
	pid_t pid = tid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)tid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &pid) == 1)
			break;
	if (f)
		fclose(f);
	return pid;
}

/* thread @tid of process @pid: its name, as a PCTR_REC_COMM */
static int
comm_record(pid_t pid, pid_t tid, proc_record_fn cb, void *arg)
{
	char path[64], name[64] = "";
	struct pctr_sample_record r = { .kind = PCTR_REC_COMM, .pid = pid,
					.tid = tid, .ppid = -1, .ptid = -1,
					.cpu = -1, .name = name };
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/comm", (int)pid,
		 (int)tid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(name, sizeof(name), f))
		name[0] = '\0';
	fclose(f);
	name[strcspn(name, "\n")] = '\0';
	return cb(&r, arg);
}

/* every thread's name (a thread's own may differ from its process's) */
static int
comm_records(pid_t pid, proc_record_fn cb, void *arg)
{
	char path[64];
	DIR *d;
	struct dirent *e;
	int ret = comm_record(pid, pid, cb, arg);

	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	d = ret < 0 ? NULL : opendir(path);
	while (d && ret == 0 && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]) &&
		    atoi(e->d_name) != pid)
			ret = comm_record(pid, atoi(e->d_name), cb, arg) > 0;
	if (d)
		closedir(d);
	return ret;
}

/* a maps line into @r; false for one that executes no file */
static bool
map_line(char *line, struct pctr_sample_record *r)
{
	unsigned long long lo, hi, off;
	char perms[8];
	int at = 0;

	if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %n", &lo, &hi, perms,
		   &off, &at) != 4 || !at || perms[2] != 'x' ||
	    line[at] != '/')
		return false;
	line[strcspn(line, "\n")] = '\0';
	r->addr = lo;
	r->len = hi - lo;
	r->pgoff = off;
	r->prot = PROT_READ | PROT_EXEC | (perms[1] == 'w' ? PROT_WRITE : 0);
	r->name = line + at;
	return true;
}

int
proc_records(pid_t pid, proc_record_fn cb, void *arg)
{
	struct pctr_sample_record r = { .kind = PCTR_REC_MMAP, .ppid = -1,
					.ptid = -1, .cpu = -1 };
	char path[64], line[4352];
	int ret;
	FILE *f;

	pid = tgid_of(pid);
	ret = comm_records(pid, cb, arg);
	if (ret)
		return ret;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0; /* gone meanwhile: its name is all there is */
	r.pid = r.tid = pid;
	while (!ret && fgets(line, sizeof(line), f))
		if (map_line(line, &r))
			ret = cb(&r, arg);
	fclose(f);
	return ret;
}

int
proc_records_all(proc_record_fn cb, void *arg)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int ret = 0;

	while (d && !ret && (e = readdir(d)))
		if (isdigit((unsigned char)e->d_name[0]))
			/* a process that ended meanwhile: -ENOENT, passed */
			ret = proc_records(atoi(e->d_name), cb, arg) > 0
				      ? 1 : 0;
	if (d)
		closedir(d);
	return ret;
}
