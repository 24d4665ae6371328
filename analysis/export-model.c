// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model behind `tlbscope export`: the timeline's events as things a trace viewer draws
 * (struct export_draw, analysis.h).  Per CPU the slice of what runs, flush requests and the
 * flush IPIs report counts, a flow from each IPI's sender to where its target entered the
 * flush handler (else to the send), and per bucket the IPIs/s and the lazy model's
 * deferrals/s.  The first pass (export_scan_ops) decides what the whole trace shows, or
 * guesses it from the trace's beginning: the drawing then checks the guess held.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "../tuner/tuner.h"
#include "export.h"

/* ---- the first pass ---- */

struct scan {
	struct export_scan r;
	uint64_t entries;
	int src_cpus;		/* the input's own count of CPUs */
	struct ts_source *src;	/* borrowed: narrowed (struct export_scan_opts) */
	bool narrow;
};

/* A CPU entering a TLB-flush handler for another CPU's request (csd_function_entry). */
static bool handler_entered(const struct ts_event *ev)
{
	return ev->kind == TS_EV_IPI && (ev->flags & TS_F_RECV) && (ev->flags & TS_F_TLB) &&
	       !(ev->flags & TS_F_LOCAL);
}

static void *scan_new(struct ts_source *src, const void *opts)
{
	const struct export_scan_opts *o = opts;
	struct scan *s = xcalloc(1, sizeof(*s));

	s->src_cpus = ts_source_info(src)->cpus;
	s->src = src;
	s->narrow = o && o->narrow;
	return s;
}

static uint64_t received(const struct timeline *tl, int src)
{
	uint64_t n = 0;

	for (int c = 0; c < timeline_cpus(tl); c++)
		n += timeline_cpu(tl, c)->ipis_received[src];
	return n;
}

/*
 * The flush requests can no longer change the IPI evidence timeline_ipi_source() decides:
 * it has counted a cross-call or an IPI that names a flush, which outranks the targets'
 * tlb_flush, or one of those (only whether there is one counts).
 */
static bool requests_moot(const struct timeline *tl)
{
	static const enum ts_evsrc above[] = {
		TS_SRC_CSD_QUEUE, TS_SRC_CSD_ENTRY, TS_SRC_SBI, TS_SRC_IPI_CPU, TS_SRC_IPI_MASK,
	};

	for (size_t i = 0; i < sizeof(above) / sizeof(above[0]); i++)
		if (timeline_evidence(tl, above[i], true))
			return true;
	return received(tl, TL_IPI_TLB_FLUSH) > 0;
}

static void scan_feed(void *state, struct timeline *tl, const struct ts_event *ev)
{
	struct scan *s = state;

	if (handler_entered(ev))
		s->entries++;
	if (s->narrow && (ev->kind == TS_EV_IPI || ev->kind == TS_EV_FLUSH) &&
	    requests_moot(tl)) {
		ts_source_only(s->src, 1u << TS_EV_IPI | TS_ONLY_FLUSH_IPIS);
		s->narrow = false;
	}
}

/* What the trace read into @tl shows: @entries handler entries, @src_cpus CPUs in its input */
static struct export_scan scan_of(const struct timeline *tl, uint64_t entries, int src_cpus)
{
	struct export_scan r = {
		.ipi_source = timeline_ipi_source(tl), .first_ts = timeline_first_ts(tl),
		.entries = entries > 0, .ncpus = timeline_cpus(tl),
	};

	if (src_cpus > r.ncpus)
		r.ncpus = src_cpus;
	return r;
}

static void scan_finish(void *state, struct timeline *tl)
{
	struct scan *s = state;

	s->r = scan_of(tl, s->entries, s->src_cpus);
}

bool export_scan_enough(void *state, const struct timeline *tl, uint64_t n)
{
	const struct scan *s = state;
	int src = timeline_ipi_source(tl);
	uint64_t q, e;

	if (src < 0 || !(s->entries > 0 || n >= EXPORT_GUESS_MAX))
		return n >= EXPORT_GUESS_MAX;
	if (src != TL_IPI_CSD_QUEUE && src != TL_IPI_CSD_ENTRY)
		return received(tl, src) >= EXPORT_GUESS_IPIS || n >= EXPORT_GUESS_MAX;
	/*
	 * csd_queue_cpu is counted when it has 99 % of the targets' entries: x86 traces it
	 * for single-CPU calls only, so there the choice turns on the whole trace's mix of
	 * calls.  Guessed only when the beginning is far from that line: the whole trace is
	 * read first otherwise.
	 */
	q = received(tl, TL_IPI_CSD_QUEUE);
	e = received(tl, TL_IPI_CSD_ENTRY);
	if (e < EXPORT_GUESS_IPIS / 64)
		return false;
	return q * 1000 >= e * 999 || q * 100 < e * 95;
}

void export_scan_get(const void *state, struct export_scan *out)
{
	*out = ((const struct scan *)state)->r;
}

const struct analysis_ops export_scan_ops = {
	.name = "export-scan", .new = scan_new, .feed = scan_feed, .finish = scan_finish,
	.free = free,
};

/* ---- the second pass ---- */

/*
 * The flow arrows still waiting for their target to enter the flush handler, per target;
 * past this many the oldest ends at its send, as when the trace has no handler entries.
 */
#define PENDING_MAX	64

struct pending {
	uint64_t id, sent;	/* flow id; ns of the send (trace clock) */
};

/* What is running on a CPU: the slice being built.  Times: ns, trace clock. */
struct run {
	bool open;
	bool seen;		/* the CPU has had an event: @first is its time */
	uint64_t first;
	uint64_t since;
	int32_t pid, tgid;
	uint32_t mm;
	char comm[TS_COMM_LEN];
};

struct model {
	struct export_model_opts o;
	struct ts_source *src;		/* borrowed: event names */
	/* what the whole trace showed, against the o.scan it was drawn with */
	uint64_t entries;
	struct export_scan seen;
	struct tuner *tuner;
	struct run run[TS_MAX_CPUS];
	struct pending *pend[TS_MAX_CPUS];	/* a FIFO of PENDING_MAX per target, made on use */
	uint8_t npend[TS_MAX_CPUS];
	uint64_t flow_id;
	struct export_counts n;
	/* counters: the bucket being filled */
	uint64_t bucket, bucket_ipis, deferred_before;
	uint64_t bucket_end;		/* ns, trace clock: the bucket's end (first_ts + ...) */
	bool bucket_open;
};

static void draw(struct model *m, const struct export_draw *d)
{
	m->o.sink.draw(m->o.sink.ctx, d);
}

static const char *mm_name(struct timeline *tl, uint32_t mm)
{
	const struct tl_mm *t = mm ? timeline_mm(tl, mm) : NULL;

	return t ? t->name : NULL;
}

static void close_slice(struct model *m, struct timeline *tl, int cpu, uint64_t ts)
{
	const struct tl_filter *f = m->o.filter;
	struct run *r = &m->run[cpu];
	uint64_t since = r->since;
	struct export_draw d = { .what = EXPORT_SLICE, .cpu = cpu };

	if (!r->open)
		return;
	r->open = false;
	/* the part inside --from/--to, on a CPU -C keeps */
	if (f && f->has_cpus && !ts_cpumask_test(&f->cpus, cpu))
		return;
	if (f && since < f->from)
		since = f->from;
	if (f && ts > f->to)
		ts = f->to;
	if (ts < since)
		return;
	d.ts = since - m->o.base;
	d.u.slice.end = ts - m->o.base;
	/* idle is a slice too: a flow arrow to an idle CPU ends on it */
	d.u.slice.idle = r->pid <= 0;
	d.u.slice.pid = r->pid;
	d.u.slice.tgid = r->tgid;
	memcpy(d.u.slice.comm, r->comm, TS_COMM_LEN);
	d.u.slice.mm = mm_name(tl, r->mm);
	m->n.slices++;
	draw(m, &d);
}

static void put_counters(struct model *m, uint64_t bucket)
{
	const struct tuner_counts *lazy = tuner_replayed(m->tuner, 0);
	double per_s = 1e9 / (double)m->o.interval;
	struct export_draw d = {
		.what = EXPORT_COUNTER, .cpu = -1,
		.ts = bucket * m->o.interval + m->o.scan.first_ts - m->o.base,
	};

	d.u.counter.which = EXPORT_IPIS_PER_S;
	d.u.counter.per_s = m->bucket_ipis * per_s;
	draw(m, &d);
	d.u.counter.which = EXPORT_DEFERRALS_PER_S;
	d.u.counter.per_s = (lazy->deferred - m->deferred_before) * per_s;
	draw(m, &d);
	m->bucket_ipis = 0;
	m->deferred_before = lazy->deferred;
}

/* Close the counter buckets before @ts's. */
static void advance(struct model *m, uint64_t ts)
{
	uint64_t b, first = m->o.scan.first_ts, every = m->o.interval;

	if (m->bucket_open && ts < m->bucket_end)	/* most events: no division */
		return;
	b = (ts - first) / every;
	/* where bucket @b ends (saturated: a clock near its end) */
	m->bucket_end = b + 1 > (UINT64_MAX - first) / every ? UINT64_MAX :
			first + (b + 1) * every;
	if (!m->bucket_open) {
		m->bucket = b;
		m->bucket_open = true;
		return;
	}
	if (m->bucket >= b)
		return;
	put_counters(m, m->bucket);
	/* a quiet stretch: one zero point after the last bucket, then on to @ts's */
	if (m->bucket + 1 < b)
		put_counters(m, m->bucket + 1);
	m->bucket = b;
}

/* Flow @id's end on @cpu's track at @ts (trace clock). */
static void flow_end(struct model *m, uint64_t id, int cpu, uint64_t ts, bool at_entry)
{
	struct export_draw d = { .what = EXPORT_FLOW_END, .cpu = cpu, .ts = ts - m->o.base };

	d.u.flow_end.id = id;
	d.u.flow_end.at_entry = at_entry;
	if (at_entry)
		m->n.flows_at_entry++;
	draw(m, &d);
}

static void put_ipi(struct model *m, struct timeline *tl, int from, int to, uint64_t ts,
		    uint32_t mm)
{
	struct export_draw d = { .what = EXPORT_IPI, .cpu = from >= 0 ? from : to,
				 .ts = ts - m->o.base };

	m->n.ipis++;
	m->bucket_ipis++;
	d.u.ipi.from = from;
	d.u.ipi.to = to;
	d.u.ipi.mm = mm_name(tl, mm);
	if (from >= 0 && from != to) {
		d.u.ipi.flow = ++m->flow_id;
		m->n.flows++;
	}
	draw(m, &d);
	if (!d.u.ipi.flow)
		return;
	if (!m->o.scan.entries) {
		flow_end(m, m->flow_id, to, ts, false);
		return;
	}
	if (!m->pend[to])
		m->pend[to] = xcalloc(PENDING_MAX, sizeof(*m->pend[to]));
	if (m->npend[to] == PENDING_MAX) {	/* the oldest never met its handler */
		flow_end(m, m->pend[to][0].id, to, m->pend[to][0].sent, false);
		memmove(m->pend[to], m->pend[to] + 1, (PENDING_MAX - 1) * sizeof(*m->pend[to]));
		m->npend[to]--;
	}
	m->pend[to][m->npend[to]++] = (struct pending){ m->flow_id, ts };
}

/* The target @cpu entered a flush handler at @ts: the oldest arrow to it ends there. */
static void handler_entry(struct model *m, int cpu, uint64_t ts)
{
	if (!m->npend[cpu])
		return;
	flow_end(m, m->pend[cpu][0].id, cpu, ts, true);
	memmove(m->pend[cpu], m->pend[cpu] + 1, (m->npend[cpu] - 1) * sizeof(*m->pend[cpu]));
	m->npend[cpu]--;
}

static void put_request(struct model *m, struct timeline *tl, const struct ts_event *ev)
{
	struct export_draw d = { .what = EXPORT_REQUEST, .cpu = ev->cpu,
				 .ts = ev->ts - m->o.base };

	m->n.requests++;
	d.u.request.mm = mm_name(tl, ev->u.flush.mm);
	d.u.request.scope = ts_scope_name(ev->u.flush.scope);
	if (ev->u.flush.scope == TS_SCOPE_RANGE)
		d.u.request.pages = ev->u.flush.pages;
	d.u.request.event = ts_source_str(m->src, ev->probe ? ev->probe : ev->name);
	draw(m, &d);
}

/* One flush IPI of the source the trace counts (timeline_flush_ipis_each()). */
static void model_ipi(void *ctx, struct timeline *tl, int src, int from, int to, uint64_t ts)
{
	struct model *m = ctx;

	/* in the window and to a CPU of -C: the IPIs report counts (received, by target) */
	if (src == m->o.scan.ipi_source && timeline_counted(tl, to, ts))
		put_ipi(m, tl, from, to, ts, from >= 0 ? tuner_active(m->tuner, from) : 0);
}

static void *model_new(struct ts_source *src, const void *opts)
{
	const struct export_model_opts *o = opts;
	struct model *m = xcalloc(1, sizeof(*m));
	const int T[1] = { o->T }, Q[1] = { o->Q }, point[1][2] = { { o->T, o->Q } };
	struct tuner_opts to = {
		.thresholds = T, .nthresholds = 1, .queues = Q, .nqueues = 1,
		.flush_all_threshold = FLUSH_ALL_DEFAULT,
		.ncpus = o->scan.ncpus > 0 ? o->scan.ncpus : 1,
		.replay = point, .nreplay = 1, .tlb_reach_mms = o->tlb_reach_mms,
		/* the deferrals of one point and the CPUs' active mms are all it draws */
		.replay_only = true, .models_off = true,
	};

	m->o = *o;
	m->src = src;
	m->seen.ncpus = ts_source_info(src)->cpus;	/* the input's count, until finish */
	m->tuner = tuner_new(&to);
	return m;
}

static void model_feed(void *state, struct timeline *tl, const struct ts_event *ev)
{
	struct model *m = state;
	struct run *r;

	if (handler_entered(ev))	/* counted as the scan counts them */
		m->entries++;
	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS || ev->ts < m->o.scan.first_ts)
		return;
	advance(m, ev->ts);
	tuner_feed(m->tuner, tl, ev);
	r = &m->run[ev->cpu];
	if (!r->seen) {
		r->seen = true;
		r->first = ev->ts;
	}
	switch (ev->kind) {
	case TS_EV_SWITCH:
		/* before a CPU's first switch its prev ran, from the CPU's first event on */
		if (!r->open) {
			*r = (struct run){ .open = true, .seen = true, .since = r->first,
					   .pid = ev->u.sw.prev_pid, .tgid = -1 };
			memcpy(r->comm, ev->u.sw.prev_comm, TS_COMM_LEN);
		}
		close_slice(m, tl, ev->cpu, ev->ts);
		*r = (struct run){
			.open = true, .seen = true, .since = ev->ts, .pid = ev->u.sw.next_pid,
			.tgid = ev->u.sw.next_tgid,
			.mm = ev->flags & TS_F_KTHREAD ? 0 : ev->u.sw.mm,
		};
		memcpy(r->comm, ev->u.sw.next_comm, TS_COMM_LEN);
		break;
	case TS_EV_FLUSH:
		if (ev->u.flush.role == TS_FLUSH_REQUEST && timeline_counted(tl, ev->cpu, ev->ts))
			put_request(m, tl, ev);
		timeline_flush_ipis_each(ev, tl, model_ipi, m);
		break;
	case TS_EV_IPI:
		timeline_flush_ipis_each(ev, tl, model_ipi, m);
		if (m->o.scan.entries && handler_entered(ev))
			handler_entry(m, ev->cpu, ev->ts);
		break;
	default:
		break;
	}
}

/* End of the trace: what still runs ends at the last event; arrows without an entry end
 * at their send; the last bucket's counters. */
static void model_finish(void *state, struct timeline *tl)
{
	struct model *m = state;
	uint64_t end = timeline_last_ts(tl);

	tuner_finish(m->tuner);
	m->seen = scan_of(tl, m->entries, m->seen.ncpus);
	for (int c = 0; c < TS_MAX_CPUS; c++) {
		close_slice(m, tl, c, end);
		for (int i = 0; i < m->npend[c]; i++)
			flow_end(m, m->pend[c][i].id, c, m->pend[c][i].sent, false);
		m->npend[c] = 0;
	}
	if (m->bucket_open)
		put_counters(m, m->bucket);
	m->bucket_open = false;
}

static void model_free(void *state)
{
	struct model *m = state;

	if (!m)
		return;
	for (int c = 0; c < TS_MAX_CPUS; c++)
		free(m->pend[c]);
	tuner_free(m->tuner);
	free(m);
}

void export_model_counts(const void *state, struct export_counts *out)
{
	*out = ((const struct model *)state)->n;
}

bool export_model_scan_held(const void *state, struct export_scan *seen)
{
	const struct model *m = state;

	*seen = m->seen;
	return m->seen.ipi_source == m->o.scan.ipi_source && m->seen.entries == m->o.scan.entries &&
	       m->seen.first_ts == m->o.scan.first_ts && m->seen.ncpus == m->o.scan.ncpus;
}

const struct analysis_ops export_model_ops = {
	.name = "export", .new = model_new, .feed = model_feed, .finish = model_finish,
	.free = model_free,
};
