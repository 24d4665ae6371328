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

#endif
