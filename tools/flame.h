/* SPDX-License-Identifier: MIT */
/* flame.h - flame graphs from folded stacks (flame.c) */
#ifndef PCTR_TOOL_FLAME_H
#define PCTR_TOOL_FLAME_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* one distinct stack, "root;...;leaf", and its samples */
struct flame_stack {
	char *text;
	uint64_t n;
};

/*
 * @name (a process's, a function's) as one frame of a folded stack, into
 * @buf of @len bytes: ';' (between frames) and ' ' (before the count) as
 * '_', a control character (a newline ends the line) as '?', as the graph
 * shows it.  Return: the length written.
 */
size_t flame_frame(char *buf, size_t len, const char *name);

/* the stacks as an SVG flame graph titled @title; 0 or -ENOMEM */
int flame_svg(FILE *f, const struct flame_stack *st, size_t n,
	      const char *title);

#endif
