/*
 * hw_asm.S - the measured loop, in assembly so that its instruction count
 * does not depend on the compiler: 2 instructions per iteration (subs,
 * b.ne) plus a constant (cbz, ret) that the tests fold into their C.
 *
 * void hw_loop(uint64_t n);   n == 0 runs no iteration
 */
	.text
	.globl	hw_loop
	.type	hw_loop, %function
	.p2align 4
hw_loop:
	cbz	x0, 2f
1:	subs	x0, x0, #1
	b.ne	1b
2:	ret
	.size	hw_loop, .-hw_loop

	.section .note.GNU-stack, "", %progbits
