/* SPDX-License-Identifier: MIT */
/*
 * fuzz.h - what the libFuzzer targets share: turning the input into a
 * NUL-terminated string, and pointing the library at a fixture tree.
 */
#ifndef PCTR_FUZZ_H
#define PCTR_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

/* A NUL-terminated copy of the input, at most @max bytes; free() it. */
static inline char *
fuzz_string(const uint8_t *data, size_t size, size_t max)
{
	char *s;

	if (size > max)
		size = max;
	s = malloc(size + 1);
	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * $PCTR_SYSFS_ROOT: $PCTR_FUZZ_FIXTURE if set (run.sh sets it), else the
 * x86 fixture next to this file's tests.
 */
static inline void
fuzz_use_fixture(const char *name)
{
	const char *dir = getenv("PCTR_FUZZ_FIXTURES");
	char path[4096];

	if (getenv("PCTR_SYSFS_ROOT"))
		return;
	snprintf(path, sizeof(path), "%s/%s",
		 dir ? dir : "tests/unit/fixtures", name);
	setenv("PCTR_SYSFS_ROOT", path, 1);
}

#endif
