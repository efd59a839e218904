/* SPDX-License-Identifier: MIT */
/*
 * <stdlib.h> for programs written for the BSDs: the C library's own header
 * and the extras those programs expect from it.
 */
#ifndef PCTR_COMPAT_STDLIB_H
#define PCTR_COMPAT_STDLIB_H

#include_next <stdlib.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * strtonum(3) as on OpenBSD.  The symbol is libpctr-openbsd's (and
 * libpctr-freebsd's), so it never meets libbsd's.
 */
long long strtonum(const char *nptr, long long minval, long long maxval,
		   const char **errstr) __asm__("pctr_bsd_strtonum");

#ifdef __cplusplus
}
#endif

#endif /* PCTR_COMPAT_STDLIB_H */
