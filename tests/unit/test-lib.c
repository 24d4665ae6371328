// SPDX-License-Identifier: GPL-2.0-only
/* Unit tests of lib/ helpers and of the CPU-mask parsing in parsers/. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "../../lib/lib.h"
#include "../../parsers/parsers.h"

static void test_strtab(void **state)
{
	struct strtab *t = strtab_new();
	char buf[16];
	uint32_t ids[1000];

	assert_int_equal(strtab_intern(t, ""), 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		ids[i] = strtab_intern(t, buf);
	}
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "s%d", i);
		assert_int_equal(strtab_intern(t, buf), ids[i]);
		assert_string_equal(strtab_get(t, ids[i]), buf);
	}
	assert_int_equal(strtab_count(t), 1001);
	assert_int_equal(strtab_lookup(t, "nope"), 0);
	assert_null(strtab_get(t, 5000));
	strtab_free(t);
}

/* Ids past several segments (256, 512, 1024... ids each): each string back by its id. */
static void test_strtab_segments(void **state)
{
	struct strtab *t = strtab_new();
	char buf[16];

	for (uint32_t i = 1; i < 70000; i++) {
		snprintf(buf, sizeof(buf), "s%u", i);
		assert_int_equal(strtab_intern(t, buf), i);
	}
	for (uint32_t i = 1; i < 70000; i++) {
		snprintf(buf, sizeof(buf), "s%u", i);
		assert_string_equal(strtab_get(t, i), buf);
	}
	assert_string_equal(strtab_get(t, 0), "");
	assert_null(strtab_get(t, 70000));
	strtab_free(t);
}

/*
 * Another thread reads the strings of ids already interned while this one interns more:
 * nothing it reads moves (under the address sanitizer a string array realloc()ed under
 * it is a use after free).
 */
#define RACE_IDS	60000

struct race {
	struct strtab *t;
	uint32_t published;	/* ids below it interned: written with a release */
	int wrong;
};

static void *race_reader(void *arg)
{
	struct race *r = arg;
	uint32_t seen = 0, k = 1;
	char buf[16];

	while (seen < RACE_IDS) {
		seen = __atomic_load_n(&r->published, __ATOMIC_ACQUIRE);
		for (int i = 0; i < 64 && seen > 1; i++) {
			uint32_t id = 1 + (k = k * 1103515245u + 12345u) % (seen - 1);

			snprintf(buf, sizeof(buf), "s%u", id);
			if (!strtab_get(r->t, id) || strcmp(strtab_get(r->t, id), buf))
				r->wrong++;
		}
	}
	return NULL;
}

static void test_strtab_reader_thread(void **state)
{
	struct race r = { .t = strtab_new() };
	pthread_t th;
	char buf[16];

	assert_int_equal(pthread_create(&th, NULL, race_reader, &r), 0);
	for (uint32_t i = 1; i < RACE_IDS; i++) {
		snprintf(buf, sizeof(buf), "s%u", i);
		assert_int_equal(strtab_intern(r.t, buf), i);
		__atomic_store_n(&r.published, i + 1, __ATOMIC_RELEASE);
	}
	pthread_join(th, NULL);
	assert_int_equal(r.wrong, 0);
	strtab_free(r.t);
}

static void test_u64map(void **state)
{
	struct u64map m;
	bool added;

	u64map_init(&m);
	assert_null(u64map_find(&m, 7));
	for (uint64_t k = 0; k < 5000; k++)
		*u64map_get(&m, k * 7919, 0, NULL) = k + 1;
	for (uint64_t k = 0; k < 5000; k++)
		assert_int_equal(*u64map_find(&m, k * 7919), k + 1);
	u64map_get(&m, 7919, 0, &added);
	assert_false(added);
	assert_null(u64map_find(&m, 1));
	{
		/* the walk meets every entry once, and its value can be changed in place */
		size_t i = 0, seen = 0;
		uint64_t k, *v, sum = 0;

		while (u64map_next(&m, &i, &k, &v)) {
			assert_int_equal(k % 7919, 0);
			assert_int_equal(*v, k / 7919 + 1);
			sum += *v;
			*v = 0;
			seen++;
		}
		assert_int_equal(seen, 5000);
		assert_int_equal(sum, 5000ULL * 5001 / 2);
		assert_int_equal(*u64map_find(&m, 3 * 7919), 0);
	}
	/* removing every other key leaves the rest findable, with their values */
	for (uint64_t k = 0; k < 5000; k++)
		*u64map_get(&m, k * 7919, 0, NULL) = k + 1;
	for (uint64_t k = 0; k < 5000; k += 2)
		assert_true(u64map_del(&m, k * 7919));
	assert_false(u64map_del(&m, 0));
	assert_false(u64map_del(&m, 1));
	assert_int_equal(m.nr, 2500);
	for (uint64_t k = 0; k < 5000; k++) {
		uint64_t *v = u64map_find(&m, k * 7919);

		if (k % 2)
			assert_true(v && *v == k + 1);
		else
			assert_null(v);
	}
	/* and a dense run of colliding keys, removed from its middle, wrapping the table */
	u64map_release(&m);
	for (uint64_t k = 0; k < 40; k++)
		*u64map_get(&m, k, 0, NULL) = k + 100;
	for (uint64_t k = 10; k < 30; k++)
		assert_true(u64map_del(&m, k));
	for (uint64_t k = 0; k < 40; k++) {
		uint64_t *v = u64map_find(&m, k);

		if (k >= 10 && k < 30)
			assert_null(v);
		else
			assert_true(v && *v == k + 100);
	}
	u64map_release(&m);
}

static void test_numbers(void **state)
{
	uint64_t u, ns;
	int64_t s;
	int i;

	assert_int_equal(parse_u64("18446744073709551615", 10, &u), 0);
	assert_true(u == UINT64_MAX);
	assert_int_equal(parse_u64("18446744073709551616", 10, &u), -1);
	assert_int_equal(parse_u64("-1", 10, &u), -1);
	assert_int_equal(parse_u64("12x", 10, &u), -1);
	assert_int_equal(parse_u64("", 10, &u), -1);
	assert_int_equal(parse_s64("-42", 10, &s), 0);
	assert_int_equal(s, -42);
	assert_int_equal(parse_int("2147483648", &i), -1);
	assert_int_equal(parse_duration_ns("1.5", &ns), 0);
	assert_int_equal(ns, 1500000000);
	assert_int_equal(parse_duration_ns("200ms", &ns), 0);
	assert_int_equal(ns, 200000000);
	assert_int_equal(parse_duration_ns("3us", &ns), 0);
	assert_int_equal(ns, 3000);
	assert_int_equal(parse_duration_ns("5 parsecs", &ns), -1);
	assert_int_equal(parse_duration_ns("-1", &ns), -1);
}

static void test_utf8(void **state)
{
	char out[16];

	assert_int_equal(utf8_char_len("a"), 1);
	assert_int_equal(utf8_char_len("\xc3\xa9"), 2);		/* e acute */
	assert_int_equal(utf8_char_len("\xe4\xb8\xad"), 3);	/* a CJK character */
	assert_int_equal(utf8_char_len("\xf0\x9f\x98\x80"), 4);
	assert_int_equal(utf8_char_len("\xc0\xaf"), 0);		/* overlong '/' */
	assert_int_equal(utf8_char_len("\xed\xa0\x80"), 0);	/* a surrogate */
	assert_int_equal(utf8_char_len("\xf4\x90\x80\x80"), 0);	/* past U+10FFFF */
	assert_int_equal(utf8_char_len("\xe4\xb8"), 0);		/* cut by the NUL */
	assert_int_equal(utf8_char_len(""), 0);
	assert_true(utf8_valid("sh \xe4\xb8\xad"));
	assert_false(utf8_valid("my\xfftask"));

	assert_int_equal(utf8_escape("a\xff" "b", out, sizeof(out)), 6);
	assert_string_equal(out, "a\\xffb");
	/* a comm the kernel cut inside a character: the stray tail escaped */
	assert_int_equal(utf8_escape("ab\xe4\xb8", out, sizeof(out)), 10);
	assert_string_equal(out, "ab\\xe4\\xb8");
	/* cut before an escape that would not fit, never inside it */
	assert_int_equal(utf8_escape("abcdefghijkl\xff", out, sizeof(out)), 16);
	assert_string_equal(out, "abcdefghijkl");
	assert_int_equal(utf8_escape("\xff", NULL, 0), 4);
}

static void test_cpumask(void **state)
{
	struct ts_cpumask m;

	/* %*pb: most significant 32-bit group first */
	assert_int_equal(ts_cpumask_parse_hex(&m, "00000001,0000000e"), 0);
	assert_int_equal(ts_cpumask_weight(&m), 4);
	assert_true(ts_cpumask_test(&m, 1) && ts_cpumask_test(&m, 3) && ts_cpumask_test(&m, 32));
	assert_false(ts_cpumask_test(&m, 0));
	assert_int_equal(ts_cpumask_parse_hex(&m, "3"), 0);
	assert_int_equal(ts_cpumask_weight(&m), 2);
	assert_int_equal(ts_cpumask_parse_hex(&m, "zz"), -1);
	/* beyond 64 CPUs */
	assert_int_equal(ts_cpumask_parse_list(&m, "0,70-72,511"), 0);
	assert_int_equal(ts_cpumask_weight(&m), 5);
	assert_true(ts_cpumask_test(&m, 71) && ts_cpumask_test(&m, 511));
	assert_int_equal(ts_cpumask_parse_list(&m, "512"), -1);
	assert_int_equal(ts_cpumask_parse_list(&m, "3-1"), -1);
	assert_int_equal(ts_cpumask_parse_list(&m, "1,,2"), -1);
	assert_true(ts_func_is_tlb_flush("__ipi_flush_tlb_range_asid"));
	assert_false(ts_func_is_tlb_flush("do_sync_core"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strtab),
		cmocka_unit_test(test_strtab_segments),
		cmocka_unit_test(test_strtab_reader_thread),
		cmocka_unit_test(test_u64map),
		cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_cpumask),
		cmocka_unit_test(test_utf8),
	};

	return cmocka_run_group_tests_name("lib", tests, NULL, NULL);
}
