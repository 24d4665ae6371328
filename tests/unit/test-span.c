// SPDX-License-Identifier: GPL-2.0-only
/*
 * ts_source_span(): a trace's first and last timestamps from its records alone are those of
 * its events, read the long way, on trace.dat files read directly (one thread and -j 2),
 * through libtracecmd, and compressed; a text trace reads its events.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../parsers/parsers.h"


static const char *const traces[] = {
	"tests/fixtures/x86-hackbench.dat",		/* this machine's, uncompressed */
	"tests/fixtures/x86-lost.dat",			/* with lost events */
	"corpus/traces/hackbench-aia-8cpu/trace.dat",	/* v7, zstd */
	"corpus/traces/mmapstress-sbi-4cpu/trace.dat",
	"tests/fixtures/text/report-plain-ns.txt",	/* no span op: the events */
};

static void path_of(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("TLBSCOPE_SRCDIR");

	snprintf(buf, len, "%s/%s", dir && *dir ? dir : ".", name);
}

/* the events' first and last times, read one by one; 1 some, 0 none */
static int events_span(const char *path, uint64_t *first, uint64_t *last)
{
	char err[TS_ERR_LEN];
	struct ts_source *src = ts_source_open(path, err);
	struct ts_event ev;
	int some = 0;

	if (!src)
		fail_msg("%s", err);
	*first = UINT64_MAX;
	*last = 0;
	while (ts_source_next(src, &ev) > 0) {
		some = 1;
		*first = ev.ts < *first ? ev.ts : *first;
		*last = ev.ts > *last ? ev.ts : *last;
	}
	assert_null(ts_source_error(src)[0] ? ts_source_error(src) : NULL);
	ts_source_close(src);
	return some;
}

static void check_all(void)
{
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]); i++) {
		char path[4096], err[TS_ERR_LEN];
		uint64_t f0, l0, f1, l1;
		struct ts_source *src;
		int r;

		path_of(path, sizeof(path), traces[i]);
		assert_int_equal(events_span(path, &f0, &l0), 1);
		src = ts_source_open(path, err);
		if (!src)
			fail_msg("%s", err);
		r = ts_source_span(src, &f1, &l1);
		ts_source_close(src);
		if (r != 1 || f1 != f0 || l1 != l0)
			fail_msg("%s: span %d %llu..%llu, the events' %llu..%llu", traces[i], r,
				 (unsigned long long)f1, (unsigned long long)l1,
				 (unsigned long long)f0, (unsigned long long)l0);
		assert_true(l0 > f0);
	}
}

static void test_direct(void **state)
{
	(void)state;
	ts_jobs_set(1);
	check_all();
}

static void test_direct_jobs(void **state)
{
	(void)state;
	ts_jobs_set(2);
	check_all();
	ts_jobs_set(1);
}

static void test_library(void **state)
{
	(void)state;
	ts_jobs_set(1);
	setenv("TLBSCOPE_TRACEDAT_LIBRARY", "1", 1);
	check_all();
	unsetenv("TLBSCOPE_TRACEDAT_LIBRARY");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_direct_jobs),
		cmocka_unit_test(test_library),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
