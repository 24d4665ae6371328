// SPDX-License-Identifier: GPL-2.0-only
/*
 * The cost model: platform profiles (JSON files in tuner/platforms/, each figure with its source or
 * marked as an assumption), the cost of a configuration as the sum of counts times unit
 * costs (docs/design.md section 5), and the recommendation drawn from it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tuner-int.h"

#ifndef PLATFORM_DIR
#define PLATFORM_DIR "/usr/local/share/tlbscope/platforms"
#endif
#ifndef SRC_PLATFORM_DIR
#define SRC_PLATFORM_DIR "tuner/platforms"
#endif

static const char *const fig_names[PF__COUNT] = {
	"ipi_send_ns", "ipi_receive_ns", "remote_flush_ns", "local_asid_flush_ns",
	"sfence_page_ns", "tlb_refill_ns", "queue_entry_ns", "deferred_flush_ns",
	"table_scan_slot_ns", "memory_byte_ns", "ipi_wait_ns", "tlb_entries", "working_set_pages",
};

const char *platform_fig_name(enum platform_fig f)
{
	return f < PF__COUNT ? fig_names[f] : "?";
}

/* Apply the figures of one JSON profile on top of @p; they come from @origin. */
static int apply_file(const char *path, struct platform *p, enum pf_origin origin, char *err)
{
	json_error_t jerr;
	json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr), *figs, *v;
	const char *key, *s;
	int ret = -1;

	if (!root) {
		snprintf(err, TS_ERR_LEN, "%s: line %d: %s", path, jerr.line, jerr.text);
		return -1;
	}
	if (!json_is_object(root)) {
		snprintf(err, TS_ERR_LEN, "%s: not a JSON object", path);
		goto out;
	}
	if ((s = json_string_value(json_object_get(root, "name"))))
		strlcpy_ts(p->name, s, sizeof(p->name));
	if ((s = json_string_value(json_object_get(root, "description"))))
		strlcpy_ts(p->description, s, sizeof(p->description));
	figs = json_object_get(root, "figures");
	if (figs && !json_is_object(figs)) {
		snprintf(err, TS_ERR_LEN, "%s: \"figures\" is not an object", path);
		goto out;
	}
	json_object_foreach(figs, key, v) {
		json_t *val = json_is_object(v) ? json_object_get(v, "value") : v;
		int f;

		for (f = 0; f < PF__COUNT; f++)
			if (!strcmp(key, fig_names[f]))
				break;
		if (f == PF__COUNT) {
			snprintf(err, TS_ERR_LEN, "%s: unknown figure \"%s\"", path, key);
			goto out;
		}
		if (!json_is_number(val) || json_number_value(val) < 0) {
			snprintf(err, TS_ERR_LEN, "%s: \"%s\" needs a number >= 0", path, key);
			goto out;
		}
		p->v[f] = json_number_value(val);
		p->origin[f] = origin;
		s = json_is_object(v) ? json_string_value(json_object_get(v, "source")) : NULL;
		if (s)
			strlcpy_ts(p->source[f], s, sizeof(p->source[f]));
		else
			snprintf(p->source[f], sizeof(p->source[f]), "given in %s", path);
	}
	if (p->v[PF_TLB_ENTRIES] < 1 || p->v[PF_WORKING_SET] < 1) {
		snprintf(err, TS_ERR_LEN, "%s: tlb_entries and working_set_pages must be >= 1",
			 path);
		goto out;
	}
	ret = 0;
out:
	json_decref(root);
	return ret;
}

static int find_profile(const char *name, char *path, size_t len)
{
	const char *dirs[] = { getenv("TLBSCOPE_PLATFORM_DIR"), PLATFORM_DIR, SRC_PLATFORM_DIR };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		FILE *f;

		if (!dirs[i])
			continue;
		snprintf(path, len, "%s/%s.json", dirs[i], name);
		f = fopen(path, "r");
		if (f) {
			fclose(f);
			return 0;
		}
	}
	return -1;
}

int platform_load(const char *spec, struct platform *p, char *err)
{
	char path[512];

	memset(p, 0, sizeof(*p));
	if (find_profile("generic", path, sizeof(path))) {
		snprintf(err, TS_ERR_LEN, "platform: the generic profile is not installed "
			 "(looked in $TLBSCOPE_PLATFORM_DIR, %s, %s)", PLATFORM_DIR, SRC_PLATFORM_DIR);
		return -1;
	}
	if (apply_file(path, p, PF_FROM_PLATFORM, err))
		return -1;
	if (!spec || !strcmp(spec, "generic"))
		return 0;
	if (strchr(spec, '/') || strstr(spec, ".json"))
		return apply_file(spec, p, PF_FROM_USER, err);
	if (find_profile(spec, path, sizeof(path))) {
		snprintf(err, TS_ERR_LEN, "platform: no profile named '%s' (a name from "
			 "tuner/platforms/, or a JSON file)", spec);
		return -1;
	}
	return apply_file(path, p, PF_FROM_PLATFORM, err);
}

int platform_reach_mms(const struct platform *p)
{
	int r = (int)(p->v[PF_TLB_ENTRIES] / p->v[PF_WORKING_SET]);

	return r < 1 ? 1 : r;
}

double tuner_ipi_unit(const struct platform *p)
{
	return p->v[PF_IPI_SEND] + p->v[PF_IPI_RECV] + p->v[PF_REMOTE_FLUSH];
}

double tuner_ipi_cost(const struct platform *p, uint64_t ipis, uint64_t requests)
{
	return ipis * tuner_ipi_unit(p) + requests * p->v[PF_IPI_WAIT];
}

/*
 * One cost basis for every model and every grid point: the same counters priced the same
 * way, so that a model with a counter at zero (stock has no evictions) is not made cheaper
 * by leaving a term out.
 *  - An IPI costs the sender its send to each target and one wait for the slowest (the
 *    call is synchronous), each target its interrupt and the flush it runs.
 *  - A queued range is flushed all the same, by the target at its switch back, at the
 *    remote flush's cost: lazy is credited only with the IPI overhead it removes.
 *  - The requester's own flush of a range is the same range flush, done locally.
 *  - Evictions, overflows and table resets are whole-ASID flushes; refills are priced
 *    where the evicted mm's entries would still have been resident (the sweep's reach).
 */
double tuner_cost(const struct platform *p, const struct tuner_counts *c, int T, int Q,
		  uint64_t mm_switches, int ncpus)
{
	const double *v = p->v;

	return tuner_ipi_cost(p, c->ipis, c->ipi_requests) +
	       c->local_flushes * v[PF_REMOTE_FLUSH] +
	       c->evictions * v[PF_LOCAL_ASID_FLUSH] +
	       c->refills * v[PF_TLB_REFILL] +
	       c->deferred * v[PF_QUEUE_ENTRY] +
	       c->replayed * v[PF_REMOTE_FLUSH] +
	       c->deferred_flushes * v[PF_DEFERRED_FLUSH] +
	       /* a whole-ASID flush and its refill instead of a few page flushes */
	       c->overflows * (v[PF_LOCAL_ASID_FLUSH] + v[PF_TLB_REFILL]) +
	       c->table_resets * v[PF_LOCAL_ASID_FLUSH] +
	       (double)mm_switches * T * v[PF_TABLE_SCAN] +
	       (double)ncpus * T * Q * QUEUE_ENTRY_BYTES * v[PF_MEMORY_BYTE];
}

double tuner_model_cost(const struct platform *p, const struct tuner_counts *c)
{
	/* no table to scan, no queue memory: T = Q = 0 */
	return tuner_cost(p, c, 0, 0, 0, 0);
}

int tuner_ncpus(const struct tuner *t)
{
	return t->ncpus;
}

int tuner_reach(const struct platform *p)
{
	int r = platform_reach_mms(p);

	return r > CAP ? CAP : r;
}

void recommend_from(const struct tuner *t, const struct platform *p, const struct sweep_counts *sc,
		    uint64_t lazy_ipis, uint64_t lazy_requests, uint64_t mm_switches,
		    struct tuner_rec *r)
{
	int nT = t->o.nthresholds, nQ = t->o.nqueues, reach = tuner_reach(p);
	int maxT = 0, maxQ = 0;
	/* every lazy point sends the same IPIs: the choice is made on the rest of the cost */
	double shared = tuner_ipi_cost(p, lazy_ipis, lazy_requests);
	double best = -1, freebest = -1, *cost = xcalloc((size_t)nT * nQ, sizeof(*cost));
	bool any_in_reach = false;

	memset(r, 0, sizeof(*r));
	r->reach = reach;
	r->free_ti = r->free_qi = r->ti = r->qi = -1;
	for (int ti = 0; ti < nT; ti++)
		any_in_reach |= t->thresholds[ti] <= reach;
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			struct tuner_counts c;
			double *k = &cost[ti * nQ + qi];
			int T = t->thresholds[ti], Q = t->queues[qi];

			sweep_counts_point_reach(t->sweep, sc, ti, qi, reach, &c);
			c.ipis = lazy_ipis;
			c.ipi_requests = lazy_requests;
			*k = tuner_cost(p, &c, T, Q, mm_switches, t->ncpus) - shared;
			if (Q < 1)
				continue;	/* a zero-length queue is not a setting of the series */
			if (freebest < 0 || *k < freebest) {
				freebest = *k;
				r->free_ti = ti;
				r->free_qi = qi;
			}
			if (any_in_reach && T > reach)
				continue;
			if (T > maxT)
				maxT = T;
			if (Q > maxQ)
				maxQ = Q;
			if (best < 0 || *k < best) {
				best = *k;
				r->ti = ti;
				r->qi = qi;
			}
		}
	if (r->ti < 0) {	/* no point with Q >= 1: the grid was given so */
		free(cost);
		r->ti = r->qi = r->small_ti = r->small_qi = 0;
		return;
	}
	r->cost = best + shared;
	r->differing = best;
	r->free_cost = freebest + shared;
	{
		struct tuner_counts c;

		/*
		 * Past the grid's last T or Q the counts change only where that point still
		 * evicts or overflows: a table that never filled, a queue that never overflowed,
		 * behaves the same when larger, and costs no less
		 */
		sweep_counts_point_reach(t->sweep, sc, r->ti, r->qi, reach, &c);
		r->edge_T = t->thresholds[r->ti] == maxT && maxT < reach && c.evictions;
		r->edge_Q = t->queues[r->qi] == maxQ && c.overflows;
	}
	/* the smallest table, then the shortest queue, within the band of the cheapest */
	r->small_ti = r->ti;
	r->small_qi = r->qi;
	r->small_cost = r->cost;
	r->lo_ti = r->hi_ti = r->ti;
	r->lo_qi = r->hi_qi = r->qi;
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			int T = t->thresholds[ti], Q = t->queues[qi];
			int sT = t->thresholds[r->small_ti], sQ = t->queues[r->small_qi];

			if (Q < 1 || (any_in_reach && T > reach) ||
			    cost[ti * nQ + qi] + shared > r->cost * (1 + TUNER_BAND))
				continue;
			r->nflat++;
			if (ti < r->lo_ti)
				r->lo_ti = ti;
			if (ti > r->hi_ti)
				r->hi_ti = ti;
			if (qi < r->lo_qi)
				r->lo_qi = qi;
			if (qi > r->hi_qi)
				r->hi_qi = qi;
			if (T < sT || (T == sT && Q < sQ)) {
				r->small_ti = ti;
				r->small_qi = qi;
				r->small_cost = cost[ti * nQ + qi] + shared;
			}
		}
	free(cost);
}

void tuner_recommend(const struct tuner *t, const struct platform *p, struct tuner_rec *r)
{
	if (!t->sweep) {
		memset(r, 0, sizeof(*r));
		return;
	}
	recommend_from(t, p, sweep_counts(t->sweep), t->models[TUNER_LAZY].ipis,
		       t->models[TUNER_LAZY].ipi_requests, t->mm_switches, r);
}

const char *tuner_verdict_name(enum tuner_verdict v)
{
	static const char *const names[] = {
		"enable", "keep", "no-benefit", "insufficient-data", "retune", "not-applicable"
	};

	return v <= TUNER_NOT_APPLICABLE ? names[v] : "?";
}

void tuner_point_counts(const struct tuner *t, const struct platform *p, int ti, int qi,
			struct tuner_counts *out)
{
	if (!t->sweep) {
		memset(out, 0, sizeof(*out));
		return;
	}
	sweep_counts_point_reach(t->sweep, sweep_counts(t->sweep), ti, qi, tuner_reach(p), out);
	out->ipis = t->models[TUNER_LAZY].ipis;
	out->ipi_requests = t->models[TUNER_LAZY].ipi_requests;
}

double tuner_point_cost(const struct tuner *t, const struct platform *p, int ti, int qi)
{
	struct tuner_counts c;

	tuner_point_counts(t, p, ti, qi, &c);
	return tuner_cost(p, &c, t->thresholds[ti], t->queues[qi], t->mm_switches, t->ncpus);
}

void tuner_advise(const struct tuner *t, const struct platform *p, const struct tuner_rec *rec,
		  int base_ti, int base_qi, bool lazy_kernel, bool riscv, struct tuner_advice *a)
{
	const struct tuner_counts *stock = &t->models[TUNER_STOCK_ASID];
	const struct tuner_counts *lazy = &t->models[TUNER_LAZY];

	memset(a, 0, sizeof(*a));
	a->ti = a->qi = -1;
	a->base_ti = base_ti;
	a->base_qi = base_qi;
	if (t->requests - t->unattributed < TUNER_MIN_REQUESTS) {
		a->verdict = TUNER_INSUFFICIENT;
		a->why = TUNER_WHY_FEW_REQUESTS;
		return;
	}
	a->stock_cost = tuner_model_cost(p, stock);
	a->ideal_cost = tuner_model_cost(p, &t->models[TUNER_IDEAL]);
	a->base_cost = tuner_point_cost(t, p, base_ti, base_qi);
	a->ipis_saved = stock->ipis > lazy->ipis ? stock->ipis - lazy->ipis : 0;
	a->ipis_saved_ns = tuner_ipi_cost(p, stock->ipis, stock->ipi_requests) -
			   tuner_ipi_cost(p, lazy->ipis, lazy->ipi_requests);
	a->base_above_stock = lazy_kernel && a->base_cost > a->stock_cost;
	/* what the cheapest point would cost, also where there is no point to set */
	a->point_cost = tuner_point_cost(t, p, rec->small_ti, rec->small_qi);
	if (!riscv) {
		/* the replay stays, as a what-if of the mechanism; there is nothing to set */
		a->verdict = TUNER_NOT_APPLICABLE;
		a->why = TUNER_WHY_NOT_RISCV;
		return;
	}
	/* the base when it is within the noise band of the best: no change is the advice */
	if (a->base_cost <= rec->cost * (1 + TUNER_BAND) && t->queues[base_qi] >= 1) {
		a->ti = base_ti;
		a->qi = base_qi;
	} else {
		a->ti = rec->small_ti;
		a->qi = rec->small_qi;
	}
	a->point_cost = tuner_point_cost(t, p, a->ti, a->qi);
	if (a->ipis_saved <= stock->ipis * TUNER_BAND) {
		/* lazy sends (nearly) every IPI stock does: it can only add its table's costs */
		a->verdict = TUNER_NO_BENEFIT;
		a->why = stock->ipis ? TUNER_WHY_ALL_RUNNING : TUNER_WHY_NO_REMOTE;
		a->ti = a->qi = -1;
		return;
	}
	if (t->mm_switches < TUNER_MIN_MM_SWITCHES) {
		/* IPIs to save, but too few switches to see what the tables would cost */
		a->verdict = TUNER_INSUFFICIENT;
		a->why = TUNER_WHY_FEW_SWITCHES;
		a->ti = a->qi = -1;
		return;
	}
	if (a->point_cost < a->stock_cost * (1 - TUNER_BAND)) {
		bool at_base = a->ti == base_ti && a->qi == base_qi;

		a->why = TUNER_WHY_PAYS;
		a->verdict = !lazy_kernel ? TUNER_ENABLE : at_base ? TUNER_KEEP : TUNER_RETUNE;
		return;
	}
	a->verdict = TUNER_NO_BENEFIT;
	a->why = TUNER_WHY_COSTS_MORE;
	a->ti = a->qi = -1;
}

uint64_t tuner_evictions_at(const struct tuner *t, int T)
{
	const struct sweep_counts *c;
	int64_t ev = 0;

	if (!t->sweep)
		return 0;
	c = sweep_counts(t->sweep);
	for (int d = 1; d <= T && d <= CAP; d++)
		ev += c->evict[d];
	return (uint64_t)ev;
}

uint64_t tuner_flush_all_threshold(const struct tuner *t, const struct platform *p)
{
	double best = -1;
	uint64_t best_thr = 0, known = 0;

	for (int b = 0; b < NSIZES - 1; b++)
		known += t->sizes[b];
	if (!known)
		return 0;	/* no request with a size: nothing to choose from */
	/*
	 * A range of 2^k pages costs 2^k page flushes, or one ASID flush plus a refill.
	 * Thresholds that cost the same (no request falls between them) are ties: of those
	 * within 1 % of the cheapest, the one nearest the kernel's 64 is kept.
	 */
	double cost[NSIZES - 1];

	for (int k = 0; k <= NSIZES - 2; k++) {
		cost[k] = 0;
		for (int b = 0; b < NSIZES - 1; b++) {
			double pages = (double)(1ULL << b);

			cost[k] += t->sizes[b] * (b <= k ? pages * p->v[PF_SFENCE_PAGE] :
						  p->v[PF_LOCAL_ASID_FLUSH] + p->v[PF_TLB_REFILL]);
		}
		if (best < 0 || cost[k] < best)
			best = cost[k];
	}
	for (int k = 0; k <= NSIZES - 2; k++) {
		uint64_t thr = 1ULL << k;

		if (cost[k] > best * 1.01)
			continue;
		if (!best_thr || (thr > 64 ? thr - 64 : 64 - thr) <
				 (best_thr > 64 ? best_thr - 64 : 64 - best_thr))
			best_thr = thr;
	}
	return best_thr;
}
