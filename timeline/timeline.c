// SPDX-License-Identifier: GPL-2.0-only
/*
 * timeline/ - per-CPU reconstruction (docs/design.md section 3).  This file: the event
 * dispatch, what each CPU runs (switches and the time in kernel threads and idle), the
 * filter, and the public accessors.  The other concerns live beside it:
 *   ring.c   the lookahead that lets later events settle earlier ones
 *   tasks.c  the task table and its fork / exec / exit life cycle
 *   mm.c     mm identity: by process, by the kernel's pointer, before the trace
 *   flush.c  flush requests, local flushes and flush IPIs, attributed to CPU and mm
 * Invariants of the whole:
 *  - a task belongs to one process (tgid) and uses one mm at a time; kernel threads and
 *    the idle task have none and leave the CPU's active mm as it was (they borrow it);
 *  - mm ids are dense indexes into tl->mms, 0 meaning "no mm";
 *  - state is updated for every event, counters only for events inside the filter;
 *  - the per-CPU table holds TS_MAX_CPUS states from timeline_new() on and never moves.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

uint32_t timeline_current_mm(struct timeline *tl, int cpu)
{
	return cpu >= 0 && cpu < tl->ncpus ? tl_current_mm(tl, cpu) : 0;
}

bool timeline_ipi_sender_mm(struct timeline *tl, int cpu, uint32_t *mm)
{
	if (cpu < 0 || cpu >= tl->ncpus || !tl->cpus[cpu].pending_known)
		return false;
	*mm = tl->cpus[cpu].pending_mm;
	return true;
}

bool timeline_counted(const struct timeline *tl, int cpu, uint64_t ts)
{
	return tl_counted(tl, cpu, ts);
}

void tl_account_interval(struct timeline *tl, int cpu, uint64_t now)
{
	struct cpu_state *c = &tl->cpus[cpu];
	struct task *t;
	uint64_t a = c->since, b = now;

	if (c->cur_pid < 0 || b <= a)
		return;
	if (tl->filtered) {
		if (tl->filter.has_cpus && !ts_cpumask_test(&tl->filter.cpus, cpu))
			return;
		if (a < tl->filter.from)
			a = tl->filter.from;
		if (b > tl->filter.to)
			b = tl->filter.to;
		if (b <= a)
			return;
	}
	if (c->cur_pid == 0) {
		c->st.idle_ns += b - a;
		return;
	}
	t = tl_task_find(tl, c->cur_pid);
	if (t && t->kthread)
		c->st.kthread_ns += b - a;
}

static void do_switch(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		      bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	struct task *next;
	bool lazy = false;
	uint32_t mm;

	tl_account_interval(tl, ev->cpu, ev->ts);
	if (count)
		c->st.switches++;
	/* the switch's own task (ev->pid, tl_process()) is met already */
	if (ev->u.sw.prev_pid != ev->pid || ev->pid <= 0)
		tl_task_get(tl, ev->u.sw.prev_pid, ev->u.sw.prev_comm, ev->ts);
	if (tl->recycle) {
		/* an exited task switched out: gone once it stays out (timeline_recycle_mms()) */
		struct task *prev = tl_task_find(tl, ev->u.sw.prev_pid);

		if (prev && prev->exited)
			tl_recycle_left(tl, prev, ev->ts);
	}
	if (ev->flags & TS_F_MM_GIVEN) {
		mm = (ev->flags & TS_F_KTHREAD) ? 0 :
			tl_given_mm(tl, ev->u.sw.mm, ev->u.sw.next_comm, -1, TL_HOW_GIVEN, ev->ts);
		next = tl_task_find(tl, ev->u.sw.next_pid);
		if (!next)
			next = tl_task_add(tl, ev->u.sw.next_pid);
		if (!ev->u.sw.no_mm) {
			next->kthread = !mm;
			tl_task_mm(tl, next, mm);
		}
	} else {
		/* none queued: no walk (a trace without switch_mm events never has one) */
		struct ts_event *load = tl->ring_loads ? tl_ring_next_on_cpu(tl, ev->cpu) : NULL;

		next = tl_task_get(tl, ev->u.sw.next_pid, ev->u.sw.next_comm, ev->ts);
		/* the switch_mm right after a switch is that switch's: the task's mm pointer */
		if (load && load->kind == TS_EV_LOAD_MM && !(load->flags & TS_F_MM_GIVEN) &&
		    ev->u.sw.next_pid > 0 && load->u.load.next) {
			if (next->kthread && next->kthread_guessed) {
				/* a kernel-thread-like name, but it has an mm: a user task */
				next->kthread = next->kthread_guessed = false;
				tl_task_mm(tl, next, tl_process_mm(tl, next->tgid,
								   ev->u.sw.next_comm,
								   TL_HOW_GUESS_PID, ev->ts));
			}
			if (!next->kthread) {
				tl_ptr_resolve(tl, next, load->u.load.next, ev->u.sw.next_comm, ev->ts);
				c->load_done = true;
				tl->ps.at_switch++;
			}
		} else if (tl->saw_load_mm && !next->kthread && ev->u.sw.next_pid > 0) {
			/*
			 * switch_mm is called for every switch to a task with an mm: a user task
			 * without one has left it (exit_mm) and runs on the borrowed mm, as a
			 * kernel thread does
			 */
			lazy = true;
			ev->u.sw.no_mm = 1;
			if (count)
				tl->ps.no_mm_switches++;
		}
		mm = next->kthread || lazy ? 0 : next->mm;
	}
	next->out_ts = 0;
	c->after_switch = true;
	c->cur_pid = ev->u.sw.next_pid;
	c->since = ev->ts;
	ev->u.sw.mm = mm;
	if (!mm) {
		ev->flags |= TS_F_KTHREAD;
		return;
	}
	ev->flags &= ~TS_F_KTHREAD;
	/* the CPU's first load: what it had before comes first (a switch back to it is none) */
	if (tl->initial_pending > 0)
		tl_initial_at_load(tl, ev, emit, ctx);
	tl_load_mm(tl, ev->cpu, mm, count);
}

void tl_process(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx)
{
	struct cpu_state *c;
	bool count;

	if (ev->kind == TS_EV_LOST && ev->cpu < 0) {
		/* lost somewhere, CPU unknown (a tracefs header's overwritten count) */
		if (tl_counted(tl, -1, ev->ts))
			tl->lost_anywhere += ev->u.lost.count;
		emit(ctx, tl, ev);
		return;
	}
	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	if (tl->recycle && (tl->nended >= tl->collect_at || tl->nleaving >= tl->leave_at))
		tl_recycle_collect(tl, ev->ts);
	c = tl_cpu_get(tl, ev->cpu);
	count = tl_counted(tl, ev->cpu, ev->ts);
	if (!tl->any) {
		tl->first_ts = ev->ts;
		tl->any = true;
	}
	if (ev->ts > tl->last_ts)
		tl->last_ts = ev->ts;
	/* metadata, not events of the trace: mm names, a CPU's mm before the trace */
	if (count && ev->kind != TS_EV_MM && !(ev->kind == TS_EV_LOAD_MM && ev->u.load.initial)) {
		c->st.events++;
		if (ev->name) {
			ALLOC_GROW_ZERO(tl->names, (size_t)ev->name + 1, tl->nnames);
			tl->names[ev->name]++;
		}
		if (ev->probe) {
			(*u64map_get(&tl->probes, ev->probe, 0, NULL))++;
			if (ev->probe == tl->lazy_probe[0] || ev->probe == tl->lazy_probe[1])
				tl->lazy_probed = true;
		}
	}
	/* a csd_queue_cpu group ends at any other event of its CPU */
	if (ev->kind != TS_EV_IPI || ev->u.ipi.src != TS_SRC_CSD_QUEUE)
		c->group_open = false;
	if (ev->kind == TS_EV_SWITCH) {
		c->tlb_req_open = false;
		c->kreq_open = false;
		c->csd_entry = 0;
	}
	tl_learn_tgid(tl, ev);
	if (ev->pid > 0 && ev->kind != TS_EV_LOST && ev->kind != TS_EV_MM)
		tl_task_get(tl, ev->pid, ev->comm, ev->ts);
	if (tl->initial_pending > 0 && ((ev->kind == TS_EV_LOAD_MM && !ev->u.load.commit) ||
					ev->kind == TS_EV_EXEC))
		tl_initial_at_load(tl, ev, emit, ctx);

	switch (ev->kind) {
	case TS_EV_SWITCH:
		do_switch(tl, ev, emit, ctx, count);
		break;
	case TS_EV_NEWTASK:
		tl_do_newtask(tl, ev);
		break;
	case TS_EV_FORK:
		tl_do_fork(tl, ev);
		break;
	case TS_EV_EXEC: {
		uint32_t old = tl_do_exec(tl, ev, count);

		emit(ctx, tl, ev);
		tl_emit_mm_exit(tl, ev, old, emit, ctx);
		return;
	}
	case TS_EV_EXIT:
		tl_do_exit(tl, ev);
		break;
	case TS_EV_FLUSH:
		tl_do_flush(tl, ev, count);
		tl_exec_old_ends(tl, ev, emit, ctx);
		if (tl->initial_pending > 0 && ev->u.flush.role == TS_FLUSH_REQUEST)
			tl_initial_by_request(tl, ev, emit, ctx);
		if (ev->kind == TS_EV_FLUSH && tl_exit_teardown(tl, ev)) {
			/* the teardown's flush first, then its mm is gone */
			c->after_switch = false;
			emit(ctx, tl, ev);
			tl_emit_mm_exit(tl, ev, ev->u.flush.mm, emit, ctx);
			return;
		}
		break;
	case TS_EV_IPI:
		tl_do_ipi(tl, ev, emit, ctx, count);
		break;
	case TS_EV_LOAD_MM:
		tl_do_load(tl, ev, emit, ctx, count);
		break;
	case TS_EV_TGID:
		tl_do_tgid(tl, ev);
		break;
	case TS_EV_LOST:
		if (count) {
			c->st.lost += ev->u.lost.count;
			if (!ev->u.lost.count)
				c->st.lost_marks++;
		}
		break;
	case TS_EV_MM: {
		struct tl_mm *m;
		uint32_t id = tl_given_mm(tl, ev->u.mminfo.mm, ev->comm, ev->u.mminfo.pid,
					  ev->u.mminfo.how < TL_HOW__COUNT ? ev->u.mminfo.how :
					  TL_HOW_GIVEN, ev->ts);

		m = &tl->mms[id];
		m->pid = ev->u.mminfo.pid;
		if (ev->u.mminfo.how < TL_HOW__COUNT)
			m->how = ev->u.mminfo.how;
		strlcpy_ts(m->comm, ev->comm, sizeof(m->comm));
		return;		/* metadata, not an event of the trace */
	}
	default:
		break;
	}
	if (ev->kind != TS_EV_SWITCH)
		c->after_switch = false;
	emit(ctx, tl, ev);
}

struct timeline *timeline_new(struct ts_source *src, const struct tl_filter *filter)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));
	const struct ts_source_info *info = ts_source_info(src);

	tl->src = src;
	/* interned once: top asks timeline_lazy_kernel() at every event */
	tl->lazy_probe[0] = ts_source_intern(src, "local_load_tlb_mm");
	tl->lazy_probe[1] = ts_source_intern(src, "local_flush_tlb_mm");
	tl->cpus = xcalloc(TS_MAX_CPUS, sizeof(*tl->cpus));
	for (int i = 0; i < TS_MAX_CPUS; i++)
		tl->cpus[i].cur_pid = -1;
	if (filter) {
		tl->filter = *filter;
		tl->filtered = true;
	}
	tl->derive = !info->normalized;
	u64map_init(&tl->pid_task);
	u64map_init(&tl->tgid_mm);
	u64map_init(&tl->tgid_execs);
	u64map_init(&tl->given_mm);
	u64map_init(&tl->tgid_hint);
	u64map_init(&tl->task_table);
	u64map_init(&tl->ptr_mm);
	u64map_init(&tl->dying);
	u64map_init(&tl->probes);
	tl_mm_new(tl, "", "", -1, TL_HOW_NONE, 0);	/* id 0: no mm */
	/*
	 * lookahead: tgids of later events, the switch_mm after each sched_switch, each CPU's
	 * first switch_mm; for JSON lines of a lazy-flush kernel, whether it reports its
	 * table's loads before the first switch is replayed; none where nothing could be
	 * learned from it (the events would only wait)
	 */
	if (!info->settled && (info->has_tgid || !info->normalized ||
			       ts_source_defines(src, "local_load_tlb_mm"))) {
		tl->ring_cap = LOOKAHEAD;
		tl->ring = xcalloc(tl->ring_cap, sizeof(*tl->ring));
	}
	return tl;
}

void timeline_free(struct timeline *tl)
{
	if (!tl)
		return;
	free(tl->tasks);
	free(tl->mms);
	free(tl->ended);
	free(tl->free_ids);
	free(tl->held);
	free(tl->users);
	free(tl->leaving);
	free(tl->cpus);
	free(tl->ring);
	u64map_release(&tl->pid_task);
	u64map_release(&tl->tgid_mm);
	u64map_release(&tl->tgid_execs);
	u64map_release(&tl->given_mm);
	u64map_release(&tl->tgid_hint);
	u64map_release(&tl->task_table);
	free(tl->names);
	free(tl->fn_all);
	u64map_release(&tl->ptr_mm);
	u64map_release(&tl->dying);
	u64map_release(&tl->probes);
	free(tl);
}

int timeline_cpus(const struct timeline *tl)
{
	return tl->ncpus;
}

const struct tl_cpu *timeline_cpu(const struct timeline *tl, int cpu)
{
	return cpu >= 0 && cpu < tl->ncpus ? &tl->cpus[cpu].st : NULL;
}

void timeline_recycle_mms(struct timeline *tl, const struct tl_recycle *r)
{
	uint32_t gone;

	if (tl->recycle)
		return;
	/* what a map's entry of an mm whose id went to another reads as: one ended mm */
	gone = tl_mm_new(tl, "?", "", -1, TL_HOW_NONE, 0);
	tl->mms[gone].exited = true;
	tl_recycle_start(tl, r, gone);
}

uint32_t timeline_mm_count(const struct timeline *tl)
{
	return (uint32_t)tl->nmms;
}

const struct tl_mm *timeline_mm(const struct timeline *tl, uint32_t id)
{
	return id < tl->nmms ? &tl->mms[id] : NULL;
}

uint64_t timeline_first_ts(const struct timeline *tl)
{
	return tl->first_ts;
}

uint64_t timeline_last_ts(const struct timeline *tl)
{
	return tl->last_ts;
}

uint64_t timeline_lost(const struct timeline *tl, uint64_t *unknown_marks)
{
	uint64_t n = tl->lost_anywhere, marks = 0;

	for (int i = 0; i < tl->ncpus; i++) {
		n += tl->cpus[i].st.lost;
		marks += tl->cpus[i].st.lost_marks;
	}
	if (unknown_marks)
		*unknown_marks = marks;
	return n;
}

uint64_t timeline_name_count(const struct timeline *tl, uint32_t name)
{
	return name < tl->nnames ? tl->names[name] : 0;
}

uint64_t timeline_evidence(const struct timeline *tl, enum ts_evsrc src, bool tlb_only)
{
	return tl->evidence[src][1] + (tlb_only ? 0 : tl->evidence[src][0]);
}

int timeline_ipi_source(const struct timeline *tl)
{
	uint64_t sum[TL_IPI__COUNT] = { 0 };

	for (int i = 0; i < tl->ncpus; i++)
		for (int s = 0; s < TL_IPI__COUNT; s++)
			sum[s] += tl->cpus[i].st.ipis_received[s];
	/*
	 * csd_queue_cpu names the function on the sender, one event per target; but x86
	 * traces it only for single-CPU calls, so it is taken only when it is complete
	 * compared with the targets' own csd_function_entry (within 1 %).
	 */
	if (tl->evidence[TS_SRC_CSD_QUEUE][1] &&
	    sum[TL_IPI_CSD_QUEUE] * 100 >= sum[TL_IPI_CSD_ENTRY] * 99)
		return TL_IPI_CSD_QUEUE;
	if (tl->evidence[TS_SRC_CSD_ENTRY][1])
		return TL_IPI_CSD_ENTRY;
	/* riscv with SBI remote fences: no kernel IPI, only the fence kprobe sees them */
	if (tl->evidence[TS_SRC_SBI][1])
		return TL_IPI_SBI;
	if (tl->evidence[TS_SRC_IPI_CPU][1] || tl->evidence[TS_SRC_IPI_MASK][1])
		return TL_IPI_MASK;
	if (sum[TL_IPI_TLB_FLUSH])
		return TL_IPI_TLB_FLUSH;
	/*
	 * No cross-call named a flush function, yet csd_function_entry ran on the targets of
	 * the others and the SBI fence probe was there to see the firmware's remote fences:
	 * the kernel sent no flush IPI at all (a lazy-flush kernel that queued every remote
	 * flush).  Counted, 0, not unknown.
	 */
	if (tl->evidence[TS_SRC_CSD_ENTRY][0] &&
	    ts_source_defines(tl->src, "sbi_remote_sfence_vma_asid"))
		return TL_IPI_CSD_ENTRY;
	return -1;
}

const char *timeline_ipi_source_name(int src)
{
	static const char *const names[TL_IPI__COUNT] = {
		"csd_queue_cpu", "csd_function_entry", "ipi_send_cpu/cpumask",
		"tlb_flush (remote shootdown)", "sbi_remote_sfence_vma_asid (remote harts)",
	};

	return src >= 0 && src < TL_IPI__COUNT ? names[src] : "none";
}

const char *timeline_how_name(enum tl_how how)
{
	static const char *const names[TL_HOW__COUNT] = {
		[TL_HOW_NONE] = "none", [TL_HOW_GIVEN] = "given", [TL_HOW_TGID] = "tgid",
		[TL_HOW_CLONE] = "clone", [TL_HOW_EXEC] = "exec",
		[TL_HOW_GUESS_FORK] = "guess-fork", [TL_HOW_GUESS_PID] = "guess-pid",
		[TL_HOW_POINTER] = "pointer",
	};

	return how < TL_HOW__COUNT ? names[how] : "?";
}

bool timeline_how_guessed(enum tl_how how)
{
	return how == TL_HOW_GUESS_FORK || how == TL_HOW_GUESS_PID;
}

bool timeline_load_commits(const struct timeline *tl)
{
	return tl && tl->saw_commit;	/* unit tests feed the tuner without one */
}

bool timeline_lazy_kernel(const struct timeline *tl)
{
	return tl && (tl->saw_commit || tl->lazy_probed);
}

const char *timeline_str(const struct timeline *tl, uint32_t id)
{
	return tl && id ? ts_source_str(tl->src, id) : "";
}

const struct tl_ptr_stats *timeline_ptr_stats(const struct timeline *tl)
{
	return &tl->ps;
}

uint64_t timeline_probe_count(const struct timeline *tl, uint32_t func)
{
	uint64_t *n = u64map_find(&tl->probes, func);

	return n ? *n : 0;
}

uint64_t timeline_kprobe_requests(const struct timeline *tl)
{
	return tl->kprobe_requests;
}

/* Switches counted on every CPU. */
static uint64_t counted_switches(const struct timeline *tl)
{
	uint64_t n = 0;

	for (int i = 0; i < tl->ncpus; i++)
		n += tl->cpus[i].st.switches;
	return n;
}

bool timeline_kprobes_silent(const struct timeline *tl)
{
	return ts_source_info(tl->src)->nkprobes_defined && !tl->probes.nr &&
	       counted_switches(tl);
}

uint64_t timeline_csd_requests(const struct timeline *tl)
{
	return tl->csd_requests;
}

/* Flush requests counted on every CPU. */
static uint64_t counted_requests(const struct timeline *tl)
{
	uint64_t n = 0;

	for (int i = 0; i < tl->ncpus; i++)
		n += tl->cpus[i].st.flush_requests;
	return n;
}

bool timeline_requests_observable(const struct timeline *tl)
{
	size_t nprobes;

	if (tl->kprobe_requests || tl->saw_kprobe_req || tl->saw_tlb_tp ||
	    ts_source_info(tl->src)->nkprobes_defined)
		return true;
	ts_source_probes(tl->src, &nprobes);
	if (nprobes || counted_requests(tl))
		return true;
	return !counted_switches(tl);
}

enum tl_requests_unknown timeline_requests_unknown(const struct timeline *tl)
{
	/* silent kprobes: unknown unless csd flush IPIs gave requests of their own */
	if (!counted_requests(tl) && timeline_kprobes_silent(tl))
		return TL_REQUESTS_DROPPED;
	return timeline_requests_observable(tl) ? TL_REQUESTS_KNOWN : TL_REQUESTS_UNSEEN;
}

uint64_t timeline_requests_mm_guessed(const struct timeline *tl)
{
	return tl->req_mm_guessed;
}

uint64_t timeline_requests_unattributed(const struct timeline *tl)
{
	return tl->req_unattributed;
}

uint64_t timeline_ipis_unattributed(const struct timeline *tl, int src)
{
	return src >= 0 && src < TL_IPI__COUNT ? tl->ipi_unattributed[src] : 0;
}

uint64_t timeline_tasks(const struct timeline *tl, uint64_t *kthreads_guessed)
{
	if (kthreads_guessed)
		*kthreads_guessed = tl->kthreads_guessed;
	return tl->ntasks;
}

uint64_t timeline_tgid_markers(const struct timeline *tl, uint64_t *corrected)
{
	if (corrected)
		*corrected = tl->tgid_corrected;
	return tl->tgid_markers;
}

uint64_t timeline_local_flushes(const struct timeline *tl, int cpu)
{
	const struct tl_cpu *c = timeline_cpu(tl, cpu);
	bool flush_events = tl->evidence[TS_SRC_TLB_FLUSH][1] || tl->evidence[TS_SRC_JSON][1] ||
			    tl->saw_kprobe_req;

	if (!c)
		return 0;
	return flush_events || c->local_flushes ? c->local_flushes : c->local_flushes_csd;
}

/* ---- the lookahead ring: events in, events out to tl_process() ---- */

static void ring_pop(struct timeline *tl, tl_emit_fn emit, void *ctx)
{
	struct ts_event *ev = &tl->ring[tl->ring_head];

	/* the index wrapped by a compare, as in the feed: no 64-bit division per event */
	if (++tl->ring_head == tl->ring_cap)
		tl->ring_head = 0;
	tl->ring_len--;
	tl->ring_loads -= ev->kind == TS_EV_LOAD_MM;
	tl_process(tl, ev, emit, ctx);
}

void timeline_feed(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx)
{
	size_t at;

	if (ev->kind == TS_EV_IPI || ev->kind == TS_EV_FLUSH)
		tl->evidence[ev->kind == TS_EV_IPI ? ev->u.ipi.src : ev->u.flush.src]
			    [!!(ev->flags & TS_F_TLB) || ev->kind == TS_EV_FLUSH]++;
	if (ev->kind == TS_EV_LOAD_MM && ev->u.load.commit)
		tl->saw_commit = true;
	else if (ev->kind == TS_EV_EXIT && ev->u.exit.dropped)
		tl->saw_drop = true;
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
	at = tl->ring_head + tl->ring_len;
	if (at >= tl->ring_cap)
		at -= tl->ring_cap;
	tl->ring[at] = *ev;
	tl->ring_len++;
	tl->ring_loads += ev->kind == TS_EV_LOAD_MM;
}

void timeline_release(struct timeline *tl, uint64_t before, tl_emit_fn emit, void *ctx)
{
	while (tl->ring_len && tl->ring[tl->ring_head].ts < before)
		ring_pop(tl, emit, ctx);
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
