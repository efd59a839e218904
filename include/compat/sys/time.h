/* SPDX-License-Identifier: MIT */
/*
 * <sys/time.h> as Solaris programs see it: the C library's, plus hrtime_t
 * and gethrtime() (libpctr-cpc, CLOCK_MONOTONIC nanoseconds).  A program
 * that probes <sys/time.h> for them at configure time finds them here and
 * so never defines its own beside <libcpc.h>'s.
 */
#ifndef PCTR_COMPAT_SYS_TIME_H
#define PCTR_COMPAT_SYS_TIME_H

#include_next <sys/time.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef _HRTIME_T
#define _HRTIME_T
typedef long long hrtime_t; /* Solaris: longlong_t */
#endif

hrtime_t gethrtime(void);

#ifdef __cplusplus
}
#endif

#endif
