/*
 * hw_loop.S - a freestanding program: "hw_loop N" runs N iterations of a
 * 2-instruction loop and exits.  No C library, no dynamic loader: the first
 * user instruction after exec is _start, so a count that starts at exec
 * has an exact expected value (test_hw_targets.c spells it out):
 *
 *   3                 setup (ldr, mov, mov)
 *   5 per digit of N  the decimal parse (ldrb, cbz, sub, madd, b)
 *   2                 the terminating NUL (ldrb, cbz)
 *   1                 cbz N
 *   2 * N             the loop (subs, b.ne)
 *   3                 exit (mov, mov, svc)
 */
	.text
	.globl	_start
	.type	_start, %function
_start:
	ldr	x1, [sp, #16]		/* argv[1] */
	mov	x0, #0
	mov	x3, #10
1:	ldrb	w2, [x1], #1
	cbz	w2, 2f
	sub	x2, x2, #'0'
	madd	x0, x0, x3, x2
	b	1b
2:	cbz	x0, 4f
3:	subs	x0, x0, #1
	b.ne	3b
4:	mov	x0, #0
	mov	x8, #93			/* exit */
	svc	#0
	.size	_start, .-_start

	.section .note.GNU-stack, "", %progbits
