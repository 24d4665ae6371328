// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope tune: replay the trace under the stock, ideal and lazy(T, Q) mechanisms in one
 * pass, price each grid point with a platform profile, and recommend MAX_LOADED_MM,
 * MAX_TLB_FLUSH_TASK and tlb_flush_all_threshold with the reasons, the sensitivity to every
 * unit cost, and the check of the stock model against the kernel's own flush IPIs.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "../tuner/tuner.h"
#include "cli.h"

static const char tune_usage[] =
	"usage: tlbscope tune [options] TRACE\n"
	"\n"
	"  --threshold LIST   MAX_LOADED_MM values: 1,2,4,6 or 1-16 (default 1-16,24,32)\n"
	"  --queue LIST       MAX_TLB_FLUSH_TASK values (default 0,1,2,4,8,16,32,64,128)\n"
	"  --platform P       a profile name (generic, sifive-u74, thead-c910) or a JSON file\n"
	"                     whose figures override the generic ones\n"
	"  --warmup T         count from T after the first event (state still replayed)\n"
	"  --flush-all-threshold N  pages past which a range flushes the whole ASID (64)\n"
	"  --direct T,Q       also replay lazy(T, Q) directly and print its counts\n"
	"  --decisions FILE   with --direct: write that replay's decision for each remote CPU\n"
	"                     of each flush, \"TS CPU TARGET DECISION\" (lazy_tlb_defer's codes)\n"
	"  --verify           replay every grid point directly and compare with the sweep\n"
	"                     (exit 1 on any difference)\n"
	"  --svg FILE         write the cost heatmap and the eviction/cost curves over T\n"
	"  --json             one JSON object with stable keys\n";

#define MAX_LIST 128

struct tune_opts {
	struct common_opts c;
	int T[MAX_LIST], nT;
	int Q[MAX_LIST], nQ;
	const char *platform;
	uint64_t warmup_ns;
	uint64_t flush_all;
	int direct[2];
	bool has_direct, verify;
	const char *svg;
	const char *decisions;
};

/* "1,2,4" or "1-16" or a mix; values in [lo, hi], duplicates dropped. */
static int parse_list(const char *s, int lo, int hi, int *out, int *n)
{
	*n = 0;
	while (*s) {
		const char *comma = strchr(s, ',');
		size_t len = comma ? (size_t)(comma - s) : strlen(s);
		char item[32], *dash;
		int a, b;

		if (!len || len >= sizeof(item))
			return -1;
		memcpy(item, s, len);
		item[len] = '\0';
		dash = strchr(item + 1, '-');
		if (dash)
			*dash = '\0';
		if (parse_int(item, &a) || (dash ? parse_int(dash + 1, &b) : (b = a, 0)))
			return -1;
		if (a < lo || b > hi || b < a || *n + (b - a + 1) > MAX_LIST)
			return -1;
		for (int v = a; v <= b; v++) {
			bool dup = false;

			for (int i = 0; i < *n; i++)
				dup |= out[i] == v;
			if (!dup)
				out[(*n)++] = v;
		}
		s += len + (comma != NULL);
		if (comma && !*s)
			return -1;	/* a trailing comma */
	}
	return *n ? 0 : -1;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int tune_parse_args(struct tune_opts *o, int argc, char **argv);

int tune_parse_args(struct tune_opts *o, int argc, char **argv)
{
	static const int dT[] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32 };
	static const int dQ[] = { 0, 1, 2, 4, 8, 16, 32, 64, 128 };

	memset(o, 0, sizeof(*o));
	memcpy(o->T, dT, sizeof(dT));
	o->nT = sizeof(dT) / sizeof(dT[0]);
	memcpy(o->Q, dQ, sizeof(dQ));
	o->nQ = sizeof(dQ) / sizeof(dQ[0]);
	o->flush_all = 64;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		int r;
		uint64_t n;

		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(tune_usage, stdout);
			return 1;
		}
		r = common_opt_parse(&o->c, argc, argv, &i, false);
		if (r < 0)
			return -1;
		if (r)
			continue;
		if (!strcmp(a, "--verify")) {
			o->verify = true;
			continue;
		}
		if (a[0] == '-' && a[1] && !v) {
			error("tune: option '%s' needs a value", a);
			return -1;
		}
		if (!strcmp(a, "--threshold")) {
			if (parse_list(v, 1, TUNER_MAX_T, o->T, &o->nT)) {
				error("--threshold: '%s' is not a list of 1..%d like 1,2,4 or 1-16", v,
				      TUNER_MAX_T);
				return -1;
			}
		} else if (!strcmp(a, "--queue")) {
			if (parse_list(v, 0, 4096, o->Q, &o->nQ)) {
				error("--queue: '%s' is not a list of 0..4096 like 0,8,32 or 0-8", v);
				return -1;
			}
		} else if (!strcmp(a, "--platform")) {
			o->platform = v;
		} else if (!strcmp(a, "--warmup")) {
			if (parse_duration_ns(v, &o->warmup_ns)) {
				error("--warmup: '%s' is not a duration (seconds, or 200ms)", v);
				return -1;
			}
		} else if (!strcmp(a, "--flush-all-threshold")) {
			if (parse_u64(v, 10, &n) || !n) {
				error("--flush-all-threshold: '%s' is not a page count", v);
				return -1;
			}
			o->flush_all = n;
		} else if (!strcmp(a, "--direct")) {
			int end = -1;

			if (sscanf(v, "%d,%d%n", &o->direct[0], &o->direct[1], &end) != 2 ||
			    v[end] != '\0' ||
			    o->direct[0] < 1 || o->direct[0] > TUNER_MAX_T || o->direct[1] < 0) {
				error("--direct: '%s' is not T,Q (T in 1..%d, Q >= 0)", v, TUNER_MAX_T);
				return -1;
			}
			o->has_direct = true;
		} else if (!strcmp(a, "--svg")) {
			o->svg = v;
		} else if (!strcmp(a, "--decisions")) {
			o->decisions = v;
		} else if (a[0] == '-' && a[1]) {
			error("tune: unknown option '%s'\n%s", a, tune_usage);
			return -1;
		} else if (o->c.input) {
			error("tune: one trace at a time ('%s' and '%s')", o->c.input, a);
			return -1;
		} else {
			o->c.input = a;
			continue;
		}
		i++;
	}
	if (!o->c.input) {
		error("tune: no trace given\n%s", tune_usage);
		return -1;
	}
	if (o->decisions && !o->has_direct) {
		error("tune: --decisions needs --direct T,Q (the replay whose decisions it writes)");
		return -1;
	}
	qsort(o->T, o->nT, sizeof(int), cmp_int);
	qsort(o->Q, o->nQ, sizeof(int), cmp_int);
	return 0;
}

struct run {
	struct tune_opts *o;
	struct ts_source *src;
	struct timeline *tl;
	struct tuner *tu;
	struct platform pf;
	int ncpus;
	int (*replay)[2];
	int nreplay;
	/* computed once, printed as text or JSON */
	struct tuner_rec sens[PF__COSTS][2];	/* each unit cost x0.5, x2 */
	struct tuner_rec win[4];		/* each quarter of the trace */
	uint64_t until[4];
	int nwin;
};

/* The recommendation again with each unit cost halved and doubled. */
static void sensitivity(struct run *r)
{
	for (int f = 0; f < PF__COSTS; f++)
		for (int k = 0; k < 2; k++) {
			struct platform p = r->pf;

			p.v[f] *= k ? 2.0 : 0.5;
			tuner_recommend(r->tu, &p, &r->sens[f][k]);
		}
}

static double cost_of(const struct run *r, const struct platform *pf, int ti, int qi)
{
	struct tuner_counts c;

	tuner_grid_point(r->tu, ti, qi, &c);
	return tuner_cost(pf, &c, r->o->T[ti], r->o->Q[qi], tuner_mm_switches(r->tu), r->ncpus);
}

/* Observed flush IPIs of the trace (the kernel's own), or -1 when it shows none. */
static int64_t observed_ipis(struct timeline *tl, const char **how)
{
	int src = timeline_ipi_source(tl);
	int64_t n = 0;

	*how = timeline_ipi_source_name(src);
	if (src < 0)
		return -1;
	for (int i = 0; i < timeline_cpus(tl); i++)
		n += timeline_cpu(tl, i)->ipis_received[src];
	return n;
}

static const char *arch_of(const struct ts_source_info *info)
{
	if (!info->uname)
		return "unknown";
	if (strstr(info->uname, "riscv"))
		return "riscv";
	if (strstr(info->uname, "x86_64"))
		return "x86_64";
	return "other";
}

/* Known reasons why the stock model and the kernel differ, in plain words. */
static void explain(FILE *out, const struct run *r, int64_t observed, uint64_t predicted)
{
	const char *arch = arch_of(ts_source_info(r->src));
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

static void reason(char *buf, size_t len, const struct run *r, const struct tuner_rec *rec,
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

static void write_svg(const struct run *r, const char *path, const struct tuner_rec *rec);

static int verify_grid(struct run *r)
{
	int bad = 0;

	for (int i = 0; i < r->nreplay; i++) {
		int ti = -1, qi = -1;
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
		tuner_grid_point(r->tu, ti, qi, &s);
#define CMP(f)									\
		if (s.f != d->f) {						\
			fprintf(stderr, "tlbscope: verify: T=%d Q=%d %s: sweep %llu, "	\
				"direct %llu\n", r->replay[i][0], r->replay[i][1], #f,	\
				(unsigned long long)s.f, (unsigned long long)d->f);	\
			bad++;							\
		}
		CMP(ipis) CMP(deferred) CMP(deferred_flushes) CMP(overflows) CMP(evictions)
		CMP(table_resets) CMP(local_flushes)
#undef CMP
	}
	return bad;
}

static void print_text(struct run *r, const struct tuner_rec *rec, int64_t observed,
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

		if (lost || marks)
			printf("lost events: %llu%s: every count below misses what they were "
			       "(switches, requests, IPIs)\n", (unsigned long long)lost,
			       marks ? " (and sub-buffers with an unknown number lost)" : "");
		if (ts_source_skipped(r->src, &where))
			printf("malformed records skipped: %llu (first: %s)\n",
			       (unsigned long long)ts_source_skipped(r->src, NULL), where);
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

			printf(" %8.3f%c", cost_of(r, &r->pf, ti, qi) / 1e6, mark);
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

static void print_json(struct run *r, const struct tuner_rec *rec, int64_t observed,
		       const char *obs_how, uint64_t fat, const char *why, int verified)
{
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_IDEAL);
	json_t *root = json_object(), *j, *arr;
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);

	j = json_object();
	json_object_set_new(j, "file", json_string(r->o->c.input));
	json_object_set_new(j, "format", json_string(ts_source_info(r->src)->format));
	json_object_set_new(j, "cpus", json_integer(r->ncpus));
	json_object_set_new(j, "requests", json_integer((json_int_t)req));
	json_object_set_new(j, "requests_without_mm", json_integer((json_int_t)unattr));
	json_object_set_new(j, "switches", json_integer((json_int_t)tuner_switches(r->tu)));
	json_object_set_new(j, "mm_switches", json_integer((json_int_t)tuner_mm_switches(r->tu)));
	{
		uint64_t marks, lost = timeline_lost(r->tl, &marks);

		json_object_set_new(j, "lost_events", json_integer((json_int_t)lost));
		json_object_set_new(j, "lost_markers_without_count", json_integer((json_int_t)marks));
		json_object_set_new(j, "malformed_skipped",
				    json_integer((json_int_t)ts_source_skipped(r->src, NULL)));
	}
	json_object_set_new(root, "input", j);
	json_object_set_new(root, "platform", json_string(r->pf.name));

	j = json_object();
	for (int m = 0; m < TUNER__MODELS; m++) {
		json_t *mj = jcounts(tuner_model(r->tu, m)), *cpus = json_array();

		for (int c = 0; c < r->ncpus && c < tuner_ncpus(r->tu); c++) {
			json_t *cj = jcounts(tuner_model_cpu(r->tu, m, c));

			json_object_set_new(cj, "cpu", json_integer(c));
			json_array_append_new(cpus, cj);
		}
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
		for (int c = 0; c < r->ncpus && c < tuner_ncpus(r->tu); c++) {
			json_t *cj = jall(tuner_replayed_cpu(r->tu, i, c));

			json_object_set_new(cj, "cpu", json_integer(c));
			json_array_append_new(cpus, cj);
		}
		json_object_set_new(j, "cpus", cpus);
		json_object_set_new(root, "direct", j);
	}

	{
		/* reuse distances: [0] first loads or deeper than the stack, [d] depth d */
		json_t *rd = json_object(), *cpus = json_array();

		for (int c = -1; c < r->ncpus && c < tuner_ncpus(r->tu); c++) {
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
			struct tuner_counts c;

			tuner_grid_point(r->tu, ti, qi, &c);
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
			json_object_set_new(j, "cost_ns", json_real(cost_of(r, &r->pf, ti, qi)));
			json_array_append_new(arr, j);
		}
	json_object_set_new(root, "grid", arr);

	j = json_object();
	json_object_set_new(j, "flush_ipis", observed >= 0 ? json_integer(observed) : json_null());
	json_object_set_new(j, "source", observed >= 0 ? json_string(obs_how) : json_null());
	json_object_set_new(j, "predicted_stock_asid", json_integer((json_int_t)stock->ipis));
	{
		uint64_t widened, seeded = tuner_stock_seeded(r->tu, &widened);

		json_object_set_new(j, "predicted_seeded", widened ? json_integer((json_int_t)seeded) :
				    json_null());
		json_object_set_new(j, "seeded_difference_percent", widened && observed > 0 ?
				    json_real(100.0 * ((double)seeded - observed) / observed) : json_null());
	}
	json_object_set_new(j, "difference_percent", observed > 0 ?
			    json_real(100.0 * ((double)stock->ipis - observed) / observed) : json_null());
	json_object_set_new(root, "observed", j);

	j = json_object();
	json_object_set_new(j, "threshold", json_integer(r->o->T[rec->small_ti]));
	json_object_set_new(j, "queue", json_integer(r->o->Q[rec->small_qi]));
	json_object_set_new(j, "tlb_flush_all_threshold", fat ? json_integer((json_int_t)fat) :
			    json_null());
	json_object_set_new(j, "ipi_reduction", json_real(stock->ipis ?
			    (double)(stock->ipis - ideal->ipis) / stock->ipis : 0.0));
	json_object_set_new(j, "cost_ns", json_real(rec->small_cost));
	json_object_set_new(j, "cheapest", json_pack("{s:i,s:i,s:f}", "threshold",
			    r->o->T[rec->ti], "queue", r->o->Q[rec->qi], "cost_ns", rec->cost));
	json_object_set_new(j, "reason", json_string(why));
	arr = json_array();
	for (int f = 0; f < PF__COSTS; f++)
		for (int k = 0; k < 2; k++)
			json_array_append_new(arr, json_pack("{s:s,s:f,s:i,s:i}", "figure",
				platform_fig_name(f), "factor", k ? 2.0 : 0.5, "threshold",
				r->o->T[r->sens[f][k].small_ti], "queue",
				r->o->Q[r->sens[f][k].small_qi]));
	json_object_set_new(j, "sensitivity", arr);
	arr = json_array();
	for (int k = 0; k < r->nwin; k++)
		json_array_append_new(arr, json_pack("{s:I,s:i,s:i}", "until_ns",
			(json_int_t)r->until[k], "threshold", r->o->T[r->win[k].small_ti], "queue",
			r->o->Q[r->win[k].small_qi]));
	json_object_set_new(j, "stability", arr);
	json_object_set_new(root, "recommendation", j);
	if (r->o->verify)
		json_object_set_new(root, "verify_differences", json_integer(verified));

	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
}

int cmd_tune(int argc, char **argv)
{
	struct tune_opts o;
	struct run r = { .o = &o };
	struct tuner_opts to = { 0 };
	struct tuner_rec rec;
	char err[TS_ERR_LEN], why[1024];
	int64_t observed;
	const char *obs_how;
	uint64_t hist[TUNER_MAX_T + 1], cov = 0, den = 0;
	int ret, bad = 0;

	ret = tune_parse_args(&o, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_BAD;
	if (platform_load(o.platform, &r.pf, err))
		return error("%s", err);
	r.src = ts_source_open(o.c.input, err);
	if (!r.src)
		return error("%s", err);
	r.ncpus = ts_source_info(r.src)->cpus;
	if (r.ncpus <= 0)
		r.ncpus = TS_MAX_CPUS;	/* not declared: size for any CPU */
	if (o.verify) {
		r.replay = xcalloc((size_t)o.nT * o.nQ + 1, sizeof(*r.replay));
		for (int ti = 0; ti < o.nT; ti++)
			for (int qi = 0; qi < o.nQ; qi++) {
				r.replay[r.nreplay][0] = o.T[ti];
				r.replay[r.nreplay++][1] = o.Q[qi];
			}
	}
	if (o.has_direct) {
		r.replay = xrealloc(r.replay, (r.nreplay + 1) * sizeof(*r.replay));
		r.replay[r.nreplay][0] = o.direct[0];
		r.replay[r.nreplay++][1] = o.direct[1];
	}
	to.thresholds = o.T;
	to.nthresholds = o.nT;
	to.queues = o.Q;
	to.nqueues = o.nQ;
	to.warmup_ns = o.warmup_ns;
	to.flush_all_threshold = o.flush_all;
	to.tlb_reach_mms = platform_reach_mms(&r.pf);
	to.ncpus = r.ncpus;
	to.replay = (const int (*)[2])r.replay;
	to.nreplay = r.nreplay;
	if (o.decisions) {
		/* the --direct point is the last replayed one */
		to.decisions = fopen(o.decisions, "w");
		if (!to.decisions) {
			ret = error("tune: %s: %s", o.decisions, strerror(errno));
			goto out;
		}
		fprintf(to.decisions, "# lazy(%d, %d) decisions of %s: TS_NS CPU TARGET DECISION "
			"(0 IPI, 1 queued, 2 flag full, 3 flag overflow, 4 absorbed)\n",
			o.direct[0], o.direct[1], o.c.input);
	}
	r.tu = tuner_new(&to);
	ret = analyze_run(&o.c, r.src, tuner_feed, r.tu, &r.tl);
	if (to.decisions) {
		bool failed = ferror(to.decisions);

		if ((fclose(to.decisions) || failed) && !ret)
			ret = error("tune: %s: could not write the decisions", o.decisions);
	}
	if (ret)
		goto out;
	tuner_finish(r.tu);
	if (ts_source_info(r.src)->cpus <= 0)
		r.ncpus = timeline_cpus(r.tl);
	if (o.verify)
		bad = verify_grid(&r);
	tuner_recommend(r.tu, &r.pf, &rec);
	observed = observed_ipis(r.tl, &obs_how);
	tuner_reuse_hist(r.tu, -1, hist);
	for (int d = 0; d <= TUNER_MAX_T; d++) {
		den += hist[d];
		if (d && d <= o.T[rec.small_ti])
			cov += hist[d];
	}
	reason(why, sizeof(why), &r, &rec, cov, den);
	sensitivity(&r);
	r.nwin = tuner_windows(r.tu, &r.pf, 4, r.win, r.until);
	if (o.svg)
		write_svg(&r, o.svg, &rec);
	if (o.c.json)
		print_json(&r, &rec, observed, obs_how, tuner_flush_all_threshold(r.tu, &r.pf), why, bad);
	else
		print_text(&r, &rec, observed, obs_how, tuner_flush_all_threshold(r.tu, &r.pf), why, bad);
	ret = bad ? EXIT_PROBLEM : EXIT_OK;
out:
	tuner_free(r.tu);
	timeline_free(r.tl);
	ts_source_close(r.src);
	free(r.replay);
	return ret;
}

/* ---- SVG: cost heatmap over (T, Q), evictions and cost over T ---- */

static void write_svg(const struct run *r, const char *path, const struct tuner_rec *rec)
{
	FILE *f = fopen(path, "w");
	int nT = r->o->nT, nQ = r->o->nQ, cw = 56, ch = 22, x0 = 70, y0 = 60;
	int W = x0 + nQ * cw + 40, H0 = y0 + nT * ch + 40, PH = 220, H = H0 + PH + 80;
	double lo = -1, hi = 0, emax = 1, cmax = 0;

	if (!f) {
		warning("--svg: cannot write %s", path);
		return;
	}
	for (int ti = 0; ti < nT; ti++)
		for (int qi = 0; qi < nQ; qi++) {
			double c = cost_of(r, &r->pf, ti, qi);

			if (lo < 0 || c < lo)
				lo = c;
			if (c > hi)
				hi = c;
		}
	fprintf(f, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"font-family=\"sans-serif\" font-size=\"11\">\n", W, H);
	fprintf(f, "<text x=\"10\" y=\"20\" font-size=\"14\">lazy(T, Q) cost on %s, platform %s "
		"(ms; darker is cheaper)</text>\n", r->o->c.input, r->pf.name);
	for (int qi = 0; qi < nQ; qi++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">Q=%d</text>\n",
			x0 + qi * cw + cw / 2, y0 - 6, r->o->Q[qi]);
	for (int ti = 0; ti < nT; ti++) {
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\">T=%d</text>\n", x0 - 6,
			y0 + ti * ch + 15, r->o->T[ti]);
		for (int qi = 0; qi < nQ; qi++) {
			double c = cost_of(r, &r->pf, ti, qi);
			double k = hi > lo ? (c - lo) / (hi - lo) : 0;
			int g = (int)(40 + 200 * sqrt(k));
			bool pick = ti == rec->small_ti && qi == rec->small_qi;

			fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"rgb(%d,%d,255)\" "
				"stroke=\"%s\" stroke-width=\"%d\"/>\n", x0 + qi * cw, y0 + ti * ch, cw,
				ch, g, g, pick ? "red" : "white", pick ? 3 : 1);
			fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"middle\" fill=\"%s\">%.2f</text>\n",
				x0 + qi * cw + cw / 2, y0 + ti * ch + 15, k < 0.5 ? "white" : "black",
				c / 1e6);
		}
	}
	/* curves over T at the recommended Q */
	for (int ti = 0; ti < nT; ti++) {
		struct tuner_counts c;
		double cost = cost_of(r, &r->pf, ti, rec->small_qi);

		tuner_grid_point(r->tu, ti, rec->small_qi, &c);
		if (c.evictions > emax)
			emax = c.evictions;
		if (cost > cmax)
			cmax = cost;
	}
	fprintf(f, "<text x=\"10\" y=\"%d\" font-size=\"14\">over T at Q=%d: evictions (red), "
		"cost (blue)</text>\n", H0 + 10, r->o->Q[rec->small_qi]);
	for (int curve = 0; curve < 2; curve++) {
		fprintf(f, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"",
			curve ? "blue" : "red");
		for (int ti = 0; ti < nT; ti++) {
			struct tuner_counts c;
			double v, x = x0 + (nT > 1 ? (double)ti / (nT - 1) : 0) * (W - x0 - 40);

			tuner_grid_point(r->tu, ti, rec->small_qi, &c);
			v = curve ? cost_of(r, &r->pf, ti, rec->small_qi) / (cmax ? cmax : 1) :
				    c.evictions / emax;
			fprintf(f, "%.1f,%.1f ", x, H0 + 30 + PH - v * PH);
		}
		fprintf(f, "\"/>\n");
	}
	for (int ti = 0; ti < nT; ti++)
		fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n",
			x0 + (nT > 1 ? (double)ti / (nT - 1) : 0) * (W - x0 - 40), H0 + PH + 48,
			r->o->T[ti]);
	fprintf(f, "</svg>\n");
	if (fclose(f))
		warning("--svg: error writing %s", path);
}
