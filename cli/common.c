// SPDX-License-Identifier: GPL-2.0-only
/*
 * What every command shares: the --json/--cpu/--from/--to/--probe-map options, the one
 * read loop from a source through the timeline, the input checks said, and text tables.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "cli.h"
#include "probes.h"
#include "../tuner/tuner.h"

bool cli_strict;

/* Counted in --strict: every class but the inconsistencies that follow a loss. */
static bool strict_counts(enum ts_check c)
{
	return c != TS_CHK_PREV_PID_LOSSY;
}

int source_checks_warn(struct ts_source *src, const char *name)
{
	const char *first;
	uint64_t n, failed = 0;

	if (!strcmp(name, "-"))
		name = "<stdin>";
	if (ts_source_info(src)->advice)
		warning("%s: %s", name, ts_source_info(src)->advice);
	n = ts_source_skipped(src, &first);
	if (n) {
		warning("%s: malformed records skipped: %llu (first: %s)", name,
			(unsigned long long)n, first);
		failed += n;
	}
	for (int c = 0; c < TS_CHK__COUNT; c++) {
		n = ts_source_checked(src, c, &first);
		if (!n)
			continue;
		warning("%s: %s: %llu (first: %s)", name, ts_check_what(c), (unsigned long long)n,
			first);
		if (strict_counts(c))
			failed += n;
	}
	if (cli_strict && failed)
		return error("%s: --strict: %llu record%s failed the checks of the input", name,
			     (unsigned long long)failed, failed == 1 ? "" : "s");
	return EXIT_OK;
}

void source_checks_line(struct ts_source *src, const char *indent)
{
	uint64_t skipped = 0, kept = 0;

	for (int c = 0; c < TS_CHK__COUNT; c++)
		*(ts_check_skips(c) ? &skipped : &kept) += ts_source_checked(src, c, NULL);
	if (skipped || kept)
		printf("%sinput checks: records skipped: %llu, kept as found or escaped: %llu "
		       "(the warnings say which)\n", indent, (unsigned long long)skipped,
		       (unsigned long long)kept);
}

int source_checks_print(struct ts_source *src, const char *indent)
{
	const char *first;
	int lines = 0;

	for (int c = 0; c < TS_CHK__COUNT; c++) {
		uint64_t n = ts_source_checked(src, c, &first);

		if (!n)
			continue;
		printf("%sinput checks: %s: %llu\n%s  first: %s\n", indent, ts_check_what(c),
		       (unsigned long long)n, indent, first);
		lines += 2;
	}
	return lines;
}

json_t *json_text(const char *s)
{
	json_t *j = json_string(s);
	size_t need;
	char *e;

	if (j || !s)
		return j;
	need = utf8_escape(s, NULL, 0);
	e = xmalloc(need + 1);
	utf8_escape(s, e, need + 1);
	j = json_string(e);
	free(e);
	return j;
}

void source_checks_json(json_t *obj, struct ts_source *src)
{
	json_t *j = json_object(), *f = json_object();
	const char *first;

	for (int c = 0; c < TS_CHK__COUNT; c++) {
		uint64_t n = ts_source_checked(src, c, &first);

		json_object_set_new(j, ts_check_key(c), json_integer((json_int_t)n));
		if (n)
			json_object_set_new(f, ts_check_key(c), json_text(first));
	}
	json_object_set_new(obj, "input_checks", j);
	json_object_set_new(obj, "input_checks_first", f);
}

/* "72.5" absolute seconds of the trace clock, or "+1.5" / "+200ms" after the first event */
/* --probe-map FILE: read for every source opened after it.  1, or -1 (said). */
static int probe_map_option(const char *path)
{
	char err[TS_ERR_LEN];

	ts_probe_map_free();
	if (ts_probe_map_load(path, err))
		return error("--probe-map: %s", err), -1;
	return 1;
}

static int parse_time(const char *s, uint64_t *ns, bool *relative)
{
	*relative = *s == '+';
	return parse_duration_ns(s + *relative, ns);
}

int jobs_opt(const char *val)
{
	int n;

	if (parse_int(val, &n) || n < 1 || n > 1024)
		return error("--jobs: '%s' is not a thread count (1 to 1024)", val), -1;
	ts_jobs_set(n);
	return 1;
}

int common_opt(struct common_opts *o, int key, const char *val)
{
	bool rel;

	if (key == OPT_JSON) {
		o->json = true;
		return 1;
	}
	if (key == OPT_PROBE_MAP)
		return probe_map_option(val);
	if (key == OPT_STRICT) {
		cli_strict = true;
		return 1;
	}
	if (key == 'j')
		return jobs_opt(val);
	if (key == OPT_COLOR || key == OPT_NO_PAGER)
		return view_opt(key, val);
	if (key != 'C' && key != OPT_FROM && key != OPT_TO)
		return 0;
	if (!o->has_filter) {
		o->filter.from = 0;
		o->filter.to = UINT64_MAX;
	}
	if (key == 'C') {
		if (ts_cpumask_parse_list(&o->filter.cpus, val))
			return error("--cpu: '%s' is not a CPU list like 0,2-3", val), -1;
		o->filter.has_cpus = true;
	} else if (key == OPT_FROM) {
		if (parse_time(val, &o->filter.from, &rel))
			return error("--from: '%s' is not a time (seconds, or +SECONDS)", val), -1;
		o->from_rel = rel;
		o->from_arg = val;
	} else {
		if (parse_time(val, &o->filter.to, &rel))
			return error("--to: '%s' is not a time (seconds, or +SECONDS)", val), -1;
		o->to_rel = rel;
		o->to_arg = val;
	}
	o->has_filter = true;
	return 1;
}

int common_parse(struct common_opts *o, const char *cmd, const char *usage,
		 const struct cli_option *opts, int argc, char **argv)
{
	struct cli_parser p;
	const char *v;
	int key;

	cli_parser_init(&p, cmd, usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		if (key == CLI_HELP)
			return 1;
		if (key == CLI_BAD)
			return -1;
		if ((key == CLI_ARG ? common_input(o, cmd, v) : common_opt(o, key, v)) < 0)
			return -1;
	}
	if (!o->input)
		return error("%s: no trace given\n%s", cmd, usage), -1;
	return 0;
}

int opt_int_in(const char *cmd, const char *opt, const char *v, int lo, int hi, int *out)
{
	if (parse_int(v, out) || *out < lo || *out > hi)
		return error("%s: %s: '%s' is not a number in %d..%d", cmd, opt, v, lo, hi), -1;
	return 0;
}

int opt_lazy_point(const char *cmd, bool threshold, const char *v, int *T, int *Q)
{
	if (threshold)
		return opt_int_in(cmd, "--threshold", v, 1, TUNER_MAX_T, T);
	return opt_int_in(cmd, "--queue", v, 0, TUNER_MAX_Q, Q);
}

int common_input(struct common_opts *o, const char *cmd, const char *arg)
{
	if (o->input)
		return error("%s: one trace at a time ('%s' and '%s')", cmd, o->input, arg), -1;
	o->input = arg;
	return 1;
}

/* --from as given, or what it is when not given */
static const char *from_name(const struct common_opts *o)
{
	return o->from_arg ? o->from_arg : "0 (the default)";
}

int common_filter_check(const struct common_opts *o, struct ts_source *src)
{
	int cpus = ts_source_info(src)->cpus;

	if (o->from_rel == o->to_rel && o->filter.to != UINT64_MAX &&
	    o->filter.from >= o->filter.to) {
		error("--from %s is not before --to %s", from_name(o), o->to_arg);
		return -1;
	}
	if (o->filter.has_cpus && cpus > 0) {
		for (int c = cpus; c < TS_MAX_CPUS; c++) {
			if (ts_cpumask_test(&o->filter.cpus, c)) {
				error("--cpu: %s has CPUs 0-%d; there is no CPU %d", o->input,
				      cpus - 1, c);
				return -1;
			}
		}
	}
	return 0;
}

int common_filter_window(const struct common_opts *o, uint64_t first_ts, struct tl_filter *f)
{
	*f = o->filter;
	if (o->from_rel)
		f->from += first_ts;
	if (o->to_rel && f->to != UINT64_MAX)
		f->to += first_ts;
	if (f->from < f->to)
		return 0;
	error("--from %s is not before --to %s (from the first event at %.6f s)", from_name(o),
	      o->to_arg, first_ts / 1e9);
	return -1;
}

/*
 * Lost events, loudly: one warning with the share lost, then a line per CPU that lost any
 * with its share and the window its records really cover (@first, @last: ns per CPU, of
 * the records read; UINT64_MAX first when none).
 */
static void warn_lost(const char *name, struct timeline *tl, const uint64_t *first,
		      const uint64_t *last)
{
	uint64_t marks, lost = timeline_lost(tl, &marks), kept = 0;
	int lines = 0, more = 0;

	if (!lost && !marks)
		return;
	for (int c = 0; c < timeline_cpus(tl); c++)
		kept += timeline_cpu(tl, c)->events;
	if (!strcmp(name, "-"))
		name = "<stdin>";
	warning("%s: %llu events lost against %llu kept (%.1f %%)%s: every count misses what "
		"they were", name, (unsigned long long)lost, (unsigned long long)kept,
		lost + kept ? 100.0 * lost / (lost + kept) : 0.0,
		marks ? ", and sub-buffers that lost an unknown number" : "");
	for (int c = 0; c < timeline_cpus(tl); c++) {
		const struct tl_cpu *tc = timeline_cpu(tl, c);

		if (!tc->lost && !tc->lost_marks)
			continue;
		if (++lines > 8) {
			more++;
			continue;
		}
		if (first[c] == UINT64_MAX)
			warning("%s:   cpu %d: %llu lost, no record kept", name, c,
				(unsigned long long)tc->lost);
		else
			warning("%s:   cpu %d: %llu lost (%.1f %% of its events)%s, its records "
				"cover %.6f .. %.6f s", name, c, (unsigned long long)tc->lost,
				100.0 * tc->lost / (tc->lost + tc->events),
				tc->lost_marks ? " and more" : "", first[c] / 1e9, last[c] / 1e9);
	}
	if (more)
		warning("%s:   and %d more CPUs with losses", name, more);
}

/* The consumer of analyses that read only the timeline's own counters. */
static void ignore_event(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
}

int common_window_misses(const struct common_opts *o, const struct tl_filter *f,
			 const struct timeline *tl)
{
	uint64_t first = timeline_first_ts(tl), last = timeline_last_ts(tl);

	/* no CPU had an event: nothing to miss */
	if (!timeline_cpus(tl) || (f->from <= last && f->to > first))
		return 0;
	error("%s%s%s%s%s: no event of %s is in the window (its events are at %.6f .. %.6f s)",
	      o->from_arg ? "--from " : "", o->from_arg ? o->from_arg : "",
	      o->from_arg && o->to_arg ? " " : "", o->to_arg ? "--to " : "",
	      o->to_arg ? o->to_arg : "", o->display ? o->display : o->input, first / 1e9,
	      last / 1e9);
	return -1;
}

int analyze_run(const struct common_opts *o, struct ts_source *src, tl_emit_fn emit, void *ctx,
		struct timeline **tlp)
{
	bool whole;

	return analyze_run_prefix(o, src, 0, NULL, emit, ctx, tlp, &whole);
}

/* The reader's side of analyze_run_prefix(): each CPU's first and last time noted. */
struct reading {
	struct ts_source *src;
	uint64_t *first, *last;		/* ns per CPU; UINT64_MAX first when none yet */
};

static int read_next(void *arg, struct ts_event *ev)
{
	struct reading *g = arg;
	int r = ts_source_next(g->src, ev);

	/* the stream's checks hold every CPU in 0..TS_MAX_CPUS-1 */
	if (r > 0 && ev->kind != TS_EV_LOST && ev->kind != TS_EV_MM) {
		if (g->first[ev->cpu] == UINT64_MAX)
			g->first[ev->cpu] = ev->ts;
		g->last[ev->cpu] = ev->ts;
	}
	return r;
}

/* The timeline, made at the first event @ts (its --from/--to window); 0 or EXIT_BAD. */
static int timeline_start(const struct common_opts *o, struct ts_source *src, uint64_t ts,
			  struct tl_filter *f, struct timeline **tl)
{
	if (o->has_filter && common_filter_window(o, ts, f))
		return EXIT_BAD;
	*tl = timeline_new(src, o->has_filter ? f : NULL);
	return 0;
}

int analyze_run_prefix(const struct common_opts *o, struct ts_source *src, uint64_t min,
		       bool (*enough)(void *ctx, const struct timeline *tl, uint64_t n),
		       tl_emit_fn emit, void *ctx, struct timeline **tlp, bool *whole)
{
	struct timeline *tl = NULL;
	uint64_t n = 0;
	struct tl_filter f;
	uint64_t cpu_first[TS_MAX_CPUS], cpu_last[TS_MAX_CPUS];	/* ns, of each CPU's events */
	struct reading g = { src, cpu_first, cpu_last };
	struct ts_event ev;
	int r;

	for (int c = 0; c < TS_MAX_CPUS; c++) {
		cpu_first[c] = UINT64_MAX;
		cpu_last[c] = 0;
	}

	if (!emit)
		emit = ignore_event;
	if (o->has_filter && common_filter_check(o, src))
		return EXIT_BAD;
	if (o->model_thread && !min && ts_jobs() > 1) {
		/* the whole input: the model may be fed on a thread of its own */
		if ((r = read_next(&g, &ev)) > 0) {
			if (timeline_start(o, src, ev.ts, &f, &tl))
				return EXIT_BAD;
			timeline_feed(tl, &ev, emit, ctx);
			r = model_thread_run(tl, emit, ctx, read_next, &g);
		}
	} else {
		while ((r = read_next(&g, &ev)) > 0) {
			if (!tl && timeline_start(o, src, ev.ts, &f, &tl))
				return EXIT_BAD;
			timeline_feed(tl, &ev, emit, ctx);
			if (min && ++n >= min && (!enough || (n % 1024 == 0 && enough(ctx, tl, n))))
				break;
		}
	}
	if (!tl)
		tl = timeline_new(src, NULL);
	timeline_finish(tl, emit, ctx);
	*tlp = tl;
	*whole = r <= 0;
	if (r < 0)
		return error("%s", ts_source_error(src));
	if (!*whole)
		return EXIT_OK;
	if (o->has_filter && common_window_misses(o, &f, tl))
		return EXIT_BAD;
	if (o->checks_said)
		return EXIT_OK;
	warn_lost(o->display ? o->display : o->input, tl, cpu_first, cpu_last);
	return source_checks_warn(src, o->display ? o->display : o->input);
}

int analyze(const struct common_opts *o, tl_emit_fn emit, void *ctx, struct ts_source **srcp,
	    struct timeline **tlp)
{
	char err[TS_ERR_LEN];

	*tlp = NULL;
	*srcp = ts_source_open(o->input, err);
	if (!*srcp)
		return error("%s", err);
	return analyze_run(o, *srcp, emit, ctx, tlp);
}

void format_ns(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%06llu", (unsigned long long)(ns / 1000000000ULL),
		 (unsigned long long)(ns % 1000000000ULL / 1000));
}

int spool_stream(const char *cmd, const char *input, char *path, size_t len, int *fdp)
{
	const char *dir = getenv("TMPDIR");
	bool is_stdin = !strcmp(input, "-");
	const char *what = is_stdin ? "standard input" : input;
	char buf[65536];
	ssize_t n;
	int fd, in = STDIN_FILENO;

	if (!ts_input_once(input))
		return 0;
	snprintf(path, len, "%s/tlbscope-%s-XXXXXX",
		 dir && *dir && strlen(dir) < len - 32 ? dir : "/tmp", cmd);
	fd = mkstemp(path);
	if (fd < 0)
		return error("%s: a temporary file for %s (%s): %s", cmd, what, path,
			     strerror(errno)), -1;
	unlink(path);
	if (!is_stdin && (in = open(input, O_RDONLY | O_CLOEXEC)) < 0) {
		close(fd);
		return error("%s: %s: %s", cmd, input, strerror(errno)), -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR))
		if (n > 0 && write(fd, buf, n) != n) {
			close(fd);
			if (!is_stdin)
				close(in);
			return error("%s: copying %s: %s", cmd, what,
				     strerror(errno ? errno : ENOSPC)), -1;
		}
	if (!is_stdin)
		close(in);
	snprintf(path, len, "/proc/self/fd/%d", fd);
	*fdp = fd;
	return 1;
}

/* ---- tables ---- */

struct table {
	int ncols;
	char **cells;		/* row-major, the header row first */
	size_t nrows, alloc;
	char *aligns;
};

struct table *table_new(int ncols, const char *const *headers, const char *aligns)
{
	struct table *t = xcalloc(1, sizeof(*t));

	t->ncols = ncols;
	t->aligns = xstrdup(aligns);
	table_add(t, headers);
	return t;
}

void table_add(struct table *t, const char *const *cells)
{
	ALLOC_GROW(t->cells, (t->nrows + 1) * t->ncols, t->alloc);
	for (int c = 0; c < t->ncols; c++)
		t->cells[t->nrows * t->ncols + c] = xstrdup(cells[c] ? cells[c] : "");
	t->nrows++;
}

void table_print(struct table *t, FILE *out, const char *indent)
{
	size_t *w = xcalloc(t->ncols, sizeof(*w));

	for (size_t r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++) {
			size_t l = strlen(t->cells[r * t->ncols + c]);

			if (l > w[c])
				w[c] = l;
		}
	for (size_t r = 0; r < t->nrows; r++) {
		fputs(indent, out);
		for (int c = 0; c < t->ncols; c++) {
			const char *cell = t->cells[r * t->ncols + c];
			bool left = t->aligns[c] == '<';
			bool last = c == t->ncols - 1;

			if (c)
				fputs("  ", out);
			if (left && last)
				fputs(cell, out);
			else
				fprintf(out, left ? "%-*s" : "%*s", (int)w[c], cell);
		}
		fputc('\n', out);
	}
	free(w);
}

void table_free(struct table *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t->aligns);
	free(t);
}

static struct ts_source *sort_src;	/* qsort has no context argument */

static int cmp_name(const void *a, const void *b)
{
	return strcmp(ts_source_str(sort_src, *(const uint32_t *)a),
		      ts_source_str(sort_src, *(const uint32_t *)b));
}

size_t events_by_name(struct ts_source *src, struct timeline *tl, uint32_t **ids)
{
	uint32_t n = ts_source_str_count(src);
	size_t k = 0;

	*ids = xcalloc(n ? n : 1, sizeof(**ids));
	for (uint32_t id = 1; id < n; id++)
		if (timeline_name_count(tl, id))
			(*ids)[k++] = id;
	sort_src = src;
	qsort(*ids, k, sizeof(**ids), cmp_name);
	return k;
}
