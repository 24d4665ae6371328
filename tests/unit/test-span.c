// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a trace.dat gives without decoding every record, on files read directly (one thread
 * and -j 2), through libtracecmd, and compressed:
 *  - ts_source_span(): its first and last timestamps from its records alone are those of
 *    its events, read the long way; a text trace reads its events;
 *  - ts_source_only(): read for some kinds, its first event, then exactly the events of
 *    those kinds (and the lost ones) that reading it whole gives, in the same order and
 *    decoded alike, also when the kinds are narrowed midway (as export's first pass does);
 *    a text trace says it returns every event still;
 *  - with TS_ONLY_FLUSH_IPIS: the same less cross-calls of functions that are not a TLB
 *    flush, each such function's first one of each event kept (later ones may come too),
 *    and fewer events.
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

#define KINDS	(1u << TS_EV_IPI | 1u << TS_EV_FLUSH)

/* One event as a line that does not depend on the order strings were interned in. */
static void line_of(char *buf, size_t len, struct ts_source *src, const struct ts_event *ev)
{
	int n = snprintf(buf, len, "%llu cpu %d kind %d flags %#x %s pid %d",
			 (unsigned long long)ev->ts, ev->cpu, ev->kind, ev->flags,
			 ts_source_str(src, ev->name), ev->pid);

	if (ev->kind == TS_EV_IPI)
		snprintf(buf + n, len - n, " src %d from %d func %s targets %llx", ev->u.ipi.src,
			 ev->u.ipi.from, ts_source_str(src, ev->u.ipi.func),
			 (unsigned long long)ev->u.ipi.targets.bits[0]);
	else if (ev->kind == TS_EV_FLUSH)
		snprintf(buf + n, len - n, " scope %d src %d reason %d pages %llu",
			 ev->u.flush.scope, ev->u.flush.src, ev->u.flush.reason,
			 (unsigned long long)ev->u.flush.pages);
	else if (ev->kind == TS_EV_LOST)
		snprintf(buf + n, len - n, " lost %llu", (unsigned long long)ev->u.lost.count);
}

/* the kinds after the first NARROW_AFTER events, where a test narrows them */
#define NARROWED	(1u << TS_EV_IPI)
#define NARROW_AFTER	5

/* One event as a line, and whether it is a cross-call of a function other than a flush. */
struct ev_line {
	char text[512];
	char key[160];		/* src and function, of such a cross-call; else "" */
};

/*
 * The lines of @path's events, all of them (@kinds 0) or ts_source_only(@kinds)'s: read
 * whole, the first event, then those of KINDS and the lost ones; with @narrow, of NARROWED
 * only after the first NARROW_AFTER (read whole: left out then; else ts_source_only(
 * NARROWED) there).
 */
static struct ev_line *ev_lines(const char *path, uint32_t kinds, bool narrow, size_t *n)
{
	char err[TS_ERR_LEN];
	struct ts_source *src = ts_source_open(path, err);
	struct ev_line *l = NULL;
	size_t alloc = 0;
	struct ts_event ev;
	bool first = true;

	if (!src)
		fail_msg("%s", err);
	*n = 0;
	if (kinds)
		assert_true(ts_source_only(src, kinds));
	while (ts_source_next(src, &ev) > 0) {
		uint32_t want = narrow && *n >= NARROW_AFTER ? NARROWED : KINDS;

		if (!kinds && !first && !(want >> ev.kind & 1) && ev.kind != TS_EV_LOST)
			continue;
		first = false;
		if (*n == alloc)
			l = realloc(l, (alloc = alloc ? 2 * alloc : 1024) * sizeof(*l));
		line_of(l[*n].text, sizeof(l[*n].text), src, &ev);
		l[*n].key[0] = '\0';
		if (ev.kind == TS_EV_IPI && !(ev.flags & TS_F_TLB))
			snprintf(l[*n].key, sizeof(l[*n].key), "%d %s", ev.u.ipi.src,
				 ev.u.ipi.func ? ts_source_str(src, ev.u.ipi.func) : "-");
		if (++*n == NARROW_AFTER && kinds && narrow)
			assert_true(ts_source_only(src, NARROWED));
	}
	assert_null(ts_source_error(src)[0] ? ts_source_error(src) : NULL);
	ts_source_close(src);
	return l;
}

static void check_only(void)
{
	/* the trace.dat files of traces[]: all but the text one, last */
	for (size_t i = 0; i < sizeof(traces) / sizeof(traces[0]) - 1; i++) {
		char path[4096];
		size_t n0, n1, same;
		struct ev_line *whole, *only;

		path_of(path, sizeof(path), traces[i]);
		for (int narrow = 0; narrow < 2; narrow++) {
			whole = ev_lines(path, 0, narrow, &n0);
			only = ev_lines(path, KINDS, narrow, &n1);
			for (same = 0; same < n0 && same < n1; same++)
				if (strcmp(whole[same].text, only[same].text))
					break;
			if (same != n0 || n0 != n1)
				fail_msg("%s: %zu events of the kinds read whole, %zu read for "
					 "them alone%s", traces[i], n0, n1,
					 narrow ? ", narrowed midway" : "");
			/* the trace has flush evidence to give, not only its first event */
			assert_true(n1 > 10);
			free(whole);
			free(only);
		}
	}
}

/*
 * ts_source_only(KINDS | TS_ONLY_FLUSH_IPIS) of @path: in order, every event reading it
 * whole gives but cross-calls of other functions than flushes, of which each function's
 * first; returns how many were passed over.
 */
static size_t check_flush_ipis(const char *path)
{
	size_t nw, nf, j = 0, nseen = 0;
	struct ev_line *w = ev_lines(path, 0, false, &nw);
	struct ev_line *f = ev_lines(path, KINDS | TS_ONLY_FLUSH_IPIS, false, &nf);
	const char **seen = calloc(nw + 1, sizeof(*seen));

	for (size_t i = 0; i < nw; i++) {
		bool known = false;

		for (size_t k = 0; w[i].key[0] && k < nseen && !known; k++)
			known = !strcmp(seen[k], w[i].key);
		if (j < nf && !strcmp(w[i].text, f[j].text)) {
			j++;
			if (w[i].key[0] && !known)
				seen[nseen++] = w[i].key;
			continue;
		}
		if (!known)
			fail_msg("%s: event %zu read whole is not there: %s", path, i, w[i].text);
	}
	if (j != nf)
		fail_msg("%s: event %zu is not one read whole: %s", path, j, f[j].text);
	free(seen);
	free(w);
	free(f);
	return nw - nf;
}

static void check_all(void)
{
	size_t passed = 0;

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
		if (i < sizeof(traces) / sizeof(traces[0]) - 1)
			passed += check_flush_ipis(path);
	}
	/* this machine's trace: rescheduling IPIs, call_function IPIs of other functions */
	assert_true(passed > 0);
	check_only();
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

static void test_text_only(void **state)
{
	char path[4096], err[TS_ERR_LEN];
	struct ts_source *src;

	(void)state;
	path_of(path, sizeof(path), "tests/fixtures/text/report-plain-ns.txt");
	src = ts_source_open(path, err);
	if (!src)
		fail_msg("%s", err);
	assert_false(ts_source_only(src, KINDS));
	ts_source_close(src);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_direct),
		cmocka_unit_test(test_direct_jobs),
		cmocka_unit_test(test_library),
		cmocka_unit_test(test_text_only),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
