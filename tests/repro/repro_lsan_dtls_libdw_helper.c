/* SPDX-License-Identifier: MIT */
/*
 * repro_lsan_dtls_libdw_helper - the program repro_lsan_dtls_libdw runs,
 * always built with AddressSanitizer: elfutils' libdw loaded with
 * dlopen(), a Dwfl of one module (the C library) asked for its process
 * before it has one (dwfl_pid(): an error, which libdw keeps in
 * thread-local storage), attached to one with dwfl_attach_state(), then
 * freed, and exit: nothing is left to leak.  Its argument K: K * 16
 * bytes allocated first (and freed at the end), which moves the blocks
 * malloc gives out later, the dynamic TLS's among them.
 *
 *   repro_lsan_dtls_libdw_helper K
 */

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elfutils/libdwfl.h>

static pid_t
next_thread(Dwfl *d, void *arg, void **thread_arg)
{
	(void)d, (void)arg, (void)thread_arg;
	return 0;
}

static bool
set_initial_registers(Dwfl_Thread *t, void *arg)
{
	(void)t, (void)arg;
	return false;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.set_initial_registers = set_initial_registers,
};

int
main(int argc, char **argv)
{
	void *pad = malloc(16 * (size_t)(argc > 1 ? atoi(argv[1]) : 0) + 1);
	static Dwfl_Callbacks cb;
	void *libc = dlopen("libc.so.6", RTLD_NOW | RTLD_NOLOAD);
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	struct link_map *lm = NULL;
	char maps[4200];
	__typeof__(dwfl_begin) *begin;
	__typeof__(dwfl_end) *end;
	__typeof__(dwfl_attach_state) *attach;
	Dwfl *d;
	FILE *f;
	bool ok;

	if (!h)
		return 77;
	if (!libc || dlinfo(libc, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
		return 3;
	/* one module, the C library, as a line of /proc/PID/maps */
	snprintf(maps, sizeof(maps),
		 "7f0000000000-7f0000200000 r-xp 00000000 00:00 1 %s\n",
		 lm->l_name);
	begin = (__typeof__(begin))dlsym(h, "dwfl_begin");
	end = (__typeof__(end))dlsym(h, "dwfl_end");
	attach = (__typeof__(attach))dlsym(h, "dwfl_attach_state");
	cb.find_elf = (__typeof__(cb.find_elf))dlsym(h,
						     "dwfl_linux_proc_find_elf");
	cb.find_debuginfo = (__typeof__(cb.find_debuginfo))dlsym(
		h, "dwfl_standard_find_debuginfo");
	d = begin(&cb);
	f = fmemopen(maps, strlen(maps), "r");
	((__typeof__(dwfl_report_begin) *)dlsym(h, "dwfl_report_begin"))(d);
	((__typeof__(dwfl_linux_proc_maps_report) *)dlsym(
		h, "dwfl_linux_proc_maps_report"))(d, f);
	((__typeof__(dwfl_report_end) *)dlsym(h, "dwfl_report_end"))(d, NULL,
								     NULL);
	fclose(f);
	/* not attached yet: an error, kept in libdw's thread-local state */
	((__typeof__(dwfl_pid) *)dlsym(h, "dwfl_pid"))(d);
	ok = attach(d, NULL, 999999, &thread_callbacks, NULL);
	end(d);
	free(pad);
	printf("attached: %d\n", ok);
	return ok ? 0 : 2;
}
