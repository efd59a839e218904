/* SPDX-License-Identifier: MIT */
/*
 * hw_init.c - PID 1 of the hardware-test guest.
 *
 * Mounts devtmpfs, proc, sysfs and a tmpfs, then runs the lines of
 * /hw/plan one after the other and powers the machine off.  A plan line is
 *
 *     LABEL UID SYSCTLS PROGRAM [ARGS...]
 *
 * separated by blanks, "-" for "none": UID is a numeric uid (and gid) to
 * run as instead of root, SYSCTLS a comma-separated list of name=value
 * ("kernel.perf_user_access=1,kernel.perf_event_paranoid=1").  The sysctls
 * are set before the program starts and put back afterwards, so runs do
 * not leak settings into each other.  Around each run the console gets
 *
 *     PCTR-HW-BEGIN LABEL
 *     ...the program's output (TAP)...
 *     PCTR-HW-END LABEL STATUS
 *
 * STATUS is the exit status, 128+N if killed by signal N.  After the last
 * run "PCTR-HW-DONE" is printed.  tests/hw/run.sh reads these markers; a
 * run without its END line (the guest died or timed out) is a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_ARGS 64
#define MAX_SYSCTLS 16

struct sysctl_save {
	char path[256];
	char old[64];
};

static void
sysctl_path(const char *name, char *path, size_t len)
{
	snprintf(path, len, "/proc/sys/%s", name);
	for (char *p = path + strlen("/proc/sys/"); *p; p++)
		if (*p == '.')
			*p = '/';
}

static int
write_file(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	int r = fd < 0 || write(fd, val, strlen(val)) < 0 ? -1 : 0;

	if (fd >= 0)
		close(fd);
	return r;
}

static int
read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, len - 1);

	if (fd >= 0)
		close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* Apply "a=1,b=2"; remember the old values in @save.  Returns how many. */
static int
apply_sysctls(char *list, struct sysctl_save *save)
{
	int n = 0;

	if (!strcmp(list, "-"))
		return 0;
	for (char *item = strtok(list, ","); item && n < MAX_SYSCTLS;
	     item = strtok(NULL, ",")) {
		char *eq = strchr(item, '=');

		if (!eq) {
			printf("# hw_init: bad sysctl '%s'\n", item);
			continue;
		}
		*eq = '\0';
		sysctl_path(item, save[n].path, sizeof(save[n].path));
		if (read_file(save[n].path, save[n].old, sizeof(save[n].old)) ||
		    write_file(save[n].path, eq + 1)) {
			printf("# hw_init: sysctl %s=%s: %s\n", item, eq + 1,
			       strerror(errno));
			continue;
		}
		n++;
	}
	return n;
}

static void
restore_sysctls(const struct sysctl_save *save, int n)
{
	while (n-- > 0)
		if (write_file(save[n].path, save[n].old))
			printf("# hw_init: cannot restore %s\n", save[n].path);
}

static int
run(char **argv, int uid)
{
	char only[160], repeat[32];
	char *envp[] = { "PATH=/hw", "HOME=/tmp", "TERM=dumb",
			 "TEST_TIMEOUT=300", NULL, NULL, NULL };
	int status, e = 4;
	pid_t pid;

	/* the kernel hands unknown "name=value" boot parameters to init */
	if (getenv("TEST_ONLY")) {
		snprintf(only, sizeof(only), "TEST_ONLY=%s", getenv("TEST_ONLY"));
		envp[e++] = only;
	}
	if (getenv("TEST_REPEAT")) {
		snprintf(repeat, sizeof(repeat), "TEST_REPEAT=%s",
			 getenv("TEST_REPEAT"));
		envp[e++] = repeat;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		if (chdir("/tmp") < 0)
			_exit(126);
		if (uid >= 0 && (setgroups(0, NULL) < 0 || setgid(uid) < 0 ||
				 setuid(uid) < 0)) {
			perror("# hw_init: setuid");
			_exit(126);
		}
		execve(argv[0], argv, envp);
		perror("# hw_init: execve");
		_exit(127);
	}
	if (pid < 0)
		return 125;
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return 125;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void
run_line(char *line)
{
	struct sysctl_save save[MAX_SYSCTLS];
	char *argv[MAX_ARGS + 1], *label, *uid, *sysctls, *sp;
	int argc = 0, nsave, status;

	label = strtok_r(line, " \t\n", &sp);
	uid = strtok_r(NULL, " \t\n", &sp);
	sysctls = strtok_r(NULL, " \t\n", &sp);
	if (!label || !uid || !sysctls)
		return;
	while (argc < MAX_ARGS && (argv[argc] = strtok_r(NULL, " \t\n", &sp)))
		argc++;
	argv[argc] = NULL;
	printf("PCTR-HW-BEGIN %s\n", label);
	if (argc == 0) {
		printf("PCTR-HW-END %s 127\n", label);
		return;
	}
	nsave = apply_sysctls(sysctls, save);
	status = run(argv, strcmp(uid, "-") ? atoi(uid) : -1);
	restore_sysctls(save, nsave);
	printf("PCTR-HW-END %s %d\n", label, status);
}

static void
setup(void)
{
	int fd;

	mkdir("/dev", 0755);
	mkdir("/proc", 0555);
	mkdir("/sys", 0555);
	mkdir("/tmp", 01777);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, "mode=1777");
	fd = open("/dev/console", O_RDWR | O_NOCTTY);
	if (fd >= 0) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
}

int
main(void)
{
	char line[1024];
	FILE *plan;

	setup();
	plan = fopen("/hw/plan", "r");
	if (!plan)
		printf("# hw_init: no /hw/plan: %s\n", strerror(errno));
	while (plan && fgets(line, sizeof(line), plan))
		if (line[0] != '#' && line[0] != '\n')
			run_line(line);
	printf("PCTR-HW-DONE\n");
	fflush(stdout);
	sync();
	reboot(RB_POWER_OFF);
	for (;;)
		pause();
}
