/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * export's model (analysis/export-model.c): the trace as things a trace viewer draws.
 */
#ifndef TLBSCOPE_ANALYSIS_EXPORT_H
#define TLBSCOPE_ANALYSIS_EXPORT_H

#include "analysis.h"

/*
 * export - the trace as things a trace viewer draws, for cli/'s renderers (Chrome JSON,
 * Perfetto protobuf).  Two passes over the input: export_scan_ops decides what the whole
 * trace shows (which IPI evidence it counts, where it starts, whether targets' handler
 * entries are traced; or, run on the trace's beginning only, guesses it, and the drawing
 * says whether the guess held), then export_model_ops, given that, turns the timeline's events into
 * a stream of struct export_draw, handed to a sink as they become known.  Every decision
 * (what is in the window, which IPIs count, where an arrow ends, the counters' values) is
 * the model's; a renderer only writes the bytes of each.
 */
struct export_scan {
	int ipi_source;		/* timeline_ipi_source() of the trace, -1 none */
	uint64_t first_ts;	/* ns, trace clock: the first event */
	int ncpus;		/* CPUs: the input's count, or the highest seen + 1 */
	bool entries;		/* targets entering the flush handler are traced */
};

/*
 * the first pass: new(src, const struct export_scan_opts * or NULL); after finish(),
 * export_scan_get(): what the trace shows (when it read only the beginning: what the
 * beginning shows, the guess)
 */
extern const struct analysis_ops export_scan_ops;
struct export_scan_opts {
	/*
	 * @src passes over all but the flush requests and IPIs (ts_source_only()): the scan
	 * narrows it to the IPIs once the requests can no longer change what it decides
	 * (a trace with a flush IPI event of its cross-calls: an x86 trace's tlb_flush
	 * events, millions, are then passed over too)
	 */
	bool narrow;
};
/*
 * Whether the first pass has read enough of the trace's beginning (its first @n events
 * into @tl) to guess what the whole shows: its IPI evidence and handler entries, or
 * EXPORT_GUESS_MAX events without them; EXPORT_GUESS_IPIS flush IPIs of the evidence (or
 * EXPORT_GUESS_MAX events); of the two csd events, proportions far from the line the
 * choice between them draws (never, when they stay near it: the whole trace decides).
 */
#define EXPORT_GUESS_MAX	(1u << 18)
#define EXPORT_GUESS_IPIS	4096
bool export_scan_enough(void *state, const struct timeline *tl, uint64_t n);
void export_scan_get(const void *state, struct export_scan *out);

enum export_what {
	EXPORT_SLICE,	/* what ran on @cpu (a task, or idle) from @ts to u.slice.end */
	EXPORT_REQUEST,	/* a flush request made on @cpu at @ts */
	EXPORT_IPI,	/* a flush IPI at @ts, on the sender's track (the target's when the
			 * sender is unknown); a flow begins there when u.ipi.flow != 0 */
	EXPORT_FLOW_END,	/* flow u.flow_end.id ends on @cpu's track at @ts */
	EXPORT_COUNTER,	/* u.counter.which's value from @ts on */
};

enum export_counter { EXPORT_IPIS_PER_S, EXPORT_DEFERRALS_PER_S };

/*
 * One thing to draw; strings borrowed for the call (a slice's comm is the draw's own),
 * NULL where unknown.  Times are ns, already rebased (struct export_model_opts.base
 * subtracted).  A slice is drawn once it has ended (then its part inside --from/--to is
 * known), so slices come in the order they end, other things in the order they happened;
 * a flow's end always comes after its begin.
 */
struct export_draw {
	enum export_what what;
	int cpu;			/* the track */
	uint64_t ts;
	union {
		struct {
			uint64_t end;
			bool idle;
			int32_t pid, tgid;	/* tgid -1: unknown */
			char comm[TS_COMM_LEN];	/* NUL-terminated: kept as a copy */
			const char *mm;
		} slice;
		struct {
			const char *mm, *scope, *event;
			uint64_t pages;		/* of a range flush; 0 none given */
		} request;
		struct {
			int from, to;		/* from -1: unknown */
			const char *mm;
			uint64_t flow;		/* 0: none (sender unknown, or itself) */
		} ipi;
		struct {
			uint64_t id;
			bool at_entry;	/* at the target's handler entry, else at the send */
		} flow_end;
		struct {
			enum export_counter which;
			double per_s;
		} counter;
	} u;
};

struct export_sink {
	void (*draw)(void *ctx, const struct export_draw *d);
	void *ctx;
};

struct export_model_opts {
	struct export_scan scan;	/* the first pass's */
	uint64_t base;			/* ns subtracted from every time drawn */
	uint64_t interval;		/* ns: the counters' bucket */
	const struct tl_filter *filter;	/* --from/--to (absolute)/-C; NULL none; borrowed */
	int T, Q;			/* the lazy model's point whose deferrals are counted */
	int tlb_reach_mms;		/* the platform's */
	struct export_sink sink;
};

struct export_counts {
	uint64_t slices, requests, ipis, flows, flows_at_entry;
};

/* the second pass: new(src, const struct export_model_opts *); counts after finish() */
extern const struct analysis_ops export_model_ops;
void export_model_counts(const void *state, struct export_counts *out);
/*
 * After finish(): whether the whole trace showed the scan the drawing was given (so a
 * scan guessed from the trace's beginning held); what it showed in *@seen either way.
 */
bool export_model_scan_held(const void *state, struct export_scan *seen);

#endif
