// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope diff BEFORE AFTER: the same measures of two runs side by side with their change,
 * for a stock vs a patched kernel on one workload, or as a CI gate (--fail-on).  Each
 * input is a trace of any format, analyzed in this process by report's and tune's own code
 * (the same JSON objects, so that diff and report can never count differently), or a report saved
 * with `report --json`.  Keys are report's: totals (flush_ipis, ...), rates over the span,
 * and per CPU and per process (by command name: pids differ between runs).
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "../tuner/tuner.h"
#include "cli.h"

static const char diff_usage[] =
	"usage: tlbscope diff [--json] [--fail-on KEY:PCT ...] [--top N] BEFORE AFTER\n"
	"\n"
	"  BEFORE, AFTER      traces (any format; one may be '-') or saved 'report --json'\n"
	"                     (rows counted from unlike evidence are marked '!')\n"
	"  --json             one JSON object: rows of key, before, after, change_percent\n"
	"  --fail-on KEY:PCT  exit 1 when KEY grew by more than PCT percent (repeatable),\n"
	"                     e.g. flush_ipis:10\n"
	"  --top N            processes listed, those with most flush IPIs (default 10, 0 all)\n"
	"  --threshold T      MAX_LOADED_MM of the lazy model predicted (default 6)\n"
	"  --queue Q          MAX_TLB_FLUSH_TASK of the lazy model (default 32)\n"
	"  -j, --jobs N       threads reading a trace.dat (default: the CPUs\n"
	"                     available; 1: no thread started)\n"
	"  --strict           exit 2 when records failed the input's checks (skipped,\n"
	"                     inconsistent, escaped; each said on stderr anyway)\n"
	"  --color WHEN       auto (default: on a terminal, unless NO_COLOR), always, never\n"
	"  --no-pager         never page (on a terminal the text goes through $PAGER or\n"
	"                     less -FRX)\n"
	"  -h, --help         this text\n";

#define MAX_GATES	32

struct gate {
	char key[128];
	double pct;
};

struct diff_opts {
	const char *in[2];
	bool json;
	int top;
	int T, Q;			/* the lazy model's point */
	struct gate gates[MAX_GATES];
	int ngates;
};

struct row {
	char key[128];
	bool known[2];
	double v[2];
	unsigned unlike;	/* UNLIKE_*: the two sides count it from unlike evidence */
};

/* How two inputs differ in what they can show (warn_unlike()) */
enum {
	UNLIKE_ARCH = 1,	/* another architecture: every flush count */
	UNLIKE_IPIS = 2,	/* another IPI mechanism or evidence: the IPI counts */
	UNLIKE_PROBES = 4,	/* kprobes on one side: requests, identity, kernel targets */
};
static const char *const unlike_names[] = { "arch", "ipi_evidence", "kprobes" };

struct rows {
	struct row *r;
	size_t n, alloc;
};

/* ---- inputs ---- */

/*
 * The analyses of a trace, run here: report's, and the models' predictions at lazy(T, Q);
 * @name: the input as given (@path may be its spooled copy).
 */
static json_t *report_of(const char *path, const char *name)
{
	json_t *j = report_json_of(path, name);

	if (!j)
		error("diff: %s: not analyzed (tlbscope report)", name);
	return j;
}

static json_t *tune_of(const char *path, const char *name, int T, int Q)
{
	json_t *j = tune_json_of(path, name, T, Q);

	if (!j)
		error("diff: %s: not analyzed (tlbscope tune)", name);
	return j;
}

/* @j's string at @path ("input.arch"), or "unknown" (a saved report of an older tlbscope) */
static const char *jstr_at(json_t *j, const char *a, const char *b)
{
	const char *s = json_string_value(json_object_get(json_object_get(j, a), b));

	return s ? s : "unknown";
}

static json_int_t ipis_of(json_t *j)
{
	return json_integer_value(json_object_get(json_object_get(j, "totals"), "flush_ipis"));
}

/* Have the flush-path kprobes of @j's trace recorded anything? */
static bool has_kprobes(json_t *j)
{
	json_t *k = json_object_get(json_object_get(j, "evidence"), "kprobes"), *v;
	const char *key;

	json_object_foreach(k, key, v)
		if (json_integer_value(v) > 0)
			return true;
	return false;
}

/*
 * Two inputs that differ in what they can show: another architecture, another IPI
 * mechanism or evidence (AIA IPIs against SBI remote fences), kprobes on one side only.
 * Their differences reflect that as much as the workload: say it before the numbers.
 */
static unsigned warn_unlike(json_t *rep[2], const char *const in[2])
{
	unsigned unlike = 0;

	const char *a0 = jstr_at(rep[0], "input", "arch"), *a1 = jstr_at(rep[1], "input", "arch");
	const char *s0 = jstr_at(rep[0], "evidence", "flush_ipi_source");
	const char *s1 = jstr_at(rep[1], "evidence", "flush_ipi_source");

	if (strcmp(a0, a1))
		unlike |= UNLIKE_ARCH, warning("diff: %s is %s and %s is %s: the flush IPIs of different architectures "
			"(x86 trims mm_cpumask, RISC-V's stock mask never shrinks)", in[0], a0,
			in[1], a1);
	/* a side without flush IPIs names only the evidence it would have used */
	if (strcmp(s0, s1) && ipis_of(rep[0]) > 0 && ipis_of(rep[1]) > 0)
		unlike |= UNLIKE_IPIS, warning("diff: flush IPIs counted from %s in %s but from %s in %s: another IPI "
			"mechanism or other evidence, so their change is not only the workload's",
			s0, in[0], s1, in[1]);
	if (has_kprobes(rep[0]) != has_kprobes(rep[1]))
		unlike |= UNLIKE_PROBES, warning("diff: only %s has flush-path kprobes: requests, mm identity and the "
			"kernel's targets are exact on one side and derived on the other",
			has_kprobes(rep[0]) ? in[0] : in[1]);
	return unlike;
}

/*
 * Mark the rows whose two sides rest on the unlike evidence of @unlike: IPI counts on
 * another mechanism or architecture, what kprobes make exact (requests, address spaces,
 * the kernel's targets, per-process rows) when one side has none.
 */
static void mark_unlike(struct rows *rs, unsigned unlike)
{
	for (size_t i = 0; i < rs->n; i++) {
		struct row *r = &rs->r[i];
		bool ipis = strstr(r->key, "ipis") != NULL;
		bool flush = ipis || strstr(r->key, "flush") || strstr(r->key, "sfence") ||
			     !strncmp(r->key, "model.", 6);
		bool probed = !strcmp(r->key, "mms") || strstr(r->key, "requests") ||
			      strstr(r->key, "kernel_flush_targets") ||
			      !strncmp(r->key, "process.", 8) || !strncmp(r->key, "sfence.", 7);

		r->unlike |= (unlike & UNLIKE_ARCH) && flush ? UNLIKE_ARCH : 0;
		r->unlike |= (unlike & UNLIKE_IPIS) && ipis ? UNLIKE_IPIS : 0;
		r->unlike |= (unlike & UNLIKE_PROBES) && probed ? UNLIKE_PROBES : 0;
	}
}

/*
 * A saved report (a JSON object with "totals"), else the analysis of the trace, with the
 * models' predictions in *@models (NULL for a saved report: they are not in it).
 */
static json_t *load_input(const char *path, const char *name, const struct diff_opts *o,
			  json_t **models)
{
	json_error_t jerr;
	json_t *j;
	FILE *f;
	int c;

	if (strcmp(path, "-") && (f = fopen(path, "re"))) {
		while ((c = fgetc(f)) == ' ' || c == '\n' || c == '\t' || c == '\r')
			;
		fclose(f);
		if (c == '{' && (j = json_load_file(path, 0, &jerr))) {
			if (json_is_object(json_object_get(j, "totals")))
				return j;
			json_decref(j);	/* JSON, not a report: JSON lines of events, say */
		}
	}
	j = report_of(path, name);
	if (j && !(*models = tune_of(path, name, o->T, o->Q))) {
		json_decref(j);
		return NULL;
	}
	return j;
}


/* ---- rows ---- */

static struct row *row_get(struct rows *rs, const char *key)
{
	struct row *r;

	for (size_t i = 0; i < rs->n; i++)
		if (!strcmp(rs->r[i].key, key))
			return &rs->r[i];
	ALLOC_GROW(rs->r, rs->n + 1, rs->alloc);
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	snprintf(r->key, sizeof(r->key), "%s", key);
	return r;
}

/*
 * @v of input @side under @key; JSON null (unknown) leaves it unknown, and a text (a
 * reason, as totals.requests_unknown) is no row
 */
static void row_set(struct rows *rs, const char *key, int side, json_t *v, bool add)
{
	struct row *r;

	if (json_is_string(v))
		return;
	r = row_get(rs, key);
	if (!json_is_number(v))
		return;
	r->v[side] = (add && r->known[side] ? r->v[side] : 0) + json_number_value(v);
	r->known[side] = true;
}

/*
 * sfence.total, sfence.<cause> and whatif.svvptc.sfence: only the numbers a report has
 * (a trace without site probes has none, and its diff gets no rows of unknowns for them)
 */
static void sfence_rows(struct rows *rs, json_t *rep, int side)
{
	json_t *sf = json_object_get(rep, "sfence"), *v;
	json_t *wi = json_object_get(json_object_get(rep, "whatif"), "svvptc");
	const char *key;
	char k[128];

	if (json_is_number(json_object_get(sf, "total")))
		row_set(rs, "sfence.total", side, json_object_get(sf, "total"), false);
	json_object_foreach(json_object_get(sf, "by_cause"), key, v) {
		if (!json_is_number(v))
			continue;
		snprintf(k, sizeof(k), "sfence.%s", key);
		row_set(rs, k, side, v, false);
	}
	if (json_is_number(json_object_get(wi, "sfence")))
		row_set(rs, "whatif.svvptc.sfence", side, json_object_get(wi, "sfence"), false);
}

static void rows_of(struct rows *rs, json_t *rep, int side)
{
	json_t *totals = json_object_get(rep, "totals"), *span = json_object_get(rep, "span");
	json_t *v, *cpus = json_object_get(rep, "cpus"), *procs = json_object_get(rep, "processes");
	const char *key;
	size_t i;
	char k[128];

	json_object_foreach(totals, key, v)
		row_set(rs, key, side, v, false);
	if (json_is_object(span)) {
		double s = (json_number_value(json_object_get(span, "last_ns")) -
			    json_number_value(json_object_get(span, "first_ns"))) / 1e9;
		json_t *ipis = json_object_get(totals, "flush_ipis");
		json_t *js = json_real(s);

		row_set(rs, "span_s", side, js, false);
		json_decref(js);
		if (s > 0 && json_is_number(ipis)) {
			json_t *rate = json_real(json_number_value(ipis) / s);

			row_set(rs, "flush_ipis_per_s", side, rate, false);
			json_decref(rate);
		}
	}
	{
		json_t *ipis = json_object_get(totals, "flush_ipis");
		json_t *reqs = json_object_get(totals, "flush_requests");

		if (json_is_number(ipis) && json_is_number(reqs) && json_number_value(reqs) > 0) {
			json_t *per = json_real(json_number_value(ipis) / json_number_value(reqs));

			row_set(rs, "flush_ipis_per_request", side, per, false);
			json_decref(per);
		}
	}
	json_array_foreach(cpus, i, v) {
		int cpu = (int)json_integer_value(json_object_get(v, "cpu"));

		snprintf(k, sizeof(k), "cpu%d.flush_ipis_received", cpu);
		row_set(rs, k, side, json_object_get(v, "flush_ipis_received"), false);
		snprintf(k, sizeof(k), "cpu%d.flush_ipis_sent", cpu);
		row_set(rs, k, side, json_object_get(v, "flush_ipis_sent"), false);
	}
	json_array_foreach(procs, i, v) {
		const char *comm = json_string_value(json_object_get(v, "comm"));

		snprintf(k, sizeof(k), "process.%s.flush_ipis", comm && *comm ? comm : "?");
		row_set(rs, k, side, json_object_get(v, "flush_ipis"), true);
		snprintf(k, sizeof(k), "process.%s.flush_requests", comm && *comm ? comm : "?");
		row_set(rs, k, side, json_object_get(v, "flush_requests"), true);
	}
	sfence_rows(rs, rep, side);
	row_set(rs, "lost_events", side, json_object_get(rep, "lost_events"), false);
}

/* model.<name>.ipis of the stock, ideal and lazy(T, Q) models; unknown for saved reports */
static void model_rows(struct rows *rs, json_t *tune, int side, const struct diff_opts *o)
{
	static const char *const names[] = { "stock_asid", "stock_noasid", "ideal" };
	json_t *grid = json_object_get(tune, "grid"), *v;
	char k[128];
	size_t i;

	for (size_t m = 0; m < sizeof(names) / sizeof(names[0]); m++) {
		snprintf(k, sizeof(k), "model.%s.ipis", names[m]);
		row_set(rs, k, side, json_object_get(json_object_get(json_object_get(tune,
			"models"), names[m]), "ipis"), false);
	}
	snprintf(k, sizeof(k), "model.lazy_t%dq%d.ipis", o->T, o->Q);
	row_get(rs, k);
	json_array_foreach(grid, i, v)
		if (json_integer_value(json_object_get(v, "threshold")) == o->T &&
		    json_integer_value(json_object_get(v, "queue")) == o->Q) {
			row_set(rs, k, side, json_object_get(v, "ipis"), false);
			snprintf(k, sizeof(k), "model.lazy_t%dq%d.deferred", o->T, o->Q);
			row_set(rs, k, side, json_object_get(v, "deferred"), false);
		}
}

/* Change in percent, or NAN when it has none (an unknown side, or growth from 0). */
static double change(const struct row *r)
{
	if (!r->known[0] || !r->known[1] || r->v[0] == 0)
		return NAN;
	return (r->v[1] - r->v[0]) * 100.0 / r->v[0];
}

/* Processes beyond the @top with most IPIs (before or after) are left out. */
static bool shown(const struct rows *rs, const struct row *r, int top)
{
	double mine;
	int above = 0;

	if (strncmp(r->key, "process.", 8) || !top)
		return true;
	if (strstr(r->key, ".flush_requests")) {
		char k[128];

		snprintf(k, sizeof(k), "%.*s.flush_ipis", (int)(strrchr(r->key, '.') - r->key),
			 r->key);
		for (size_t i = 0; i < rs->n; i++)
			if (!strcmp(rs->r[i].key, k))
				return shown(rs, &rs->r[i], top);
		return false;
	}
	mine = fmax(r->v[0], r->v[1]);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *o = &rs->r[i];

		if (!strncmp(o->key, "process.", 8) && strstr(o->key, ".flush_ipis") &&
		    !strstr(o->key, ".flush_ipis_") &&
		    (fmax(o->v[0], o->v[1]) > mine ||
		     (fmax(o->v[0], o->v[1]) == mine && strcmp(o->key, r->key) < 0)))
			above++;
	}
	return above < top;
}

static void fmt_val(char *buf, size_t len, const struct row *r, int side)
{
	double v = r->v[side];

	if (!r->known[side])
		snprintf(buf, len, "n/a");
	else if (v == floor(v) && fabs(v) < 1e15)
		snprintf(buf, len, "%.0f", v);
	else
		snprintf(buf, len, "%.3f", v);
}

static void print_text(const struct rows *rs, const struct diff_opts *o)
{
	static const char *const head[] = { "key", "before", "after", "change" };
	struct table *t = table_new(4, head, "<>>>");
	bool marked = false;

	for (size_t i = 0; i < rs->n; i++)
		marked |= rs->r[i].unlike && shown(rs, &rs->r[i], o->top);
	printf("tlbscope diff: before %s, after %s\n\n", o->in[0], o->in[1]);
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];
		char b[32], a[32], c[32];
		const char *cells[4] = { r->key, b, a, c };
		double ch = change(r);

		if (!shown(rs, r, o->top))
			continue;
		fmt_val(b, sizeof(b), r, 0);
		fmt_val(a, sizeof(a), r, 1);
		if (!isnan(ch))
			snprintf(c, sizeof(c), "%+.1f %%", ch);
		else if (r->known[0] && r->known[1] && r->v[1] == r->v[0])
			snprintf(c, sizeof(c), "=");
		else if (r->known[0] && r->known[1] && r->v[0] == 0)
			snprintf(c, sizeof(c), "from 0");	/* known: no percentage of 0 */
		else
			snprintf(c, sizeof(c), "n/a");
		if (marked)
			strcat(c, r->unlike ? " !" : "  ");
		table_add(t, cells);
	}
	table_print(t, stdout, "  ");
	table_free(t);
	if (marked)
		printf("  !: the two inputs count this from unlike evidence (the warnings say how): "
		       "its change is not only the workload's\n");
}

static json_t *jval(const struct row *r, int side)
{
	double v = r->v[side];

	if (!r->known[side])
		return json_null();
	return v == floor(v) && fabs(v) < 9e15 ? json_integer((json_int_t)v) : json_real(v);
}

static void print_json(const struct rows *rs, const struct diff_opts *o, json_t *gates)
{
	json_t *j = json_object(), *rows = json_array();

	json_object_set_new(j, "before", json_text(o->in[0]));
	json_object_set_new(j, "after", json_text(o->in[1]));
	for (size_t i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];
		json_t *row;
		double ch = change(r);

		if (!shown(rs, r, o->top))
			continue;
		row = json_object();
		json_object_set_new(row, "key", json_text(r->key));
		json_object_set_new(row, "before", jval(r, 0));
		json_object_set_new(row, "after", jval(r, 1));
		json_object_set_new(row, "change_percent", isnan(ch) ? json_null() :
				    json_real(round(ch * 1000) / 1000));
		if (r->unlike) {
			json_t *why = json_array();

			for (unsigned b = 0; b < 3; b++)
				if (r->unlike & 1u << b)
					json_array_append_new(why, json_string(unlike_names[b]));
			json_object_set_new(row, "unlike", why);
		}
		json_array_append_new(rows, row);
	}
	json_object_set_new(j, "rows", rows);
	json_object_set_new(j, "gates", json_incref(gates));
	json_dumpf(j, stdout, JSON_INDENT(2));
	putchar('\n');
	json_decref(j);
}

/* ---- gates ---- */

/* Each --fail-on against the rows: 1 when one tripped, 0 none, -1 (printed) unknown key. */
static int check_gates(const struct rows *rs, const struct diff_opts *o, json_t *out)
{
	int tripped = 0;

	for (int g = 0; g < o->ngates; g++) {
		const struct gate *ga = &o->gates[g];
		const struct row *r = NULL;
		json_t *jg;
		bool fail;

		for (size_t i = 0; i < rs->n && !r; i++)
			if (!strcmp(rs->r[i].key, ga->key))
				r = &rs->r[i];
		if (!r)
			return error("diff: --fail-on %s: no such key in the inputs (see the keys "
				     "diff prints)", ga->key), -1;
		if (!r->known[0] || !r->known[1])
			return error("diff: --fail-on %s: unknown in %s, so it cannot be judged",
				     ga->key, r->known[0] ? o->in[1] : o->in[0]), -1;
		/* from 0, any growth is more than any percentage */
		fail = r->v[0] == 0 ? r->v[1] > 0 : change(r) > ga->pct;
		tripped |= fail;
		jg = json_object();
		json_object_set_new(jg, "key", json_text(ga->key));
		json_object_set_new(jg, "max_percent", json_real(ga->pct));
		json_object_set_new(jg, "failed", json_boolean(fail));
		json_array_append_new(out, jg);
		if (fail && !o->json)
			fprintf(stderr, "tlbscope: diff: %s grew by more than %g %%\n", ga->key,
				ga->pct);
	}
	return tripped;
}

static int diff_parse(struct diff_opts *o, int argc, char **argv)
{
	enum { OPT_FAIL_ON = OPT_COMMON_END, OPT_TOP, OPT_THRESHOLD, OPT_QUEUE };
	static const struct cli_option opts[] = {
		COMMON_OPTS_JSON, { "fail-on", OPT_FAIL_ON, true }, { "top", OPT_TOP, true },
		{ "threshold", OPT_THRESHOLD, true }, { "queue", OPT_QUEUE, true }, STRICT_OPT, JOBS_OPT,
		VIEW_OPTS, { NULL }
	};
	struct cli_parser p;
	const char *v, *colon;
	int key, nin = 0;

	memset(o, 0, sizeof(*o));
	o->top = 10;
	o->T = LAZY_DEFAULT_T;
	o->Q = LAZY_DEFAULT_Q;
	cli_parser_init(&p, "diff", diff_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		switch (key) {
		case CLI_HELP:
			return 1;
		case CLI_BAD:
			return -1;
		case CLI_ARG:
			if (nin == 2)
				return error("diff: two inputs, BEFORE and AFTER ('%s' is a third)", v),
				       -1;
			o->in[nin++] = v;
			break;
		case OPT_JSON:
			o->json = true;
			break;
		case OPT_STRICT:
			cli_strict = true;
			break;
		case 'j':
			if (jobs_opt(v) < 0)
				return -1;
			break;
		case OPT_COLOR:
		case OPT_NO_PAGER:
			if (view_opt(key, v) < 0)
				return -1;
			break;
		case OPT_TOP:
			if (parse_int(v, &o->top) || o->top < 0)
				return error("diff: --top: '%s' is not a count (0 = all)", v), -1;
			break;
		case OPT_THRESHOLD:
		case OPT_QUEUE:
			if (opt_lazy_point("diff", key == OPT_THRESHOLD, v, &o->T, &o->Q))
				return -1;
			break;
		case OPT_FAIL_ON: {
			struct gate *g = &o->gates[o->ngates];
			char *end;

			colon = strrchr(v, ':');
			if (o->ngates == MAX_GATES)
				return error("diff: at most %d --fail-on", MAX_GATES), -1;
			if (!colon || colon == v || (size_t)(colon - v) >= sizeof(g->key))
				return error("diff: --fail-on: '%s' is not KEY:PCT", v), -1;
			g->pct = strtod(colon + 1, &end);
			if (end == colon + 1 || *end || !isfinite(g->pct) || g->pct < 0)
				return error("diff: --fail-on: '%s' is not KEY:PCT (PCT a percentage "
					     ">= 0)", v), -1;
			snprintf(g->key, sizeof(g->key), "%.*s", (int)(colon - v), v);
			o->ngates++;
			break;
		}
		}
	}
	if (nin < 2)
		return error("diff: needs BEFORE and AFTER\n%s", diff_usage), -1;
	if (!strcmp(o->in[0], "-") && !strcmp(o->in[1], "-"))
		return error("diff: only one input can be standard input"), -1;
	return 0;
}

int cmd_diff(int argc, char **argv)
{
	struct diff_opts o;
	struct rows rs = { 0 };
	json_t *rep[2] = { NULL, NULL }, *models[2] = { NULL, NULL }, *gates = json_array();
	int r, status = EXIT_BAD, fd = -1;
	char spool[PATH_MAX];

	r = diff_parse(&o, argc, argv);
	if (r) {
		json_decref(gates);
		return r > 0 ? EXIT_OK : EXIT_BAD;
	}
	for (int i = 0; i < 2; i++) {
		const char *in = o.in[i];

		r = spool_stream("diff", in, spool, sizeof(spool), &fd);
		if (r < 0)
			goto out;
		if (r)
			in = spool;
		/* named in messages as given, not as the copy read */
		rep[i] = load_input(in, strcmp(o.in[i], "-") ? o.in[i] : "<stdin>", &o, &models[i]);
		if (fd >= 0)		/* read: the next input may be spooled too */
			close(fd);
		fd = -1;
		if (!rep[i])
			goto out;
		rows_of(&rs, rep[i], i);
	}
	for (int i = 0; i < 2; i++)
		model_rows(&rs, models[i], i, &o);
	mark_unlike(&rs, warn_unlike(rep, o.in));
	r = check_gates(&rs, &o, gates);
	if (r < 0)
		goto out;
	view_begin(!o.json);
	if (o.json)
		print_json(&rs, &o, gates);
	else
		print_text(&rs, &o);
	status = r ? EXIT_PROBLEM : EXIT_OK;
out:
	json_decref(rep[0]);
	json_decref(rep[1]);
	json_decref(models[0]);
	json_decref(models[1]);
	json_decref(gates);
	free(rs.r);
	return status;
}
