// SPDX-License-Identifier: GPL-2.0-only
/*
 * The one-pass sweep of lazy(T, Q) over a whole grid.  The loaded-mm table is an exact LRU
 * (generations only grow), so each CPU keeps one recency stack and table T holds the mms
 * in its top T positions (Mattson's inclusion property).  Deletions (exit, full flush)
 * leave holes in place instead of closing the gap: a hole is an empty slot in every table
 * that reaches it, and the next miss fills the topmost hole.  Invariants:
 *  - positions only grow while an mm is not switched to, so the flush entries that landed
 *    in table T during one absence are a prefix of that absence's entries;
 *  - an eviction from table T happens on a miss at depth > T when the top T positions
 *    hold no hole and the stack is at least T deep.
 * Counts for every T come from difference arrays over depth; overflows, which depend on
 * Q, from the first Q+1 range entries of each absence.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "../lib/lib.h"
#include "tuner-int.h"

struct range_entry {
	uint16_t pos;		/* depth of the mm on the target when the entry arrived */
	uint32_t pages;		/* of the range (at most tlb_flush_all_threshold) */
	uint64_t ts;
};

/* One absence of an mm from a CPU (switched away, entries queued until it returns). */
struct absence {
	bool any;		/* some entry (range or full) arrived */
	bool full_seen;		/* a whole-mm entry arrived: later ranges are absorbed */
	int nranges;		/* range entries before the first full one, up to qcap */
	struct range_entry *ranges;
};

struct stack {
	uint32_t mm[CAP];	/* position i + 1; 0 is a hole */
	int len;		/* no trailing holes */
};

/*
 * @st's mms as the wide characters wmemchr() searches: wchar_t is a 4-byte int on the
 * Linux targets, and an unsigned int may be read through an int.
 */
_Static_assert(sizeof(wchar_t) == sizeof(uint32_t), "wchar_t is 4 bytes");
static inline const wchar_t *stack_chars(const struct stack *st)
{
	return (const wchar_t *)st->mm;
}

struct sweep {
	int ncpus, nT, nQ, qcap, reach;
	/*
	 * The lazy-idle what-if: a CPU whose active mm is the flushed one but that runs the
	 * idle task or a kernel thread gets the entry queued at position 1, performed when it
	 * next runs a task of the mm (sweep_resume()) or switches back to it
	 */
	bool idle;
	const int *T, *Q;
	uint64_t warm_ts;
	struct stack *st;		/* per CPU; @share's when it was given one */
	bool st_borrowed;
	uint64_t (*hist)[CAP + 1];	/* per CPU reuse distances */
	struct u64map open;		/* (cpu << 32 | mm) -> absence index + 1 */
	size_t nopen;			/* absences open: none, and a switch looks none up */
	struct absence *abs;
	size_t nabs, abs_alloc;
	size_t *free_abs;
	size_t nfree, free_alloc;
	struct sweep_counts c;
	/* per grid point, the largest single drain: entries, and pages (not additive) */
	uint64_t *drain_max, *drain_max_pages;
};

struct sweep *sweep_new(const struct tuner *t, bool idle, struct sweep *share)
{
	struct sweep *s = xcalloc(1, sizeof(*s));

	s->idle = idle;
	s->ncpus = t->ncpus;
	s->nT = t->o.nthresholds;
	s->nQ = t->o.nqueues;
	s->T = t->thresholds;
	s->Q = t->queues;
	for (int i = 0; i < s->nQ; i++)
		if (s->Q[i] + 1 > s->qcap)
			s->qcap = s->Q[i] + 1;
	s->reach = t->o.tlb_reach_mms > CAP ? CAP : t->o.tlb_reach_mms;
	s->st_borrowed = share != NULL;
	s->st = share ? share->st : xcalloc(s->ncpus, sizeof(*s->st));
	s->hist = xcalloc(s->ncpus, sizeof(*s->hist));
	s->c.overflow = xcalloc(grid_cells(s->nT, s->nQ), sizeof(*s->c.overflow));
	s->drain_max = xcalloc((size_t)s->nT * s->nQ, sizeof(*s->drain_max));
	s->drain_max_pages = xcalloc((size_t)s->nT * s->nQ, sizeof(*s->drain_max_pages));
	u64map_init(&s->open);
	return s;
}

void sweep_free(struct sweep *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nabs; i++)
		free(s->abs[i].ranges);
	free(s->abs);
	free(s->free_abs);
	if (!s->st_borrowed)
		free(s->st);
	free(s->hist);
	free(s->c.overflow);
	free(s->drain_max);
	free(s->drain_max_pages);
	u64map_release(&s->open);
	free(s);
}

void sweep_set_start(struct sweep *s, uint64_t warm_ts);
void sweep_set_start(struct sweep *s, uint64_t warm_ts)
{
	s->warm_ts = warm_ts;
}

/* the top of a stack looked at one by one before libc's search: most switches end there */
#define FIND_NEAR	4

/*
 * The position of @mm among @st's top @n (1 the top), 0 none; 0 finds the topmost hole.
 * Past the top few, searched as wide characters (the same 4 bytes: libc's search compares
 * many at once): most of a switch's cost when the stack is deep (hackbench: 64 mms).
 * The top few first, by hand: a switch between a handful of mms (a pair ping-ponging)
 * spent more in the call than in the search (live top: up to 4 % of its time in
 * wmemchr()).
 */
static int find_in(const struct stack *st, uint32_t mm, int n)
{
	const wchar_t *at;
	int near = n < FIND_NEAR ? n : FIND_NEAR;

	for (int i = 0; i < near; i++)
		if (st->mm[i] == mm)
			return i + 1;
	if (n <= FIND_NEAR)
		return 0;
	at = wmemchr(stack_chars(st) + FIND_NEAR, (wchar_t)mm, (size_t)(n - FIND_NEAR));
	return at ? (int)(at - stack_chars(st)) + 1 : 0;
}

static int pos_of(const struct stack *st, uint32_t mm)
{
	return find_in(st, mm, st->len);
}

static uint64_t key(int cpu, uint32_t mm)
{
	return (uint64_t)cpu << 32 | mm;
}

static struct absence *absence_get(struct sweep *s, int cpu, uint32_t mm)
{
	bool added;
	uint64_t *v = u64map_get(&s->open, key(cpu, mm), 0, &added);
	size_t i;

	if (*v)
		return &s->abs[*v - 1];
	if (s->nfree) {
		i = s->free_abs[--s->nfree];
	} else {
		ALLOC_GROW(s->abs, s->nabs + 1, s->abs_alloc);
		i = s->nabs++;
		s->abs[i].ranges = xcalloc(s->qcap ? s->qcap : 1, sizeof(struct range_entry));
	}
	s->abs[i].any = s->abs[i].full_seen = false;
	s->abs[i].nranges = 0;
	*v = i + 1;
	s->nopen++;
	return &s->abs[i];
}

/*
 * The absence of @mm from @cpu ends: switched back at depth @back (a hit for T >= back),
 * or removed from the stack (@back = 0).  Overflows happened when the (Q+1)-th range
 * entry arrived, whatever came later.
 */
static void absence_close(struct sweep *s, int cpu, uint32_t mm, int back, bool count)
{
	uint64_t *v;
	struct absence *a;

	if (!s->nopen)
		return;
	v = u64map_find(&s->open, key(cpu, mm));
	if (!v || !*v)
		return;
	a = &s->abs[*v - 1];
	for (int ti = 0; ti < s->nT; ti++) {
		int k = 0;

		while (k < a->nranges && a->ranges[k].pos <= s->T[ti])
			k++;
		for (int qi = 0; qi < s->nQ; qi++)
			if (k > s->Q[qi] && a->ranges[s->Q[qi]].ts >= s->warm_ts)
				s->c.overflow[ti * s->nQ + qi]++;
	}
	/*
	 * Switched back into every table T >= back, all entries landed there (positions only
	 * grow): without the flag and with at most Q of them, the CPU flushes each range
	 * itself now.  Tables smaller than back evicted the mm and dropped its queue.
	 */
	if (back && count && a->nranges && !a->full_seen) {
		size_t n = (size_t)s->nT * s->nQ;
		uint64_t pages = 0;

		for (int k = 0; k < a->nranges; k++)
			pages += a->ranges[k].pages;
		for (int ti = 0; ti < s->nT; ti++) {
			if (s->T[ti] < back)
				continue;
			for (int qi = 0; qi < s->nQ; qi++) {
				size_t i = (size_t)ti * s->nQ + qi;

				if (a->nranges > s->Q[qi])
					continue;
				s->c.overflow[GRID_REPLAYED * n + i] += a->nranges;
				s->c.overflow[GRID_REPLAYED_PAGES * n + i] += pages;
				if ((uint64_t)a->nranges > s->drain_max[i])
					s->drain_max[i] = a->nranges;
				if (pages > s->drain_max_pages[i])
					s->drain_max_pages[i] = pages;
			}
		}
	}
	if (back && a->any && count)
		s->c.dfl[back]++;
	ALLOC_GROW(s->free_abs, s->nfree + 1, s->free_alloc);
	s->free_abs[s->nfree++] = *v - 1;
	*v = 0;
	s->nopen--;
}

static void trim(struct stack *st)
{
	while (st->len && !st->mm[st->len - 1])
		st->len--;
}

static void range_add(int64_t *diff, int from, int to)
{
	if (to < from)
		return;
	diff[from]++;
	diff[to + 1]--;
}

/*
 * Rule 1 for every T at once, in each of the @n sweeps of @sw (sharing one stack per CPU):
 * @cpu loads @mm (not a kernel thread, not already active).
 */
void sweep_switch(struct sweep *const *sw, int n, int cpu, uint32_t mm, bool count)
{
	struct stack *st = &sw[0]->st[cpu];
	int dx, h, e;
	int far = CAP + 1;

	/*
	 * The mm's depth dx, then the topmost hole h above it: a hole below dx changes
	 * nothing (the evictions stop at dx - 1, the hit closes no hole).
	 */
	dx = pos_of(st, mm);
	h = find_in(st, 0, dx ? dx - 1 : st->len);
	/* evicted from table T: a miss (T < dx), no hole in the top T, T mms stacked */
	e = dx ? dx - 1 : far - 1;
	if (h && h - 1 < e)
		e = h - 1;
	if (st->len < e)
		e = st->len;
	for (int k = 0; k < n; k++) {
		struct sweep *s = sw[k];

		if (count) {
			s->hist[cpu][dx ? dx : 0]++;
			if (dx)
				s->c.hits[dx]++;
			range_add(s->c.evict, 1, e);
		}
		if (dx)
			absence_close(s, cpu, mm, dx, count);
	}

	if (h && (!dx || h < dx)) {
		/* the miss (for small T) fills the topmost hole */
		memmove(&st->mm[1], &st->mm[0], (h - 1) * sizeof(st->mm[0]));
		if (dx)
			st->mm[dx - 1] = 0;
	} else if (dx) {
		memmove(&st->mm[1], &st->mm[0], (dx - 1) * sizeof(st->mm[0]));
	} else {
		if (st->len == CAP) {
			/* deeper than any table: gone for every T */
			for (int k = 0; k < n; k++)
				absence_close(sw[k], cpu, st->mm[CAP - 1], 0, count);
			st->len--;
		}
		memmove(&st->mm[1], &st->mm[0], st->len * sizeof(st->mm[0]));
		st->len++;
	}
	st->mm[0] = mm;
	trim(st);
}

/* Rule 2 for every T: entries land in the tables deep enough to hold the mm. */
void sweep_flush(struct sweep *s, const struct tuner *t, int cpu, uint32_t mm, bool full,
		 uint64_t pages, uint64_t ts, bool count)
{
	const struct ts_cpumask *ever = &t->mm[mm].ever_on;
	int pc = pos_of(&s->st[cpu], mm);

	if (pc && count)
		s->c.local[pc]++;
	/* only CPUs that ever loaded the mm can hold it in a table */
	for (int c = 0; c < s->ncpus; c++) {
		struct absence *a;
		int p;

		if (!ever->bits[c / 64]) {
			c |= 63;
			continue;
		}
		if (c == cpu || !cpumask_test(ever, c))
			continue;
		p = pos_of(&s->st[c], mm);
		if (!p)
			continue;	/* not held */
		if (p == 1 && (!s->idle || tuner_target_state(t, c, mm) == TUNER_TGT_RUNNING))
			continue;	/* active there: an IPI (the models count it) */
		if (count)
			s->c.deferred[p]++;
		a = absence_get(s, c, mm);
		a->any = true;
		if (a->full_seen)
			continue;
		if (full)
			a->full_seen = true;
		else if (a->nranges < s->qcap)
			a->ranges[a->nranges++] = (struct range_entry){
				.pos = (uint16_t)p, .pages = (uint32_t)pages, .ts = ts
			};
	}
}

/* Lazy-idle: @cpu runs a task of its active mm @mm again and performs what was queued. */
void sweep_resume(struct sweep *s, int cpu, uint32_t mm, bool count)
{
	if (s->idle && pos_of(&s->st[cpu], mm) == 1)
		absence_close(s, cpu, mm, 1, count);
}

/* held[mm] = 1 for every mm (< @n) a stack of @s holds or an open absence waits for */
void sweep_mark(const struct sweep *s, uint8_t *held, size_t n)
{
	size_t i = 0;
	uint64_t k, *v;

	for (int c = 0; c < s->ncpus; c++)
		for (int d = 0; d < s->st[c].len; d++)
			if (s->st[c].mm[d] < n)
				held[s->st[c].mm[d]] = 1;
	while (u64map_next(&s->open, &i, &k, &v))
		if (*v && (uint32_t)k < n)
			held[(uint32_t)k] = 1;
}

/* Rule 3, in each of the @n sweeps of @sw: the mm leaves every stack; its place a hole. */
void sweep_exit(struct sweep *const *sw, int n, const struct tuner *t, uint32_t mm)
{
	for (int c = 0; c < sw[0]->ncpus; c++) {
		struct stack *st = &sw[0]->st[c];
		int p;

		if (!cpumask_test(&t->mm[mm].ever_on, c))
			continue;
		p = pos_of(st, mm);
		if (!p)
			continue;
		for (int k = 0; k < n; k++)
			absence_close(sw[k], c, mm, 0, true);
		st->mm[p - 1] = 0;
		trim(st);
	}
}

/* Rule 4, in each of the @n sweeps of @sw: a full local flush keeps only the active mm. */
void sweep_reset(struct sweep *const *sw, int n, int cpu, bool count)
{
	struct stack *st = &sw[0]->st[cpu];

	for (int i = 1; i < st->len; i++)
		for (int k = 0; k < n && st->mm[i]; k++)
			absence_close(sw[k], cpu, st->mm[i], 0, true);
	st->len = st->len && st->mm[0] ? 1 : 0;
	for (int k = 0; k < n && count; k++)
		sw[k]->c.resets++;
}

void sweep_finish(struct sweep *s)
{
	for (int c = 0; c < s->ncpus; c++)
		for (int i = 0; i < s->st[c].len; i++)
			if (s->st[c].mm[i])
				absence_close(s, c, s->st[c].mm[i], 0, true);
}

void sweep_counts_point(const struct sweep *s, const struct sweep_counts *c, int ti, int qi,
			struct tuner_counts *out)
{
	sweep_counts_point_reach(s, c, ti, qi, s->reach, out);
}

void sweep_counts_point_reach(const struct sweep *s, const struct sweep_counts *c, int ti, int qi,
			      int reach, struct tuner_counts *out)
{
	int T = s->T[ti];
	size_t n = (size_t)s->nT * s->nQ, i = (size_t)ti * s->nQ + qi;
	int64_t ev = 0;

	memset(out, 0, sizeof(*out));
	for (int d = 1; d <= T && d <= CAP; d++) {
		ev += c->evict[d];
		out->deferred += c->deferred[d];
		out->deferred_flushes += c->dfl[d];
		out->local_flushes += c->local[d];
	}
	/*
	 * A switch-back at depth d missed every table T < d: the mm had been evicted, and its
	 * entries would still have been in the TLB when fewer than @reach other mms ran.
	 */
	for (int d = T + 1; d <= reach && d <= CAP; d++)
		out->refills += c->hits[d];
	out->evictions = (uint64_t)ev;
	out->overflows = c->overflow[GRID_OVERFLOW * n + i];
	out->replayed = c->overflow[GRID_REPLAYED * n + i];
	out->replayed_pages = c->overflow[GRID_REPLAYED_PAGES * n + i];
	out->table_resets = c->resets;
	if (c == &s->c) {
		out->drain_max = s->drain_max[i];
		out->drain_max_pages = s->drain_max_pages[i];
	}
}

void sweep_point(const struct sweep *s, int ti, int qi, struct tuner_counts *out)
{
	sweep_counts_point(s, &s->c, ti, qi, out);
}

const struct sweep_counts *sweep_counts(const struct sweep *s)
{
	return &s->c;
}

void sweep_counts_copy(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *src)
{
	uint64_t *ov = dst->overflow;

	if (!ov)
		ov = xcalloc(grid_cells(s->nT, s->nQ), sizeof(*ov));
	*dst = *src;
	dst->overflow = ov;
	memcpy(ov, src->overflow, grid_cells(s->nT, s->nQ) * sizeof(*ov));
}

void sweep_counts_sub(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *a,
		      const struct sweep_counts *b)
{
	for (int d = 0; d < CAP + 2; d++) {
		dst->evict[d] = a->evict[d] - b->evict[d];
		dst->deferred[d] = a->deferred[d] - b->deferred[d];
		dst->dfl[d] = a->dfl[d] - b->dfl[d];
		dst->local[d] = a->local[d] - b->local[d];
		dst->hits[d] = a->hits[d] - b->hits[d];
	}
	dst->resets = a->resets - b->resets;
	for (size_t i = 0; i < grid_cells(s->nT, s->nQ); i++)
		dst->overflow[i] = a->overflow[i] - b->overflow[i];
}

void sweep_reuse(const struct sweep *s, int cpu, uint64_t hist[CAP + 1])
{
	memset(hist, 0, (CAP + 1) * sizeof(*hist));
	for (int c = 0; c < s->ncpus; c++)
		if (cpu < 0 || c == cpu)
			for (int d = 0; d <= CAP; d++)
				hist[d] += s->hist[c][d];
}

void sweep_counts_add(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *src,
		      uint64_t w)
{
	for (int d = 0; d < CAP + 2; d++) {
		dst->evict[d] += src->evict[d] * (int64_t)w;
		dst->deferred[d] += src->deferred[d] * w;
		dst->dfl[d] += src->dfl[d] * w;
		dst->local[d] += src->local[d] * w;
		dst->hits[d] += src->hits[d] * w;
	}
	dst->resets += src->resets * w;
	for (size_t i = 0; i < grid_cells(s->nT, s->nQ); i++)
		dst->overflow[i] += src->overflow[i] * w;
}

struct sweep_counts *sweep_counts_mut(struct sweep *s)
{
	return &s->c;
}

void sweep_drain_max_add(struct sweep *dst, const struct sweep *src)
{
	for (size_t i = 0; i < (size_t)dst->nT * dst->nQ; i++) {
		if (src->drain_max[i] > dst->drain_max[i])
			dst->drain_max[i] = src->drain_max[i];
		if (src->drain_max_pages[i] > dst->drain_max_pages[i])
			dst->drain_max_pages[i] = src->drain_max_pages[i];
	}
}

uint64_t *sweep_drain_max_mut(struct sweep *s, bool pages)
{
	return pages ? s->drain_max_pages : s->drain_max;
}

void sweep_reuse_add(struct sweep *s, const uint64_t hist[CAP + 1], uint64_t w)
{
	for (int d = 0; d <= CAP; d++)
		s->hist[0][d] += hist[d] * w;
}
