/* SPDX-License-Identifier: MIT */
/*
 * p6_events.c - the Pentium Pro, II and III events that pmc_lib's event
 * numbers name (Intel SDM, Pentium Pro family performance events).
 */
#include <stddef.h>

#include "pmclib.h"

#define DCU "data cache unit"
#define IFU "instruction fetch unit"
#define L2 "L2 cache"
#define BUS "external bus logic"
#define FPU "floating-point unit"
#define MEM "memory ordering"
#define IDR "instruction decode and retire unit"
#define INT "interrupts"
#define BR "branches"
#define STL "stalls"
#define SEG "segment register loads"
#define CLK "clocks"
#define MMX "MMX unit"

static const struct pmc_p6_event p6[] = {
	{ 0x03, "ld_blocks", MEM, "store buffer blocks", 0 },
	{ 0x04, "sb_drains", MEM, "store buffer drain cycles", 0 },
	{ 0x05, "misalign_mem_ref", MEM, "misaligned data memory references",
	  0 },
	{ 0x06, "segment_reg_loads", SEG, "segment register loads", 0 },
	{ 0x10, "fp_comp_ops_exe", FPU, "computational operations executed",
	  0 },
	{ 0x11, "fp_assist", FPU, "floating-point exceptions handled by "
				  "microcode", 0 },
	{ 0x12, "mul", FPU, "multiplies", 0 },
	{ 0x13, "div", FPU, "divides", 0 },
	{ 0x14, "cycles_div_busy", FPU, "cycles the divider is busy", 0 },
	{ 0x21, "l2_ads", L2, "address strobes", 0 },
	{ 0x22, "l2_dbus_busy", L2, "data bus busy cycles", 0 },
	{ 0x23, "l2_dbus_busy_rd", L2, "data bus busy transferring to the "
				       "processor", 0 },
	{ 0x24, "l2_lines_in", L2, "lines allocated", 0 },
	{ 0x25, "l2_m_lines_inm", L2, "modified lines allocated", 0 },
	{ 0x26, "l2_lines_out", L2, "lines removed", 0 },
	{ 0x27, "l2_m_lines_outm", L2, "modified lines removed", 0 },
	{ 0x28, "l2_ifetch", L2, "instruction fetches", PMC_UMASK_MESI },
	{ 0x29, "l2_ld", L2, "data loads", PMC_UMASK_MESI },
	{ 0x2a, "l2_st", L2, "data stores", PMC_UMASK_MESI },
	{ 0x2e, "l2_rqsts", L2, "requests", PMC_UMASK_MESI },
	{ 0x43, "data_mem_refs", DCU, "all memory references, loads and "
				      "stores", 0 },
	{ 0x45, "dcu_lines_in", DCU, "lines allocated", 0 },
	{ 0x46, "dcu_m_lines_in", DCU, "modified lines allocated", 0 },
	{ 0x47, "dcu_m_lines_out", DCU, "modified lines evicted", 0 },
	{ 0x48, "dcu_miss_outstanding", DCU, "cycles a miss is outstanding",
	  0 },
	{ 0x60, "bus_req_outstanding", BUS, "outstanding bus requests",
	  0 },
	{ 0x61, "bus_bnr_drv", BUS, "cycles BNR is driven", 0 },
	{ 0x62, "bus_drdy_clocks", BUS, "cycles DRDY is asserted",
	  PMC_UMASK_BUS },
	{ 0x63, "bus_lock_clocks", BUS, "cycles LOCK is asserted",
	  PMC_UMASK_BUS },
	{ 0x64, "bus_data_rcv", BUS, "cycles receiving data", 0 },
	{ 0x65, "bus_tran_brd", BUS, "burst read transactions",
	  PMC_UMASK_BUS },
	{ 0x66, "bus_tran_rfo", BUS, "read for ownership transactions",
	  PMC_UMASK_BUS },
	{ 0x67, "bus_trans_wb", BUS, "write back transactions",
	  PMC_UMASK_BUS },
	{ 0x68, "bus_tran_ifetch", BUS, "instruction fetch transactions",
	  PMC_UMASK_BUS },
	{ 0x69, "bus_tran_inval", BUS, "invalidate transactions",
	  PMC_UMASK_BUS },
	{ 0x6a, "bus_tran_pwr", BUS, "partial write transactions",
	  PMC_UMASK_BUS },
	{ 0x6b, "bus_trans_p", BUS, "partial transactions", PMC_UMASK_BUS },
	{ 0x6c, "bus_trans_io", BUS, "I/O transactions", PMC_UMASK_BUS },
	{ 0x6d, "bus_tran_def", BUS, "deferred transactions",
	  PMC_UMASK_BUS },
	{ 0x6e, "bus_tran_burst", BUS, "burst transactions", PMC_UMASK_BUS },
	{ 0x6f, "bus_tran_mem", BUS, "memory transactions", PMC_UMASK_BUS },
	{ 0x70, "bus_tran_any", BUS, "all transactions", PMC_UMASK_BUS },
	{ 0x79, "cpu_clk_unhalted", CLK, "cycles the processor is not "
					 "halted", 0 },
	{ 0x7a, "bus_hit_drv", BUS, "cycles HIT is driven", 0 },
	{ 0x7b, "bus_hitm_drv", BUS, "cycles HITM is driven", 0 },
	{ 0x7e, "bus_snoop_stall", BUS, "cycles the bus is snoop-stalled",
	  0 },
	{ 0x80, "ifu_ifetch", IFU, "instruction fetches", 0 },
	{ 0x81, "ifu_ifetch_miss", IFU, "instruction fetch misses", 0 },
	{ 0x85, "itlb_miss", IFU, "instruction TLB misses", 0 },
	{ 0x86, "ifu_mem_stall", IFU, "cycles the fetch pipe is stalled",
	  0 },
	{ 0x87, "ild_stall", IFU, "cycles the length decoder is stalled",
	  0 },
	{ 0xa2, "resource_stalls", STL, "resource related stall cycles",
	  0 },
	{ 0xb0, "mmx_instr_exec", MMX, "MMX instructions executed", 0 },
	{ 0xb1, "mmx_sat_instr_exec", MMX, "saturating MMX instructions "
					   "executed", 0 },
	{ 0xb2, "mmx_uops_exec", MMX, "MMX micro-operations executed", 0 },
	{ 0xb3, "mmx_instr_type_exec", MMX, "MMX instructions executed, by "
					    "type", PMC_UMASK_MMX },
	{ 0xc0, "inst_retired", IDR, "instructions retired", 0 },
	{ 0xc1, "flops", FPU, "computational floating-point operations "
			      "retired", 0 },
	{ 0xc2, "uops_retired", IDR, "micro-operations retired", 0 },
	{ 0xc4, "br_inst_retired", BR, "branch instructions retired", 0 },
	{ 0xc5, "br_miss_pred_retired", BR, "mispredicted branches retired",
	  0 },
	{ 0xc6, "cycles_int_masked", INT, "cycles interrupts are disabled",
	  0 },
	{ 0xc7, "cycles_int_pending_and_masked", INT, "cycles interrupts "
						      "are disabled and "
						      "pending", 0 },
	{ 0xc8, "hw_int_rx", INT, "hardware interrupts received", 0 },
	{ 0xc9, "br_taken_retired", BR, "taken branches retired", 0 },
	{ 0xca, "br_miss_pred_taken_ret", BR, "taken mispredicted branches "
					      "retired", 0 },
	{ 0xcc, "fp_mmx_trans", MMX, "transitions between MMX and "
				     "floating-point", 0 },
	{ 0xcd, "mmx_assist", MMX, "MMX assists", 0 },
	{ 0xce, "mmx_instr_ret", MMX, "MMX instructions retired", 0 },
	{ 0xd0, "inst_decoded", IDR, "instructions decoded", 0 },
	{ 0xd2, "partial_rat_stalls", STL, "partial register stall cycles",
	  0 },
	{ 0xd4, "seg_rename_stalls", SEG, "segment rename stalls", 0 },
	{ 0xd5, "seg_reg_renames", SEG, "segment register renames", 0 },
	{ 0xd6, "ret_seg_renames", SEG, "segment renames retired", 0 },
	{ 0xe0, "br_inst_decoded", BR, "branch instructions decoded", 0 },
	{ 0xe2, "btb_misses", BR, "branches that missed the BTB", 0 },
	{ 0xe4, "br_bogus", BR, "bogus branches", 0 },
	{ 0xe6, "baclears", BR, "static branch predictions", 0 },
};

const struct pmc_p6_event *
pmc__p6_event(unsigned int code)
{
	for (size_t i = 0; i < PMC_ARRAY_SIZE(p6); i++)
		if (p6[i].code == code)
			return &p6[i];
	return NULL;
}
