// SPDX-License-Identifier: GPL-2.0-only
/*
 * The set of analyses a command runs in one pass (analysis.h), looked up in the table
 * (table.c) by name.
 */
#include <string.h>

#include "analysis.h"

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
