/* SPDX-License-Identifier: MIT */
/*
 * libcpc.h - the Solaris CPU performance counter library (libcpc), on Linux.
 *
 * Source compatibility for programs written against libcpc: the obsolete
 * CPCv1 calls (cpc_bind_event(), cpc_take_sample(), cpc_rele() and friends)
 * and the CPCv2 calls that replaced them (cpc_open(), cpc_set_*(),
 * cpc_buf_*(), cpc_bind_curlwp(), cpc_set_sample(), cpc_unbind()).  Both
 * are served by libcpc on top of libpctr.  See libcpc-compat(3) for every
 * difference from Solaris, notably:
 *
 *  - SIGEMT does not exist on Linux x86-64 and arm64: it is the real-time
 *    signal number 60 here, delivered with si_code EMT_CPCOVF and si_addr
 *    the interrupted program counter, as on Solaris.  The kernel's own
 *    notification uses signal 61 (CPC_SIGOVF_KERNEL), which the library
 *    handles; programs must leave both alone.
 *  - Event names are libpctr's (pctr_event_parse(3): "task-clock",
 *    "instructions", "INST_RETIRED.ANY", "cpu/event=0xc0/", "r00c0"...),
 *    libcpc's generic names ("PAPI_tot_ins", "PAPI_tot_cyc"...) and x86
 *    event codes ("pic0=0xc0").
 *
 * Like the Solaris header, this one brings in what the libcpc manual's
 * examples use without including it themselves: <sys/types.h>,
 * <inttypes.h>, <errno.h>, <string.h>, <strings.h>, <signal.h> and
 * <ucontext.h>.
 */
#ifndef PCTR_COMPAT_LIBCPC_H
#define PCTR_COMPAT_LIBCPC_H

#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h> /* hrtime_t, gethrtime(): ours, as on Solaris */
#include <sys/types.h>
#include <ucontext.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Solaris types ------------------------------------------------------ */

#ifndef _HRTIME_T
#define _HRTIME_T
typedef long long hrtime_t; /* nanoseconds, CLOCK_MONOTONIC */
#endif
typedef unsigned int uint_t;

/* the current high-resolution time, as Solaris's gethrtime() */
hrtime_t gethrtime(void);
/* the calling thread's id (Solaris LWP id), as Solaris's _lwp_self() */
int _lwp_self(void);

/*
 * SIGEMT: Linux defines it only on a few architectures (MIPS, SPARC,
 * Alpha), none of which libcpc supports here.  Where it is missing it is a
 * fixed real-time signal, so that it stays a constant expression.
 */
#define CPC_SIGEMT 60
#define CPC_SIGOVF_KERNEL 61
#ifndef SIGEMT
#define SIGEMT CPC_SIGEMT
#endif
#ifndef EMT_TAGOVF
#define EMT_TAGOVF 1 /* tag overflow (SPARC) */
#endif
#define EMT_CPCOVF 2 /* counter overflow: si_code of SIGEMT */

/*
 * Register indices into uc_mcontext.gregs[] under their Solaris names, for
 * the overflow handler of the manual (gregs[PC], gregs[USP]).  Chosen by
 * architecture here, as Solaris's own <sys/regset.h> does: one installed
 * header serves every architecture's programs.
 */
#if defined(__x86_64__) && !defined(PC)
#define PC 16 /* REG_RIP */
#define USP 15 /* REG_RSP */
#elif defined(__aarch64__) && !defined(PC)
/*
 * arm64 has no gregs[]: its mcontext_t holds regs[31], then sp, then pc.
 * gregs names that layout; index 31 is sp, 32 is pc.
 */
#define gregs regs
#define USP 31
#define PC 32
#endif

/* ---- versions and processors ------------------------------------------ */

#define CPC_VER_NONE 0
#define CPC_VER_1 1
#define CPC_VER_CURRENT 2

/* Solaris's processor identifiers, kept for source compatibility */
#define CPC_ULTRA1 1000
#define CPC_ULTRA2 1001
#define CPC_ULTRA3 1002
#define CPC_ULTRA3_PLUS 1003
#define CPC_ULTRA3_I 1004
#define CPC_ULTRA4_PLUS 1005
#define CPC_PENTIUM 2000
#define CPC_PENTIUM_MMX 2001
#define CPC_PENTIUM_PRO 2002
#define CPC_PENTIUM_PRO_MMX 2003
/* what cpc_getcpuver() returns on Linux */
#define CPC_LINUX_SOFTWARE 3000 /* no hardware PMU: software events only */
#define CPC_LINUX_X86_64 3001 /* an x86-64 core PMU */
#define CPC_LINUX_AARCH64 3002 /* an arm64 core PMU */
#define CPC_LINUX_OTHER 3003 /* another architecture's core PMU */

/* ---- CPCv1: events bound to the calling LWP ----------------------------- */

/*
 * The x86 layout of Solaris.  ce_pes[] holds the two event selections as
 * P6 PerfEvtSel values (CPC_PES_*); ce_tick is ce_tsc under its SPARC name.
 */
typedef struct _cpc_event {
	int ce_cpuver;
	hrtime_t ce_hrt;     /* time of the sample */
	uint64_t ce_tsc;     /* timestamp counter at the sample */
	uint64_t ce_pic[2];  /* the counters */
	uint32_t ce_pes[2];  /* the event selections */
#define ce_cesr ce_pes[0]
#define ce_tick ce_tsc
} cpc_event_t;

/* bits of ce_pes[]: the P6 PerfEvtSel layout */
#define CPC_PES_EVENT 0x000000ffu
#define CPC_PES_UMASK 0x0000ff00u
#define CPC_PES_USR 0x00010000u
#define CPC_PES_OS 0x00020000u
#define CPC_PES_EDGE 0x00040000u
#define CPC_PES_PC 0x00080000u
#define CPC_PES_INT 0x00100000u
#define CPC_PES_NAMED 0x00200000u /* bits 0-15 index a named event */
#define CPC_PES_EN 0x00400000u
#define CPC_PES_INV 0x00800000u
#define CPC_PES_CMASK 0xff000000u

/* cpc_bind_event() flags */
#define CPC_BIND_LWP_INHERIT 0x1
#define CPC_BIND_EMT_OVF 0x2

typedef void(cpc_errfn_t)(const char *fn, const char *fmt, va_list ap);

uint_t cpc_version(uint_t ver);
int cpc_getcpuver(void);
const char *cpc_getcciname(int cpuver);
const char *cpc_getcpuref(int cpuver);
const char *cpc_getusage(int cpuver);
uint_t cpc_getnpic(int cpuver);
void cpc_walk_names(int cpuver, int regno, void *arg,
		    void (*action)(void *arg, int regno, const char *name,
				   uint8_t bits));
int cpc_strtoevent(int cpuver, const char *spec, cpc_event_t *event);
char *cpc_eventtostr(cpc_event_t *event);
void cpc_event_accum(cpc_event_t *accum, cpc_event_t *event);
void cpc_event_diff(cpc_event_t *diff, cpc_event_t *left,
		    cpc_event_t *right);
int cpc_access(void);
int cpc_bind_event(cpc_event_t *event, int flags);
int cpc_take_sample(cpc_event_t *event);
int cpc_rele(void);
int cpc_count_usr_events(int enable);
int cpc_count_sys_events(int enable);
void cpc_seterrfn(cpc_errfn_t *errfn);

/* ---- CPCv2: sets of requests, bound to the calling LWP ----------------- */

typedef struct __cpc cpc_t;
typedef struct __cpc_set cpc_set_t;
typedef struct __cpc_buf cpc_buf_t;

#define CPC_MAX_ATTR_LEN 32
#define CPC_MAX_EVENT_LEN 512 /* Solaris's bound on an event name */
typedef struct __cpc_attr {
	char *ca_name; /* as in Solaris's public header */
	uint64_t ca_val;
} cpc_attr_t;

/* cpc_set_add_request() flags */
#define CPC_OVF_NOTIFY_EMT 0x1
#define CPC_COUNT_USER 0x2
#define CPC_COUNT_SYSTEM 0x4
#define CPC_COUNT_HV 0x8
#define CPC_COUNT_SAMPLE_MODE 0x10

/* cpc_caps() */
#define CPC_CAP_OVERFLOW_INTERRUPT 0x1
#define CPC_CAP_OVERFLOW_PRECISE 0x2

/* the most requests in one set */
#define CPC_MAX_REQUESTS 8

typedef void(cpc_errhndlr_t)(const char *fn, int subcode, const char *fmt,
			     va_list ap);
/* subcodes passed to the error handler */
#define CPC_INVALID_EVENT 1
#define CPC_INVALID_PICNUM 2
#define CPC_INVALID_ATTRIBUTE 3
#define CPC_ATTRIBUTE_OUT_OF_RANGE 4
#define CPC_RESOURCE_UNAVAIL 5
#define CPC_PIC_NOT_CAPABLE 6
#define CPC_REQ_INVALID_FLAGS 7
#define CPC_CONFLICTING_REQS 8
#define CPC_ATTR_REQUIRES_PRIVILEGE 9

cpc_t *cpc_open(int ver);
int cpc_close(cpc_t *cpc);
uint_t cpc_npic(cpc_t *cpc);
uint_t cpc_caps(cpc_t *cpc);
const char *cpc_cciname(cpc_t *cpc);
const char *cpc_cpuref(cpc_t *cpc);
int cpc_seterrhndlr(cpc_t *cpc, cpc_errhndlr_t *fn);
void cpc_walk_events_all(cpc_t *cpc, void *arg,
			 void (*action)(void *arg, const char *event));
void cpc_walk_generic_events_all(cpc_t *cpc, void *arg,
				 void (*action)(void *arg, const char *event));
void cpc_walk_events_pic(cpc_t *cpc, uint_t picno, void *arg,
			 void (*action)(void *arg, uint_t picno,
					const char *event));

cpc_set_t *cpc_set_create(cpc_t *cpc);
int cpc_set_destroy(cpc_t *cpc, cpc_set_t *set);
int cpc_set_add_request(cpc_t *cpc, cpc_set_t *set, const char *event,
			uint64_t preset, uint_t flags, uint_t nattrs,
			const cpc_attr_t *attrs);
void cpc_walk_requests(cpc_t *cpc, cpc_set_t *set, void *arg,
		       void (*action)(void *arg, int index, const char *event,
				      uint64_t preset, uint_t flags,
				      int nattrs, const cpc_attr_t *attrs));

cpc_buf_t *cpc_buf_create(cpc_t *cpc, cpc_set_t *set);
int cpc_buf_destroy(cpc_t *cpc, cpc_buf_t *buf);
int cpc_buf_get(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t *val);
int cpc_buf_set(cpc_t *cpc, cpc_buf_t *buf, int index, uint64_t val);
hrtime_t cpc_buf_hrtime(cpc_t *cpc, cpc_buf_t *buf);
uint64_t cpc_buf_tick(cpc_t *cpc, cpc_buf_t *buf);
void cpc_buf_sub(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
void cpc_buf_add(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *a, cpc_buf_t *b);
void cpc_buf_copy(cpc_t *cpc, cpc_buf_t *ds, cpc_buf_t *src);
void cpc_buf_zero(cpc_t *cpc, cpc_buf_t *buf);

int cpc_bind_curlwp(cpc_t *cpc, cpc_set_t *set, uint_t flags);
int cpc_set_sample(cpc_t *cpc, cpc_set_t *set, cpc_buf_t *buf);
int cpc_set_restart(cpc_t *cpc, cpc_set_t *set);
int cpc_request_preset(cpc_t *cpc, int index, uint64_t preset);
int cpc_unbind(cpc_t *cpc, cpc_set_t *set);

typedef int processorid_t;
/* count every LWP on CPU @id (privileged); the caller runs on that CPU */
int cpc_bind_cpu(cpc_t *cpc, processorid_t id, cpc_set_t *set, uint_t flags);
/* the attribute names requests accept (the x86 ones) */
void cpc_walk_attrs(cpc_t *cpc, void *arg,
		    void (*action)(void *arg, const char *attr));
int cpc_enable(cpc_t *cpc);
int cpc_disable(cpc_t *cpc);

#ifdef __cplusplus
}
#endif

#endif /* PCTR_COMPAT_LIBCPC_H */
