/* SPDX-License-Identifier: MIT */
/*
 * hw_chain.c - the program test_hw_tool profiles: main() calls outer(),
 * outer() calls inner(), inner() runs hw_loop(N) (hw_asm.S: 2N user
 * instructions, no frame of its own).  Built with frame pointers, so a
 * sample in the loop unwinds (-g) to outer() and main(): the loop's own
 * return address into inner() is in a register, which frame pointers do
 * not see.
 *
 * usage: hw_chain N [fork]
 * With "fork" the loop runs in a child that first renames itself
 * "hw_child" (PR_SET_NAME); the parent waits for it and exits with its
 * status.
 */
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

void hw_loop(uint64_t n);

/* the empty asm after each call keeps it a call, not a jump */
__attribute__((noinline)) void
inner(uint64_t n)
{
	hw_loop(n);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void
outer(uint64_t n)
{
	inner(n);
	__asm__ volatile("" ::: "memory");
}

int
main(int argc, char **argv)
{
	uint64_t n;
	pid_t pid;
	int status;

	if (argc < 2)
		return 2;
	n = strtoull(argv[1], NULL, 10);
	if (argc < 3) {
		outer(n);
		return 0;
	}
	pid = fork();
	if (pid < 0)
		return 2;
	if (pid == 0) {
		prctl(PR_SET_NAME, "hw_child");
		outer(n);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return 2;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
