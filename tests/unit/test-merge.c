// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the per-CPU merge (parsers/merge.h) against the scan it replaces: after
 * any sequence of updates the CPU it picks is the one a scan in CPU order picks (the
 * lowest CPU among the earliest timestamps), and streams merged through it come out in the
 * scan's order, ties, timestamps that go back and drained CPUs included.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../parsers/merge.h"

#define MAXCPU	257

/* the scan: the first CPU of the earliest timestamp among those that have one, -1 none */
static int scan(const bool *has, const uint64_t *ts, int n)
{
	int best = -1;

	for (int i = 0; i < n; i++)
		if (has[i] && (best < 0 || ts[i] < ts[best]))
			best = i;
	return best;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void test_empty(void **state)
{
	struct ts_merge m;

	ts_merge_init(&m, 4);
	assert_int_equal(ts_merge_first(&m), -1);
	ts_merge_drop(&m, 2);		/* not in: nothing */
	assert_int_equal(ts_merge_first(&m), -1);
	ts_merge_set(&m, 3, 10);
	ts_merge_set(&m, 1, 10);
	assert_int_equal(ts_merge_first(&m), 1);	/* a tie: the lower CPU */
	ts_merge_set(&m, 3, 9);
	assert_int_equal(ts_merge_first(&m), 3);
	ts_merge_drop(&m, 3);
	assert_int_equal(ts_merge_first(&m), 1);
	ts_merge_drop(&m, 1);
	assert_int_equal(ts_merge_first(&m), -1);
	ts_merge_release(&m);
}

/* random sets and drops, small timestamps so that ties are common */
static void test_random_updates(void **state)
{
	static const int sizes[] = { 1, 2, 3, 5, 8, 64, MAXCPU };
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int n = sizes[k];
		bool has[MAXCPU] = { false };
		uint64_t ts[MAXCPU] = { 0 };
		struct ts_merge m;

		ts_merge_init(&m, n);
		for (int op = 0; op < 20000; op++) {
			int cpu = (int)(rnd(&seed) % (uint64_t)n);

			if (rnd(&seed) % 4 == 0) {
				ts_merge_drop(&m, cpu);
				has[cpu] = false;
			} else {
				ts[cpu] = rnd(&seed) % 16;
				has[cpu] = true;
				ts_merge_set(&m, cpu, ts[cpu]);
			}
			assert_int_equal(ts_merge_first(&m), scan(has, ts, n));
		}
		ts_merge_release(&m);
	}
}

/*
 * Streams of records, each CPU's mostly rising with ties across CPUs and now and then a
 * step back (bad input), merged as the readers do: pick, consume, set or drop that CPU.
 */
static void test_streams(void **state)
{
	static const int sizes[] = { 1, 2, 4, 8, 64, MAXCPU };
	uint64_t seed = 12345;

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		int n = sizes[k], left[MAXCPU];
		bool has[MAXCPU];
		uint64_t ts[MAXCPU];
		struct ts_merge m;
		int picked = 0;

		ts_merge_init(&m, n);
		for (int i = 0; i < n; i++) {
			left[i] = (int)(rnd(&seed) % 200);
			has[i] = left[i] > 0;
			ts[i] = rnd(&seed) % 50;
			if (has[i])
				ts_merge_set(&m, i, ts[i]);
		}
		for (;;) {
			int want = scan(has, ts, n), got = ts_merge_first(&m);

			assert_int_equal(got, want);
			if (got < 0)
				break;
			picked++;
			if (--left[got] == 0) {
				has[got] = false;
				ts_merge_drop(&m, got);
				continue;
			}
			if (rnd(&seed) % 50 == 0)
				ts[got] -= ts[got] > 20 ? rnd(&seed) % 20 : 0;	/* back in time */
			else
				ts[got] += rnd(&seed) % 5;			/* 0: a tie */
			ts_merge_set(&m, got, ts[got]);
		}
		assert_true(picked > 0);
		ts_merge_release(&m);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_random_updates),
		cmocka_unit_test(test_streams),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
