// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune's text: the models against the kernel, the recommendation with its reasons, the
 * grid, stability and sensitivity, and the patch-ready #define hunk.  Reads a finished
 * struct tune_run; computes nothing the JSON does not have.
 */
#include <errno.h>
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

void tune_reason(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec,
		 uint64_t reach_cov_num, uint64_t reach_den)
{
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_IDEAL);
	struct tuner_counts c, c1;
	int T = r->o->T[rec->small_ti], Q = r->o->Q[rec->small_qi];
	double saved = stock->ipis ? 100.0 * (stock->ipis - ideal->ipis) / stock->ipis : 0;

	tuner_grid_point(r->tu, rec->small_ti, rec->small_qi, &c);
	tuner_grid_point(r->tu, 0, rec->small_qi, &c1);
	snprintf(buf, len,
		 "Lazy flush interrupts only CPUs that are running the mm, so it sends %llu flush "
		 "IPIs instead of the stock kernel's %llu (%.1f %% fewer) whatever T and Q are. "
		 "T trades evictions (a local ASID flush, and a TLB refill when the mm comes back "
		 "soon) against a longer table scan at every switch: %.1f %% of this trace's mm "
		 "switches return to one of the %d most recent mms, and at T=%d evictions fall to "
		 "%llu from %llu at T=%d; a bigger table costs more scanning than it saves. "
		 "Q=%d keeps queue overflows (whole-ASID flushes) at %llu while bounding the "
		 "per-CPU queue memory to %d x %d entries.",
		 (unsigned long long)ideal->ipis, (unsigned long long)stock->ipis, saved,
		 reach_den ? 100.0 * reach_cov_num / reach_den : 0.0, T, T,
		 (unsigned long long)c.evictions, (unsigned long long)c1.evictions, r->o->T[0],
		 Q, (unsigned long long)c.overflows, T, Q);
}

void tune_print_text(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified)
{
	const struct ts_source_info *info = ts_source_info(r->src);
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	int T = r->o->T[rec->small_ti], Q = r->o->Q[rec->small_qi];
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);

	printf("tlbscope tune: %s (%s), %d CPUs\n", r->o->c.input, info->format, r->ncpus);
	printf("platform: %s - %s\n", r->pf.name, r->pf.description);
	printf("replayed: %llu flush requests (%llu without an mm, not replayed), %llu switches, "
	       "%llu mm switches\n", (unsigned long long)req, (unsigned long long)unattr,
	       (unsigned long long)tuner_switches(r->tu),
	       (unsigned long long)tuner_mm_switches(r->tu));
	{
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

	printf("\nModels\n");
	{
		static const char *const hdr[] = { "MODEL", "FLUSH_IPIS", "LOCAL_FLUSHES", "COST_MS" };
		struct table *t = table_new(4, hdr, "<>>>");

		for (int m = 0; m < TUNER__MODELS; m++) {
			const struct tuner_counts *c = tuner_model(r->tu, m);
			char a[32], b[32], d[32];
			const char *row[4] = { tuner_model_name(m), a, b, d };

			snprintf(a, 32, "%llu", (unsigned long long)c->ipis);
			snprintf(b, 32, "%llu", (unsigned long long)c->local_flushes);
			snprintf(d, 32, "%.3f", tuner_model_cost(&r->pf, c) / 1e6);
			table_add(t, row);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	if (observed >= 0) {
		double diff = stock->ipis ? 100.0 * ((double)stock->ipis - observed) / observed : 0;

		printf("\nCheck against the kernel: observed %lld flush IPIs (%s), predicted %llu "
		       "by stock_asid (%+.1f %%)\n", (long long)observed, obs_how,
		       (unsigned long long)stock->ipis, observed ? diff : 0.0);
		{
			uint64_t widened, seeded = tuner_stock_seeded(r->tu, &widened);
			uint64_t initial = timeline_ptr_stats(r->tl)->initial_known;
			double sd = observed ? 100.0 * ((double)seeded - observed) / observed : 0.0;

			if (widened)
				printf("  with the kernel's masks at each mm's first request (the CPUs that "
				       "ran %llu mm%s before the trace): predicted %llu (%+.1f %%)\n",
				       (unsigned long long)widened, widened == 1 ? "" : "s",
				       (unsigned long long)seeded, sd);
			if (widened && fabs(sd) <= 0.5)
				printf("  - so the difference is the history before the trace began: "
				       "the model's per-request masks match the kernel's\n");
			else if (!widened && observed && fabs(diff) <= 0.5)
				printf("  - the model's per-request masks match the kernel's%s\n",
				       initial ? " (each model starts from the mm every CPU had "
				       "loaded when the trace began: the prev of its first switch_mm)" :
				       "");
			else
				explain(stdout, r, observed, stock->ipis);
		}
	} else {
		printf("\nCheck against the kernel: the trace shows no flush IPIs of its own "
		       "(no csd, ipi or tlb_flush event names a flush function)\n");
	}

	printf("\nLazy grid: cost in ms (rows T = MAX_LOADED_MM, columns Q = MAX_TLB_FLUSH_TASK; "
	       "* cheapest, + recommended)\n");
	printf("  %5s", "T\\Q");
	for (int qi = 0; qi < r->o->nQ; qi++)
		printf(" %9d", r->o->Q[qi]);
	printf("\n");
	for (int ti = 0; ti < r->o->nT; ti++) {
		printf("  %5d", r->o->T[ti]);
		for (int qi = 0; qi < r->o->nQ; qi++) {
			char mark = ti == rec->small_ti && qi == rec->small_qi ? '+' :
				    ti == rec->ti && qi == rec->qi ? '*' : ' ';

			printf(" %8.3f%c", tune_cost_of(r, &r->pf, ti, qi) / 1e6, mark);
		}
		printf("\n");
	}
	{
		struct tuner_counts c;

		tuner_grid_point(r->tu, rec->small_ti, rec->small_qi, &c);
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
	printf("  MAX_LOADED_MM            %d\n", T);
	printf("  MAX_TLB_FLUSH_TASK       %d\n", Q);
	if (fat)
		printf("  tlb_flush_all_threshold  %llu\n", (unsigned long long)fat);
	else
		printf("  tlb_flush_all_threshold  64 (kept: no flush request in this trace has a "
		       "size; kprobes on __flush_tlb_range give them)\n");
	printf("  cheapest point           T=%d Q=%d (%.3f ms); recommended is the smallest "
	       "within 1 %% (%.3f ms)\n", r->o->T[rec->ti], r->o->Q[rec->qi], rec->cost / 1e6,
	       rec->small_cost / 1e6);
	printf("\n  %s\n", why);

	{
		int same = 0;

		if (r->nwin) {
			printf("\nStability (the recommendation in each quarter of the trace)\n");
			for (int k = 0; k < r->nwin; k++) {
				const struct tuner_rec *w = &r->win[k];
				char ts[32];

				format_ns(ts, sizeof(ts), r->until[k]);
				same += w->small_ti == rec->small_ti && w->small_qi == rec->small_qi;
				printf("  until %s s: T=%d Q=%d\n", ts, r->o->T[w->small_ti],
				       r->o->Q[w->small_qi]);
			}
			printf("  the whole trace's choice in %d of %d quarters\n", same, r->nwin);
		} else {
			printf("\nStability: the trace is too short to split into quarters\n");
		}
	}

	printf("\nSensitivity (each unit cost x0.5 and x2; the recommendation moves to)\n");
	for (int f = 0; f < PF__COSTS; f++) {
		printf("  %-22s", platform_fig_name(f));
		for (int k = 0; k < 2; k++) {
			const struct tuner_rec *x = &r->sens[f][k];

			if (x->small_ti == rec->small_ti && x->small_qi == rec->small_qi)
				printf("  x%-3s same", k ? "2" : "0.5");
			else
				printf("  x%-3s T=%d Q=%d", k ? "2" : "0.5", r->o->T[x->small_ti],
				       r->o->Q[x->small_qi]);
		}
		printf("\n");
	}

	printf("\nPatch (for a kernel with the lazy TLB flush series; apply with patch -p1 -l)\n");
	printf("--- a/arch/riscv/include/asm/tlbflush.h\n+++ b/arch/riscv/include/asm/tlbflush.h\n");
	printf("@@ -1 +1 @@\n-#define MAX_LOADED_MM 6\n+#define MAX_LOADED_MM %d\n", T);
	printf("@@ -1 +1 @@\n-#define MAX_TLB_FLUSH_TASK 32\n+#define MAX_TLB_FLUSH_TASK %d\n", Q);
	if (fat && fat != 64)
		printf("--- a/arch/riscv/mm/tlbflush.c\n+++ b/arch/riscv/mm/tlbflush.c\n");
	if (fat && fat != 64)
		printf("@@ -1 +1 @@\n-unsigned long tlb_flush_all_threshold __read_mostly = 64;\n"
		       "+unsigned long tlb_flush_all_threshold __read_mostly = %llu;\n",
		       (unsigned long long)fat);
}
