// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope events: the normalized stream (docs/design.md section 3) as JSON lines, after the
 * timeline resolved mms and flush roles.  Every command reads this back as an input, and
 * gives the same answers from it as from the original trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "cli.h"
#include "probes.h"

static const char events_usage[] =
	"usage: tlbscope events [-C LIST] [--from T] [--to T] [--probe-map FILE] TRACE\n"
	"\n"
	"Prints one JSON object per line: a header, then every event in time order.\n"
	"  -C, --cpu LIST  only events recorded on these CPUs (0,2-3)\n"
	"  --from T        only events at or after T (seconds, or +T after the first event)\n"
	"  --to T          only events before T\n"
	"  --probe-map FILE  kprobe events and arguments under other names: lines\n"
	"                  'EVENT = FUNCTION', 'EVENT.FIELD = ARGUMENT' (tlbscope-probes(7))\n"
	"  -j, --jobs N    threads reading a trace.dat (default: the CPUs\n"
	"                  available; 1: no thread started)\n"
	"  --strict        exit 2 when records failed the input's checks (skipped,\n"
	"                  inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help      this text\n";

struct writer {
	struct ts_jsonl_writer *out;	/* the lines (parsers/jsonl-write.c) */
	struct ts_source *src;
	const struct common_opts *o;
	bool *mm_told;		/* mm id -> its "mm" line was printed */
	size_t mm_told_alloc;
	bool header_done;
	bool window_set;	/* @window is known: the first event has been seen */
	bool window_bad;	/* ... and ends before it starts (said): nothing is printed */
	struct tl_filter window;	/* absolute times */
};

/* The mm's name for an event (NULL: none), printing its "mm" line the first time. */
static const char *mm_ref(struct writer *w, struct timeline *tl, uint32_t id, uint64_t ts)
{
	const struct tl_mm *m = timeline_mm(tl, id);

	if (!id || !m)
		return NULL;
	ALLOC_GROW_ZERO(w->mm_told, id + 1, w->mm_told_alloc);
	if (!w->mm_told[id]) {
		w->mm_told[id] = true;
		ts_jsonl_write_mm(w->out, ts, m->name, m->pid, m->comm, m->how);
	}
	return m->name;
}

static void write_event(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct writer *w = ctx;
	const struct common_opts *o = w->o;
	const char *mm = NULL;

	if (o->has_filter && !w->window_set) {
		w->window_set = true;
		w->window_bad = common_filter_window(o, ev->ts, &w->window) < 0;
	}
	if (w->window_bad)
		return;
	if (!w->header_done) {
		ts_jsonl_write_header(w->out);
		w->header_done = true;
	}
	if (o->has_filter) {
		if (ev->ts < w->window.from || ev->ts >= w->window.to)
			return;
		if (o->filter.has_cpus && !ts_cpumask_test(&o->filter.cpus, ev->cpu))
			return;
	}
	/* the mm line must come before the event that names it */
	if (ev->kind == TS_EV_SWITCH && !(ev->flags & TS_F_KTHREAD))
		mm = mm_ref(w, tl, ev->u.sw.mm, ev->ts);
	else if (ev->kind == TS_EV_FLUSH)
		mm = mm_ref(w, tl, ev->u.flush.mm, ev->ts);
	else if (ev->kind == TS_EV_EXIT)
		mm = mm_ref(w, tl, ev->u.exit.mm, ev->ts);
	else if (ev->kind == TS_EV_EXEC)
		mm = mm_ref(w, tl, ev->u.exec.mm, ev->ts);
	else if (ev->kind == TS_EV_LOAD_MM)
		mm = mm_ref(w, tl, ev->u.load.mm, ev->ts);
	ts_jsonl_write_event(w->out, ev, mm);
}

int cmd_events(int argc, char **argv)
{
	static const struct cli_option opts[] = { COMMON_OPTS_FILTER, PROBE_MAP_OPT, STRICT_OPT, JOBS_OPT,
						  { NULL } };
	struct common_opts o = { 0 };
	struct writer w = { 0 };
	struct ts_source *src;
	struct timeline *tl;
	int r;

	r = common_parse(&o, "events", events_usage, opts, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	/* the filter selects lines; the timeline itself sees and resolves everything */
	{
		struct common_opts all = o;
		char err[TS_ERR_LEN];

		all.has_filter = false;
		src = ts_source_open(o.input, err);
		if (!src)
			return error("%s", err);
		if (o.has_filter && common_filter_check(&o, src)) {
			ts_source_close(src);
			return EXIT_BAD;
		}
		w.o = &o;
		w.src = src;
		w.out = ts_jsonl_writer_new(stdout, src);
		r = analyze_run(&all, src, write_event, &w, &tl);
		if (w.window_bad || (!r && o.has_filter &&
				     common_window_misses(&o, &w.window, tl)))
			r = EXIT_BAD;
		/* stdout is the stream: what a probe lacks goes to stderr, once */
		fflush(stdout);
		if (!r)
			probes_print_problems(src, stderr, "tlbscope: warning: ");
	}
	ts_probe_map_free();
	ts_jsonl_writer_free(w.out);
	free(w.mm_told);
	timeline_free(tl);
	ts_source_close(src);
	return r;
}
