/* SPDX-License-Identifier: MIT */
/*
 * installed_pmc.c - a pmc_lib program as the seed's pages write one, built
 * against the installed layer only with gcc -O `pmc_options` pmc.c -lpmc
 * (tests/compat/pmclib/test_installed.sh, and in a Debian chroot
 * tests/pkg/chroot-test.sh).
 */
#include <pmc_lib.h>
#include <stdlib.h>

int
main(int argc, char *argv[])
{
	pmc_control_t Ctl = pmc_control_null;
	pmc_data_t t0, t1;

	if (pmc_getargs(stderr, argv[0], &argc, &argv, &Ctl) == FALSE ||
	    pmc_open(0) == FALSE || pmc_select(&Ctl.counters[0]) == FALSE)
		exit(1);
	pmc_read(&t0);
	pmc_read(&t1);
	pmc_accumulate(&Ctl.counters[0], &t1, &t0);
	pmc_close();
	pmc_print_results(argc, argv, &Ctl);
	exit(0);
}
