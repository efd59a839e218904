/* SPDX-License-Identifier: MIT */
/*
 * pctr_fortran.c - what module pctr (pctr.f90) needs in C: region names
 * as Fortran passes them, and an event's name.
 *
 * pctr_region_begin() finds a name by its address first, then by its
 * text under a lock.  A Fortran string has no NUL, and a copy with one
 * has a new address at every call: every begin and end would take the
 * lock.  So each thread keeps the ids of the names it used, found by
 * their text (a small hash table, one name a slot; a name that loses its
 * slot is looked up again), and enters regions by id, as
 * pctr_region_begin_id() does in hot C code.  Region ids never change in
 * a process (pctr_region_id()).
 */
#include <errno.h>
#include <stdbool.h>
#include <pctr.h>
#include <stdlib.h>
#include <string.h>

#define SLOTS 64

struct slot {
	size_t len; /* 0: empty */
	int id;
	char name[PCTR_NAME_MAX];
};

static __thread struct slot cache[SLOTS];

static unsigned int
hash(const char *s, size_t len)
{
	unsigned int h = 2166136261u; /* FNV-1a */

	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h % SLOTS;
}

/* the id of region @s (@len bytes, no NUL), or a negative errno */
static int
region_id(const char *s, size_t len)
{
	struct slot *sl = NULL;
	char *copy;
	int id;
	bool cached = len > 0 && len < PCTR_NAME_MAX;

	if (cached) {
		sl = &cache[hash(s, len)];
		if (sl->len == len && !memcmp(sl->name, s, len))
			return sl->id;
	}
	if (memchr(s, '\0', len))
		return -EINVAL; /* C would see a shorter name */
	copy = malloc(len + 1);
	if (!copy)
		return -ENOMEM;
	memcpy(copy, s, len);
	copy[len] = '\0';
	id = pctr_region_id(copy); /* too long, empty: its error */
	free(copy);
	if (id >= 0 && cached) {
		sl->len = len;
		sl->id = id;
		memcpy(sl->name, s, len);
	}
	return id;
}

int
pctr_fortran__region_begin(const char *s, size_t len)
{
	int id = region_id(s, len);

	return id < 0 ? id : pctr_region_begin_id(id);
}

int
pctr_fortran__region_end(const char *s, size_t len)
{
	int id = region_id(s, len);

	return id < 0 ? id : pctr_region_end_id(id);
}

const char *
pctr_fortran__event_name(const struct pctr_set *set, int idx)
{
	const struct pctr_event *ev = pctr_set_event(set, idx);

	return ev ? ev->name : NULL;
}
