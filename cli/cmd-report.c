// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope report: totals, a per-CPU table, a per-process (address space) table, the
 * evidence block (which events the trace has, what therefore cannot be seen, how much of
 * the identity rests on guesses) and lost events; as text for people or --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "report.h"
#include "probes.h"

static const char report_usage[] =
	"usage: tlbscope report [-q] [--json] [-C LIST] [--from T] [--to T] [--top N]\n"
	"                       [--platform P] [--probe-map FILE] TRACE\n"
	"\n"
	"  --json          one JSON object with stable snake_case keys\n"
	"  -C, --cpu LIST  count only these CPUs (0,2-3); state is rebuilt from all of them\n"
	"  --from T        count events at or after T: seconds of the trace clock, or +T\n"
	"                  after the first event (units: s, ms, us, ns)\n"
	"  --to T          count events before T (same forms)\n"
	"  --top N         processes listed in the text table (default 20, 0 = all)\n"
	"  -q, --quiet     the one-screen summary alone\n"
	"  --color WHEN    auto (default: on a terminal, unless NO_COLOR), always, never\n"
	"  --no-pager      never page (on a terminal the text goes through $PAGER or\n"
	"                  less -FRX)\n"
	"  --platform P    price the sfence.vma account with platform P (a name or a JSON\n"
	"                  file, as tune's; default generic)\n"
	"  --probe-map FILE  kprobe events and arguments under other names: lines\n"
	"                  'EVENT = FUNCTION', 'EVENT.FIELD = ARGUMENT' (tlbscope-probes(7))\n"
	"  -j, --jobs N    threads: the analyses' own while it is faster, then readers\n"
	"                  of a trace.dat (default: the CPUs available; 1: none started)\n"
	"  --strict        exit 2 when records failed the input's checks (skipped,\n"
	"                  inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help      this text\n";

/* Test hook and parse entry: fills @o, never exits.  0 ok, 1 help shown, -1 bad usage. */
static int report_parse_args(struct report_opts *o, int argc, char **argv)
{
	enum { OPT_TOP = OPT_COMMON_END, OPT_PLATFORM };
	static const struct cli_option opts[] = {
		COMMON_OPTS_JSON, COMMON_OPTS_FILTER, { "top", OPT_TOP, true },
		{ "platform", OPT_PLATFORM, true }, { "quiet", 'q', false }, PROBE_MAP_OPT,
		STRICT_OPT, JOBS_OPT, VIEW_OPTS, { NULL }
	};
	struct cli_parser p;
	const char *v;
	int key, r;

	memset(o, 0, sizeof(*o));
	o->top = 20;
	cli_parser_init(&p, "report", report_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		if (key == CLI_HELP)
			return 1;
		if (key == CLI_BAD)
			return -1;
		if (key == CLI_ARG)
			r = common_input(&o->c, "report", v);
		else if (key == OPT_PLATFORM)
			o->platform = v, r = 1;
		else if (key == 'q')
			o->quiet = true, r = 1;
		else if (key == OPT_TOP)
			r = parse_int(v, &o->top) || o->top < 0 ?
				error("report: --top: '%s' is not a count (0 = all)", v), -1 : 1;
		else
			r = common_opt(&o->c, key, v);
		if (r < 0)
			return -1;
	}
	if (!o->c.input)
		return error("report: no trace given\n%s", report_usage), -1;
	return 0;
}

/* report's analyses, each a consumer of the one resolved stream */
/*
 * report with @argv; @out: its JSON object there (new reference) instead of printed;
 * @display: the input's name in messages (NULL: its path)
 */
static int report_main(int argc, char **argv, const char *display, json_t **out)
{
	struct report_opts o;
	struct ts_source *src = NULL;
	struct timeline *tl = NULL;
	struct analysis_set set = { 0 };	/* report's analyses, fed in the one pass */
	struct platform pf;
	char err[TS_ERR_LEN];
	int r = report_parse_args(&o, argc, argv);

	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	if (platform_load(o.platform, &pf, err))
		return error("report: %s", err);
	o.c.display = display;
	/* the analyses may run on a thread of their own: one thread fewer reads */
	o.c.model_thread = true;
	ts_jobs_reserve(1);
	src = ts_source_open_as(o.c.input, display, err);
	if (!src)
		r = error("%s", err);
	if (!r) {
		struct sfence_opts so = { .src = src, .flush_all_threshold = FLUSH_ALL_DEFAULT,
					  .pf = &pf };

		analysis_set_add(&set, "explain", src, NULL);
		analysis_set_add(&set, "sfence", src, &so);
		r = analyze_run(&o.c, src, analysis_set_feed, &set, &tl);
	}
	if (!r) {
		int ncpus = ts_source_info(src)->cpus ?: timeline_cpus(tl);
		const struct sfence_result *sr;
		const struct explain_result *xr;
		struct report_result *rr;
		json_t *root;

		analysis_set_finish(&set, tl);
		sr = sfence_result(analysis_set_get(&set, "sfence"), ncpus);
		xr = explain_result(analysis_set_get(&set, "explain"), tl, timeline_ipi_source(tl));
		rr = report_result_new(src, tl, o.c.has_filter ? &o.c.filter : NULL, xr);
		root = out || o.c.json ? report_json(&o, src, tl, rr, xr, sr, &pf) : NULL;

		if (out) {
			*out = root;
		} else if (root) {
			view_begin(false);
			json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(root);
		} else {
			view_begin(true);
			report_text(&o, src, tl, rr, xr, sr, &pf);
		}
		report_result_free(rr);
	}
	analysis_set_free(&set);
	timeline_free(tl);
	ts_source_close(src);
	ts_probe_map_free();
	return r;
}

int cmd_report(int argc, char **argv)
{
	return report_main(argc, argv, NULL, NULL);
}

json_t *report_json_of(const char *path, const char *display)
{
	char *argv[] = { "report", "--json", "--", (char *)path, NULL };
	json_t *j = NULL;

	if (report_main(4, argv, display, &j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}
