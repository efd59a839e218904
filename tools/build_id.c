/* SPDX-License-Identifier: MIT */
/*
 * build_id.c - build-ids from ELF notes (build_id.h).
 *
 * A note is { u32 namesz, descsz, type; name, padded to 4; desc, padded
 * to 4 }; the build-id is the note of type NT_GNU_BUILD_ID (3) named
 * "GNU".  /sys/kernel/notes holds the kernel's notes as they are; an ELF
 * file holds them in its PT_NOTE segments (read from the program headers
 * of the ELF header's class and byte order; only native files here, which
 * are what a profile of this machine maps).
 */
#include <elf.h>
#include <link.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build_id.h"

#define NOTES_MAX (1 << 16)

static size_t
find_in_notes(const unsigned char *p, size_t len, unsigned char *id)
{
	size_t at = 0;

	while (len - at >= 12) {
		uint32_t h[3], name, desc;

		memcpy(h, p + at, sizeof(h));
		name = (h[0] + 3) & ~3u;
		desc = (h[1] + 3) & ~3u;
		if (name > len - at - 12 || desc > len - at - 12 - name)
			return 0;
		if (h[2] == NT_GNU_BUILD_ID && h[0] == 4 &&
		    !memcmp(p + at + 12, "GNU", 4) && h[1] <= BUILD_ID_MAX) {
			memcpy(id, p + at + 12 + name, h[1]);
			return h[1];
		}
		at += 12 + name + desc;
	}
	return 0;
}

/* @len bytes at @off of @fd into a buffer of the caller's to free */
static unsigned char *
read_at(int fd, uint64_t off, size_t len)
{
	unsigned char *b = len ? malloc(len) : NULL;

	if (b && pread(fd, b, len, (off_t)off) != (ssize_t)len) {
		free(b);
		return NULL;
	}
	return b;
}

static size_t
elf_build_id(int fd, unsigned char *id)
{
	ElfW(Ehdr) e;
	ElfW(Phdr) *ph;
	size_t n = 0;

	if (pread(fd, &e, sizeof(e), 0) != (ssize_t)sizeof(e) ||
	    memcmp(e.e_ident, ELFMAG, SELFMAG) ||
	    e.e_ident[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64
							 : ELFCLASS32) ||
	    e.e_phentsize != sizeof(*ph) || e.e_phnum == 0)
		return 0;
	ph = (ElfW(Phdr) *)read_at(fd, e.e_phoff,
				   (size_t)e.e_phnum * sizeof(*ph));
	for (int i = 0; ph && !n && i < e.e_phnum; i++) {
		unsigned char *notes;

		if (ph[i].p_type != PT_NOTE || ph[i].p_filesz > NOTES_MAX)
			continue;
		notes = read_at(fd, ph[i].p_offset, ph[i].p_filesz);
		if (notes)
			n = find_in_notes(notes, ph[i].p_filesz, id);
		free(notes);
	}
	free(ph);
	return n;
}

size_t
build_id_read(const char *path, unsigned char id[BUILD_ID_MAX])
{
	int fd = open(path ? path : "/sys/kernel/notes", O_RDONLY | O_CLOEXEC);
	unsigned char notes[4096];
	ssize_t len;
	size_t n = 0;

	if (fd < 0)
		return 0;
	if (path) {
		n = elf_build_id(fd, id);
	} else {
		len = read(fd, notes, sizeof(notes));
		n = len > 0 ? find_in_notes(notes, (size_t)len, id) : 0;
	}
	close(fd);
	return n;
}
