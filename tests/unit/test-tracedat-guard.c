// SPDX-License-Identifier: GPL-2.0-only
/*
 * The in-process guard of libtracecmd's parse (parsers/tracedat-guard.c): once a
 * trace.dat is open, and again once it is closed, the program's own signal dispositions,
 * alternate stack and alarm are as they were; the events are those of the unguarded
 * reader (whose child process parses the headers first).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../parsers/parsers.h"

static const int sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
#define NSIGS	(sizeof(sigs) / sizeof(sigs[0]))

static void mine(int sig)
{
	(void)sig;
}

static void seed_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("TLBSCOPE_SRCDIR");

	snprintf(buf, len, "%s/tests/fuzz/seeds/trace.dat/%s", dir && *dir ? dir : ".", name);
}

/* every event's time, CPU, kind and pid, summed in an order-dependent hash */
static uint64_t events_hash(struct ts_source *src, uint64_t *n)
{
	struct ts_event ev;
	uint64_t h = 1469598103934665603ull;
	int r;

	*n = 0;
	while ((r = ts_source_next(src, &ev)) == 1) {
		h = (h ^ ev.ts) * 1099511628211ull;
		h = (h ^ (uint64_t)(ev.cpu << 16 | ev.kind)) * 1099511628211ull;
		h = (h ^ (uint64_t)(uint32_t)ev.pid) * 1099511628211ull;
		(*n)++;
	}
	assert_int_equal(r, 0);
	return h;
}

static void check_untouched(const stack_t *before)
{
	struct sigaction sa;
	stack_t st;

	for (size_t i = 0; i < NSIGS; i++) {
		assert_int_equal(sigaction(sigs[i], NULL, &sa), 0);
		assert_ptr_equal(sa.sa_handler, mine);
	}
	assert_int_equal(sigaltstack(NULL, &st), 0);
	assert_ptr_equal(st.ss_sp, before->ss_sp);
	assert_int_equal(st.ss_size, before->ss_size);
	assert_int_equal(st.ss_flags, before->ss_flags);
	/* the alarm set before the open is the one left: no other was set in between */
	assert_true(alarm(1000) > 900);
}

static void test_guard_restores(void **state)
{
	static const char *const seeds[] = {
		"hackbench-aia-4cpu-v6.dat", "hackbench-aia-4cpu-v7-zstd.dat",
		"hackbench-aia-4cpu-v7-none.dat",
	};
	enum { NSEEDS = sizeof(seeds) / sizeof(seeds[0]) };
	struct sigaction sa = { .sa_handler = mine };
	uint64_t child_hash[NSEEDS], nc[NSEEDS];
	char path[4096], err[TS_ERR_LEN] = "";
	struct ts_source *src;
	stack_t before;

	(void)state;
	/* unguarded first: the library parses the headers in a child, then here */
	for (size_t s = 0; s < NSEEDS; s++) {
		seed_path(path, sizeof(path), seeds[s]);
		src = ts_source_open(path, err);
		if (!src)
			fail_msg("%s: %s", path, err);
		child_hash[s] = events_hash(src, &nc[s]);
		ts_source_close(src);
	}
	for (size_t i = 0; i < NSIGS; i++)
		sigaction(sigs[i], &sa, NULL);
	assert_int_equal(sigaltstack(NULL, &before), 0);
	ts_tracedat_guard_here();
	for (size_t s = 0; s < NSEEDS; s++) {
		uint64_t nh, here_hash;

		alarm(1000);
		seed_path(path, sizeof(path), seeds[s]);
		src = ts_source_open(path, err);
		if (!src)
			fail_msg("%s: %s", path, err);
		check_untouched(&before);
		here_hash = events_hash(src, &nh);
		ts_source_close(src);
		check_untouched(&before);
		alarm(0);
		assert_true(nh > 500);
		assert_int_equal(nh, nc[s]);
		assert_true(here_hash == child_hash[s]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guard_restores),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
