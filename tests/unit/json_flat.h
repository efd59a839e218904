/* SPDX-License-Identifier: MIT */
/*
 * json_flat.h - a strict little JSON reader for tests: it checks the text
 * is one well-formed JSON value and flattens it into lines "path value",
 * e.g. "regions[0].events[1].total 368", so that a test can look members
 * up by their full path.  Strings are stored without quotes or escapes.
 */
#ifndef PCTR_JSON_FLAT_H
#define PCTR_JSON_FLAT_H

#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct jflat {
	const char *p;
	char *out;
	size_t len, used;
	bool ok;
};

static void
jf_emit(struct jflat *j, const char *path, const char *v, size_t n)
{
	int w = snprintf(j->out + j->used, j->len - j->used, "%s %.*s\n",
			 path, (int)n, v);

	if (w < 0 || (size_t)w >= j->len - j->used)
		j->ok = false;
	else
		j->used += w;
}

static void
jf_ws(struct jflat *j)
{
	while (isspace((unsigned char)*j->p))
		j->p++;
}

static bool jf_value(struct jflat *j, const char *path);

/* a string into buf (escapes other than \" \\ \uXXXX refused) */
static bool
jf_string(struct jflat *j, char *buf, size_t len)
{
	size_t n = 0;

	if (*j->p++ != '"')
		return false;
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if ((unsigned char)c < 0x20)
			return false;
		if (c == '\\') {
			c = *j->p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (!isxdigit((unsigned char)*j->p++))
						return false;
				c = '?';
			} else if (c != '"' && c != '\\' && c != '/') {
				return false;
			}
		}
		if (n + 1 < len)
			buf[n++] = c;
	}
	buf[n] = '\0';
	return *j->p++ == '"';
}

static bool
jf_number(struct jflat *j, const char *path)
{
	const char *s = j->p;

	if (*j->p == '-')
		j->p++;
	if (!isdigit((unsigned char)*j->p))
		return false;
	while (isdigit((unsigned char)*j->p))
		j->p++;
	if (*j->p == '.') {
		j->p++;
		if (!isdigit((unsigned char)*j->p))
			return false;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (*j->p == 'e' || *j->p == 'E') {
		j->p++;
		if (*j->p == '+' || *j->p == '-')
			j->p++;
		if (!isdigit((unsigned char)*j->p))
			return false;
		while (isdigit((unsigned char)*j->p))
			j->p++;
	}
	jf_emit(j, path, s, j->p - s);
	return true;
}

static bool
jf_object(struct jflat *j, const char *path)
{
	char key[256], sub[1024];

	j->p++;
	jf_ws(j);
	if (*j->p == '}')
		return j->p++, true;
	for (;;) {
		jf_ws(j);
		if (!jf_string(j, key, sizeof(key)))
			return false;
		jf_ws(j);
		if (*j->p++ != ':')
			return false;
		snprintf(sub, sizeof(sub), "%s%s%s", path, *path ? "." : "",
			 key);
		if (!jf_value(j, sub))
			return false;
		jf_ws(j);
		if (*j->p == '}')
			return j->p++, true;
		if (*j->p++ != ',')
			return false;
	}
}

static bool
jf_array(struct jflat *j, const char *path)
{
	char sub[1024];
	int i = 0;

	j->p++;
	jf_ws(j);
	if (*j->p == ']')
		return j->p++, true;
	for (;; i++) {
		snprintf(sub, sizeof(sub), "%s[%d]", path, i);
		if (!jf_value(j, sub))
			return false;
		jf_ws(j);
		if (*j->p == ']')
			return j->p++, true;
		if (*j->p++ != ',')
			return false;
	}
}

static bool
jf_value(struct jflat *j, const char *path)
{
	char s[512];

	jf_ws(j);
	if (*j->p == '{')
		return jf_object(j, path);
	if (*j->p == '[')
		return jf_array(j, path);
	if (*j->p == '"') {
		if (!jf_string(j, s, sizeof(s)))
			return false;
		jf_emit(j, path, s, strlen(s));
		return true;
	}
	for (const char *lit = "true\0false\0null\0"; *lit;
	     lit += strlen(lit) + 1) {
		if (!strncmp(j->p, lit, strlen(lit))) {
			jf_emit(j, path, lit, strlen(lit));
			j->p += strlen(lit);
			return true;
		}
	}
	return jf_number(j, path);
}

/* 0 and out filled with "path value" lines, -1 if @text is not JSON */
static inline int
json_flatten(const char *text, char *out, size_t len)
{
	struct jflat j = { text, out, len, 0, true };

	out[0] = '\0';
	if (!jf_value(&j, ""))
		return -1;
	jf_ws(&j);
	return *j.p == '\0' && j.ok ? 0 : -1;
}

/* the value at @path in flattened text, copied into buf; NULL if absent */
static inline const char *
json_get(const char *flat, const char *path, char *buf, size_t len)
{
	size_t n = strlen(path);

	for (const char *l = flat; *l; l = strchr(l, '\n') + 1) {
		if (!strncmp(l, path, n) && l[n] == ' ') {
			const char *v = l + n + 1, *e = strchr(v, '\n');

			snprintf(buf, len, "%.*s", (int)(e - v), v);
			return buf;
		}
	}
	return NULL;
}

#endif
