// SPDX-License-Identifier: GPL-2.0-only
/*
 * A frame of `tlbscope top`: what one screen or snapshot shows, taken from the model at
 * one moment and turned into text, with "-" or "n/a" where a value is unknown.  The
 * renderers (top-view.c, top-text.c) lay frames out and do no arithmetic; a frozen screen
 * keeps its frame.  The column tables, with the order in which columns give way to a short
 * width, are here next to the cells they describe.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "top-int.h"

/*
 * Ranks (top_cols_fit()): on a short screen the identity columns (MM, PROC, PID) go
 * first, TASK is abbreviated, then the sparkline and the rates, and the lazy table's
 * columns last: they are what only this tool shows.  80 columns keep CPU, TASK, every rate
 * and the lazy table; 100 lose MM only.
 */
const struct top_col top_cpu_cols_screen[TC__COUNT] = {
	[TC_CPU] = { "CPU", 4, 0, 0, 0, false, false },
	[TC_TASK] = { "TASK", 15, 9, 1, 10, true, false },
	[TC_PID] = { "PID", 7, 0, 9, 0, false, false },
	[TC_PROC] = { "PROC", 7, 0, 11, 0, false, false },
	[TC_MM] = { "MM", 10, 0, 12, 0, true, false },
	[TC_SW] = { "SW/S", 6, 0, 5, 0, false, false },
	[TC_TX] = { "TX/S", 6, 0, 3, 0, false, false },
	[TC_RX] = { "RX/S", 6, 0, 2, 0, false, false },
	[TC_LOCAL_S] = { "LOCAL/S", 7, 0, 7, 0, false, false },
	[TC_LOADED] = { "LOADED", 6, 0, 1, 0, false, false },
	[TC_QUEUED] = { "QUEUED", 6, 0, 6, 0, false, false },
	[TC_EVICT] = { "EVICT/S", 7, 0, 4, 0, false, false },
	[TC_HIST] = { "RX_HISTORY", 10, 0, 8, 0, true, true },
};

/*
 * Batch snapshots add the totals, which a log is read for (and which `report` confirms):
 * they stay longest.  In 100 columns MM, PROC, PID and the history give way.
 */
const struct top_col top_cpu_cols_batch[TC__COUNT] = {
	[TC_CPU] = { "CPU", 4, 0, 0, 0, false, false },
	[TC_TASK] = { "TASK", 15, 9, 1, 10, true, false },
	[TC_PID] = { "PID", 7, 0, 9, 0, false, false },
	[TC_PROC] = { "PROC", 7, 0, 11, 0, false, false },
	[TC_MM] = { "MM", 10, 0, 12, 0, true, false },
	[TC_SWITCHES] = { "SWITCHES", 8, 0, 1, 0, false, false },
	[TC_SW] = { "SW/S", 6, 0, 5, 0, false, false },
	[TC_IPI_TX] = { "IPI_TX", 7, 0, 1, 0, false, false },
	[TC_TX] = { "TX/S", 6, 0, 5, 0, false, false },
	[TC_IPI_RX] = { "IPI_RX", 7, 0, 1, 0, false, false },
	[TC_RX] = { "RX/S", 6, 0, 5, 0, false, false },
	[TC_LOCAL] = { "LOCAL", 7, 0, 2, 0, false, false },
	[TC_LOCAL_S] = { "LOCAL/S", 7, 0, 7, 0, false, false },
	[TC_LOADED] = { "LOADED", 6, 0, 2, 0, false, false },
	[TC_QUEUED] = { "QUEUED", 6, 0, 4, 0, false, false },
	[TC_EVICT] = { "EVICT/S", 7, 0, 4, 0, false, false },
	[TC_HIST] = { "RX_HISTORY", 10, 0, 8, 0, true, true },
};

const struct top_col top_proc_cols[TP__COUNT] = {
	[TP_MM] = { "MM", 10, 0, 5, 0, true, false },
	[TP_PID] = { "PID", 7, 0, 4, 0, false, false },
	[TP_COMMAND] = { "COMMAND", 15, 9, 1, 3, true, false },
	[TP_REQUESTS] = { "REQUESTS", 8, 0, 2, 0, false, false },
	[TP_STOCK] = { "STOCK_IPIS", 10, 0, 0, 0, false, false },
	[TP_LAZY] = { "LAZY_IPIS", 9, 0, 0, 0, false, false },
	[TP_DEFERRED] = { "DEFERRED", 8, 0, 2, 0, false, false },
	[TP_OBSERVED] = { "OBSERVED", 8, 0, 3, 0, false, false },
};

/* A count or rate in the width of column @col of @cols (the same in every table); < 0 "-". */
static void num(char *cell, const struct top_col *cols, int col, double v)
{
	top_fmt_count(cell, TOP_CELL, cols[col].width, v);
}

/* CPU @i's cells; @src the flush IPIs' evidence (< 0 none), @requests flush requests known */
static void fill_cpu(struct top_frame_cpu *fc, const struct top_model *m, struct timeline *tl,
		     int i, int src, bool requests)
{
	const struct top_col *cols = top_cpu_cols_screen;
	const struct top_cpu *c = &m->cpu[i];
	const struct tl_cpu *t = i < timeline_cpus(tl) ? timeline_cpu(tl, i) : NULL;
	const struct tl_mm *mm = c->mm ? timeline_mm(tl, c->mm) : NULL;
	/* rates need a whole interval of trace time behind them */
	bool rates = m->ticks > 0;
	uint64_t queued;
	bool unknown;
	int loaded = top_cpu_loaded(m, i, &queued, &unknown);
	char (*cell)[TOP_CELL] = fc->cell;

	fc->cpu = i;
	fc->c = *c;
	if (!rates)
		fc->c.r_sw = fc->c.r_tx = fc->c.r_rx = fc->c.r_local = fc->c.r_evict = -1;
	snprintf(cell[TC_CPU], TOP_CELL, "%d", i);
	/* a CPU with no switch seen: its task is unknown, never pid -1 */
	snprintf(cell[TC_TASK], TOP_CELL, "%s", c->pid >= 0 && c->comm[0] ? c->comm : "-");
	if (c->pid >= 0)
		snprintf(cell[TC_PID], TOP_CELL, "%d", c->pid);
	else
		snprintf(cell[TC_PID], TOP_CELL, "-");
	if (mm && mm->pid >= 0)
		snprintf(cell[TC_PROC], TOP_CELL, "%d", mm->pid);
	else
		snprintf(cell[TC_PROC], TOP_CELL, "-");
	snprintf(cell[TC_MM], TOP_CELL, "%s", top_mm_name(tl, c->mm));
	cols = top_cpu_cols_batch;
	num(cell[TC_SWITCHES], cols, TC_SWITCHES, t ? (double)t->switches : -1);
	num(cell[TC_IPI_TX], cols, TC_IPI_TX, t && src >= 0 ? (double)top_cpu_tx(t, src) : -1);
	num(cell[TC_IPI_RX], cols, TC_IPI_RX, t && src >= 0 ? (double)top_cpu_rx(t, src) : -1);
	num(cell[TC_LOCAL], cols, TC_LOCAL,
	    t && requests ? (double)timeline_local_flushes(tl, i) : -1);
	num(cell[TC_SW], cols, TC_SW, fc->c.r_sw);
	num(cell[TC_TX], cols, TC_TX, src >= 0 ? fc->c.r_tx : -1);
	num(cell[TC_RX], cols, TC_RX, src >= 0 ? fc->c.r_rx : -1);
	num(cell[TC_LOCAL_S], cols, TC_LOCAL_S, requests ? fc->c.r_local : -1);
	/* "N?": its table may also hold mms loaded before the trace began */
	snprintf(cell[TC_LOADED], TOP_CELL, unknown ? "%d?/%d" : "%d/%d", loaded, m->T);
	/* local flushes and the flushes queued come from requests: unknown without them */
	num(cell[TC_QUEUED], cols, TC_QUEUED, requests ? (double)queued : -1);
	num(cell[TC_EVICT], cols, TC_EVICT, fc->c.r_evict);
	cell[TC_HIST][0] = '\0';
}

static void fill_procs(struct top_frame *f, const struct top_model *m, struct timeline *tl,
		       int src)
{
	struct top_row *rows;
	size_t all, n = top_rows_by_ipis(m, tl, &rows, &all);

	f->nproc_all = all;
	f->nproc = n < TOP_PROCS ? (int)n : TOP_PROCS;
	free(f->proc);
	f->proc = xcalloc(f->nproc ? f->nproc : 1, sizeof(*f->proc));
	for (int k = 0; k < f->nproc; k++) {
		const struct top_row *r = &rows[k];
		char (*cell)[TOP_CELL] = f->proc[k];
		const struct top_col *cols = top_proc_cols;

		snprintf(cell[TP_MM], TOP_CELL, "%s", r->name);
		if (r->pid >= 0)
			snprintf(cell[TP_PID], TOP_CELL, "%d", r->pid);
		else
			snprintf(cell[TP_PID], TOP_CELL, "-");
		snprintf(cell[TP_COMMAND], TOP_CELL, "%s", r->comm[0] ? r->comm : "-");
		num(cell[TP_REQUESTS], cols, TP_REQUESTS, (double)r->c->requests);
		num(cell[TP_STOCK], cols, TP_STOCK, (double)r->c->stock_ipis);
		num(cell[TP_LAZY], cols, TP_LAZY, (double)r->c->lazy_ipis);
		num(cell[TP_DEFERRED], cols, TP_DEFERRED, (double)r->c->deferred);
		/* the kernel's own count needs to know which events are its flush IPIs */
		num(cell[TP_OBSERVED], cols, TP_OBSERVED, src >= 0 ? (double)r->observed[src] : -1);
	}
	free(rows);
}

void top_frame_fill(struct top_frame *f, const struct top_model *m, struct timeline *tl,
		    const struct top_status *st)
{
	int src = top_ipi_src(tl);
	int ncpu = timeline_cpus(tl) < m->ncpus ? timeline_cpus(tl) : m->ncpus;

	f->st = *st;
	if (!st->have_ts)
		snprintf(f->trace_time, sizeof(f->trace_time), "n/a (no events yet)");
	else
		snprintf(f->trace_time, sizeof(f->trace_time), "%.3f s",
			 (st->last_ts - st->first_ts) / 1e9);
	if (st->event_rate < 0)
		snprintf(f->event_rate, sizeof(f->event_rate), "n/a");
	else
		snprintf(f->event_rate, sizeof(f->event_rate), "%.0f/s", st->event_rate);
	f->T = m->T;
	f->Q = m->Q;
	f->ipi_src = src >= 0 ? timeline_ipi_source_name(src) : NULL;
	f->have_ipis = src >= 0;
	f->ncpu = ncpu > 0 ? ncpu : 0;
	free(f->cpu);
	f->cpu = xcalloc(f->ncpu ? f->ncpu : 1, sizeof(*f->cpu));
	f->sw = f->tx = f->rx = f->local = 0;
	top_recommend(m, tl, &f->rec);
	/* the profile, and the stream's own timings where they replace its figures (tune -v) */
	snprintf(f->pf_name, sizeof(f->pf_name), "%s%s", m->pf.name,
		 f->rec.measured ? " + timings measured" : "");
	for (int i = 0; i < f->ncpu; i++) {
		const struct tl_cpu *t = timeline_cpu(tl, i);

		fill_cpu(&f->cpu[i], m, tl, i, src, !f->rec.requests_unknown);
		f->sw += t->switches;
		f->tx += top_cpu_tx(t, src);
		f->rx += top_cpu_rx(t, src);
		f->local += timeline_local_flushes(tl, i);
	}
	fill_procs(f, m, tl, src);
}

void top_frame_release(struct top_frame *f)
{
	if (!f)
		return;
	free(f->cpu);
	free(f->proc);
	memset(f, 0, sizeof(*f));
}
