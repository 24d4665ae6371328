// SPDX-License-Identifier: GPL-2.0-only
/*
 * The lookahead ring.  For inputs tlbscope did not normalize itself, events wait in a
 * queue of LOOKAHEAD before they are processed, so that a task first switched to before
 * it ever ran gets its real process from a later event's tgid column, a sched_switch is
 * resolved with the switch_mm kprobe event that follows it on its CPU, and each CPU's mm
 * from before the trace is known when its first switch_mm arrives.
 * Invariants: events leave the ring in the order they entered (time order); memory is
 * LOOKAHEAD events whatever the trace's length; a normalized input bypasses the ring.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

/* The next queued event recorded on @cpu, or NULL (borrowed, valid until the next feed). */
struct ts_event *tl_ring_next_on_cpu(struct timeline *tl, int cpu)
{
	for (size_t i = 0; i < tl->ring_len; i++) {
		struct ts_event *e = &tl->ring[(tl->ring_head + i) % tl->ring_cap];

		if (e->cpu == cpu)
			return e;
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

/* Learn the tgid of the current task from the trace's tgid column. */
void tl_learn_tgid(struct timeline *tl, const struct ts_event *ev)
{
	struct task *t;

	if (!(ev->flags & TS_F_TGID) || ev->pid <= 0 || ev->tgid <= 0)
		return;
	t = tl_task_find(tl, ev->pid);
	if (!t || !t->tgid_guessed || t->kthread)
		return;
	t->tgid_guessed = false;
	if (t->tgid != ev->tgid) {
		t->tgid = ev->tgid;
		t->mm = tl_process_mm(tl, ev->tgid, ev->comm, TL_HOW_TGID, ev->ts);
	}
}

static void ring_pop(struct timeline *tl, tl_emit_fn emit, void *ctx)
{
	struct ts_event *ev = &tl->ring[tl->ring_head];

	tl->ring_head = (tl->ring_head + 1) % tl->ring_cap;
	tl->ring_len--;
	tl_process(tl, ev, emit, ctx);
}

void timeline_feed(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx)
{
	if (ev->kind == TS_EV_IPI || ev->kind == TS_EV_FLUSH)
		tl->evidence[ev->kind == TS_EV_IPI ? ev->u.ipi.src : ev->u.flush.src]
			    [!!(ev->flags & TS_F_TLB) || ev->kind == TS_EV_FLUSH]++;
	if (ev->kind == TS_EV_LOAD_MM && ev->u.load.commit)
		tl->saw_commit = true;
	else if (ev->kind == TS_EV_LOAD_MM && !(ev->flags & TS_F_MM_GIVEN)) {
		tl->saw_load_mm = true;
		if (tl->ring_cap && ev->cpu >= 0 && ev->cpu < TS_MAX_CPUS &&
		    tl->initial[ev->cpu].state == INITIAL_NONE) {
			tl->initial[ev->cpu].state = ev->u.load.prev ? INITIAL_PENDING :
								       INITIAL_DONE;
			tl->initial[ev->cpu].ptr = ev->u.load.prev;
			tl->initial_pending += !!ev->u.load.prev;
			tl_cpu_get(tl, ev->cpu);
		}
	}
	if (ev->kind == TS_EV_TGID)
		tl_table_learn(tl, ev);
	if (!tl->ring_cap) {
		tl_process(tl, ev, emit, ctx);
		return;
	}
	if ((ev->flags & TS_F_TGID) && ev->pid > 0 && ev->tgid > 0)
		*u64map_get(&tl->tgid_hint, (uint32_t)ev->pid, 0, NULL) = (uint32_t)ev->tgid;
	if (tl->ring_len == tl->ring_cap)
		ring_pop(tl, emit, ctx);
	tl->ring[(tl->ring_head + tl->ring_len) % tl->ring_cap] = *ev;
	tl->ring_len++;
}

void timeline_finish(struct timeline *tl, tl_emit_fn emit, void *ctx)
{
	while (tl->ring_len)
		ring_pop(tl, emit, ctx);
	for (int i = 0; i < tl->ncpus; i++)
		tl_account_interval(tl, i, tl->last_ts);
	for (int i = 0; i < tl->ncpus; i++)
		tl->cpus[i].since = tl->last_ts;
}
