/* SPDX-License-Identifier: MIT */
/*
 * text.h - the one writer of JSON strings and CSV fields, compiled into
 * libpctr (its reports), the pctr command and libpctr-mpi, so that every
 * document the project writes quotes text the same way; and the edit
 * distance behind every "did you mean".  A leaf: it needs only the C
 * library.
 */
#ifndef PCTR_TEXT_H
#define PCTR_TEXT_H

#include <locale.h>
#include <stdio.h>

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

#endif
