// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of timeline/: each identity rule of docs/design.md section 3 and each flush
 * classification, on hand-made event sequences whose answers are computed by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "../../lib/lib.h"
#include "../../parsers/format.h"
#include "../../timeline/timeline.h"

struct fx {
	char path[64];
	struct ts_source *src;
	struct timeline *tl;
	uint64_t ts;
	int exits;		/* EXIT events that ended an mm */
	uint32_t exited[8];
};

static void collect(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct fx *f = ctx;

	if (ev->kind == TS_EV_EXIT && ev->u.exit.mm && f->exits < 8)
		f->exited[f->exits++] = ev->u.exit.mm;
}

/*
 * A timeline of a JSON-lines source whose header line is @header, and no event: the
 * source is there for its string table (and what its header says).
 */
static int setup_header(void **state, const char *header)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[TS_ERR_LEN];
	int fd;

	strcpy(f->path, "/tmp/tlbscope-test-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, header, strlen(header)), (ssize_t)strlen(header));
	close(fd);
	f->src = ts_source_open(f->path, err);
	assert_non_null(f->src);
	f->tl = timeline_new(f->src, NULL);
	f->ts = 1000;
	*state = f;
	return 0;
}

static int setup(void **state)
{
	return setup_header(state, "{\"kind\":\"header\",\"version\":1,\"cpus\":4}\n");
}

/* ... of a trace that defines kprobes (as tlbscope record's on riscv64) */
static int setup_kprobes(void **state)
{
	return setup_header(state, "{\"kind\":\"header\",\"version\":1,\"cpus\":4,"
			    "\"kprobes_defined\":[\"switch_mm\",\"__flush_tlb_range\"]}\n");
}

static int teardown(void **state)
{
	struct fx *f = *state;

	timeline_free(f->tl);
	ts_source_close(f->src);
	unlink(f->path);
	free(f);
	return 0;
}

static struct ts_event ev_new(struct fx *f, int cpu, int pid, const char *comm, int kind)
{
	struct ts_event ev;

	memset(&ev, 0, sizeof(ev));
	ev.ts = f->ts += 1000;
	ev.cpu = cpu;
	ev.pid = pid;
	ev.tgid = -1;
	ev.kind = (uint8_t)kind;
	strlcpy_ts(ev.comm, comm, TS_COMM_LEN);
	return ev;
}

static void feed(struct fx *f, struct ts_event *ev)
{
	timeline_feed(f->tl, ev, collect, f);
}

static void sw(struct fx *f, int cpu, int prev, int next, const char *next_comm)
{
	struct ts_event ev = ev_new(f, cpu, prev, "x", TS_EV_SWITCH);

	ev.name = ts_source_intern(f->src, "sched_switch");
	ev.u.sw.prev_pid = prev;
	ev.u.sw.next_pid = next;
	strlcpy_ts(ev.u.sw.next_comm, next_comm, TS_COMM_LEN);
	feed(f, &ev);
}

static void newtask(struct fx *f, int parent, int child, uint64_t flags)
{
	struct ts_event ev = ev_new(f, 0, parent, "parent", TS_EV_NEWTASK);

	ev.u.fork.parent_pid = parent;
	ev.u.fork.child_pid = child;
	ev.u.fork.clone_flags = flags;
	strlcpy_ts(ev.u.fork.child_comm, "child", TS_COMM_LEN);
	feed(f, &ev);
}

static void flush_x86(struct fx *f, int cpu, int pid, int reason, int64_t pages)
{
	struct ts_event ev = ev_new(f, cpu, pid, "p", TS_EV_FLUSH);

	ev.u.flush.src = TS_SRC_TLB_FLUSH;
	ev.u.flush.reason = (uint8_t)reason;
	ev.u.flush.scope = pages < 0 ? TS_SCOPE_MM : TS_SCOPE_RANGE;
	ev.u.flush.pages = pages < 0 ? 0 : (uint64_t)pages;
	feed(f, &ev);
}

static const struct tl_mm *mm_named(struct fx *f, const char *name)
{
	for (uint32_t i = 1; i < timeline_mm_count(f->tl); i++)
		if (!strcmp(timeline_mm(f->tl, i)->name, name))
			return timeline_mm(f->tl, i);
	return NULL;
}

/* CLONE_THREAD: the child is the parent's process and shares its mm. */
static void test_clone_thread(void **state)
{
	struct fx *f = *state;

	newtask(f, 100, 101, 0x00010000 | 0x00000100);
	sw(f, 0, 0, 100, "app");
	sw(f, 0, 100, 101, "app");
	sw(f, 0, 101, 100, "app");
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_cpu(f->tl, 0)->switches, 3);
	assert_int_equal(timeline_cpu(f->tl, 0)->mm_switches, 1);
	assert_non_null(mm_named(f, "p100"));
	assert_null(mm_named(f, "p101"));
	/* the parent was met mid-trace: its process is a guess */
	assert_int_equal(mm_named(f, "p100")->how, TL_HOW_GUESS_PID);
}

/* A plain fork (no CLONE_VM): a new process with its own mm. */
static void test_fork_process(void **state)
{
	struct fx *f = *state;

	newtask(f, 100, 102, 0x01200000);
	sw(f, 0, 0, 100, "app");
	sw(f, 0, 100, 102, "child");
	sw(f, 0, 102, 100, "app");
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_cpu(f->tl, 0)->mm_switches, 3);
	assert_int_equal(mm_named(f, "p102")->how, TL_HOW_CLONE);
}

/* CLONE_VM without CLONE_THREAD (vfork): shares the parent's mm until it execs. */
static void test_vfork_exec(void **state)
{
	struct fx *f = *state;
	struct ts_event ev;

	newtask(f, 100, 103, 0x00004000 | 0x00000100);
	sw(f, 0, 0, 100, "sh");
	sw(f, 0, 100, 103, "sh");
	assert_int_equal(timeline_cpu(f->tl, 0)->mm_switches, 1);
	ev = ev_new(f, 0, 103, "ls", TS_EV_EXEC);
	ev.u.exec.pid = ev.u.exec.old_pid = 103;
	feed(f, &ev);
	sw(f, 0, 103, 100, "sh");
	sw(f, 0, 100, 103, "ls");
	timeline_finish(f->tl, collect, f);
	/* p100, shared p100 (none), exec loads p103, p100, p103 */
	assert_int_equal(timeline_cpu(f->tl, 0)->mm_switches, 4);
	assert_int_equal(mm_named(f, "p103")->how, TL_HOW_EXEC);
	/* the parent's mm did not end with the child's exec */
	assert_int_equal(f->exits, 0);
	assert_false(mm_named(f, "p100")->exited);
}

/* exec of a process: a new mm "p<tgid>.1", the old one ends. */
static void test_exec_new_mm(void **state)
{
	struct fx *f = *state;
	struct ts_event ev;

	newtask(f, 1, 200, 0);
	sw(f, 1, 0, 200, "sh");
	ev = ev_new(f, 1, 200, "cat", TS_EV_EXEC);
	ev.u.exec.pid = ev.u.exec.old_pid = 200;
	feed(f, &ev);
	sw(f, 1, 200, 0, "swapper/1");
	sw(f, 1, 0, 200, "cat");
	timeline_finish(f->tl, collect, f);
	assert_non_null(mm_named(f, "p200"));
	assert_non_null(mm_named(f, "p200.1"));
	assert_int_equal(f->exits, 1);
	assert_string_equal(timeline_mm(f->tl, f->exited[0])->name, "p200");
	assert_int_equal(timeline_cpu(f->tl, 1)->mm_switches, 2);
}

/* Kernel threads: children of kthreadd, and names like kworker/ (guessed). */
static void test_kthreads(void **state)
{
	struct fx *f = *state;
	uint64_t guessed;

	newtask(f, 2, 300, 0x00800000 | 0x00000100);
	sw(f, 0, 0, 100, "app");
	sw(f, 0, 100, 300, "kthr");		/* borrows app's mm: no mm switch */
	sw(f, 0, 300, 100, "app");
	sw(f, 0, 100, 301, "kworker/0:1");	/* guessed kthread by name */
	sw(f, 0, 301, 100, "app");
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_cpu(f->tl, 0)->mm_switches, 1);
	assert_int_equal(timeline_cpu(f->tl, 0)->kthread_ns, 2000);
	timeline_tasks(f->tl, &guessed);
	assert_int_equal(guessed, 1);
}

static void table_row(struct fx *f, int pid, int tgid, bool kthread, const char *comm)
{
	struct ts_event ev = ev_new(f, 1, 999, "tlbscope", TS_EV_TGID);

	ev.name = ts_source_intern(f->src, "print");
	ev.u.task.pid = pid;
	ev.u.task.tgid = tgid;
	ev.u.task.kthread = kthread;
	strlcpy_ts(ev.u.task.comm, comm, TS_COMM_LEN);
	feed(f, &ev);
}

/*
 * The task table (TS_EV_TGID rows): a task met after its row takes its process from it,
 * never guessed; one met before it (no lookahead here) is corrected by it.
 */
static void test_task_table(void **state)
{
	struct fx *f = *state;
	uint64_t kguessed, corrected;

	table_row(f, 999, 999, false, "tlbscope");
	table_row(f, 101, 100, false, "app");		/* a thread of process 100 */
	table_row(f, 40, 40, true, "kworker/0:1");
	table_row(f, 50, 50, false, "rcu_lookalike");	/* a user task with such a name */
	sw(f, 0, 0, 101, "app");
	sw(f, 0, 101, 40, "kworker/0:1");
	sw(f, 0, 40, 50, "rcu_lookalike");
	/* met before their rows: guessed, then set right */
	sw(f, 0, 50, 200, "late");			/* guess-pid p200, the guess right */
	sw(f, 0, 200, 201, "late2");			/* guess-pid p201, the guess wrong */
	sw(f, 0, 201, 302, "kworker/1:0");		/* a kernel thread by name */
	table_row(f, 200, 200, false, "late");
	table_row(f, 201, 200, false, "late2");
	table_row(f, 302, 302, true, "kworker/1:0");
	sw(f, 0, 302, 201, "late2");
	flush_x86(f, 0, 201, 3, 1);
	timeline_finish(f->tl, collect, f);

	assert_non_null(mm_named(f, "p100"));
	assert_int_equal(mm_named(f, "p100")->how, TL_HOW_TGID);
	assert_null(mm_named(f, "p101"));
	assert_null(mm_named(f, "p40"));
	assert_int_equal(mm_named(f, "p50")->how, TL_HOW_TGID);
	assert_int_equal(mm_named(f, "p200")->how, TL_HOW_TGID);	/* confirmed */
	/* the wrong guess keeps its mm, still counted as a guess; the flush goes to p200 */
	assert_int_equal(mm_named(f, "p201")->how, TL_HOW_GUESS_PID);
	assert_int_equal(mm_named(f, "p201")->flush_requests, 0);
	assert_int_equal(mm_named(f, "p200")->flush_requests, 1);
	assert_int_equal(timeline_tgid_markers(f->tl, &corrected), 7);
	assert_int_equal(corrected, 3);
	timeline_tasks(f->tl, &kguessed);
	assert_int_equal(kguessed, 0);
}

/* Exit: group_dead ends the mm; without the field, the leader's exit does. */
static void test_exit(void **state)
{
	struct fx *f = *state;
	struct ts_event ev;

	newtask(f, 1, 400, 0);
	newtask(f, 400, 401, 0x00010000 | 0x00000100);
	newtask(f, 1, 500, 0);
	sw(f, 0, 0, 400, "a");
	ev = ev_new(f, 0, 401, "a", TS_EV_EXIT);
	ev.u.exit.pid = 401;
	ev.flags = TS_F_GROUP_KNOWN;		/* not the last thread */
	feed(f, &ev);
	assert_int_equal(f->exits, 0);
	ev = ev_new(f, 0, 400, "a", TS_EV_EXIT);
	ev.u.exit.pid = 400;
	ev.flags = TS_F_GROUP_KNOWN | TS_F_GROUP_DEAD;
	feed(f, &ev);
	assert_int_equal(f->exits, 1);
	ev = ev_new(f, 0, 500, "b", TS_EV_EXIT);	/* an older kernel: no group_dead */
	ev.u.exit.pid = 500;
	feed(f, &ev);
	timeline_finish(f->tl, collect, f);
	assert_int_equal(f->exits, 2);
	assert_string_equal(timeline_mm(f->tl, f->exited[1])->name, "p500");
}

/* x86 tlb_flush reasons: requests, their local legs, and received flushes. */
static void test_x86_reasons(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 0, 100, "app");
	flush_x86(f, 0, 100, 4, 3);	/* remote send: a request */
	flush_x86(f, 0, 100, 3, 3);	/* its local leg */
	flush_x86(f, 0, 100, 3, 1);	/* a local-only request */
	flush_x86(f, 0, 100, 0, -1);	/* on task switch: local */
	flush_x86(f, 1, 0, 1, 3);	/* remote shootdown on CPU 1 */
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_cpu(f->tl, 0)->flush_requests, 2);
	assert_int_equal(timeline_cpu(f->tl, 0)->local_flushes, 3);
	assert_int_equal(timeline_cpu(f->tl, 1)->ipis_received[TL_IPI_TLB_FLUSH], 1);
	assert_int_equal(mm_named(f, "p100")->flush_requests, 2);
	assert_int_equal(timeline_requests_mm_guessed(f->tl), 2);
}

/*
 * x86 traces the flushes it found unneeded with 0 pages: a switch to an mm whose ASID was
 * up to date, a local request when the TLB was at the mm's generation already.  No local
 * flush is counted for them; the request still is.
 */
static void test_x86_zero_pages(void **state)
{
	struct fx *f = *state;

	sw(f, 0, 0, 100, "app");
	flush_x86(f, 0, 100, 0, 0);	/* on task switch, ASID up to date */
	flush_x86(f, 0, 100, 0, -1);	/* on task switch, flushed */
	flush_x86(f, 0, 100, 3, 0);	/* a local-only request, nothing to do */
	flush_x86(f, 0, 100, 2, 0);	/* a kernel local request, nothing to do */
	flush_x86(f, 0, 100, 3, 2);	/* a local-only request of 2 pages */
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_cpu(f->tl, 0)->flush_requests, 3);
	assert_int_equal(timeline_cpu(f->tl, 0)->local_flushes, 2);
	assert_int_equal(timeline_local_flushes(f->tl, 0), 2);
}

/*
 * Kprobes defined and none of their events while tasks switched: the kernel dropped them,
 * the requests are unknown.  One event of any of them shows they were written: a request
 * none of them saw was none.
 */
static void test_kprobes_dropped(void **state)
{
	struct fx *f = *state;
	struct ts_event ev;

	assert_int_equal(timeline_requests_unknown(f->tl), TL_REQUESTS_KNOWN);	/* no switch */
	sw(f, 0, 0, 100, "app");
	sw(f, 0, 100, 0, "swapper/0");
	assert_true(timeline_kprobes_silent(f->tl));
	assert_int_equal(timeline_requests_unknown(f->tl), TL_REQUESTS_DROPPED);
	ev = ev_new(f, 1, 7, "kworker/1:0", TS_EV_OTHER);
	ev.probe = ts_source_intern(f->src, "switch_mm");
	feed(f, &ev);
	assert_false(timeline_kprobes_silent(f->tl));
	assert_int_equal(timeline_requests_unknown(f->tl), TL_REQUESTS_KNOWN);
}

/* An arch's name and back, as tune reads a merged profile's; advice for RISC-V or unknown. */
static void test_arch_names(void **state)
{
	(void)state;
	for (int a = TL_ARCH_UNKNOWN; a <= TL_ARCH_OTHER; a++)
		assert_int_equal(timeline_arch_named(timeline_arch_name(a)), a);
	assert_int_equal(timeline_arch_named("armv7l"), TL_ARCH_UNKNOWN);
	assert_int_equal(timeline_arch_named(NULL), TL_ARCH_UNKNOWN);
	assert_true(tl_arch_may_be_riscv(timeline_arch_named("riscv")));
	assert_true(tl_arch_may_be_riscv(timeline_arch_named("unknown")));
	assert_false(tl_arch_may_be_riscv(timeline_arch_named("x86_64")));
	assert_false(tl_arch_may_be_riscv(timeline_arch_named("other")));
}

/* csd_queue_cpu on the sender and csd_function_entry on the target agree. */
static void test_csd_ipis(void **state)
{
	struct fx *f = *state;
	uint32_t fn = ts_source_intern(f->src, "__ipi_flush_tlb_range_asid");
	struct ts_event ev;

	sw(f, 0, 0, 100, "app");
	for (int t = 1; t <= 3; t++) {
		ev = ev_new(f, 0, 100, "app", TS_EV_IPI);
		ev.flags = TS_F_TLB;
		ev.u.ipi.src = TS_SRC_CSD_QUEUE;
		ev.u.ipi.func = fn;
		ts_cpumask_set(&ev.u.ipi.targets, t);
		feed(f, &ev);
	}
	for (int t = 1; t <= 3; t++) {
		ev = ev_new(f, t, 0, "swapper", TS_EV_IPI);
		ev.flags = TS_F_TLB | TS_F_RECV;
		ev.u.ipi.src = TS_SRC_CSD_ENTRY;
		ev.u.ipi.func = fn;
		feed(f, &ev);
	}
	ev = ev_new(f, 0, 100, "app", TS_EV_IPI);	/* the sender's own call */
	ev.flags = TS_F_TLB | TS_F_RECV | TS_F_LOCAL;
	ev.u.ipi.src = TS_SRC_CSD_ENTRY;
	ev.u.ipi.func = fn;
	feed(f, &ev);
	timeline_finish(f->tl, collect, f);
	assert_int_equal(timeline_ipi_source(f->tl), TL_IPI_CSD_QUEUE);
	assert_int_equal(timeline_cpu(f->tl, 0)->ipis_sent[TL_IPI_CSD_QUEUE], 3);
	assert_int_equal(timeline_cpu(f->tl, 0)->ipis_sent[TL_IPI_CSD_ENTRY], 3);
	assert_int_equal(timeline_cpu(f->tl, 2)->ipis_received[TL_IPI_CSD_ENTRY], 1);
	assert_int_equal(mm_named(f, "p100")->ipis_caused[TL_IPI_CSD_QUEUE], 3);
	assert_int_equal(timeline_local_flushes(f->tl, 0), 1);
}

/* Switches counted on @cpu so far; -1 before the timeline has met the CPU. */
static long switches_on(struct fx *f, int cpu)
{
	const struct tl_cpu *c = timeline_cpu(f->tl, cpu);

	return c ? (long)c->switches : -1;
}

/*
 * An input tlbscope did not normalize (ftrace text) goes through the lookahead: a switch
 * waits there for the events after it, until 8192 have come or timeline_release() lets the
 * ones older than a time go (top, live: a slow stream showed nothing for minutes).
 */
/* @f's source and timeline anew: an empty ftrace text input, @settled or not */
static void ftrace_text_input(struct fx *f, bool settled)
{
	char path[64] = "/tmp/tlbscope-test-XXXXXX", err[TS_ERR_LEN];
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "# tracer: nop\n", 14), 14);
	close(fd);
	timeline_free(f->tl);
	ts_source_close(f->src);
	f->src = ts_source_open(path, err);
	assert_non_null(f->src);
	unlink(path);
	f->src->info.settled = settled;
	f->tl = timeline_new(f->src, NULL);
}

static void test_release(void **state)
{
	struct fx *f = *state;

	ftrace_text_input(f, false);
	sw(f, 0, 0, 100, "a");		/* ts 2000 */
	sw(f, 0, 100, 101, "b");	/* 3000 */
	sw(f, 1, 0, 102, "c");		/* 4000 */
	assert_int_equal(switches_on(f, 0), -1);	/* all three wait in the lookahead */
	timeline_release(f->tl, 3000, collect, f);
	assert_int_equal(switches_on(f, 0), 1);
	assert_int_equal(switches_on(f, 1), -1);
	timeline_release(f->tl, 3001, collect, f);
	assert_int_equal(switches_on(f, 0), 2);
	assert_int_equal(switches_on(f, 1), -1);
	timeline_release(f->tl, 3001, collect, f);	/* nothing more that old */
	assert_int_equal(switches_on(f, 1), -1);
	timeline_finish(f->tl, collect, f);
	assert_int_equal(switches_on(f, 1), 1);
}

/*
 * The same input said to be settled (live top's tracepoints: nothing a later event could
 * settle) has no lookahead: each switch is processed as it is fed.
 */
/* A consumer of timeline_recycle_mms(): it holds one id, and records what it is given. */
struct rc_fx {
	uint32_t hold;
	uint64_t released, released_held;
	char last_name[32];
};

static void rc_mark(void *ctx, uint8_t *held, size_t n)
{
	struct rc_fx *r = ctx;

	if (r->hold && r->hold < n)
		held[r->hold] = 1;
}

static void rc_release(void *ctx, struct timeline *tl, uint32_t id)
{
	struct rc_fx *r = ctx;

	r->released++;
	r->released_held += id == r->hold;
	/* the old mm is still readable: an ended one */
	assert_true(timeline_mm(tl, id)->exited);
	strlcpy_ts(r->last_name, timeline_mm(tl, id)->name, sizeof(r->last_name));
}

static void exit_ev(struct fx *f, int cpu, int pid)
{
	struct ts_event ev = ev_new(f, cpu, pid, "t", TS_EV_EXIT);

	ev.u.exit.pid = pid;
	ev.flags = TS_F_GROUP_KNOWN | TS_F_GROUP_DEAD;
	feed(f, &ev);
}

/*
 * Ids given back: 3000 short processes come and go beside one that lives, 2 ms apart.
 * The ids stay few, every new process gets a fresh mm of its own, the live one
 * and the one the consumer holds keep theirs, an exited task switched back in within
 * TL_GONE_NS meets its own ended mm, and one gone is a new task.
 */
static void test_recycle(void **state)
{
	struct fx *f = *state;
	struct rc_fx r = { 0 };
	const struct tl_recycle rc = { rc_mark, rc_release, &r };
	uint32_t daemon, first = 0;
	static int pid_of[4096];	/* by mm id: the process it last named */
	bool asked = false;

	timeline_recycle_mms(f->tl, &rc);
	newtask(f, 1, 50, 0);
	sw(f, 1, 0, 50, "daemon");
	daemon = timeline_current_mm(f->tl, 1);
	for (int i = 0; i < 3000; i++) {
		int pid = 1000 + i;
		char name[32];
		uint32_t mm;
		const struct tl_mm *m;

		f->ts += 2000000;
		newtask(f, 50, pid, 0);
		sw(f, 0, 0, pid, "short");
		mm = timeline_current_mm(f->tl, 0);
		m = timeline_mm(f->tl, mm);
		snprintf(name, sizeof(name), "p%d", pid);
		assert_string_equal(m->name, name);
		assert_false(m->exited);
		assert_int_equal(m->flush_requests, 0);
		/* a fresh row, whatever the id named before: this one switch, on CPU 0 */
		assert_int_equal(m->switches_in, 1);
		assert_int_equal(ts_cpumask_weight(&m->ran_on), 1);
		assert_true(mm != daemon);
		assert_true(mm < 4096);
		if (pid_of[mm] && !asked) {
			/*
			 * the id named an ended process's mm before: a thread of that process
			 * met now (from the task table) is not put in this live one's mm
			 */
			char old_name[32];

			asked = true;
			table_row(f, 30000, pid_of[mm], false, "thread");
			sw(f, 2, 0, 30000, "thread");
			snprintf(old_name, sizeof(old_name), "p%d", pid_of[mm]);
			assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 2))->name,
					    old_name);
			assert_true(timeline_current_mm(f->tl, 2) != mm);
			assert_false(timeline_mm(f->tl, timeline_current_mm(f->tl, 2))->exited);
		}
		pid_of[mm] = pid;
		if (!first) {
			first = mm;
			r.hold = mm;
		}
		exit_ev(f, 0, pid);
		sw(f, 0, pid, 0, "swapper/0");
		/* the one that lives keeps its id and its mm */
		sw(f, 1, 50, 50, "daemon");
		assert_int_equal(timeline_current_mm(f->tl, 1), daemon);
	}
	assert_true(asked);
	assert_true(timeline_mms_recycled(f->tl) > 2000);
	assert_true(timeline_mm_count(f->tl) < 1000);
	assert_true(r.released >= timeline_mms_recycled(f->tl));
	assert_int_equal(r.released_held, 0);
	assert_string_equal(timeline_mm(f->tl, first)->name, "p1000");
	assert_string_equal(timeline_mm(f->tl, daemon)->name, "p50");
	assert_false(timeline_mm(f->tl, daemon)->exited);
	assert_true(r.last_name[0] == 'p');
	/*
	 * the last 300 exited less than a second ago: not gone yet, each still has its own
	 * ended mm (as when preempted in do_exit and switched back in)
	 */
	for (int pid = 3700; pid < 4000; pid++) {
		char name[32];
		const struct tl_mm *m;

		sw(f, 3, 0, pid, "short");
		m = timeline_mm(f->tl, timeline_current_mm(f->tl, 3));
		snprintf(name, sizeof(name), "p%d", pid);
		assert_string_equal(m->name, name);
		assert_true(m->exited);
		sw(f, 3, pid, 0, "swapper/3");
	}
	/*
	 * a gone task runs again (its events lost): a task met for the first time, its
	 * process guessed, in an mm of its own
	 */
	sw(f, 0, 0, 1500, "short");
	assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 0))->name, "p1500");
	assert_int_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 0))->how,
			 TL_HOW_GUESS_PID);
	timeline_finish(f->tl, collect, f);
}

/*
 * Threads come and go in a process that lives: no mm ends, and still the exited threads
 * (and an exited kernel thread) are taken to be gone, a second after they were switched out.
 */
static void test_recycle_threads(void **state)
{
	struct fx *f = *state;
	uint32_t mm;

	timeline_recycle_mms(f->tl, NULL);
	/* a kernel thread (kthreadd's child) that exits: it too leaves the tables */
	newtask(f, 2, 900, 0);
	sw(f, 0, 0, 900, "helper");
	assert_int_equal(timeline_current_mm(f->tl, 0), 0);
	exit_ev(f, 0, 900);
	sw(f, 0, 900, 0, "swapper/0");
	newtask(f, 1, 60, 0);
	sw(f, 1, 0, 60, "server");
	mm = timeline_current_mm(f->tl, 1);
	for (int i = 0; i < 2000; i++) {
		struct ts_event ev;
		int tid = 2000 + i;

		f->ts += 2000000;
		newtask(f, 60, tid, 0x00010000 | 0x00000100);	/* CLONE_THREAD | CLONE_VM */
		sw(f, 0, 0, tid, "worker");
		assert_int_equal(timeline_current_mm(f->tl, 0), mm);
		ev = ev_new(f, 0, tid, "worker", TS_EV_EXIT);
		ev.u.exit.pid = tid;
		ev.flags = TS_F_GROUP_KNOWN;		/* the process lives on */
		feed(f, &ev);
		sw(f, 0, tid, 0, "swapper/0");
	}
	assert_int_equal(f->exits, 0);
	/* one that left 2 ms ago is still the process's thread ... */
	sw(f, 2, 0, 3999, "worker");
	assert_int_equal(timeline_current_mm(f->tl, 2), mm);
	/* ... one that left seconds ago is gone: met again, it is a new task */
	sw(f, 3, 0, 2000, "worker");
	assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 3))->name, "p2000");
	/* and the kernel thread: met again, a new task (its name is not a kernel thread's) */
	sw(f, 3, 2000, 900, "helper");
	assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 3))->name, "p900");
	assert_false(timeline_mms_recycled(f->tl));
	timeline_finish(f->tl, collect, f);
}

/*
 * A thread that is not its process's leader execs: de_thread() gives it the leader's pid,
 * and its own pid goes with the old leader, never to run again.  3000 such processes,
 * 2 ms apart: the old pid's task goes too, and with it the hold on the process's first mm,
 * so that id is given back like the exec'd program's.
 */
static void test_recycle_exec_thread(void **state)
{
	struct fx *f = *state;

	timeline_recycle_mms(f->tl, NULL);
	for (int i = 0; i < 3000; i++) {
		int pid = 1000 + 2 * i, tid = pid + 1;
		struct ts_event ev;
		uint32_t first;
		char name[32];

		f->ts += 2000000;
		newtask(f, 1, pid, 0);
		sw(f, 1, 0, pid, "prog");
		first = timeline_current_mm(f->tl, 1);
		newtask(f, pid, tid, 0x00010000 | 0x00000100);	/* CLONE_THREAD | CLONE_VM */
		sw(f, 0, 0, tid, "prog");
		assert_int_equal(timeline_current_mm(f->tl, 0), first);
		/* the leader dies in de_thread(); the process lives on */
		ev = ev_new(f, 1, pid, "prog", TS_EV_EXIT);
		ev.u.exit.pid = pid;
		ev.flags = TS_F_GROUP_KNOWN;
		feed(f, &ev);
		sw(f, 1, pid, 0, "swapper/1");
		ev = ev_new(f, 0, pid, "next", TS_EV_EXEC);
		ev.u.exec.pid = pid;
		ev.u.exec.old_pid = tid;
		feed(f, &ev);
		snprintf(name, sizeof(name), "p%d.1", pid);
		assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 0))->name, name);
		exit_ev(f, 0, pid);
		sw(f, 0, pid, 0, "swapper/0");
	}
	/* two mms a process, a second's worth (500 processes) not yet gone */
	assert_true(timeline_mms_recycled(f->tl) > 4000);
	assert_true(timeline_mm_count(f->tl) < 1500);
	/* the pid the thread had, met again: a new task, its process guessed */
	sw(f, 2, 0, 1001, "other");
	assert_string_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 2))->name, "p1001");
	assert_int_equal(timeline_mm(f->tl, timeline_current_mm(f->tl, 2))->how, TL_HOW_GUESS_PID);
	timeline_finish(f->tl, collect, f);
}

static void test_settled(void **state)
{
	struct fx *f = *state;

	ftrace_text_input(f, true);
	sw(f, 0, 0, 100, "a");
	assert_int_equal(switches_on(f, 0), 1);
	sw(f, 1, 0, 102, "c");
	assert_int_equal(switches_on(f, 1), 1);
	timeline_finish(f->tl, collect, f);
	assert_int_equal(switches_on(f, 0), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_clone_thread, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fork_process, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vfork_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_new_mm, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kthreads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_task_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exit, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x86_reasons, setup, teardown),
		cmocka_unit_test_setup_teardown(test_x86_zero_pages, setup, teardown),
		cmocka_unit_test(test_arch_names),
		cmocka_unit_test_setup_teardown(test_kprobes_dropped, setup_kprobes, teardown),
		cmocka_unit_test_setup_teardown(test_csd_ipis, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_settled, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recycle_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_recycle_exec_thread, setup, teardown),
	};

	return cmocka_run_group_tests_name("timeline", tests, NULL, NULL);
}
