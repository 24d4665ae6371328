// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lookahead ring's queries (timeline.c feeds the ring and takes events out of it).
 * For inputs tlbscope did not normalize itself, events wait in a queue of LOOKAHEAD
 * before they are processed, so that a task first switched to before
 * it ever ran gets its real process from a later event's tgid column, a sched_switch is
 * resolved with the switch_mm kprobe event that follows it on its CPU, and each CPU's mm
 * from before the trace is known when its first switch_mm arrives.
 * Invariants: events leave the ring in the order they entered (time order); memory is
 * LOOKAHEAD events whatever the trace's length; a normalized input bypasses the ring;
 * ring_loads is the number of LOAD_MM events in it (no event's kind changes while queued).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

/* The next queued event recorded on @cpu, or NULL (borrowed, valid until the next feed). */
struct ts_event *tl_ring_next_on_cpu(struct timeline *tl, int cpu)
{
	/* the index wrapped by a compare: a division per step was most of the walk */
	size_t at = tl->ring_head;

	for (size_t i = 0; i < tl->ring_len; i++) {
		struct ts_event *e = &tl->ring[at];

		if (e->cpu == cpu)
			return e;
		if (++at == tl->ring_cap)
			at = 0;
	}
	return NULL;
}

/*
 * Does a __flush_tlb_range event follow on @cpu before the CPU does anything else than take
 * interrupts (a caller probe's request is then that event's)?  Looks a few events ahead.
 */
bool tl_ring_request_follows(struct timeline *tl, int cpu)
{
	int seen = 0;

	for (size_t i = 0; i < tl->ring_len && seen < 64; i++) {
		struct ts_event *e = &tl->ring[(tl->ring_head + i) % tl->ring_cap];

		if (e->cpu != cpu)
			continue;
		seen++;
		if (e->kind == TS_EV_FLUSH && e->u.flush.src == TS_SRC_KPROBE &&
		    e->u.flush.role == TS_FLUSH_REQUEST)
			return e->u.flush.fflags & TS_FF_PTR;
		/* IPI handlers (csd, flushes run for others, their fences) may interleave */
		if (e->kind == TS_EV_IPI || e->kind == TS_EV_OTHER || e->kind == TS_EV_SFENCE ||
		    (e->kind == TS_EV_FLUSH && e->u.flush.role != TS_FLUSH_REQUEST))
			continue;
		return false;
	}
	return false;
}
