/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * analysis/ - what the commands compute from the timeline, as plain result structs: each
 * analysis is fed the timeline's events in one pass and finished into a result that the
 * renderers of cli/ print (text, JSON, SVG, trace viewers) without arithmetic of their own.
 * Between tuner/ (the models) and cli/ (argv and printing); it never prints.
 */
#ifndef TLBSCOPE_ANALYSIS_H
#define TLBSCOPE_ANALYSIS_H

#include "../timeline/timeline.h"

/*
 * One analysis: new() makes its state for the opened source, feed() sees every event the
 * timeline emits (tl_emit_fn's arguments), finish() completes it once the stream ended
 * (the timeline finished), free() releases it.  A command runs the table's entries it
 * needs in one pass.
 */
struct analysis_ops {
	const char *name;
	void *(*new)(struct ts_source *src, const void *opts);
	void (*feed)(void *state, struct timeline *tl, const struct ts_event *ev);
	void (*finish)(void *state, struct timeline *tl);
	void (*free)(void *state);
};

/*
 * Every analysis of the table, by name: explain, sfence (report's account of fences),
 * export-scan and export (export's two passes, export.h)
 */
extern const struct analysis_ops *const analysis_table[];

/*
 * The analyses one command runs in its one pass: analysis_set_add() each (by name, from
 * the table), analysis_set_feed() as the timeline's consumer, analysis_set_finish() at
 * the end, analysis_set_get() for a state to read its result.
 */
#define ANALYSIS_SET_MAX	8
struct analysis_set {
	int n;
	const struct analysis_ops *ops[ANALYSIS_SET_MAX];
	void *state[ANALYSIS_SET_MAX];
};

/* Add analysis @name (of the table) with @opts; its new state, NULL for an unknown name. */
void *analysis_set_add(struct analysis_set *s, const char *name, struct ts_source *src,
		       const void *opts);
void analysis_set_feed(void *ctx, struct timeline *tl, const struct ts_event *ev);
void analysis_set_finish(struct analysis_set *s, struct timeline *tl);
/* The state of analysis @name in @s, NULL when it was not added. */
void *analysis_set_get(const struct analysis_set *s, const char *name);
void analysis_set_free(struct analysis_set *s);

#endif
