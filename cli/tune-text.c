// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune's text: the models against the kernel, the recommendation with its reasons, the
 * grid, stability and sensitivity, and the patch-ready #define hunk.  Reads a finished
 * struct tune_run; computes nothing the JSON does not have.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tune.h"

/* Known reasons why the stock model and the kernel differ, in plain words. */
static void explain(FILE *out, const struct tune_run *r, int64_t observed, uint64_t predicted)
{
	const char *arch = tune_arch_of(ts_source_info(r->src));
	uint64_t unattr;

	tuner_requests(r->tu, &unattr);
	if (!strcmp(arch, "x86_64"))
		fprintf(out, "  - this is an x86 kernel: it trims mm_cpumask and skips CPUs in lazy TLB "
			"mode, while the model is upstream RISC-V's mask that never shrinks, so the "
			"model predicts more than x86 sends\n");
	fprintf(out, "  - CPUs that ran a process before the trace began are in its real mask but "
		"not in the model's (the model under-predicts at the start of a trace)\n");
	if (unattr)
		fprintf(out, "  - %llu requests had no user mm to attribute (kernel threads flushing "
			"a user mm) and were not replayed\n", (unsigned long long)unattr);
	if (timeline_requests_mm_guessed(r->tl))
		fprintf(out, "  - requests are attributed to the requesting task's mm (the events "
			"name no mm): flushes of another process's mm are misattributed\n");
	if (timeline_lost(r->tl, NULL))
		fprintf(out, "  - events were lost: some requests and IPIs are missing on both sides\n");
	if (observed >= 0 && (uint64_t)observed > predicted && strcmp(arch, "x86_64"))
		fprintf(out, "  - flush_tlb_all and kernel-range flushes reach every online CPU\n");
}

const char *tune_percent(char *buf, size_t len, double part, double whole)
{
	if (whole == 0)
		snprintf(buf, len, "n/a");
	else
		snprintf(buf, len, "%+.1f %%", 100.0 * part / whole);
	return buf;
}

/* Why lazy flush pays, and what T and Q trade at the point to set. */
static void reason_pays(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec,
			uint64_t cov, uint64_t den)
{
	const struct tuner_advice *a = &r->adv;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_IDEAL);
	struct tuner_counts c, c1;
	int T = r->o->T[a->ti], Q = r->o->Q[a->qi], cT = r->o->T[rec->ti];
	char pct[32], bigger[160];

	tuner_grid_point(r->tu, a->ti, a->qi, &c);
	tuner_grid_point(r->tu, 0, a->qi, &c1);
	if (a->ti == r->o->nT - 1)
		snprintf(bigger, sizeof(bigger), "the grid ends at T=%d: try --threshold with "
			 "bigger values", T);
	else if (cT > T)
		snprintf(bigger, sizeof(bigger), "tables up to T=%d save less than %.0f %% more",
			 cT, 100 * TUNER_BAND);
	else
		snprintf(bigger, sizeof(bigger), "the next size, T=%d, costs %.3f ms more",
			 r->o->T[a->ti + 1], (tune_cost_of(r, &r->pf, a->ti + 1, a->qi) -
					      a->point_cost) / 1e6);
	snprintf(buf, len,
		 "%s. Lazy flush interrupts only CPUs that are running the mm, so it sends %llu "
		 "flush IPIs instead of the stock kernel's %llu (%s, %.3f ms of IPIs saved) "
		 "whatever T and Q are; with what it adds, T=%d Q=%d costs %.3f ms against "
		 "%.3f ms for stock (%.3f ms at the base T=%d Q=%d). "
		 "T trades evictions (a local ASID flush, and a TLB refill when the mm comes back "
		 "soon) against a longer table scan at every switch: %.1f %% of this trace's mm "
		 "switches return to one of the %d most recent mms, and at T=%d evictions fall to "
		 "%llu from %llu at T=%d; %s. Q=%d keeps queue overflows (whole-ASID flushes) at "
		 "%llu while bounding the per-CPU queue memory to %d x %d entries.",
		 a->verdict == TUNER_KEEP ? "Keep the kernel's setting, within the band of the "
		 "cheapest point" : "Lazy flush pays",
		 (unsigned long long)ideal->ipis, (unsigned long long)stock->ipis,
		 tune_percent(pct, sizeof(pct), -(double)a->ipis_saved, stock->ipis),
		 a->ipis_saved_ns / 1e6, T, Q, a->point_cost / 1e6, a->stock_cost / 1e6,
		 a->base_cost / 1e6, r->o->T[a->base_ti], r->o->Q[a->base_qi],
		 den ? 100.0 * cov / den : 0.0, T, T, (unsigned long long)c.evictions,
		 (unsigned long long)c1.evictions, r->o->T[0], bigger, Q,
		 (unsigned long long)c.overflows, T, Q);
}

/*
 * Append to @buf what weakens the point: quarters of the trace that chose otherwise, and
 * a grid flat within the band around it (a range, not a point).
 */

/* Did any request carry the kernel's own cpumask (a __flush_tlb_range probe with its mask)? */
static bool kernel_masks(const struct tune_run *r)
{
	uint64_t n = 0;

	for (int c = 0; r->tl && c < timeline_cpus(r->tl); c++)
		n += timeline_cpu(r->tl, c)->kmask_requests;
	return n > 0 || !r->tl;
}

static void honesty(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec)
{
	size_t n = strlen(buf);
	int same = 0, lo = INT_MAX, hi = 0, qlo = INT_MAX, qhi = 0;

	for (int k = 0; k < r->nwin; k++) {
		int wT = r->o->T[r->win[k].small_ti], wQ = r->o->Q[r->win[k].small_qi];

		same += r->win[k].small_ti == rec->small_ti && r->win[k].small_qi == rec->small_qi;
		lo = wT < lo ? wT : lo;
		hi = wT > hi ? wT : hi;
		qlo = wQ < qlo ? wQ : qlo;
		qhi = wQ > qhi ? wQ : qhi;
	}
	if (r->nwin && same < r->nwin && n < len)
		n += snprintf(buf + n, len - n, " The quarters of the trace disagree (%d of %d chose "
			      "this point; they chose T=%d..%d, Q=%d..%d): read it as a range, not an "
			      "exact value.", same, r->nwin, lo, hi, qlo, qhi);
	if (rec->nflat > 1 && n < len)
		snprintf(buf + n, len - n, " The grid is flat around it: %d points within %.0f %% "
			 "of the cheapest, T=%d..%d and Q=%d..%d, are as good.", rec->nflat,
			 100 * TUNER_BAND, r->o->T[rec->lo_ti], r->o->T[rec->hi_ti],
			 r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]);
}

void tune_reason(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec,
		 uint64_t reach_cov_num, uint64_t reach_den)
{
	const struct tuner_advice *a = &r->adv;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);
	char warm[96] = "", pct[32];

	if (r->o->warmup_ns) {
		char ts[32];

		format_ns(ts, sizeof(ts), r->o->warmup_ns);
		snprintf(warm, sizeof(warm), " after the %s s warm-up%s", ts,
			 r->warm ? "" : " (which reaches past the trace's end)");
	}
	switch (a->why) {
	case TUNER_WHY_FEW_REQUESTS:
		snprintf(buf, len, "Not enough to advise on: %llu flush requests with a user mm "
			 "were counted%s, and at least %d are needed, so there is no point to set "
			 "and no patch. Trace a longer run of the workload, with the flush events "
			 "(tlbscope record, or kprobes on __flush_tlb_range).",
			 (unsigned long long)(req - unattr), warm, TUNER_MIN_REQUESTS);
		return;
	case TUNER_WHY_FEW_SWITCHES:
		snprintf(buf, len, "Not enough to advise on: %llu mm switches were counted%s, "
			 "and at least %d are needed to see the loaded-mm tables fill and turn "
			 "over, so there is no point to set and no patch. Trace a longer run of "
			 "the workload, with sched_switch.",
			 (unsigned long long)tuner_mm_switches(r->tu), warm, TUNER_MIN_MM_SWITCHES);
		return;
	case TUNER_WHY_NO_REMOTE:
		snprintf(buf, len, "Lazy flush does not help this workload: no flush request had "
			 "a remote target (the stock kernel sends no flush IPI), so there is "
			 "nothing to defer; lazy flush would only add its table (%.3f ms at T=%d "
			 "Q=%d against %.3f ms for stock).", a->point_cost / 1e6,
			 r->o->T[a->ti], r->o->Q[a->qi], a->stock_cost / 1e6);
		return;
	case TUNER_WHY_ALL_RUNNING:
		snprintf(buf, len, "Lazy flush does not help this workload: every target was "
			 "running the mm. %llu of the stock kernel's %llu flush IPIs go to CPUs "
			 "that are running the flushed mm at that moment, which lazy flush must "
			 "interrupt too: it can queue %llu of them, and would add its table "
			 "(%.3f ms at T=%d Q=%d against %.3f ms for stock).",
			 (unsigned long long)(stock->ipis - a->ipis_saved),
			 (unsigned long long)stock->ipis, (unsigned long long)a->ipis_saved,
			 a->point_cost / 1e6, r->o->T[a->ti], r->o->Q[a->qi], a->stock_cost / 1e6);
		return;
	case TUNER_WHY_COSTS_MORE:
		snprintf(buf, len, "Lazy flush does not pay for this workload: it would avoid "
			 "%llu of the stock kernel's %llu flush IPIs (%s), worth %.3f ms, but its "
			 "evictions, refills and table scans cost more: %.3f ms at its best point "
			 "T=%d Q=%d against %.3f ms for stock.", (unsigned long long)a->ipis_saved,
			 (unsigned long long)stock->ipis,
			 tune_percent(pct, sizeof(pct), -(double)a->ipis_saved, stock->ipis),
			 a->ipis_saved_ns / 1e6, a->point_cost / 1e6, r->o->T[a->ti],
			 r->o->Q[a->qi], a->stock_cost / 1e6);
		return;
	case TUNER_WHY_PAYS:
		reason_pays(buf, len, r, rec, reach_cov_num, reach_den);
		honesty(buf, len, r, rec);
		return;
	}
}

bool tune_write_patch(FILE *out, const struct tune_run *r, uint64_t fat)
{
	const struct tuner_advice *a = &r->adv;
	int bT, bQ, T, Q;
	bool fat_changes = fat && fat != 64;

	if (a->verdict != TUNER_ENABLE || a->ti < 0)
		return false;
	bT = r->o->T[a->base_ti];
	bQ = r->o->Q[a->base_qi];
	T = r->o->T[a->ti];
	Q = r->o->Q[a->qi];
	if (T == bT && Q == bQ && !fat_changes)
		return false;
	if (!out)
		return true;
	if (T != bT || Q != bQ)
		fprintf(out, "--- a/arch/riscv/include/asm/tlbflush.h\n"
			"+++ b/arch/riscv/include/asm/tlbflush.h\n");
	if (T != bT)
		fprintf(out, "@@ -1 +1 @@\n-#define MAX_LOADED_MM %d\n+#define MAX_LOADED_MM %d\n",
			bT, T);
	if (Q != bQ)
		fprintf(out, "@@ -1 +1 @@\n-#define MAX_TLB_FLUSH_TASK %d\n"
			"+#define MAX_TLB_FLUSH_TASK %d\n", bQ, Q);
	if (fat_changes)
		fprintf(out, "--- a/arch/riscv/mm/tlbflush.c\n+++ b/arch/riscv/mm/tlbflush.c\n"
			"@@ -1 +1 @@\n-unsigned long tlb_flush_all_threshold __read_mostly = 64;\n"
			"+unsigned long tlb_flush_all_threshold __read_mostly = %llu;\n",
			(unsigned long long)fat);
	return true;
}

void tune_print_text(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified)
{
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_advice *a = &r->adv;
	/* the point to set, or where there is none the cheapest, for the counts shown */
	int pti = a->ti >= 0 ? a->ti : rec->small_ti, pqi = a->ti >= 0 ? a->qi : rec->small_qi;
	int T = r->o->T[pti], Q = r->o->Q[pqi];
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);

	if (r->aggregate) {
		printf("tlbscope tune: %d input%s, their counters summed (up to %d CPUs):",
		       r->o->ninputs, r->o->ninputs == 1 ? "" : "s", r->ncpus);
		for (int i = 0; i < r->o->ninputs; i++)
			printf(" %s", r->o->inputs[i]);
		printf("\n");
		for (int i = 0; i < r->o->ninputs; i++)
			if (r->o->weight[i] > 1)
				printf("  %s counted %llu times (--weight)\n", r->o->inputs[i],
				       (unsigned long long)r->o->weight[i]);
	} else {
		printf("tlbscope tune: %s (%s), %d CPUs\n", r->o->c.input,
		       ts_source_info(r->src)->format, r->ncpus);
	}
	printf("platform: %s - %s\n", r->pf.name, r->pf.description);
	printf("replayed: %llu flush requests (%llu without an mm, not replayed), %llu switches, "
	       "%llu mm switches\n", (unsigned long long)req, (unsigned long long)unattr,
	       (unsigned long long)tuner_switches(r->tu),
	       (unsigned long long)tuner_mm_switches(r->tu));
	if (r->aggregate && (r->lost || r->skipped))
		printf("lost events: %llu, malformed records skipped: %llu, in the inputs: every "
		       "count below misses what they were\n", (unsigned long long)r->lost,
		       (unsigned long long)r->skipped);
	if (!r->aggregate) {
		uint64_t marks, lost = timeline_lost(r->tl, &marks);
		const char *where;
		int cpu;

		if (lost || marks)
			printf("lost events: %llu%s: every count below misses what they were "
			       "(switches, requests, IPIs)\n", (unsigned long long)lost,
			       marks ? " (and sub-buffers with an unknown number lost)" : "");
		if (ts_source_skipped(r->src, &where))
			printf("malformed records skipped: %llu (first: %s)\n",
			       (unsigned long long)ts_source_skipped(r->src, NULL), where);
		if (tuner_unmodelled(r->tu, &cpu))
			printf("events not modelled: %llu on CPUs past the %d the input declares "
			       "(the first on CPU %d): every model count below misses them\n",
			       (unsigned long long)tuner_unmodelled(r->tu, NULL), r->ncpus, cpu);
	}

	printf("\nUnit costs (ns; source: trace = measured in the input, median [quartiles], "
	       "platform = the profile, user = your --platform file)\n");
	for (int f = 0; f < PF__COSTS; f++) {
		printf("  %-22s %9.0f  %-8s", platform_fig_name(f), r->pf.v[f],
		       platform_origin_name(r->pf.origin[f]));
		if (r->pf.origin[f] == PF_FROM_TRACE)
			printf(" %llu samples [%.0f..%.0f]: %s\n",
			       (unsigned long long)r->pf.samples[f], r->pf.p25[f], r->pf.p75[f],
			       r->pf.source[f]);
		else
			printf(" %s\n", r->pf.source[f]);
	}

	printf("\nModels\n");
	{
		static const char *const hdr[] = { "MODEL", "FLUSH_IPIS", "LOCAL_FLUSHES", "COST_MS" };
		struct table *t = table_new(4, hdr, "<>>>");

		for (int m = 0; m < TUNER__MODELS; m++) {
			const struct tuner_counts *c = tuner_model(r->tu, m);
			char n[32], b[32], d[32];
			const char *row[4] = { tuner_model_name(m), n, b, d };

			snprintf(n, 32, "%llu", (unsigned long long)c->ipis);
			snprintf(b, 32, "%llu", (unsigned long long)c->local_flushes);
			snprintf(d, 32, "%.3f", tuner_model_cost(&r->pf, c) / 1e6);
			table_add(t, row);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	if (observed >= 0 && r->lazy_kernel) {
		/* lazy(T, Q) interrupts only CPUs running the mm: its IPIs are ideal's, any T, Q */
		const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_IDEAL);
		char pct[32];

		printf("\nCheck against the kernel: observed %lld flush IPIs (%s), predicted %llu "
		       "by lazy at the kernel's own T=%d Q=%d (%s)\n", (long long)observed, obs_how,
		       (unsigned long long)ideal->ipis, r->o->T[r->adv.base_ti],
		       r->o->Q[r->adv.base_qi],
		       tune_percent(pct, sizeof(pct), (double)ideal->ipis - observed, observed));
		printf("  - a lazy-flush kernel (its local_load_tlb_mm events): it interrupts only "
		       "CPUs running the mm, whatever T and Q; stock_asid's %llu is what a stock "
		       "kernel would have sent\n", (unsigned long long)stock->ipis);
	} else if (observed >= 0) {
		char pct[32];

		printf("\nCheck against the kernel: observed %lld flush IPIs (%s%s), predicted %llu "
		       "by stock_asid (%s)\n", (long long)observed, obs_how,
		       r->aggregate ? ", summed over the inputs" : "",
		       (unsigned long long)stock->ipis,
		       tune_percent(pct, sizeof(pct), (double)stock->ipis - observed, observed));
		{
			uint64_t widened, seeded = tuner_stock_seeded(r->tu, &widened);
			uint64_t initial = r->tl ? timeline_ptr_stats(r->tl)->initial_known : 0;
			double sd = observed ? 100.0 * ((double)seeded - observed) / observed : 0.0;
			double diff = observed ? 100.0 * ((double)stock->ipis - observed) / observed : 0;

			if (widened)
				printf("  with the kernel's masks at each mm's first request (the CPUs that "
				       "ran %llu mm%s before the trace): predicted %llu (%s)\n",
				       (unsigned long long)widened, widened == 1 ? "" : "s",
				       (unsigned long long)seeded,
				       tune_percent(pct, sizeof(pct), (double)seeded - observed,
						    observed));
			if (widened && observed && fabs(sd) <= 0.5)
				printf("  - so the difference is the history before the trace began: "
				       "the model's per-request masks match the kernel's\n");
			else if (!widened && observed && fabs(diff) <= 0.5 && !kernel_masks(r))
				printf("  - the model predicts the kernel's flush IPIs (the trace has no "
				       "kernel cpumask to compare request by request: n/a)\n");
			else if (!widened && observed && fabs(diff) <= 0.5)
				printf("  - the model's per-request masks match the kernel's%s\n",
				       initial ? " (each model starts from the mm every CPU had "
				       "loaded when the trace began: the prev of its first switch_mm)" :
				       "");
			else if ((observed || stock->ipis) && !r->aggregate)
				explain(stdout, r, observed, stock->ipis);
		}
	} else {
		printf("\nCheck against the kernel: the trace shows no flush IPIs of its own "
		       "(no csd, ipi or tlb_flush event names a flush function)\n");
	}

	if (a->verdict == TUNER_INSUFFICIENT) {
		printf("\nRecommendation\n  verdict                  %s\n\n  %s\n",
		       tuner_verdict_name(a->verdict), why);
		return;
	}

	printf("\nLazy grid: cost in ms (rows T = MAX_LOADED_MM, columns Q = MAX_TLB_FLUSH_TASK; "
	       "* cheapest, + recommended, = base)\n");
	printf("  %5s", "T\\Q");
	for (int qi = 0; qi < r->o->nQ; qi++)
		printf(" %9d", r->o->Q[qi]);
	printf("\n");
	for (int ti = 0; ti < r->o->nT; ti++) {
		printf("  %5d", r->o->T[ti]);
		for (int qi = 0; qi < r->o->nQ; qi++) {
			/* '+' only where there is a point to set (enable, keep) */
			bool point = a->verdict == TUNER_ENABLE || a->verdict == TUNER_KEEP;
			char mark = point && ti == a->ti && qi == a->qi ? '+' :
				    ti == rec->ti && qi == rec->qi ? '*' :
				    ti == a->base_ti && qi == a->base_qi ? '=' : ' ';

			printf(" %8.3f%c", tune_cost_of(r, &r->pf, ti, qi) / 1e6, mark);
		}
		printf("\n");
	}
	{
		struct tuner_counts c;

		tuner_grid_point(r->tu, pti, pqi, &c);
		printf("\nAt T=%d, Q=%d: %llu IPIs, %llu deferred, %llu deferred flushes, %llu overflows, "
		       "%llu evictions (%llu refills), %llu table resets\n", T, Q,
		       (unsigned long long)c.ipis, (unsigned long long)c.deferred,
		       (unsigned long long)c.deferred_flushes, (unsigned long long)c.overflows,
		       (unsigned long long)c.evictions, (unsigned long long)c.refills,
		       (unsigned long long)c.table_resets);
	}
	{
		uint64_t h[TUNER_MAX_T + 1], all = 0, cum = 0;

		tuner_reuse_hist(r->tu, -1, h);
		for (int d = 0; d <= TUNER_MAX_T; d++)
			all += h[d];
		printf("\nReuse distance of mm switches (depth in each CPU's recency stack: a table of "
		       "T slots hits when depth <= T)\n  ");
		for (int d = 1; d <= 16 && all; d++) {
			cum += h[d];
			printf("%s<=%d %.1f%%", d == 1 || d == 9 ? "" : "  ", d, 100.0 * cum / all);
			if (d == 8)
				printf("\n  ");
		}
		if (all)
			printf("\n  first loads or deeper than %d: %.1f%%\n", TUNER_MAX_T,
			       100.0 * h[0] / all);
	}
	if (r->o->has_direct) {
		const struct tuner_counts *d = tuner_replayed(r->tu, r->nreplay - 1);

		printf("Direct replay of T=%d, Q=%d: %llu IPIs, %llu deferred, %llu deferred flushes, "
		       "%llu overflows, %llu evictions, %llu table resets, %llu local flushes\n",
		       r->o->direct[0], r->o->direct[1], (unsigned long long)d->ipis,
		       (unsigned long long)d->deferred, (unsigned long long)d->deferred_flushes,
		       (unsigned long long)d->overflows, (unsigned long long)d->evictions,
		       (unsigned long long)d->table_resets, (unsigned long long)d->local_flushes);
	}
	if (r->o->verify)
		printf("Verify: %d grid points replayed directly, %s\n", r->nreplay,
		       verified ? "DIFFERENCES (see stderr)" : "every counter equal to the sweep");

	printf("\nRecommendation\n");
	printf("  verdict                  %s\n", tuner_verdict_name(a->verdict));
	printf("  base                     T=%d (%s) Q=%d (%s)", r->o->T[a->base_ti],
	       r->base_T_how, r->o->Q[a->base_qi], r->base_Q_how);
	if (r->base_T_min)
		printf("; the kernel evicted nothing: its T is at least %d", r->base_T_min);
	if (r->base_T_seen != r->o->T[a->base_ti])
		printf("; T=%d priced at the nearest grid value (add it with --threshold)",
		       r->base_T_seen);
	if (r->base_Q_min)
		printf("; no queue overflowed after an emptying load, but one held %d entries: "
		       "its Q is at least %d", r->base_Q_min, r->base_Q_min);
	else if (r->lazy_kernel && !r->o->has_base && strcmp(r->base_Q_how, "trace"))
		printf("; its Q is not in the trace (no queue overflowed after an emptying load; "
		       "the longest held %llu)", (unsigned long long)r->kernel_queue_min);
	if (r->base_Q_seen != r->o->Q[a->base_qi])
		printf("; Q=%d priced at the nearest grid value (add it with --queue)",
		       r->base_Q_seen);
	printf("\n");
	if (a->verdict == TUNER_ENABLE || a->verdict == TUNER_KEEP) {
		printf("  MAX_LOADED_MM            %d\n", T);
		printf("  MAX_TLB_FLUSH_TASK       %d\n", Q);
		if (fat)
			printf("  tlb_flush_all_threshold  %llu\n", (unsigned long long)fat);
		else
			printf("  tlb_flush_all_threshold  64 (kept: no flush request in this trace "
			       "has a size; kprobes on __flush_tlb_range give them)\n");
	}
	printf("  costs (ms, one basis)    stock %.3f, ideal %.3f, base %.3f, cheapest T=%d Q=%d "
	       "%.3f\n", a->stock_cost / 1e6, a->ideal_cost / 1e6, a->base_cost / 1e6,
	       r->o->T[rec->ti], r->o->Q[rec->qi], rec->cost / 1e6);
	printf("  IPIs saved               %llu (%.3f ms), the same at every lazy point: the "
	       "choice among them is made on the rest of the cost\n",
	       (unsigned long long)a->ipis_saved, a->ipis_saved_ns / 1e6);
	if (rec->nflat > 1)
		printf("  equally good             %d points within %.0f %% of the cheapest: "
		       "T=%d..%d, Q=%d..%d (the grid is flat there)\n", rec->nflat,
		       100 * TUNER_BAND, r->o->T[rec->lo_ti], r->o->T[rec->hi_ti],
		       r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]);
	printf("\n  %s\n", why);

	if (a->verdict == TUNER_NO_BENEFIT)
		return;	/* no point to set: which lazy point is cheapest is beside it */
	if (r->nwin) {
		int same = 0, lo = INT_MAX, hi = 0, qlo = INT_MAX, qhi = 0;

		printf("\nStability (the recommendation in each quarter of the trace)\n");
		for (int k = 0; k < r->nwin; k++) {
			const struct tuner_rec *w = &r->win[k];
			char ts[32];
			int wT = r->o->T[w->small_ti];

			format_ns(ts, sizeof(ts), r->until[k]);
			same += w->small_ti == rec->small_ti && w->small_qi == rec->small_qi;
			lo = wT < lo ? wT : lo;
			hi = wT > hi ? wT : hi;
			qlo = r->o->Q[w->small_qi] < qlo ? r->o->Q[w->small_qi] : qlo;
			qhi = r->o->Q[w->small_qi] > qhi ? r->o->Q[w->small_qi] : qhi;
			printf("  until %s s: T=%d Q=%d\n", ts, wT, r->o->Q[w->small_qi]);
		}
		printf("  the whole trace's choice in %d of %d quarters", same, r->nwin);
		if (same < r->nwin)
			printf(": the quarters disagree (T=%d..%d, Q=%d..%d), so read the point "
			       "as a range, not an exact value", lo, hi, qlo, qhi);
		printf("\n");
	} else {
		printf("\nStability: the trace is too short to split into quarters\n");
	}

	printf("\nSensitivity (each unit cost x0.5 and x2; the recommendation moves to, and "
	       "the verdict when it changes)\n");
	for (int f = 0; f < PF__COSTS; f++) {
		printf("  %-22s", platform_fig_name(f));
		for (int k = 0; k < 2; k++) {
			const struct tuner_rec *x = &r->sens[f][k];

			if (x->small_ti == rec->small_ti && x->small_qi == rec->small_qi)
				printf("  x%-3s same", k ? "2" : "0.5");
			else
				printf("  x%-3s T=%d Q=%d", k ? "2" : "0.5", r->o->T[x->small_ti],
				       r->o->Q[x->small_qi]);
			if (r->sens_verdict[f][k] != a->verdict)
				printf(" (%s)", tuner_verdict_name(r->sens_verdict[f][k]));
		}
		printf("\n");
	}

	if (a->verdict == TUNER_KEEP) {
		printf("\nPatch: none, the kernel's setting is the advice\n");
		return;
	}
	if (!r->lazy_kernel)
		printf("\nEnable: CONFIG_RISCV_LAZY_TLB_FLUSH=y (the lazy TLB flush series)\n");
	if (!tune_write_patch(NULL, r, fat)) {
		printf("\nPatch: none, T=%d Q=%d is the base\n", T, Q);
		return;
	}
	printf("\nPatch (against the base T=%d Q=%d; apply with patch -p1 -l)\n",
	       r->o->T[a->base_ti], r->o->Q[a->base_qi]);
	tune_write_patch(stdout, r, fat);
	printf("Boot parameters (a kernel with them): lazytlb.max_loaded_mm=%d "
	       "lazytlb.flush_queue=%d\n", T, Q);
}
