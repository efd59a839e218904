/*
 * hw_loop_x86_64.S - a freestanding program: "hw_loop N" runs N iterations
 * of a 2-instruction loop and exits.  No C library, no dynamic loader: the
 * first user instruction after exec is _start, so a count that starts at
 * exec has an exact expected value (test_hw_targets.c spells it out):
 *
 *   2                 setup (mov, xor)
 *   7 per digit of N  the decimal parse (movzbl, test, jz, imul, lea,
 *                     inc, jmp)
 *   3                 the terminating NUL (movzbl, test, jz)
 *   2                 test N, jz
 *   2 * N             the loop (dec, jnz)
 *   3                 exit (xor, mov, syscall)
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	mov	16(%rsp), %rsi		/* argv[1] */
	xor	%eax, %eax
1:	movzbl	(%rsi), %ecx
	test	%ecx, %ecx
	jz	2f
	imul	$10, %rax, %rax
	lea	-'0'(%rax,%rcx), %rax
	inc	%rsi
	jmp	1b
2:	test	%rax, %rax
	jz	4f
3:	dec	%rax
	jnz	3b
4:	xor	%edi, %edi
	mov	$60, %eax		/* exit */
	syscall
	.size	_start, .-_start

	.section .note.GNU-stack, "", @progbits
