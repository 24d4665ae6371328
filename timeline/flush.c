// SPDX-License-Identifier: GPL-2.0-only
/*
 * Flushes and flush IPIs.  Each FLUSH event becomes a request (replayed by the models), a
 * local flush or a flush received for another CPU, from the best evidence the trace has
 * (kprobes on the flush functions, x86 tlb_flush, or csd_queue_cpu groups), and each flush
 * IPI is counted on its sender and target and charged to the mm running on the sender.
 * Invariants: a request is counted once whatever evidence shows it twice; IPIs are counted
 * from one evidence kind per trace (timeline_ipi_source()); what cannot be attributed is
 * counted as unattributed, never guessed silently.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

/* The mm a request's kernel pointer names; an address no switch_mm named yet is bound here. */
static uint32_t request_ptr_mm(struct timeline *tl, struct ts_event *ev, bool count)
{
	uint64_t ptr = ev->u.flush.mm_ptr;
	uint32_t mm = tl_ptr_live(tl, ptr), cur;

	if (!ptr)
		return 0;
	if (mm) {
		if (count)
			tl->ps.requests_by_ptr++;
		return mm;
	}
	if (count)
		tl->ps.requests_ptr_unknown++;
	/* mostly the requesting task's own mm before its first switch_mm in the trace */
	cur = tl_current_mm(tl, ev->cpu);
	if (!cur && ev->pid > 0) {
		struct task *t = tl_task_find(tl, ev->pid);

		cur = t && !t->kthread ? t->mm : 0;
	}
	if (cur && !tl->mms[cur].mm_ptr) {
		tl_ptr_bind(tl, ptr, cur);
		return cur;
	}
	{
		char name[32];

		snprintf(name, sizeof(name), "m%llx", (unsigned long long)ptr);
		mm = tl_mm_new(tl, name, "", -1, TL_HOW_POINTER, ev->ts);
		tl_ptr_bind(tl, ptr, mm);
	}
	return mm;
}

/* The kernel's own target mask of a kprobe request: its remote CPUs, and a local flush. */
static void count_kmask(struct timeline *tl, struct ts_event *ev, uint32_t mm, bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	struct ts_cpumask rem = ev->u.flush.kmask;
	bool self = ts_cpumask_test(&rem, ev->cpu);
	uint64_t n;

	rem.bits[ev->cpu / 64] &= ~(1ULL << (ev->cpu % 64));
	n = (uint64_t)ts_cpumask_weight(&rem);
	c->kreq_open = n > 0;
	c->kreq_mm = mm;
	if (!count)
		return;
	c->st.kmask_requests++;
	c->st.kernel_targets += n;
	c->st.remote_requests += n > 0;
	if (mm)
		tl->mms[mm].kernel_targets += n;
	/* __flush_tlb_range flushes locally when no other CPU is targeted, else if in mask */
	if (!n || self)
		c->st.local_flushes++;
}

static void count_request(struct timeline *tl, struct ts_event *ev, bool count)
{
	uint32_t mm = 0;
	bool kprobe = ev->u.flush.src == TS_SRC_KPROBE || ev->u.flush.src == TS_SRC_KPROBE_CALLER;

	ev->u.flush.role = TS_FLUSH_REQUEST;
	if (kprobe) {
		tl->saw_kprobe_req = true;
		if (count)
			tl->kprobe_requests++;
	}
	if (ev->flags & TS_F_MM_GIVEN) {
		if (ev->u.flush.mm)
			mm = tl_given_mm(tl, ev->u.flush.mm, "", -1, TL_HOW_GIVEN, ev->ts);
		/* JSON lines: attributed to the task when they were made, counted as then */
		if (count && (ev->u.flush.fflags & TS_FF_MM_TASK)) {
			if (mm)
				tl->req_mm_guessed++;
			else
				tl->req_unattributed++;
		}
	} else if (ev->u.flush.fflags & TS_FF_PTR) {
		mm = request_ptr_mm(tl, ev, count);
	} else if (ev->u.flush.scope == TS_SCOPE_RANGE || ev->u.flush.scope == TS_SCOPE_MM) {
		mm = tl_current_mm(tl, ev->cpu);
		ev->u.flush.fflags |= TS_FF_MM_TASK;
		if (count) {
			if (mm)
				tl->req_mm_guessed++;
			else
				tl->req_unattributed++;
		}
	}
	ev->u.flush.mm = mm;
	if (ev->u.flush.fflags & TS_FF_KMASK)
		count_kmask(tl, ev, mm, count);
	else if (kprobe && count)
		tl->cpus[ev->cpu].st.local_flushes++;	/* no mask: all CPUs, this one too */
	if (!count)
		return;
	tl->cpus[ev->cpu].st.flush_requests++;
	if (ev->u.flush.src == TS_SRC_CSD_QUEUE)
		tl->csd_requests++;
	if (mm)
		tl->mms[mm].flush_requests++;
}

/*
 * An x86 tlb_flush with 0 pages did not flush: switch_mm_irqs_off() found the next mm's
 * ASID up to date (CR3 loaded with NOFLUSH), flush_tlb_func() found this CPU's TLB at the
 * mm's generation already.  The event says where a flush was considered, not made.
 */
static bool tlb_tp_flushed(const struct ts_event *ev)
{
	return ev->u.flush.scope != TS_SCOPE_RANGE || ev->u.flush.pages;
}

void tl_do_flush(struct timeline *tl, struct ts_event *ev, bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];

	if (ev->u.flush.src == TS_SRC_KPROBE && ev->u.flush.role != TS_FLUSH_REQUEST) {
		/* __ipi_flush_tlb_range_asid: the sender's own call, or a target's */
		bool local = c->csd_entry ? c->csd_entry == 1 : c->kreq_open;

		if (ev->flags & TS_F_MM_GIVEN)
			local = ev->u.flush.role == TS_FLUSH_LOCAL;	/* resolved already */
		c->csd_entry = 0;
		ev->u.flush.role = local ? TS_FLUSH_LOCAL : TS_FLUSH_RECEIVED;
		ev->u.flush.mm = 0;
		if (local)
			c->kreq_open = false;
		else if (count)
			c->st.flushes_received_kprobe++;
		return;
	}
	if (ev->u.flush.src == TS_SRC_KPROBE_CALLER && ev->u.flush.role == TS_FLUSH_REQUEST &&
	    !(ev->flags & TS_F_MM_GIVEN) && tl->ring_cap) {
		/* its __flush_tlb_range follows: that one is the request, this is evidence */
		if (tl_ring_request_follows(tl, ev->cpu)) {
			ev->kind = TS_EV_OTHER;
			if (count)
				tl->ps.callers_evidence++;
			return;
		}
	}
	if (ev->u.flush.src != TS_SRC_TLB_FLUSH || ev->u.flush.reason == TS_NO_REASON) {
		if (ev->u.flush.role == TS_FLUSH_REQUEST) {
			count_request(tl, ev, count);
		} else {
			if (ev->flags & TS_F_MM_GIVEN && ev->u.flush.mm)
				ev->u.flush.mm = tl_given_mm(tl, ev->u.flush.mm, "", -1,
							     TL_HOW_GIVEN, ev->ts);
			else
				ev->u.flush.mm = 0;
			if (count && ev->u.flush.role == TS_FLUSH_LOCAL)
				c->st.local_flushes++;
		}
		return;
	}
	tl->saw_tlb_tp = true;
	switch (ev->u.flush.reason) {
	case TLB_REMOTE_SEND_IPI:
		c->tlb_req_open = true;
		count_request(tl, ev, count);
		return;
	case TLB_LOCAL_SHOOTDOWN:
	case TLB_LOCAL_MM_SHOOTDOWN:
		if (count && tlb_tp_flushed(ev))
			c->st.local_flushes++;
		if (!c->tlb_req_open) {
			count_request(tl, ev, count);	/* a request only this CPU needed */
			return;
		}
		c->tlb_req_open = false;	/* the local part of the open request */
		ev->u.flush.role = TS_FLUSH_LOCAL;
		break;
	case TLB_FLUSH_ON_TASK_SWITCH:
		if (count && tlb_tp_flushed(ev))
			c->st.local_flushes++;
		ev->u.flush.role = TS_FLUSH_LOCAL;
		break;
	default:	/* REMOTE_SHOOTDOWN, REMOTE_WRONG_CPU: an IPI arrived */
		ev->u.flush.role = TS_FLUSH_RECEIVED;
		if (count)
			c->st.ipis_received[TL_IPI_TLB_FLUSH]++;
		if (c->pending_known) {
			if (tl_counted(tl, c->pending_from, ev->ts))
				tl->cpus[c->pending_from].st.ipis_sent[TL_IPI_TLB_FLUSH]++;
			if (count && c->pending_mm)
				tl->mms[c->pending_mm].ipis_caused[TL_IPI_TLB_FLUSH]++;
		} else if (count) {
			tl->ipi_unattributed[TL_IPI_TLB_FLUSH]++;
		}
		break;
	}
	ev->u.flush.mm = 0;
}

/* The evidence a send-side flush IPI event is: a csd queue, an SBI fence, an IPI mask. */
static int send_evidence(const struct ts_event *ev)
{
	return ev->u.ipi.src == TS_SRC_CSD_QUEUE ? TL_IPI_CSD_QUEUE :
	       ev->u.ipi.src == TS_SRC_SBI ? TL_IPI_SBI : TL_IPI_MASK;
}

void timeline_flush_ipis_each(const struct ts_event *ev, struct timeline *tl, tl_flush_ipi_fn fn,
			      void *ctx)
{
	int t;

	if (ev->kind == TS_EV_FLUSH) {
		/* x86: the target's tlb_flush of a remote shootdown (sender: the timeline's) */
		if (ev->u.flush.role == TS_FLUSH_RECEIVED && ev->u.flush.src == TS_SRC_TLB_FLUSH)
			fn(ctx, tl, TL_IPI_TLB_FLUSH, -1, ev->cpu, ev->ts);
		return;
	}
	if (ev->kind != TS_EV_IPI || !(ev->flags & TS_F_TLB))
		return;
	if (ev->flags & TS_F_RECV) {
		/* the sender tl_do_ipi() resolved into u.ipi.from */
		if (!(ev->flags & TS_F_LOCAL))
			fn(ctx, tl, TL_IPI_CSD_ENTRY, ev->u.ipi.from, ev->cpu, ev->ts);
		return;
	}
	ts_cpumask_for_each(t, &ev->u.ipi.targets)
		if (t != ev->cpu)
			fn(ctx, tl, send_evidence(ev), ev->cpu, t, ev->ts);
}

/* Count one flush IPI from @from to @to, seen through evidence @which. */
static void count_ipi(struct timeline *tl, int which, int from, int to, uint32_t mm,
		      uint64_t ts)
{
	if (from >= TS_MAX_CPUS)
		from = -1;	/* a sender no CPU mask could name: unattributed */
	if (from >= 0 && tl_counted(tl, from, ts)) {
		tl_cpu_get(tl, from)->st.ipis_sent[which]++;
		if (mm)
			tl->mms[mm].ipis_caused[which]++;
	}
	if (from < 0 && tl_counted(tl, to, ts))
		tl->ipi_unattributed[which]++;
	if (tl_counted(tl, to, ts))
		tl_cpu_get(tl, to)->st.ipis_received[which]++;
}

bool timeline_flushes_all(struct timeline *tl, uint32_t func)
{
	uint8_t *all = id_byte(&tl->fn_all, &tl->nfn_all, func);

	if (!*all)
		*all = strstr(ts_source_str(tl->src, func), "flush_tlb_all") ? 1 : 2;
	return *all == 1;
}

static void derive_request(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit,
			   void *ctx, bool count)
{
	struct ts_event r;

	memset(&r, 0, sizeof(r));
	r.ts = ev->ts;
	r.cpu = ev->cpu;
	r.kind = TS_EV_FLUSH;
	r.pid = ev->pid;
	r.tgid = ev->tgid;
	memcpy(r.comm, ev->comm, TS_COMM_LEN);
	r.u.flush.src = TS_SRC_CSD_QUEUE;
	r.u.flush.reason = TS_NO_REASON;
	/* the range is not in csd events: a range of unknown size, or everything */
	r.u.flush.scope = timeline_flushes_all(tl, ev->u.ipi.func) ? TS_SCOPE_ALL : TS_SCOPE_RANGE;
	count_request(tl, &r, count);
	emit(ctx, tl, &r);
}

void tl_do_ipi(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
	       bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	bool tlb = ev->flags & TS_F_TLB;
	uint32_t mm;
	int t;

	if (ev->flags & TS_F_RECV) {
		if (!tlb)
			return;
		c->csd_entry = (ev->flags & TS_F_LOCAL) ? 1 : 2;
		if (ev->flags & TS_F_LOCAL) {
			if (count)
				c->st.local_flushes_csd++;
			return;
		}
		ev->u.ipi.from = c->pending_known ? c->pending_from : -1;
		mm = c->pending_known ? c->pending_mm : 0;
		count_ipi(tl, TL_IPI_CSD_ENTRY, ev->u.ipi.from, ev->cpu, mm, ev->ts);
		return;
	}
	/* send side: remember, per target, who called last (target-side attribution) */
	mm = ev->u.ipi.src == TS_SRC_SBI && c->kreq_open ? c->kreq_mm : tl_current_mm(tl, ev->cpu);
	if (ev->u.ipi.src == TS_SRC_SBI)
		c->kreq_open = false;	/* the request's remote part went to the firmware */
	ts_cpumask_for_each(t, &ev->u.ipi.targets) {
		struct cpu_state *tc = tl_cpu_get(tl, t);

		tc->pending_from = ev->cpu;
		tc->pending_mm = mm;
		tc->pending_known = true;
		if (!tlb || t == ev->cpu)
			continue;
		count_ipi(tl, send_evidence(ev), ev->cpu, t, mm, ev->ts);
		if (send_evidence(ev) == TL_IPI_CSD_QUEUE && tl_counted(tl, ev->cpu, ev->ts) &&
		    timeline_flushes_all(tl, ev->u.ipi.func))
			c->st.csd_all_ipis++;
	}
	if (!tlb || ev->u.ipi.src != TS_SRC_CSD_QUEUE)
		return;
	/* one request = a run of csd_queue_cpu calls of one function to distinct CPUs */
	if (c->group_open && c->group_func == ev->u.ipi.func) {
		bool again = false;

		for (size_t i = 0; i < TS_MAX_CPUS / 64; i++)
			again |= c->group_targets.bits[i] & ev->u.ipi.targets.bits[i];
		if (!again) {
			for (size_t i = 0; i < TS_MAX_CPUS / 64; i++)
				c->group_targets.bits[i] |= ev->u.ipi.targets.bits[i];
			return;
		}
	}
	c->group_open = true;
	c->group_func = ev->u.ipi.func;
	c->group_targets = ev->u.ipi.targets;
	if (tl->derive && !tl->saw_tlb_tp && !tl->saw_kprobe_req)
		derive_request(tl, ev, emit, ctx, count);
}
