// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of analyses (analysis.h): every analysis a command can run, by name.  The
 * only file that knows them all; analysis.c runs a set of them without knowing any.
 */
#include "../tuner/tuner.h"
#include "explain.h"
#include "export.h"

/* report's account of sfence.vma (tuner/sfence.c): @opts a struct sfence_opts */
static void *sfence_new_op(struct ts_source *src, const void *opts)
{
	return sfence_new(opts);
}

static void sfence_free_op(void *state)
{
	sfence_free(state);
}

static const struct analysis_ops sfence_analysis = {
	.name = "sfence", .new = sfence_new_op, .feed = sfence_feed, .free = sfence_free_op,
};

const struct analysis_ops *const analysis_table[] = {
	&explain_analysis, &sfence_analysis, &export_scan_ops, &export_model_ops, NULL
};
