/*
 * hw_asm_x86_64.S - the measured loop for the x86-64 guest, in assembly so
 * that its instruction count does not depend on the compiler:
 * 2 instructions per iteration (dec, jnz) plus a constant (test, jz, ret)
 * that the tests fold into their C.
 *
 * void hw_loop(uint64_t n);   n == 0 runs no iteration
 */
	.text
	.globl	hw_loop
	.type	hw_loop, @function
	.p2align 4
hw_loop:
	test	%rdi, %rdi
	jz	2f
1:	dec	%rdi
	jnz	1b
2:	ret
	.size	hw_loop, .-hw_loop

	.section .note.GNU-stack, "", @progbits
