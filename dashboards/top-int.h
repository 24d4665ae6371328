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

/* An ended mm's row, kept after its id went to a new mm (top_model_recycle()). */
struct top_gone {
	struct top_mm c;
	uint64_t seq;			/* tl_mm.seq: the order rows tie in */
	char name[32], comm[TS_COMM_LEN];
	int32_t pid;
	uint64_t observed[TL_IPI__COUNT];	/* tl_mm.ipis_caused */
};

#define TOP_PROCS	64	/* process rows kept in a frame */

struct top_model {
	int T, Q;
	int ncpus;			/* arrays sized for this many */
	struct top_cpu *cpu;
	struct top_mm *mm;
	size_t nmm;
	/* the rows of ended mms whose ids were given back: the TOP_PROCS most costly, and
	 * how many others had requests */
	struct top_gone gone[TOP_PROCS];
	int ngone;
	uint64_t gone_more;
	struct tuner *tu;
	struct platform pf;
	int *grid_T, ngrid_T, *grid_Q, ngrid_Q;
	uint64_t first_ts, last_ts, tick_ts;	/* trace clock, ns */
	uint64_t ticks;
	uint64_t switches_fed;
	/* a lazy kernel's own evidence, for the base tune would use (tuner_find_base()) */
	struct tuner_lazy_kernel lk;
	/* by an event's probe or name string id: 1 one lk reads, 2 another, 0 not met yet */
	uint8_t *lk_probe;
	size_t nlk_probe;
	bool lazy_kernel;
	const struct ts_source_info *info;	/* the source's (its kernel's command line) */
	/* unit costs the stream shows: they price the advice off a virtual machine, as tune */
	struct tuner_measure *meas;
	uint64_t meas_tick;		/* tuner_measure_tick() of @meas */
	enum tuner_machine machine;	/* --machine */
	char *look;			/* live: what this machine says of itself, else NULL */
};

/* Rendering helpers shared by the text and curses screens. */
int top_ipi_src(struct timeline *tl);
uint64_t top_cpu_tx(const struct tl_cpu *c, int src);
uint64_t top_cpu_rx(const struct tl_cpu *c, int src);
int top_cpu_loaded(const struct top_model *m, int cpu, uint64_t *queued, bool *unknown);
/* A process row: a live mm's, or an ended one's kept in top_model.gone. */
struct top_row {
	const struct top_mm *c;
	uint64_t seq;
	const char *name, *comm;	/* comm "" unknown */
	int32_t pid;			/* -1 unknown */
	const uint64_t *observed;	/* its flush IPIs by source (tl_mm.ipis_caused) */
};
/*
 * The rows of mms with requests, by stock IPIs caused (most first); *@rows new (free()).
 * Returns the count; *@all the rows there are, with the ended ones not kept.
 */
size_t top_rows_by_ipis(const struct top_model *m, struct timeline *tl, struct top_row **rows,
			size_t *all);
/* Sparkline of the last @width points of @c into @buf (ASCII levels). */
void top_spark_ascii(const struct top_cpu *c, int width, double max, char *buf);
/* "p7029" / "-" */
const char *top_mm_name(struct timeline *tl, uint32_t mm);
/* The tuner's recommendation as T, Q and the IPI figures. */
struct top_rec {
	int T, Q;		/* the point tune would give, else the cheapest */
	double cost_ms;
	double stock_ms;	/* stock_asid's cost on the same basis */
	const char *arch;	/* the traced kernel's, where the advice is not for it */
	/*
	 * why flush requests, local flushes and what comes of them are unknown; NULL known.
	 * Set only once events came, so @verdict is set with it.
	 */
	const char *requests_unknown;
	const char *verdict;	/* tune's verdict on the events so far */
	bool settable;		/* T, Q are a point to set (not only the cheapest) */
	bool measured;		/* a figure of the stream's own timings prices it */
	uint64_t stock_ipis, lazy_ipis, saved;
	struct tuner_counts point;	/* lazy(m->T, m->Q) from the per-CPU tables */
};
void top_recommend(const struct top_model *m, const struct timeline *tl, struct top_rec *r);

/* ---- top-cols.c: tables that fit a width ---- */

#define TOP_COL_RANK_MAX	16
#define TOP_COLS_MAX		24

/*
 * A column of a table.  Ranks: when the width is short, rank 16 goes first, 1 last, 0
 * never; at each rank columns are narrowed (to @narrow) before any is dropped.
 */
struct top_col {
	const char *name;	/* header; also what the drop marker names */
	int width;		/* characters, at least strlen(name); 0 = not in this table */
	int narrow;		/* abbreviated width (text cut with '~'), 0 none */
	int drop_rank, narrow_rank;
	bool left;		/* text, left-aligned; numbers are right-aligned */
	bool flex;		/* the last column: takes what is left, @width its minimum */
};

/* What fits: the width of each column shown, 0 dropped. */
struct top_fit {
	int n;
	int w[TOP_COLS_MAX];
	int ndropped;
	int width;		/* of the widest line, flex column included */
};

/* Choose the columns of @c (@n) that fit in @width. */
void top_cols_fit(const struct top_col *c, int n, int width, struct top_fit *f);
/*
 * One line of the table into @buf (@len bytes): @cells[i] for column i, or the header when
 * @cells is NULL.  A flex column's cells are left to the caller (a sparkline), which
 * draws them from the returned offset; its header is written.  Returns the length.
 */
size_t top_cols_line(const struct top_col *c, const struct top_fit *f, const char *const *cells,
		     char *buf, size_t len);
/*
 * The marker of what did not fit: "+3 cols: MM PROC PID (@why)", least needed first;
 * "" when everything fits.  Returns the length.
 */
size_t top_cols_marker(const struct top_col *c, const struct top_fit *f, const char *why,
		       char *buf, size_t len);
/*
 * Copy @s into @dst (@size bytes), at most @width characters (8 at least): when @s is
 * longer its middle becomes "...", so that its start ("replay", "live") and its end (the
 * file name, the instance) stay.
 */
void top_elide_middle(char *dst, size_t size, const char *s, int width);
/* @v in at most @width characters: 1234567 in 6 is "1235k", in 4 "1.2M"; < 0 is "-". */
void top_fmt_count(char *buf, size_t len, int width, double v);

/* ---- top-frame.c: what one screen or snapshot shows, as text and numbers ---- */

enum top_cpu_col {
	TC_CPU, TC_TASK, TC_PID, TC_PROC, TC_MM, TC_SWITCHES, TC_SW, TC_IPI_TX, TC_TX, TC_IPI_RX,
	TC_RX, TC_LOCAL, TC_LOCAL_S, TC_LOADED, TC_QUEUED, TC_EVICT, TC_HIST, TC__COUNT
};
enum top_proc_col {
	TP_MM, TP_PID, TP_COMMAND, TP_REQUESTS, TP_STOCK, TP_LAZY, TP_DEFERRED, TP_OBSERVED,
	TP__COUNT
};
/* The CPU table of the screen (rates) and of batch snapshots (totals too); the processes. */
extern const struct top_col top_cpu_cols_screen[TC__COUNT];
extern const struct top_col top_cpu_cols_batch[TC__COUNT];
extern const struct top_col top_proc_cols[TP__COUNT];

#define TOP_CELL	32
struct top_frame_cpu {
	int cpu;
	char cell[TC__COUNT][TOP_CELL];	/* "-" where unknown */
	struct top_cpu c;		/* rates (sort keys), sparkline and strip, copied */
};

/*
 * A frame: everything the screen or a snapshot shows, taken at one moment, so that a
 * frozen screen can be redrawn (sorted, resized) without a number moving.
 */
struct top_frame {
	struct top_status st;		/* ->source borrowed from the driver */
	char trace_time[48];		/* "13.476 s", or "n/a (no events yet)" */
	char event_rate[24];		/* "30443/s", or "n/a" before a second interval */
	int T, Q;
	const char *ipi_src;		/* static name, NULL while none is seen */
	char pf_name[96];		/* the profile's, and whether timings priced it */
	int ncpu;
	struct top_frame_cpu *cpu;
	int nproc;			/* rows in @proc, at most TOP_PROCS */
	size_t nproc_all;		/* processes with flush requests */
	char (*proc)[TP__COUNT][TOP_CELL];
	struct top_rec rec;
	uint64_t sw, tx, rx, local;	/* totals of the CPUs */
	bool have_ipis;			/* an IPI source is known: tx/rx are counts */
};

/* Fill @f (zeroed or filled before) from the model now; @tl borrowed for the call. */
void top_frame_fill(struct top_frame *f, const struct top_model *m, struct timeline *tl,
		    const struct top_status *st);
void top_frame_release(struct top_frame *f);

/* top-term.c: can curses draw on the terminal of stdout?  If not, why (@len bytes). */
bool top_term_usable(char *why, size_t len);

#endif
