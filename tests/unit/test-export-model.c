// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of analysis/export-model.c: what it draws for hand-made event sequences, the
 * answers worked out by hand (slices per switch, an arrow ending at the target's handler
 * entry or, past PENDING_MAX waiting, at its send; a window cutting slices; the counters).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../analysis/export.h"
#include "../../lib/lib.h"

#define MAX_DRAWS	512

struct fx {
	char path[64];
	struct ts_source *src;
	struct timeline *tl;
	void *model;
	uint64_t ts;
	uint32_t fn;
	struct tl_filter filter;
	struct export_draw d[MAX_DRAWS];
	int n;
};

static void sink(void *ctx, const struct export_draw *d)
{
	struct fx *f = ctx;

	assert_true(f->n < MAX_DRAWS);
	f->d[f->n++] = *d;
}

/* A source only for its string table; the model drawing into @f, from ts 2000 on. */
static struct fx *fx_new(bool entries, const struct tl_filter *filter)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct export_model_opts o = {
		.scan = { .ipi_source = TL_IPI_CSD_QUEUE, .first_ts = 2000, .ncpus = 2,
			  .entries = entries },
		.base = 2000, .interval = 10000, .T = 6, .Q = 32, .tlb_reach_mms = 8,
	};
	char err[TS_ERR_LEN];
	int fd;

	strcpy(f->path, "/tmp/tlbscope-test-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"kind\":\"header\",\"version\":1,\"cpus\":2}\n", 39), 39);
	close(fd);
	f->src = ts_source_open(f->path, err);
	assert_non_null(f->src);
	if (filter) {
		f->filter = *filter;
		o.filter = &f->filter;
	}
	f->tl = timeline_new(f->src, filter ? &f->filter : NULL);
	o.sink = (struct export_sink){ sink, f };
	f->model = export_model_ops.new(f->src, &o);
	f->ts = 1000;
	f->fn = ts_source_intern(f->src, "__ipi_flush_tlb_range_asid");
	return f;
}

static void fx_free(struct fx *f)
{
	export_model_ops.free(f->model);
	timeline_free(f->tl);
	ts_source_close(f->src);
	unlink(f->path);
	free(f);
}

static struct ts_event ev_new(struct fx *f, int cpu, int pid, int kind)
{
	struct ts_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = f->ts += 1000;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.tgid = -1;
	ev.kind = (uint8_t)kind;
	strlcpy_ts(ev.comm, "x", TS_COMM_LEN);
	return ev;
}

static void feed(struct fx *f, struct ts_event *ev)
{
	timeline_feed(f->tl, ev, export_model_ops.feed, f->model);
}

static void sw(struct fx *f, int cpu, int prev, int next, const char *next_comm)
{
	struct ts_event ev = ev_new(f, cpu, prev, TS_EV_SWITCH);

	ev.name = ts_source_intern(f->src, "sched_switch");
	ev.u.sw.prev_pid = prev;
	strlcpy_ts(ev.u.sw.prev_comm, prev ? "prev" : "swapper", TS_COMM_LEN);
	ev.u.sw.next_pid = next;
	ev.u.sw.next_tgid = next;
	strlcpy_ts(ev.u.sw.next_comm, next_comm, TS_COMM_LEN);
	feed(f, &ev);
}

/* csd_queue_cpu on @from for @to, and when @entry the target's csd_function_entry */
static void ipi(struct fx *f, int from, int to, bool entry)
{
	struct ts_event ev = ev_new(f, from, 100, TS_EV_IPI);

	ev.flags = TS_F_TLB;
	ev.u.ipi.src = TS_SRC_CSD_QUEUE;
	ev.u.ipi.func = f->fn;
	ts_cpumask_set(&ev.u.ipi.targets, to);
	feed(f, &ev);
	if (!entry)
		return;
	ev = ev_new(f, to, 0, TS_EV_IPI);
	ev.flags = TS_F_TLB | TS_F_RECV;
	ev.u.ipi.src = TS_SRC_CSD_ENTRY;
	ev.u.ipi.func = f->fn;
	feed(f, &ev);
}

static void finish(struct fx *f)
{
	timeline_finish(f->tl, export_model_ops.feed, f->model);
	export_model_ops.finish(f->model, f->tl);
}

static int count(const struct fx *f, enum export_what what)
{
	int n = 0;

	for (int i = 0; i < f->n; i++)
		n += f->d[i].what == what;
	return n;
}

static const struct export_draw *nth(const struct fx *f, enum export_what what, int k)
{
	for (int i = 0; i < f->n; i++)
		if (f->d[i].what == what && !k--)
			return &f->d[i];
	return NULL;
}

/* cpu 0: swapper, app (pid 100) from 3000 to 4000, idle to the end; times rebased by 2000 */
static void test_slices(void **state)
{
	struct fx *f = fx_new(false, NULL);
	const struct export_draw *d;

	sw(f, 0, 0, 0, "swapper/0");	/* 2000: the CPU's first event */
	sw(f, 0, 0, 100, "app");	/* 3000 */
	sw(f, 0, 100, 0, "swapper/0");	/* 4000 */
	sw(f, 1, 0, 0, "swapper/1");	/* 5000: the trace's last event */
	finish(f);
	/* cpu 0: 3 switches + 1 (the first, of no length, what its first switch left) */
	assert_int_equal(count(f, EXPORT_SLICE), 6);	/* cpu 1: 1 + 1 */
	d = nth(f, EXPORT_SLICE, 2);
	assert_int_equal(d->cpu, 0);
	assert_false(d->u.slice.idle);
	assert_string_equal(d->u.slice.comm, "app");
	assert_int_equal(d->u.slice.pid, 100);
	assert_int_equal(d->ts, 1000);
	assert_int_equal(d->u.slice.end, 2000);
	d = nth(f, EXPORT_SLICE, 4);		/* idle from the last switch to the trace's end */
	assert_int_equal(d->cpu, 0);
	assert_true(d->u.slice.idle);
	assert_int_equal(d->ts, 2000);
	assert_int_equal(d->u.slice.end, 3000);
	fx_free(f);
}

/* An arrow ends where its target entered the handler; the IPI is on the sender's track. */
static void test_flow_to_entry(void **state)
{
	struct fx *f = fx_new(true, NULL);
	const struct export_draw *i, *e;

	sw(f, 0, 0, 100, "app");
	sw(f, 1, 0, 0, "swapper/1");
	ipi(f, 0, 1, true);			/* sent at 4000, entered at 5000 */
	finish(f);
	i = nth(f, EXPORT_IPI, 0);
	e = nth(f, EXPORT_FLOW_END, 0);
	assert_non_null(i);
	assert_non_null(e);
	assert_int_equal(count(f, EXPORT_IPI), 1);
	assert_int_equal(count(f, EXPORT_FLOW_END), 1);
	assert_int_equal(i->cpu, 0);
	assert_int_equal(i->u.ipi.from, 0);
	assert_int_equal(i->u.ipi.to, 1);
	assert_int_equal(i->ts, 2000);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->u.flow_end.id, i->u.ipi.flow);
	assert_true(e->u.flow_end.at_entry);
	assert_int_equal(e->ts, 3000);
	assert_true(e > i);			/* drawn after its begin */
	fx_free(f);
}

/* 65 arrows to a target that never enters the handler: the oldest ends at its send when the
 * 65th comes, the other 64 at theirs when the trace ends; none at an entry. */
static void test_pending_overflow(void **state)
{
	struct fx *f = fx_new(true, NULL);
	const struct export_draw *first, *end;

	sw(f, 0, 0, 100, "app");
	for (int k = 0; k < 65; k++)
		ipi(f, 0, 1, false);
	first = nth(f, EXPORT_IPI, 0);
	end = nth(f, EXPORT_FLOW_END, 0);
	assert_int_equal(count(f, EXPORT_FLOW_END), 1);
	assert_int_equal(end->u.flow_end.id, first->u.ipi.flow);
	assert_int_equal(end->ts, first->ts);
	assert_false(end->u.flow_end.at_entry);
	finish(f);
	assert_int_equal(count(f, EXPORT_FLOW_END), 65);
	for (int k = 0; k < 65; k++)
		assert_false(nth(f, EXPORT_FLOW_END, k)->u.flow_end.at_entry);
	fx_free(f);
}

/* --from/--to: a slice across the window's start is cut to it, one before it not drawn, nor
 * the IPI outside it. */
static void test_window(void **state)
{
	struct tl_filter w = { .from = 3500, .to = 6500 };
	struct fx *f = fx_new(false, &w);
	const struct export_draw *d;

	sw(f, 0, 0, 100, "app");		/* 2000 */
	ipi(f, 0, 1, false);			/* 3000: before the window */
	ipi(f, 0, 1, false);			/* 4000 */
	sw(f, 0, 100, 0, "swapper/0");		/* 5000 */
	sw(f, 1, 0, 0, "swapper/1");		/* 6000 */
	sw(f, 1, 0, 0, "swapper/1");		/* 7000: after it */
	finish(f);
	assert_int_equal(count(f, EXPORT_IPI), 1);
	d = nth(f, EXPORT_SLICE, 0);		/* app, 2000..5000 cut to 3500..5000 */
	assert_non_null(d);
	assert_string_equal(d->u.slice.comm, "app");
	assert_int_equal(d->ts, 1500);
	assert_int_equal(d->u.slice.end, 3000);
	for (int k = 0; k < count(f, EXPORT_SLICE); k++)
		assert_true(nth(f, EXPORT_SLICE, k)->u.slice.end <= 4500);
	fx_free(f);
}

/* The IPIs/s counter: 3 IPIs in the first 10 us bucket = 300000/s, then a zero point. */
static void test_counters(void **state)
{
	struct fx *f = fx_new(false, NULL);
	const struct export_draw *d;

	sw(f, 0, 0, 100, "app");		/* 2000 */
	for (int k = 0; k < 3; k++)
		ipi(f, 0, 1, false);		/* 3000, 4000, 5000 */
	f->ts = 40000;
	sw(f, 0, 100, 0, "swapper/0");		/* 41000: three buckets later */
	finish(f);
	d = nth(f, EXPORT_COUNTER, 0);
	assert_int_equal(d->u.counter.which, EXPORT_IPIS_PER_S);
	assert_int_equal(d->ts, 0);
	assert_true(d->u.counter.per_s == 300000.0);
	d = nth(f, EXPORT_COUNTER, 2);		/* the quiet stretch's one zero point */
	assert_int_equal(d->u.counter.which, EXPORT_IPIS_PER_S);
	assert_int_equal(d->ts, 10000);
	assert_true(d->u.counter.per_s == 0.0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slices),
		cmocka_unit_test(test_flow_to_entry),
		cmocka_unit_test(test_pending_overflow),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_counters),
	};

	return cmocka_run_group_tests_name("export-model", tests, NULL, NULL);
}
