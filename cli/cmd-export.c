// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope export [--format chrome]: the trace as the Trace Event Format that
 * ui.perfetto.dev and chrome://tracing open.  One track per CPU ("CPU n"), an "X" slice for
 * every stretch a task ran (process and mm in its args) and for every idle stretch, an
 * instant for every flush request (cat "flush") and every flush IPI (cat "ipi", on the
 * sender's track, with a flow arrow to the target's, ending where the target entered the
 * flush handler when the trace shows it, else at the send; on the target's alone when only
 * the target side is traced), and counters of flush IPIs/s and of the lazy model's
 * deferrals/s.  Timestamps are microseconds after the first event (with --abs, of the
 * trace clock), printed with their nanoseconds; --from/--to/-C select as report's do.
 *
 * Which IPIs are counted is decided on the whole trace (timeline_ipi_source()), so the
 * input is read twice: once to decide, once to write; standard input is first copied to a
 * temporary file.  The IPIs and requests written are those `report` counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "../tuner/tuner.h"
#include "cli.h"
#include "probes.h"

static const char export_usage[] =
	"usage: tlbscope export [--format chrome] [-o FILE] [--abs] [-C LIST] [--from T]\n"
	"                       [--to T] [--interval T] [--threshold T] [--queue Q] TRACE\n"
	"\n"
	"  --format chrome    the Trace Event Format (JSON) of ui.perfetto.dev and\n"
	"                     chrome://tracing (the default, and the one format)\n"
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
	"  --strict           exit 2 when records failed the input's checks (skipped,\n"
	"                     inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help         this text\n";

struct export_opts {
	struct common_opts c;
	const char *output;
	uint64_t interval_ns;
	int T, Q;
	bool abs;
};

/*
 * The flow arrows still waiting for their target to enter the flush handler, per target;
 * past this many the oldest ends at its send, as when the trace has no handler entries.
 */
#define PENDING_MAX	64

struct pending {
	uint64_t id, sent;	/* flow id; ns of the send */
};

/* What is running on a CPU: the slice being built. */
struct run {
	bool open;
	bool seen;		/* the CPU has had an event: @first is its time */
	uint64_t first;
	uint64_t since;
	int32_t pid, tgid;
	uint32_t mm;
	char comm[TS_COMM_LEN];
};

struct exporter {
	const char *name;		/* the input as given ("-" for stdin) */
	FILE *out;
	struct ts_source *src;
	struct tuner *tuner;
	int isrc;			/* timeline_ipi_source() of the first pass */
	uint64_t t0, interval;
	struct run run[TS_MAX_CPUS];
	uint64_t base;			/* ns subtracted from every timestamp written */
	const struct tl_filter *filter;	/* --from/--to (absolute)/-C, NULL none */
	bool entries;			/* the trace shows targets entering the flush handler */
	struct pending *pend[TS_MAX_CPUS];	/* a FIFO of PENDING_MAX per target, made on use */
	uint8_t npend[TS_MAX_CPUS];
	uint64_t flow_id, flows_at_entry;
	uint64_t requests, ipis, slices;
	/* counters: the bucket being filled */
	uint64_t bucket, bucket_ipis, deferred_before;
	bool bucket_open;
};

static void put_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* "ts": microseconds after the first event, exactly (ns as three decimals) */
static void put_ts(FILE *f, const char *key, uint64_t ns)
{
	fprintf(f, "\"%s\":%llu.%03llu", key, (unsigned long long)(ns / 1000),
		(unsigned long long)(ns % 1000));
}

static const char *mm_name(struct timeline *tl, uint32_t mm)
{
	const struct tl_mm *m = mm ? timeline_mm(tl, mm) : NULL;

	return m ? m->name : NULL;
}

static void close_slice(struct exporter *x, struct timeline *tl, int cpu, uint64_t ts)
{
	struct run *r = &x->run[cpu];
	const char *mm = mm_name(tl, r->mm);
	char name[TS_COMM_LEN + 16];

	uint64_t since = r->since;

	if (!r->open)
		return;
	r->open = false;
	/* the part inside --from/--to, on a CPU -C keeps */
	if (x->filter && (x->filter->has_cpus && !ts_cpumask_test(&x->filter->cpus, cpu)))
		return;
	if (x->filter && since < x->filter->from)
		since = x->filter->from;
	if (x->filter && ts > x->filter->to)
		ts = x->filter->to;
	if (ts < since)
		return;
	/* idle is a slice too: a flow arrow to an idle CPU ends on it */
	if (r->pid <= 0) {
		fputs(",\n{\"ph\":\"X\",\"cat\":\"idle\",\"name\":\"idle\"", x->out);
		fprintf(x->out, ",\"pid\":0,\"tid\":%d,", cpu);
		put_ts(x->out, "ts", since - x->base);
		fputc(',', x->out);
		put_ts(x->out, "dur", ts - since);
		fputc('}', x->out);
		x->slices++;
		return;
	}
	snprintf(name, sizeof(name), "%s %d", r->comm, r->pid);
	fputs(",\n{\"ph\":\"X\",\"cat\":\"sched\",\"name\":", x->out);
	put_str(x->out, name);
	fprintf(x->out, ",\"pid\":0,\"tid\":%d,", cpu);
	put_ts(x->out, "ts", since - x->base);
	fputc(',', x->out);
	put_ts(x->out, "dur", ts - since);
	fprintf(x->out, ",\"args\":{\"pid\":%d,\"tgid\":%d,\"mm\":", r->pid, r->tgid);
	if (mm)
		put_str(x->out, mm);
	else
		fputs("null", x->out);
	fputs("}}", x->out);
	x->slices++;
}

static void put_counters(struct exporter *x, uint64_t bucket)
{
	const struct tuner_counts *lazy = tuner_replayed(x->tuner, 0);
	double per_s = 1e9 / (double)x->interval;
	uint64_t ts = bucket * x->interval + x->t0 - x->base;

	fputs(",\n{\"ph\":\"C\",\"name\":\"flush IPIs/s\",\"pid\":0,", x->out);
	put_ts(x->out, "ts", ts);
	fprintf(x->out, ",\"args\":{\"ipis\":%.0f}}", x->bucket_ipis * per_s);
	fputs(",\n{\"ph\":\"C\",\"name\":\"lazy deferrals/s\",\"pid\":0,", x->out);
	put_ts(x->out, "ts", ts);
	fprintf(x->out, ",\"args\":{\"deferrals\":%.0f}}",
		(lazy->deferred - x->deferred_before) * per_s);
	x->bucket_ipis = 0;
	x->deferred_before = lazy->deferred;
}

/* Close the counter buckets before @ts's. */
static void advance(struct exporter *x, uint64_t ts)
{
	uint64_t b = (ts - x->t0) / x->interval;

	if (!x->bucket_open) {
		x->bucket = b;
		x->bucket_open = true;
		return;
	}
	if (x->bucket >= b)
		return;
	put_counters(x, x->bucket);
	/* a quiet stretch: one zero point after the last bucket, then on to @ts's */
	if (x->bucket + 1 < b)
		put_counters(x, x->bucket + 1);
	x->bucket = b;
}

/* Flow @id's end on @cpu's track at @ts, bound to the slice there (running or idle). */
static void flow_end(struct exporter *x, uint64_t id, int cpu, uint64_t ts)
{
	fprintf(x->out, ",\n{\"ph\":\"f\",\"bp\":\"e\",\"cat\":\"ipi\",\"name\":\"flush IPI\","
		"\"id\":%llu,\"pid\":0,\"tid\":%d,", (unsigned long long)id, cpu);
	put_ts(x->out, "ts", ts - x->base);
	fputc('}', x->out);
}

static void put_ipi(struct exporter *x, struct timeline *tl, int from, int to, uint64_t ts,
		    uint32_t mm)
{
	const char *name = mm_name(tl, mm);
	uint64_t rel = ts - x->base;

	x->ipis++;
	x->bucket_ipis++;
	fprintf(x->out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"ipi\",\"name\":\"flush IPI\","
		"\"pid\":0,\"tid\":%d,", from >= 0 ? from : to);
	put_ts(x->out, "ts", rel);
	fprintf(x->out, ",\"args\":{\"from\":");
	if (from >= 0)
		fprintf(x->out, "%d", from);
	else
		fputs("null", x->out);
	fprintf(x->out, ",\"to\":%d,\"mm\":", to);
	if (name)
		put_str(x->out, name);
	else
		fputs("null", x->out);
	fputs("}}", x->out);
	if (from < 0 || from == to)
		return;
	x->flow_id++;
	fprintf(x->out, ",\n{\"ph\":\"s\",\"cat\":\"ipi\",\"name\":\"flush IPI\",\"id\":%llu,"
		"\"pid\":0,\"tid\":%d,", (unsigned long long)x->flow_id, from);
	put_ts(x->out, "ts", rel);
	fputc('}', x->out);
	if (!x->entries) {
		flow_end(x, x->flow_id, to, ts);
		return;
	}
	if (!x->pend[to])
		x->pend[to] = xcalloc(PENDING_MAX, sizeof(*x->pend[to]));
	if (x->npend[to] == PENDING_MAX) {	/* the oldest never met its handler */
		flow_end(x, x->pend[to][0].id, to, x->pend[to][0].sent);
		memmove(x->pend[to], x->pend[to] + 1, (PENDING_MAX - 1) * sizeof(*x->pend[to]));
		x->npend[to]--;
	}
	x->pend[to][x->npend[to]++] = (struct pending){ x->flow_id, ts };
}

/* The target @cpu entered a flush handler at @ts: the oldest arrow to it ends there. */
static void handler_entry(struct exporter *x, int cpu, uint64_t ts)
{
	if (!x->npend[cpu])
		return;
	flow_end(x, x->pend[cpu][0].id, cpu, ts);
	x->flows_at_entry++;
	memmove(x->pend[cpu], x->pend[cpu] + 1, (x->npend[cpu] - 1) * sizeof(*x->pend[cpu]));
	x->npend[cpu]--;
}

static void put_request(struct exporter *x, struct timeline *tl, const struct ts_event *ev)
{
	const char *name = mm_name(tl, ev->u.flush.mm);

	x->requests++;
	fprintf(x->out, ",\n{\"ph\":\"i\",\"s\":\"t\",\"cat\":\"flush\",\"name\":\"flush request\","
		"\"pid\":0,\"tid\":%d,", ev->cpu);
	put_ts(x->out, "ts", ev->ts - x->base);
	fputs(",\"args\":{\"mm\":", x->out);
	if (name)
		put_str(x->out, name);
	else
		fputs("null", x->out);
	fputs(",\"scope\":", x->out);
	put_str(x->out, ts_scope_name(ev->u.flush.scope));
	if (ev->u.flush.scope == TS_SCOPE_RANGE && ev->u.flush.pages)
		fprintf(x->out, ",\"pages\":%llu", (unsigned long long)ev->u.flush.pages);
	fputs(",\"event\":", x->out);
	put_str(x->out, ts_source_str(x->src, ev->probe ? ev->probe : ev->name));
	fputs("}}", x->out);
}

/* One flush IPI of the source the trace counts (timeline_flush_ipis_each()). */
static void export_ipi(void *ctx, struct timeline *tl, int src, int from, int to, uint64_t ts)
{
	struct exporter *x = ctx;

	/* in the window and to a CPU of -C: the IPIs report counts (received, by target) */
	if (src == x->isrc && timeline_counted(tl, to, ts))
		put_ipi(x, tl, from, to, ts, from >= 0 ? tuner_active(x->tuner, from) : 0);
}

/* A CPU entering a TLB-flush handler for another CPU's request (csd_function_entry). */
static bool handler_entered(const struct ts_event *ev)
{
	return ev->kind == TS_EV_IPI && (ev->flags & TS_F_RECV) && (ev->flags & TS_F_TLB) &&
	       !(ev->flags & TS_F_LOCAL);
}

/* The first pass: does the trace show handler entries (then arrows end there)? */
static void count_entries(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	if (handler_entered(ev))
		++*(uint64_t *)ctx;
}

static void export_emit(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct exporter *x = ctx;

	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS || ev->ts < x->t0)
		return;
	advance(x, ev->ts);
	tuner_feed(x->tuner, tl, ev);
	if (!x->run[ev->cpu].seen) {
		x->run[ev->cpu].seen = true;
		x->run[ev->cpu].first = ev->ts;
	}
	switch (ev->kind) {
	case TS_EV_SWITCH:
		/* before a CPU's first switch its prev ran, from the CPU's first event on */
		if (!x->run[ev->cpu].open) {
			struct run *r = &x->run[ev->cpu];

			*r = (struct run){ .open = true, .seen = true, .since = r->first,
					   .pid = ev->u.sw.prev_pid, .tgid = -1 };
			memcpy(r->comm, ev->u.sw.prev_comm, TS_COMM_LEN);
		}
		close_slice(x, tl, ev->cpu, ev->ts);
		x->run[ev->cpu] = (struct run){
			.open = true, .seen = true, .since = ev->ts, .pid = ev->u.sw.next_pid,
			.tgid = ev->u.sw.next_tgid,
			.mm = ev->flags & TS_F_KTHREAD ? 0 : ev->u.sw.mm,
		};
		memcpy(x->run[ev->cpu].comm, ev->u.sw.next_comm, TS_COMM_LEN);
		break;
	case TS_EV_FLUSH:
		if (ev->u.flush.role == TS_FLUSH_REQUEST && timeline_counted(tl, ev->cpu, ev->ts))
			put_request(x, tl, ev);
		timeline_flush_ipis_each(ev, tl, export_ipi, x);
		break;
	case TS_EV_IPI:
		timeline_flush_ipis_each(ev, tl, export_ipi, x);
		if (x->entries && handler_entered(ev))
			handler_entry(x, ev->cpu, ev->ts);
		break;
	default:
		break;
	}
}

static int export_parse(struct export_opts *o, int argc, char **argv)
{
	enum { OPT_FORMAT = OPT_COMMON_END, OPT_INTERVAL, OPT_THRESHOLD, OPT_QUEUE, OPT_ABS };
	static const struct cli_option opts[] = {
		{ "format", OPT_FORMAT, true }, { "output", 'o', true }, COMMON_OPTS_FILTER,
		{ "abs", OPT_ABS, false },
		{ "interval", OPT_INTERVAL, true }, { "threshold", OPT_THRESHOLD, true },
		{ "queue", OPT_QUEUE, true }, PROBE_MAP_OPT, STRICT_OPT, { NULL }
	};
	struct cli_parser p;
	const char *v, *format = NULL;
	int key;

	memset(o, 0, sizeof(*o));
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
			format = v;
			break;
		case 'o':
			o->output = v;
			break;
		case OPT_ABS:
			o->abs = true;
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
	if (format && strcmp(format, "chrome"))
		return error("export: --format chrome is the one format (%s given)\n%s", format,
			     export_usage), -1;
	if (!o->c.input)
		return error("export: no trace given\n%s", export_usage), -1;
	return 0;
}

static int export_run(struct exporter *x, const struct export_opts *o, int ncpus)
{
	const int T[1] = { o->T }, Q[1] = { o->Q }, point[1][2] = { { o->T, o->Q } };
	struct tuner_opts to = {
		.thresholds = T, .nthresholds = 1, .queues = Q, .nqueues = 1,
		.flush_all_threshold = FLUSH_ALL_DEFAULT, .ncpus = ncpus > 0 ? ncpus : 1,
		.replay = point, .nreplay = 1,
	};
	struct timeline *tl = NULL;
	struct platform pf;
	char err[TS_ERR_LEN];
	int r;

	if (platform_load(NULL, &pf, err))
		return error("%s", err);
	to.tlb_reach_mms = platform_reach_mms(&pf);
	x->tuner = tuner_new(&to);
	fprintf(x->out, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"trace\":");
	put_str(x->out, x->name);
	fprintf(x->out, ",\"format\":");
	put_str(x->out, ts_source_info(x->src)->format);
	fprintf(x->out, ",\"flush_ipi_source\":");
	if (x->isrc >= 0)
		put_str(x->out, timeline_ipi_source_name(x->isrc));
	else
		fputs("null", x->out);
	fprintf(x->out, ",\"first_ts_ns\":%llu,\"ts_offset_ns\":%llu,\"flow_end\":\"%s\","
		"\"lazy_model\":{\"T\":%d,\"Q\":%d}},\n"
		"\"traceEvents\":[\n{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,"
		"\"args\":{\"name\":\"CPUs\"}}", (unsigned long long)x->t0,
		(unsigned long long)x->base, x->entries ? "handler_entry" : "send", o->T, o->Q);
	for (int c = 0; c < ncpus; c++)
		fprintf(x->out, ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,"
			"\"args\":{\"name\":\"CPU %d\"}},\n{\"ph\":\"M\",\"name\":"
			"\"thread_sort_index\",\"pid\":0,\"tid\":%d,\"args\":{\"sort_index\":%d}}",
			c, c, c, c);
	r = analyze_run(&o->c, x->src, export_emit, x, &tl);
	if (!r) {
		uint64_t end = timeline_last_ts(tl);

		tuner_finish(x->tuner);
		for (int c = 0; c < TS_MAX_CPUS; c++) {
			close_slice(x, tl, c, end);
			/* arrows whose handler entry the trace does not have end at their send */
			for (int i = 0; i < x->npend[c]; i++)
				flow_end(x, x->pend[c][i].id, c, x->pend[c][i].sent);
			free(x->pend[c]);
		}
		if (x->bucket_open)
			put_counters(x, x->bucket);
		fputs("\n]}\n", x->out);
	}
	timeline_free(tl);
	tuner_free(x->tuner);
	return r;
}

int cmd_export(int argc, char **argv)
{
	struct exporter x = { 0 };
	struct export_opts o;
	struct ts_source *src = NULL;
	struct timeline *tl = NULL;
	char spool[PATH_MAX], err[TS_ERR_LEN];
	uint64_t entries = 0;
	struct tl_filter window;
	int r, fd = -1, ncpus;

	r = export_parse(&o, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	x.name = o.c.input;
	if (!strcmp(o.c.input, "-")) {
		if (spool_stdin("export", spool, sizeof(spool), &fd))
			return EXIT_BAD;
		o.c.input = spool;
		o.c.display = "-";
	}
	/* first pass: which IPI evidence the trace counts, where it starts, handler entries */
	r = analyze(&o.c, count_entries, &entries, &src, &tl);
	if (r)
		goto out;
	x.isrc = timeline_ipi_source(tl);
	x.t0 = timeline_first_ts(tl);
	x.base = o.abs ? 0 : x.t0;
	x.entries = entries > 0;
	if (o.c.has_filter) {
		if (common_filter_window(&o.c, x.t0, &window)) {
			r = EXIT_BAD;
			goto out;
		}
		x.filter = &window;
	}
	ncpus = timeline_cpus(tl);
	if (ts_source_info(src)->cpus > ncpus)
		ncpus = ts_source_info(src)->cpus;
	timeline_free(tl);
	tl = NULL;
	ts_source_close(src);
	src = NULL;
	x.interval = o.interval_ns;
	x.out = o.output ? fopen(o.output, "we") : stdout;
	if (!x.out) {
		r = error("export: %s: %s", o.output, strerror(errno));
		goto out;
	}
	o.c.checks_said = true;		/* the first pass said what the input's checks found */
	x.src = ts_source_open(o.c.input, err);		/* second pass: the export */
	if (!x.src) {
		r = error("%s", err);
		goto out;
	}
	r = export_run(&x, &o, ncpus);
	if (!r)
		fprintf(stderr, "tlbscope: export: %llu slices, %llu flush requests, %llu flush IPIs "
			"(%s)\n", (unsigned long long)x.slices, (unsigned long long)x.requests,
			(unsigned long long)x.ipis,
			x.isrc >= 0 ? timeline_ipi_source_name(x.isrc) : "no IPI evidence");
out:
	ts_source_close(x.src);
	if (x.out && x.out != stdout && fclose(x.out) && !r)
		r = error("export: %s: %s", o.output, strerror(errno));
	if (fd >= 0)
		close(fd);
	ts_probe_map_free();
	return r;
}
