/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Per-CPU streams merged by time on machines of many CPUs: a binary min-heap of the CPUs
 * that have a next record, by (timestamp, CPU), so that a pick costs O(log CPUs) instead
 * of a look at every CPU (a 64-hart machine's trace looked at 64 heads per event).  Among
 * equal timestamps the lowest CPU comes first, as the readers' scan in CPU order picks;
 * up to MERGE_SCAN_CPUS CPUs that scan is cheaper, and they keep it.
 */
#ifndef TLBSCOPE_PARSERS_MERGE_H
#define TLBSCOPE_PARSERS_MERGE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * The most CPUs a reader scans: bench/merge.c's heap took 1.5 times the scan's time at 4
 * CPUs, 1.1 at 8, 0.8 at 12 and a third at 64
 */
#define MERGE_SCAN_CPUS	8

struct ts_merge_entry {
	uint64_t ts;		/* the CPU's next record's timestamp */
	int cpu;
};

struct ts_merge {
	int n;				/* CPUs that have a next record */
	struct ts_merge_entry *e;	/* the heap: e[0] the CPU whose record comes next */
	int *at;			/* CPU -> its place in e[], -1 none */
};

/*
 * Should a reader of @ncpus CPUs merge through the heap?  Past MERGE_SCAN_CPUS, unless
 * TLBSCOPE_MERGE_HEAP says 1 (always) or 0 (never): the tests compare the two.
 */
bool ts_merge_wanted(int ncpus);

/* Empty, for CPUs 0 .. @ncpus - 1. */
void ts_merge_init(struct ts_merge *m, int ncpus);
void ts_merge_release(struct ts_merge *m);

/* @cpu's next record is at @ts: put in, or moved (a timestamp may go back: bad input). */
void ts_merge_set(struct ts_merge *m, int cpu, uint64_t ts);
/* @cpu has no next record (drained): taken out, if it was in. */
void ts_merge_drop(struct ts_merge *m, int cpu);

/* The CPU whose record comes next, -1 none. */
static inline int ts_merge_first(const struct ts_merge *m)
{
	return m->n ? m->e[0].cpu : -1;
}

#endif
