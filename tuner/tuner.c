// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tuner: one consumer of the resolved stream that feeds every model at once - the
 * stock and ideal models, the lazy(T, Q) sweep over the whole grid, and the directly
 * replayed points - so a trace is read once whatever the grid.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tuner-int.h"

void sweep_set_start(struct sweep *s, uint64_t warm_ts);

const int tuner_default_T[TUNER_DEFAULT_NT] = {
	1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 24, 32
};
const int tuner_default_Q[TUNER_DEFAULT_NQ] = { 1, 2, 4, 8, 16, 32, 64, 128, 256 };

static void cpus_reserve(struct tuner *t, int cpu)
{
	if (cpu < t->ncpus)
		return;
	/* the sweep and replays are sized at the first event; a CPU past the declared
	 * count is a bad input the timeline already bounds to TS_MAX_CPUS */
	t->active = xrealloc(t->active, (cpu + 1) * sizeof(*t->active));
	memset(t->active + t->ncpus, 0, (cpu + 1 - t->ncpus) * sizeof(*t->active));
	t->run = xrealloc(t->run, (cpu + 1) * sizeof(*t->run));
	memset(t->run + t->ncpus, TUNER_RUN_UNKNOWN, (cpu + 1 - t->ncpus) * sizeof(*t->run));
	t->run_mm = xrealloc(t->run_mm, (cpu + 1) * sizeof(*t->run_mm));
	memset(t->run_mm + t->ncpus, 0, (cpu + 1 - t->ncpus) * sizeof(*t->run_mm));
	t->ncpus = cpu + 1;
}

struct tuner *tuner_new(const struct tuner_opts *o)
{
	struct tuner *t = xcalloc(1, sizeof(*t));

	t->o = *o;
	t->thresholds = xcalloc(o->nthresholds, sizeof(int));
	memcpy(t->thresholds, o->thresholds, o->nthresholds * sizeof(int));
	t->queues = xcalloc(o->nqueues, sizeof(int));
	memcpy(t->queues, o->queues, o->nqueues * sizeof(int));
	t->o.thresholds = t->thresholds;
	t->o.queues = t->queues;
	if (o->nreplay) {
		t->replay = xcalloc(o->nreplay, sizeof(*t->replay));
		memcpy(t->replay, o->replay, o->nreplay * sizeof(*t->replay));
	}
	t->o.replay = (const int (*)[2])t->replay;
	/* CPU masks end at TS_MAX_CPUS: a bigger count (from a corrupt header) sizes nothing */
	if (t->o.ncpus > TS_MAX_CPUS)
		t->o.ncpus = TS_MAX_CPUS;
	cpus_reserve(t, (t->o.ncpus > 0 ? t->o.ncpus : 1) - 1);
	for (int m = 0; m < TUNER__MODELS; m++)
		t->model_cpu[m] = xcalloc(t->ncpus, sizeof(*t->model_cpu[m]));
	t->cf_check = o->verify_models;
	u64map_init(&t->cf_load);
	u64map_init(&t->cf_clear);
	t->cf_reset = xcalloc(TS_MAX_CPUS, sizeof(*t->cf_reset));
	return t;
}

void tuner_free(struct tuner *t)
{
	if (!t)
		return;
	for (int i = 0; t->lazy && i < t->o.nreplay; i++)
		lazy_free(t->lazy[i]);
	free(t->lazy);
	for (int i = 0; i < MAX_SNAPSHOTS; i++)
		free(t->snaps[i].sc.overflow);
	tuner_windows_release(t->fixed, t->nfixed);
	sweep_free(t->sweep);
	sweep_free(t->sweep_idle);
	free(t->thresholds);
	free(t->queues);
	free(t->replay);
	free(t->active);
	free(t->run);
	free(t->run_mm);
	u64map_release(&t->cf_load);
	u64map_release(&t->cf_clear);
	free(t->cf_reset);
	free(t->mm);
	for (int m = 0; m < TUNER__MODELS; m++)
		free(t->model_cpu[m]);
	free(t);
}

static void start(struct tuner *t, const struct ts_event *ev)
{
	t->started = true;
	t->t0 = ev->ts;
	if (!t->o.replay_only) {
		t->sweep = sweep_new(t, false, NULL);
		sweep_set_start(t->sweep, ev->ts + t->o.warmup_ns);
		t->sweep_idle = sweep_new(t, true, t->sweep);
		sweep_set_start(t->sweep_idle, ev->ts + t->o.warmup_ns);
		t->sweeps[t->nsweeps++] = t->sweep;
		t->sweeps[t->nsweeps++] = t->sweep_idle;
	}
	t->lazy = xcalloc(t->o.nreplay ? t->o.nreplay : 1, sizeof(*t->lazy));
	for (int i = 0; i < t->o.nreplay; i++)
		t->lazy[i] = lazy_new(t->replay[i][0], t->replay[i][1], t->ncpus,
				      i >= t->o.idle_first && i < t->o.idle_first + t->o.idle_count);
	if (t->o.nreplay)
		lazy_log_decisions(t->lazy[t->o.nreplay - 1], t->o.decisions);
	t->snap_every = 1000000;	/* 1 ms, doubled whenever the snapshots fill up */
	t->next_snap = ev->ts + t->snap_every;
}

/*
 * Cumulative counters at growing intervals, so that any time window is the difference of
 * two snapshots: when all MAX_SNAPSHOTS are taken, every other one is dropped and the
 * interval doubles, which keeps them evenly spread over a trace of any length in bounded
 * memory.  (An absence still open at a snapshot counts its overflows when it closes.)
 */
static void snapshot(struct tuner *t, uint64_t ts)
{
	struct snapshot *sn;

	if (t->nsnaps == MAX_SNAPSHOTS) {
		/* keep 1, 3, 5, ... in place 0, 1, 2, ...; swapping keeps each its buffer */
		for (int i = 0; i < MAX_SNAPSHOTS / 2; i++) {
			struct snapshot tmp = t->snaps[i];

			t->snaps[i] = t->snaps[2 * i + 1];
			t->snaps[2 * i + 1] = tmp;
		}
		t->nsnaps = MAX_SNAPSHOTS / 2;
		t->snap_every *= 2;
	}
	sn = &t->snaps[t->nsnaps++];
	sn->ts = ts;
	sweep_counts_copy(t->sweep, &sn->sc, sweep_counts(t->sweep));
	sn->ideal_ipis = t->models[TUNER_IDEAL].ipis;
	sn->lazy_ipis = t->models[TUNER_LAZY].ipis;
	sn->lazy_ipi_requests = t->models[TUNER_LAZY].ipi_requests;
	sn->stock_ipis = t->models[TUNER_STOCK_ASID].ipis;
	sn->mm_switches = t->mm_switches;
}

/* The models are replayed (not tuner_opts.models_off). */
static bool models(const struct tuner *t)
{
	return !(t->o.replay_only && t->o.models_off);
}

/* A switch_mm (or exec's activate_mm) of @cpu to @mm. */
static void load(struct tuner *t, int cpu, uint32_t mm, uint64_t ts, bool count)
{
	if (!mm || t->active[cpu] == mm)
		return;
	if (count)
		t->mm_switches++;
	mm_reserve(t, mm);
	if (t->sweep)
		sweep_switch(t->sweeps, t->nsweeps, cpu, mm, count);
	for (int i = 0; i < t->o.nreplay; i++)
		lazy_switch(t->lazy[i], cpu, mm, ts, count);
	if (models(t)) {
		stock_switch(t, cpu, mm, count);
		cf_check_load(t, cpu, mm);
	}
	t->active[cpu] = mm;
}

static void mm_exit(struct tuner *t, uint32_t mm)
{
	mm_reserve(t, mm);
	if (t->sweep)
		sweep_exit(t->sweeps, t->nsweeps, t, mm);
	for (int i = 0; i < t->o.nreplay; i++)
		lazy_exit(t->lazy[i], mm);
	if (models(t)) {
		stock_exit(t, mm);
		cf_check_exit(t, mm);
	}
	for (int c = 0; c < t->ncpus; c++)
		if (t->active[c] == mm)
			t->active[c] = 0;
}

/* held[mm] = 1 for the mm of every (cpu << 32 | mm) key of @m */
static void mark_keys(const struct u64map *m, uint8_t *held, size_t n)
{
	size_t i = 0;
	uint64_t k, *v;

	while (u64map_next(m, &i, &k, &v))
		if ((uint32_t)k < n)
			held[(uint32_t)k] = 1;
}

void tuner_mark_mms(const struct tuner *t, uint8_t *held, size_t n)
{
	for (int c = 0; c < t->ncpus; c++) {
		if (t->active[c] < n)
			held[t->active[c]] = 1;
		if (t->run_mm[c] < n)
			held[t->run_mm[c]] = 1;
	}
	for (int i = 0; i < t->nsweeps; i++)
		sweep_mark(t->sweeps[i], held, n);
	for (int i = 0; i < t->o.nreplay; i++)
		lazy_mark(t->lazy[i], held, n);
	if (t->cf_check) {
		mark_keys(&t->cf_load, held, n);
		mark_keys(&t->cf_clear, held, n);
	}
}

void tuner_forget_mm(struct tuner *t, uint32_t mm)
{
	if (mm < t->nmm)
		memset(&t->mm[mm], 0, sizeof(t->mm[mm]));
	for (int i = 0; i < t->o.nreplay; i++)
		lazy_forget(t->lazy[i], mm);
}

static int size_bucket(uint64_t pages)
{
	int b = 0;

	while (b < NSIZES - 2 && (1ULL << b) < pages)
		b++;
	return b;
}

static void request(struct tuner *t, const struct ts_event *ev, bool count)
{
	int cpu = ev->cpu;
	uint32_t mm = ev->u.flush.mm;
	uint8_t scope = ev->u.flush.scope;
	uint64_t pages = ev->u.flush.pages;

	if (count) {
		t->requests++;
		t->sizes[scope == TS_SCOPE_RANGE && pages ? size_bucket(pages) : NSIZES - 1]++;
	}
	if (scope == TS_SCOPE_TARGETS) {
		/*
		 * Everything, on the CPUs of the request's own mask (a reclaim batch): no mm to
		 * defer for, so every model interrupts them all, and each does a full flush.
		 */
		const struct ts_cpumask *k = &ev->u.flush.kmask;
		int n = cpumask_weight(k) - cpumask_test(k, cpu);

		if (count && models(t)) {
			for (int m = 0; m < TUNER__MODELS; m++) {
				t->models[m].ipis += n;
				t->models[m].ipi_requests += n > 0;
			}
			t->seeded_ipis += n;
			t->cf_ipis += n;
		}
		for (int i = 0; i < t->o.nreplay; i++)
			lazy_targets_flush(t->lazy[i], n, count);
		for (int c = 0; c < t->ncpus; c++) {
			if (!cpumask_test(k, c))
				continue;
			if (t->sweep)
				sweep_reset(t->sweeps, t->nsweeps, c, count);
			if (models(t)) {
				stock_reset(t, c);
				cf_check_reset(t, c);
			}
			for (int i = 0; i < t->o.nreplay; i++)
				lazy_reset(t->lazy[i], c, t->active[c], count);
		}
		return;
	}
	if (scope == TS_SCOPE_KERNEL || scope == TS_SCOPE_ALL) {
		/* kernel mappings are global: every CPU flushes, none can defer */
		bool all = scope == TS_SCOPE_ALL || pages > t->o.flush_all_threshold;
		int n = t->o.ncpus > t->ncpus ? t->o.ncpus : t->ncpus;

		if (count && models(t)) {
			for (int m = 0; m < TUNER__MODELS; m++) {
				t->models[m].ipis += n - 1;
				t->models[m].ipi_requests += n > 1;
			}
			t->seeded_ipis += n - 1;
			t->cf_ipis += n - 1;
		}
		for (int i = 0; i < t->o.nreplay; i++)
			lazy_kernel_flush(t->lazy[i], n, count);
		if (!all)
			return;
		/* rule 4: a full flush on every CPU keeps only each one's active mm */
		for (int c = 0; c < t->ncpus; c++) {
			if (t->sweep)
				sweep_reset(t->sweeps, t->nsweeps, c, count);
			if (models(t)) {
				stock_reset(t, c);
				cf_check_reset(t, c);
			}
			for (int i = 0; i < t->o.nreplay; i++)
				lazy_reset(t->lazy[i], c, t->active[c], count);
		}
		return;
	}
	if (!mm) {
		if (count)
			t->unattributed++;
		return;
	}
	mm_reserve(t, mm);
	{
		/* a range larger than tlb_flush_all_threshold flushes the whole ASID */
		bool full = scope == TS_SCOPE_MM || pages > t->o.flush_all_threshold;
		const struct ts_cpumask *kmask = (ev->u.flush.fflags & TS_FF_KMASK) ?
						  &ev->u.flush.kmask : NULL;

		if (t->sweep) {
			sweep_flush(t->sweep, t, cpu, mm, full, full ? 0 : pages, ev->ts, count);
			sweep_flush(t->sweep_idle, t, cpu, mm, full, full ? 0 : pages, ev->ts,
				    count);
		}
		for (int i = 0; i < t->o.nreplay; i++)
			lazy_flush(t->lazy[i], t, cpu, mm, full, full ? 0 : pages, ev->ts, kmask,
				   count);
		if (models(t)) {
			cf_check_flush(t, cpu, mm, full, count);
			stock_flush(t, cpu, mm, full, kmask, count);
		}
	}
}

void tuner_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct tuner *t = ctx;
	bool count;

	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	if (!t->started)
		start(t, ev);
	if (ev->cpu >= t->ncpus) {
		/* a CPU the trace did not declare: not modelled, and said so */
		if (!t->unmodelled++)
			t->unmodelled_cpu = ev->cpu;
		return;
	}
	count = ev->ts >= t->t0 + t->o.warmup_ns;
	if (ev->ts > t->last_ts)
		t->last_ts = ev->ts;
	if (ev->ts >= t->next_snap && t->sweep) {
		snapshot(t, ev->ts);
		t->next_snap = ev->ts + t->snap_every;
	}
	switch (ev->kind) {
	case TS_EV_SWITCH:
		if (count)
			t->switches++;
		t->run[ev->cpu] = !ev->u.sw.next_pid ? TUNER_RUN_IDLE :
				  (ev->flags & TS_F_KTHREAD) ? TUNER_RUN_KTHREAD : TUNER_RUN_USER;
		t->run_mm[ev->cpu] = t->run[ev->cpu] == TUNER_RUN_USER ? ev->u.sw.mm : 0;
		if (t->run[ev->cpu] == TUNER_RUN_USER && ev->u.sw.mm &&
		    ev->u.sw.mm == t->active[ev->cpu]) {
			/* back to a task of the mm it held lazily: no switch_mm, lazy-idle drains */
			if (t->sweep_idle)
				sweep_resume(t->sweep_idle, ev->cpu, ev->u.sw.mm, count);
			for (int i = 0; i < t->o.nreplay; i++)
				lazy_resume(t->lazy[i], ev->cpu, ev->u.sw.mm, count);
		}
		/*
		 * kernel threads do not call switch_mm: the CPU keeps its active mm; a
		 * lazy-flush kernel says when its table took the mm (below)
		 */
		if (!(ev->flags & TS_F_KTHREAD) && !timeline_load_commits(tl))
			load(t, ev->cpu, ev->u.sw.mm, ev->ts, count);
		break;
	case TS_EV_LOAD_MM:
		if (ev->u.load.initial) {
			load(t, ev->cpu, ev->u.load.mm, ev->ts, false);
			break;
		}
		if (!ev->u.load.commit && timeline_load_commits(tl))
			break;
		/*
		 * A switch_mm kprobe: right after a switch it names the mm the switch loaded
		 * already; otherwise it is exec's activate_mm (which loads the new mm when
		 * exec calls it, however long before the exec event the task runs) or a
		 * kernel thread's use_mm, both real loads in the kernel.  An "initial" one
		 * is the CPU's state before the trace: every model starts from it, uncounted.
		 * On a lazy-flush kernel the loads are its local_load_tlb_mm events, which
		 * can come long after the switch (a CPU stalled in between)
		 */
		load(t, ev->cpu, ev->u.load.mm, ev->ts, count);
		break;
	case TS_EV_EXEC:
		t->run[ev->cpu] = TUNER_RUN_USER;
		t->run_mm[ev->cpu] = ev->u.exec.mm;
		load(t, ev->cpu, ev->u.exec.mm, ev->ts, count);
		break;
	case TS_EV_EXIT:
		if (ev->u.exit.mm) {
			t->exits += count;
			mm_exit(t, ev->u.exit.mm);
		}
		break;
	case TS_EV_FLUSH:
		if (ev->u.flush.role == TS_FLUSH_REQUEST)
			request(t, ev, count);
		break;
	default:
		break;
	}
}

void tuner_finish(struct tuner *t)
{
	if (t->sweep)
		sweep_finish(t->sweep);
	if (t->sweep_idle)
		sweep_finish(t->sweep_idle);
}

bool tuner_whatif_point(const struct tuner *t, const struct platform *p, int ti, int qi,
			struct tuner_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!t->sweep_idle)
		return false;
	if (p)
		sweep_counts_point_reach(t->sweep_idle, sweep_counts(t->sweep_idle), ti, qi,
					 tuner_reach(p), out);
	else
		sweep_point(t->sweep_idle, ti, qi, out);
	/* it interrupts only CPUs running a task of the mm: the floor's IPIs */
	out->ipis = t->models[TUNER_IDEAL].ipis;
	out->ipi_requests = t->models[TUNER_IDEAL].ipi_requests;
	return true;
}

const struct tuner_counts *tuner_model(const struct tuner *t, enum tuner_model m)
{
	return &t->models[m];
}

const char *tuner_model_name(enum tuner_model m)
{
	static const char *const names[TUNER__MODELS] = {
		"stock_asid", "stock_noasid", "ideal", "lazy", "clear_at_full"
	};

	return m < TUNER__MODELS ? names[m] : "?";
}

void tuner_grid_point(const struct tuner *t, int ti, int qi, struct tuner_counts *out)
{
	if (!t->sweep) {
		memset(out, 0, sizeof(*out));
		return;
	}
	sweep_point(t->sweep, ti, qi, out);
	/* lazy interrupts the CPUs whose active mm it is, whatever T and Q */
	out->ipis = t->models[TUNER_LAZY].ipis;
	out->ipi_requests = t->models[TUNER_LAZY].ipi_requests;
}

const struct tuner_counts *tuner_model_cpu(const struct tuner *t, enum tuner_model m, int cpu)
{
	static const struct tuner_counts none;

	return m < TUNER__MODELS && cpu >= 0 && cpu < t->ncpus ? &t->model_cpu[m][cpu] : &none;
}

const struct tuner_counts *tuner_replayed_cpu(const struct tuner *t, int i, int cpu)
{
	static const struct tuner_counts none;

	return t->lazy && i < t->o.nreplay && cpu >= 0 && cpu < t->ncpus ?
	       lazy_cpu_counts(t->lazy[i], cpu) : &none;
}

const struct tuner_counts *tuner_replayed_unknown(const struct tuner *t, int i, int cpu,
						  int *slots, uint64_t *known_at,
						  uint64_t *undecided)
{
	if (!t->lazy || i < 0 || i >= t->o.nreplay || cpu < 0 || cpu >= t->ncpus)
		return NULL;
	return lazy_unknown(t->lazy[i], cpu, slots, known_at, undecided);
}

void tuner_counts_since(struct tuner_counts *out, const struct tuner_counts *a,
			const struct tuner_counts *b)
{
	*out = *a;
	out->ipis -= b->ipis;
	out->deferred -= b->deferred;
	out->deferred_flushes -= b->deferred_flushes;
	out->overflows -= b->overflows;
	out->evictions -= b->evictions;
	out->table_resets -= b->table_resets;
	out->local_flushes -= b->local_flushes;
	out->refills -= b->refills;
	out->ipi_requests -= b->ipi_requests;
	out->replayed -= b->replayed;
	out->replayed_pages -= b->replayed_pages;
}

const struct tuner_counts *tuner_replayed(const struct tuner *t, int i)
{
	static const struct tuner_counts none;

	return t->lazy && i < t->o.nreplay ? lazy_counts(t->lazy[i]) : &none;
}

void tuner_reuse_hist(const struct tuner *t, int cpu, uint64_t hist[TUNER_MAX_T + 1])
{
	if (t->sweep)
		sweep_reuse(t->sweep, cpu, hist);
	else
		memset(hist, 0, (TUNER_MAX_T + 1) * sizeof(*hist));
}

void tuner_flush_sizes(const struct tuner *t, uint64_t sizes[22])
{
	memcpy(sizes, t->sizes, sizeof(t->sizes));
}

uint64_t tuner_requests(const struct tuner *t, uint64_t *unattributed)
{
	if (unattributed)
		*unattributed = t->unattributed;
	return t->requests;
}

uint64_t tuner_mm_switches(const struct tuner *t)
{
	return t->mm_switches;
}

uint64_t tuner_unmodelled(const struct tuner *t, int *first_cpu)
{
	if (first_cpu)
		*first_cpu = t->unmodelled ? t->unmodelled_cpu : -1;
	return t->unmodelled;
}

uint64_t tuner_switches(const struct tuner *t)
{
	return t->switches;
}

int tuner_window_counts(const struct tuner *t, int n, struct tuner_window *w)
{
	static const struct snapshot zero;
	const struct snapshot *b[TUNER_MAX_WINDOWS + 1] = { &zero };
	struct snapshot end = { .ts = t->last_ts };
	struct sweep_counts none;
	size_t nov = grid_cells(t->o.nthresholds, t->o.nqueues);
	uint64_t span = t->last_ts - t->t0;

	if (t->aggregate) {
		if (n != t->nfixed)
			return 0;
		for (int k = 0; k < n; k++) {
			w[k] = t->fixed[k];
			w[k].sc.overflow = NULL;
			sweep_counts_copy(t->sweep, &w[k].sc, &t->fixed[k].sc);
		}
		return n;
	}
	if (!t->sweep || n < 2 || n > TUNER_MAX_WINDOWS || t->nsnaps < 2 * n)
		return 0;
	end.sc = *sweep_counts(t->sweep);
	end.ideal_ipis = t->models[TUNER_IDEAL].ipis;
	end.lazy_ipis = t->models[TUNER_LAZY].ipis;
	end.lazy_ipi_requests = t->models[TUNER_LAZY].ipi_requests;
	end.stock_ipis = t->models[TUNER_STOCK_ASID].ipis;
	end.mm_switches = t->mm_switches;
	/* window k ends at the snapshot nearest to (k + 1) / n of the span */
	for (int k = 1; k < n; k++) {
		uint64_t target = t->t0 + span / n * k, best = UINT64_MAX;

		for (int i = 0; i < t->nsnaps; i++) {
			uint64_t ts = t->snaps[i].ts;
			uint64_t d = ts > target ? ts - target : target - ts;

			if (d < best) {
				best = d;
				b[k] = &t->snaps[i];
			}
		}
	}
	b[n] = &end;
	memset(&none, 0, sizeof(none));
	none.overflow = xcalloc(nov, sizeof(uint64_t));
	for (int k = 0; k < n; k++) {
		memset(&w[k], 0, sizeof(w[k]));
		w[k].sc.overflow = xcalloc(nov, sizeof(uint64_t));
		sweep_counts_sub(t->sweep, &w[k].sc, &b[k + 1]->sc, k ? &b[k]->sc : &none);
		w[k].ideal_ipis = b[k + 1]->ideal_ipis - b[k]->ideal_ipis;
		w[k].lazy_ipis = b[k + 1]->lazy_ipis - b[k]->lazy_ipis;
		w[k].lazy_ipi_requests = b[k + 1]->lazy_ipi_requests - b[k]->lazy_ipi_requests;
		w[k].mm_switches = b[k + 1]->mm_switches - b[k]->mm_switches;
		w[k].until = b[k + 1]->ts;
	}
	free(none.overflow);
	return n;
}

void tuner_windows_release(struct tuner_window *w, int n)
{
	for (int k = 0; k < n; k++)
		free(w[k].sc.overflow);
}

int tuner_windows(const struct tuner *t, const struct platform *p, int n, struct tuner_rec *recs,
		  uint64_t *bounds)
{
	struct tuner_window w[TUNER_MAX_WINDOWS];

	if (n < 2 || n > TUNER_MAX_WINDOWS)
		return 0;
	n = tuner_window_counts(t, n, w);
	for (int k = 0; k < n; k++) {
		recommend_from(t, p, &w[k].sc, w[k].lazy_ipis, w[k].lazy_ipi_requests,
			       w[k].mm_switches, &recs[k]);
		bounds[k] = w[k].until;
	}
	tuner_windows_release(w, n);
	return n;
}

int tuner_windows_agree(const struct tuner *t, const struct platform *p, int n, int ti, int qi)
{
	struct tuner_window w[TUNER_MAX_WINDOWS];
	int reach = tuner_reach(p), agree = 0;

	if (n < 2 || n > TUNER_MAX_WINDOWS)
		return 0;
	n = tuner_window_counts(t, n, w);
	for (int k = 0; k < n; k++) {
		struct tuner_rec rec;
		struct tuner_counts c;

		recommend_from(t, p, &w[k].sc, w[k].lazy_ipis, w[k].lazy_ipi_requests,
			       w[k].mm_switches, &rec);
		sweep_counts_point_reach(t->sweep, &w[k].sc, ti, qi, reach, &c);
		c.ipis = w[k].lazy_ipis;
		c.ipi_requests = w[k].lazy_ipi_requests;
		agree += tuner_cost(p, &c, t->thresholds[ti], t->queues[qi], w[k].mm_switches,
				    t->ncpus) <= rec.cost * (1 + TUNER_BAND);
	}
	tuner_windows_release(w, n);
	return agree;
}

uint64_t tuner_stock_seeded(const struct tuner *t, uint64_t *mms_widened)
{
	if (mms_widened)
		*mms_widened = t->seeded_mms;
	return t->seeded_ipis;
}

void tuner_replayed_state(const struct tuner *t, int i, int cpu, int *loaded, uint64_t *queued,
			  int *flagged)
{
	*loaded = *flagged = 0;
	*queued = 0;
	if (t->lazy && i < t->o.nreplay && cpu >= 0 && cpu < t->ncpus)
		lazy_cpu_state(t->lazy[i], cpu, loaded, queued, flagged);
}

uint32_t tuner_active(const struct tuner *t, int cpu)
{
	return cpu >= 0 && cpu < t->ncpus ? t->active[cpu] : 0;
}

bool tuner_replayed_holds(const struct tuner *t, int i, int cpu, uint32_t mm)
{
	return t->lazy && i < t->o.nreplay && cpu >= 0 && cpu < t->ncpus && mm &&
	       lazy_holds(t->lazy[i], cpu, mm);
}

void tuner_lazy_split(const struct tuner *t, uint64_t split[TUNER_TGT__COUNT])
{
	memcpy(split, t->lazy_split, sizeof(t->lazy_split));
}

uint64_t tuner_span(const struct tuner *t)
{
	uint64_t from = t->t0 + t->o.warmup_ns;

	return !t->aggregate && t->last_ts > from ? t->last_ts - from : 0;
}

uint64_t tuner_exits(const struct tuner *t)
{
	return t->exits;
}
