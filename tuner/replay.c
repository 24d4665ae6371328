// SPDX-License-Identifier: GPL-2.0-only
/*
 * Direct replay of the kernel's flush decisions, one configuration at a time: the stock
 * models (upstream RISC-V with and without ASIDs, the ideal floor) and lazy(T, Q) following
 * docs/design.md section 4 rules 1-5 literally - slots, generations, queues and flags - so that
 * the one-pass sweep of sweep.c has something independent to be checked against.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tuner-int.h"

/* ---- stock and ideal ---- */

void stock_switch(struct tuner *t, int cpu, uint32_t mm, bool count)
{
	uint32_t old = t->active[cpu];

	mm_reserve(t, mm);
	if (old)
		cpumask_clear(&t->mm[old].active_on, cpu);
	cpumask_set(&t->mm[mm].active_on, cpu);
	cpumask_set(&t->mm[mm].ever_on, cpu);
	cpumask_set(&t->mm[mm].seeded_on, cpu);
	cpumask_set(&t->mm[mm].cf_on, cpu);
	/* without ASIDs, loading another mm flushes the whole local TLB */
	if (count) {
		t->models[TUNER_STOCK_NOASID].local_flushes++;
		t->model_cpu[TUNER_STOCK_NOASID][cpu].local_flushes++;
	}
}

/* ---- clear-at-full again, for --verify: sequence numbers, not masks ---- */

static uint64_t cf_key(int cpu, uint32_t mm)
{
	return (uint64_t)cpu << 32 | mm;
}

static bool cf_in_mask(const struct tuner *t, int c, uint32_t mm)
{
	uint64_t *l = u64map_find(&t->cf_load, cf_key(c, mm));
	uint64_t *k = u64map_find(&t->cf_clear, cf_key(c, mm));

	return l && *l && (!k || *l > *k) && *l > t->cf_reset[c];
}

void cf_check_load(struct tuner *t, int cpu, uint32_t mm)
{
	if (t->cf_check)
		*u64map_get(&t->cf_load, cf_key(cpu, mm), 0, NULL) = ++t->cf_seq;
}

void cf_check_exit(struct tuner *t, uint32_t mm)
{
	for (int c = 0; t->cf_check && c < t->ncpus; c++) {
		uint64_t *l = u64map_find(&t->cf_load, cf_key(c, mm));

		if (l)
			*l = 0;
	}
}

/* A full flush of @cpu's TLB: every mm leaves its mask but the active one, which stays */
void cf_check_reset(struct tuner *t, int cpu)
{
	if (!t->cf_check)
		return;
	t->cf_reset[cpu] = ++t->cf_seq;
	if (t->active[cpu])
		cf_check_load(t, cpu, t->active[cpu]);
}

void cf_check_flush(struct tuner *t, int cpu, uint32_t mm, bool full, bool count)
{
	bool in[TS_MAX_CPUS];

	if (!t->cf_check)
		return;
	for (int c = 0; c < t->ncpus; c++) {
		in[c] = cf_in_mask(t, c, mm);
		if (count && c != cpu && in[c])
			t->cf_ipis++;
	}
	for (int c = 0; full && c < t->ncpus; c++)
		if (in[c] && t->active[c] != mm)
			*u64map_get(&t->cf_clear, cf_key(c, mm), 0, NULL) = ++t->cf_seq;
}

uint64_t tuner_clear_at_full_check(const struct tuner *t)
{
	return t->cf_ipis;
}

void stock_exit(struct tuner *t, uint32_t mm)
{
	memset(&t->mm[mm], 0, sizeof(t->mm[mm]));
}

/*
 * What CPU @c, whose active mm is @mm, runs: a task of it, the idle task or a kernel
 * thread.  Before its first switch the trace does not say: taken as running, so that the
 * floor is never put lower than what is shown.
 */
enum tuner_target_state tuner_target_state(const struct tuner *t, int c, uint32_t mm)
{
	switch (t->run[c]) {
	case TUNER_RUN_IDLE:
		return TUNER_TGT_IDLE;
	case TUNER_RUN_KTHREAD:
		return TUNER_TGT_KTHREAD;
	case TUNER_RUN_USER:
		/* another mm's task before its switch_mm loaded it: still mm's, for now */
		return TUNER_TGT_RUNNING;
	default:
		return TUNER_TGT_RUNNING;
	}
}

/*
 * A request for @mm from @cpu: one IPI per remote CPU in each model's mask.  @kmask, when
 * the event has it, is the kernel's own mask, which seeds the check-only seeded mask.
 */
void stock_reset(struct tuner *t, int cpu)
{
	for (size_t mm = 1; mm < t->nmm; mm++)
		if (mm != t->active[cpu])
			cpumask_clear(&t->mm[mm].cf_on, cpu);
}

/*
 * Clear-at-full: each target of a full flush of @mm flushes the mm's whole ASID, and one
 * that is not running it (its active mm is another) leaves the mask.
 */
static void clear_at_full(struct tuner *t, int cpu, uint32_t mm, bool full, bool count)
{
	struct mm_state *m = &t->mm[mm];
	int n = cpumask_weight(&m->cf_on) - cpumask_test(&m->cf_on, cpu);

	if (count) {
		t->models[TUNER_CLEAR_AT_FULL].ipis += n;
		t->models[TUNER_CLEAR_AT_FULL].ipi_requests += n > 0;
		for (int c = 0; c < t->ncpus; c++)
			if (c != cpu && cpumask_test(&m->cf_on, c))
				t->model_cpu[TUNER_CLEAR_AT_FULL][c].ipis++;
		if (cpumask_test(&m->cf_on, cpu)) {
			t->models[TUNER_CLEAR_AT_FULL].local_flushes++;
			t->model_cpu[TUNER_CLEAR_AT_FULL][cpu].local_flushes++;
		}
	}
	if (!full)
		return;
	for (int c = 0; c < t->ncpus; c++)
		if (cpumask_test(&m->cf_on, c) && t->active[c] != mm)
			cpumask_clear(&m->cf_on, c);
}

void stock_flush(struct tuner *t, int cpu, uint32_t mm, bool full, const struct ts_cpumask *kmask,
		 bool count)
{
	struct mm_state *m = &t->mm[mm];
	int ever = cpumask_weight(&m->ever_on), act = cpumask_weight(&m->active_on);
	int running = 0;

	if (kmask && !m->seeded) {
		struct ts_cpumask before = m->seeded_on;

		for (size_t i = 0; i < TS_MAX_CPUS / 64; i++)
			m->seeded_on.bits[i] |= kmask->bits[i];
		m->seeded = true;
		if (memcmp(&before, &m->seeded_on, sizeof(before)))
			t->seeded_mms++;
	}
	clear_at_full(t, cpu, mm, full, count);
	if (!count)
		return;
	t->seeded_ipis += cpumask_weight(&m->seeded_on) - cpumask_test(&m->seeded_on, cpu);
	ever -= cpumask_test(&m->ever_on, cpu);
	act -= cpumask_test(&m->active_on, cpu);
	t->models[TUNER_STOCK_ASID].ipis += ever;
	t->models[TUNER_STOCK_NOASID].ipis += act;
	t->models[TUNER_LAZY].ipis += act;
	t->models[TUNER_STOCK_ASID].ipi_requests += ever > 0;
	t->models[TUNER_STOCK_NOASID].ipi_requests += act > 0;
	t->models[TUNER_LAZY].ipi_requests += act > 0;
	for (int c = 0; c < t->ncpus; c++) {
		if (c == cpu)
			continue;
		if (cpumask_test(&m->ever_on, c))
			t->model_cpu[TUNER_STOCK_ASID][c].ipis++;
		if (cpumask_test(&m->active_on, c)) {
			enum tuner_target_state st = tuner_target_state(t, c, mm);

			t->model_cpu[TUNER_STOCK_NOASID][c].ipis++;
			t->model_cpu[TUNER_LAZY][c].ipis++;
			t->lazy_split[st]++;
			if (st == TUNER_TGT_RUNNING) {
				t->model_cpu[TUNER_IDEAL][c].ipis++;
				running++;
			}
		}
	}
	t->models[TUNER_IDEAL].ipis += running;
	t->models[TUNER_IDEAL].ipi_requests += running > 0;
	if (cpumask_test(&m->ever_on, cpu)) {
		t->models[TUNER_STOCK_ASID].local_flushes++;
		t->model_cpu[TUNER_STOCK_ASID][cpu].local_flushes++;
	}
	if (cpumask_test(&m->active_on, cpu)) {
		static const enum tuner_model act_models[] = {
			TUNER_STOCK_NOASID, TUNER_IDEAL, TUNER_LAZY
		};

		for (size_t k = 0; k < sizeof(act_models) / sizeof(act_models[0]); k++) {
			t->models[act_models[k]].local_flushes++;
			t->model_cpu[act_models[k]][cpu].local_flushes++;
		}
	}
}

/* ---- lazy(T, Q), literally ---- */

struct slot {
	uint32_t mm;		/* 0: empty */
	uint32_t queued;	/* range entries waiting */
	uint64_t pages;		/* and their pages */
	uint64_t gen;
	bool flag;		/* flush the whole ASID at switch-back */
};

struct lazy {
	int T, Q;
	bool idle;		/* lazy-idle: CPUs holding the mm lazily are queued, not sent */
	int ncpus;
	struct slot *slots;	/* ncpus * T */
	uint64_t *gen;		/* per-CPU generation counter */
	struct ts_cpumask *mask;	/* per mm: CPUs holding it in their table */
	size_t nmask;
	struct tuner_counts c;
	/*
	 * Per CPU, where each thing happens: IPIs, deferrals and overflows on the target,
	 * deferred flushes, evictions and resets on the CPU that does them, local flushes
	 * on the requester.
	 */
	struct tuner_counts *cpu;
	/*
	 * A recording that starts on a running system does not show what each CPU's table
	 * held before it.  Per CPU: how many slots may still hold such an mm (T at first;
	 * a slot the replay fills while the table is not full may be one of them in the
	 * kernel); the first load once none can (0: not yet), from which on the CPU's
	 * counters are the kernel's, and its counters just before that load; the requests
	 * whose target the replay could not decide for that reason.
	 */
	int *unknown;
	uint64_t *known_at;
	struct tuner_counts *known_base;
	uint64_t *undecided;
	int nunknown;		/* CPUs with unknown slots */
	FILE *log;		/* lazy_log_decisions() */
};

struct lazy *lazy_new(int T, int Q, int ncpus, bool idle)
{
	struct lazy *l = xcalloc(1, sizeof(*l));

	l->idle = idle;
	l->T = T;
	l->Q = Q;
	l->ncpus = ncpus;
	l->slots = xcalloc((size_t)ncpus * T, sizeof(*l->slots));
	l->gen = xcalloc(ncpus, sizeof(*l->gen));
	l->cpu = xcalloc(ncpus, sizeof(*l->cpu));
	l->unknown = xcalloc(ncpus, sizeof(*l->unknown));
	l->known_at = xcalloc(ncpus, sizeof(*l->known_at));
	l->known_base = xcalloc(ncpus, sizeof(*l->known_base));
	l->undecided = xcalloc(ncpus, sizeof(*l->undecided));
	for (int c = 0; c < ncpus; c++)
		l->unknown[c] = T;
	l->nunknown = ncpus;
	return l;
}

void lazy_free(struct lazy *l)
{
	if (!l)
		return;
	free(l->slots);
	free(l->gen);
	free(l->mask);
	free(l->cpu);
	free(l->unknown);
	free(l->known_at);
	free(l->known_base);
	free(l->undecided);
	free(l);
}

const struct tuner_counts *lazy_counts(const struct lazy *l)
{
	return &l->c;
}

const struct tuner_counts *lazy_cpu_counts(const struct lazy *l, int cpu)
{
	return &l->cpu[cpu];
}

/* Count @field once in the totals and once for CPU @at. */
#define COUNT(l, at, field)	do { (l)->c.field++; (l)->cpu[at].field++; } while (0)

static struct ts_cpumask *lazy_mask(struct lazy *l, uint32_t mm)
{
	ALLOC_GROW_ZERO(l->mask, mm + 1, l->nmask);
	return &l->mask[mm];
}

static struct slot *slot_of(struct lazy *l, int cpu, uint32_t mm)
{
	struct slot *s = &l->slots[(size_t)cpu * l->T];

	for (int i = 0; i < l->T; i++)
		if (s[i].mm == mm)
			return &s[i];
	return NULL;
}

/* At most @n of @cpu's slots may hold an mm from before the recording. */
static void unknown_at_most(struct lazy *l, int cpu, int n)
{
	if (l->unknown[cpu] <= n)
		return;
	l->unknown[cpu] = n;
	l->nunknown -= !n;
}

/* @cpu flushes the ranges queued in @s itself, at its switch back to the mm. */
static void drained(struct lazy *l, int cpu, const struct slot *s)
{
	struct tuner_counts *c[] = { &l->c, &l->cpu[cpu] };

	for (int k = 0; k < 2; k++) {
		c[k]->replayed += s->queued;
		c[k]->replayed_pages += s->pages;
		if (s->queued > c[k]->drain_max)
			c[k]->drain_max = s->queued;
		if (s->pages > c[k]->drain_max_pages)
			c[k]->drain_max_pages = s->pages;
	}
}

/* @cpu performs what slot @s holds, the queued ranges or one whole-ASID flush for the flag. */
static void perform_queue(struct lazy *l, int cpu, struct slot *s, bool count)
{
	if (!s->queued && !s->flag)
		return;
	if (count) {
		COUNT(l, cpu, deferred_flushes);
		if (!s->flag)
			drained(l, cpu, s);
	}
	s->queued = 0;
	s->pages = 0;
	s->flag = false;
}

/* Rule 1: @cpu loads @mm (the caller checked it is not a kernel thread nor active). */
void lazy_switch(struct lazy *l, int cpu, uint32_t mm, uint64_t ts, bool count)
{
	struct slot *s = slot_of(l, cpu, mm), *row = &l->slots[(size_t)cpu * l->T];
	int empty = 0;

	if (!l->unknown[cpu] && !l->known_at[cpu]) {
		l->known_at[cpu] = ts ? ts : 1;
		l->known_base[cpu] = l->cpu[cpu];
	}

	if (s) {
		s->gen = ++l->gen[cpu];
		perform_queue(l, cpu, s, count);
		return;
	}
	/* miss: the lowest-index empty slot, else the least recently loaded */
	for (int i = 0; i < l->T && !s; i++)
		if (!row[i].mm)
			s = &row[i];
	if (!s) {
		s = &row[0];
		for (int i = 1; i < l->T; i++)
			if (row[i].gen < s->gen)
				s = &row[i];
		if (count)
			COUNT(l, cpu, evictions);
		cpumask_clear(lazy_mask(l, s->mm), cpu);
	}
	*s = (struct slot){ .mm = mm, .gen = ++l->gen[cpu] };
	cpumask_set(lazy_mask(l, mm), cpu);
	/*
	 * The kernel fills an empty slot, else evicts the least recently loaded, which is
	 * an mm from before the recording while any is left: the slots still unknown are
	 * among those the replay sees empty
	 */
	for (int i = 0; i < l->T && l->unknown[cpu]; i++)
		empty += !row[i].mm;
	unknown_at_most(l, cpu, empty);
}

void lazy_log_decisions(struct lazy *l, FILE *f)
{
	l->log = f;
}

/*
 * The codes of a lazy-flush kernel's lazy_tlb_defer(mm, cpu, decision), and the
 * replay's own for a target it cannot decide: not in the mm's mask as far as the trace
 * shows, but its table may hold the mm from before the recording.
 */
enum { DECIDE_IPI, DECIDE_QUEUED, DECIDE_FLAG_FULL, DECIDE_FLAG_OVERFLOW, DECIDE_ABSORBED,
       DECIDE_UNKNOWN = 7 };

static void decided(const struct lazy *l, uint64_t ts, int cpu, int target, int decision)
{
	if (l->log)
		fprintf(l->log, "%llu %d %d %d\n", (unsigned long long)ts, cpu, target, decision);
}

/*
 * Rule 2: a request from @cpu; @full: a whole-mm flush (or a range past the threshold);
 * @kmask: the kernel's mask of the mm, when the event has it (NULL: not known).
 */
void lazy_flush(struct lazy *l, const struct tuner *tu, int cpu, uint32_t mm, bool full,
		uint64_t pages, uint64_t ts, const struct ts_cpumask *kmask, bool count)
{
	const uint32_t *active = tu->active;
	struct ts_cpumask *m = lazy_mask(l, mm);
	bool sent = false;

	if (count && cpumask_test(m, cpu))
		COUNT(l, cpu, local_flushes);
	for (int t = 0; l->nunknown && t < l->ncpus; t++) {
		/* the request's own mask, when it has one, says whether the kernel held it */
		if (t == cpu || !l->unknown[t] || cpumask_test(m, t) ||
		    (kmask && !cpumask_test(kmask, t)))
			continue;
		l->undecided[t] += count;
		decided(l, ts, cpu, t, DECIDE_UNKNOWN);
	}
	for (int t = 0; t < l->ncpus; t++) {
		struct slot *s;

		if (!m->bits[t / 64]) {
			t |= 63;
			continue;
		}
		if (t == cpu || !cpumask_test(m, t))
			continue;
		if (active[t] == mm &&
		    (!l->idle || tuner_target_state(tu, t, mm) == TUNER_TGT_RUNNING)) {
			if (count)
				COUNT(l, t, ipis);
			sent = true;
			decided(l, ts, cpu, t, DECIDE_IPI);
			continue;
		}
		if (count)
			COUNT(l, t, deferred);
		s = slot_of(l, t, mm);
		if (s->flag) {
			decided(l, ts, cpu, t, DECIDE_ABSORBED);
			continue;
		}
		if (full) {
			s->flag = true;
			decided(l, ts, cpu, t, DECIDE_FLAG_FULL);
		} else if (s->queued < (uint32_t)l->Q) {
			s->queued++;
			s->pages += pages;
			decided(l, ts, cpu, t, DECIDE_QUEUED);
		} else {
			s->flag = true;
			s->queued = 0;
			s->pages = 0;
			if (count)
				COUNT(l, t, overflows);
			decided(l, ts, cpu, t, DECIDE_FLAG_OVERFLOW);
		}
	}
	if (count && sent)
		l->c.ipi_requests++;
}

void lazy_resume(struct lazy *l, int cpu, uint32_t mm, bool count)
{
	struct slot *s;

	if (l->idle && (s = slot_of(l, cpu, mm)))
		perform_queue(l, cpu, s, count);
}

/* Rule 3: the mm is gone from every table. */
void lazy_exit(struct lazy *l, uint32_t mm)
{
	for (int c = 0; c < l->ncpus; c++) {
		struct slot *s = slot_of(l, c, mm);

		if (s)
			*s = (struct slot){ 0 };
	}
	memset(lazy_mask(l, mm), 0, sizeof(struct ts_cpumask));
}

/* held[mm] = 1 for every mm (< @n) a table of @l holds */
void lazy_mark(const struct lazy *l, uint8_t *held, size_t n)
{
	for (size_t i = 0; i < (size_t)l->ncpus * l->T; i++)
		if (l->slots[i].mm < n)
			held[l->slots[i].mm] = 1;
}

/* mm @mm's id is to name another: nothing of it may be left */
void lazy_forget(struct lazy *l, uint32_t mm)
{
	if (mm < l->nmask)
		memset(&l->mask[mm], 0, sizeof(l->mask[mm]));
}

/*
 * Rule 4: a full local flush on @cpu keeps only the active mm (0: not known yet, so
 * one slot stays unknown).
 */
void lazy_reset(struct lazy *l, int cpu, uint32_t active, bool count)
{
	struct slot *row = &l->slots[(size_t)cpu * l->T];

	for (int i = 0; i < l->T; i++) {
		if (!row[i].mm || row[i].mm == active)
			continue;
		cpumask_clear(lazy_mask(l, row[i].mm), cpu);
		row[i] = (struct slot){ 0 };
	}
	unknown_at_most(l, cpu, !active);
	if (count)
		COUNT(l, cpu, table_resets);
}

void lazy_kernel_flush(struct lazy *l, int ncpus, bool count)
{
	if (count) {
		l->c.ipis += ncpus - 1;
		l->c.ipi_requests += ncpus > 1;
	}
}

void lazy_targets_flush(struct lazy *l, int remote, bool count)
{
	if (count) {
		l->c.ipis += remote;
		l->c.ipi_requests += remote > 0;
	}
}

void lazy_cpu_state(const struct lazy *l, int cpu, int *loaded, uint64_t *queued, int *flagged)
{
	const struct slot *row = &l->slots[(size_t)cpu * l->T];

	*loaded = *flagged = 0;
	*queued = 0;
	for (int i = 0; i < l->T; i++) {
		if (!row[i].mm)
			continue;
		(*loaded)++;
		*queued += row[i].queued;
		*flagged += row[i].flag;
	}
}

const struct tuner_counts *lazy_unknown(const struct lazy *l, int cpu, int *slots,
					uint64_t *known_at, uint64_t *undecided)
{
	*slots = l->unknown[cpu];
	*known_at = l->known_at[cpu];
	*undecided = l->undecided[cpu];
	return &l->known_base[cpu];
}

bool lazy_holds(const struct lazy *l, int cpu, uint32_t mm)
{
	const struct slot *row = &l->slots[(size_t)cpu * l->T];

	for (int i = 0; i < l->T; i++)
		if (row[i].mm == mm)
			return true;
	return false;
}
