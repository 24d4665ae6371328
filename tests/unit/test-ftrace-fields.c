// SPDX-License-Identifier: GPL-2.0-only
/*
 * The getters of an event's printed text (parsers/ftrace-fields.c) over one payload, as the
 * ftrace text and perf script readers set them up: plain numbers and timestamps, fields by
 * name, symbolic values, and many() of trace-cmd's sched_switch line against the single
 * getters.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/lib.h"
#include "../../parsers/format.h"
#include "../../parsers/ftrace-fields.h"
#include "../../parsers/parsers.h"

static int u64_of(int (*fn)(const char *, size_t, uint64_t *), const char *s, uint64_t *v)
{
	return fn(s, strlen(s), v);
}

static void test_numbers(void **state)
{
	uint64_t v = 7;
	int i = 7;

	assert_int_equal(u64_of(dec_u64, "0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(u64_of(dec_u64, "1234567890123456789", &v), 0);	/* 19 digits */
	assert_int_equal(v, 1234567890123456789ULL);
	/* not plain digits: left to parse_u64() (empty, signs, blanks, 20 digits) */
	v = 7;
	assert_int_equal(u64_of(dec_u64, "", &v), -1);
	assert_int_equal(u64_of(dec_u64, "-1", &v), -1);
	assert_int_equal(u64_of(dec_u64, "+1", &v), -1);
	assert_int_equal(u64_of(dec_u64, " 1", &v), -1);
	assert_int_equal(u64_of(dec_u64, "1a", &v), -1);
	assert_int_equal(u64_of(dec_u64, "18446744073709551615", &v), -1);
	assert_int_equal(v, 7);

	assert_int_equal(u64_of(hex_u64, "ffffffff8000b29a", &v), 0);
	assert_int_equal(v, 0xffffffff8000b29aULL);
	assert_int_equal(u64_of(hex_u64, "0xFF60000000998aa8", &v), 0);
	assert_int_equal(v, 0xff60000000998aa8ULL);
	assert_int_equal(u64_of(hex_u64, "0x0", &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(u64_of(hex_u64, "", &v), -1);
	assert_int_equal(u64_of(hex_u64, "0x", &v), -1);
	assert_int_equal(u64_of(hex_u64, "0X1f", &v), -1);
	assert_int_equal(u64_of(hex_u64, "-1", &v), -1);
	assert_int_equal(u64_of(hex_u64, "1ffffffffffffffff", &v), -1);	/* 17 digits */
	assert_int_equal(u64_of(hex_u64, "0x1g", &v), -1);

	/* span_u64() and span_int() take the fast path or parse_*(), alike at the edges */
	assert_int_equal(span_u64("18446744073709551615", 20, 10, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(span_u64("18446744073709551616", 20, 10, &v), -1);	/* overflow */
	assert_int_equal(span_u64("-1", 2, 10, &v), -1);
	assert_int_equal(span_u64("", 0, 10, &v), -1);
	assert_int_equal(span_u64("0X1f", 4, 16, &v), 0);			/* strtoull's */
	assert_int_equal(v, 0x1f);
	assert_int_equal(span_u64("1f", 2, 16, &v), 0);
	assert_int_equal(v, 0x1f);
	assert_int_equal(span_u64("0x1f", 4, 16, &v), 0);
	assert_int_equal(v, 0x1f);
	assert_int_equal(span_u64("1f", 2, 10, &v), -1);
	assert_int_equal(span_int("2147483647", 10, &i), 0);
	assert_int_equal(i, 2147483647);
	assert_int_equal(span_int("2147483648", 10, &i), -1);
	assert_int_equal(span_int("999999999", 9, &i), 0);
	assert_int_equal(i, 999999999);
	assert_int_equal(span_int("-12", 3, &i), 0);
	assert_int_equal(i, -12);
	assert_int_equal(span_int("", 0, &i), -1);

	assert_int_equal(ftext_parse_ts("72.463764", 9, &v), 0);
	assert_int_equal(v, 72463764000ULL);
	assert_int_equal(ftext_parse_ts("72.463764123", 12, &v), 0);
	assert_int_equal(v, 72463764123ULL);
	assert_int_equal(ftext_parse_ts("18446744073.709551615", 21, &v), 0);
	assert_int_equal(v, UINT64_MAX);
	assert_int_equal(ftext_parse_ts("18446744073.709551616", 21, &v), -1);
	assert_int_equal(ftext_parse_ts("000000000000000000000072.5", 26, &v), 0);
	assert_int_equal(v, 72500000000ULL);
	assert_int_equal(ftext_parse_ts("72.4637641234", 13, &v), -1);	/* 10 digits */
	assert_int_equal(ftext_parse_ts("72.", 3, &v), -1);
	assert_int_equal(ftext_parse_ts(".5", 2, &v), -1);
	assert_int_equal(ftext_parse_ts("72", 2, &v), -1);
	assert_int_equal(ftext_parse_ts("7-2.5", 5, &v), -1);
	assert_int_equal(ftext_parse_ts("72.5.1", 6, &v), -1);
	assert_int_equal(ftext_parse_ts("", 0, &v), -1);
}

/* The getters over one payload, as handle_line() sets them up. */
static void fields_of(struct text_fields *tf, const char *event, const char *payload)
{
	memset(tf, 0, sizeof(*tf));
	tf->event = event;
	tf->payload = payload;
}

static void expect_str(const char *payload, const char *field, const char *want)
{
	struct text_fields tf;
	char buf[VAL_LEN];

	fields_of(&tf, "x", payload);
	if (!want) {
		assert_int_equal(ftext_str(&tf, field, buf, sizeof(buf)), -1);
		return;
	}
	assert_int_equal(ftext_str(&tf, field, buf, sizeof(buf)), 0);
	assert_string_equal(buf, want);
}

static void test_fields(void **state)
{
	static const char sw[] = "prev_comm=my task prev_pid=12 prev_prio=120 prev_state=R+ ==> "
				 "next_comm=b ==> c next_pid=-1 next_prio=120";
	char many[TF_TOKENS * 4 + 64] = "";
	struct text_fields tf;
	int64_t v;

	expect_str(sw, "prev_comm", "my task");
	expect_str(sw, "prev_state", "R+");
	expect_str(sw, "next_comm", "b");			/* ends at " ==> " */
	expect_str(sw, "next_prio", "120");
	expect_str(sw, "prio", NULL);				/* not at a token start */
	expect_str("a=1 b:2 c=x b:3 a:4", "b", "2 c=x");	/* ':' keys end ':' values */
	expect_str("a=1 b:2 c=x b:3 a:4", "a", "1 b:2");
	expect_str("pages:-1 reason:flush on task switch (0)", "reason",
		   "flush on task switch (0)");
	expect_str("func=f,  csd=0x1", "func", "f");		/* trailing ',' and blanks */
	expect_str("x= y=2", "x", "");
	expect_str("key=v ", "key", "v");
	expect_str("key=", "key", "");
	expect_str("Key=1 key=2", "Key", "1");			/* not a key's shape: scanned */
	expect_str("a=1 a=2", "a", "1");			/* the first one */

	fields_of(&tf, "sched_switch", sw);
	assert_int_equal(ftext_num(&tf, "prev_pid", &v), 0);
	assert_int_equal(v, 12);
	assert_int_equal(ftext_num(&tf, "next_pid", &v), 0);
	assert_int_equal(v, -1);
	fields_of(&tf, "x", "n=-9223372036854775808 m=9223372036854775808 h=0x10 csd=10 s=a (7)");
	assert_int_equal(ftext_num(&tf, "n", &v), 0);
	assert_true(v == INT64_MIN);
	assert_int_equal(ftext_num(&tf, "m", &v), -1);		/* overflows an s64 */
	assert_int_equal(ftext_num(&tf, "h", &v), 0);
	assert_int_equal(v, 16);
	assert_int_equal(ftext_num(&tf, "csd", &v), 0);		/* hex without 0x */
	assert_int_equal(v, 16);
	assert_int_equal(ftext_num(&tf, "s", &v), 0);
	assert_int_equal(v, 7);
	/* a symbolic value's number: read in place or through the copy, alike */
	fields_of(&tf, "x", "a=ab(3) b=a (x7) c=a (99999999999999999999) d=9 (7) e=a (-2)");
	assert_int_equal(ftext_num(&tf, "a", &v), 0);
	assert_int_equal(v, 3);
	assert_int_equal(ftext_num(&tf, "b", &v), -1);
	assert_int_equal(ftext_num(&tf, "c", &v), -1);		/* past an s64 */
	assert_int_equal(ftext_num(&tf, "d", &v), 0);		/* a digit first: strtoll's */
	assert_int_equal(v, 7);
	assert_int_equal(ftext_num(&tf, "e", &v), 0);		/* not plain digits: the copy's */
	assert_int_equal(v, -2);
	fields_of(&tf, "x", "(ffffffff8000b29a) mm=0xff60000001a2b000");
	assert_int_equal(ftext_num(&tf, "__probe_ip", &v), 0);
	assert_true((uint64_t)v == 0xffffffff8000b29aULL);
	assert_int_equal(ftext_num(&tf, "mm", &v), 0);
	assert_true((uint64_t)v == 0xff60000001a2b000ULL);

	/* more tokens than the index holds: the plain scan answers alike */
	for (int i = 0; i < TF_TOKENS + 4; i++)
		strcat(many, "x y ");
	strcat(many, "last=5 end=6");
	fields_of(&tf, "x", many);
	assert_int_equal(ftext_num(&tf, "last", &v), 0);
	assert_int_equal(v, 5);
	assert_true(tf.idx.full);
}

/* many() of trace-cmd's sched_switch line gives what the single getters give, or 0. */
static void test_many(void **state)
{
	static const char *const names[] = { "prev_pid", "next_pid", "prev_state", "prev_comm",
					      "next_comm" };
	static const char *const other[] = { "reason", "pages" };
	const char *const *checked = NULL;
	char a[TS_COMM_LEN], b[TS_COMM_LEN], c[TS_COMM_LEN];
	char *strs[] = { a, b };
	struct text_fields tf;
	int64_t vals[3], v;

	(void)state;
	fields_of(&tf, "sched_switch", "my task:12 [120] R+ ==> swapper/1:0 [120]");
	assert_int_equal(ftext_parse_plugin_switch(tf.payload, &tf.sw), 0);
	tf.plugin = true;
	assert_int_equal(ftext_many(&tf, names, 3, vals, 2, strs, TS_COMM_LEN), 0);
	tf.switch_names = &checked;		/* the reader offers it */
	assert_int_equal(ftext_many(&tf, names, 3, vals, 2, strs, TS_COMM_LEN), 1);
	assert_ptr_equal(checked, names);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(ftext_num(&tf, names[i], &v), 0);
		assert_true(vals[i] == v);
	}
	assert_int_equal(ftext_str(&tf, "prev_comm", c, sizeof(c)), 0);
	assert_string_equal(a, c);
	assert_int_equal(ftext_str(&tf, "next_comm", c, sizeof(c)), 0);
	assert_string_equal(b, c);
	assert_string_equal(a, "my task");
	assert_string_equal(b, "swapper/1");
	assert_true(vals[0] == 12 && vals[1] == 0 && vals[2] == 0);
	/* the same line again, through the names checked once */
	assert_int_equal(ftext_many(&tf, names, 3, vals, 2, strs, TS_COMM_LEN), 1);
	/* other names are the getters' */
	assert_int_equal(ftext_many(&tf, other, 2, vals, 0, NULL, 0), 0);
	assert_ptr_equal(checked, names);
	/* a state the getters refuse: 0, and the getters decide */
	fields_of(&tf, "sched_switch", "a:1 [120] ? ==> b:2 [120]");
	assert_int_equal(ftext_parse_plugin_switch(tf.payload, &tf.sw), 0);
	tf.plugin = true;
	tf.switch_names = &checked;
	assert_int_equal(ftext_num(&tf, "prev_state", &v), -1);
	assert_int_equal(ftext_many(&tf, names, 3, vals, 2, strs, TS_COMM_LEN), 0);
	/* not the plugin's line */
	fields_of(&tf, "tlb_flush", "pages=1 reason=local mm shootdown (3)");
	tf.switch_names = &checked;
	assert_int_equal(ftext_many(&tf, other, 2, vals, 0, NULL, 0), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_many),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
