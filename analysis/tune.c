// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune's analysis (analysis/tune.h): the inputs into the models, the decision and what
 * weakens it, as one finished struct tune_run.  It prints nothing: cli/cmd-tune.c reads the
 * traces and says what went wrong, cli/tune-*.c render the result.
 */
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tune.h"

/*
 * The recommendation and the verdict again with each unit cost, the TLB's size and the
 * working set halved and doubled.
 */
static void sensitivity(struct tune_run *r)
{
	for (int f = 0; f < PF__COUNT; f++)
		for (int k = 0; k < 2; k++) {
			struct platform p = r->pf;
			struct tuner_advice a;

			p.v[f] *= k ? 2.0 : 0.5;
			tuner_recommend(r->tu, &p, &r->sens[f][k]);
			tuner_advise(r->tu, &p, &r->sens[f][k], r->adv.base_ti, r->adv.base_qi,
				     r->lazy_kernel, r->riscv, &a);
			r->sens_verdict[f][k] = a.verdict;
			r->sens_ti[f][k] = a.ti >= 0 ? a.ti : r->sens[f][k].small_ti;
			r->sens_qi[f][k] = a.ti >= 0 ? a.qi : r->sens[f][k].small_qi;
		}
}

/* The numbers the renderers print (struct tune_run's last part), once the advice is made. */
static void price_shown(struct tune_run *r)
{
	int nT = r->o->nT, nQ = r->o->nQ, T, Q;

	r->grid = xcalloc((size_t)nT * nQ, sizeof(*r->grid));
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			struct tune_cell *g = &r->grid[ti * nQ + qi];

			tuner_grid_point(r->tu, ti, qi, &g->c);
			g->cost_ns = tuner_point_cost(r->tu, &r->pf, ti, qi);
		}
	tuner_shown_point(&r->adv, &r->rec, &r->pti, &r->pqi);
	T = r->o->T[r->pti];
	Q = r->o->Q[r->pqi];
	tuner_point_counts(r->tu, &r->pf, r->pti, r->pqi, &r->shown);
	r->exit_slot_lookups = tuner_exits(r->tu) * (uint64_t)r->ncpus * T;
	r->whatif_ok = tuner_whatif_point(r->tu, &r->pf, r->pti, r->pqi, &r->whatif);
	if (r->whatif_ok)
		r->whatif_cost_ns = tuner_cost(&r->pf, &r->whatif, T, Q, tuner_mm_switches(r->tu),
					       r->ncpus);
	for (int m = 0; m < TUNER__MODELS; m++)
		r->model_cost[m] = tuner_model_cost(&r->pf, tuner_model(r->tu, m));
	tuner_lazy_split(r->tu, r->lazy_split);
	r->flush_all = tuner_flush_all_threshold(r->tu, &r->pf);
}

/*
 * Observed flush IPIs of the trace (the kernel's own) after the warm-up, as the models
 * count them, or -1 when it shows none.
 */
static int64_t observed_ipis(const struct tune_run *r, const char **how)
{
	int src = timeline_ipi_source(r->tl);
	int64_t n = 0;

	*how = timeline_ipi_source_name(src);
	if (src < 0)
		return -1;
	if (!r->warm)
		return 0;	/* the warm-up reached past the end: nothing counted */
	for (int i = 0; i < timeline_cpus(r->tl); i++)
		n += timeline_cpu(r->tl, i)->ipis_received[src];
	return n - (int64_t)r->ipis_at_warm[src];
}

/*
 * The consumer of the resolved stream: the tuner, and what the kernel itself shows counted
 * over the same window (after --warmup) as the models.
 */
void tune_run_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct tune_run *r = ctx;
	const char *probe = ev->kind == TS_EV_OTHER && (ev->probe || ev->name) ?
			    ts_source_str(r->src, ev->probe ? ev->probe : ev->name) : NULL;

	if (ev->cpu >= 0 && ev->cpu < TS_MAX_CPUS && !r->started) {
		r->started = true;
		r->t0 = ev->ts;
	}
	if (r->started && !r->warm && ev->ts >= r->t0 + r->o->warmup_ns) {
		r->warm = true;
		for (int i = 0; i < timeline_cpus(tl); i++)
			for (int s = 0; s < TL_IPI__COUNT; s++)
				r->ipis_at_warm[s] += timeline_cpu(tl, i)->ipis_received[s];
	}
	/* by the probed function: a probe under another name counts too (parsers/probes.c) */
	tuner_lazy_kernel_feed(&r->lk, ev, probe, r->warm);
	/* the cost samples come from the same window as the counts */
	if (r->warm)
		tuner_measure_feed(r->meas, ev, ev->name ? ts_source_str(r->src, ev->name) : NULL);
	tuner_feed(r->tu, tl, ev);
}

/* The setting the traced kernel runs (tuner_find_base()), at its nearest grid values. */
static void find_base(struct tune_run *r, int *ti, int *qi)
{
	struct tuner_base b;

	tuner_find_base(r->tu, &r->lk, r->lazy_kernel, r->o->has_base ? r->o->base : NULL,
			r->cmdline, &b);
	r->base_T_how = b.T_how;
	r->base_Q_how = b.Q_how;
	r->base_T_min = b.T_min;
	r->base_Q_min = b.Q_min;
	r->base_T_seen = b.T;
	r->base_Q_seen = b.Q;
	*ti = b.ti;
	*qi = b.qi;
}

/* A difference --verify found, kept for the caller to say. */
static void verify_diff(struct tune_run *r, const char *fmt, ...)
{
	char line[256];
	size_t have = r->verify_diffs ? strlen(r->verify_diffs) : 0;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	r->verify_diffs = xrealloc(r->verify_diffs, have + strlen(line) + 2);
	memcpy(r->verify_diffs + have, line, strlen(line));
	r->verify_diffs[have + strlen(line)] = '\n';
	r->verify_diffs[have + strlen(line) + 1] = '\0';
	r->verify_bad++;
}

/* --verify: every replayed point against the sweep, and clear-at-full counted twice */
static void verify_grid(struct tune_run *r)
{

	for (int i = 0; i < r->nreplay; i++) {
		int ti = -1, qi = -1;
		bool idle;
		struct tuner_counts s;
		const struct tuner_counts *d = tuner_replayed(r->tu, i);

		for (int k = 0; k < r->o->nT; k++)
			if (r->o->T[k] == r->replay[i][0])
				ti = k;
		for (int k = 0; k < r->o->nQ; k++)
			if (r->o->Q[k] == r->replay[i][1])
				qi = k;
		if (ti < 0 || qi < 0)
			continue;
		idle = i >= r->idle_first && i < r->idle_first + r->idle_count;
		if (idle)	/* its IPIs: the floor's, the one count it is not swept for */
			tuner_whatif_point(r->tu, NULL, ti, qi, &s);
		else
			tuner_grid_point(r->tu, ti, qi, &s);
#define CMP(f)									\
		if (s.f != d->f) {						\
			verify_diff(r, "%sT=%d Q=%d %s: sweep %llu, direct %llu",	\
				    idle ? "lazy-idle " : "", r->replay[i][0],		\
				    r->replay[i][1], #f, (unsigned long long)s.f,	\
				    (unsigned long long)d->f);				\
		}
		CMP(ipis) CMP(deferred) CMP(deferred_flushes) CMP(overflows) CMP(evictions)
		CMP(table_resets) CMP(local_flushes) CMP(ipi_requests) CMP(replayed)
		CMP(replayed_pages) CMP(drain_max) CMP(drain_max_pages)
#undef CMP
	}
	if (r->o->verify && tuner_clear_at_full_check(r->tu) !=
	    tuner_model(r->tu, TUNER_CLEAR_AT_FULL)->ipis) {
		verify_diff(r, "clear_at_full ipis: masks %llu, sequence numbers %llu",
			    (unsigned long long)tuner_model(r->tu, TUNER_CLEAR_AT_FULL)->ipis,
			    (unsigned long long)tuner_clear_at_full_check(r->tu));
	}
}

/* Is @path a profile of tune --save-profile?  A new reference to its root, else NULL. */
json_t *tune_profile_open(const char *path)
{
	json_t *root;

	if (ts_input_once(path))
		return NULL;	/* read once, by the replay */
	root = json_load_file(path, 0, NULL);
	if (root && !json_is_object(json_object_get(root, "tlbscope_profile"))) {
		json_decref(root);
		return NULL;
	}
	return root;
}

void tune_run_reset(struct tune_run *r)
{
	r->started = r->warm = false;
	r->t0 = 0;
	memset(r->ipis_at_warm, 0, sizeof(r->ipis_at_warm));
	tuner_lazy_kernel_reset(&r->lk);
}

void tune_run_trace_done(struct tune_run *r)
{
	tuner_finish(r->tu);
	if (ts_source_info(r->src)->cpus <= 0)
		r->ncpus = timeline_cpus(r->tl);
	r->arch = timeline_arch_name(timeline_arch(r->tl, &r->arch_how));
	free(r->uname);
	r->uname = ts_source_info(r->src)->uname ? xstrdup(ts_source_info(r->src)->uname) : NULL;
	free(r->cmdline);
	r->cmdline = ts_source_info(r->src)->cmdline ? xstrdup(ts_source_info(r->src)->cmdline) :
		     NULL;
	free(r->machine);
	r->machine = ts_source_info(r->src)->machine ? xstrdup(ts_source_info(r->src)->machine) :
		     NULL;
	r->lazy_kernel = timeline_lazy_kernel(r->tl);
	r->observed = observed_ipis(r, &r->obs_how);
}

json_t *tune_profile_json(const struct tune_run *r)
{
	json_t *j = json_object(), *in = json_array();

	for (int i = 0; i < r->o->ninputs; i++)
		json_array_append_new(in, json_pack("{s:s,s:I}", "input", r->o->inputs[i],
				      "weight", (json_int_t)r->o->weight[i]));
	json_object_set_new(j, "inputs", in);
	json_object_set_new(j, "tlbscope_profile", tuner_profile_json(r->tu));
	json_object_set_new(j, "measured_costs", tuner_measure_json(r->meas));
	json_object_set_new(j, "observed_flush_ipis", r->observed >= 0 ?
			    json_integer(r->observed) : json_null());
	json_object_set_new(j, "observed_source", r->observed >= 0 ? json_string(r->obs_how) :
			    json_null());
	json_object_set_new(j, "kernel_evictions", json_integer((json_int_t)r->lk.evictions));
	json_object_set_new(j, "kernel_queue", r->lk.queue >= 0 ?
			    json_integer(r->lk.queue) : json_null());
	json_object_set_new(j, "kernel_queue_min",
			    json_integer((json_int_t)r->lk.queue_min));
	json_object_set_new(j, "lazy_kernel", json_boolean(r->lazy_kernel));
	json_object_set_new(j, "cmdline", r->cmdline && utf8_valid(r->cmdline) ?
			    json_string(r->cmdline) : json_null());
	json_object_set_new(j, "cpus", json_integer(r->ncpus));
	/* what the counts miss, so that a decision on the profile can say so */
	json_object_set_new(j, "lost_events", json_integer((json_int_t)(r->aggregate ? r->lost :
			    timeline_lost(r->tl, NULL))));
	json_object_set_new(j, "malformed_skipped", json_integer((json_int_t)(r->aggregate ?
			    r->skipped : ts_source_skipped(r->src, NULL))));
	return j;
}

/* The kernel's own IPIs and evictions add up too. */
int tune_run_aggregate(struct tune_run *r, struct tuner_opts *to, tune_replay_fn replay,
		       void *ctx, char *errbuf, size_t errlen)
{
	const struct tune_params *o = r->o;
	struct tuner *sum = NULL;
	struct tuner_measure *meas = tuner_measure_new();
	int64_t observed = 0;
	const char *obs_how = NULL;
	uint64_t evictions = 0, lost = 0, skipped = 0, queue_min = 0;
	int64_t queue = -1;
	bool lazy = true, shown = true, same_cmdline = true;
	char *cmdline = NULL;	/* the inputs' kernel command line while they agree */
	int ncpus = 1, ret = 0;
	char err[TS_ERR_LEN];
	static char obs_buf[64];

	for (int i = 0; i < o->ninputs && !ret; i++) {
		json_t *prof = tune_profile_open(o->inputs[i]);
		struct tuner *tu;
		uint64_t w = o->weight[i];

		if (prof) {
			json_t *pj = json_object_get(prof, "tlbscope_profile");
			json_t *ob = json_object_get(prof, "observed_flush_ipis");

			tu = tuner_profile_load(pj, to, err);
			r->meas = tuner_measure_new();
			if (!tu || tuner_measure_load(r->meas,
						      json_object_get(prof, "measured_costs"))) {
				snprintf(errbuf, errlen, "%s: %s", o->inputs[i], tu ? "a tune profile "
					 "without its measured costs" : err);
				ret = 2;
				json_decref(prof);
				tuner_free(tu);
				tuner_measure_free(r->meas);
				r->meas = NULL;
				break;
			}
			r->tu = tu;
			r->observed = json_is_integer(ob) ? json_integer_value(ob) : -1;
			r->obs_how = json_string_value(json_object_get(prof, "observed_source"));
			if (r->obs_how) {
				/* the profile is freed below: the name is kept here */
				strlcpy_ts(obs_buf, r->obs_how, sizeof(obs_buf));
				r->obs_how = obs_buf;
			}
			r->lk.evictions = (uint64_t)json_integer_value(
					      json_object_get(prof, "kernel_evictions"));
			r->lk.queue = json_is_integer(json_object_get(prof, "kernel_queue")) ?
				json_integer_value(json_object_get(prof, "kernel_queue")) : -1;
			r->lk.queue_min = (uint64_t)json_integer_value(
					      json_object_get(prof, "kernel_queue_min"));
			r->lazy_kernel = json_is_true(json_object_get(prof, "lazy_kernel"));
			free(r->cmdline);
			r->cmdline = json_string_value(json_object_get(prof, "cmdline")) ?
				xstrdup(json_string_value(json_object_get(prof, "cmdline"))) : NULL;
			r->ncpus = (int)json_integer_value(json_object_get(prof, "cpus"));
			lost += (uint64_t)json_integer_value(json_object_get(prof, "lost_events")) * w;
			skipped += (uint64_t)json_integer_value(
				   json_object_get(prof, "malformed_skipped")) * w;
			json_decref(prof);
		} else {
			ret = replay(ctx, r, o->inputs[i], to);
			if (r->tl)
				lost += timeline_lost(r->tl, NULL) * w;
			if (r->src)
				skipped += ts_source_skipped(r->src, NULL) * w;
			timeline_free(r->tl);
			ts_source_close(r->src);
			r->tl = NULL;
			r->src = NULL;
			if (ret)
				break;
		}
		if (!sum) {
			struct tuner_opts so = *to;

			so.replay = NULL;
			so.nreplay = 0;
			so.decisions = NULL;
			so.ncpus = TS_MAX_CPUS;	/* the sum's queue memory is priced below */
			sum = tuner_aggregate_new(&so);
		}
		if (tuner_merge(sum, r->tu, w, err)) {
			snprintf(errbuf, errlen, "%s: %s", o->inputs[i], err);
			ret = 2;
		}
		tuner_measure_merge(meas, r->meas, w);
		if (r->observed < 0)
			shown = false;
		else
			observed += r->observed * (int64_t)w;
		if (r->obs_how)
			obs_how = r->obs_how;
		evictions += r->lk.evictions * w;
		/* one Q for all inputs: exact only when every overflow seen agrees */
		if (r->lk.queue >= 0 && queue != -2)
			queue = queue == -1 || queue == r->lk.queue ? r->lk.queue : -2;
		else if (r->lk.queue == -2)
			queue = -2;
		queue_min = r->lk.queue_min > queue_min ? r->lk.queue_min : queue_min;
		lazy &= r->lazy_kernel;
		/* one base for all inputs: their kernels' command lines must agree */
		if (i == 0)
			cmdline = r->cmdline ? xstrdup(r->cmdline) : NULL;
		else if (!cmdline || !r->cmdline || strcmp(cmdline, r->cmdline))
			same_cmdline = false;
		ncpus = r->ncpus > ncpus ? r->ncpus : ncpus;
		tuner_free(r->tu);
		tuner_measure_free(r->meas);
		r->tu = NULL;
		r->meas = NULL;
	}
	r->tu = sum;
	r->meas = meas;
	r->observed = shown ? observed : -1;
	r->obs_how = obs_how ? obs_how : "none";
	r->lk.evictions = evictions;
	r->lk.queue = queue;
	r->lk.queue_min = queue_min;
	r->lost = lost;
	r->skipped = skipped;
	r->lazy_kernel = lazy;
	r->ncpus = ncpus;
	free(r->cmdline);
	r->cmdline = same_cmdline ? cmdline : NULL;
	if (!same_cmdline)
		free(cmdline);
	r->warm = true;
	if (sum)
		tuner_set_ncpus(sum, ncpus);
	return ret;
}

int tune_run_finish(struct tune_run *r)
{
	uint64_t hist[TUNER_MAX_T + 1];
	int base_ti, base_qi;

	/*
	 * What the trace measured replaces the profile's figure, unless it came from a
	 * virtual machine (its timings are the host's scheduling); the user's own file wins
	 */
	tuner_host_detect(r->meas, r->uname, r->machine, r->o->machine, &r->host);
	tuner_measure_apply(r->meas, &r->pf, !r->host.vm);
	if (!r->arch)
		r->arch = "unknown", r->arch_how = "a sum of inputs";
	if (r->o->verify)
		verify_grid(r);
	tuner_recommend(r->tu, &r->pf, &r->rec);
	find_base(r, &base_ti, &base_qi);
	/* advice for RISC-V, and for a trace that does not say it is of another arch */
	r->riscv = tl_arch_may_be_riscv(timeline_arch_named(r->arch));
	tuner_advise(r->tu, &r->pf, &r->rec, base_ti, base_qi, r->lazy_kernel, r->riscv, &r->adv);
	tuner_reuse_hist(r->tu, -1, hist);
	for (int d = 0; d <= TUNER_MAX_T; d++) {
		r->reach_den += hist[d];
		if (d && d <= r->o->T[r->adv.ti >= 0 ? r->adv.ti : r->rec.small_ti])
			r->reach_cov += hist[d];
	}
	r->span_ns = tuner_span(r->tu);
	sensitivity(r);
	r->nwin = tuner_windows(r->tu, &r->pf, 4, r->win, r->until);
	price_shown(r);
	/* a quarter agrees when the point is within the band of its own cheapest */
	r->same_quarters = r->nwin ? tuner_windows_agree(r->tu, &r->pf, r->nwin, r->pti, r->pqi) :
			   0;
	r->quarters_T[0] = r->quarters_Q[0] = INT_MAX;
	r->quarters_T[1] = r->quarters_Q[1] = 0;
	for (int k = 0; k < r->nwin; k++) {
		int wT = r->o->T[r->win[k].small_ti], wQ = r->o->Q[r->win[k].small_qi];

		r->quarters_T[0] = wT < r->quarters_T[0] ? wT : r->quarters_T[0];
		r->quarters_T[1] = wT > r->quarters_T[1] ? wT : r->quarters_T[1];
		r->quarters_Q[0] = wQ < r->quarters_Q[0] ? wQ : r->quarters_Q[0];
		r->quarters_Q[1] = wQ > r->quarters_Q[1] ? wQ : r->quarters_Q[1];
	}
	r->kernel_masks = !r->tl;
	for (int c = 0; r->tl && c < timeline_cpus(r->tl); c++)
		r->kernel_masks |= timeline_cpu(r->tl, c)->kmask_requests > 0;
	return r->verify_bad;
}

void tune_run_free(struct tune_run *r)
{
	tune_run_reset(r);
	tuner_measure_free(r->meas);
	tuner_free(r->tu);
	timeline_free(r->tl);
	ts_source_close(r->src);
	free(r->replay);
	free(r->uname);
	free(r->machine);
	free(r->cmdline);
	free(r->verify_diffs);
	free(r->grid);
}
