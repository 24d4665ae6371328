// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope tune: replay the trace under the stock, ideal and lazy(T, Q) mechanisms in one
 * pass, price each grid point with a platform profile, and recommend MAX_LOADED_MM,
 * MAX_TLB_FLUSH_TASK and tlb_flush_all_threshold with the reasons, the sensitivity to every
 * unit cost, and the check of the stock model against the kernel's own flush IPIs.
 * This file: the options and the run; what it found is printed by tune-text.c, tune-json.c
 * and drawn by tune-svg.c, all from the same struct tune_run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tune.h"


static const char tune_usage[] =
	"usage: tlbscope tune [options] TRACE|PROFILE...\n"
	"\n"
	"  --threshold LIST   MAX_LOADED_MM values: 1,2,4,6 or 1-16 (default 1-16,24,32, and\n"
	"                     48, 64 where the platform's TLB holds more mms than 32)\n"
	"  --queue LIST       MAX_TLB_FLUSH_TASK values, each >= 1\n"
	"                     (default 1,2,4,8,16,32,64,128,256)\n"
	"  --machine M        auto (default): detect a virtual machine from the trace; vm or\n"
	"                     metal: say where it was recorded (a VM's timings price nothing)\n"
	"  --patch FILE       write the patch of the advice to FILE (git apply takes it)\n"
	"  -q, --quiet        the summary alone (no kernel check, no pointers to details)\n"
	"  -v, --verbose      every detail after the summary: costs, models, grid, quarters,\n"
	"                     sensitivity, the patch\n"
	"  --platform P       a profile name (generic, sifive-u74, thead-c910) or a JSON file\n"
	"                     whose figures override the generic ones\n"
	"  --warmup T         count from T after the first event (state still replayed)\n"
	"  --flush-all-threshold N  pages past which a range flushes the whole ASID (64)\n"
	"  --base T,Q         the MAX_LOADED_MM, MAX_TLB_FLUSH_TASK the traced kernel runs\n"
	"                     (default: a lazy kernel's T read from its evictions, else 6,32)\n"
	"  --direct T,Q       also replay lazy(T, Q) directly and print its counts\n"
	"  --decisions FILE   with --direct: write that replay's decision for each remote CPU\n"
	"                     of each flush, \"TS CPU TARGET DECISION\" (lazy_tlb_defer's codes)\n"
	"  --verify           replay every grid point directly and compare with the sweep\n"
	"                     (exit 1 on any difference)\n"
	"  --svg FILE         write the cost heatmap and the eviction/cost curves over T\n"
	"  --weight INPUT=N   count INPUT's events N times in the sum of several inputs\n"
	"  --save-profile FILE  write what the decision needs (counters of the whole grid,\n"
	"                     histograms, measured costs) as JSON: tune takes it as an input\n"
	"  --json             one JSON object with stable keys\n"
	"  --strict           exit 2 when records failed the input's checks (skipped,\n"
	"                     inconsistent, escaped; each said on stderr anyway)\n"
	"  --color WHEN       auto (default: on a terminal, unless NO_COLOR), always, never\n"
	"  --no-pager         never page (on a terminal the text goes through $PAGER or\n"
	"                     less -FRX)\n"
	"  -h, --help         this text\n";

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

/* @v into list @l of @n (at most MAX_LIST) unless it is there already */
static void list_add(int *l, int *n, int v)
{
	for (int i = 0; i < *n; i++)
		if (l[i] == v)
			return;
	if (*n < MAX_LIST)
		l[(*n)++] = v;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

int tune_parse_args(struct tune_opts *o, int argc, char **argv)
{
	enum {
		OPT_THRESHOLD = OPT_COMMON_END, OPT_QUEUE, OPT_PLATFORM, OPT_WARMUP,
		OPT_FLUSH_ALL, OPT_DIRECT, OPT_DECISIONS, OPT_VERIFY, OPT_SVG, OPT_BASE,
		OPT_WEIGHT, OPT_SAVE, OPT_MACHINE, OPT_PATCH
	};
	static const struct cli_option opts[] = {
		COMMON_OPTS_JSON, { "threshold", OPT_THRESHOLD, true }, { "queue", OPT_QUEUE, true },
		{ "platform", OPT_PLATFORM, true }, { "warmup", OPT_WARMUP, true },
		{ "flush-all-threshold", OPT_FLUSH_ALL, true }, { "direct", OPT_DIRECT, true },
		{ "decisions", OPT_DECISIONS, true }, { "verify", OPT_VERIFY, false },
		{ "svg", OPT_SVG, true }, { "base", OPT_BASE, true }, { "weight", OPT_WEIGHT, true },
		{ "save-profile", OPT_SAVE, true }, { "machine", OPT_MACHINE, true },
		{ "patch", OPT_PATCH, true }, { "verbose", 'v', false },
		{ "quiet", 'q', false }, STRICT_OPT, VIEW_OPTS, { NULL }
	};
	struct cli_parser p;
	const char *v, *weights[MAX_INPUTS];
	int key, nweights = 0;

	memset(o, 0, sizeof(*o));
	memcpy(o->T, tuner_default_T, sizeof(tuner_default_T));
	o->nT = TUNER_DEFAULT_NT;
	memcpy(o->Q, tuner_default_Q, sizeof(tuner_default_Q));
	o->nQ = TUNER_DEFAULT_NQ;
	o->flush_all = FLUSH_ALL_DEFAULT;
	cli_parser_init(&p, "tune", tune_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		uint64_t n;
		int end = -1;

		switch (key) {
		case CLI_HELP:
			return 1;
		case CLI_BAD:
			return -1;
		case CLI_ARG:
			if (o->ninputs == MAX_INPUTS) {
				error("tune: more than %d inputs", MAX_INPUTS);
				return -1;
			}
			if (!o->ninputs)
				o->c.input = v;
			o->weight[o->ninputs] = 1;
			o->inputs[o->ninputs++] = v;
			break;
		case OPT_WEIGHT:
			if (nweights == MAX_INPUTS) {
				error("--weight: more than %d", MAX_INPUTS);
				return -1;
			}
			weights[nweights++] = v;
			break;
		case OPT_SAVE:
			o->save_profile = v;
			break;
		case OPT_THRESHOLD:
			if (parse_list(v, 1, TUNER_MAX_T, o->T, &o->nT)) {
				error("--threshold: '%s' is not a list of 1..%d like 1,2,4 or 1-16", v,
				      TUNER_MAX_T);
				return -1;
			}
			o->has_T = true;
			break;
		case OPT_QUEUE:
			if (parse_list(v, 1, TUNER_MAX_Q, o->Q, &o->nQ)) {
				error("--queue: '%s' is not a list of 1..%d like 1,8,32 or 1-8 (a "
				      "zero-length queue is not a setting of the series)", v,
				      TUNER_MAX_Q);
				return -1;
			}
			break;
		case OPT_PLATFORM:
			o->platform = v;
			break;
		case OPT_WARMUP:
			if (parse_duration_ns(v, &o->warmup_ns)) {
				error("--warmup: '%s' is not a duration (seconds, or 200ms)", v);
				return -1;
			}
			break;
		case OPT_FLUSH_ALL:
			if (parse_u64(v, 10, &n) || !n) {
				error("--flush-all-threshold: '%s' is not a page count", v);
				return -1;
			}
			o->flush_all = n;
			break;
		case OPT_DIRECT:
			if (sscanf(v, "%d,%d%n", &o->direct[0], &o->direct[1], &end) != 2 ||
			    v[end] != '\0' ||
			    o->direct[0] < 1 || o->direct[0] > TUNER_MAX_T || o->direct[1] < 0) {
				error("--direct: '%s' is not T,Q (T in 1..%d, Q >= 0)", v, TUNER_MAX_T);
				return -1;
			}
			o->has_direct = true;
			break;
		case OPT_BASE:
			if (sscanf(v, "%d,%d%n", &o->base[0], &o->base[1], &end) != 2 ||
			    v[end] != '\0' || o->base[0] < 1 || o->base[0] > TUNER_MAX_T ||
			    o->base[1] < 1 || o->base[1] > TUNER_MAX_Q) {
				error("--base: '%s' is not T,Q (T in 1..%d, Q in 1..%d)", v,
				      TUNER_MAX_T, TUNER_MAX_Q);
				return -1;
			}
			o->has_base = true;
			break;
		case OPT_DECISIONS:
			o->decisions = v;
			break;
		case OPT_VERIFY:
			o->verify = true;
			break;
		case OPT_SVG:
			o->svg = v;
			break;
		case OPT_PATCH:
			o->patch = v;
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'q':
			o->quiet = true;
			break;
		case OPT_MACHINE:
			if (!strcmp(v, "auto"))
				o->machine = TUNE_MACHINE_AUTO;
			else if (!strcmp(v, "vm"))
				o->machine = TUNE_MACHINE_VM;
			else if (!strcmp(v, "metal"))
				o->machine = TUNE_MACHINE_METAL;
			else {
				error("--machine: '%s' is not auto, vm or metal", v);
				return -1;
			}
			break;
		default:
			if (common_opt(&o->c, key, v) < 0)
				return -1;
		}
	}
	if (!o->c.input) {
		error("tune: no trace given\n%s", tune_usage);
		return -1;
	}
	for (int i = 0; i < nweights; i++) {
		const char *eq = strrchr(weights[i], '=');
		uint64_t w;
		int k;

		if (!eq || parse_u64(eq + 1, 10, &w) || !w || w > 1000000) {
			error("--weight: '%s' is not INPUT=N (N in 1..1000000)", weights[i]);
			return -1;
		}
		for (k = 0; k < o->ninputs; k++)
			if (strlen(o->inputs[k]) == (size_t)(eq - weights[i]) &&
			    !strncmp(o->inputs[k], weights[i], eq - weights[i]))
				break;
		if (k == o->ninputs) {
			error("--weight: '%.*s' is not one of the inputs", (int)(eq - weights[i]),
			      weights[i]);
			return -1;
		}
		o->weight[k] = w;
	}
	if (o->ninputs > 1 && (o->verify || o->has_direct)) {
		error("tune: --verify and --direct take one trace");
		return -1;
	}
	if (o->decisions && !o->has_direct) {
		error("tune: --decisions needs --direct T,Q (the replay whose decisions it writes)");
		return -1;
	}
	if (!o->has_base) {
		/* the series' defaults, the base when the trace shows no other */
		o->base[0] = LAZY_DEFAULT_T;
		o->base[1] = LAZY_DEFAULT_Q;
	}
	/* the base is always priced: it is what "keep" is measured against */
	list_add(o->T, &o->nT, o->base[0]);
	list_add(o->Q, &o->nQ, o->base[1]);
	qsort(o->T, o->nT, sizeof(int), cmp_int);
	qsort(o->Q, o->nQ, sizeof(int), cmp_int);
	return 0;
}

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

double tune_cost_of(const struct tune_run *r, const struct platform *pf, int ti, int qi)
{
	return tuner_point_cost(r->tu, pf, ti, qi);
}

void tune_point(const struct tune_run *r, const struct tuner_rec *rec, int *ti, int *qi)
{
	tuner_shown_point(&r->adv, rec, ti, qi);
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
static void tune_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
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

	tuner_find_base(r->tu, &r->lk, r->lazy_kernel, r->o->has_base ? r->o->base : NULL, &b);
	r->base_T_how = b.T_how;
	r->base_Q_how = b.Q_how;
	r->base_T_min = b.T_min;
	r->base_Q_min = b.Q_min;
	r->base_T_seen = b.T;
	r->base_Q_seen = b.Q;
	*ti = b.ti;
	*qi = b.qi;
}

static int verify_grid(struct tune_run *r)
{
	int bad = 0;

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
			fprintf(stderr, "tlbscope: verify: %sT=%d Q=%d %s: sweep %llu, "	\
				"direct %llu\n", idle ? "lazy-idle " : "", r->replay[i][0],	\
				r->replay[i][1], #f, (unsigned long long)s.f,		\
				(unsigned long long)d->f);				\
			bad++;							\
		}
		CMP(ipis) CMP(deferred) CMP(deferred_flushes) CMP(overflows) CMP(evictions)
		CMP(table_resets) CMP(local_flushes) CMP(ipi_requests) CMP(replayed)
		CMP(replayed_pages) CMP(drain_max) CMP(drain_max_pages)
#undef CMP
	}
	if (r->o->verify && tuner_clear_at_full_check(r->tu) !=
	    tuner_model(r->tu, TUNER_CLEAR_AT_FULL)->ipis) {
		fprintf(stderr, "tlbscope: verify: clear_at_full ipis: masks %llu, sequence "
			"numbers %llu\n",
			(unsigned long long)tuner_model(r->tu, TUNER_CLEAR_AT_FULL)->ipis,
			(unsigned long long)tuner_clear_at_full_check(r->tu));
		bad++;
	}
	return bad;
}

/* Is @path a profile of tune --save-profile?  A new reference to its root, else NULL. */
static json_t *profile_open(const char *path)
{
	json_t *root;

	if (!strcmp(path, "-"))
		return NULL;
	root = json_load_file(path, 0, NULL);
	if (root && !json_is_object(json_object_get(root, "tlbscope_profile"))) {
		json_decref(root);
		return NULL;
	}
	return root;
}

/* The per-trace state tune_feed() keeps, for the next input. */
static void run_reset(struct tune_run *r)
{
	r->started = r->warm = false;
	r->t0 = 0;
	memset(r->ipis_at_warm, 0, sizeof(r->ipis_at_warm));
	tuner_lazy_kernel_reset(&r->lk);
}

/*
 * Replay trace @path into r->tu, r->meas, r->tl, r->src (to be freed by the caller),
 * with @to's options; r->observed, r->lazy_kernel and r->lk.evictions from it.
 */
/* tune_json_of(): the caller (diff) has read the input and said what its checks found */
static bool checks_said;

static int replay_trace(struct tune_run *r, const char *path, struct tuner_opts *to)
{
	struct tune_opts *o = r->o;
	struct common_opts c = o->c;
	char err[TS_ERR_LEN];
	int ret;

	run_reset(r);
	c.input = path;
	c.checks_said = checks_said;
	r->src = ts_source_open(path, err);
	if (!r->src)
		return error("%s", err);
	r->ncpus = ts_source_info(r->src)->cpus;
	if (r->ncpus <= 0)
		r->ncpus = TS_MAX_CPUS;	/* not declared: size for any CPU */
	to->ncpus = r->ncpus;
	if (o->decisions) {
		/* the --direct point is the last replayed one */
		to->decisions = fopen(o->decisions, "w");
		if (!to->decisions)
			return error("tune: %s: %s", o->decisions, strerror(errno));
		fprintf(to->decisions, "# lazy(%d, %d) decisions of %s: TS_NS CPU TARGET DECISION "
			"(0 IPI, 1 queued, 2 flag full, 3 flag overflow, 4 absorbed)\n",
			o->direct[0], o->direct[1], path);
	}
	r->tu = tuner_new(to);
	r->meas = tuner_measure_new();
	ret = analyze_run(&c, r->src, tune_feed, r, &r->tl);
	if (to->decisions) {
		bool failed = ferror(to->decisions);

		if ((fclose(to->decisions) || failed) && !ret)
			ret = error("tune: %s: could not write the decisions", o->decisions);
		to->decisions = NULL;
	}
	if (ret)
		return ret;
	tuner_finish(r->tu);
	if (ts_source_info(r->src)->cpus <= 0)
		r->ncpus = timeline_cpus(r->tl);
	r->arch = timeline_arch_name(timeline_arch(r->tl, &r->arch_how));
	free(r->uname);
	r->uname = ts_source_info(r->src)->uname ? xstrdup(ts_source_info(r->src)->uname) : NULL;
	r->lazy_kernel = timeline_lazy_kernel(r->tl);
	r->observed = observed_ipis(r, &r->obs_how);
	return EXIT_OK;
}

/* Everything of the run that a later decision needs, as a profile (new reference). */
static json_t *profile_json(const struct tune_run *r)
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
	json_object_set_new(j, "observed_source", r->observed >= 0 ? json_text(r->obs_how) :
			    json_null());
	json_object_set_new(j, "kernel_evictions", json_integer((json_int_t)r->lk.evictions));
	json_object_set_new(j, "kernel_queue", r->lk.queue >= 0 ?
			    json_integer(r->lk.queue) : json_null());
	json_object_set_new(j, "kernel_queue_min",
			    json_integer((json_int_t)r->lk.queue_min));
	json_object_set_new(j, "lazy_kernel", json_boolean(r->lazy_kernel));
	json_object_set_new(j, "cpus", json_integer(r->ncpus));
	/* what the counts miss, so that a decision on the profile can say so */
	json_object_set_new(j, "lost_events", json_integer((json_int_t)(r->aggregate ? r->lost :
			    timeline_lost(r->tl, NULL))));
	json_object_set_new(j, "malformed_skipped", json_integer((json_int_t)(r->aggregate ?
			    r->skipped : ts_source_skipped(r->src, NULL))));
	return j;
}

/*
 * Every input into one aggregate r->tu: traces replayed one after the other, profiles
 * read; each counted its weight's times.  The kernel's own IPIs and evictions add up too.
 */
static int aggregate_inputs(struct tune_run *r, struct tuner_opts *to)
{
	struct tune_opts *o = r->o;
	struct tuner *sum = NULL;
	struct tuner_measure *meas = tuner_measure_new();
	int64_t observed = 0;
	const char *obs_how = NULL;
	uint64_t evictions = 0, lost = 0, skipped = 0, queue_min = 0;
	int64_t queue = -1;
	bool lazy = true, shown = true;
	int ncpus = 1, ret = EXIT_OK;
	char err[TS_ERR_LEN];
	static char obs_buf[64];

	for (int i = 0; i < o->ninputs && !ret; i++) {
		json_t *prof = profile_open(o->inputs[i]);
		struct tuner *tu;
		uint64_t w = o->weight[i];

		if (prof) {
			json_t *pj = json_object_get(prof, "tlbscope_profile");
			json_t *ob = json_object_get(prof, "observed_flush_ipis");

			tu = tuner_profile_load(pj, to, err);
			r->meas = tuner_measure_new();
			if (!tu || tuner_measure_load(r->meas,
						      json_object_get(prof, "measured_costs"))) {
				ret = error("%s: %s", o->inputs[i], tu ? "a tune profile without its "
					    "measured costs" : err);
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
			r->ncpus = (int)json_integer_value(json_object_get(prof, "cpus"));
			lost += (uint64_t)json_integer_value(json_object_get(prof, "lost_events")) * w;
			skipped += (uint64_t)json_integer_value(
				   json_object_get(prof, "malformed_skipped")) * w;
			json_decref(prof);
		} else {
			ret = replay_trace(r, o->inputs[i], to);
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
		if (tuner_merge(sum, r->tu, w, err))
			ret = error("%s: %s", o->inputs[i], err);
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
	r->warm = true;
	if (sum)
		tuner_set_ncpus(sum, ncpus);
	return ret;
}

/* tune with @argv; @out: its JSON object there (new reference) instead of printed */
static int tune_main(int argc, char **argv, json_t **out)
{
	struct tune_opts o;
	struct tune_run r = { .o = &o };
	struct tuner_opts to = { 0 };
	struct tuner_rec rec;
	char err[TS_ERR_LEN], why[2048];
	uint64_t hist[TUNER_MAX_T + 1], cov = 0, den = 0;
	int ret, bad = 0, base_ti, base_qi;
	json_t *first;

	ret = tune_parse_args(&o, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_BAD;
	if (platform_load(o.platform, &r.pf, err))
		return error("%s", err);
	if (!o.has_T && platform_reach_mms(&r.pf) > o.T[o.nT - 1]) {
		/* a TLB that holds more mms than the default grid reaches: the grid goes there */
		for (int T = 48; T <= TUNER_MAX_T && T / 2 < platform_reach_mms(&r.pf); T += 16)
			list_add(o.T, &o.nT, T);
		qsort(o.T, o.nT, sizeof(int), cmp_int);
	}
	if (o.verify) {
		/* every grid point, then every one again under the lazy-idle what-if */
		r.replay = xcalloc((size_t)o.nT * o.nQ * 2 + 1, sizeof(*r.replay));
		for (int k = 0; k < 2; k++)
			for (int ti = 0; ti < o.nT; ti++)
				for (int qi = 0; qi < o.nQ; qi++) {
					r.replay[r.nreplay][0] = o.T[ti];
					r.replay[r.nreplay++][1] = o.Q[qi];
				}
		r.idle_first = o.nT * o.nQ;
		r.idle_count = o.nT * o.nQ;
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
	to.replay = (const int (*)[2])r.replay;
	to.nreplay = r.nreplay;
	to.idle_first = r.idle_first;
	to.idle_count = r.idle_count;
	to.verify_models = o.verify;
	first = o.ninputs == 1 ? profile_open(o.inputs[0]) : NULL;
	r.aggregate = o.ninputs > 1 || first || o.weight[0] > 1;
	json_decref(first);
	if (r.aggregate && (o.verify || o.has_direct)) {
		ret = error("tune: --verify and --direct replay a trace, not a profile");
		goto out;
	}
	ret = r.aggregate ? aggregate_inputs(&r, &to) : replay_trace(&r, o.c.input, &to);
	if (ret)
		goto out;
	/*
	 * What the trace measured replaces the profile's figure, unless it came from a
	 * virtual machine (its timings are the host's scheduling); the user's own file wins
	 */
	tuner_host_detect(r.meas, r.uname, &r.host);
	if (o.machine != TUNE_MACHINE_AUTO) {
		r.host.vm = o.machine == TUNE_MACHINE_VM;
		r.host.user = true;
		snprintf(r.host.how, sizeof(r.host.how), "--machine %s",
			 r.host.vm ? "vm" : "metal");
	}
	tuner_measure_apply(r.meas, &r.pf, !r.host.vm);
	if (!r.arch)
		r.arch = "unknown", r.arch_how = "a sum of inputs";
	if (o.verify)
		bad = verify_grid(&r);
	tuner_recommend(r.tu, &r.pf, &rec);
	find_base(&r, &base_ti, &base_qi);
	/* advice for RISC-V, and for a trace that does not say it is of another arch */
	r.riscv = strcmp(r.arch, "x86_64") && strcmp(r.arch, "other");
	tuner_advise(r.tu, &r.pf, &rec, base_ti, base_qi, r.lazy_kernel, r.riscv, &r.adv);
	tuner_reuse_hist(r.tu, -1, hist);
	for (int d = 0; d <= TUNER_MAX_T; d++) {
		den += hist[d];
		if (d && d <= o.T[r.adv.ti >= 0 ? r.adv.ti : rec.small_ti])
			cov += hist[d];
	}
	r.span_ns = tuner_span(r.tu);
	sensitivity(&r);
	r.nwin = tuner_windows(r.tu, &r.pf, 4, r.win, r.until);
	{
		int pti, pqi;

		/* a quarter agrees when the point is within the band of its own cheapest */
		tune_point(&r, &rec, &pti, &pqi);
		r.same_quarters = r.nwin ? tuner_windows_agree(r.tu, &r.pf, r.nwin, pti, pqi) : 0;
	}
	tune_reason(why, sizeof(why), &r, &rec, cov, den);
	if (o.save_profile) {
		json_t *pj = profile_json(&r);

		errno = 0;
		if (json_dump_file(pj, o.save_profile, JSON_COMPACT)) {
			json_decref(pj);
			ret = error("tune: --save-profile: cannot write %s: %s", o.save_profile,
				    strerror(errno ? errno : EIO));
			goto out;
		}
		json_decref(pj);
	}
	if (o.svg && tune_write_svg(&r, o.svg, &rec)) {
		ret = EXIT_BAD;
		goto out;
	}
	if (o.patch && tune_save_patch(&r, o.patch, tuner_flush_all_threshold(r.tu, &r.pf))) {
		ret = EXIT_BAD;
		goto out;
	}
	if (out)
		*out = tune_json(&r, &rec, r.observed, r.obs_how,
				 tuner_flush_all_threshold(r.tu, &r.pf), why, bad);
	else if (o.c.json) {
		view_begin(false);
		tune_print_json(&r, &rec, r.observed, r.obs_how,
				tuner_flush_all_threshold(r.tu, &r.pf), why, bad);
	} else {
		view_begin(true);
		tune_print_text(&r, &rec, r.observed, r.obs_how,
				tuner_flush_all_threshold(r.tu, &r.pf), why, bad);
	}
	/* no advice is an answer a script must not take for one */
	ret = bad || r.adv.verdict == TUNER_INSUFFICIENT ? EXIT_PROBLEM : EXIT_OK;
out:
	run_reset(&r);
	tuner_measure_free(r.meas);
	tuner_free(r.tu);
	timeline_free(r.tl);
	ts_source_close(r.src);
	free(r.replay);
	free(r.uname);
	return ret;
}

int cmd_tune(int argc, char **argv)
{
	return tune_main(argc, argv, NULL);
}

json_t *tune_json_of(const char *path, int T, int Q)
{
	char t[16], q[16];
	char *argv[] = { "tune", "--json", "--threshold", t, "--queue", q, "--", (char *)path,
			 NULL };
	json_t *j = NULL;
	int ret;

	snprintf(t, sizeof(t), "%d", T);
	snprintf(q, sizeof(q), "%d", Q);
	/* exit 1 is a verdict (insufficient-data), not a failure */
	checks_said = true;
	ret = tune_main(8, argv, &j);
	checks_said = false;
	if (ret > EXIT_PROBLEM) {
		json_decref(j);
		return NULL;
	}
	return j;
}
