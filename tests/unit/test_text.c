/* SPDX-License-Identifier: MIT */
/*
 * test_text - the one JSON string and CSV field writer (src/text/text.h)
 * that the library's reports, the pctr command and libpctr-mpi share:
 * escapes, and valid UTF-8 whatever the input bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <math.h>

#include <pctr.h>

#include "test.h"
#include "text.h"

static char out[512];

static const char *
json(const char *s)
{
	FILE *f = fmemopen(out, sizeof(out), "w");

	ASSERT(f);
	pctr__json_string(f, s);
	fclose(f);
	return out;
}

static const char *
csv(const char *sep, const char *s)
{
	FILE *f = fmemopen(out, sizeof(out), "w");

	ASSERT(f);
	pctr__csv_field(f, sep, s);
	fclose(f);
	return out;
}

TEST(utf8_lengths)
{
	ASSERT_EQ(pctr__utf8_len("a"), 1);
	ASSERT_EQ(pctr__utf8_len("\xc3\xa9"), 2);	   /* e acute */
	ASSERT_EQ(pctr__utf8_len("\xe2\x82\xac"), 3);	   /* euro sign */
	ASSERT_EQ(pctr__utf8_len("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
	ASSERT_EQ(pctr__utf8_len("\xf4\x8f\xbf\xbf"), 4); /* U+10FFFF */
	ASSERT_EQ(pctr__utf8_len("\xe9"), 0);		   /* Latin-1 */
	ASSERT_EQ(pctr__utf8_len("\x80"), 0);		   /* continuation */
	ASSERT_EQ(pctr__utf8_len("\xc0\xaf"), 0);	   /* overlong '/' */
	ASSERT_EQ(pctr__utf8_len("\xe0\x80\xaf"), 0);	   /* overlong */
	ASSERT_EQ(pctr__utf8_len("\xf0\x80\x80\xaf"), 0); /* overlong */
	ASSERT_EQ(pctr__utf8_len("\xed\xa0\x80"), 0);	   /* surrogate */
	ASSERT_EQ(pctr__utf8_len("\xf4\x90\x80\x80"), 0); /* past U+10FFFF */
	ASSERT_EQ(pctr__utf8_len("\xf5\x80\x80\x80"), 0);
	ASSERT_EQ(pctr__utf8_len("\xe2\x82"), 0);	   /* cut short */
	ASSERT_EQ(pctr__utf8_len("\xe2\x82x"), 0);
}

TEST(json_escapes)
{
	ASSERT_STR_EQ(json(""), "\"\"");
	ASSERT_STR_EQ(json("task-clock:u"), "\"task-clock:u\"");
	ASSERT_STR_EQ(json("a\"b\\c"), "\"a\\\"b\\\\c\"");
	ASSERT_STR_EQ(json("l1\nl2\tx\r\x01\x1f"),
		      "\"l1\\nl2\\tx\\u000d\\u0001\\u001f\"");
	/* DEL and '/' need no escape */
	ASSERT_STR_EQ(json("a/\x7f"), "\"a/\x7f\"");
}

/* every byte that starts no character is one U+FFFD; characters stay */
TEST(json_always_valid_utf8)
{
	ASSERT_STR_EQ(json("caf\xc3\xa9 \xe2\x82\xac"),
		      "\"caf\xc3\xa9 \xe2\x82\xac\"");
	ASSERT_STR_EQ(json("caf\xe9"), "\"caf\\ufffd\"");
	ASSERT_STR_EQ(json("\xe2\x82"), "\"\\ufffd\\ufffd\"");
	ASSERT_STR_EQ(json("a\xed\xa0\x80" "b"),
		      "\"a\\ufffd\\ufffd\\ufffdb\"");
	ASSERT_STR_EQ(json("\xf0\x9f\x98\x80!"), "\"\xf0\x9f\x98\x80!\"");
}

TEST(csv_quotes_only_when_needed)
{
	ASSERT_STR_EQ(csv(",", "page-faults"), "page-faults");
	ASSERT_STR_EQ(csv(",", "cpu/event=0xc0,umask=1/"),
		      "\"cpu/event=0xc0,umask=1/\"");
	ASSERT_STR_EQ(csv(",", "say \"hi\""), "\"say \"\"hi\"\"\"");
	ASSERT_STR_EQ(csv(",", "two\nlines"), "\"two\nlines\"");
	ASSERT_STR_EQ(csv(",", "cr\r"), "\"cr\r\"");
	/* another separator: its own occurrences quote, commas do not */
	ASSERT_STR_EQ(csv(";", "a,b"), "a,b");
	ASSERT_STR_EQ(csv(";", "a;b"), "\"a;b\"");
	ASSERT_STR_EQ(csv("::", "a:b"), "a:b");
	ASSERT_STR_EQ(csv("::", "a::b"), "\"a::b\"");
}

/* the shortest form that reads back as the same double, in any locale */
TEST(numbers_shortest)
{
	static const struct {
		double v;
		const char *want;
	} row[] = {
		{ 84962.8, "84962.8" },
		{ 0.1, "0.1" },
		{ 0.1 + 0.2, "0.30000000000000004" },
		{ 1.0 / 3.0, "0.3333333333333333" },
		{ 123456789012.0, "123456789012" },
		{ -2.5e-7, "-2.5e-07" },
		{ 0.0, "0" },
	};
	char b[32];

	for (size_t i = 0; i < sizeof(row) / sizeof(row[0]); i++) {
		ASSERT_STR_EQ(pctr__number(b, sizeof(b), row[i].v),
			      row[i].want);
		ASSERT(strtod(b, NULL) == row[i].v);
	}
}

static const char *
emit(bool compact)
{
	FILE *f = fmemopen(out, sizeof(out), "w");
	struct pctr_summary s = { .size = sizeof(s), .n = 1, .min = 2.5,
				  .mean = 2.5, .max = 2.5, .std_error = NAN,
				  .ci95_low = NAN, .ci95_high = NAN };
	struct pctr_json j;

	ASSERT(f);
	pctr__json_begin(&j, f, compact);
	pctr__json_obj(&j, NULL);
	pctr__json_str(&j, "s", "x");
	pctr__json_arr(&j, "a");
	pctr__json_uint(&j, NULL, 18446744073709551615ull);
	pctr__json_num(&j, NULL, NAN);
	pctr__json_tristate(&j, NULL, -1);
	pctr__json_arr_end(&j);
	pctr__json_arr(&j, "empty");
	pctr__json_arr_end(&j);
	pctr__json_obj(&j, "stats");
	pctr__json_summary(&j, &s, 2.0);
	pctr__json_obj_end(&j);
	pctr__json_obj_end(&j);
	pctr__json_end(&j);
	fclose(f);
	return out;
}

/* one writer: commas, nesting, null for what has no value, both forms */
TEST(json_writer)
{
	ASSERT_STR_EQ(emit(true),
		      "{\"s\":\"x\",\"a\":[18446744073709551615,null,null],"
		      "\"empty\":[],\"stats\":{\"n\":1,\"min\":5,\"mean\":5,"
		      "\"max\":5,\"stddev\":null,\"stderr\":null,"
		      "\"ci95\":null}}\n");
	ASSERT_STR_EQ(emit(false),
		      "{\n  \"s\": \"x\",\n  \"a\": [\n    "
		      "18446744073709551615,\n    null,\n    null\n  ],\n"
		      "  \"empty\": [],\n  \"stats\": {\n    \"n\": 1,\n"
		      "    \"min\": 5,\n    \"mean\": 5,\n    \"max\": 5,\n"
		      "    \"stddev\": null,\n    \"stderr\": null,\n"
		      "    \"ci95\": null\n  }\n}\n");
}

int
main(void)
{
	return test_main(TESTS(TEST_CASE(utf8_lengths)
			       TEST_CASE(json_escapes)
			       TEST_CASE(json_always_valid_utf8)
			       TEST_CASE(csv_quotes_only_when_needed)
			       TEST_CASE(numbers_shortest)
			       TEST_CASE(json_writer)));
}
