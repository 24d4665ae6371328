// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope export [--format chrome|perfetto]: the trace for a trace viewer.  One track per
 * CPU with a slice for every stretch a task ran (process and mm with it) and for every idle
 * stretch, an instant for every flush request and every flush IPI (on the sender's track,
 * with a flow arrow to the target's, ending where the target entered the flush handler when
 * the trace shows it, else at the send), and counters of flush IPIs/s and of the lazy
 * model's deferrals/s: analysis/'s export model decides all of it, export-chrome.c and
 * export-perfetto.c write it.  Times are ns after the first event (with --abs, of the
 * trace clock); --from/--to/-C select as report's do.
 *
 * Which IPIs are counted is decided on the whole trace (timeline_ipi_source()), so the
 * input is read twice: once to decide (export_scan_ops), once to draw (export_model_ops);
 * standard input is first copied to a temporary file.  Into a regular file the first pass
 * guesses, from a trace.dat's flush requests and IPIs alone (its other records passed over
 * undecoded) or from the beginning of other inputs; the drawing checks the guess on the
 * whole trace and, only when it did not hold, the file is truncated and drawn again.  The
 * IPIs and requests drawn are those `report` counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "../lib/lib.h"
#include "../tuner/tuner.h"
#include "cli.h"
#include "export.h"
#include "probes.h"

static const char export_usage[] =
	"usage: tlbscope export [--format chrome|perfetto] [-o FILE] [--abs] [-C LIST]\n"
	"                       [--from T] [--to T] [--interval T] [--threshold T] [--queue Q]\n"
	"                       [--uncompressed] TRACE\n"
	"\n"
	"  --format chrome    the Trace Event Format (JSON) of ui.perfetto.dev and\n"
	"                     chrome://tracing (the default)\n"
	"  --format perfetto  Perfetto's protobuf trace (binary, its packets deflated in\n"
	"                     chunks: a tenth of the JSON or less; not to a terminal)\n"
	"  --uncompressed     perfetto: no packet deflated (for protoc --decode_raw)\n"
	"  -o, --output FILE  write there (default standard output)\n"
	"  --abs              timestamps of the trace clock, as report prints them (default:\n"
	"                     after the first event; otherData.first_ts_ns gives it)\n"
	"  -C, --cpu LIST     only these CPUs' tracks (0,2-3)\n"
	"  --from T, --to T   only what happened in the window (seconds, or +T after the\n"
	"                     first event; as report counts)\n"
	"  --interval T       the counters' bucket (default 100ms)\n"
	"  --threshold T      MAX_LOADED_MM of the lazy model counted (default 6)\n"
	"  --queue Q          MAX_TLB_FLUSH_TASK of the lazy model (default 32)\n"
	"  --probe-map FILE   how kprobes of other names map to tlbscope-probes(7)\n"
	"  -j, --jobs N       threads reading a trace.dat and drawing (default: the\n"
	"                     CPUs available; 1: no thread started)\n"
	"  --strict           exit 2 when records failed the input's checks (skipped,\n"
	"                     inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help         this text\n";

/* the formats: one renderer each, the first the default */
static const struct export_renderer *const renderers[] = { &export_chrome, &export_perfetto };

struct export_opts {
	struct common_opts c;
	const char *output;
	const struct export_renderer *format;
	uint64_t interval_ns;
	int T, Q;
	bool abs;
	bool uncompressed;
};

static int export_parse(struct export_opts *o, int argc, char **argv)
{
	enum { OPT_FORMAT = OPT_COMMON_END, OPT_INTERVAL, OPT_THRESHOLD, OPT_QUEUE, OPT_ABS,
	       OPT_UNCOMPRESSED };
	static const struct cli_option opts[] = {
		{ "format", OPT_FORMAT, true }, { "output", 'o', true }, COMMON_OPTS_FILTER,
		{ "abs", OPT_ABS, false },
		{ "interval", OPT_INTERVAL, true }, { "threshold", OPT_THRESHOLD, true },
		{ "queue", OPT_QUEUE, true }, { "uncompressed", OPT_UNCOMPRESSED, false },
		PROBE_MAP_OPT, STRICT_OPT, JOBS_OPT, { NULL }
	};
	struct cli_parser p;
	const char *v;
	int key;

	memset(o, 0, sizeof(*o));
	o->format = renderers[0];
	o->interval_ns = 100000000ULL;
	o->T = LAZY_DEFAULT_T;
	o->Q = LAZY_DEFAULT_Q;
	cli_parser_init(&p, "export", export_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		switch (key) {
		case CLI_HELP:
			return 1;
		case CLI_BAD:
			return -1;
		case CLI_ARG:
			if (common_input(&o->c, "export", v) < 0)
				return -1;
			break;
		case OPT_FORMAT:
			o->format = NULL;
			for (size_t i = 0; i < sizeof(renderers) / sizeof(renderers[0]); i++)
				if (!strcmp(v, renderers[i]->name))
					o->format = renderers[i];
			if (!o->format)
				return error("export: --format: '%s' is not chrome or perfetto\n%s",
					     v, export_usage), -1;
			break;
		case 'o':
			o->output = strcmp(v, "-") ? v : NULL;	/* "-": standard output */
			break;
		case OPT_ABS:
			o->abs = true;
			break;
		case OPT_UNCOMPRESSED:
			o->uncompressed = true;
			break;
		case OPT_INTERVAL:
			if (parse_duration_ns(v, &o->interval_ns) || o->interval_ns < 1000)
				return error("export: --interval: '%s' is not a time of at least 1us",
					     v), -1;
			break;
		case OPT_THRESHOLD:
		case OPT_QUEUE:
			if (opt_lazy_point("export", key == OPT_THRESHOLD, v, &o->T, &o->Q))
				return -1;
			break;
		default:
			if (common_opt(&o->c, key, v) < 0)
				return -1;
		}
	}
	if (o->uncompressed && o->format != &export_perfetto)
		return error("export: --uncompressed is an option of --format perfetto"), -1;
	if (!o->c.input)
		return error("export: no trace given\n%s", export_usage), -1;
	return 0;
}

/*
 * Events the first pass reads at least when the drawing can start over (the output is a
 * file), then on until export_scan_enough(): it guesses from them what the whole trace
 * shows and the drawing checks the guess.
 */
#define GUESS_EVENTS	(1u << 13)

/*
 * TLBSCOPE_EXPORT_GUESS's count of events (the tests' way to make a guess fail: the first
 * pass stops right there, and a drawing again is said), or 0 when it gives none.
 */
static uint64_t guess_forced(void)
{
	const char *v = getenv("TLBSCOPE_EXPORT_GUESS");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return 0;
	n = strtoull(v, &end, 10);
	return *end ? 0 : n;
}

/*
 * One pass of @ops over @src (borrowed), over its beginning only when @min (see
 * analyze_run_prefix()), finished where it stopped (*@r 0; else the exit status, the
 * message printed; *@whole: it read the input to its end).  Returns the state, to free
 * with @ops->free.
 */
static void *export_pass(const struct common_opts *c, struct ts_source *src,
			 const struct analysis_ops *ops, const void *opts, uint64_t min,
			 bool (*enough)(void *, const struct timeline *, uint64_t), int *r,
			 bool *whole)
{
	struct timeline *tl = NULL;
	void *state = ops->new(src, opts);

	*r = analyze_run_prefix(c, src, min, enough, ops->feed, state, &tl, whole);
	if (!*r)
		ops->finish(state, tl);
	timeline_free(tl);
	return state;
}

/*
 * The drawing pass: the model drawing through @o->format into @out, given @mo's scan; what
 * the whole trace showed into *@seen and whether it was that scan into *@held.
 */
static int export_draw_all(struct export_opts *o, struct ts_source *src, FILE *out,
			   const char *name, const struct export_model_opts *mo,
			   struct export_counts *n, struct export_scan *seen, bool *held)
{
	struct export_model_opts m = *mo;
	struct export_header h = {
		.trace = name, .format = ts_source_info(src)->format,
		.ipi_source = m.scan.ipi_source >= 0 ?
			timeline_ipi_source_name(m.scan.ipi_source) : NULL,
		.first_ts = m.scan.first_ts, .base = m.base, .entries = m.scan.entries,
		.T = o->T, .Q = o->Q, .ncpus = m.scan.ncpus, .uncompressed = o->uncompressed,
	};
	struct export_queue *q = NULL;
	void *model, *rs;
	bool whole;
	int r;

	rs = o->format->begin(out, &h);
	m.sink = (struct export_sink){ o->format->draw, rs };
	if (ts_jobs() > 1) {	/* the renderer on a thread of its own */
		q = export_queue_new(m.sink);
		m.sink = (struct export_sink){ export_queue_draw, q };
	}
	model = export_pass(&o->c, src, &export_model_ops, &m, 0, NULL, &r, &whole);
	export_queue_finish(q);
	export_model_counts(model, n);
	*held = export_model_scan_held(model, seen);
	export_model_ops.free(model);
	o->format->end(rs, !r);
	return r;
}

/* Where the drawing can start over in @out: a regular file's offset, else -1. */
static off_t restart_point(FILE *out)
{
	struct stat st;

	if (fstat(fileno(out), &st) || !S_ISREG(st.st_mode))
		return -1;
	return ftello(out);
}

/* The output back to what it was at @at (restart_point()); 0, or the exit status. */
static int start_over(const struct export_opts *o, FILE *out, off_t at)
{
	if (fflush(out) || ftruncate(fileno(out), at) || fseeko(out, at, SEEK_SET))
		return error("export: %s: starting the drawing over: %s",
			     o->output ? o->output : "standard output", strerror(errno));
	return 0;
}

/*
 * The first pass into *@scan: all of it unless @guess.  A guess reads the flush requests
 * and IPIs of the whole input where its reader can pass over the other records undecoded
 * (a trace.dat, no --from/--to/-C window), else the beginning (GUESS_EVENTS and on until
 * export_scan_enough(), or the forced count).  *@whole: it read every event of the input
 * to its end (the decision is the whole trace's, its checks said).  0, or the exit status
 * (the message printed).
 */
static int first_pass(const struct export_opts *o, bool guess, struct export_scan *scan,
		      bool *whole)
{
	uint64_t forced = guess_forced();
	char err[TS_ERR_LEN];
	struct ts_source *src = ts_source_open_as(o->c.input, o->c.display, err);
	struct common_opts c = o->c;
	struct export_scan_opts so;
	bool only = false;
	void *state;
	int r;

	if (!src)
		return error("%s", err);
	if (guess && !forced && !c.has_filter)
		only = ts_source_only(src, 1u << TS_EV_IPI | 1u << TS_EV_FLUSH |
				      TS_ONLY_FLUSH_IPIS);
	so.narrow = only;
	c.checks_said = c.checks_said || only;	/* the drawing says them */
	state = export_pass(&c, src, &export_scan_ops, &so,
			    !guess || only ? 0 : forced ? forced : GUESS_EVENTS,
			    forced ? NULL : export_scan_enough, &r, whole);
	*whole = *whole && !only;
	export_scan_get(state, scan);
	export_scan_ops.free(state);
	ts_source_close(src);
	return r;
}

/*
 * The output is a regular file (or -o names none yet: *@created), where the drawing can
 * start over.
 */
static bool output_file(const struct export_opts *o, bool *created)
{
	struct stat st;

	*created = false;
	if (!o->output)
		return !fstat(STDOUT_FILENO, &st) && S_ISREG(st.st_mode);
	if (!stat(o->output, &st))
		return S_ISREG(st.st_mode);
	*created = errno == ENOENT;
	return *created;
}

/* The model's options from @scan, the window of --from/--to; 0, or the exit status. */
static int model_opts(const struct export_opts *o, const struct export_scan *scan,
		      struct export_model_opts *mo, struct tl_filter *window)
{
	mo->scan = *scan;
	mo->base = o->abs ? 0 : scan->first_ts;
	mo->interval = o->interval_ns;
	mo->T = o->T;
	mo->Q = o->Q;
	mo->filter = NULL;
	if (o->c.has_filter) {
		if (common_filter_window(&o->c, scan->first_ts, window))
			return EXIT_BAD;
		mo->filter = window;
	}
	return 0;
}

int cmd_export(int argc, char **argv)
{
	struct export_opts o;
	struct export_model_opts mo = { 0 };
	struct export_counts n;
	struct export_scan scan, seen;
	struct ts_source *src = NULL;
	struct tl_filter window;
	struct platform pf;
	char spool[PATH_MAX], err[TS_ERR_LEN];
	const char *name;
	FILE *out = NULL;
	off_t at = -1;
	bool decided = true, held, created;	/* decided: by the whole trace */
	int r, fd = -1;

	r = export_parse(&o, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	name = o.c.input;
	if (o.format->binary && !o.output && isatty(STDOUT_FILENO))
		return error("export: not writing a binary %s trace to a terminal; give -o FILE or "
			     "redirect standard output", o.format->name);
	/* read twice: standard input or a named pipe first copied */
	r = spool_stream("export", o.c.input, spool, sizeof(spool), &fd);
	if (r < 0)
		return EXIT_BAD;
	if (r) {
		o.c.display = o.c.input;
		o.c.input = spool;
	}
	/*
	 * The first pass: which IPI evidence the trace counts, where it starts, whether
	 * handler entries are traced.  Into a file, where the drawing can start over, it
	 * guesses (first_pass()) and the drawing checks the guess (one pass when it holds).
	 */
	r = first_pass(&o, output_file(&o, &created), &scan, &decided);
	if (r || (r = model_opts(&o, &scan, &mo, &window)))
		goto out;
	out = o.output ? fopen(o.output, "we") : stdout;
	if (!out) {
		r = error("export: %s: %s", o.output, strerror(errno));
		goto out;
	}
	/* not a file after all: the whole trace decides first */
	if (!decided && (at = restart_point(out)) < 0 &&
	    ((r = first_pass(&o, false, &scan, &decided)) ||
	     (r = model_opts(&o, &scan, &mo, &window))))
		goto out;
	if (platform_load(NULL, &pf, err)) {
		r = error("%s", err);
		goto out;
	}
	mo.tlb_reach_mms = platform_reach_mms(&pf);
	/* the first pass said what the input's checks found when it read it all */
	o.c.checks_said = decided;
	for (int pass = 0; pass < 2; pass++) {
		src = ts_source_open_as(o.c.input, o.c.display, err);
		if (!src) {
			r = error("%s", err);
			goto out;
		}
		r = export_draw_all(&o, src, out, name, &mo, &n, &seen, &held);
		ts_source_close(src);
		src = NULL;
		if (r && !decided) {	/* bad input past the guess: nothing drawn */
			start_over(&o, out, at);
			if (created)
				unlink(o.output);
		}
		if (r || decided || held)
			break;
		/* the guess did not hold: drawn again with what the whole trace showed */
		if (guess_forced())	/* the tests see it happen */
			fprintf(stderr, "tlbscope: export: the guess did not hold; drawn again\n");
		if ((r = start_over(&o, out, at)) || (r = model_opts(&o, &seen, &mo, &window)))
			goto out;
		o.c.checks_said = true;
		decided = true;
	}
	if (!r && out != stdout && (fflush(out) || ferror(out)))
		r = error("export: %s: %s", o.output, strerror(errno ? errno : EIO));
	if (!r)
		fprintf(stderr, "tlbscope: export: %llu slices, %llu flush requests, %llu flush IPIs "
			"(%s)\n", (unsigned long long)n.slices, (unsigned long long)n.requests,
			(unsigned long long)n.ipis, mo.scan.ipi_source >= 0 ?
			timeline_ipi_source_name(mo.scan.ipi_source) : "no IPI evidence");
out:
	ts_source_close(src);
	if (out && out != stdout && fclose(out) && !r)
		r = error("export: %s: %s", o.output, strerror(errno));
	if (fd >= 0)
		close(fd);
	ts_probe_map_free();
	return r;
}
