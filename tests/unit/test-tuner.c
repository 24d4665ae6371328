// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of tuner/: every lazy(T, Q) rule of docs/design.md section 4 on a tiny event list
 * with answers computed by hand, checked on both the one-pass sweep and the direct replay,
 * and the stock and ideal models.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "../../tuner/tuner.h"

static const int Ts[] = { 1, 2, 3 };
static const int Qs[] = { 0, 1, 2 };

struct fx {
	struct tuner *t;
	int (*pts)[2];
	uint64_t ts;
};

static int setup_warm(void **state, uint64_t warmup)
{
	static int pts[18][2];
	struct fx *f = calloc(1, sizeof(*f));
	struct tuner_opts o = {
		.thresholds = Ts, .nthresholds = 3, .queues = Qs, .nqueues = 3,
		.flush_all_threshold = 64, .tlb_reach_mms = 16, .ncpus = 2,
		.warmup_ns = warmup,
	};

	/* every point, then every one again under the lazy-idle what-if */
	for (int i = 0; i < 18; i++) {
		pts[i][0] = Ts[i % 9 / 3];
		pts[i][1] = Qs[i % 3];
	}
	o.replay = (const int (*)[2])pts;
	o.nreplay = 18;
	o.idle_first = 9;
	o.idle_count = 9;
	o.verify_models = true;		/* clear-at-full counted the second way too */
	f->t = tuner_new(&o);
	f->ts = 1000;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_warm(state, 0);
}

static int setup_warmup(void **state)
{
	return setup_warm(state, 2500);	/* counts from the first event + 2500 ns */
}

static int teardown(void **state)
{
	struct fx *f = *state;

	tuner_free(f->t);
	free(f);
	return 0;
}

static void feed(struct fx *f, struct ts_event *ev)
{
	ev->ts = f->ts += 1000;
	tuner_feed(f->t, NULL, ev);
}

static void sw(struct fx *f, int cpu, uint32_t mm)
{
	struct ts_event ev = { .kind = TS_EV_SWITCH, .cpu = cpu };

	ev.u.sw.mm = mm;
	ev.u.sw.next_pid = 100 + (int32_t)mm;	/* a task of the mm, or a kernel thread: not idle */
	if (!mm)
		ev.flags = TS_F_KTHREAD;
	feed(f, &ev);
}

static void flush(struct fx *f, int cpu, uint32_t mm, int scope, uint64_t pages)
{
	struct ts_event ev = { .kind = TS_EV_FLUSH, .cpu = cpu };

	ev.u.flush.role = TS_FLUSH_REQUEST;
	ev.u.flush.mm = mm;
	ev.u.flush.scope = (uint8_t)scope;
	ev.u.flush.pages = pages;
	feed(f, &ev);
}

static void mm_exit(struct fx *f, uint32_t mm)
{
	struct ts_event ev = { .kind = TS_EV_EXIT, .cpu = 0 };

	ev.u.exit.mm = mm;
	feed(f, &ev);
}

/* The sweep's @s and the direct replay's @d both have @want's lazy counters. */
static void same_counts(const struct tuner_counts *s, const struct tuner_counts *d,
			const struct tuner_counts *want, bool replayed)
{
	const uint64_t *got[2][7] = {
		{ &s->ipis, &s->deferred, &s->deferred_flushes, &s->overflows, &s->evictions,
		  &s->table_resets, &s->replayed },
		{ &d->ipis, &d->deferred, &d->deferred_flushes, &d->overflows, &d->evictions,
		  &d->table_resets, &d->replayed },
	};
	const uint64_t wanted[7] = {
		want->ipis, want->deferred, want->deferred_flushes, want->overflows,
		want->evictions, want->table_resets, want->replayed,
	};

	for (int k = 0; k < 2; k++)
		for (int f = 0; f < (replayed ? 7 : 6); f++)
			assert_int_equal(*got[k][f], wanted[f]);
}

/* Both the sweep and the direct replay of (T, Q) must give @want's lazy counters. */
static void expect(struct fx *f, int T, int Q, struct tuner_counts want)
{
	int ti = T - 1, qi = Q == 0 ? 0 : Q == 1 ? 1 : 2;
	struct tuner_counts s;

	tuner_grid_point(f->t, ti, qi, &s);
	same_counts(&s, tuner_replayed(f->t, ti * 3 + qi), &want, false);
}

/* The lazy-idle what-if at (T, Q): its sweep and its direct replay both give @want. */
static void expect_idle(struct fx *f, int T, int Q, struct tuner_counts want)
{
	int ti = T - 1, qi = Q == 0 ? 0 : Q == 1 ? 1 : 2;
	struct tuner_counts s;

	assert_true(tuner_whatif_point(f->t, NULL, ti, qi, &s));
	same_counts(&s, tuner_replayed(f->t, 9 + ti * 3 + qi), &want, true);
}

/* Eviction picks the least recently loaded (smallest generation). */
/*
 * replay_only (export's tuner): no grid, and the replayed points and models counted as with
 * the grid, on a run that loads, evicts, queues, overflows, flushes everything and exits;
 * with models_off too, the replayed points and the CPUs' active mms alone, the models 0.
 */
static void test_replay_only(void **state)
{
	struct fx *f = *state, g = { 0 }, h = { 0 };
	struct fx *all[3] = { f, &g, &h };
	struct tuner_opts o = {
		.thresholds = Ts, .nthresholds = 3, .queues = Qs, .nqueues = 3,
		.flush_all_threshold = 64, .tlb_reach_mms = 16, .ncpus = 2,
		.replay_only = true,
	};
	static int pts[9][2];
	struct tuner_counts s;

	for (int i = 0; i < 9; i++) {
		pts[i][0] = Ts[i / 3];
		pts[i][1] = Qs[i % 3];
	}
	o.replay = (const int (*)[2])pts;
	o.nreplay = 9;
	g.t = tuner_new(&o);
	g.ts = f->ts;
	o.models_off = true;
	h.t = tuner_new(&o);
	h.ts = f->ts;
	for (int round = 0; round < 3; round++) {
		for (int k = 0; k < 3; k++) {
			for (uint32_t mm = 1; mm <= 5; mm++) {
				sw(all[k], 0, mm);
				sw(all[k], 1, 6 - mm);
				flush(all[k], 0, mm, TS_SCOPE_RANGE, 2);
			}
			flush(all[k], 1, 2, TS_SCOPE_MM, 0);
			/* past the flush-all threshold */
			flush(all[k], 0, 3, TS_SCOPE_RANGE, 1000);
			mm_exit(all[k], 4);
		}
		for (int c = 0; c < 2; c++)
			assert_int_equal(tuner_active(h.t, c), tuner_active(f->t, c));
	}
	for (int k = 0; k < 3; k++)
		tuner_finish(all[k]->t);
	for (int i = 0; i < 9; i++) {
		same_counts(tuner_replayed(g.t, i), tuner_replayed(g.t, i), tuner_replayed(f->t, i),
			    true);
		same_counts(tuner_replayed(h.t, i), tuner_replayed(h.t, i), tuner_replayed(f->t, i),
			    true);
	}
	for (int m = 0; m < TUNER__MODELS; m++) {
		assert_int_equal(tuner_model(g.t, m)->ipis, tuner_model(f->t, m)->ipis);
		assert_true(tuner_model(f->t, m)->ipis > 0);
		assert_int_equal(tuner_model(h.t, m)->ipis, 0);
	}
	tuner_grid_point(g.t, 2, 2, &s);	/* no grid: nothing counted there */
	assert_int_equal(s.ipis + s.deferred, 0);
	tuner_grid_point(f->t, 2, 2, &s);
	assert_true(s.ipis + s.deferred > 0);
	tuner_free(g.t);
	tuner_free(h.t);
}

static void test_lru(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 0, 2);
	sw(f, 0, 3);	/* T=2 evicts 1; T=1 evicts 2 */
	sw(f, 0, 1);	/* T=2 evicts 2 (1 was evicted); T=3 hits */
	sw(f, 0, 4);	/* T=3 evicts 2, the least recent after 1's refresh */
	tuner_finish(f->t);
	expect(f, 1, 0, (struct tuner_counts){ .evictions = 4 });
	expect(f, 2, 0, (struct tuner_counts){ .evictions = 3 });
	expect(f, 3, 0, (struct tuner_counts){ .evictions = 1 });
}

/* A miss takes an empty slot before evicting; exit empties the mm's slots. */
static void test_empty_slot_and_exit(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 0, 2);		/* T=1 evicts 1 */
	mm_exit(f, 1);		/* T=2, 3: slot of 1 is free again */
	sw(f, 0, 3);		/* T=1 evicts 2; T=2 takes the free slot */
	tuner_finish(f->t);
	expect(f, 1, 0, (struct tuner_counts){ .evictions = 2 });
	expect(f, 2, 0, (struct tuner_counts){ .evictions = 0 });
	expect(f, 3, 0, (struct tuner_counts){ .evictions = 0 });
}

/* Queue: append below Q, the (Q+1)-th range sets the flag and overflows, then absorbed. */
static void test_queue_overflow(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 1, 1);
	sw(f, 1, 2);		/* CPU 1 holds 1 (T >= 2) without running it */
	for (int i = 0; i < 3; i++)
		flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	sw(f, 1, 1);		/* back: the queued flushes run here */
	tuner_finish(f->t);
	/* T=1: CPU 1 evicted mm 1 at its switch to 2; it leaves the mask: nothing to send */
	expect(f, 1, 0, (struct tuner_counts){ .evictions = 2 });
	expect(f, 2, 0, (struct tuner_counts){ .deferred = 3, .deferred_flushes = 1, .overflows = 1 });
	expect(f, 2, 1, (struct tuner_counts){ .deferred = 3, .deferred_flushes = 1, .overflows = 1 });
	expect(f, 2, 2, (struct tuner_counts){ .deferred = 3, .deferred_flushes = 1, .overflows = 1 });
	expect(f, 3, 2, (struct tuner_counts){ .deferred = 3, .deferred_flushes = 1, .overflows = 1 });
	assert_int_equal(tuner_model(f->t, TUNER_STOCK_ASID)->ipis, 3);
	assert_int_equal(tuner_model(f->t, TUNER_IDEAL)->ipis, 0);
}

/* Two ranges fit a queue of 2; a whole-mm flush sets the flag without an overflow. */
static void test_full_flag(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 1, 1);
	sw(f, 1, 2);
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	flush(f, 0, 1, TS_SCOPE_MM, 0);		/* flag, no overflow */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);	/* absorbed */
	flush(f, 0, 1, TS_SCOPE_RANGE, 100);	/* past the threshold: a full flush, absorbed */
	tuner_finish(f->t);
	expect(f, 2, 0, (struct tuner_counts){ .deferred = 4, .overflows = 1 });	/* Q=0: the 1st range */
	expect(f, 2, 1, (struct tuner_counts){ .deferred = 4, .overflows = 0 });
	expect(f, 2, 2, (struct tuner_counts){ .deferred = 4, .overflows = 0 });
}

/* Kernel threads keep the active mm: its flushes still interrupt that CPU. */
static void test_kthread_keeps_mm(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 1, 1);
	sw(f, 1, 0);		/* a kernel thread on CPU 1 */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	sw(f, 1, 1);		/* same mm: nothing at all */
	tuner_finish(f->t);
	for (int T = 1; T <= 3; T++)
		expect(f, T, 1, (struct tuner_counts){ .ipis = 1 });
	assert_int_equal(tuner_mm_switches(f->t), 2);
	/* the floor does not count it: CPU 1 holds the mm only lazily */
	assert_int_equal(tuner_model(f->t, TUNER_IDEAL)->ipis, 0);
	assert_int_equal(tuner_model(f->t, TUNER_LAZY)->ipis, 1);
	assert_int_equal(tuner_model(f->t, TUNER_STOCK_NOASID)->ipis, 1);
	{
		uint64_t split[TUNER_TGT__COUNT];

		tuner_lazy_split(f->t, split);
		assert_int_equal(split[TUNER_TGT_KTHREAD], 1);
		assert_int_equal(split[TUNER_TGT_RUNNING] + split[TUNER_TGT_IDLE], 0);
	}
}

/* flush_tlb_all on every CPU keeps only each CPU's active mm. */
static void test_full_flush_resets(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 0, 2);
	sw(f, 0, 3);
	flush(f, 1, 0, TS_SCOPE_ALL, 0);	/* 1 IPI (2 CPUs), 2 resets */
	sw(f, 0, 1);		/* T=3 would have hit: a miss without eviction now */
	tuner_finish(f->t);
	expect(f, 3, 0, (struct tuner_counts){ .ipis = 1, .table_resets = 2, .evictions = 0 });
	expect(f, 2, 0, (struct tuner_counts){ .ipis = 1, .table_resets = 2, .evictions = 1 });
	expect(f, 1, 0, (struct tuner_counts){ .ipis = 1, .table_resets = 2, .evictions = 3 });
}

/* Warm-up: the first events build state but are not counted. */
static void test_warmup(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);		/* ts 2000: the first event; counts start at 4500 */
	sw(f, 0, 2);		/* 3000: T=1 eviction, not counted */
	sw(f, 0, 3);		/* 4000: not counted */
	sw(f, 0, 1);		/* 5000: counted: T=1 and T=2 evict */
	tuner_finish(f->t);
	expect(f, 1, 0, (struct tuner_counts){ .evictions = 1 });
	expect(f, 2, 0, (struct tuner_counts){ .evictions = 1 });
	expect(f, 3, 0, (struct tuner_counts){ .evictions = 0 });
	assert_int_equal(tuner_mm_switches(f->t), 1);
}

/* Reuse distances: the depth in the recency stack at each mm switch. */
static void test_reuse(void **state)
{
	struct fx *f = *state;
	uint64_t h[TUNER_MAX_T + 1];

	sw(f, 0, 1);
	sw(f, 0, 2);
	sw(f, 0, 1);		/* distance 2 */
	sw(f, 0, 3);
	sw(f, 0, 2);		/* distance 3 */
	tuner_finish(f->t);
	tuner_reuse_hist(f->t, 0, h);
	assert_int_equal(h[0], 3);	/* first loads */
	assert_int_equal(h[2], 1);
	assert_int_equal(h[3], 1);
}

/* Unit costs for the verdict tests: an IPI dear, a table's costs cheap. */
static void unit_platform(struct platform *p)
{
	memset(p, 0, sizeof(*p));
	p->v[PF_IPI_SEND] = 600;
	p->v[PF_IPI_RECV] = 1500;
	p->v[PF_REMOTE_FLUSH] = 200;
	p->v[PF_LOCAL_ASID_FLUSH] = 150;
	p->v[PF_TLB_REFILL] = 4000;
	p->v[PF_QUEUE_ENTRY] = 30;
	p->v[PF_DEFERRED_FLUSH] = 250;
	p->v[PF_TABLE_SCAN] = 2;
	p->v[PF_TLB_ENTRIES] = 1024;
	p->v[PF_WORKING_SET] = 64;
}

static void advise(struct fx *f, struct tuner_advice *a, struct tuner_rec *rec)
{
	struct platform p;

	unit_platform(&p);
	tuner_finish(f->t);
	tuner_recommend(f->t, &p, rec);
	tuner_advise(f->t, &p, rec, 2, 2, false, true, a);	/* base T=3 Q=2 */
}

/* Nothing counted: no point, whatever the grid says. */
static void test_verdict_insufficient(void **state)
{
	struct fx *f = *state;
	struct tuner_advice a;
	struct tuner_rec rec;

	sw(f, 0, 1);
	for (int i = 0; i < TUNER_MIN_REQUESTS - 1; i++)
		flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	advise(f, &a, &rec);
	assert_int_equal(a.verdict, TUNER_INSUFFICIENT);
	assert_int_equal(a.why, TUNER_WHY_FEW_REQUESTS);
	assert_int_equal(a.ti, -1);
}

/* Threads of one mm on both CPUs: every IPI goes to a CPU running it, lazy saves none. */
static void test_verdict_all_running(void **state)
{
	struct fx *f = *state;
	struct tuner_advice a;
	struct tuner_rec rec;

	sw(f, 0, 1);
	sw(f, 1, 1);
	for (int i = 0; i < 20; i++)
		flush(f, i % 2, 1, TS_SCOPE_RANGE, 1);
	advise(f, &a, &rec);
	assert_int_equal(tuner_model(f->t, TUNER_STOCK_ASID)->ipis, 20);
	assert_int_equal(a.ipis_saved, 0);
	assert_int_equal(a.verdict, TUNER_NO_BENEFIT);
	assert_int_equal(a.why, TUNER_WHY_ALL_RUNNING);
}

/*
 * CPU 1 ran mm 1 and went on to others: stock interrupts it at every flush of mm 1, lazy
 * queues them.  Lazy pays; and no grid point costs less than the ideal floor.
 */
static void test_verdict_pays(void **state)
{
	struct fx *f = *state;
	struct tuner_advice a;
	struct tuner_rec rec;
	struct platform p;
	double floor;

	sw(f, 0, 1);
	sw(f, 1, 1);
	for (int i = 0; i < 20; i++) {
		sw(f, 1, 2 + i % 2);
		flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	}
	advise(f, &a, &rec);
	assert_int_equal(tuner_model(f->t, TUNER_STOCK_ASID)->ipis, 20);
	assert_int_equal(tuner_model(f->t, TUNER_IDEAL)->ipis, 0);
	assert_int_equal(a.ipis_saved, 20);
	assert_int_equal(a.why, TUNER_WHY_PAYS);
	assert_int_equal(a.verdict, TUNER_ENABLE);
	assert_true(a.ti >= 0 && a.point_cost < a.stock_cost);
	/* on a lazy kernel at the point chosen, the same counts say keep */
	unit_platform(&p);
	tuner_advise(f->t, &p, &rec, a.ti, a.qi, true, true, &a);
	assert_int_equal(a.verdict, TUNER_KEEP);
	floor = tuner_model_cost(&p, tuner_model(f->t, TUNER_IDEAL));
	for (int ti = 0; ti < 3; ti++)
		for (int qi = 0; qi < 3; qi++) {
			struct tuner_counts c;

			tuner_grid_point(f->t, ti, qi, &c);
			assert_true(tuner_cost(&p, &c, Ts[ti], Qs[qi], tuner_mm_switches(f->t), 2) >=
				    floor);
		}
	/* the IPIs every lazy point shares do not move the choice */
	{
		struct tuner_rec r2;

		p.v[PF_IPI_RECV] *= 100;
		tuner_recommend(f->t, &p, &r2);
		assert_int_equal(r2.small_ti, rec.small_ti);
		assert_int_equal(r2.small_qi, rec.small_qi);
		assert_true(r2.differing == rec.differing);
	}
}

/* A sum of tuners counts what each counted, weighted; a profile read back is the same. */
static void test_merge_and_profile(void **state)
{
	struct fx *f = *state;
	struct tuner_opts o = {
		.thresholds = Ts, .nthresholds = 3, .queues = Qs, .nqueues = 3,
		.flush_all_threshold = 64, .tlb_reach_mms = 16, .ncpus = 2,
	};
	struct tuner *sum = tuner_aggregate_new(&o), *back;
	char err[256];
	json_t *j;

	sw(f, 0, 1);
	sw(f, 1, 1);
	for (int i = 0; i < 6; i++) {
		sw(f, 1, 2 + i % 3);
		flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	}
	tuner_finish(f->t);
	assert_int_equal(tuner_merge(sum, f->t, 1, err), 0);
	assert_int_equal(tuner_merge(sum, f->t, 2, err), 0);
	j = tuner_profile_json(f->t);
	back = tuner_profile_load(j, &o, err);
	assert_non_null(back);
	for (int ti = 0; ti < 3; ti++)
		for (int qi = 0; qi < 3; qi++) {
			struct tuner_counts a, b, c;

			tuner_grid_point(f->t, ti, qi, &a);
			tuner_grid_point(sum, ti, qi, &b);
			tuner_grid_point(back, ti, qi, &c);
			assert_int_equal(b.evictions, 3 * a.evictions);
			assert_int_equal(b.deferred, 3 * a.deferred);
			assert_int_equal(b.overflows, 3 * a.overflows);
			assert_int_equal(c.evictions, a.evictions);
			assert_int_equal(c.deferred, a.deferred);
			assert_int_equal(c.overflows, a.overflows);
			assert_int_equal(c.local_flushes, a.local_flushes);
		}
	assert_int_equal(tuner_model(sum, TUNER_STOCK_ASID)->ipis,
			 3 * tuner_model(f->t, TUNER_STOCK_ASID)->ipis);
	assert_int_equal(tuner_mm_switches(back), tuner_mm_switches(f->t));
	/* another grid is refused */
	{
		static const int T2[] = { 1, 2 };
		struct tuner_opts o2 = o;
		struct tuner *other;

		o2.thresholds = T2;
		o2.nthresholds = 2;
		other = tuner_aggregate_new(&o2);
		assert_int_equal(tuner_merge(other, f->t, 1, err), -1);
		tuner_free(other);
	}
	json_decref(j);
	tuner_free(back);
	tuner_free(sum);
}

/*
 * A kernel thread on CPU 1 keeps mm 1 loaded: lazy interrupts it, the lazy-idle what-if
 * queues the flush, performed when CPU 1 runs a task of mm 1 again (no switch_mm).
 */
static void test_whatif_lazy_idle(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 1, 1);
	sw(f, 1, 0);		/* a kernel thread: mm 1 held lazily */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	sw(f, 1, 1);		/* a task of mm 1 again: the queue is performed */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);	/* now running it: an IPI */
	tuner_finish(f->t);
	for (int T = 1; T <= 3; T++) {
		expect(f, T, 2, (struct tuner_counts){ .ipis = 3 });
		expect_idle(f, T, 2, (struct tuner_counts){ .ipis = 1, .deferred = 2,
				 .deferred_flushes = 1, .replayed = 2 });
		/* Q=1: the second entry overflows into the flag, nothing replayed range by range */
		expect_idle(f, T, 1, (struct tuner_counts){ .ipis = 1, .deferred = 2,
				 .deferred_flushes = 1, .overflows = 1 });
	}
	assert_int_equal(tuner_model(f->t, TUNER_IDEAL)->ipis, 1);
}

/*
 * Clear-at-full: CPU 1 left mm 1; a full flush of mm 1 interrupts it once, and it drops
 * out of the mask, so the next range flush interrupts nobody; stock interrupts it twice.
 */
static void test_clear_at_full(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 1);
	sw(f, 1, 1);
	sw(f, 1, 2);
	flush(f, 0, 1, TS_SCOPE_MM, 0);
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	sw(f, 1, 1);		/* back: in the mask again */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);
	tuner_finish(f->t);
	assert_int_equal(tuner_model(f->t, TUNER_STOCK_ASID)->ipis, 3);
	assert_int_equal(tuner_model(f->t, TUNER_CLEAR_AT_FULL)->ipis, 2);
	assert_int_equal(tuner_model(f->t, TUNER_CLEAR_AT_FULL)->ipi_requests, 2);
	assert_int_equal(tuner_clear_at_full_check(f->t), 2);
}

/*
 * Clear-at-full after a flush of every TLB: the mm CPU 1 was running stays in its mask
 * when CPU 1 moves on, and the next flush of it interrupts CPU 1; both counts agree.
 */
static void test_clear_at_full_after_reset(void **state)
{
	struct fx *f = *state;

	sw(f, 1, 1);
	sw(f, 1, 2);
	sw(f, 1, 1);
	flush(f, 0, 0, TS_SCOPE_ALL, 0);	/* 1 IPI; CPU 1 keeps mm 1 only */
	sw(f, 1, 2);				/* mm 1 stays in the mask, 2 is back */
	flush(f, 0, 1, TS_SCOPE_RANGE, 1);	/* CPU 1: 1 IPI */
	tuner_finish(f->t);
	assert_int_equal(tuner_model(f->t, TUNER_CLEAR_AT_FULL)->ipis, 2);
	assert_int_equal(tuner_clear_at_full_check(f->t), 2);
}

/*
 * A recording that starts on a running system: CPU 1's table may hold mms from before it.
 * A request whose kernel mask names CPU 1 is left undecided there, one whose mask does
 * not is decided; T=2 loads fill CPU 1's table, and from the next load on its counters
 * are exact (the load's eviction the first of them).
 */
static void test_unknown_tables(void **state)
{
	struct fx *f = *state;
	struct ts_event ev = { .kind = TS_EV_FLUSH, .cpu = 0 };
	const struct tuner_counts *base;
	struct tuner_counts since;
	uint64_t known, undecided, at;
	int slots, i = 1 * 3 + 0;	/* the direct replay of T=2, Q=0 */

	sw(f, 0, 1);
	ev.u.flush.role = TS_FLUSH_REQUEST;
	ev.u.flush.mm = 1;
	ev.u.flush.scope = TS_SCOPE_RANGE;
	ev.u.flush.pages = 1;
	ev.u.flush.fflags = TS_FF_KMASK;
	ts_cpumask_set(&ev.u.flush.kmask, 0);
	feed(f, &ev);			/* the kernel's mask: CPU 0 only, decided */
	ts_cpumask_set(&ev.u.flush.kmask, 1);
	feed(f, &ev);			/* CPU 1 too: it held mm 1 before the recording */
	base = tuner_replayed_unknown(f->t, i, 1, &slots, &known, &undecided);
	assert_non_null(base);
	assert_int_equal(slots, 2);
	assert_int_equal(undecided, 1);
	sw(f, 1, 2);
	sw(f, 1, 3);			/* CPU 1's table full of mms loaded in the trace */
	tuner_replayed_unknown(f->t, i, 1, &slots, &known, &undecided);
	assert_int_equal(slots, 0);
	assert_int_equal(known, 0);	/* known from its next load on */
	sw(f, 1, 4);
	at = f->ts;
	tuner_finish(f->t);
	base = tuner_replayed_unknown(f->t, i, 1, &slots, &known, &undecided);
	assert_int_equal(known, at);
	tuner_counts_since(&since, tuner_replayed_cpu(f->t, i, 1), base);
	assert_int_equal(base->evictions, 0);
	assert_int_equal(since.evictions, 1);
	/* CPU 0: one slot filled, one still unknown; a flush of every TLB makes it known */
	tuner_replayed_unknown(f->t, i, 0, &slots, &known, &undecided);
	assert_int_equal(slots, 1);
	assert_int_equal(undecided, 0);
}

/* A full flush of every TLB leaves each CPU only its active mm: nothing is unknown. */
static void test_unknown_tables_reset(void **state)
{
	struct fx *f = *state;
	uint64_t known, undecided;
	int slots;

	sw(f, 0, 1);
	flush(f, 1, 0, TS_SCOPE_ALL, 0);
	tuner_replayed_unknown(f->t, 8, 0, &slots, &known, &undecided);
	assert_int_equal(slots, 0);
	/* CPU 1 switched to nothing the trace showed: its active mm stays unknown */
	tuner_replayed_unknown(f->t, 8, 1, &slots, &known, &undecided);
	assert_int_equal(slots, 1);
}

/*
 * --machine decides first, then what tlbscope record saw of the machine; "metal" leaves it
 * to the trace.
 */
static void test_host_machine(void **state)
{
	const enum tuner_machine auto_ = TUNER_MACHINE_AUTO;
	struct tuner_measure *m = tuner_measure_new();
	struct tuner_host h;

	(void)state;
	tuner_host_detect(m, "Linux box 6.12 x86_64", "vm (DMI vendor: QEMU)", auto_, &h);
	assert_true(h.vm);
	assert_string_equal(h.how, "tlbscope record saw DMI vendor: QEMU");
	tuner_host_detect(m, "Linux box 6.12 x86_64", "metal (no hypervisor flag)", auto_, &h);
	assert_false(h.vm);
	tuner_host_detect(m, "Linux qemu-guest 6.12", "metal (no hypervisor flag)", auto_, &h);
	assert_true(h.vm);		/* the kernel string still names it */
	tuner_host_detect(m, NULL, NULL, auto_, &h);
	assert_false(h.vm);
	/* --machine wins over anything the input says */
	tuner_host_detect(m, "Linux qemu-guest 6.12", "vm (DMI vendor: QEMU)", TUNER_MACHINE_METAL,
			  &h);
	assert_false(h.vm);
	assert_true(h.user);
	assert_string_equal(h.how, "--machine metal");
	tuner_host_detect(m, NULL, "metal (no hypervisor flag)", TUNER_MACHINE_VM, &h);
	assert_true(h.vm);
	assert_int_equal(tuner_machine_parse("metal"), TUNER_MACHINE_METAL);
	assert_int_equal(tuner_machine_parse("auto"), TUNER_MACHINE_AUTO);
	assert_int_equal(tuner_machine_parse("bare"), -1);
	tuner_measure_free(m);
}

/* A lazy kernel's own queues: Q read from an overflow counted from an emptying load. */
static void test_lazy_kernel_queue(void **state)
{
	struct tuner_lazy_kernel k = { 0 };
	struct ts_event load = { .kind = TS_EV_LOAD_MM, .cpu = 1 };
	struct ts_event d = { .kind = TS_EV_OTHER, .cpu = 0 };

	(void)state;
	tuner_lazy_kernel_reset(&k);
	load.u.load.commit = 1;
	load.u.load.next = 0xabc0;
	d.u.defer.known = 1;
	d.u.defer.target = 1;
	d.u.defer.mm_ptr = 0xabc0;
	d.u.defer.decision = 1;		/* queued, before any load: not counted from empty */
	tuner_lazy_kernel_feed(&k, &d, "lazy_tlb_defer", true);
	d.u.defer.decision = 3;
	tuner_lazy_kernel_feed(&k, &d, "lazy_tlb_defer", true);
	assert_int_equal(k.queue, -1);
	tuner_lazy_kernel_feed(&k, &load, NULL, true);	/* the load empties the slot */
	d.u.defer.decision = 1;
	for (int i = 0; i < 5; i++)
		tuner_lazy_kernel_feed(&k, &d, "lazy_tlb_defer", true);
	d.u.defer.decision = 3;
	tuner_lazy_kernel_feed(&k, &d, "lazy_tlb_defer", true);
	assert_int_equal(k.queue, 5);
	assert_int_equal(k.queue_min, 5);
	/* an event of another probe under the same fields is not a decision */
	tuner_lazy_kernel_feed(&k, &d, "something_else", true);
	assert_int_equal(k.queue, 5);
	tuner_lazy_kernel_reset(&k);
	assert_int_equal(k.queue, -1);
	assert_null(k.qslots);
}

/* The base: the user's; on a lazy kernel that evicted nothing, a lower bound, said so. */
static void test_find_base(void **state)
{
	struct fx *f = *state;
	struct tuner_lazy_kernel k = { 0 };
	struct tuner_base b;
	const int user[2] = { 4, 64 };

	tuner_lazy_kernel_reset(&k);
	sw(f, 0, 1);
	sw(f, 0, 2);
	sw(f, 0, 3);		/* three mms on CPU 0: T=1, 2 evict, T=3 does not */
	sw(f, 0, 1);
	tuner_finish(f->t);
	tuner_find_base(f->t, &k, false, NULL, NULL, &b);
	assert_int_equal(b.T, LAZY_DEFAULT_T);
	assert_string_equal(b.T_how, "default");
	tuner_find_base(f->t, &k, true, user, NULL, &b);
	assert_int_equal(b.T, 4);
	assert_int_equal(b.Q, 64);
	assert_string_equal(b.Q_how, "user");
	tuner_find_base(f->t, &k, true, NULL, NULL, &b);
	assert_int_equal(b.T, 3);
	assert_int_equal(b.T_min, 3);
	assert_string_equal(b.T_how, "trace (at least)");
	k.evictions = tuner_evictions_at(f->t, 2);	/* the kernel evicted as T=2 does */
	tuner_find_base(f->t, &k, true, NULL, NULL, &b);
	assert_int_equal(b.T, 2);
	assert_string_equal(b.T_how, "trace");
	/* the kernel's command line tells its setting: it wins over what evictions suggest */
	tuner_find_base(f->t, &k, true, NULL, "console=ttyS0 lazytlb.max_loaded_mm=12 "
			"lazytlb.flush_queue=64 quiet", &b);
	assert_int_equal(b.T, 12);
	assert_int_equal(b.Q, 64);
	assert_string_equal(b.T_how, "the kernel's command line");
	/* a command line without them: the kernel runs its defaults */
	tuner_find_base(f->t, &k, true, NULL, "console=ttyS0 quiet", &b);
	assert_int_equal(b.T, LAZY_DEFAULT_T);
	assert_int_equal(b.Q, LAZY_DEFAULT_Q);
	assert_string_equal(b.T_how, "the kernel's default (its command line sets none)");
	/* the user's --base still wins; a stock kernel ignores the parameters */
	tuner_find_base(f->t, &k, true, user, "lazytlb.max_loaded_mm=12", &b);
	assert_int_equal(b.T, 4);
	tuner_find_base(f->t, &k, false, NULL, "lazytlb.max_loaded_mm=12", &b);
	assert_int_equal(b.T, LAZY_DEFAULT_T);
	tuner_lazy_kernel_reset(&k);
}

/* Boot parameters: in range, as whole words, not past the "--" that ends the kernel's. */
static void test_cmdline_base(void **state)
{
	int b[2];

	tuner_cmdline_base("lazytlb.max_loaded_mm=8 lazytlb.flush_queue=16", b);
	assert_int_equal(b[0], 8);
	assert_int_equal(b[1], 16);
	tuner_cmdline_base("xlazytlb.max_loaded_mm=8 lazytlb.max_loaded_mm=99 lazytlb.flush_queue=x",
			   b);
	assert_int_equal(b[0], 0);	/* 99 is past the kernel's 64: not a setting it takes */
	assert_int_equal(b[1], 0);
	tuner_cmdline_base("quiet -- lazytlb.max_loaded_mm=8", b);
	assert_int_equal(b[0], 0);
	tuner_cmdline_base("", b);
	assert_int_equal(b[0], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_lru, setup, teardown),
		cmocka_unit_test_setup_teardown(test_replay_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_empty_slot_and_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_queue_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_flag, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kthread_keeps_mm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_flush_resets, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warmup, setup_warmup, teardown),
		cmocka_unit_test_setup_teardown(test_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_insufficient, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_all_running, setup, teardown),
		cmocka_unit_test_setup_teardown(test_verdict_pays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_merge_and_profile, setup, teardown),
		cmocka_unit_test(test_lazy_kernel_queue),
		cmocka_unit_test_setup_teardown(test_whatif_lazy_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_at_full, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_at_full_after_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_tables_reset, setup, teardown),
		cmocka_unit_test(test_host_machine),
		cmocka_unit_test_setup_teardown(test_find_base, setup, teardown),
		cmocka_unit_test(test_cmdline_base),
	};

	return cmocka_run_group_tests_name("tuner", tests, NULL, NULL);
}
