// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune --json: one object with stable keys, from a finished struct tune_run (the same
 * numbers as the text).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tune.h"

static json_t *jcounts(const struct tuner_counts *c)
{
	json_t *j = json_object();

	json_object_set_new(j, "ipis", json_integer((json_int_t)c->ipis));
	json_object_set_new(j, "local_flushes", json_integer((json_int_t)c->local_flushes));
	return j;
}

/* Every lazy counter of @c. */
static json_t *jall(const struct tuner_counts *c)
{
	json_t *j = json_object();

	json_object_set_new(j, "ipis", json_integer((json_int_t)c->ipis));
	json_object_set_new(j, "deferred", json_integer((json_int_t)c->deferred));
	json_object_set_new(j, "deferred_flushes", json_integer((json_int_t)c->deferred_flushes));
	json_object_set_new(j, "overflows", json_integer((json_int_t)c->overflows));
	json_object_set_new(j, "evictions", json_integer((json_int_t)c->evictions));
	json_object_set_new(j, "table_resets", json_integer((json_int_t)c->table_resets));
	json_object_set_new(j, "local_flushes", json_integer((json_int_t)c->local_flushes));
	return j;
}

/*
 * Why no flush request can be known from the input (tune's text gives the same reasons),
 * NULL when they can: a sum of traces was checked trace by trace.
 */
static const char *requests_unknown(const struct tune_run *r)
{
	switch (r->tl ? timeline_requests_unknown(r->tl) : TL_REQUESTS_KNOWN) {
	case TL_REQUESTS_DROPPED:
		return "the kernel dropped every kprobe event: riscv 6.12 drops those written in NMI "
		       "context (tlbscope-probes(7))";
	case TL_REQUESTS_UNSEEN:
		return "no event of this input shows one: no kprobe on the flush path, tlb_flush or "
		       "csd flush IPI";
	default:
		return NULL;
	}
}

/* Set @key of object @o, where it is, to null. */
static void set_null(json_t *o, const char *key)
{
	if (json_is_object(o) && json_object_get(o, key))
		json_object_set_new(o, key, json_null());
}

/*
 * The requests unknown: every count that rests on them would read 0 where the truth is
 * unknown, so each is null (the objects keep their shape: a reader finds every key).
 */
static void null_request_counts(json_t *root, const char *why)
{
	json_t *in = json_object_get(root, "input"), *m, *c;
	const char *name;
	size_t i;

	set_null(in, "requests");
	set_null(in, "requests_without_mm");
	json_object_set_new(in, "requests_unknown", json_text(why));
	json_object_foreach(json_object_get(root, "models"), name, m) {
		set_null(m, "ipis");
		set_null(m, "local_flushes");
		set_null(m, "cost_ns");
		json_array_foreach(json_object_get(m, "cpus"), i, c) {
			set_null(c, "ipis");
			set_null(c, "local_flushes");
		}
	}
	set_null(root, "grid");
	set_null(root, "direct");
	set_null(json_object_get(root, "observed"), "predicted");
	set_null(json_object_get(root, "observed"), "predicted_stock_asid");
	set_null(root, "lazy_ipis_by_target");
	m = json_object_get(root, "recommendation");
	set_null(m, "ipis_saved");
	set_null(m, "ipis_saved_ns");
	set_null(m, "counts");
	set_null(m, "whatif_lazy_idle");
}

json_t *tune_json(const struct tune_run *r, const char *why)
{
	const struct tuner_rec *rec = &r->rec;
	int64_t observed = r->observed;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	/* what every lazy point sends, and what lazy is checked against on a lazy kernel */
	const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_LAZY);
	json_t *root = json_object(), *j, *arr;
	const char *unknown;
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);
	/* per-CPU arrays: a sum of traces has none (their CPUs are not the same CPUs) */
	int ncpus = r->aggregate ? 0 : r->ncpus < tuner_ncpus(r->tu) ? r->ncpus : tuner_ncpus(r->tu);

	j = json_object();
	json_object_set_new(j, "file", json_text(r->o->inputs[0]));
	json_object_set_new(j, "format", r->aggregate ? json_null() :
			    json_text(ts_source_info(r->src)->format));
	if (r->aggregate) {
		json_t *in = json_array();

		for (int i = 0; i < r->o->ninputs; i++)
			json_array_append_new(in, json_pack("{s:s,s:I}", "input", r->o->inputs[i],
					      "weight", (json_int_t)r->o->weight[i]));
		json_object_set_new(j, "inputs", in);
	}
	json_object_set_new(j, "cpus", json_integer(r->ncpus));
	json_object_set_new(j, "requests", json_integer((json_int_t)req));
	json_object_set_new(j, "requests_without_mm", json_integer((json_int_t)unattr));
	json_object_set_new(j, "switches", json_integer((json_int_t)tuner_switches(r->tu)));
	json_object_set_new(j, "mm_switches", json_integer((json_int_t)tuner_mm_switches(r->tu)));
	if (r->aggregate) {
		json_object_set_new(j, "lost_events", json_integer((json_int_t)r->lost));
		json_object_set_new(j, "malformed_skipped", json_integer((json_int_t)r->skipped));
	} else {
		uint64_t marks, lost = timeline_lost(r->tl, &marks);

		json_object_set_new(j, "lost_events", json_integer((json_int_t)lost));
		json_object_set_new(j, "lost_markers_without_count", json_integer((json_int_t)marks));
		json_object_set_new(j, "malformed_skipped",
				    json_integer((json_int_t)ts_source_skipped(r->src, NULL)));
		source_checks_json(j, r->src);
		json_object_set_new(j, "events_not_modelled",
				    json_integer((json_int_t)tuner_unmodelled(r->tu, NULL)));
	}
	json_object_set_new(root, "input", j);
	json_object_set_new(root, "platform", json_text(r->pf.name));
	j = json_object();
	for (int f = 0; f < PF__COSTS; f++) {
		json_t *c = json_pack("{s:f,s:s,s:s}", "ns", r->pf.v[f], "source",
				      platform_origin_name(r->pf.origin[f]), "detail", r->pf.source[f]);

		if (r->pf.origin[f] == PF_FROM_TRACE) {
			json_object_set_new(c, "samples", json_integer((json_int_t)r->pf.samples[f]));
			json_object_set_new(c, "p25", json_real(r->pf.p25[f]));
			json_object_set_new(c, "p75", json_real(r->pf.p75[f]));
		}
		json_object_set_new(j, platform_fig_name(f), c);
	}
	json_object_set_new(root, "costs", j);

	j = json_object();
	for (int m = 0; m < TUNER__MODELS; m++) {
		json_t *mj = jcounts(tuner_model(r->tu, m)), *cpus = json_array();

		for (int c = 0; c < ncpus; c++) {
			json_t *cj = jcounts(tuner_model_cpu(r->tu, m, c));

			json_object_set_new(cj, "cpu", json_integer(c));
			json_array_append_new(cpus, cj);
		}
		json_object_set_new(mj, "cost_ns", json_real(r->model_cost[m]));
		json_object_set_new(mj, "cpus", cpus);
		json_object_set_new(j, tuner_model_name(m), mj);
	}
	json_object_set_new(root, "models", j);
	if (r->o->has_direct) {
		json_t *cpus = json_array();
		int i = r->nreplay - 1;

		j = jall(tuner_replayed(r->tu, i));
		json_object_set_new(j, "threshold", json_integer(r->o->direct[0]));
		json_object_set_new(j, "queue", json_integer(r->o->direct[1]));
		for (int c = 0; c < ncpus; c++) {
			const struct tuner_counts *all = tuner_replayed_cpu(r->tu, i, c), *base;
			json_t *cj = jall(all);
			struct tuner_counts since;
			uint64_t known, undecided;
			int slots;

			json_object_set_new(cj, "cpu", json_integer(c));
			base = tuner_replayed_unknown(r->tu, i, c, &slots, &known, &undecided);
			if (base) {
				tuner_counts_since(&since, all, base);
				json_object_set_new(cj, "table_unknown_slots", json_integer(slots));
				json_object_set_new(cj, "table_known_ns", known ?
						    json_integer((json_int_t)known) : json_null());
				json_object_set_new(cj, "since_known", known ? jall(&since) :
						    json_null());
				json_object_set_new(cj, "undecided",
						    json_integer((json_int_t)undecided));
			}
			json_array_append_new(cpus, cj);
		}
		json_object_set_new(j, "cpus", cpus);
		json_object_set_new(root, "direct", j);
	}

	{
		/* reuse distances: [0] first loads or deeper than the stack, [d] depth d */
		json_t *rd = json_object(), *cpus = json_array();

		for (int c = -1; c < ncpus; c++) {
			uint64_t h[TUNER_MAX_T + 1];
			json_t *a = json_array(), *o = json_object();

			tuner_reuse_hist(r->tu, c, h);
			for (int d = 1; d <= TUNER_MAX_T; d++)
				json_array_append_new(a, json_integer((json_int_t)h[d]));
			json_object_set_new(o, "new", json_integer((json_int_t)h[0]));
			json_object_set_new(o, "by_depth", a);
			if (c < 0) {
				json_object_update(rd, o);
				json_decref(o);
			} else {
				json_object_set_new(o, "cpu", json_integer(c));
				json_array_append_new(cpus, o);
			}
		}
		json_object_set_new(rd, "cpus", cpus);
		json_object_set_new(root, "reuse_distance", rd);
	}

	arr = json_array();
	for (int ti = 0; ti < r->o->nT; ti++)
		for (int qi = 0; qi < r->o->nQ; qi++) {
			const struct tuner_counts c = tune_cell(r, ti, qi)->c;

			j = json_object();
			json_object_set_new(j, "threshold", json_integer(r->o->T[ti]));
			json_object_set_new(j, "queue", json_integer(r->o->Q[qi]));
			json_object_set_new(j, "ipis", json_integer((json_int_t)c.ipis));
			json_object_set_new(j, "deferred", json_integer((json_int_t)c.deferred));
			json_object_set_new(j, "deferred_flushes", json_integer((json_int_t)c.deferred_flushes));
			json_object_set_new(j, "overflows", json_integer((json_int_t)c.overflows));
			json_object_set_new(j, "evictions", json_integer((json_int_t)c.evictions));
			json_object_set_new(j, "table_resets", json_integer((json_int_t)c.table_resets));
			json_object_set_new(j, "local_flushes", json_integer((json_int_t)c.local_flushes));
			json_object_set_new(j, "refills", json_integer((json_int_t)c.refills));
			json_object_set_new(j, "cost_ns", json_real(tune_cell(r, ti, qi)->cost_ns));
			json_array_append_new(arr, j);
		}
	json_object_set_new(root, "grid", arr);

	j = json_object();
	json_object_set_new(j, "flush_ipis", observed >= 0 ? json_integer(observed) : json_null());
	json_object_set_new(j, "source", observed >= 0 ? json_text(r->obs_how) : json_null());
	json_object_set_new(j, "warmup_ns", json_integer((json_int_t)r->o->warmup_ns));
	/* a lazy kernel is checked against lazy at its own T, Q, whose IPIs are ideal's */
	json_object_set_new(j, "predicted_model", json_text(r->lazy_kernel ? "lazy" : "stock_asid"));
	json_object_set_new(j, "predicted", json_integer((json_int_t)(r->lazy_kernel ? ideal->ipis :
			    stock->ipis)));
	json_object_set_new(j, "predicted_stock_asid", json_integer((json_int_t)stock->ipis));
	{
		uint64_t widened, seeded = tuner_stock_seeded(r->tu, &widened);

		json_object_set_new(j, "predicted_seeded", widened ? json_integer((json_int_t)seeded) :
				    json_null());
		json_object_set_new(j, "seeded_difference_percent", widened && observed > 0 ?
				    json_real(100.0 * ((double)seeded - observed) / observed) : json_null());
	}
	json_object_set_new(j, "difference_percent", observed > 0 ?
			    json_real(100.0 * ((double)(r->lazy_kernel ? ideal->ipis : stock->ipis) -
					       observed) / observed) : json_null());
	json_object_set_new(root, "observed", j);
	json_object_set_new(root, "machine", json_pack("{s:b,s:b,s:s,s:s,s:s}", "vm", r->host.vm,
			    "given", r->host.user, "how", r->host.how, "arch", r->arch,
			    "arch_how", r->arch_how));
	arr = json_array();
	for (int k = 0; k < r->pf.nseen; k++) {
		const struct pf_seen *m = &r->pf.seen[k];

		json_array_append_new(arr, json_pack("{s:s,s:s,s:I,s:f,s:f,s:f,s:b}", "name", m->name,
				      "how", m->how, "samples", (json_int_t)m->samples, "median_ns",
				      m->median, "p25", m->p25, "p75", m->p75, "used", m->used));
	}
	json_object_set_new(root, "measured", arr);
	json_object_set_new(root, "lazy_ipis_by_target", json_pack("{s:I,s:I,s:I}",
			    "running", (json_int_t)r->lazy_split[TUNER_TGT_RUNNING],
			    "idle", (json_int_t)r->lazy_split[TUNER_TGT_IDLE],
			    "kernel_thread", (json_int_t)r->lazy_split[TUNER_TGT_KTHREAD]));

	{
		const struct tuner_advice *a = &r->adv;
		bool point = a->ti >= 0;
		bool priced = a->verdict != TUNER_INSUFFICIENT;
		char *patch = NULL;
		size_t plen = 0;
		FILE *pf;

		j = json_object();
		json_object_set_new(j, "verdict", json_text(tuner_verdict_name(a->verdict)));
		json_object_set_new(j, "reason", json_text(why));
		json_object_set_new(j, "base", json_pack("{s:i,s:s,s:i,s:s,s:o,s:i,s:o,s:i}",
				    "threshold", r->o->T[a->base_ti], "threshold_source", r->base_T_how,
				    "queue", r->o->Q[a->base_qi], "queue_source", r->base_Q_how,
				    "threshold_at_least", r->base_T_min ? json_integer(r->base_T_min) :
				    json_null(), "threshold_found", r->base_T_seen,
				    "queue_at_least", r->base_Q_min ? json_integer(r->base_Q_min) :
				    json_null(), "queue_found", r->base_Q_seen));
		json_object_set_new(json_object_get(j, "base"), "queue_longest_seen",
				    r->lazy_kernel ? json_integer((json_int_t)r->lk.queue_min) :
				    json_null());
		json_object_set_new(j, "threshold", point ? json_integer(r->o->T[a->ti]) :
				    json_null());
		json_object_set_new(j, "queue", point ? json_integer(r->o->Q[a->qi]) : json_null());
		json_object_set_new(j, "tlb_flush_all_threshold", point && r->flush_all ?
				    json_integer((json_int_t)r->flush_all) : json_null());
		json_object_set_new(j, "cost_ns", point ? json_real(a->point_cost) : json_null());
		json_object_set_new(j, "stock_cost_ns", priced ? json_real(a->stock_cost) : json_null());
		json_object_set_new(j, "ideal_cost_ns", priced ? json_real(a->ideal_cost) : json_null());
		json_object_set_new(j, "base_cost_ns", priced ? json_real(a->base_cost) : json_null());
		json_object_set_new(j, "ipis_saved", json_integer((json_int_t)(stock->ipis > ideal->ipis ?
				    stock->ipis - ideal->ipis : 0)));
		json_object_set_new(j, "ipis_saved_ns", json_real(a->ipis_saved_ns));
		json_object_set_new(j, "ipi_reduction", stock->ipis ?
				    json_real((double)(stock->ipis - ideal->ipis) / stock->ipis) :
				    json_null());
		json_object_set_new(j, "cheapest", !priced ? json_null() : json_pack("{s:i,s:i,s:f,s:f}", "threshold",
				    r->o->T[rec->ti], "queue", r->o->Q[rec->qi], "cost_ns", rec->cost,
				    "differing_cost_ns", rec->differing));
		json_object_set_new(j, "smallest_within_band", !priced ? json_null() :
				    json_pack("{s:i,s:i}", "threshold", r->o->T[rec->small_ti], "queue",
					      r->o->Q[rec->small_qi]));
		json_object_set_new(j, "equally_good", !priced ? json_null() : json_pack("{s:i,s:[i,i],s:[i,i]}", "points",
				    rec->nflat, "threshold", r->o->T[rec->lo_ti], r->o->T[rec->hi_ti],
				    "queue", r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]));
		arr = json_array();
		for (int f = 0; point && f < PF__COUNT; f++)
			for (int k = 0; k < 2; k++)
				json_array_append_new(arr, json_pack("{s:s,s:f,s:i,s:i,s:s}", "figure",
					platform_fig_name(f), "factor", k ? 2.0 : 0.5, "threshold",
					r->o->T[r->sens_ti[f][k]], "queue",
					r->o->Q[r->sens_qi[f][k]], "verdict",
					tuner_verdict_name(r->sens_verdict[f][k])));
		json_object_set_new(j, "sensitivity", arr);
		arr = json_array();
		{
			int same = 0;

			same = r->same_quarters;
			for (int k = 0; point && k < r->nwin; k++) {
				json_array_append_new(arr, json_pack("{s:I,s:i,s:i}", "until_ns",
					(json_int_t)r->until[k], "threshold",
					r->o->T[r->win[k].small_ti], "queue",
					r->o->Q[r->win[k].small_qi]));
			}
			json_object_set_new(j, "stability", arr);
			json_object_set_new(j, "stable", point && r->nwin ?
					    json_boolean(same == r->nwin) : json_null());
			json_object_set_new(j, "quarters_agreeing", point && r->nwin ?
					    json_integer(same) : json_null());
		}
		pf = open_memstream(&patch, &plen);
		if (pf) {
			bool any = tune_write_patch(pf, r);

			fclose(pf);
			json_object_set_new(j, "patch", any ? json_text(patch) : json_null());
		}
		free(patch);
		{
			const struct tuner_counts c = r->shown;
			int pti = r->pti, pqi = r->pqi;

			json_object_set_new(j, "counts", json_pack(
				"{s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:i}",
				"threshold", r->o->T[pti], "queue", r->o->Q[pqi],
				"ipis", (json_int_t)c.ipis, "evictions", (json_int_t)c.evictions,
				"refills", (json_int_t)c.refills, "deferred", (json_int_t)c.deferred,
				"replayed", (json_int_t)c.replayed,
				"replayed_pages", (json_int_t)c.replayed_pages,
				"drain_max", (json_int_t)c.drain_max,
				"drain_max_pages", (json_int_t)c.drain_max_pages,
				"overflows", (json_int_t)c.overflows,
				"table_resets", (json_int_t)c.table_resets,
				"mm_structs_pinned", r->o->T[pti] * r->ncpus));
			/* each exit looks the mm up in every CPU's table */
			json_object_set_new(json_object_get(j, "counts"), "exit_slot_lookups",
					    json_integer((json_int_t)r->exit_slot_lookups));
		}
		{
			const struct tuner_counts w = r->whatif;
			int pti = r->pti, pqi = r->pqi;

			json_object_set_new(j, "whatif_lazy_idle", !r->whatif_ok ? json_null() : json_pack(
				"{s:i,s:i,s:I,s:I,s:I,s:I,s:I,s:f}", "threshold", r->o->T[pti],
				"queue", r->o->Q[pqi], "ipis", (json_int_t)w.ipis,
				"deferred", (json_int_t)w.deferred, "replayed", (json_int_t)w.replayed,
				"drain_max", (json_int_t)w.drain_max,
				"overflows", (json_int_t)w.overflows, "cost_ns", r->whatif_cost_ns));
		}
		json_object_set_new(j, "tlb_reach_mms", json_integer(rec->reach));
		json_object_set_new(j, "on_grid_edge", json_boolean(rec->edge_T || rec->edge_Q));
		json_object_set_new(j, "base_above_stock", json_boolean(a->base_above_stock));
		json_object_set_new(root, "recommendation", j);
	}
	if (r->o->verify)
		json_object_set_new(root, "verify_differences", json_integer(r->verify_bad));
	if ((unknown = requests_unknown(r)))
		null_request_counts(root, unknown);
	return root;
}

void tune_print_json(const struct tune_run *r, const char *why)
{
	json_t *root = tune_json(r, why);

	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
}
