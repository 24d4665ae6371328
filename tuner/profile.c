// SPDX-License-Identifier: GPL-2.0-only
/*
 * Many traces, one decision: a tuner that sums the counters of others (every
 * counter of the grid is a sum over events, so a sum of traces is a sum of counters), and
 * the profile, a JSON file with everything the decision needs from one trace or a sum, so
 * that traces can be replayed where they are and decided on together.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tuner-int.h"

#define PROFILE_VERSION	2

struct tuner *tuner_aggregate_new(const struct tuner_opts *o)
{
	struct tuner *t = tuner_new(o);

	t->aggregate = true;
	t->started = true;
	t->nfixed = -1;		/* the first trace added decides whether there are windows */
	t->sweep = sweep_new(t, false, NULL);
	t->sweeps[t->nsweeps++] = t->sweep;
	t->lazy = xcalloc(1, sizeof(*t->lazy));
	return t;
}

void tuner_set_ncpus(struct tuner *t, int ncpus)
{
	if (t->aggregate && ncpus >= 1 && ncpus <= t->ncpus)
		t->ncpus = ncpus;
}

static void counts_add(struct tuner_counts *d, const struct tuner_counts *s, uint64_t w)
{
	d->ipis += s->ipis * w;
	d->deferred += s->deferred * w;
	d->deferred_flushes += s->deferred_flushes * w;
	d->overflows += s->overflows * w;
	d->evictions += s->evictions * w;
	d->table_resets += s->table_resets * w;
	d->local_flushes += s->local_flushes * w;
	d->refills += s->refills * w;
	d->ipi_requests += s->ipi_requests * w;
}

static bool same_grid(const struct tuner *a, const struct tuner *b)
{
	return a->o.nthresholds == b->o.nthresholds && a->o.nqueues == b->o.nqueues &&
	       !memcmp(a->thresholds, b->thresholds, a->o.nthresholds * sizeof(int)) &&
	       !memcmp(a->queues, b->queues, a->o.nqueues * sizeof(int));
}

int tuner_merge(struct tuner *dst, const struct tuner *src, uint64_t w, char *err)
{
	struct tuner_window win[TUNER_MAX_WINDOWS];
	uint64_t hist[CAP + 1];
	int n;

	if (!same_grid(dst, src)) {
		snprintf(err, TS_ERR_LEN, "not the same grid of T and Q (a profile is decided on "
			 "with the --threshold and --queue it was made with)");
		return -1;
	}
	if (!src->sweep)
		return 0;	/* no event: nothing to add */
	for (int m = 0; m < TUNER__MODELS; m++)
		counts_add(&dst->models[m], &src->models[m], w);
	for (int k = 0; k < TUNER_TGT__COUNT; k++)
		dst->lazy_split[k] += src->lazy_split[k] * w;
	sweep_drain_max_add(dst->sweep, src->sweep);
	dst->seeded_ipis += src->seeded_ipis * w;
	dst->switches += src->switches * w;
	dst->mm_switches += src->mm_switches * w;
	dst->exits += src->exits * w;
	dst->requests += src->requests * w;
	dst->unattributed += src->unattributed * w;
	dst->unmodelled += src->unmodelled * w;
	for (int i = 0; i < NSIZES; i++)
		dst->sizes[i] += src->sizes[i] * w;
	sweep_counts_add(dst->sweep, sweep_counts_mut(dst->sweep), sweep_counts(src->sweep), w);
	sweep_reuse(src->sweep, -1, hist);
	sweep_reuse_add(dst->sweep, hist, w);
	/* window k of a sum is the sum of window k of each trace */
	n = tuner_window_counts(src, 4, win);
	if (dst->nfixed < 0) {
		dst->nfixed = n;
		for (int k = 0; k < n; k++) {
			memset(&dst->fixed[k], 0, sizeof(dst->fixed[k]));
			dst->fixed[k].sc.overflow = xcalloc(grid_cells(dst->o.nthresholds,
							    dst->o.nqueues), sizeof(uint64_t));
			dst->fixed[k].until = win[k].until;
		}
	} else if (n != dst->nfixed) {
		tuner_windows_release(dst->fixed, dst->nfixed);
		dst->nfixed = 0;	/* one trace too short to split: no windows */
	}
	for (int k = 0; k < n && k < dst->nfixed; k++) {
		sweep_counts_add(dst->sweep, &dst->fixed[k].sc, &win[k].sc, w);
		dst->fixed[k].ideal_ipis += win[k].ideal_ipis * w;
		dst->fixed[k].lazy_ipis += win[k].lazy_ipis * w;
		dst->fixed[k].lazy_ipi_requests += win[k].lazy_ipi_requests * w;
		dst->fixed[k].mm_switches += win[k].mm_switches * w;
	}
	tuner_windows_release(win, n);
	if (src->last_ts > dst->last_ts)
		dst->last_ts = src->last_ts;
	return 0;
}

/* ---- the profile as JSON ---- */

static json_t *ju64s(const uint64_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static json_t *ji64s(const int64_t *v, size_t n)
{
	json_t *a = json_array();

	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_integer((json_int_t)v[i]));
	return a;
}

static json_t *jsweep(const struct tuner *t, const struct sweep_counts *c)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:o,s:I,s:o}",
			 "evict", ji64s(c->evict, CAP + 2), "hits", ju64s(c->hits, CAP + 2),
			 "deferred", ju64s(c->deferred, CAP + 2), "dfl", ju64s(c->dfl, CAP + 2),
			 "local", ju64s(c->local, CAP + 2), "resets", (json_int_t)c->resets,
			 "overflow", ju64s(c->overflow, grid_cells(t->o.nthresholds, t->o.nqueues)));
}

static json_t *jcounts(const struct tuner_counts *c)
{
	return json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I}", "ipis", (json_int_t)c->ipis,
			 "ipi_requests", (json_int_t)c->ipi_requests,
			 "deferred", (json_int_t)c->deferred,
			 "deferred_flushes", (json_int_t)c->deferred_flushes,
			 "overflows", (json_int_t)c->overflows, "evictions", (json_int_t)c->evictions,
			 "table_resets", (json_int_t)c->table_resets,
			 "local_flushes", (json_int_t)c->local_flushes,
			 "refills", (json_int_t)c->refills);
}

json_t *tuner_profile_json(const struct tuner *t)
{
	struct tuner_window win[TUNER_MAX_WINDOWS];
	json_t *j = json_object(), *m = json_object(), *wins = json_array();
	uint64_t hist[CAP + 1] = { 0 };
	int n = tuner_window_counts(t, 4, win);
	struct sweep_counts none = { 0 };

	json_object_set_new(j, "version", json_integer(PROFILE_VERSION));
	json_object_set_new(j, "thresholds", json_array());
	for (int i = 0; i < t->o.nthresholds; i++)
		json_array_append_new(json_object_get(j, "thresholds"), json_integer(t->thresholds[i]));
	json_object_set_new(j, "queues", json_array());
	for (int i = 0; i < t->o.nqueues; i++)
		json_array_append_new(json_object_get(j, "queues"), json_integer(t->queues[i]));
	json_object_set_new(j, "flush_all_threshold", json_integer((json_int_t)t->o.flush_all_threshold));
	json_object_set_new(j, "warmup_ns", json_integer((json_int_t)t->o.warmup_ns));
	json_object_set_new(j, "tlb_reach_mms", json_integer(t->o.tlb_reach_mms));
	json_object_set_new(j, "ncpus", json_integer(t->ncpus));
	for (int k = 0; k < TUNER__MODELS; k++)
		json_object_set_new(m, tuner_model_name(k), jcounts(&t->models[k]));
	json_object_set_new(j, "models", m);
	json_object_set_new(j, "seeded_ipis", json_integer((json_int_t)t->seeded_ipis));
	json_object_set_new(j, "switches", json_integer((json_int_t)t->switches));
	json_object_set_new(j, "mm_switches", json_integer((json_int_t)t->mm_switches));
	json_object_set_new(j, "exits", json_integer((json_int_t)t->exits));
	json_object_set_new(j, "requests", json_integer((json_int_t)t->requests));
	json_object_set_new(j, "unattributed", json_integer((json_int_t)t->unattributed));
	json_object_set_new(j, "unmodelled", json_integer((json_int_t)t->unmodelled));
	json_object_set_new(j, "last_ts", json_integer((json_int_t)t->last_ts));
	json_object_set_new(j, "flush_sizes", ju64s(t->sizes, NSIZES));
	if (t->sweep)
		sweep_reuse(t->sweep, -1, hist);
	json_object_set_new(j, "reuse", ju64s(hist, CAP + 1));
	json_object_set_new(j, "lazy_split", ju64s(t->lazy_split, TUNER_TGT__COUNT));
	if (t->sweep) {
		size_t npts = (size_t)t->o.nthresholds * t->o.nqueues;

		json_object_set_new(j, "drain_max", ju64s(sweep_drain_max_mut(t->sweep, false),
							  npts));
		json_object_set_new(j, "drain_max_pages", ju64s(sweep_drain_max_mut(t->sweep,
								 true), npts));
		json_object_set_new(j, "sweep", jsweep(t, sweep_counts(t->sweep)));
	} else {
		none.overflow = xcalloc(grid_cells(t->o.nthresholds, t->o.nqueues), sizeof(uint64_t));
		json_object_set_new(j, "sweep", jsweep(t, &none));
		free(none.overflow);
	}
	for (int k = 0; k < n; k++)
		json_array_append_new(wins, json_pack("{s:o,s:I,s:I,s:I,s:I,s:I}", "sweep",
				      jsweep(t, &win[k].sc), "ideal_ipis", (json_int_t)win[k].ideal_ipis,
				      "lazy_ipis", (json_int_t)win[k].lazy_ipis,
				      "lazy_ipi_requests", (json_int_t)win[k].lazy_ipi_requests,
				      "mm_switches", (json_int_t)win[k].mm_switches, "until_ns",
				      (json_int_t)win[k].until));
	json_object_set_new(j, "windows", wins);
	tuner_windows_release(win, n);
	return j;
}

/* Read array @key of @n integers of @j into @out (u64 or i64 by @sign); -1 when malformed. */
static int get_ints(json_t *j, const char *key, size_t n, void *out, bool sign)
{
	json_t *a = json_object_get(j, key), *v;
	size_t i;

	if (!json_is_array(a) || json_array_size(a) != n)
		return -1;
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || (!sign && json_integer_value(v) < 0))
			return -1;
		if (sign)
			((int64_t *)out)[i] = json_integer_value(v);
		else
			((uint64_t *)out)[i] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

static int get_u64(json_t *j, const char *key, uint64_t *out)
{
	json_t *v = json_object_get(j, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return -1;
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* Array @key of 1..@max integers in [@lo, @hi] into @out, their number in @n. */
static int get_list(json_t *j, const char *key, size_t max, int lo, int hi, int *out, size_t *n)
{
	json_t *a = json_object_get(j, key), *v;
	size_t i;

	*n = json_array_size(a);
	if (!json_is_array(a) || !*n || *n > max)
		return -1;
	json_array_foreach(a, i, v) {
		if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
			return -1;
		out[i] = (int)json_integer_value(v);
	}
	return 0;
}

static int get_sweep(const struct tuner *t, json_t *j, struct sweep_counts *c)
{
	size_t nov = grid_cells(t->o.nthresholds, t->o.nqueues);

	if (!json_is_object(j))
		return -1;
	return get_ints(j, "evict", CAP + 2, c->evict, true) ||
	       get_ints(j, "hits", CAP + 2, c->hits, false) ||
	       get_ints(j, "deferred", CAP + 2, c->deferred, false) ||
	       get_ints(j, "dfl", CAP + 2, c->dfl, false) ||
	       get_ints(j, "local", CAP + 2, c->local, false) ||
	       get_u64(j, "resets", &c->resets) ||
	       get_ints(j, "overflow", nov, c->overflow, false) ? -1 : 0;
}

static int get_counts(json_t *j, struct tuner_counts *c)
{
	if (!json_is_object(j))
		return -1;
	return get_u64(j, "ipis", &c->ipis) || get_u64(j, "ipi_requests", &c->ipi_requests) ||
	       get_u64(j, "deferred", &c->deferred) ||
	       get_u64(j, "deferred_flushes", &c->deferred_flushes) ||
	       get_u64(j, "overflows", &c->overflows) || get_u64(j, "evictions", &c->evictions) ||
	       get_u64(j, "table_resets", &c->table_resets) ||
	       get_u64(j, "local_flushes", &c->local_flushes) ||
	       get_u64(j, "refills", &c->refills) ? -1 : 0;
}

struct tuner *tuner_profile_load(json_t *j, const struct tuner_opts *o, char *err)
{
	struct tuner_opts po = *o;
	struct tuner *t;
	json_t *wins, *w;
	uint64_t hist[CAP + 1], ncpus, v;
	int T[TUNER_MAX_T], Q[4096];
	size_t nT, nQ, i;

	if (get_u64(j, "version", &v) || v != PROFILE_VERSION) {
		snprintf(err, TS_ERR_LEN, "not a tlbscope tune profile of version %d",
			 PROFILE_VERSION);
		return NULL;
	}
	/* the profile's own grid: tuner_merge() then checks it is the one asked for */
	if (get_list(j, "thresholds", TUNER_MAX_T, 1, TUNER_MAX_T, T, &nT) ||
	    get_list(j, "queues", 4096, 0, 4096, Q, &nQ))
		goto bad;
	if (get_u64(j, "ncpus", &ncpus) || !ncpus || ncpus > TS_MAX_CPUS)
		goto bad;
	po.thresholds = T;
	po.nthresholds = (int)nT;
	po.queues = Q;
	po.nqueues = (int)nQ;
	po.ncpus = (int)ncpus;
	po.replay = NULL;
	po.nreplay = 0;
	po.decisions = NULL;
	t = tuner_aggregate_new(&po);
	for (int m = 0; m < TUNER__MODELS; m++)
		if (get_counts(json_object_get(json_object_get(j, "models"), tuner_model_name(m)),
			       &t->models[m]))
			goto bad_free;
	if (get_u64(j, "seeded_ipis", &t->seeded_ipis) || get_u64(j, "switches", &t->switches) ||
	    get_u64(j, "mm_switches", &t->mm_switches) || get_u64(j, "requests", &t->requests) ||
	    get_u64(j, "exits", &t->exits) ||
	    get_u64(j, "unattributed", &t->unattributed) ||
	    get_u64(j, "unmodelled", &t->unmodelled) || get_u64(j, "last_ts", &t->last_ts) ||
	    get_ints(j, "flush_sizes", NSIZES, t->sizes, false) ||
	    get_ints(j, "reuse", CAP + 1, hist, false) ||
	    get_ints(j, "lazy_split", TUNER_TGT__COUNT, t->lazy_split, false) ||
	    get_ints(j, "drain_max", nT * nQ, sweep_drain_max_mut(t->sweep, false), false) ||
	    get_ints(j, "drain_max_pages", nT * nQ, sweep_drain_max_mut(t->sweep, true), false) ||
	    get_sweep(t, json_object_get(j, "sweep"), sweep_counts_mut(t->sweep)))
		goto bad_free;
	sweep_reuse_add(t->sweep, hist, 1);
	wins = json_object_get(j, "windows");
	if (!json_is_array(wins) || json_array_size(wins) > TUNER_MAX_WINDOWS)
		goto bad_free;
	t->nfixed = 0;
	json_array_foreach(wins, i, w) {
		struct tuner_window *f = &t->fixed[t->nfixed++];

		memset(f, 0, sizeof(*f));
		f->sc.overflow = xcalloc(grid_cells((int)nT, (int)nQ), sizeof(uint64_t));
		if (get_sweep(t, json_object_get(w, "sweep"), &f->sc) ||
		    get_u64(w, "ideal_ipis", &f->ideal_ipis) ||
		    get_u64(w, "lazy_ipis", &f->lazy_ipis) ||
		    get_u64(w, "lazy_ipi_requests", &f->lazy_ipi_requests) ||
		    get_u64(w, "mm_switches", &f->mm_switches) || get_u64(w, "until_ns", &f->until))
			goto bad_free;
	}
	return t;
bad_free:
	tuner_free(t);
bad:
	snprintf(err, TS_ERR_LEN, "a tune profile with a missing or malformed field");
	return NULL;
}
