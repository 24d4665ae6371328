// SPDX-License-Identifier: GPL-2.0-only
/*
 * The model behind `tlbscope top`: a consumer of the resolved stream that feeds the tuner
 * (the same models as `tune`, incrementally) and keeps what the screen shows per CPU: the
 * current task and rates per tick.  The lazy(T, Q) tables shown per CPU are the tuner's
 * direct replay of that one point (tuner/replay.c), the same as `tune --direct T,Q`.
 * With top_model_recycle() the ids of ended mms go to new ones, so the model's tables are
 * as many as the address spaces that live, and the rows of ended ones that may still be
 * shown are kept aside.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "top-int.h"


static void cpus_reserve(struct top_model *m, int n)
{
	if (n <= m->ncpus)
		return;
	m->cpu = xrealloc(m->cpu, n * sizeof(*m->cpu));
	memset(m->cpu + m->ncpus, 0, (n - m->ncpus) * sizeof(*m->cpu));
	for (int c = m->ncpus; c < n; c++)
		m->cpu[c].pid = -1;
	m->ncpus = n;
}

static struct top_mm *mm_of(struct top_model *m, uint32_t id)
{
	ALLOC_GROW_ZERO(m->mm, id + 1, m->nmm);
	return &m->mm[id];
}

struct top_model *top_model_new(int T, int Q, int ncpus, const struct platform *pf)
{
	struct top_model *m = xcalloc(1, sizeof(*m));
	const int point[1][2] = { { T, Q } };
	struct tuner_opts to = {
		.thresholds = tuner_default_T, .nthresholds = TUNER_DEFAULT_NT,
		.queues = tuner_default_Q, .nqueues = TUNER_DEFAULT_NQ,
		.flush_all_threshold = FLUSH_ALL_DEFAULT, .ncpus = ncpus > 0 ? ncpus : 1,
		.replay = point, .nreplay = 1,
	};

	m->T = T;
	m->Q = Q;
	m->pf = *pf;
	to.tlb_reach_mms = platform_reach_mms(pf);
	m->grid_T = (int *)tuner_default_T;
	m->ngrid_T = to.nthresholds;
	m->grid_Q = (int *)tuner_default_Q;
	m->ngrid_Q = to.nqueues;
	m->tu = tuner_new(&to);
	m->meas = tuner_measure_new();
	tuner_lazy_kernel_reset(&m->lk);
	cpus_reserve(m, ncpus > 0 ? ncpus : 1);
	return m;
}

void top_model_finish(struct top_model *m)
{
	tuner_finish(m->tu);
}

void top_model_free(struct top_model *m)
{
	if (!m)
		return;
	free(m->cpu);
	free(m->mm);
	tuner_free(m->tu);
	tuner_measure_free(m->meas);
	free(m->look);
	tuner_lazy_kernel_reset(&m->lk);
	free(m->lk_probe);
	free(m);
}

/*
 * The per-mm IPI account of a request under each mask, after the tuner replayed it: stock
 * interrupts every CPU that ever ran the mm, lazy those running it and defers for those
 * holding it in their table.
 */
static void mm_request(struct top_model *m, struct timeline *tl, const struct ts_event *ev)
{
	uint32_t id = ev->u.flush.mm;
	uint8_t scope = ev->u.flush.scope;
	const struct tl_mm *tm;
	struct top_mm *mm;

	if (!id || (scope != TS_SCOPE_RANGE && scope != TS_SCOPE_MM))
		return;
	mm = mm_of(m, id);
	mm->requests++;
	tm = timeline_mm(tl, id);
	if (tm)
		mm->stock_ipis += ts_cpumask_weight(&tm->ran_on) -
				  ts_cpumask_test(&tm->ran_on, ev->cpu);
	for (int t = 0; t < m->ncpus; t++) {
		if (t == ev->cpu || !tuner_replayed_holds(m->tu, 0, t, id))
			continue;
		if (tuner_active(m->tu, t) == id)
			mm->lazy_ipis++;
		else
			mm->deferred++;
	}
}

/*
 * Whether the lazy kernel's tally reads an event of kind OTHER whose probe or name is
 * string @id: with every other name (a csd_function_exit, most kprobes) it does nothing.
 * Known by the id once asked.
 */
static bool lk_reads(struct top_model *m, struct timeline *tl, uint32_t id)
{
	uint8_t *reads = id_byte(&m->lk_probe, &m->nlk_probe, id);

	if (!*reads)
		*reads = tuner_lazy_kernel_reads(timeline_str(tl, id)) ? 1 : 2;
	return *reads == 1;
}

void top_model_feed(void *model, struct timeline *tl, const struct ts_event *ev)
{
	struct top_model *m = model;
	uint32_t named = ev->probe ? ev->probe : ev->name;
	struct top_cpu *c;

	/*
	 * what tune measures: flush IPIs, csd_function_exit (of kind OTHER), and the clock's
	 * tick from every event's time until it is known to be 1 ns (tuner_measure_tick())
	 */
	if (ev->kind == TS_EV_IPI || ev->kind == TS_EV_OTHER || m->meas_tick != 1) {
		tuner_measure_feed(m->meas, ev, ev->kind == TS_EV_OTHER && ev->name ?
				   timeline_str(tl, ev->name) : NULL);
		m->meas_tick = tuner_measure_tick(m->meas);
	}
	tuner_feed(m->tu, tl, ev);
	if (ev->kind == TS_EV_LOAD_MM)
		tuner_lazy_kernel_feed(&m->lk, ev, NULL, true);
	else if (ev->kind == TS_EV_OTHER && named && lk_reads(m, tl, named))
		tuner_lazy_kernel_feed(&m->lk, ev, timeline_str(tl, named), true);
	m->lazy_kernel |= timeline_lazy_kernel(tl);
	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	cpus_reserve(m, ev->cpu + 1);
	if (!m->first_ts)
		m->first_ts = m->tick_ts = ev->ts;
	if (ev->ts > m->last_ts)
		m->last_ts = ev->ts;
	c = &m->cpu[ev->cpu];
	c->seen = true;
	switch (ev->kind) {
	case TS_EV_SWITCH:
		c->pid = ev->u.sw.next_pid;
		/* strlcpy_ts() as whole arrays, the last byte the end */
		memcpy(c->comm, ev->u.sw.next_comm, sizeof(c->comm));
		c->comm[sizeof(c->comm) - 1] = '\0';
		c->mm = ev->flags & TS_F_KTHREAD ? 0 : ev->u.sw.mm;
		if (c->mm != c->active && c->mm) {
			c->strip[c->nstrip++ % TOP_STRIP] = c->mm;
		} else if (!c->mm && (!c->nstrip || c->strip[(c->nstrip - 1) % TOP_STRIP])) {
			c->strip[c->nstrip++ % TOP_STRIP] = 0;
		}
		if (c->mm)
			c->active = c->mm;
		m->switches_fed++;
		break;
	case TS_EV_EXEC:
		c->mm = ev->u.exec.mm;
		if (c->mm)
			c->active = c->mm;
		break;
	case TS_EV_FLUSH:
		if (ev->u.flush.role == TS_FLUSH_REQUEST)
			mm_request(m, tl, ev);
		break;
	default:
		break;
	}
}

int top_ipi_src(struct timeline *tl)
{
	return timeline_ipi_source(tl);
}

uint64_t top_cpu_tx(const struct tl_cpu *c, int src)
{
	return src < 0 ? 0 : c->ipis_sent[src];
}

uint64_t top_cpu_rx(const struct tl_cpu *c, int src)
{
	return src < 0 ? 0 : c->ipis_received[src];
}

void top_model_tick(struct top_model *m, struct timeline *tl)
{
	int src = top_ipi_src(tl);
	double dt = (m->last_ts - m->tick_ts) / 1e9;

	if (dt <= 0)
		return;		/* no trace time passed (paused, or the trace ended): keep the rates */
	for (int i = 0; i < m->ncpus && i < timeline_cpus(tl); i++) {
		const struct tl_cpu *t = timeline_cpu(tl, i);
		struct top_cpu *c = &m->cpu[i];
		uint64_t lf = timeline_local_flushes(tl, i);

#define RATE(cur, prev, out) do {					\
		c->out = ((cur) - c->prev) / dt;				\
		c->prev = (cur);					\
	} while (0)
		RATE(t->switches, p_sw, r_sw);
		RATE(top_cpu_tx(t, src), p_tx, r_tx);
		RATE(top_cpu_rx(t, src), p_rx, r_rx);
		RATE(lf, p_local, r_local);
		RATE(tuner_replayed_cpu(m->tu, 0, i)->evictions, p_evict, r_evict);
#undef RATE
		if (c->nspark == TOP_SPARK)
			memmove(c->spark, c->spark + 1, (TOP_SPARK - 1) * sizeof(*c->spark));
		else
			c->nspark++;
		c->spark[c->nspark - 1] = c->r_rx;
	}
	m->tick_ts = m->last_ts;
	m->ticks++;
}

int top_cpu_loaded(const struct top_model *m, int cpu, uint64_t *queued, bool *unknown)
{
	uint64_t known_at, undecided;
	int loaded, flagged, slots = 0;

	tuner_replayed_state(m->tu, 0, cpu, &loaded, queued, &flagged);
	tuner_replayed_unknown(m->tu, 0, cpu, &slots, &known_at, &undecided);
	*unknown = slots > 0;
	return loaded;
}

/* Most stock IPIs first, then most requests, then the mm made first. */
static int cmp_row(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->c->stock_ipis != y->c->stock_ipis)
		return x->c->stock_ipis < y->c->stock_ipis ? 1 : -1;
	if (x->c->requests != y->c->requests)
		return x->c->requests < y->c->requests ? 1 : -1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static struct top_row gone_row(const struct top_gone *g)
{
	return (struct top_row){ &g->c, g->seq, g->name, g->comm, g->pid, g->observed };
}

size_t top_rows_by_ipis(const struct top_model *m, struct timeline *tl, struct top_row **rows,
			size_t *all)
{
	size_t k = 0;

	*rows = xcalloc(m->nmm + m->ngone + 1, sizeof(**rows));
	for (size_t id = 1; id < m->nmm; id++) {
		const struct tl_mm *t = timeline_mm(tl, (uint32_t)id);

		if (m->mm[id].requests && t)
			(*rows)[k++] = (struct top_row){ &m->mm[id], t->seq, t->name, t->comm,
							 t->pid, t->ipis_caused };
	}
	for (int i = 0; i < m->ngone; i++)
		(*rows)[k++] = gone_row(&m->gone[i]);
	qsort(*rows, k, sizeof(**rows), cmp_row);
	*all = k + m->gone_more;
	return k;
}

/* timeline_recycle_mms(): what the model and its tuner hold */
static void recycle_mark(void *ctx, uint8_t *held, size_t n)
{
	const struct top_model *m = ctx;

	tuner_mark_mms(m->tu, held, n);
	for (int i = 0; i < m->ncpus; i++) {
		const struct top_cpu *c = &m->cpu[i];
		uint64_t len = c->nstrip < TOP_STRIP ? c->nstrip : TOP_STRIP;

		if (c->mm < n)
			held[c->mm] = 1;
		if (c->active < n)
			held[c->active] = 1;
		for (uint64_t j = 0; j < len; j++)
			if (c->strip[j] < n)
				held[c->strip[j]] = 1;
	}
}

/*
 * @id goes to a new mm: its row is kept if it is among the TOP_PROCS most costly ended
 * ones (it cannot change any more: an ended mm makes no requests), so the rows shown stay
 * those of every mm ever seen.
 */
static void recycle_release(void *ctx, struct timeline *tl, uint32_t id)
{
	struct top_model *m = ctx;
	const struct tl_mm *t = timeline_mm(tl, id);
	struct top_gone g = { 0 };
	struct top_row r, w;
	int worst = 0;

	tuner_forget_mm(m->tu, id);
	if (id >= m->nmm || !m->mm[id].requests || !t) {
		if (id < m->nmm)
			memset(&m->mm[id], 0, sizeof(m->mm[id]));
		return;
	}
	g.c = m->mm[id];
	g.seq = t->seq;
	g.pid = t->pid;
	memcpy(g.name, t->name, sizeof(g.name));
	memcpy(g.comm, t->comm, sizeof(g.comm));
	memcpy(g.observed, t->ipis_caused, sizeof(g.observed));
	memset(&m->mm[id], 0, sizeof(m->mm[id]));
	if (m->ngone < TOP_PROCS) {
		m->gone[m->ngone++] = g;
		return;
	}
	m->gone_more++;
	for (int i = 1; i < m->ngone; i++) {
		struct top_row a = gone_row(&m->gone[i]), b = gone_row(&m->gone[worst]);

		if (cmp_row(&a, &b) > 0)
			worst = i;
	}
	r = gone_row(&g);
	w = gone_row(&m->gone[worst]);
	if (cmp_row(&r, &w) < 0)
		m->gone[worst] = g;
}

void top_model_recycle(struct top_model *m, struct timeline *tl)
{
	const struct tl_recycle r = { recycle_mark, recycle_release, m };

	timeline_recycle_mms(tl, &r);
}

void top_spark_ascii(const struct top_cpu *c, int width, double max, char *buf)
{
	static const char levels[] = " .:-=+*#%@";
	int n = c->nspark < width ? c->nspark : width, pad = width - n;

	for (int i = 0; i < pad; i++)
		buf[i] = ' ';
	for (int i = 0; i < n; i++) {
		double v = c->spark[c->nspark - n + i];
		int l = max > 0 ? (int)(v / max * 9 + 0.999) : 0;

		buf[pad + i] = levels[l < 0 ? 0 : l > 9 ? 9 : l];
	}
	buf[width] = '\0';
}

const char *top_mm_name(struct timeline *tl, uint32_t mm)
{
	const struct tl_mm *t = mm ? timeline_mm(tl, mm) : NULL;

	return t ? t->name : "-";
}

void top_model_source(struct top_model *m, const struct ts_source_info *info)
{
	m->info = info;
}

void top_model_machine(struct top_model *m, enum tuner_machine given, const char *look)
{
	m->machine = given;
	free(m->look);
	m->look = look ? xstrdup(look) : NULL;
}

void top_recommend(const struct top_model *m, const struct timeline *tl, struct top_rec *r)
{
	const struct tuner_counts *stock = tuner_model(m->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *lazy = tuner_model(m->tu, TUNER_LAZY);
	struct platform pf = m->pf;
	struct tuner_advice a;
	struct tuner_rec rec;
	struct tuner_base b;
	struct tuner_host host;
	enum tl_arch arch;
	enum tl_requests_unknown unknown;
	int ti, qi;

	memset(r, 0, sizeof(*r));
	r->stock_ipis = stock->ipis;
	r->lazy_ipis = lazy->ipis;
	r->saved = stock->ipis > lazy->ipis ? stock->ipis - lazy->ipis : 0;
	/* lazy(T, Q) of the per-CPU tables: tune --direct T,Q */
	r->point = *tuner_replayed(m->tu, 0);
	if (!m->first_ts)
		return;
	unknown = timeline_requests_unknown(tl);
	if (unknown == TL_REQUESTS_DROPPED)
		r->requests_unknown = "the input defines kprobes on the flush path and holds none "
				      "of their events (riscv 6.12 drops them in NMI context: "
				      "tlbscope-probes(7))";
	else if (unknown == TL_REQUESTS_UNSEEN)
		r->requests_unknown = "no event shows one (no kprobe on the flush path, tlb_flush "
				      "or csd flush IPI: tlbscope record adds the kprobes)";
	/* tune's advice: the base it would find (the series' defaults on a stock kernel) */
	tuner_find_base(m->tu, &m->lk, m->lazy_kernel, NULL, m->info ? m->info->cmdline : NULL,
			&b);
	/* priced as tune prices: the stream's timings replace the profile's off a VM */
	tuner_host_detect(m->meas, m->info ? m->info->uname : NULL,
			  m->look ? m->look : m->info ? m->info->machine : NULL, m->machine, &host);
	tuner_measure_apply(m->meas, &pf, !host.vm);
	for (int i = 0; i < PF__COUNT; i++)
		r->measured |= pf.origin[i] == PF_FROM_TRACE;
	tuner_recommend(m->tu, &pf, &rec);
	/* as tune advises: for RISC-V, or a kernel not known to be another's */
	arch = timeline_arch(tl, NULL);
	tuner_advise(m->tu, &pf, &rec, b.ti, b.qi, m->lazy_kernel, tl_arch_may_be_riscv(arch),
		     &a);
	tuner_shown_point(&a, &rec, &ti, &qi);
	r->T = m->grid_T[ti];
	r->Q = m->grid_Q[qi];
	r->cost_ms = (a.ti >= 0 ? a.point_cost : rec.small_cost) / 1e6;
	r->stock_ms = tuner_model_cost(&pf, stock) / 1e6;
	/* "not-applicable to x86_64"; any other verdict stands alone ("insufficient-data") */
	r->arch = a.verdict == TUNER_NOT_APPLICABLE ? timeline_arch_name(arch) : NULL;
	r->verdict = tuner_verdict_name(a.verdict);
	r->settable = a.ti >= 0;
}
