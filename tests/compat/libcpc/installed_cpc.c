/* SPDX-License-Identifier: MIT */
/*
 * installed_cpc.c - a libcpc program as a user writes one, built against
 * the installed layer only (tests/compat/pmclib/test_installed.sh, and in
 * a Debian chroot tests/pkg/chroot-test.sh): task-clock around a loop
 * must grow.
 */
#include <libcpc.h>
#include <stdio.h>

int
main(void)
{
	cpc_event_t a, b;
	volatile int i;

	if (cpc_strtoevent(cpc_getcpuver(), "pic0=task-clock", &a) != 0 ||
	    cpc_bind_event(&a, 0) != 0 || cpc_take_sample(&a) != 0)
		return 1;
	for (i = 0; i < 1000000; i++)
		;
	if (cpc_take_sample(&b) != 0)
		return 1;
	printf("%llu ns\n", (unsigned long long)(b.ce_pic[0] - a.ce_pic[0]));
	return b.ce_pic[0] > a.ce_pic[0] ? 0 : 1;
}
