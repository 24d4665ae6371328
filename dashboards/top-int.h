/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to dashboards/: the model's state as the text and curses renderers read it.
 * Totals are over the whole stream; rates are per second of trace time over the last tick.
 */
#ifndef TLBSCOPE_DASHBOARDS_TOP_INT_H
#define TLBSCOPE_DASHBOARDS_TOP_INT_H

#include "dashboards.h"

#define TOP_SPARK	64	/* sparkline points kept per CPU (one per tick) */
#define TOP_STRIP	256	/* last mm switches kept per CPU for the timeline strip */

struct top_cpu {
	bool seen;
	int32_t pid;			/* current task, -1 unknown */
	char comm[TS_COMM_LEN];
	uint32_t mm;			/* current task's mm id, 0 kernel thread */
	uint32_t active;		/* the mm of its last switch to a user task (the strip) */
	/* previous tick's totals, and the rates over the last tick (per trace second) */
	uint64_t p_sw, p_tx, p_rx, p_local, p_evict;
	double r_sw, r_tx, r_rx, r_local, r_evict;
	double spark[TOP_SPARK];	/* flush IPIs received per second, oldest first */
	int nspark;
	uint32_t strip[TOP_STRIP];	/* mm switched to, ring; 0 = a kernel thread */
	uint64_t nstrip;
};

/* Per address space: what its flush requests cost under each mask. */
struct top_mm {
	uint64_t requests;
	uint64_t stock_ipis;	/* remote CPUs that ever ran it (the stock RISC-V mask) */
	uint64_t lazy_ipis;	/* remote CPUs running it now (lazy = ideal) */
	uint64_t deferred;	/* remote CPUs holding it in their lazy table, not running it */
};

struct top_model {
	int T, Q;
	int ncpus;			/* arrays sized for this many */
	struct top_cpu *cpu;
	struct top_mm *mm;
	size_t nmm;
	struct tuner *tu;
	struct platform pf;
	int *grid_T, ngrid_T, *grid_Q, ngrid_Q;
	uint64_t first_ts, last_ts, tick_ts;	/* trace clock, ns */
	uint64_t ticks;
	uint64_t switches_fed;
	/* a lazy kernel's own evidence, for the base tune would use (tuner_find_base()) */
	struct tuner_lazy_kernel lk;
	bool lazy_kernel;
};

/* Rendering helpers shared by the text and curses screens. */
int top_ipi_src(struct timeline *tl);
uint64_t top_cpu_tx(const struct tl_cpu *c, int src);
uint64_t top_cpu_rx(const struct tl_cpu *c, int src);
int top_cpu_loaded(const struct top_model *m, int cpu, uint64_t *queued);
/* mm ids sorted by stock IPIs caused (most first); *@ids new (free()); returns the count. */
size_t top_mms_by_ipis(const struct top_model *m, uint32_t **ids);
/* Sparkline of the last @width points of @c into @buf (ASCII levels). */
void top_spark_ascii(const struct top_cpu *c, int width, double max, char *buf);
/* "p7029" / "-" */
const char *top_mm_name(struct timeline *tl, uint32_t mm);
/* The tuner's recommendation as T, Q and the IPI figures. */
struct top_rec {
	int T, Q;		/* the point tune would give, else the cheapest */
	double cost_ms;
	const char *verdict;	/* tune's verdict on the events so far */
	bool settable;		/* T, Q are a point to set (not only the cheapest) */
	uint64_t stock_ipis, lazy_ipis, saved;
	struct tuner_counts point;	/* lazy(m->T, m->Q) from the per-CPU tables */
};
void top_recommend(const struct top_model *m, struct top_rec *r);

/* top-term.c: can curses draw on the terminal of stdout?  If not, why (@len bytes). */
bool top_term_usable(char *why, size_t len);

#endif
