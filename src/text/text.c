/* SPDX-License-Identifier: MIT */
/*
 * text.c - JSON strings and CSV fields, and the edit distance of names
 * (text.h).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#include "text.h"

static locale_t c_locale;
static pthread_once_t c_once = PTHREAD_ONCE_INIT;

static void
make_c_locale(void)
{
	c_locale = newlocale(LC_ALL_MASK, "C", (locale_t)0);
}

locale_t
pctr__locale_c(void)
{
	pthread_once(&c_once, make_c_locale);
	return c_locale ? uselocale(c_locale) : (locale_t)0;
}

void
pctr__locale_restore(locale_t old)
{
	if (old)
		uselocale(old);
}

int
pctr__utf8_len(const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	int n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : s[0] >= 0xc2 ? 2 : 0;
	unsigned char lo = 0x80, hi = 0xbf;

	if (s[0] < 0x80)
		return 1;
	if (n == 0 || s[0] > 0xf4)
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0; /* overlong */
	else if (s[0] == 0xed)
		hi = 0x9f; /* surrogates */
	else if (s[0] == 0xf0)
		lo = 0x90; /* overlong */
	else if (s[0] == 0xf4)
		hi = 0x8f; /* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return n;
}

void
pctr__json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		int n = pctr__utf8_len(s);

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else if (n == 0)
			fputs("\\ufffd", f);
		else {
			fwrite(s, 1, (size_t)n, f);
			s += n - 1;
		}
	}
	fputc('"', f);
}

void
pctr__csv_field(FILE *f, const char *sep, const char *s)
{
	if (!strstr(s, sep) && !strpbrk(s, "\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

size_t
pctr__text_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	size_t row[PCTR__TEXT_DISTANCE_MAX + 1];

	if (la > PCTR__TEXT_DISTANCE_MAX || lb > PCTR__TEXT_DISTANCE_MAX)
		return SIZE_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];

		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j], best = diag;

			best += tolower((unsigned char)a[i - 1]) !=
				tolower((unsigned char)b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}
