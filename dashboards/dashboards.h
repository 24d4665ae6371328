/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * dashboards/ - the live view of `tlbscope top`: a model fed by the resolved event stream
 * (per-CPU rates, the lazy(T, Q) tables of every CPU, the processes behind the flush IPIs,
 * the tuner's running recommendation), a plain-text snapshot for batch mode, and the
 * ncurses screen.  This folder is the only code that includes curses.
 */
#ifndef TLBSCOPE_DASHBOARDS_H
#define TLBSCOPE_DASHBOARDS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../timeline/timeline.h"
#include "../tuner/tuner.h"

struct top_model;

/**
 * top_model_new - state of the live view
 * @T, @Q: the lazy(T, Q) point shown per CPU (MAX_LOADED_MM, MAX_TLB_FLUSH_TASK)
 * @ncpus: CPUs of the machine or trace (0 = unknown: sized by the events)
 * @pf: platform profile for the recommendation, copied
 * Returns a new model to be freed with top_model_free().
 */
struct top_model *top_model_new(int T, int Q, int ncpus, const struct platform *pf);
void top_model_free(struct top_model *m);
/*
 * top_model_recycle - give ended mms' ids back to @tl's new mms (timeline_recycle_mms()),
 * before the first event: the model's tables then stay as many as the address spaces
 * that live.  An ended mm's row is kept while it is among the TOP_PROCS most costly of
 * those ended, so the rows shown are the same as without.
 */
void top_model_recycle(struct top_model *m, struct timeline *tl);
/*
 * The source the model is fed from (borrowed while it is open): its kernel's command
 * line tells a lazy kernel's setting, the base of the advice, as tune reads it.
 */
void top_model_source(struct top_model *m, const struct ts_source_info *info);
/*
 * Whether the stream's own timings price the recommendation, as tune decides it: @given
 * (--machine), else @look, what this machine says of itself when top watches it live
 * ("vm (why)" or "metal (why)", copied; NULL: the input's own, as tlbscope record saw it).
 */
void top_model_machine(struct top_model *m, enum tuner_machine given, const char *look);

/* A timeline consumer (tl_emit_fn): feeds the tuner and the view's own state. */
void top_model_feed(void *model, struct timeline *tl, const struct ts_event *ev);
/* A replay is over: close what is still open (queues of absent mms), as tune does. */
void top_model_finish(struct top_model *m);

/*
 * top_model_tick - close one sampling interval: rates over the trace time since the last
 * tick, one more point of every sparkline.  @tl is borrowed for the call.
 */
void top_model_tick(struct top_model *m, struct timeline *tl);

/* What the driver knows and the model does not: shown in the header.  Strings borrowed. */
struct top_status {
	const char *source;	/* "live vm 6.18.44 x86_64" or "replay FILE (trace.dat)" */
	bool live;
	bool ended;		/* replay: the trace is over */
	double percent;		/* replay position, 0..100; < 0 unknown */
	double elapsed;		/* wall seconds since start */
	double event_rate;	/* events read per wall second, last interval; < 0 unknown */
	double speed;		/* replay speed; 0 = max */
	uint64_t lost;		/* events lost: markers in the stream plus ring overruns */
	uint64_t events;	/* events read so far */
	bool have_ts;		/* an event was read: first_ts, last_ts hold */
	uint64_t first_ts, last_ts;	/* trace clock of the events read, ns */
};

/* Widest line of a batch snapshot: @cols_env (COLUMNS, 0 unset) capped at 100. */
#define TOP_TEXT_MAX_WIDTH	100
int top_text_width(int cols_env);

/*
 * Print one plain-text snapshot (batch mode, -b) to @out, no line wider than @width
 * (see top_text_width()).
 */
void top_text_print(FILE *out, int width, const struct top_model *m, struct timeline *tl,
		    const struct top_status *st);

/* ---- the ncurses screen (top-view.c) ---- */

/* What a key asks of the loop (htop style): the handler never acts on the loop itself. */
#define TOP_KEY_HANDLED	0x01
#define TOP_KEY_REDRAW	0x02
#define TOP_KEY_QUIT	0x04
#define TOP_KEY_FASTER	0x08
#define TOP_KEY_SLOWER	0x10

struct top_view;

/*
 * Take over the terminal; NULL when it is not one curses can drive (a terminal without
 * cursor addressing, such as TERM=dumb, or one unknown to terminfo), with the reason in
 * @why (@len bytes).
 */
struct top_view *top_view_open(char *why, size_t len);
/* Give the terminal back as it was; accepts NULL. */
void top_view_close(struct top_view *v);
/* Redraw; a frozen view redraws what it showed when frozen (only the indicator says so). */
void top_view_draw(struct top_view *v, const struct top_model *m, struct timeline *tl,
		   const struct top_status *st);
/* Wait up to @timeout_ms for a key; returns TOP_KEY_* flags (0: no key). */
int top_view_key(struct top_view *v, int timeout_ms);
bool top_view_frozen(const struct top_view *v);

#endif
