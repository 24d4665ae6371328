/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to timeline/: the state shared by its files (struct timeline, tasks, per-CPU
 * state) and the functions one file calls in another.  Everything else is static.
 */
#ifndef TLBSCOPE_TIMELINE_INT_H
#define TLBSCOPE_TIMELINE_INT_H

#include "timeline.h"
#include "../lib/lib.h"

#define CLONE_VM	0x00000100ULL
#define CLONE_THREAD	0x00010000ULL
#define CLONE_UNTRACED	0x00800000ULL

#define LOOKAHEAD	8192
#define TASK_CACHE	1024	/* events; bounded memory whatever the trace length */

/* x86 enum tlb_flush_reason (arch/x86/include/asm/mmu.h... include/linux/mm_types.h) */
enum {
	TLB_FLUSH_ON_TASK_SWITCH,
	TLB_REMOTE_SHOOTDOWN,
	TLB_LOCAL_SHOOTDOWN,
	TLB_LOCAL_MM_SHOOTDOWN,
	TLB_REMOTE_SEND_IPI,
	TLB_REMOTE_WRONG_CPU,
};

struct task {
	int32_t pid, tgid;
	uint32_t mm;		/* 0 for kernel threads */
	bool kthread;
	bool kthread_guessed;	/* by its name, no fork seen */
	bool tgid_guessed;	/* pid taken as tgid */
	bool by_newtask;	/* created by task_newtask (sched_process_fork adds nothing) */
	bool exec_loaded;	/* exec's activate_mm (switch_mm) came before its exec event */
	uint32_t exec_old;	/* and the mm it left */
	bool exited;		/* its exit event came */
	uint64_t out_ts;	/* ns: switched out after that (0: not, or running again) */
};

struct cpu_state {
	struct tl_cpu st;
	uint32_t active_mm;	/* mm loaded on the CPU (kernel threads keep it) */
	int32_t cur_pid;	/* -1 unknown until the first switch */
	uint64_t since;		/* ns: when cur_pid started running */
	bool tlb_req_open;	/* x86: a REMOTE_SEND_IPI request awaits its local part */
	bool group_open;	/* a run of csd_queue_cpu flush calls is being grouped */
	uint32_t group_func;
	struct ts_cpumask group_targets;
	int32_t pending_from;	/* the last CPU that sent this CPU a cross-call */
	uint32_t pending_mm;	/* and the mm that was running there */
	bool pending_known;
	bool load_done;		/* the switch_mm after the last switch was resolved with it */
	bool after_switch;	/* the last event of this CPU was a sched_switch */
	uint8_t csd_entry;	/* last TLB csd_function_entry: 0 none, 1 local, 2 remote */
	bool kreq_open;		/* a kprobe request with remote targets, since the switch */
	uint32_t kreq_mm;	/* its mm (the SBI fence that follows is its) */
};

struct timeline {
	struct ts_source *src;
	struct tl_filter filter;
	bool filtered;
	bool derive;		/* derive requests from csd_queue_cpu groups */
	bool saw_tlb_tp;	/* x86 tlb_flush events exist: they give requests */
	bool saw_kprobe_req;	/* kprobe requests exist: csd groups are not requests */
	/* by a function's string id: 1 it flushes everything, 2 not, 0 not asked yet */
	uint8_t *fn_all;
	size_t nfn_all;
	bool saw_load_mm;	/* switch_mm events exist (seen entering the lookahead) */
	bool saw_commit;	/* local_load_tlb_mm events exist (a lazy-flush kernel) */
	/*
	 * string ids of local_load_tlb_mm, local_flush_tlb_mm, and whether one was counted:
	 * timeline_lazy_kernel(), which top asks at every event
	 */
	uint32_t lazy_probe[2];
	bool lazy_probed;
	/*
	 * lazy_tlb_exit_mm events exist (seen entering the lookahead): an mm the kernel knew
	 * by pointer ends at its own, never at a guess from its exit or exec
	 */
	bool saw_drop;
	uint64_t kprobe_requests;
	uint64_t csd_requests;		/* counted requests grouped from csd_queue_cpu */
	struct u64map ptr_mm;		/* mm pointer -> mm last bound to it (tl_mm_ref()) */
	struct u64map dying;		/* mm id -> its seq + 1: an exec left it, not ended yet */
	struct tl_ptr_stats ps;

	struct task *tasks;
	size_t ntasks, tasks_alloc;
	uint32_t task_cache[TASK_CACHE];	/* pid % TASK_CACHE -> index into tasks */
	struct u64map pid_task;		/* pid -> index into tasks */
	struct u64map tgid_mm;		/* tgid -> its current mm (tl_mm_ref()) */
	struct u64map tgid_execs;	/* tgid -> mms it had (for ".N" names) */
	struct u64map given_mm;		/* input's mm name string id -> mm id */
	struct u64map tgid_hint;	/* lookahead: pid -> tgid seen in a later event */
	/*
	 * pid -> tgid (| TABLE_KTHREAD) from the trace's task table (TS_EV_TGID, taken as
	 * it enters the lookahead): the tasks that existed when tracing began
	 */
	struct u64map task_table;
	uint64_t tgid_markers;		/* TS_EV_TGID events read (unfiltered) */
	uint64_t tgid_corrected;	/* tasks met before their marker, set right by it */

	struct tl_mm *mms;
	size_t nmms, mms_alloc;
	uint64_t mm_seq;		/* mms made */

	/* timeline_recycle_mms() (recycle.c): ended ids not given back yet, and free ones */
	bool recycle;
	struct tl_recycle rc;
	uint32_t *ended, *free_ids;
	size_t nended, ended_alloc, nfree, free_alloc;
	size_t collect_at, leave_at;	/* look for ids to give back at this many ended, or
					 * for gone tasks at this many leaving */
	uint8_t *held;			/* per id, while looking */
	size_t held_alloc;
	uint32_t gone;			/* the ended mm that stale names now point at */
	uint64_t recycled;
	uint32_t *users;		/* per id: tasks whose mm or exec_old it is */
	size_t users_alloc;
	struct leaving {		/* exited tasks switched out, oldest first */
		int32_t pid;
		uint64_t out_ts;
	} *leaving;
	size_t nleaving, leaving_alloc;

	struct cpu_state *cpus;		/* TS_MAX_CPUS of them, allocated once */
	int ncpus;			/* highest CPU an event named + 1 */

	uint64_t *names;		/* event name string id -> count (filtered); ids are dense */
	size_t nnames;
	struct u64map probes;		/* probed function id -> kprobe events (filtered) */
	uint64_t evidence[TS_SRC__COUNT][2];	/* [src][tlb] events seen (unfiltered) */
	uint64_t req_mm_guessed, req_unattributed;
	uint64_t ipi_unattributed[TL_IPI__COUNT];
	uint64_t kthreads_guessed;
	uint64_t lost_anywhere;		/* lost events of no known CPU */
	uint64_t first_ts, last_ts;
	bool any;

	struct ts_event *ring;		/* lookahead queue, used when the input has tgids */
	size_t ring_head, ring_len, ring_cap;
	size_t ring_loads;		/* LOAD_MM events in it: none, no switch looks for one */

	/*
	 * Each CPU's mm when tracing began: the prev of its first switch_mm, seen as it enters
	 * the lookahead, turned into an "initial" LOAD_MM once an event has named the pointer
	 * (a flush request for it, or a switch to it) and before the CPU's own first load
	 */
	struct initial {
		uint64_t ptr;
		uint8_t state;	/* INITIAL_* */
	} initial[TS_MAX_CPUS];
	int initial_pending;
};

enum { INITIAL_NONE, INITIAL_PENDING, INITIAL_DONE };

#define TABLE_KTHREAD	(1ULL << 32)	/* task_table: the task is a kernel thread */

/* Is an event of @cpu at @ts counted (in the filter's window and CPUs)? */
static inline bool tl_counted(const struct timeline *tl, int cpu, uint64_t ts)
{
	if (!tl->filtered)
		return true;
	if (ts < tl->filter.from || ts >= tl->filter.to)
		return false;
	/* cpu -1: not tied to a CPU, counted whatever CPUs are selected */
	return !tl->filter.has_cpus || cpu < 0 || ts_cpumask_test(&tl->filter.cpus, cpu);
}

/*
 * The state of CPU @cpu (0 <= cpu < TS_MAX_CPUS), which becomes a CPU of the trace.  The
 * table is allocated whole in timeline_new() and never moves: a pointer into it stays valid
 * while another CPU's state is taken (an IPI naming a target no event came from yet).
 */
static inline struct cpu_state *tl_cpu_get(struct timeline *tl, int cpu)
{
	if (cpu >= tl->ncpus)
		tl->ncpus = cpu + 1;
	return &tl->cpus[cpu];
}

/*
 * Every event asks for its task: a direct-mapped cache in front of the map.  A pid keeps
 * its index in tasks[] for the timeline's life and tasks[i].pid is always that pid, so a
 * slot is right exactly when the task it points at has the pid asked for.
 */
static inline struct task *tl_task_find(struct timeline *tl, int32_t pid)
{
	uint32_t *slot = &tl->task_cache[(uint32_t)pid % TASK_CACHE];
	uint64_t *i;

	if (*slot < tl->ntasks && tl->tasks[*slot].pid == pid)
		return &tl->tasks[*slot];
	i = u64map_find(&tl->pid_task, (uint32_t)pid);
	if (!i)
		return NULL;
	*slot = (uint32_t)*i;
	return &tl->tasks[*i];
}

/* Task @t's mm is @mm now (every change goes through here: the ids' users). */
static inline void tl_task_mm(struct timeline *tl, struct task *t, uint32_t mm)
{
	if (tl->recycle) {
		tl->users[t->mm]--;
		tl->users[mm]++;
	}
	t->mm = mm;
}

/* Task @t's exec left @mm (0: none, or done). */
static inline void tl_task_exec_old(struct timeline *tl, struct task *t, uint32_t mm)
{
	if (tl->recycle) {
		tl->users[t->exec_old]--;
		tl->users[mm]++;
	}
	t->exec_old = mm;
}

/*
 * A map's value naming mm @id: the id with its seq, so that an id given back to a new mm
 * (timeline_recycle_mms()) is not read as that one.
 */
static inline uint64_t tl_mm_ref(const struct timeline *tl, uint32_t id)
{
	return (uint64_t)(uint32_t)tl->mms[id].seq << 32 | id;
}

/* The mm a map's value names; the ended stand-in when its id went to a new mm since. */
static inline uint32_t tl_mm_deref(const struct timeline *tl, uint64_t v)
{
	uint32_t id = (uint32_t)v;

	return (uint32_t)(v >> 32) == (uint32_t)tl->mms[id].seq ? id : tl->gone;
}

/* @mm was left by an exec and has not ended yet (marked with its seq + 1, as the maps) */
static inline bool tl_mm_dying(const struct timeline *tl, uint32_t mm)
{
	const uint64_t *d = u64map_find(&tl->dying, mm);

	return d && *d == tl->mms[mm].seq + 1;
}

/* recycle.c (it calls no other file of the room: mm.c calls it) */
/* @gone: the ended stand-in, made by the caller */
void tl_recycle_start(struct timeline *tl, const struct tl_recycle *r, uint32_t gone);
void tl_recycle_ended(struct timeline *tl, uint32_t mm);
void tl_recycle_left(struct timeline *tl, struct task *t, uint64_t ts);
void tl_recycle_collect(struct timeline *tl, uint64_t now);
uint32_t tl_recycle_take(struct timeline *tl);

/* timeline.c */
void tl_account_interval(struct timeline *tl, int cpu, uint64_t now);
void tl_process(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx);

/* ring.c */
struct ts_event *tl_ring_next_on_cpu(struct timeline *tl, int cpu);
bool tl_ring_request_follows(struct timeline *tl, int cpu);

/* tasks.c */
void tl_learn_tgid(struct timeline *tl, const struct ts_event *ev);
struct task *tl_task_add(struct timeline *tl, int32_t pid);
struct task *tl_task_get(struct timeline *tl, int32_t pid, const char *comm, uint64_t ts);
void tl_do_newtask(struct timeline *tl, struct ts_event *ev);
void tl_do_fork(struct timeline *tl, struct ts_event *ev);
uint32_t tl_do_exec(struct timeline *tl, struct ts_event *ev, bool count);
void tl_exec_old_ends(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
		      void *ctx);
bool tl_exit_teardown(struct timeline *tl, const struct ts_event *ev);
bool tl_drop_ends(const struct timeline *tl, uint32_t mm);
void tl_do_exit(struct timeline *tl, struct ts_event *ev);
void tl_table_learn(struct timeline *tl, const struct ts_event *ev);
void tl_do_tgid(struct timeline *tl, const struct ts_event *ev);

/* mm.c */
uint32_t tl_mm_new(struct timeline *tl, const char *name, const char *comm, int32_t pid,
		   enum tl_how how, uint64_t ts);
uint32_t tl_mm_for_process(struct timeline *tl, int32_t tgid, const char *comm,
			   enum tl_how how, uint64_t ts);
uint32_t tl_process_mm(struct timeline *tl, int32_t tgid, const char *comm, enum tl_how how,
		       uint64_t ts);
uint32_t tl_current_mm(struct timeline *tl, int cpu);
uint32_t tl_given_mm(struct timeline *tl, uint32_t name_id, const char *comm, int32_t pid,
		     enum tl_how how, uint64_t ts);
void tl_load_mm(struct timeline *tl, int cpu, uint32_t mm, bool count);
void tl_ptr_bind(struct timeline *tl, uint64_t ptr, uint32_t mm);
uint32_t tl_ptr_live(const struct timeline *tl, uint64_t ptr);
uint32_t tl_ptr_resolve(struct timeline *tl, struct task *t, uint64_t ptr, const char *comm,
			uint64_t ts);
void tl_do_load(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		bool count);
void tl_mm_end(struct timeline *tl, uint32_t mm);
void tl_emit_mm_exit(struct timeline *tl, const struct ts_event *ev, uint32_t mm,
		     tl_emit_fn emit, void *ctx);
void tl_initial_at_load(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			void *ctx);
void tl_initial_by_request(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			   void *ctx);

/* flush.c */
void tl_do_flush(struct timeline *tl, struct ts_event *ev, bool count);
void tl_do_ipi(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
	       bool count);

#endif
