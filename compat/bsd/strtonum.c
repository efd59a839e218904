/* SPDX-License-Identifier: MIT */
/*
 * strtonum.c - OpenBSD's strtonum(3): a base-10 number within
 * [minval, maxval], or 0 with *errstr set to "invalid", "too small" or
 * "too large" and errno to EINVAL or ERANGE.  Thread-safe.
 */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>

#define PCTR_EXPORT __attribute__((visibility("default")))

/* the symbol is pctr_bsd_strtonum, by the label in <stdlib.h> */
PCTR_EXPORT long long
strtonum(const char *nptr, long long minval, long long maxval,
	 const char **errstr)
{
	const char *why = NULL;
	long long ll = 0;
	char *end;
	int err = 0;

	if (minval > maxval || !nptr) {
		why = "invalid";
		err = EINVAL;
	} else {
		errno = 0;
		ll = strtoll(nptr, &end, 10);
		if (nptr == end || *end != '\0') {
			why = "invalid";
			err = EINVAL;
		} else if ((ll == LLONG_MIN && errno == ERANGE) ||
			   ll < minval) {
			why = "too small";
			err = ERANGE;
		} else if ((ll == LLONG_MAX && errno == ERANGE) ||
			   ll > maxval) {
			why = "too large";
			err = ERANGE;
		}
	}
	if (errstr)
		*errstr = why;
	errno = err;
	return why ? 0 : ll;
}
