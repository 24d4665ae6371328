/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Why the flush IPIs happen (analysis/explain.c): flush requests and IPIs by the kernel
 * path that asked, the sender x target matrix, per process the IPIs to CPUs not running
 * the mm, and the worst bursts.  Fed every resolved event in the one pass; the result is
 * for one IPI evidence source (timeline_ipi_source(), -1 none).
 */
#ifndef TLBSCOPE_ANALYSIS_EXPLAIN_H
#define TLBSCOPE_ANALYSIS_EXPLAIN_H

#include "analysis.h"

#define EXPLAIN_MAX_CALLERS	24
#define EXPLAIN_WORST		5
#define EXPLAIN_BURST_NS	10000000ULL	/* bursts are counted in 10 ms intervals */

struct explain_caller {
	char name[48];
	uint64_t requests;
	uint64_t ipis;		/* of the result's source; meaningless when it is -1 */
};

struct explain_mm_row {
	const struct tl_mm *mm;	/* NULL: an id the timeline no longer names ("?") */
	uint64_t ipis, not_running;
};

struct explain_burst {
	uint64_t start, ipis;	/* the interval's start (ns) and flush IPIs in it */
	const struct tl_mm *top_mm;	/* the mm that caused most of them, NULL unknown */
	uint64_t top_mm_ipis;
};

struct explain_result {
	int source;			/* the IPI evidence counted, -1 none */
	/* callers with a request or an IPI counted, most requests first */
	struct explain_caller callers[EXPLAIN_MAX_CALLERS];
	int ncallers;
	/* with a source: */
	int ncpus;
	bool unknown_sender;		/* IPIs whose sender the trace does not show */
	uint64_t *matrix;		/* (ncpus + 1) x ncpus: row 0 unknown sender, row f + 1 CPU f */
	struct explain_mm_row *rows;	/* processes by IPIs caused, most first */
	size_t nrows;
	/* target-side IPIs whose mm is unknown (no cross-call to the target seen before) */
	uint64_t mm_unknown;
	struct explain_burst worst[EXPLAIN_WORST];
	int nworst;
};

struct explain;
struct explain *explain_new(struct ts_source *src);
void explain_free(struct explain *x);
void explain_feed(void *ctx, struct timeline *tl, const struct ts_event *ev);	/* tl_emit_fn */
/* The finished result for evidence @s, after the stream ended; owned by @x. */
const struct explain_result *explain_result(struct explain *x, struct timeline *tl, int s);
/* IPIs from CPU @from (-1 unknown) to CPU @to in @r */
uint64_t explain_matrix_at(const struct explain_result *r, int from, int to);

extern const struct analysis_ops explain_analysis;

#endif
