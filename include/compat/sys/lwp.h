/* SPDX-License-Identifier: MIT */
/*
 * <sys/lwp.h> as Solaris programs see it, for the part libpctr-cpc serves:
 * the calling LWP's id (the Linux thread id).
 */
#ifndef PCTR_COMPAT_SYS_LWP_H
#define PCTR_COMPAT_SYS_LWP_H

#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef unsigned int lwpid_t;

/* the calling thread's id (Solaris LWP id) */
int _lwp_self(void);

#ifdef __cplusplus
}
#endif

#endif
