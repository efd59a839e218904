/* SPDX-License-Identifier: MIT */
/*
 * text.h - the one writer of JSON and CSV text, compiled into
 * libpctr (its reports), the pctr command and libpctr-mpi, so that every
 * document the project writes quotes text and numbers the same way; the
 * edit distance behind every "did you mean"; and the one rule of a
 * report's file.  A leaf: it needs the C library, and pctr.h for two of
 * its structs.
 */
#ifndef PCTR_TEXT_H
#define PCTR_TEXT_H

#include <locale.h>
#include <stdbool.h>
#include <stdio.h>

struct pctr_summary;
struct pctr_machine;

/*
 * The length of the well-formed UTF-8 sequence at @s (RFC 3629: no
 * overlong forms, no surrogates, nothing past U+10FFFF), 1 for an ASCII
 * byte, 0 where no character starts.
 */
int pctr__utf8_len(const char *s);

/*
 * @s as a JSON string (RFC 8259), quotes included, valid UTF-8 whatever
 * @s holds: a byte that starts no well-formed sequence (an argument in
 * Latin-1, a name cut mid-character) is written as U+FFFD.
 */
void pctr__json_string(FILE *f, const char *s);

/*
 * @s as one CSV field (RFC 4180): as it is, or in double quotes with its
 * quotes doubled when it holds @sep, a quote, CR or LF.
 */
void pctr__csv_field(FILE *f, const char *sep, const char *s);

/*
 * Numbers in JSON and CSV are written in the C locale whatever locale the
 * program chose: after setlocale(LC_ALL, "") in a German locale printf's
 * radix is ',' and strtod() stops at '.', which would break the documents.
 * pctr__locale_c() switches the calling thread to the C locale (uselocale,
 * no effect on other threads) and returns what pctr__locale_restore()
 * takes back; (locale_t)0, and nothing switched, if there is no memory for
 * the C locale object (made once).
 */
locale_t pctr__locale_c(void);
void pctr__locale_restore(locale_t old);

/*
 * The edit distance of @a and @b (insertions, deletions and substitutions,
 * case ignored), for "did you mean": SIZE_MAX when either is longer than
 * PCTR__TEXT_DISTANCE_MAX characters.
 */
#define PCTR__TEXT_DISTANCE_MAX 128
size_t pctr__text_distance(const char *a, const char *b);

/*
 * The one number form of every document, JSON and CSV alike: the fewest
 * significant digits that strtod() reads back as the same double (at most
 * 17), in the C locale's form; @buf (32 bytes are enough) is returned.
 */
const char *pctr__number(char *buf, size_t len, double v);

/*
 * The JSON writer (json.c): a document is built member by member, the
 * writer placing commas, and in the pretty form newlines and two spaces
 * of indentation per level; the compact form is one line without spaces
 * (JSON Lines, and lines read back by programs).  @key is NULL inside
 * arrays.  Non-finite numbers are written as null.
 */
#define PCTR_JSON_MAX_DEPTH 16

struct pctr_json {
	FILE *f;
	bool compact;
	int depth;
	bool first[PCTR_JSON_MAX_DEPTH];
};

void pctr__json_begin(struct pctr_json *j, FILE *f, bool compact);
/* the newline after the document */
void pctr__json_end(struct pctr_json *j);
void pctr__json_obj(struct pctr_json *j, const char *key);
void pctr__json_obj_end(struct pctr_json *j);
void pctr__json_arr(struct pctr_json *j, const char *key);
void pctr__json_arr_end(struct pctr_json *j);
/* a NULL @s is null */
void pctr__json_str(struct pctr_json *j, const char *key, const char *s);
void pctr__json_int(struct pctr_json *j, const char *key, long long v);
void pctr__json_uint(struct pctr_json *j, const char *key,
		     unsigned long long v);
void pctr__json_num(struct pctr_json *j, const char *key, double v);
void pctr__json_bool(struct pctr_json *j, const char *key, bool v);
void pctr__json_null(struct pctr_json *j, const char *key);
/* -1 -> null, 0 -> false, otherwise true */
void pctr__json_tristate(struct pctr_json *j, const char *key, int v);

/*
 * The members of the statistics object (doc/json-schema.md) that every
 * document shares, in its order: n, min, mean, max, stddev, stderr, ci95,
 * each figure multiplied by @scale (1, or a unit's change); the writer
 * adds what its document has besides (median, percentiles).
 */
void pctr__json_summary(struct pctr_json *j, const struct pctr_summary *s,
			double scale);
/* the machine object of pctr_machine_get() */
void pctr__json_machine(struct pctr_json *j, const char *key,
			const struct pctr_machine *m);

/*
 * A report's file (report_file.c), by one rule for libpctr's region
 * report and libpctr-mpi's job report: never through a symbolic link (a
 * link planted where the report goes must not redirect it onto a file of
 * the writer's), and a regular file only (a FIFO would hold the exit
 * until a reader comes, a device is no place for a report).
 *
 * pctr__report_file_check(): what lstat() says of @path, before anything
 * is opened (an open can rewind a tape): 0 for a regular file or none
 * yet; else -ELOOP (a link), -EISDIR (a directory) or -EINVAL (another
 * kind), with the sentence "cannot write the report to 'PATH': it is a
 * FIFO; reports are written to regular files only, never through a
 * symbolic link" in @why (@len bytes; PCTR__REPORT_WHY_MAX hold it).
 *
 * pctr__report_file_open(): the check, then the open, which refuses a
 * link put there since (O_NOFOLLOW), does not wait on a FIFO
 * (O_NONBLOCK) nor take a terminal (O_NOCTTY), and fstat() of what was
 * opened.  Created 0666 less the umask, as fopen() would; truncated only
 * once known to be a regular file.  0 and *@fp, or a negative errno and
 * why in @why ("cannot write the report to 'PATH': " and strerror()'s
 * text where the system refused).
 */
#define PCTR__REPORT_WHY_MAX 4400 /* a path of PATH_MAX, and the sentence */
int pctr__report_file_check(const char *path, char *why, size_t len);
int pctr__report_file_open(const char *path, FILE **fp, char *why,
			   size_t len);

#endif
