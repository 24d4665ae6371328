/* SPDX-License-Identifier: GPL-2.0-only */
/* Internal to tuner/: the shared replay state and the pieces replay.c and sweep.c export. */
#ifndef TLBSCOPE_TUNER_INT_H
#define TLBSCOPE_TUNER_INT_H

#include "tuner.h"

#define CAP		TUNER_MAX_T	/* recency-stack depth kept per CPU */
#define NSIZES		22

static inline void cpumask_set(struct ts_cpumask *m, int cpu)
{
	ts_cpumask_set(m, cpu);
}

static inline void cpumask_clear(struct ts_cpumask *m, int cpu)
{
	m->bits[cpu / 64] &= ~(1ULL << (cpu % 64));
}

static inline bool cpumask_test(const struct ts_cpumask *m, int cpu)
{
	return ts_cpumask_test(m, cpu);
}

static inline int cpumask_weight(const struct ts_cpumask *m)
{
	return ts_cpumask_weight(m);
}

struct mm_state {
	struct ts_cpumask ever_on;	/* stock-asid mask: CPUs that ever loaded it */
	struct ts_cpumask active_on;	/* CPUs whose active mm it is */
	/*
	 * The stock-asid mask with the history before the trace: at the first request that
	 * carries the kernel's own target mask (kprobes), the CPUs the kernel had set and
	 * the trace did not show are added.  Used only to check the model against the kernel.
	 */
	struct ts_cpumask seeded_on;
	bool seeded;
	struct ts_cpumask cf_on;	/* clear-at-full's mask */
};

struct sweep;
struct lazy;

/* Everything the sweep counts; additive, so a window is the difference of two snapshots. */
struct sweep_counts {
	/* difference arrays over depth 1..CAP: the value at T is the sum of cells 1..T */
	int64_t evict[CAP + 2];
	/* histograms over depth: the count for T is the sum of cells 1..T */
	uint64_t deferred[CAP + 2], dfl[CAP + 2], local[CAP + 2];
	uint64_t resets;
	/*
	 * Per grid point, GRID_FIELDS blocks of nT * nQ cells (grid_cells()): overflows, then
	 * range entries replayed at switch_mm, then the pages of those entries
	 */
	uint64_t *overflow;
	/* switch-backs at depth d (a hit in every table T >= d): refills for any TLB reach */
	uint64_t hits[CAP + 2];
};

#define GRID_FIELDS	3
enum { GRID_OVERFLOW, GRID_REPLAYED, GRID_REPLAYED_PAGES };

static inline size_t grid_cells(int nT, int nQ)
{
	return (size_t)nT * nQ * GRID_FIELDS;
}

/* The counters of the whole tuner at one moment (for time windows). */
struct snapshot {
	uint64_t ts;
	struct sweep_counts sc;
	uint64_t ideal_ipis, stock_ipis, mm_switches;
	uint64_t lazy_ipis, lazy_ipi_requests;
};

#define MAX_SNAPSHOTS	64

/* The counts of one time window of a trace (or the sum of the same window of several). */
struct tuner_window {
	struct sweep_counts sc;
	uint64_t ideal_ipis, mm_switches;
	uint64_t lazy_ipis, lazy_ipi_requests;	/* what every lazy point sends */
	uint64_t until;		/* ns: where it ends (of the first trace of a sum) */
};
/* @w[0..n) of the trace's windows, overflow arrays allocated; 0 when it is too short */
int tuner_window_counts(const struct tuner *t, int n, struct tuner_window *w);
void tuner_windows_release(struct tuner_window *w, int n);

/* what a CPU runs now, for the ideal model and the split of lazy's IPIs */
enum { TUNER_RUN_UNKNOWN, TUNER_RUN_USER, TUNER_RUN_IDLE, TUNER_RUN_KTHREAD };

struct tuner {
	struct tuner_opts o;
	int *thresholds, *queues;
	int (*replay)[2];
	int ncpus;			/* arrays below are sized for this many CPUs */
	uint32_t *active;		/* per CPU: the loaded mm (kernel threads keep it) */
	uint8_t *run;			/* per CPU: TUNER_RUN_* of its current task */
	uint32_t *run_mm;		/* per CPU: the mm of its current user task */
	uint64_t lazy_split[TUNER_TGT__COUNT];	/* lazy's IPIs by what the target ran */
	/*
	 * --verify: clear-at-full again, by sequence numbers instead of masks (cf_check.c
	 * in replay.c): CPU c is in mm's mask when its last load of mm is later than its
	 * last clearing of mm and than its last full flush (unless mm is active there)
	 */
	bool cf_check;
	uint64_t cf_seq, cf_ipis;
	struct u64map cf_load, cf_clear;	/* (cpu << 32 | mm) -> sequence number */
	uint64_t *cf_reset;			/* per CPU */
	struct mm_state *mm;
	size_t nmm;
	struct tuner_counts models[TUNER__MODELS];
	struct tuner_counts *model_cpu[TUNER__MODELS];	/* per CPU: IPIs received, local flushes */
	uint64_t seeded_ipis;		/* stock_asid's IPIs with masks seeded from the kernel */
	uint64_t seeded_mms;		/* mms whose mask the kernel's showed to be wider */
	struct sweep *sweep;
	struct sweep *sweep_idle;	/* the lazy-idle what-if over the same grid */
	struct sweep *sweeps[2];	/* those of the two made, sharing their stacks: */
	int nsweeps;			/* moved together */
	struct lazy **lazy;		/* the directly replayed points */
	bool started;
	uint64_t t0;
	uint64_t switches, mm_switches, requests, unattributed;
	uint64_t exits;			/* mms whose last user exited: each walks every table */
	uint64_t unmodelled;		/* events on CPUs past the count the models were sized for */
	int unmodelled_cpu;		/* the first such CPU */
	uint64_t sizes[NSIZES];
	uint64_t last_ts;
	struct snapshot snaps[MAX_SNAPSHOTS];	/* cumulative, at growing intervals */
	int nsnaps;
	uint64_t snap_every, next_snap;		/* ns */
	/*
	 * A sum of traces or a loaded profile (profile.c): no events, counters only; the
	 * reuse distances summed on CPU 0, the windows fixed
	 */
	bool aggregate;
	int nfixed;
	struct tuner_window fixed[TUNER_MAX_WINDOWS];
};

/* Room in t->mm for @mm's slot */
static inline void mm_reserve(struct tuner *t, uint32_t mm)
{
	ALLOC_GROW_ZERO(t->mm, mm + 1, t->nmm);
}
/* @p's TLB reach in mms, at most the recency stack's depth */
int tuner_reach(const struct platform *p);
/* The recommendation from counts @sc (whole trace or a window) and its ideal IPIs. */
void recommend_from(const struct tuner *t, const struct platform *p, const struct sweep_counts *sc,
		    uint64_t lazy_ipis, uint64_t lazy_requests, uint64_t mm_switches,
		    struct tuner_rec *r);

/* What @c, whose active mm is @mm, runs now (unknown before its first switch: running). */
enum tuner_target_state tuner_target_state(const struct tuner *t, int c, uint32_t mm);
void stock_switch(struct tuner *t, int cpu, uint32_t mm, bool count);
void stock_exit(struct tuner *t, uint32_t mm);
void stock_flush(struct tuner *t, int cpu, uint32_t mm, bool full, const struct ts_cpumask *kmask,
		 bool count);
/* @cpu flushed its whole TLB: clear-at-full drops it from every mask but its active mm's */
void stock_reset(struct tuner *t, int cpu);
/* the same clear-at-full by sequence numbers, kept only with tuner_opts.verify_models */
void cf_check_load(struct tuner *t, int cpu, uint32_t mm);
void cf_check_exit(struct tuner *t, uint32_t mm);
void cf_check_reset(struct tuner *t, int cpu);
void cf_check_flush(struct tuner *t, int cpu, uint32_t mm, bool full, bool count);

struct lazy *lazy_new(int T, int Q, int ncpus, bool idle);
/* lazy-idle: @cpu runs a task of its active mm again and performs what was queued */
void lazy_resume(struct lazy *l, int cpu, uint32_t mm, bool count);
void lazy_free(struct lazy *l);
const struct tuner_counts *lazy_counts(const struct lazy *l);
const struct tuner_counts *lazy_cpu_counts(const struct lazy *l, int cpu);
void lazy_cpu_state(const struct lazy *l, int cpu, int *loaded, uint64_t *queued, int *flagged);
bool lazy_holds(const struct lazy *l, int cpu, uint32_t mm);
void lazy_switch(struct lazy *l, int cpu, uint32_t mm, uint64_t ts, bool count);
void lazy_flush(struct lazy *l, const struct tuner *t, int cpu, uint32_t mm, bool full,
		uint64_t pages, uint64_t ts, const struct ts_cpumask *kmask, bool count);
/* Write each decision of lazy_flush() to @f (tuner_opts.decisions), NULL: none. */
void lazy_log_decisions(struct lazy *l, FILE *f);
void lazy_exit(struct lazy *l, uint32_t mm);
void lazy_mark(const struct lazy *l, uint8_t *held, size_t n);
void lazy_forget(struct lazy *l, uint32_t mm);
void lazy_reset(struct lazy *l, int cpu, uint32_t active, bool count);
/*
 * What @cpu's table may still hold from before the recording: @slots that may, the
 * first load once none can (0: not yet) and the CPU's counters just before it, and the
 * requests to @cpu left @undecided for that.
 */
const struct tuner_counts *lazy_unknown(const struct lazy *l, int cpu, int *slots,
					uint64_t *known_at, uint64_t *undecided);
void lazy_kernel_flush(struct lazy *l, int ncpus, bool count);
void lazy_targets_flush(struct lazy *l, int remote, bool count);

/* @share: a sweep whose recency stacks this one shares (the calls below move both at once) */
struct sweep *sweep_new(const struct tuner *t, bool idle, struct sweep *share);
void sweep_resume(struct sweep *s, int cpu, uint32_t mm, bool count);
void sweep_free(struct sweep *s);
void sweep_mark(const struct sweep *s, uint8_t *held, size_t n);
void sweep_switch(struct sweep *const *sw, int n, int cpu, uint32_t mm, bool count);
void sweep_flush(struct sweep *s, const struct tuner *t, int cpu, uint32_t mm, bool full,
		 uint64_t pages, uint64_t ts, bool count);
void sweep_exit(struct sweep *const *sw, int n, const struct tuner *t, uint32_t mm);
void sweep_reset(struct sweep *const *sw, int n, int cpu, bool count);
void sweep_finish(struct sweep *s);
void sweep_point(const struct sweep *s, int ti, int qi, struct tuner_counts *out);
const struct sweep_counts *sweep_counts(const struct sweep *s);
/* The lazy counters of grid point (ti, qi) from counts @c (the sweep's, or a window's). */
void sweep_counts_point(const struct sweep *s, const struct sweep_counts *c, int ti, int qi,
			struct tuner_counts *out);
/* The same with refills for a TLB that holds @reach mms' working sets. */
void sweep_counts_point_reach(const struct sweep *s, const struct sweep_counts *c, int ti, int qi,
			      int reach, struct tuner_counts *out);
/* The largest single drains: @dst's become the larger of both (sums of traces) */
void sweep_drain_max_add(struct sweep *dst, const struct sweep *src);
uint64_t *sweep_drain_max_mut(struct sweep *s, bool pages);
void sweep_counts_copy(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *src);
/* @dst = @a - @b, element by element; dst->overflow must have room */
void sweep_counts_sub(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *a,
		      const struct sweep_counts *b);
void sweep_reuse(const struct sweep *s, int cpu, uint64_t hist[CAP + 1]);
/* @dst += @src x @w (sums of traces, profile.c) */
void sweep_counts_add(const struct sweep *s, struct sweep_counts *dst, const struct sweep_counts *src,
		      uint64_t w);
struct sweep_counts *sweep_counts_mut(struct sweep *s);
/* reuse distances of a sum, all on CPU 0 */
void sweep_reuse_add(struct sweep *s, const uint64_t hist[CAP + 1], uint64_t w);

#endif
