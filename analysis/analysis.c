// SPDX-License-Identifier: GPL-2.0-only
/*
 * The table of analyses and the set a command runs in one pass (analysis.h).
 */
#include <string.h>

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

void *analysis_set_add(struct analysis_set *s, const char *name, struct ts_source *src,
		       const void *opts)
{
	for (int i = 0; analysis_table[i]; i++) {
		if (strcmp(analysis_table[i]->name, name) || s->n == ANALYSIS_SET_MAX)
			continue;
		s->ops[s->n] = analysis_table[i];
		s->state[s->n] = analysis_table[i]->new(src, opts);
		return s->state[s->n++];
	}
	return NULL;
}

void analysis_set_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct analysis_set *s = ctx;

	for (int i = 0; i < s->n; i++)
		s->ops[i]->feed(s->state[i], tl, ev);
}

void analysis_set_finish(struct analysis_set *s, struct timeline *tl)
{
	for (int i = 0; i < s->n; i++)
		if (s->ops[i]->finish)
			s->ops[i]->finish(s->state[i], tl);
}

void *analysis_set_get(const struct analysis_set *s, const char *name)
{
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->ops[i]->name, name))
			return s->state[i];
	return NULL;
}

void analysis_set_free(struct analysis_set *s)
{
	for (int i = 0; i < s->n; i++)
		s->ops[i]->free(s->state[i]);
	s->n = 0;
}
