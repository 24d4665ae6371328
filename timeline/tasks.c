// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tasks and their life cycle: the pid -> task table (with a cache in front), kernel
 * threads told by fork parentage, clone flags or (a guess, counted) by name, and the
 * events that change a task's process or mm: task_newtask, sched_process_fork, exec, exit.
 * Invariants: a pid names one task at a time (a reused pid is a new task at its fork);
 * CLONE_THREAD shares the process, CLONE_VM without it shares the mm until exec, exec
 * starts a new mm for the whole process; a guessed tgid is corrected, never trusted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "timeline-int.h"

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

struct task *tl_task_add(struct timeline *tl, int32_t pid)
{
	bool added;
	uint64_t *i = u64map_get(&tl->pid_task, (uint32_t)pid, tl->ntasks, &added);
	struct task *t;

	if (added) {
		ALLOC_GROW(tl->tasks, tl->ntasks + 1, tl->tasks_alloc);
		tl->ntasks++;
	}
	t = &tl->tasks[*i];
	if (!added && tl->recycle) {
		/* a reused pid: the task it named lets its mms go */
		tl_task_mm(tl, t, 0);
		tl_task_exec_old(tl, t, 0);
	}
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

/*
 * A task met for the first time mid-trace: identity from the tgid column or the trace's
 * task table, else guessed.
 */
struct task *tl_task_get(struct timeline *tl, int32_t pid, const char *comm, uint64_t ts)
{
	struct task *t = tl_task_find(tl, pid);
	bool user = false;
	uint64_t *row;
	int32_t hint;

	if (t)
		return t;
	t = tl_task_add(tl, pid);
	if (pid == 0) {
		t->kthread = true;
		return t;
	}
	hint = tgid_hint(tl, pid);
	if (hint < 0 && (row = u64map_find(&tl->task_table, (uint32_t)pid))) {
		/* the table says what the tgid column cannot: kernel thread or not */
		if (*row & TABLE_KTHREAD) {
			t->kthread = true;
			return t;
		}
		hint = (int32_t)(uint32_t)*row;
		user = true;
	}
	if (hint > 0 && hint != pid) {
		/* a thread of another task's process: never a kernel thread */
		t->tgid = hint;
		tl_task_mm(tl, t, tl_process_mm(tl, t->tgid, comm, TL_HOW_TGID, ts));
		return t;
	}
	if (!user && comm && comm_is_kthread(comm)) {
		t->kthread = t->kthread_guessed = true;
		tl->kthreads_guessed++;
		return t;
	}
	t->tgid_guessed = hint < 0;
	tl_task_mm(tl, t, tl_process_mm(tl, pid, comm, hint > 0 ? TL_HOW_TGID : TL_HOW_GUESS_PID,
					ts));
	return t;
}

void tl_do_newtask(struct timeline *tl, struct ts_event *ev)
{
	struct task *parent = tl_task_get(tl, ev->u.fork.parent_pid, ev->comm, ev->ts);
	bool pk = parent->kthread;
	int32_t ptgid = parent->tgid;
	uint32_t pmm = parent->mm;
	uint64_t fl = ev->u.fork.clone_flags;
	struct task *child = tl_task_add(tl, ev->u.fork.child_pid);	/* pid reuse: fresh */

	child->by_newtask = true;
	if (pk || (fl & CLONE_UNTRACED) || ev->u.fork.parent_pid == 2) {
		child->kthread = true;	/* until it execs (usermode helpers do) */
	} else if (fl & CLONE_THREAD) {
		child->tgid = ptgid;
		tl_task_mm(tl, child, pmm);
	} else if (fl & CLONE_VM) {
		/* vfork-like: its own process, borrowing the parent's mm until exec */
		tl_task_mm(tl, child, pmm);
		*u64map_get(&tl->tgid_mm, (uint32_t)child->pid, 0, NULL) = tl_mm_ref(tl, pmm);
	} else {
		tl_task_mm(tl, child, tl_mm_for_process(tl, child->pid, ev->u.fork.child_comm,
							TL_HOW_CLONE, ev->ts));
	}
}

void tl_do_fork(struct timeline *tl, struct ts_event *ev)
{
	struct task *child = tl_task_find(tl, ev->u.fork.child_pid);
	struct task *parent;
	int32_t hint;
	bool pk;
	int32_t ptgid;
	uint32_t pmm;

	if (child && child->by_newtask) {
		child->by_newtask = false;	/* consumed: a later reuse of the pid is new */
		return;
	}
	parent = tl_task_get(tl, ev->u.fork.parent_pid, ev->comm, ev->ts);
	pk = parent->kthread;
	ptgid = parent->tgid;
	pmm = parent->mm;
	child = tl_task_add(tl, ev->u.fork.child_pid);
	hint = tgid_hint(tl, child->pid);
	if (pk || ev->u.fork.parent_pid == 2) {
		child->kthread = true;
	} else if (hint == ptgid) {
		child->tgid = ptgid;
		tl_task_mm(tl, child, pmm);
	} else {
		child->tgid_guessed = hint < 0;
		tl_task_mm(tl, child, tl_mm_for_process(tl, child->pid, ev->u.fork.child_comm,
							hint > 0 ? TL_HOW_TGID : TL_HOW_GUESS_FORK,
							ev->ts));
	}
}

/*
 * exec: the task gets its new mm, loaded on this CPU like any switch.  Returns the old mm
 * when the exec ended it, for the caller to emit after the exec: exec_mmap() activates the
 * new mm before it drops the old one, so a lazy table sees the load first.
 */
uint32_t tl_do_exec(struct timeline *tl, struct ts_event *ev, bool count)
{
	struct task *t;
	uint32_t old;

	if (ev->u.exec.old_pid != ev->u.exec.pid) {
		/*
		 * a non-leader thread exec'd and took over the leader's pid (de_thread()); its
		 * own pid went with the old leader and never runs again
		 */
		struct task *o = tl_task_find(tl, ev->u.exec.old_pid);
		struct cpu_state *c = &tl->cpus[ev->cpu];

		if (o) {
			struct task copy = *o;

			t = tl_task_add(tl, ev->u.exec.pid);
			*t = copy;
			t->pid = ev->u.exec.pid;
			if (tl->recycle) {
				tl->users[t->mm]++;
				tl->users[t->exec_old]++;
				/* gone a second from now, as if it exited and was switched out */
				o = tl_task_find(tl, ev->u.exec.old_pid);
				o->exited = true;
				tl_recycle_left(tl, o, ev->ts);
			}
		}
		if (c->cur_pid == ev->u.exec.old_pid)
			c->cur_pid = ev->u.exec.pid;
	}
	t = tl_task_get(tl, ev->u.exec.pid, ev->comm, ev->ts);
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
		tl_task_mm(tl, t, ev->u.exec.mm ? tl_given_mm(tl, ev->u.exec.mm, ev->comm, t->tgid,
							      TL_HOW_GIVEN, ev->ts) : 0);
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
		tl_task_mm(tl, t, tl_mm_for_process(tl, t->tgid, *base ? base : ev->comm,
						    TL_HOW_EXEC, ev->ts));
	}
	ev->u.exec.mm = t->mm;
	/* exec_mmap() activates the new mm on this CPU: an mm switch like any other */
	if (t->mm)
		tl_load_mm(tl, ev->cpu, t->mm, count);
	if (old && tl_drop_ends(tl, old))
		return 0;	/* ended at its exit_mmap's lazy_tlb_exit_mm, or will be */
	/* the process leaves its old mm; a vfork child leaves its parent's alone */
	return old && old != t->mm && tl->mms[old].pid == t->tgid ? old : 0;
}

/*
 * Does the kernel's own lazy_tlb_exit_mm event end @mm?  When the trace has them, for every
 * mm it knows by pointer: that event is the moment every CPU's table lets go of it, and
 * the exit or exec that left the mm says nothing more (its mm_struct may be held longer,
 * by another user).  An mm never named by pointer was never in a table: its exit ends it.
 */
bool tl_drop_ends(const struct timeline *tl, uint32_t mm)
{
	return tl->saw_drop && tl->mms[mm].mm_ptr;
}

/*
 * lazy_tlb_exit_mm(mm) (u.exit.dropped): the end of exit_mmap, where the kernel takes mm out
 * of every CPU's table.  The mm its pointer names now ends here; a pointer that names no
 * live mm ends nothing (u.exit.mm 0).
 */
static void do_drop(struct timeline *tl, struct ts_event *ev)
{
	uint32_t mm = tl_ptr_live(tl, ev->u.exit.mm_ptr);

	ev->u.exit.mm = 0;
	if (!mm)
		return;
	tl_mm_end(tl, mm);
	ev->u.exit.mm = mm;
}

/*
 * exec_mmap() activates the new mm, then drops the old one at once: exit_mmap()'s teardown
 * flushes name the old mm, and the exec'ing task's first request for its new mm comes
 * after them (setup_arg_pages moves the stack).  The old mm ends there, not at the exec
 * event, which can come much later when the task is switched out in between (and the
 * kernel has long taken the old mm out of every CPU's tables).
 */
void tl_exec_old_ends(struct timeline *tl, const struct ts_event *ev, tl_emit_fn emit,
		      void *ctx)
{
	struct task *t;
	uint32_t old;

	if ((ev->flags & TS_F_MM_GIVEN) || ev->u.flush.role != TS_FLUSH_REQUEST ||
	    !ev->u.flush.mm || ev->pid <= 0)
		return;
	t = tl_task_find(tl, ev->pid);
	if (!t || !t->exec_loaded || !t->exec_old || t->mm != ev->u.flush.mm)
		return;
	old = t->exec_old;
	if (old == t->mm || tl->mms[old].pid != t->tgid)
		return;		/* a vfork child leaves its parent's mm alone */
	if (tl_drop_ends(tl, old))
		return;		/* the kernel's lazy_tlb_exit_mm ends it, no guess */
	tl_task_exec_old(tl, t, 0);	/* the exec event has nothing left to end */
	tl_emit_mm_exit(tl, ev, old, emit, ctx);
}

/*
 * A task's exit_mmap: its last full-mm flush of its own mm, when the lookahead shows that
 * task's exit event ending the mm next on this CPU (no other request of the mm, no switch,
 * in between).  The mm ends there: the kernel drops it from every CPU at the end of
 * exit_mmap, while the exit tracepoint of Linux 6.12 comes after exit_mm() returns, and
 * can come much later when the task is preempted in between.
 */
bool tl_exit_teardown(struct timeline *tl, const struct ts_event *ev)
{
	uint32_t mm = ev->u.flush.mm;
	struct task *t;
	size_t seen = 0;

	if ((ev->flags & TS_F_MM_GIVEN) || ev->u.flush.role != TS_FLUSH_REQUEST ||
	    ev->u.flush.scope != TS_SCOPE_MM || !(ev->u.flush.fflags & TS_FF_PTR) || !mm ||
	    ev->pid <= 0 || !tl->ring_cap || tl->mms[mm].exited || tl_drop_ends(tl, mm))
		return false;	/* (tl_drop_ends: the kernel's lazy_tlb_exit_mm ends it, later) */
	t = tl_task_find(tl, ev->pid);
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
			/* the exit ends the mm as tl_do_exit() below would decide it */
			return (e->flags & TS_F_GROUP_KNOWN) ? !!(e->flags & TS_F_GROUP_DEAD) :
							       t->pid == t->tgid;
	}
	return false;
}

/*
 * A task exits; when it was the last of its process, the event also ends the mm (unless the
 * kernel's lazy_tlb_exit_mm does: tl_drop_ends()).  Or that lazy_tlb_exit_mm itself.
 */
void tl_do_exit(struct timeline *tl, struct ts_event *ev)
{
	struct task *t = tl_task_find(tl, ev->u.exit.pid);
	bool group_dead;
	uint32_t mm;

	ev->u.exit.mm = 0;
	if (t && !ev->u.exit.dropped)
		t->exited = true;	/* kernel threads too: gone, they leave the tables */
	if (ev->flags & TS_F_MM_GIVEN) {
		/* JSON lines: "mm" names an address space whose last user is gone */
		mm = ev->u.exit.mm_given;
		if (mm) {
			mm = tl_given_mm(tl, mm, "", -1, TL_HOW_GIVEN, ev->ts);
			if (!tl->mms[mm].exited) {
				tl_mm_end(tl, mm);
				ev->u.exit.mm = mm;
			}
		}
		return;
	}
	if (ev->u.exit.dropped) {
		do_drop(tl, ev);
		return;
	}
	if (!t || t->kthread)
		return;
	mm = t->mm;
	/* without the group_dead field (older kernels), the leader's exit ends the mm */
	group_dead = (ev->flags & TS_F_GROUP_KNOWN) ? (ev->flags & TS_F_GROUP_DEAD)
						    : t->pid == t->tgid;
	if (group_dead && mm && tl->mms[mm].pid == t->tgid && !tl->mms[mm].exited &&
	    !tl_drop_ends(tl, mm)) {
		tl_mm_end(tl, mm);
		ev->u.exit.mm = mm;
	}
}

/* A task-table row (TS_EV_TGID) as it enters the lookahead: for tasks met after it. */
void tl_table_learn(struct timeline *tl, const struct ts_event *ev)
{
	if (ev->u.task.pid <= 0 || ev->u.task.tgid <= 0)
		return;
	*u64map_get(&tl->task_table, (uint32_t)ev->u.task.pid, 0, NULL) =
		(uint32_t)ev->u.task.tgid | (ev->u.task.kthread ? TABLE_KTHREAD : 0);
}

/*
 * A task-table row leaves the lookahead: a task met before it (more than LOOKAHEAD events
 * earlier, or a normalized input) had its process guessed; the row settles it, as a later
 * tgid column does (tl_learn_tgid()).  An mm already made for a wrong guess stays counted
 * as guessed: the events before the row were attributed by that guess.
 */
void tl_do_tgid(struct timeline *tl, const struct ts_event *ev)
{
	int32_t tgid = ev->u.task.tgid;
	struct task *t = tl_task_find(tl, ev->u.task.pid);

	tl->tgid_markers++;
	if (!t || ev->u.task.pid <= 0 || tgid <= 0)
		return;		/* met later, tl_task_get() reads the table then */
	if (t->kthread_guessed) {
		t->kthread_guessed = false;
		tl->kthreads_guessed--;
		tl->tgid_corrected++;
		if (ev->u.task.kthread)
			return;
		/* a user task with a kernel thread's name */
		t->kthread = false;
		t->tgid = tgid;
		tl_task_mm(tl, t, tl_process_mm(tl, tgid, ev->u.task.comm, TL_HOW_TGID, ev->ts));
		return;
	}
	if (!t->tgid_guessed || t->kthread)
		return;
	t->tgid_guessed = false;
	tl->tgid_corrected++;
	if (ev->u.task.kthread) {
		t->kthread = true;
		tl_task_mm(tl, t, 0);
	} else if (t->tgid != tgid) {
		t->tgid = tgid;
		tl_task_mm(tl, t, tl_process_mm(tl, tgid, ev->u.task.comm, TL_HOW_TGID, ev->ts));
	} else if (t->mm && tl->mms[t->mm].how == TL_HOW_GUESS_PID && tl->mms[t->mm].pid == tgid) {
		tl->mms[t->mm].how = TL_HOW_TGID;	/* the guess was right: now it is known */
	}
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
		tl_task_mm(tl, t, tl_process_mm(tl, ev->tgid, ev->comm, TL_HOW_TGID, ev->ts));
	}
}
