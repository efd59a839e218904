/* SPDX-License-Identifier: MIT */
/*
 * devsw.h - the emulated BSD character devices (/dev/pctr, /dev/perfmon).
 *
 * Programs are linked with -Wl,--wrap=open,... (the layers' pkg-config
 * Libs), so that their own calls to open(2), ioctl(2) and close(2) reach
 * devsw.c first; calls made inside the C library or other shared objects
 * are never seen.  open() of a device path hands out a real descriptor (a
 * memfd) and remembers it; ioctl() and close() on that descriptor go to the
 * device; every other call goes straight to the C library.
 */
#ifndef PCTR_COMPAT_DEVSW_H
#define PCTR_COMPAT_DEVSW_H

/*
 * One device.  Each call gets the open(2) flags of the descriptor and
 * returns 0 or a positive errno.  open and close are called once per
 * descriptor.  The device serialises its own state.
 */
struct pctr_bsd_dev {
	const char *path;
	int (*open)(int oflags);
	int (*ioctl)(int oflags, unsigned long req, void *arg);
	void (*close)(int oflags);
};

/*
 * Defined by libpctr-openbsd and libpctr-freebsd respectively.  Each
 * library's devsw.c refers to both weakly: a program that links both layers
 * has one interposer that knows both devices.
 */
extern const struct pctr_bsd_dev pctr_openbsd_dev __attribute__((weak));
extern const struct pctr_bsd_dev pctr_freebsd_dev __attribute__((weak));

/* is @oflags open for writing (BSD FWRITE) */
static inline int
pctr_bsd_fwrite(int oflags)
{
	return (oflags & 3) != 0; /* O_WRONLY or O_RDWR */
}

#endif
