// SPDX-License-Identifier: GPL-2.0-only
/*
 * Giving ended mms' ids back (timeline_recycle_mms()), so that a consumer that runs for
 * ever (live top) keeps as many ids, and table rows, as address spaces live at once.
 *
 * An id is given back only when nothing can name its old mm again; what could:
 *  - a task whose mm (or exec_old) it is: counted per id on every change (tl_task_mm()).
 *    An exited task holds it until it has been switched out TL_GONE_NS; then it is taken
 *    to be gone and leaves the tables by pid (and its process those by tgid once its mm
 *    ended), so that they too stay as many as the tasks that live;
 *  - a CPU's loaded mm or the mm its last cross-call came from;
 *  - the maps by tgid and by pointer, and the "dying" marks: their values carry the mm's
 *    seq beside the id, and a value whose seq is not the id's now reads as one ended
 *    stand-in (@gone);
 *  - the consumer: tl_recycle.mark.
 * Ended ids and gone tasks are looked at in batches (a quarter of the ids or of the tasks,
 * at least COLLECT_MIN), at an event's start, when no caller holds an id in a local.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

#define COLLECT_MIN	64

static size_t max_size(size_t a, size_t b)
{
	return a > b ? a : b;
}

void tl_recycle_start(struct timeline *tl, const struct tl_recycle *r, uint32_t gone)
{
	tl->rc = r ? *r : (struct tl_recycle){ 0 };
	tl->gone = gone;
	ALLOC_GROW_ZERO(tl->users, tl->nmms, tl->users_alloc);
	tl->collect_at = tl->leave_at = COLLECT_MIN;
	tl->recycle = true;
}

uint64_t timeline_mms_recycled(const struct timeline *tl)
{
	return tl->recycled;
}

void tl_recycle_ended(struct timeline *tl, uint32_t mm)
{
	if (tl->mms[mm].how == TL_HOW_GIVEN || mm == tl->gone)
		return;
	ALLOC_GROW(tl->ended, tl->nended + 1, tl->ended_alloc);
	tl->ended[tl->nended++] = mm;
}

void tl_recycle_left(struct timeline *tl, struct task *t, uint64_t ts)
{
	t->out_ts = ts;
	ALLOC_GROW(tl->leaving, tl->nleaving + 1, tl->leaving_alloc);
	tl->leaving[tl->nleaving++] = (struct leaving){ t->pid, ts };
}

uint32_t tl_recycle_take(struct timeline *tl)
{
	tl->recycled++;
	return tl->free_ids[--tl->nfree];
}

/*
 * Task @t is gone: it leaves the tables by pid (its pid, met again, is a new task), and
 * when its process's mm ended, so do the process's entries by tgid.
 */
static void task_remove(struct timeline *tl, struct task *t)
{
	int32_t pid = t->pid;
	size_t at = *u64map_find(&tl->pid_task, (uint32_t)pid), last = tl->ntasks - 1;
	uint64_t *v = u64map_find(&tl->tgid_mm, (uint32_t)t->tgid);

	if (v && tl->mms[tl_mm_deref(tl, *v)].exited) {
		u64map_del(&tl->tgid_mm, (uint32_t)t->tgid);
		u64map_del(&tl->tgid_execs, (uint32_t)t->tgid);
	}
	u64map_del(&tl->task_table, (uint32_t)pid);
	tl_task_mm(tl, t, 0);
	tl_task_exec_old(tl, t, 0);
	u64map_del(&tl->pid_task, (uint32_t)pid);
	if (at != last) {
		/* the last task takes its place (a cached index of it is then past the end) */
		tl->tasks[at] = tl->tasks[last];
		*u64map_find(&tl->pid_task, (uint32_t)tl->tasks[at].pid) = at;
	}
	tl->ntasks--;
}

/* Exited tasks out for TL_GONE_NS are gone. */
static void tasks_gone(struct timeline *tl, uint64_t now)
{
	size_t k = 0;

	for (size_t i = 0; i < tl->nleaving; i++) {
		struct leaving l = tl->leaving[i];
		struct task *t = tl_task_find(tl, l.pid);

		if (!t || !t->exited || t->out_ts != l.out_ts)
			continue;	/* ran again (it is listed when out again), or a new task */
		if (now < l.out_ts + TL_GONE_NS)	/* (another CPU's clock may lag) */
			tl->leaving[k++] = l;
		else
			task_remove(tl, t);
	}
	tl->nleaving = k;
}

/*
 * The tgid column's hints are for the events in the lookahead: kept from those only (an
 * older one, of a pid met since or gone, is never asked for again but by a reused pid).
 */
static void hints_rebuild(struct timeline *tl)
{
	u64map_release(&tl->tgid_hint);
	for (size_t i = 0; i < tl->ring_len; i++) {
		const struct ts_event *e = &tl->ring[(tl->ring_head + i) % tl->ring_cap];

		if ((e->flags & TS_F_TGID) && e->pid > 0 && e->tgid > 0)
			*u64map_get(&tl->tgid_hint, (uint32_t)e->pid, 0, NULL) = (uint32_t)e->tgid;
	}
}

void tl_recycle_collect(struct timeline *tl, uint64_t now)
{
	size_t n = tl->nmms, k = 0;
	uint8_t *held;

	tasks_gone(tl, now);
	if (tl->ring_cap)
		hints_rebuild(tl);
	ALLOC_GROW(tl->held, n, tl->held_alloc);
	held = tl->held;
	memset(held, 0, n);
	held[0] = held[tl->gone] = 1;
	for (int c = 0; c < tl->ncpus; c++) {
		held[tl->cpus[c].active_mm] = 1;
		held[tl->cpus[c].pending_mm] = 1;
	}
	if (tl->rc.mark)
		tl->rc.mark(tl->rc.ctx, held, n);
	for (size_t i = 0; i < tl->nended; i++) {
		uint32_t mm = tl->ended[i];

		if (held[mm] || tl->users[mm]) {
			tl->ended[k++] = mm;
			continue;
		}
		if (tl->rc.release)
			tl->rc.release(tl->rc.ctx, tl, mm);
		ALLOC_GROW(tl->free_ids, tl->nfree + 1, tl->free_alloc);
		tl->free_ids[tl->nfree++] = mm;
	}
	tl->nended = k;
	/*
	 * next when as many more mms have ended as a quarter of the ids in use, or as many
	 * more tasks have left as a quarter of the tasks (threads come and go in a process
	 * that lives: no mm ends)
	 */
	tl->collect_at = k + max_size((n - tl->nfree) / 4, COLLECT_MIN);
	tl->leave_at = tl->nleaving + max_size(tl->ntasks / 4, COLLECT_MIN);
}
