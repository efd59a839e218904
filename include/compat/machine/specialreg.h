/* SPDX-License-Identifier: MIT */
/*
 * <machine/specialreg.h> for programs written for the BSDs on x86: the
 * CPUID feature bits (as sysctl(3) CPU_CPUFEATURE returns them), the
 * control register bits and the model-specific registers of the counters.
 * Values are the architecture's (Intel SDM, AMD APM); user space can only
 * compare against them.
 */
#ifndef _MACHINE_SPECIALREG_H_
#define _MACHINE_SPECIALREG_H_

/* CR4 bits a counter driver sets */
#define CR4_TSD 0x00000004	/* rdtsc only in kernel mode */
#define CR4_PCE 0x00000100	/* rdpmc allowed in user mode */

/* CPUID leaf 1, edx */
#define CPUID_FPU 0x00000001
#define CPUID_VME 0x00000002
#define CPUID_DE 0x00000004
#define CPUID_PSE 0x00000008
#define CPUID_TSC 0x00000010	/* time stamp counter */
#define CPUID_MSR 0x00000020
#define CPUID_PAE 0x00000040
#define CPUID_MCE 0x00000080
#define CPUID_CX8 0x00000100
#define CPUID_APIC 0x00000200
#define CPUID_SEP 0x00000800
#define CPUID_MTRR 0x00001000
#define CPUID_PGE 0x00002000
#define CPUID_MCA 0x00004000
#define CPUID_CMOV 0x00008000
#define CPUID_PAT 0x00010000
#define CPUID_PSE36 0x00020000
#define CPUID_CFLUSH 0x00080000
#define CPUID_ACPI 0x00400000
#define CPUID_MMX 0x00800000
#define CPUID_FXSR 0x01000000
#define CPUID_SSE 0x02000000
#define CPUID_SSE2 0x04000000
#define CPUID_SS 0x08000000
#define CPUID_HTT 0x10000000
#define CPUID_TM 0x20000000
#define CPUID_PBE 0x80000000

/* CPUID leaf 1, ecx */
#define CPUIDECX_SSE3 0x00000001
#define CPUIDECX_PCLMUL 0x00000002
#define CPUIDECX_PDCM 0x00008000	/* perfmon and debug capability */
#define CPUIDECX_SSE41 0x00080000
#define CPUIDECX_SSE42 0x00100000
#define CPUIDECX_POPCNT 0x00800000
#define CPUIDECX_AES 0x02000000
#define CPUIDECX_XSAVE 0x04000000
#define CPUIDECX_AVX 0x10000000
#define CPUIDECX_HV 0x80000000	/* running under a hypervisor */

/* model-specific registers of the time stamp and performance counters */
#define MSR_TSC 0x010
#define MSR_PERFCTR0 0x0c1	/* Intel architectural counters */
#define MSR_PERFCTR1 0x0c2
#define MSR_EVNTSEL0 0x186
#define MSR_EVNTSEL1 0x187
#define P6MSR_CTR0 MSR_PERFCTR0
#define P6MSR_CTR1 MSR_PERFCTR1
#define P6MSR_CTRSEL0 MSR_EVNTSEL0
#define P6MSR_CTRSEL1 MSR_EVNTSEL1
#define MSR_K7_EVNTSEL0 0xc0010000	/* AMD legacy counters */
#define MSR_K7_EVNTSEL1 0xc0010001
#define MSR_K7_EVNTSEL2 0xc0010002
#define MSR_K7_EVNTSEL3 0xc0010003
#define MSR_K7_PERFCTR0 0xc0010004
#define MSR_K7_PERFCTR1 0xc0010005
#define MSR_K7_PERFCTR2 0xc0010006
#define MSR_K7_PERFCTR3 0xc0010007

#endif /* !_MACHINE_SPECIALREG_H_ */
