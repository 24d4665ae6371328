// SPDX-License-Identifier: GPL-2.0-only
/*
 * Per-CPU reconstruction.  Invariants:
 *  - a task belongs to one process (tgid) and uses one mm at a time; kernel threads and
 *    the idle task have none and leave the CPU's active mm as it was (they borrow it);
 *  - mm ids are dense indexes into tl->mms, 0 meaning "no mm";
 *  - state is updated for every event, counters only for events inside the filter.
 * Events are held in a short lookahead queue (for inputs tlbscope did not normalize itself)
 * so that a task first switched to before it ever ran in the trace gets its real process
 * from the tgid column, and a sched_switch is resolved with the switch_mm kprobe event
 * that follows it on its CPU (the mm pointer: exact identity, DESIGN.md section 3).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline.h"

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
	bool saw_load_mm;	/* switch_mm events exist (seen entering the lookahead) */
	bool saw_commit;	/* local_load_tlb_mm events exist (a lazy-flush kernel) */
	uint64_t kprobe_requests;
	struct u64map ptr_mm;		/* mm pointer -> mm id last bound to it */
	struct u64map dying;		/* mm id -> 1: left by an exec, not yet ended */
	struct tl_ptr_stats ps;

	struct task *tasks;
	size_t ntasks, tasks_alloc;
	uint32_t task_cache[TASK_CACHE];	/* pid % TASK_CACHE -> index into tasks */
	struct u64map pid_task;		/* pid -> index into tasks */
	struct u64map tgid_mm;		/* tgid -> its current mm id */
	struct u64map tgid_execs;	/* tgid -> mms it had (for ".N" names) */
	struct u64map given_mm;		/* input's mm name string id -> mm id */
	struct u64map tgid_hint;	/* lookahead: pid -> tgid seen in a later event */

	struct tl_mm *mms;
	size_t nmms, mms_alloc;

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

/* The next queued event recorded on @cpu, or NULL (borrowed, valid until the next feed). */
static struct ts_event *ring_next_on_cpu(struct timeline *tl, int cpu)
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
static bool ring_request_follows(struct timeline *tl, int cpu)
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
		/* IPI handlers (csd, flushes run for others) may interleave */
		if (e->kind == TS_EV_IPI || e->kind == TS_EV_OTHER ||
		    (e->kind == TS_EV_FLUSH && e->u.flush.role != TS_FLUSH_REQUEST))
			continue;
		return false;
	}
	return false;
}

static const char *const kthread_prefixes[] = {
	"kworker/", "ksoftirqd/", "migration/", "rcu_", "rcub/", "rcuc/", "rcuop/", "rcuos/",
	"cpuhp/", "idle_inject/", "watchdog", "irq/", "kthreadd", "kswapd", "kcompactd",
	"khugepaged", "ksmd", "jbd2/", "kauditd", "oom_reaper", "kblockd", "writeback",
	"khungtaskd", "kdevtmpfs", "scsi_", "napi/", "pool_workqueue", "psimon", "hwrng",
	"kstrp", "cryptd", "ipv6_addrconf", "mld", "kintegrityd", "xfs", "btrfs-",
	"ext4-rsv", "kvm-", "vhost-", "edac-", "ttm", "card", "md", "kthrotld", "zswap",
	"inet_frag_wq", "netns", "slub_flushwq", "mm_percpu_wq", "blkcg_punt_bio",
	"tpm_dev_wq", "ata_sff", "nvme-", "kaluad", "kmpath", "kstrp", "krfcommd",
};

static bool comm_is_kthread(const char *comm)
{
	for (size_t i = 0; i < sizeof(kthread_prefixes) / sizeof(kthread_prefixes[0]); i++)
		if (!strncmp(comm, kthread_prefixes[i], strlen(kthread_prefixes[i])))
			return true;
	return false;
}

static bool counted(const struct timeline *tl, int cpu, uint64_t ts)
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
static struct cpu_state *cpu_get(struct timeline *tl, int cpu)
{
	if (cpu >= tl->ncpus)
		tl->ncpus = cpu + 1;
	return &tl->cpus[cpu];
}

static uint32_t mm_new(struct timeline *tl, const char *name, const char *comm, int32_t pid,
		       enum tl_how how, uint64_t ts)
{
	struct tl_mm *m;

	ALLOC_GROW(tl->mms, tl->nmms + 1, tl->mms_alloc);
	m = &tl->mms[tl->nmms];
	memset(m, 0, sizeof(*m));
	strlcpy_ts(m->name, name, sizeof(m->name));
	strlcpy_ts(m->comm, comm ? comm : "", sizeof(m->comm));
	m->pid = pid;
	m->how = how;
	m->first_ts = ts;
	return (uint32_t)tl->nmms++;
}

/* A fresh mm for process @tgid: "p<tgid>", then "p<tgid>.1", ... after each exec. */
static uint32_t mm_for_process(struct timeline *tl, int32_t tgid, const char *comm,
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
	id = mm_new(tl, name, comm, tgid, how, ts);
	*u64map_get(&tl->tgid_mm, (uint32_t)tgid, 0, NULL) = id;
	return id;
}

static uint32_t process_mm(struct timeline *tl, int32_t tgid, const char *comm, enum tl_how how,
			   uint64_t ts)
{
	uint64_t *id = u64map_find(&tl->tgid_mm, (uint32_t)tgid);

	if (id && *id && !tl->mms[*id].exited)
		return (uint32_t)*id;
	return mm_for_process(tl, tgid, comm, how, ts);
}

/*
 * Every event asks for its task: a direct-mapped cache in front of the map.  A pid keeps
 * its index in tasks[] for the timeline's life and tasks[i].pid is always that pid, so a
 * slot is right exactly when the task it points at has the pid asked for.
 */
static struct task *task_find(struct timeline *tl, int32_t pid)
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

static struct task *task_add(struct timeline *tl, int32_t pid)
{
	bool added;
	uint64_t *i = u64map_get(&tl->pid_task, (uint32_t)pid, tl->ntasks, &added);
	struct task *t;

	if (added) {
		ALLOC_GROW(tl->tasks, tl->ntasks + 1, tl->tasks_alloc);
		tl->ntasks++;
	}
	t = &tl->tasks[*i];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	t->tgid = pid;
	return t;
}

/* The tgid the trace's tgid column gave @pid in the lookahead window, or -1. */
static int32_t tgid_hint(const struct timeline *tl, int32_t pid)
{
	uint64_t *h = u64map_find(&tl->tgid_hint, (uint32_t)pid);

	return h ? (int32_t)*h : -1;
}

/* A task met for the first time mid-trace: identity from the tgid column, else guessed. */
static struct task *task_get(struct timeline *tl, int32_t pid, const char *comm, uint64_t ts)
{
	struct task *t = task_find(tl, pid);
	int32_t hint;

	if (t)
		return t;
	t = task_add(tl, pid);
	if (pid == 0) {
		t->kthread = true;
		return t;
	}
	hint = tgid_hint(tl, pid);
	if (hint > 0 && hint != pid) {
		/* a thread of another task's process: never a kernel thread */
		t->tgid = hint;
		t->mm = process_mm(tl, t->tgid, comm, TL_HOW_TGID, ts);
		return t;
	}
	if (comm && comm_is_kthread(comm)) {
		t->kthread = t->kthread_guessed = true;
		tl->kthreads_guessed++;
		return t;
	}
	t->tgid_guessed = hint < 0;
	t->mm = process_mm(tl, pid, comm, hint > 0 ? TL_HOW_TGID : TL_HOW_GUESS_PID, ts);
	return t;
}

/* The mm a task's activity is attributed to right now; 0 for kernel threads. */
static uint32_t current_mm(struct timeline *tl, int cpu)
{
	struct cpu_state *c = &tl->cpus[cpu];
	struct task *t;

	if (c->cur_pid < 0)
		return 0;
	t = task_find(tl, c->cur_pid);
	return t && !t->kthread ? t->mm : 0;
}

static uint32_t given_mm(struct timeline *tl, uint32_t name_id, const char *comm, int32_t pid,
			 enum tl_how how, uint64_t ts)
{
	bool added;
	uint64_t *id = u64map_get(&tl->given_mm, name_id, 0, &added);

	if (added)
		*id = mm_new(tl, ts_source_str(tl->src, name_id), comm, pid, how, ts);
	return (uint32_t)*id;
}

static void account_interval(struct timeline *tl, int cpu, uint64_t now)
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
	t = task_find(tl, c->cur_pid);
	if (t && t->kthread)
		c->st.kthread_ns += b - a;
}

/* Make @mm the CPU's loaded address space (switch_mm, or exec's activate_mm). */
static void load_mm(struct timeline *tl, int cpu, uint32_t mm, bool count)
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

static void ptr_bind(struct timeline *tl, uint64_t ptr, uint32_t mm)
{
	bool added;

	*u64map_get(&tl->ptr_mm, ptr, 0, &added) = mm;
	if (added)
		tl->ps.pointers++;
	tl->mms[mm].mm_ptr = ptr;
	tl->mms[mm].how = TL_HOW_POINTER;
}

/* The live mm last bound to @ptr, 0 when none (never seen, or its mm ended). */
static uint32_t ptr_live(const struct timeline *tl, uint64_t ptr)
{
	uint64_t *b = ptr ? u64map_find(&tl->ptr_mm, ptr) : NULL;

	return b && *b && !tl->mms[*b].exited ? (uint32_t)*b : 0;
}

/*
 * Task @t switches to the mm at kernel address @ptr: the mm it uses from now on.  The
 * address names the mm bound to it while that mm lives and its process (or a task sharing
 * it, as a vfork child does) is the one switching; an ended mm's address, or one another
 * process switches to, is a new mm (the kernel reuses freed mm_structs at once).
 */
static uint32_t ptr_resolve(struct timeline *tl, struct task *t, uint64_t ptr, const char *comm,
			    uint64_t ts)
{
	uint64_t *b = u64map_find(&tl->ptr_mm, ptr);
	uint32_t m = b ? (uint32_t)*b : 0, cur = t->mm;

	if (m && !tl->mms[m].exited && u64map_find(&tl->dying, m) && cur != m) {
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
			t->mm = m;
			tl->ps.adopted++;
			return m;
		}
		tl->ps.owner_changes++;
	} else if (m) {
		tl->ps.reuses++;
	}
	if (cur && !tl->mms[cur].exited && (!tl->mms[cur].mm_ptr || tl->mms[cur].mm_ptr == ptr)) {
		ptr_bind(tl, ptr, cur);		/* the task's own mm gets its address */
		return cur;
	}
	t->mm = mm_for_process(tl, t->tgid, comm, TL_HOW_POINTER, ts);
	ptr_bind(tl, ptr, t->mm);
	return t->mm;
}

static void initial_at_load(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			    void *ctx);

static void do_switch(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		      bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	struct task *next;
	bool lazy = false;
	uint32_t mm;

	account_interval(tl, ev->cpu, ev->ts);
	if (count)
		c->st.switches++;
	task_get(tl, ev->u.sw.prev_pid, ev->u.sw.prev_comm, ev->ts);
	if (ev->flags & TS_F_MM_GIVEN) {
		mm = (ev->flags & TS_F_KTHREAD) ? 0 :
			given_mm(tl, ev->u.sw.mm, ev->u.sw.next_comm, -1, TL_HOW_GIVEN, ev->ts);
		next = task_find(tl, ev->u.sw.next_pid);
		if (!next)
			next = task_add(tl, ev->u.sw.next_pid);
		if (!ev->u.sw.no_mm) {
			next->kthread = !mm;
			next->mm = mm;
		}
	} else {
		struct ts_event *load = tl->ring_cap ? ring_next_on_cpu(tl, ev->cpu) : NULL;

		next = task_get(tl, ev->u.sw.next_pid, ev->u.sw.next_comm, ev->ts);
		/* the switch_mm right after a switch is that switch's: the task's mm pointer */
		if (load && load->kind == TS_EV_LOAD_MM && !(load->flags & TS_F_MM_GIVEN) &&
		    ev->u.sw.next_pid > 0 && load->u.load.next) {
			if (next->kthread && next->kthread_guessed) {
				/* a kernel-thread-like name, but it has an mm: a user task */
				next->kthread = next->kthread_guessed = false;
				next->mm = process_mm(tl, next->tgid, ev->u.sw.next_comm,
						      TL_HOW_GUESS_PID, ev->ts);
			}
			if (!next->kthread) {
				ptr_resolve(tl, next, load->u.load.next, ev->u.sw.next_comm, ev->ts);
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
		initial_at_load(tl, ev, emit, ctx);
	load_mm(tl, ev->cpu, mm, count);
}

/*
 * A switch_mm kprobe event.  After a sched_switch it was resolved there already; with no
 * sched_switch before it on its CPU it is exec's activate_mm: the exec'ing process's new mm
 * (the exec event itself comes later); in a kernel thread, use_mm of a live mm.
 */
static void emit_mm_exit(struct timeline *tl, const struct ts_event *ev, uint32_t mm,
			 tl_emit_fn emit, void *ctx);

static void do_load(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		    bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	uint64_t ptr = ev->u.load.next;
	struct task *t;
	uint32_t m;

	if (ev->u.load.commit) {
		/* the lazy table takes the mm its switch_mm named: nothing to resolve */
		if (ev->flags & TS_F_MM_GIVEN)
			ev->u.load.mm = ev->u.load.mm ? given_mm(tl, ev->u.load.mm, "", -1,
								 TL_HOW_GIVEN, ev->ts) : 0;
		else
			ev->u.load.mm = ptr_live(tl, ptr);
		return;
	}
	if (ev->flags & TS_F_MM_GIVEN) {
		ev->u.load.mm = ev->u.load.mm ? given_mm(tl, ev->u.load.mm, "", -1, TL_HOW_GIVEN,
							 ev->ts) : 0;
		if (ev->u.load.initial) {
			/* the CPU's mm before the trace, as a trace's was found (emit_initial) */
			tl->ps.initial_known += ev->u.load.mm != 0;
			if (!c->active_mm)
				c->active_mm = ev->u.load.mm;
			return;
		}
		t = c->cur_pid > 0 ? task_find(tl, c->cur_pid) : NULL;
		if (ev->u.load.mm && t && !t->kthread && !c->after_switch &&
		    t->mm != ev->u.load.mm) {
			/* exec's activate_mm, as in a trace (below) */
			if (!t->exec_loaded) {
				t->exec_old = t->mm;
				t->exec_loaded = true;
			}
			t->mm = ev->u.load.mm;
		}
		if (ev->u.load.mm)
			load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	if (count)
		tl->ps.load_mm++;
	if (c->load_done) {
		c->load_done = false;
		ev->u.load.mm = ptr_live(tl, ptr);
		if (ev->u.load.mm)
			load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	t = c->cur_pid > 0 ? task_find(tl, c->cur_pid) : NULL;
	if (!ptr || !t || t->kthread) {
		ev->u.load.mm = ptr_live(tl, ptr);
		if (ev->u.load.mm)
			load_mm(tl, ev->cpu, ev->u.load.mm, count);
		return;
	}
	if (c->after_switch) {
		/* the switch could not see it (no lookahead): resolved late */
		m = ptr_resolve(tl, t, ptr, t->pid == ev->pid ? ev->comm : "", ev->ts);
	} else {
		m = ptr_live(tl, ptr);
		if (m && m != t->mm && !u64map_find(&tl->dying, m))
			tl->ps.owner_changes++;	/* a freshly exec'd mm cannot be live */
		else if (u64map_find(&tl->ptr_mm, ptr))
			tl->ps.reuses++;
		if (!t->exec_loaded) {
			t->exec_old = t->mm;
			t->exec_loaded = true;
		}
		m = mm_for_process(tl, t->tgid, ev->comm, TL_HOW_POINTER, ev->ts);
		ptr_bind(tl, ptr, m);
		t->mm = m;
		if (count)
			tl->ps.at_exec++;
		/*
		 * exec_mmap() drops the old mm right after activating the new one (its last
		 * flushes follow), and the kernel may give its address to the next mm before
		 * the exec event ends it: a dying mm, whose address is free for a new one
		 */
		if (t->exec_old && tl->mms[t->exec_old].pid == t->tgid)
			*u64map_get(&tl->dying, t->exec_old, 0, NULL) = 1;
	}
	ev->u.load.mm = m;
	load_mm(tl, ev->cpu, m, count);
}

/* @mm's last user is gone: it leaves every CPU (its stock mask empties). */
static void mm_end(struct timeline *tl, uint32_t mm)
{
	tl->mms[mm].exited = true;
	for (int i = 0; i < tl->ncpus; i++)
		if (tl->cpus[i].active_mm == mm)
			tl->cpus[i].active_mm = 0;
}

/* An mm ended by something other than an exit event (exec): a derived EXIT event. */
static void emit_mm_exit(struct timeline *tl, const struct ts_event *ev, uint32_t mm,
			 tl_emit_fn emit, void *ctx)
{
	struct ts_event x;

	if (!mm || tl->mms[mm].exited)
		return;
	mm_end(tl, mm);
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

static void do_newtask(struct timeline *tl, struct ts_event *ev)
{
	struct task *parent = task_get(tl, ev->u.fork.parent_pid, ev->comm, ev->ts);
	bool pk = parent->kthread;
	int32_t ptgid = parent->tgid;
	uint32_t pmm = parent->mm;
	uint64_t fl = ev->u.fork.clone_flags;
	struct task *child = task_add(tl, ev->u.fork.child_pid);	/* pid reuse: fresh */

	child->by_newtask = true;
	if (pk || (fl & CLONE_UNTRACED) || ev->u.fork.parent_pid == 2) {
		child->kthread = true;	/* until it execs (usermode helpers do) */
	} else if (fl & CLONE_THREAD) {
		child->tgid = ptgid;
		child->mm = pmm;
	} else if (fl & CLONE_VM) {
		/* vfork-like: its own process, borrowing the parent's mm until exec */
		child->mm = pmm;
		*u64map_get(&tl->tgid_mm, (uint32_t)child->pid, 0, NULL) = pmm;
	} else {
		child->mm = mm_for_process(tl, child->pid, ev->u.fork.child_comm, TL_HOW_CLONE,
					   ev->ts);
	}
}

static void do_fork(struct timeline *tl, struct ts_event *ev)
{
	struct task *child = task_find(tl, ev->u.fork.child_pid);
	struct task *parent;
	int32_t hint;
	bool pk;
	int32_t ptgid;
	uint32_t pmm;

	if (child && child->by_newtask) {
		child->by_newtask = false;	/* consumed: a later reuse of the pid is new */
		return;
	}
	parent = task_get(tl, ev->u.fork.parent_pid, ev->comm, ev->ts);
	pk = parent->kthread;
	ptgid = parent->tgid;
	pmm = parent->mm;
	child = task_add(tl, ev->u.fork.child_pid);
	hint = tgid_hint(tl, child->pid);
	if (pk || ev->u.fork.parent_pid == 2) {
		child->kthread = true;
	} else if (hint == ptgid) {
		child->tgid = ptgid;
		child->mm = pmm;
	} else {
		child->tgid_guessed = hint < 0;
		child->mm = mm_for_process(tl, child->pid, ev->u.fork.child_comm,
					   hint > 0 ? TL_HOW_TGID : TL_HOW_GUESS_FORK, ev->ts);
	}
}

/*
 * exec: the task gets its new mm, loaded on this CPU like any switch.  Returns the old mm
 * when the exec ended it, for the caller to emit after the exec: exec_mmap() activates the
 * new mm before it drops the old one, so a lazy table sees the load first.
 */
static uint32_t do_exec(struct timeline *tl, struct ts_event *ev, bool count)
{
	struct task *t;
	uint32_t old;

	if (ev->u.exec.old_pid != ev->u.exec.pid) {
		/* a non-leader thread exec'd and took over the leader's pid */
		struct task *o = task_find(tl, ev->u.exec.old_pid);

		if (o) {
			struct task copy = *o;

			t = task_add(tl, ev->u.exec.pid);
			*t = copy;
			t->pid = ev->u.exec.pid;
		}
	}
	t = task_get(tl, ev->u.exec.pid, ev->comm, ev->ts);
	old = t->kthread ? 0 : t->mm;
	if (t->kthread) {
		/* a usermode helper becomes a user process of its own */
		t->kthread = false;
		t->tgid = t->pid;
	}
	if (ev->flags & TS_F_MM_GIVEN) {
		if (t->exec_loaded) {
			old = t->exec_old;
			t->exec_loaded = false;
		}
		t->mm = ev->u.exec.mm ? given_mm(tl, ev->u.exec.mm, ev->comm, t->tgid,
						  TL_HOW_GIVEN, ev->ts) : 0;
	} else if (t->exec_loaded) {
		/* switch_mm (activate_mm) already gave the new mm: the program names it */
		const char *file = ts_source_str(tl->src, ev->u.exec.filename);
		const char *base = strrchr(file, '/');

		base = base ? base + 1 : file;
		old = t->exec_old;
		t->exec_loaded = false;
		if (t->mm && *base)
			strlcpy_ts(tl->mms[t->mm].comm, base, sizeof(tl->mms[t->mm].comm));
	} else {
		/* the task column may still show the old name: the new program names it */
		const char *file = ts_source_str(tl->src, ev->u.exec.filename);
		const char *base = strrchr(file, '/');

		base = base ? base + 1 : file;
		t->mm = mm_for_process(tl, t->tgid, *base ? base : ev->comm, TL_HOW_EXEC, ev->ts);
	}
	ev->u.exec.mm = t->mm;
	/* exec_mmap() activates the new mm on this CPU: an mm switch like any other */
	if (t->mm)
		load_mm(tl, ev->cpu, t->mm, count);
	/* the process leaves its old mm; a vfork child leaves its parent's alone */
	return old && old != t->mm && tl->mms[old].pid == t->tgid ? old : 0;
}

/*
 * exec_mmap() activates the new mm, then drops the old one at once: exit_mmap()'s teardown
 * flushes name the old mm, and the exec'ing task's first request for its new mm comes
 * after them (setup_arg_pages moves the stack).  The old mm ends there, not at the exec
 * event, which can come much later when the task is switched out in between (and the
 * kernel has long taken the old mm out of every CPU's tables).
 */
static void exec_old_ends(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			  void *ctx)
{
	struct task *t;
	uint32_t old;

	if ((ev->flags & TS_F_MM_GIVEN) || ev->u.flush.role != TS_FLUSH_REQUEST ||
	    !ev->u.flush.mm || ev->pid <= 0)
		return;
	t = task_find(tl, ev->pid);
	if (!t || !t->exec_loaded || !t->exec_old || t->mm != ev->u.flush.mm)
		return;
	old = t->exec_old;
	if (old == t->mm || tl->mms[old].pid != t->tgid)
		return;		/* a vfork child leaves its parent's mm alone */
	t->exec_old = 0;	/* the exec event has nothing left to end */
	emit_mm_exit(tl, ev, old, emit, ctx);
}

/*
 * A task's exit_mmap: its last full-mm flush of its own mm, when the lookahead shows that
 * task's exit event ending the mm next on this CPU (no other request of the mm, no switch,
 * in between).  The mm ends there: the kernel drops it from every CPU at the end of
 * exit_mmap, while the exit tracepoint of Linux 6.12 comes after exit_mm() returns, and
 * can come much later when the task is preempted in between.
 */
static bool exit_teardown(struct timeline *tl, const struct ts_event *ev)
{
	uint32_t mm = ev->u.flush.mm;
	struct task *t;
	size_t seen = 0;

	if ((ev->flags & TS_F_MM_GIVEN) || ev->u.flush.role != TS_FLUSH_REQUEST ||
	    ev->u.flush.scope != TS_SCOPE_MM || !(ev->u.flush.fflags & TS_FF_PTR) || !mm ||
	    ev->pid <= 0 || !tl->ring_cap || tl->mms[mm].exited)
		return false;
	t = task_find(tl, ev->pid);
	if (!t || t->kthread || t->mm != mm || tl->mms[mm].pid != t->tgid)
		return false;
	for (size_t i = 0; i < tl->ring_len && seen < 256; i++) {
		const struct ts_event *e = &tl->ring[(tl->ring_head + i) % tl->ring_cap];

		if (e->cpu != ev->cpu)
			continue;
		seen++;
		if (e->kind == TS_EV_SWITCH || e->kind == TS_EV_EXEC || e->kind == TS_EV_LOST)
			return false;
		if (e->kind == TS_EV_FLUSH && e->u.flush.role == TS_FLUSH_REQUEST &&
		    e->u.flush.mm_ptr == ev->u.flush.mm_ptr)
			return false;	/* exit_mmap flushes again: this one is not the last */
		if (e->kind == TS_EV_EXIT && e->u.exit.pid == ev->pid)
			/* the exit ends the mm as do_exit() below would decide it */
			return (e->flags & TS_F_GROUP_KNOWN) ? !!(e->flags & TS_F_GROUP_DEAD) :
							       t->pid == t->tgid;
	}
	return false;
}

/* A task exits; when it was the last of its process, the event also ends the mm. */
static void do_exit(struct timeline *tl, struct ts_event *ev)
{
	struct task *t = task_find(tl, ev->u.exit.pid);
	bool group_dead;
	uint32_t mm;

	ev->u.exit.mm = 0;
	if (ev->flags & TS_F_MM_GIVEN) {
		/* JSON lines: "mm" names an address space whose last user is gone */
		mm = ev->u.exit.mm_given;
		if (mm) {
			mm = given_mm(tl, mm, "", -1, TL_HOW_GIVEN, ev->ts);
			if (!tl->mms[mm].exited) {
				mm_end(tl, mm);
				ev->u.exit.mm = mm;
			}
		}
		return;
	}
	if (!t || t->kthread)
		return;
	mm = t->mm;
	/* without the group_dead field (older kernels), the leader's exit ends the mm */
	group_dead = (ev->flags & TS_F_GROUP_KNOWN) ? (ev->flags & TS_F_GROUP_DEAD)
						    : t->pid == t->tgid;
	if (group_dead && mm && tl->mms[mm].pid == t->tgid && !tl->mms[mm].exited) {
		mm_end(tl, mm);
		ev->u.exit.mm = mm;
	}
}

/* The mm a request's kernel pointer names; an address no switch_mm named yet is bound here. */
static uint32_t request_ptr_mm(struct timeline *tl, struct ts_event *ev, bool count)
{
	uint64_t ptr = ev->u.flush.mm_ptr;
	uint32_t mm = ptr_live(tl, ptr), cur;

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
	cur = current_mm(tl, ev->cpu);
	if (!cur && ev->pid > 0) {
		struct task *t = task_find(tl, ev->pid);

		cur = t && !t->kthread ? t->mm : 0;
	}
	if (cur && !tl->mms[cur].mm_ptr) {
		ptr_bind(tl, ptr, cur);
		return cur;
	}
	{
		char name[32];

		snprintf(name, sizeof(name), "m%llx", (unsigned long long)ptr);
		mm = mm_new(tl, name, "", -1, TL_HOW_POINTER, ev->ts);
		ptr_bind(tl, ptr, mm);
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
			mm = given_mm(tl, ev->u.flush.mm, "", -1, TL_HOW_GIVEN, ev->ts);
	} else if (ev->u.flush.fflags & TS_FF_PTR) {
		mm = request_ptr_mm(tl, ev, count);
	} else if (ev->u.flush.scope == TS_SCOPE_RANGE || ev->u.flush.scope == TS_SCOPE_MM) {
		mm = current_mm(tl, ev->cpu);
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
	if (mm)
		tl->mms[mm].flush_requests++;
}

static void do_flush(struct timeline *tl, struct ts_event *ev, bool count)
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
		if (ring_request_follows(tl, ev->cpu)) {
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
				ev->u.flush.mm = given_mm(tl, ev->u.flush.mm, "", -1,
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
		if (count)
			c->st.local_flushes++;
		if (!c->tlb_req_open) {
			count_request(tl, ev, count);	/* a request only this CPU needed */
			return;
		}
		c->tlb_req_open = false;	/* the local part of the open request */
		ev->u.flush.role = TS_FLUSH_LOCAL;
		break;
	case TLB_FLUSH_ON_TASK_SWITCH:
		if (count)
			c->st.local_flushes++;
		ev->u.flush.role = TS_FLUSH_LOCAL;
		break;
	default:	/* REMOTE_SHOOTDOWN, REMOTE_WRONG_CPU: an IPI arrived */
		ev->u.flush.role = TS_FLUSH_RECEIVED;
		if (count)
			c->st.ipis_received[TL_IPI_TLB_FLUSH]++;
		if (c->pending_known) {
			if (counted(tl, c->pending_from, ev->ts))
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

/* Count one flush IPI from @from to @to, seen through evidence @which. */
static void count_ipi(struct timeline *tl, int which, int from, int to, uint32_t mm,
		      uint64_t ts)
{
	if (from >= TS_MAX_CPUS)
		from = -1;	/* a sender no CPU mask could name: unattributed */
	if (from >= 0 && counted(tl, from, ts)) {
		cpu_get(tl, from)->st.ipis_sent[which]++;
		if (mm)
			tl->mms[mm].ipis_caused[which]++;
	}
	if (from < 0 && counted(tl, to, ts))
		tl->ipi_unattributed[which]++;
	if (counted(tl, to, ts))
		cpu_get(tl, to)->st.ipis_received[which]++;
}

static void derive_request(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit,
			   void *ctx, bool count)
{
	struct ts_event r;
	const char *fn = ts_source_str(tl->src, ev->u.ipi.func);

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
	r.u.flush.scope = strstr(fn, "flush_tlb_all") ? TS_SCOPE_ALL : TS_SCOPE_RANGE;
	count_request(tl, &r, count);
	emit(ctx, tl, &r);
}

static void do_ipi(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx,
		   bool count)
{
	struct cpu_state *c = &tl->cpus[ev->cpu];
	bool tlb = ev->flags & TS_F_TLB;
	uint32_t mm;

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
	mm = ev->u.ipi.src == TS_SRC_SBI && c->kreq_open ? c->kreq_mm : current_mm(tl, ev->cpu);
	if (ev->u.ipi.src == TS_SRC_SBI)
		c->kreq_open = false;	/* the request's remote part went to the firmware */
	for (int t = 0; t < TS_MAX_CPUS; t++) {
		struct cpu_state *tc;

		if (!ev->u.ipi.targets.bits[t / 64]) {
			t |= 63;
			continue;
		}
		if (!ts_cpumask_test(&ev->u.ipi.targets, t))
			continue;
		tc = cpu_get(tl, t);
		tc->pending_from = ev->cpu;
		tc->pending_mm = mm;
		tc->pending_known = true;
		if (!tlb || t == ev->cpu)
			continue;
		count_ipi(tl, ev->u.ipi.src == TS_SRC_CSD_QUEUE ? TL_IPI_CSD_QUEUE :
			  ev->u.ipi.src == TS_SRC_SBI ? TL_IPI_SBI : TL_IPI_MASK,
			  ev->cpu, t, mm, ev->ts);
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

/* Learn the tgid of the current task from the trace's tgid column. */
static void learn_tgid(struct timeline *tl, const struct ts_event *ev)
{
	struct task *t;

	if (!(ev->flags & TS_F_TGID) || ev->pid <= 0 || ev->tgid <= 0)
		return;
	t = task_find(tl, ev->pid);
	if (!t || !t->tgid_guessed || t->kthread)
		return;
	t->tgid_guessed = false;
	if (t->tgid != ev->tgid) {
		t->tgid = ev->tgid;
		t->mm = process_mm(tl, ev->tgid, ev->comm, TL_HOW_TGID, ev->ts);
	}
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
static void initial_at_load(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			    void *ctx)
{
	if (tl->initial[ev->cpu].state != INITIAL_PENDING)
		return;
	if (ev->kind == TS_EV_SWITCH && ((ev->flags & TS_F_KTHREAD) || !ev->u.sw.mm))
		return;		/* a kernel thread keeps the CPU's mm */
	emit_initial(tl, ev, ev->cpu, ptr_live(tl, tl->initial[ev->cpu].ptr), emit, ctx);
}

/* A request named @ev's mm pointer: the CPUs that had that mm when the trace began. */
static void initial_by_request(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
			       void *ctx)
{
	if (!ev->u.flush.mm || !(ev->u.flush.fflags & TS_FF_PTR) || !ev->u.flush.mm_ptr)
		return;
	for (int i = 0; i < TS_MAX_CPUS && tl->initial_pending > 0; i++)
		if (tl->initial[i].state == INITIAL_PENDING &&
		    tl->initial[i].ptr == ev->u.flush.mm_ptr)
			emit_initial(tl, ev, i, ev->u.flush.mm, emit, ctx);
}

static void process(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx)
{
	struct cpu_state *c;
	bool count;

	if (ev->kind == TS_EV_LOST && ev->cpu < 0) {
		/* lost somewhere, CPU unknown (a tracefs header's overwritten count) */
		if (counted(tl, -1, ev->ts))
			tl->lost_anywhere += ev->u.lost.count;
		emit(ctx, tl, ev);
		return;
	}
	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	c = cpu_get(tl, ev->cpu);
	count = counted(tl, ev->cpu, ev->ts);
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
		if (ev->probe)
			(*u64map_get(&tl->probes, ev->probe, 0, NULL))++;
	}
	/* a csd_queue_cpu group ends at any other event of its CPU */
	if (ev->kind != TS_EV_IPI || ev->u.ipi.src != TS_SRC_CSD_QUEUE)
		c->group_open = false;
	if (ev->kind == TS_EV_SWITCH) {
		c->tlb_req_open = false;
		c->kreq_open = false;
		c->csd_entry = 0;
	}
	learn_tgid(tl, ev);
	if (ev->pid > 0 && ev->kind != TS_EV_LOST && ev->kind != TS_EV_MM)
		task_get(tl, ev->pid, ev->comm, ev->ts);
	if (tl->initial_pending > 0 && ((ev->kind == TS_EV_LOAD_MM && !ev->u.load.commit) ||
					ev->kind == TS_EV_EXEC))
		initial_at_load(tl, ev, emit, ctx);

	switch (ev->kind) {
	case TS_EV_SWITCH:
		do_switch(tl, ev, emit, ctx, count);
		break;
	case TS_EV_NEWTASK:
		do_newtask(tl, ev);
		break;
	case TS_EV_FORK:
		do_fork(tl, ev);
		break;
	case TS_EV_EXEC: {
		uint32_t old = do_exec(tl, ev, count);

		emit(ctx, tl, ev);
		emit_mm_exit(tl, ev, old, emit, ctx);
		return;
	}
	case TS_EV_EXIT:
		do_exit(tl, ev);
		break;
	case TS_EV_FLUSH:
		do_flush(tl, ev, count);
		exec_old_ends(tl, ev, emit, ctx);
		if (tl->initial_pending > 0 && ev->u.flush.role == TS_FLUSH_REQUEST)
			initial_by_request(tl, ev, emit, ctx);
		if (ev->kind == TS_EV_FLUSH && exit_teardown(tl, ev)) {
			/* the teardown's flush first, then its mm is gone */
			c->after_switch = false;
			emit(ctx, tl, ev);
			emit_mm_exit(tl, ev, ev->u.flush.mm, emit, ctx);
			return;
		}
		break;
	case TS_EV_IPI:
		do_ipi(tl, ev, emit, ctx, count);
		break;
	case TS_EV_LOAD_MM:
		do_load(tl, ev, emit, ctx, count);
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
		uint32_t id = given_mm(tl, ev->u.mminfo.mm, ev->comm, ev->u.mminfo.pid,
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

static bool defines_probe(const struct ts_source_info *info, const char *func)
{
	for (size_t i = 0; i < info->nkprobes_defined; i++)
		if (!strcmp(info->kprobes_defined[i], func))
			return true;
	return false;
}

struct timeline *timeline_new(struct ts_source *src, const struct tl_filter *filter)
{
	struct timeline *tl = xcalloc(1, sizeof(*tl));
	const struct ts_source_info *info = ts_source_info(src);

	tl->src = src;
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
	u64map_init(&tl->ptr_mm);
	u64map_init(&tl->dying);
	u64map_init(&tl->probes);
	mm_new(tl, "", "", -1, TL_HOW_NONE, 0);	/* id 0: no mm */
	/*
	 * lookahead: tgids of later events, the switch_mm after each sched_switch, each CPU's
	 * first switch_mm; for JSON lines of a lazy-flush kernel, whether it reports its
	 * table's loads before the first switch is replayed
	 */
	if (info->has_tgid || !info->normalized || defines_probe(info, "local_load_tlb_mm")) {
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
	free(tl->cpus);
	free(tl->ring);
	u64map_release(&tl->pid_task);
	u64map_release(&tl->tgid_mm);
	u64map_release(&tl->tgid_execs);
	u64map_release(&tl->given_mm);
	u64map_release(&tl->tgid_hint);
	free(tl->names);
	u64map_release(&tl->ptr_mm);
	u64map_release(&tl->dying);
	u64map_release(&tl->probes);
	free(tl);
}

static void ring_pop(struct timeline *tl, tl_emit_fn emit, void *ctx)
{
	struct ts_event *ev = &tl->ring[tl->ring_head];

	tl->ring_head = (tl->ring_head + 1) % tl->ring_cap;
	tl->ring_len--;
	process(tl, ev, emit, ctx);
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
			cpu_get(tl, ev->cpu);
		}
	}
	if (!tl->ring_cap) {
		process(tl, ev, emit, ctx);
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
		account_interval(tl, i, tl->last_ts);
	for (int i = 0; i < tl->ncpus; i++)
		tl->cpus[i].since = tl->last_ts;
}

int timeline_cpus(const struct timeline *tl)
{
	return tl->ncpus;
}

const struct tl_cpu *timeline_cpu(const struct timeline *tl, int cpu)
{
	return cpu >= 0 && cpu < tl->ncpus ? &tl->cpus[cpu].st : NULL;
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

uint64_t timeline_local_flushes(const struct timeline *tl, int cpu)
{
	const struct tl_cpu *c = timeline_cpu(tl, cpu);
	bool flush_events = tl->evidence[TS_SRC_TLB_FLUSH][1] || tl->evidence[TS_SRC_JSON][1] ||
			    tl->saw_kprobe_req;

	if (!c)
		return 0;
	return flush_events || c->local_flushes ? c->local_flushes : c->local_flushes_csd;
}
