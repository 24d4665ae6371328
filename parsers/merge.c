// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merge of per-CPU streams by (timestamp, CPU) (merge.h): a binary heap whose entries
 * carry their keys (a comparison reads one array) and know their place, so that a CPU's
 * next record moves it up or down in O(log CPUs).
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "merge.h"

bool ts_merge_wanted(int ncpus)
{
	const char *force = getenv("TLBSCOPE_MERGE_HEAP");

	if (force && (!strcmp(force, "0") || !strcmp(force, "1")))
		return force[0] == '1';
	return ncpus > MERGE_SCAN_CPUS;
}

void ts_merge_init(struct ts_merge *m, int ncpus)
{
	int n = ncpus > 0 ? ncpus : 1;

	m->n = 0;
	m->e = xcalloc(n, sizeof(*m->e));
	m->at = xcalloc(n, sizeof(*m->at));
	for (int i = 0; i < n; i++)
		m->at[i] = -1;
}

void ts_merge_release(struct ts_merge *m)
{
	free(m->e);
	free(m->at);
	*m = (struct ts_merge){ 0 };
}

/* Does @a's record come before @b's? */
static inline bool before(const struct ts_merge_entry *a, const struct ts_merge_entry *b)
{
	return a->ts < b->ts || (a->ts == b->ts && a->cpu < b->cpu);
}

static inline void place(struct ts_merge *m, int i, struct ts_merge_entry e)
{
	m->e[i] = e;
	m->at[e.cpu] = i;
}

static void sift_up(struct ts_merge *m, int i, struct ts_merge_entry e)
{
	while (i > 0) {
		int parent = (i - 1) / 2;

		if (!before(&e, &m->e[parent]))
			break;
		place(m, i, m->e[parent]);
		i = parent;
	}
	place(m, i, e);
}

static void sift_down(struct ts_merge *m, int i, struct ts_merge_entry e)
{
	for (;;) {
		int child = 2 * i + 1;

		if (child >= m->n)
			break;
		if (child + 1 < m->n && before(&m->e[child + 1], &m->e[child]))
			child++;
		if (!before(&m->e[child], &e))
			break;
		place(m, i, m->e[child]);
		i = child;
	}
	place(m, i, e);
}

void ts_merge_set(struct ts_merge *m, int cpu, uint64_t ts)
{
	struct ts_merge_entry e = { .ts = ts, .cpu = cpu };
	int i = m->at[cpu];

	if (i < 0)
		sift_up(m, m->n++, e);
	else if (ts < m->e[i].ts)
		sift_up(m, i, e);
	else
		sift_down(m, i, e);
}

void ts_merge_drop(struct ts_merge *m, int cpu)
{
	int i = m->at[cpu];
	struct ts_merge_entry last;

	if (i < 0)
		return;
	m->at[cpu] = -1;
	last = m->e[--m->n];
	if (i == m->n)
		return;
	/* the last entry fills the hole: it may belong above it or below */
	if (i > 0 && before(&last, &m->e[(i - 1) / 2]))
		sift_up(m, i, last);
	else
		sift_down(m, i, last);
}
