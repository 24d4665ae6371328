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
	"  -j, --jobs N       threads: the replay's own while it is faster, then\n"
	"                     readers of a trace.dat (default: the CPUs available; 1:\n"
	"                     none started)\n"
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
		{ "quiet", 'q', false }, STRICT_OPT, JOBS_OPT, VIEW_OPTS, { NULL }
	};
	struct cli_parser p;
	const char *v, *weights[MAX_INPUTS];
	int key, nweights = 0, machine;

	memset(o, 0, sizeof(*o));
	memcpy(o->p.T, tuner_default_T, sizeof(tuner_default_T));
	o->p.nT = TUNER_DEFAULT_NT;
	memcpy(o->p.Q, tuner_default_Q, sizeof(tuner_default_Q));
	o->p.nQ = TUNER_DEFAULT_NQ;
	o->p.flush_all = FLUSH_ALL_DEFAULT;
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
			if (o->p.ninputs == MAX_INPUTS) {
				error("tune: more than %d inputs", MAX_INPUTS);
				return -1;
			}
			if (!o->p.ninputs)
				o->c.input = v;
			o->p.weight[o->p.ninputs] = 1;
			o->p.inputs[o->p.ninputs++] = v;
			break;
		case OPT_WEIGHT:
			if (nweights == MAX_INPUTS) {
				error("tune: --weight: more than %d", MAX_INPUTS);
				return -1;
			}
			weights[nweights++] = v;
			break;
		case OPT_SAVE:
			o->save_profile = v;
			break;
		case OPT_THRESHOLD:
			if (parse_list(v, 1, TUNER_MAX_T, o->p.T, &o->p.nT)) {
				error("tune: --threshold: '%s' is not a list of 1..%d like 1,2,4 or 1-16",
				      v, TUNER_MAX_T);
				return -1;
			}
			o->p.has_T = true;
			break;
		case OPT_QUEUE:
			if (parse_list(v, 1, TUNER_MAX_Q, o->p.Q, &o->p.nQ)) {
				error("tune: --queue: '%s' is not a list of 1..%d like 1,8,32 or 1-8 (a "
				      "zero-length queue is not a setting of the series)", v,
				      TUNER_MAX_Q);
				return -1;
			}
			break;
		case OPT_PLATFORM:
			o->platform = v;
			break;
		case OPT_WARMUP:
			if (parse_duration_ns(v, &o->p.warmup_ns)) {
				error("tune: --warmup: '%s' is not a duration (seconds, or 200ms)",
				      v);
				return -1;
			}
			break;
		case OPT_FLUSH_ALL:
			if (parse_u64(v, 10, &n) || !n) {
				error("tune: --flush-all-threshold: '%s' is not a page count", v);
				return -1;
			}
			o->p.flush_all = n;
			break;
		case OPT_DIRECT:
			if (sscanf(v, "%d,%d%n", &o->p.direct[0], &o->p.direct[1], &end) != 2 ||
			    v[end] != '\0' ||
			    o->p.direct[0] < 1 || o->p.direct[0] > TUNER_MAX_T || o->p.direct[1] < 0) {
				error("tune: --direct: '%s' is not T,Q (T in 1..%d, Q >= 0)", v,
				      TUNER_MAX_T);
				return -1;
			}
			o->p.has_direct = true;
			break;
		case OPT_BASE:
			if (sscanf(v, "%d,%d%n", &o->p.base[0], &o->p.base[1], &end) != 2 ||
			    v[end] != '\0' || o->p.base[0] < 1 || o->p.base[0] > TUNER_MAX_T ||
			    o->p.base[1] < 1 || o->p.base[1] > TUNER_MAX_Q) {
				error("tune: --base: '%s' is not T,Q (T in 1..%d, Q in 1..%d)", v,
				      TUNER_MAX_T, TUNER_MAX_Q);
				return -1;
			}
			o->p.has_base = true;
			break;
		case OPT_DECISIONS:
			o->decisions = v;
			break;
		case OPT_VERIFY:
			o->p.verify = true;
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
			machine = tuner_machine_parse(v);
			if (machine < 0) {
				error("tune: --machine: '%s' is not auto, vm or metal", v);
				return -1;
			}
			o->p.machine = machine;
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
			error("tune: --weight: '%s' is not INPUT=N (N in 1..1000000)", weights[i]);
			return -1;
		}
		for (k = 0; k < o->p.ninputs; k++)
			if (strlen(o->p.inputs[k]) == (size_t)(eq - weights[i]) &&
			    !strncmp(o->p.inputs[k], weights[i], eq - weights[i]))
				break;
		if (k == o->p.ninputs) {
			error("tune: --weight: '%.*s' is not one of the inputs",
			      (int)(eq - weights[i]), weights[i]);
			return -1;
		}
		o->p.weight[k] = w;
	}
	if (o->p.ninputs > 1 && (o->p.verify || o->p.has_direct)) {
		error("tune: --verify and --direct take one trace");
		return -1;
	}
	if (o->decisions && !o->p.has_direct) {
		error("tune: --decisions needs --direct T,Q (the replay whose decisions it writes)");
		return -1;
	}
	if (!o->p.has_base) {
		/* the series' defaults, the base when the trace shows no other */
		o->p.base[0] = LAZY_DEFAULT_T;
		o->p.base[1] = LAZY_DEFAULT_Q;
	}
	/* the base is always priced: it is what "keep" is measured against */
	list_add(o->p.T, &o->p.nT, o->p.base[0]);
	list_add(o->p.Q, &o->p.nQ, o->p.base[1]);
	qsort(o->p.T, o->p.nT, sizeof(int), cmp_int);
	qsort(o->p.Q, o->p.nQ, sizeof(int), cmp_int);
	return 0;
}

/* tune_json_of(): the caller (diff) has read the input and said what its checks found */
static bool checks_said;

/*
 * Replay trace @path into r->tu, r->meas, r->tl, r->src (to be freed by the caller)
 * with @to's options (tune_replay_fn; @ctx the command line).
 */
static int replay_trace(void *ctx, struct tune_run *r, const char *path, struct tuner_opts *to)
{
	const struct tune_opts *o = ctx;
	struct common_opts c = o->c;
	char err[TS_ERR_LEN];
	int ret;

	tune_run_reset(r);
	c.input = path;
	c.display = path == o->c.input ? o->c.display : NULL;
	c.checks_said = checks_said;
	/* the replay may run on a thread of its own: one thread fewer reads */
	c.model_thread = true;
	ts_jobs_reserve(1);
	r->src = ts_source_open_as(path, c.display, err);
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
			o->p.direct[0], o->p.direct[1], path);
	}
	r->tu = tuner_new(to);
	r->meas = tuner_measure_new();
	ret = analyze_run(&c, r->src, tune_run_feed, r, &r->tl);
	if (to->decisions) {
		bool failed = ferror(to->decisions);
		/* fclose's own errno (its flush of the rest); an earlier write's is long gone */
		int werr = fclose(to->decisions) ? errno : 0;

		if ((werr || failed) && !ret)
			ret = error("tune: cannot write the decisions to %s: %s", o->decisions,
				    strerror(werr ? werr : EIO));
		to->decisions = NULL;
	}
	if (ret)
		return ret;
	tune_run_trace_done(r);
	return EXIT_OK;
}

/*
 * tune with @argv; @out: its JSON object there (new reference) instead of printed;
 * @display: the input's name in messages (NULL: its path)
 */
static int tune_main(int argc, char **argv, const char *display, json_t **out)
{
	struct tune_opts o;
	struct tune_run r = { .o = &o.p };
	struct tuner_opts to = { 0 };
	char err[TS_ERR_LEN], why[2048];
	int ret, bad;
	json_t *first;

	ret = tune_parse_args(&o, argc, argv);
	if (ret)
		return ret > 0 ? EXIT_OK : EXIT_BAD;
	o.c.display = display;
	if (platform_load(o.platform, &r.pf, err))
		return error("%s", err);
	if (!o.p.has_T && platform_reach_mms(&r.pf) > o.p.T[o.p.nT - 1]) {
		/* a TLB that holds more mms than the default grid reaches: the grid goes there */
		for (int T = 48; T <= TUNER_MAX_T && T / 2 < platform_reach_mms(&r.pf); T += 16)
			list_add(o.p.T, &o.p.nT, T);
		qsort(o.p.T, o.p.nT, sizeof(int), cmp_int);
	}
	if (o.p.verify) {
		/* every grid point, then every one again under the lazy-idle what-if */
		r.replay = xcalloc((size_t)o.p.nT * o.p.nQ * 2 + 1, sizeof(*r.replay));
		for (int k = 0; k < 2; k++)
			for (int ti = 0; ti < o.p.nT; ti++)
				for (int qi = 0; qi < o.p.nQ; qi++) {
					r.replay[r.nreplay][0] = o.p.T[ti];
					r.replay[r.nreplay++][1] = o.p.Q[qi];
				}
		r.idle_first = o.p.nT * o.p.nQ;
		r.idle_count = o.p.nT * o.p.nQ;
	}
	if (o.p.has_direct) {
		r.replay = xrealloc(r.replay, (r.nreplay + 1) * sizeof(*r.replay));
		r.replay[r.nreplay][0] = o.p.direct[0];
		r.replay[r.nreplay++][1] = o.p.direct[1];
	}
	to.thresholds = o.p.T;
	to.nthresholds = o.p.nT;
	to.queues = o.p.Q;
	to.nqueues = o.p.nQ;
	to.warmup_ns = o.p.warmup_ns;
	to.flush_all_threshold = o.p.flush_all;
	to.tlb_reach_mms = platform_reach_mms(&r.pf);
	to.replay = (const int (*)[2])r.replay;
	to.nreplay = r.nreplay;
	to.idle_first = r.idle_first;
	to.idle_count = r.idle_count;
	to.verify_models = o.p.verify;
	first = o.p.ninputs == 1 ? tune_profile_open(o.p.inputs[0]) : NULL;
	r.aggregate = o.p.ninputs > 1 || first || o.p.weight[0] > 1;
	json_decref(first);
	if (r.aggregate && (o.p.verify || o.p.has_direct)) {
		ret = error("tune: --verify and --direct replay a trace, not a profile");
		goto out;
	}
	err[0] = '\0';
	ret = r.aggregate ? tune_run_aggregate(&r, &to, replay_trace, &o, err, sizeof(err)) :
			    replay_trace(&o, &r, o.c.input, &to);
	if (ret) {
		if (err[0])
			error("%s", err);
		goto out;
	}
	bad = tune_run_finish(&r);
	if (r.verify_diffs)
		for (char *l = r.verify_diffs, *nl; (nl = strchr(l, '\n')); l = nl + 1)
			fprintf(stderr, "tlbscope: verify: %.*s\n", (int)(nl - l), l);
	tune_reason(why, sizeof(why), &r);
	if (o.save_profile) {
		json_t *pj = tune_profile_json(&r);

		errno = 0;
		if (json_dump_file(pj, o.save_profile, JSON_COMPACT)) {
			json_decref(pj);
			ret = error("tune: --save-profile: cannot write %s: %s", o.save_profile,
				    strerror(errno ? errno : EIO));
			goto out;
		}
		json_decref(pj);
	}
	if (o.svg && tune_write_svg(&r, o.svg)) {
		ret = EXIT_BAD;
		goto out;
	}
	if (o.patch && tune_save_patch(&r, o.patch)) {
		ret = EXIT_BAD;
		goto out;
	}
	if (out)
		*out = tune_json(&r, why);
	else if (o.c.json) {
		view_begin(false);
		tune_print_json(&r, why);
	} else {
		view_begin(true);
		tune_print_text(&r, why, o.verbose, o.quiet);
	}
	/* no advice is an answer a script must not take for one */
	ret = bad || r.adv.verdict == TUNER_INSUFFICIENT ? EXIT_PROBLEM : EXIT_OK;
out:
	tune_run_free(&r);
	return ret;
}

int cmd_tune(int argc, char **argv)
{
	return tune_main(argc, argv, NULL, NULL);
}

json_t *tune_json_of(const char *path, const char *display, int T, int Q)
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
	ret = tune_main(8, argv, display, &j);
	checks_said = false;
	if (ret > EXIT_PROBLEM) {
		json_decref(j);
		return NULL;
	}
	return j;
}
