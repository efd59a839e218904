/* SPDX-License-Identifier: MIT */
/* tools/tool.h - what the pctr command's files share. */
#ifndef PCTR_TOOL_H
#define PCTR_TOOL_H

#include <pctr.h>

/* exit statuses (documented in pctr(1)) */
#define EXIT_USAGE 2 /* bad option or value */
#define EXIT_EVENT 3 /* unknown or unsupported event */
#define EXIT_PERM 4 /* not permitted (perf_event_paranoid, capabilities) */
#define EXIT_NOEXEC 126 /* command found but not executable, like a shell */
#define EXIT_NOTFOUND 127 /* command not found, like a shell */

int cmd_list(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_info(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_mpirun(int argc, char **argv);

#endif
