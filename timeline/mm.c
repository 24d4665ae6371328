// SPDX-License-Identifier: GPL-2.0-only
/*
 * mm identity (docs/design.md section 3, "Which mm a task uses").  An mm is named by the input,
 * by its process (tgid) until exec, or exactly by the kernel's struct mm_struct pointer
 * from switch_mm kprobes, bound to the process that switches to it: a freed mm's address
 * is soon reused, so a pointer starts a new mm when its owner changes, exits or execs.
 * Each CPU's mm from before the trace (the prev of its first switch_mm) is emitted as an
 * "initial" LOAD_MM once an event names the pointer.
 * Invariants: an mm id never changes meaning (with timeline_recycle_mms(), an ended mm's
 * id names a new one only once nothing can name the old one: recycle.c); an ended mm is
 * never loaded again; every mm says how it was identified (enum tl_how) so the report can
 * count the guesses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

uint32_t tl_mm_new(struct timeline *tl, const char *name, const char *comm, int32_t pid,
		   enum tl_how how, uint64_t ts)
{
	uint32_t id = tl->nfree ? tl_recycle_take(tl) : 0;
	struct tl_mm *m;

	if (!id) {
		ALLOC_GROW(tl->mms, tl->nmms + 1, tl->mms_alloc);
		id = (uint32_t)tl->nmms++;
		if (tl->recycle)
			ALLOC_GROW_ZERO(tl->users, tl->nmms, tl->users_alloc);
	}
	m = &tl->mms[id];
	memset(m, 0, sizeof(*m));
	strlcpy_ts(m->name, name, sizeof(m->name));
	strlcpy_ts(m->comm, comm ? comm : "", sizeof(m->comm));
	m->pid = pid;
	m->how = how;
	m->first_ts = ts;
	m->seq = tl->mm_seq++;
	return id;
}

/* A fresh mm for process @tgid: "p<tgid>", then "p<tgid>.1", ... after each exec. */
uint32_t tl_mm_for_process(struct timeline *tl, int32_t tgid, const char *comm,
			   enum tl_how how, uint64_t ts)
{
	uint64_t *n = u64map_get(&tl->tgid_execs, (uint32_t)tgid, 0, NULL);
	char name[32];
	uint32_t id;

	if (*n)
		snprintf(name, sizeof(name), "p%d.%llu", tgid, (unsigned long long)*n);
	else
		snprintf(name, sizeof(name), "p%d", tgid);
	(*n)++;
	id = tl_mm_new(tl, name, comm, tgid, how, ts);
	*u64map_get(&tl->tgid_mm, (uint32_t)tgid, 0, NULL) = tl_mm_ref(tl, id);
	return id;
}

uint32_t tl_process_mm(struct timeline *tl, int32_t tgid, const char *comm, enum tl_how how,
		       uint64_t ts)
{
	uint64_t *v = u64map_find(&tl->tgid_mm, (uint32_t)tgid);
	uint32_t id = v ? tl_mm_deref(tl, *v) : 0;

	if (id && !tl->mms[id].exited)
		return id;
	return tl_mm_for_process(tl, tgid, comm, how, ts);
}

/* The mm a task's activity is attributed to right now; 0 for kernel threads. */
uint32_t tl_current_mm(struct timeline *tl, int cpu)
{
	struct cpu_state *c = &tl->cpus[cpu];
	struct task *t;

	if (c->cur_pid < 0)
		return 0;
	t = tl_task_find(tl, c->cur_pid);
	return t && !t->kthread ? t->mm : 0;
}

uint32_t tl_given_mm(struct timeline *tl, uint32_t name_id, const char *comm, int32_t pid,
		     enum tl_how how, uint64_t ts)
{
	bool added;
	uint64_t *id = u64map_get(&tl->given_mm, name_id, 0, &added);

	if (added) {
		*id = tl_mm_new(tl, ts_source_str(tl->src, name_id), comm, pid, how, ts);
		/* the input's name is a user for ever: the name always means this mm */
		if (tl->recycle)
			tl->users[*id]++;
	}
	return (uint32_t)*id;
}

/* Make @mm the CPU's loaded address space (switch_mm, or exec's activate_mm). */
void tl_load_mm(struct timeline *tl, int cpu, uint32_t mm, bool count)
{
	struct cpu_state *c = &tl->cpus[cpu];

	ts_cpumask_set(&tl->mms[mm].ran_on, cpu);
	if (count)
		ts_cpumask_set(&tl->mms[mm].counted_on, cpu);
	if (mm == c->active_mm)
		return;
	c->active_mm = mm;
	if (count) {
		c->st.mm_switches++;
		tl->mms[mm].switches_in++;
	}
}

void tl_ptr_bind(struct timeline *tl, uint64_t ptr, uint32_t mm)
{
	bool added;

	*u64map_get(&tl->ptr_mm, ptr, 0, &added) = tl_mm_ref(tl, mm);
	if (added)
		tl->ps.pointers++;
	tl->mms[mm].mm_ptr = ptr;
	tl->mms[mm].how = TL_HOW_POINTER;
}

/* The live mm last bound to @ptr, 0 when none (never seen, or its mm ended). */
uint32_t tl_ptr_live(const struct timeline *tl, uint64_t ptr)
{
	uint64_t *b = ptr ? u64map_find(&tl->ptr_mm, ptr) : NULL;
	uint32_t m = b ? tl_mm_deref(tl, *b) : 0;

	return m && !tl->mms[m].exited ? m : 0;
}

/*
 * Task @t switches to the mm at kernel address @ptr: the mm it uses from now on.  The
 * address names the mm bound to it while that mm lives and its process (or a task sharing
 * it, as a vfork child does) is the one switching; an ended mm's address, or one another
 * process switches to, is a new mm (the kernel reuses freed mm_structs at once).
 */
uint32_t tl_ptr_resolve(struct timeline *tl, struct task *t, uint64_t ptr, const char *comm,
			uint64_t ts)
{
	uint64_t *b = u64map_find(&tl->ptr_mm, ptr);
	uint32_t m = b ? tl_mm_deref(tl, *b) : 0, cur = t->mm;

	if (m && !tl->mms[m].exited && tl_mm_dying(tl, m) && cur != m) {
		tl->ps.reuses++;	/* its process exec'd away from it */
	} else if (m && !tl->mms[m].exited) {
		if (cur == m)
			return m;
		if (tl->mms[m].pid == t->tgid || t->tgid_guessed) {
			/* a thread of the owner, or a task whose process was only guessed */
			if (t->tgid_guessed && tl->mms[m].pid > 0)
				t->tgid = tl->mms[m].pid;
			if (tl->mms[m].pid < 0) {
				/* named by a flush request before anyone switched to it */
				tl->mms[m].pid = t->tgid;
				strlcpy_ts(tl->mms[m].comm, comm, sizeof(tl->mms[m].comm));
			}
			t->tgid_guessed = false;
			tl_task_mm(tl, t, m);
			tl->ps.adopted++;
			return m;
		}
		tl->ps.owner_changes++;
	} else if (m) {
		tl->ps.reuses++;
	}
	if (cur && !tl->mms[cur].exited && (!tl->mms[cur].mm_ptr || tl->mms[cur].mm_ptr == ptr)) {
		tl_ptr_bind(tl, ptr, cur);		/* the task's own mm gets its address */
		return cur;
	}
	tl_task_mm(tl, t, tl_mm_for_process(tl, t->tgid, comm, TL_HOW_POINTER, ts));
	tl_ptr_bind(tl, ptr, t->mm);
	return t->mm;
}

/*
 * A switch_mm kprobe event.  After a sched_switch it was resolved there already; with no
 * sched_switch before it on its CPU it is exec's activate_mm: the exec'ing process's new mm
 * (the exec event itself comes later); in a kernel thread, use_mm of a live mm.
 */
void tl_do_load(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	uint64_t ptr = ev->u.load.next;
	struct task *t;
	uint32_t m;

	if (ev->u.load.commit) {
		/* the lazy table takes the mm its switch_mm named: nothing to resolve */
		if (ev->flags & TS_F_MM_GIVEN)
			ev->u.load.mm = ev->u.load.mm ? tl_given_mm(tl, ev->u.load.mm, "", -1,
								    TL_HOW_GIVEN, ev->ts) : 0;
		else
			ev->u.load.mm = tl_ptr_live(tl, ptr);
		return;
	}
	if (ev->flags & TS_F_MM_GIVEN) {
		ev->u.load.mm = ev->u.load.mm ? tl_given_mm(tl, ev->u.load.mm, "", -1, TL_HOW_GIVEN,
							    ev->ts) : 0;
		if (ev->u.load.initial) {
			/* the CPU's mm before the trace, as a trace's was found (emit_initial) */
			tl->ps.initial_known += ev->u.load.mm != 0;
			if (!c->active_mm)
				c->active_mm = ev->u.load.mm;
			return;
		}
		t = c->cur_pid > 0 ? tl_task_find(tl, c->cur_pid) : NULL;
		if (ev->u.load.mm && t && !t->kthread && !c->after_switch &&
		    t->mm != ev->u.load.mm) {
			/* exec's activate_mm, as in a trace (below) */
			if (!t->exec_loaded) {
				tl_task_exec_old(tl, t, t->mm);
				t->exec_loaded = true;
			}
			tl_task_mm(tl, t, ev->u.load.mm);
		}
		if (ev->u.load.mm)
			tl_load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	if (count)
		tl->ps.load_mm++;
	if (c->load_done) {
		c->load_done = false;
		ev->u.load.mm = tl_ptr_live(tl, ptr);
		if (ev->u.load.mm)
			tl_load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	t = c->cur_pid > 0 ? tl_task_find(tl, c->cur_pid) : NULL;
	if (!ptr || !t || t->kthread) {
		ev->u.load.mm = tl_ptr_live(tl, ptr);
		if (ev->u.load.mm)
			tl_load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	if (c->after_switch) {
		/* the switch could not see it (no lookahead): resolved late */
		m = tl_ptr_resolve(tl, t, ptr, t->pid == ev->pid ? ev->comm : "", ev->ts);
	} else {
		m = tl_ptr_live(tl, ptr);
		if (m && m != t->mm && !tl_mm_dying(tl, m))
			tl->ps.owner_changes++;	/* a freshly exec'd mm cannot be live */
		else if (u64map_find(&tl->ptr_mm, ptr))
			tl->ps.reuses++;
		if (!t->exec_loaded) {
			tl_task_exec_old(tl, t, t->mm);
			t->exec_loaded = true;
		}
		m = tl_mm_for_process(tl, t->tgid, ev->comm, TL_HOW_POINTER, ev->ts);
		tl_ptr_bind(tl, ptr, m);
		tl_task_mm(tl, t, m);
		if (count)
			tl->ps.at_exec++;
		/*
		 * exec_mmap() drops the old mm right after activating the new one (its last
		 * flushes follow), and the kernel may give its address to the next mm before
		 * the exec event ends it: a dying mm, whose address is free for a new one
		 */
		if (t->exec_old && tl->mms[t->exec_old].pid == t->tgid)
			*u64map_get(&tl->dying, t->exec_old, 0, NULL) =
				tl->mms[t->exec_old].seq + 1;
	}
	ev->u.load.mm = m;
	tl_load_mm(tl, ev->cpu, m, count);
}

/* @mm's last user is gone: it leaves every CPU (its stock mask empties). */
void tl_mm_end(struct timeline *tl, uint32_t mm)
{
	bool ended = tl->mms[mm].exited;

	tl->mms[mm].exited = true;
	for (int i = 0; i < tl->ncpus; i++)
		if (tl->cpus[i].active_mm == mm)
			tl->cpus[i].active_mm = 0;
	if (tl->recycle && !ended)
		tl_recycle_ended(tl, mm);
}

/* An mm ended by something other than an exit event (exec): a derived EXIT event. */
void tl_emit_mm_exit(struct timeline *tl, const struct ts_event *ev, uint32_t mm,
		     tl_emit_fn emit, void *ctx)
{
	struct ts_event x;

	if (!mm || tl->mms[mm].exited)
		return;
	tl_mm_end(tl, mm);
	memset(&x, 0, sizeof(x));
	x.ts = ev->ts;
	x.cpu = ev->cpu;
	x.kind = TS_EV_EXIT;
	x.pid = ev->pid;
	memcpy(x.comm, ev->comm, TS_COMM_LEN);
	x.tgid = -1;
	x.u.exit.pid = -1;
	x.u.exit.mm = mm;
	emit(ctx, tl, &x);
}

/* CPU @cpu had @mm loaded when the trace began: say so, before anything else loads there. */
static void emit_initial(struct timeline *tl, const struct ts_event *ev, int cpu, uint32_t mm,
			 tl_emit_fn emit, void *ctx)
{
	struct cpu_state *c = &tl->cpus[cpu];	/* allocated when its pointer was recorded */
	struct ts_event x;

	tl->initial[cpu].state = INITIAL_DONE;
	tl->initial_pending--;
	if (!mm) {
		tl->ps.initial_unknown++;
		return;
	}
	tl->ps.initial_known++;
	if (!c->active_mm)
		c->active_mm = mm;
	memset(&x, 0, sizeof(x));
	x.ts = ev->ts;
	x.cpu = cpu;
	x.kind = TS_EV_LOAD_MM;
	x.pid = -1;
	x.tgid = -1;
	x.u.load.next = tl->initial[cpu].ptr;
	x.u.load.mm = mm;
	x.u.load.initial = 1;
	emit(ctx, tl, &x);
}

/*
 * At the CPU's first load (a switch to a user task, resolved already, so that a switch
 * back to the mm the CPU had is named; exec's switch_mm, before it is resolved): the CPU's
 * initial mm now or never.  Its pointer may name no live mm yet: then it stays unknown.
 */
void tl_initial_at_load(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			void *ctx)
{
	if (tl->initial[ev->cpu].state != INITIAL_PENDING)
		return;
	if (ev->kind == TS_EV_SWITCH && ((ev->flags & TS_F_KTHREAD) || !ev->u.sw.mm))
		return;		/* a kernel thread keeps the CPU's mm */
	emit_initial(tl, ev, ev->cpu, tl_ptr_live(tl, tl->initial[ev->cpu].ptr), emit, ctx);
}

/* A request named @ev's mm pointer: the CPUs that had that mm when the trace began. */
void tl_initial_by_request(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			   void *ctx)
{
	if (!ev->u.flush.mm || !(ev->u.flush.fflags & TS_FF_PTR) || !ev->u.flush.mm_ptr)
		return;
	for (int i = 0; i < TS_MAX_CPUS && tl->initial_pending > 0; i++)
		if (tl->initial[i].state == INITIAL_PENDING &&
		    tl->initial[i].ptr == ev->u.flush.mm_ptr)
			emit_initial(tl, ev, i, ev->u.flush.mm, emit, ctx);
}
