// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of mm identity from switch_mm pointers (docs/design.md section 3) and of the other
 * kprobes of tlbscope-probes(7): a tiny tracefs text trace goes through the real parser
 * and timeline, whose answers are worked out by hand in the comments.
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
#include "../../timeline/timeline.h"

#define P1 "0xff60000000846000"
#define P2 "0xff60000000847300"
#define P3 "0xff600000008477c0"
#define INIT_MM "0xffffffff80462340"

#define SW(cpu, ts, prev, prevpid, next, nextpid)						\
	"  " prev "-" #prevpid " [00" #cpu "] d..2. " ts ": sched_switch: prev_comm=" prev	\
	" prev_pid=" #prevpid " prev_prio=120 prev_state=S ==> next_comm=" next		\
	" next_pid=" #nextpid " next_prio=120\n"
#define EV(cpu, ts, comm, pid, what)	"  " comm "-" #pid " [00" #cpu "] ..... " ts ": " what "\n"
#define LOAD(prev, next)	"switch_mm: (ffffffff8000b29a) prev=" prev " next=" next " next_mask=0x0"

/*
 * init (pid 1, met mid-trace) forks 10, which flushes and exits; its mm's address P2 is
 * reused by 11 (a reuse: the old mm ended), then by 13 while 11's mm still lives (an owner
 * change: 11's end was not seen); thread 12 of init shares P1; 13 execs into P3
 * (activate_mm before the exec event), and its flush_tlb_page is evidence for the
 * __flush_tlb_range that follows.
 */
static const char trace[] =
	"# tracer: nop\n"
	"#\n"
	SW(0, "1.000000", "swapper/0", 0, "init", 1)
	EV(0, "1.000001", "swapper/0", 0, LOAD(INIT_MM, P1))
	EV(0, "1.000010", "init", 1, "task_newtask: pid=10 comm=init clone_flags=1200000 oom_score_adj=0")
	EV(0, "1.000011", "init", 1, "task_newtask: pid=12 comm=init clone_flags=3d0f00 oom_score_adj=0")
	SW(0, "1.000020", "init", 1, "init", 10)
	EV(0, "1.000021", "init", 1, LOAD(P1, P2))
	/* a two-page request of 10's mm, the kernel targeting CPUs 0 and 1 */
	EV(0, "1.000030", "init", 10, "__flush_tlb_range: (ffffffff8000ad62) mm=" P2
	   " mask=0x3 start=0x10000 size=0x2000 stride=0x1000")
	EV(1, "1.000031", "<idle>", 0, "csd_function_entry: func=__ipi_flush_tlb_range_asid, csd=0xff60000000998aa8")
	EV(1, "1.000032", "<idle>", 0, "__ipi_flush_tlb_range_asid: (ffffffff8000acea) info=0xff60000000943c80"
	   " asid=0x1 start=0x10000 size=0x2000 stride=0x1000")
	EV(0, "1.000033", "init", 10, "csd_function_entry: func=__ipi_flush_tlb_range_asid, csd=(nil)")
	EV(0, "1.000034", "init", 10, "__ipi_flush_tlb_range_asid: (ffffffff8000acea) info=0xff60000000943c80"
	   " asid=0x1 start=0x10000 size=0x2000 stride=0x1000")
	EV(0, "1.000040", "init", 10, "sched_process_exit: comm=init pid=10 prio=120 group_dead=1")
	SW(0, "1.000050", "init", 10, "init", 1)
	EV(0, "1.000051", "init", 10, LOAD(P2, P1))
	EV(0, "1.000060", "init", 1, "task_newtask: pid=11 comm=init clone_flags=1200000 oom_score_adj=0")
	EV(0, "1.000061", "init", 1, "task_newtask: pid=13 comm=init clone_flags=1200000 oom_score_adj=0")
	SW(0, "1.000070", "init", 1, "init", 11)
	EV(0, "1.000071", "init", 1, LOAD(P1, P2))
	SW(0, "1.000080", "init", 11, "init", 12)
	EV(0, "1.000081", "init", 11, LOAD(P2, P1))
	SW(0, "1.000090", "init", 12, "init", 13)
	EV(0, "1.000091", "init", 12, LOAD(P1, P2))
	/* 13 execs: activate_mm first, a flush of the new mm, then the exec event */
	EV(0, "1.000110", "init", 13, LOAD(P2, P3))
	/* tracefs prints the probe address as a symbol: the event's own name does not matter */
	EV(0, "1.000111", "init", 13, "my_page_probe: (flush_tlb_page+0x8/0x40) vma=0xff60000000ad5000"
	   " mm=" P3 " addr=0x20000 mask=0x1")
	EV(0, "1.000112", "init", 13, "__flush_tlb_range: (ffffffff8000ad62) mm=" P3
	   " mask=0x1 start=0x20000 size=0x1000 stride=0x1000")
	EV(0, "1.000120", "init", 13, "sched_process_exec: filename=/bin/cat pid=13 old_pid=13")
	SW(0, "1.000130", "cat", 13, "swapper/0", 0);

struct fx {
	char path[64];
	struct ts_source *src;
	struct timeline *tl;
	int requests;
	uint32_t request_mm[4];
	int roles[3];		/* FLUSH events by role, requests excepted */
	int exits;
	uint32_t exec_mm;
};

static void collect(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct fx *f = ctx;

	if (ev->kind == TS_EV_FLUSH && ev->u.flush.role == TS_FLUSH_REQUEST) {
		if (f->requests < 4)
			f->request_mm[f->requests] = ev->u.flush.mm;
		f->requests++;
	} else if (ev->kind == TS_EV_FLUSH) {
		f->roles[ev->u.flush.role]++;
	} else if (ev->kind == TS_EV_EXIT && ev->u.exit.mm) {
		f->exits++;
	} else if (ev->kind == TS_EV_EXEC) {
		f->exec_mm = ev->u.exec.mm;
	}
}

static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[TS_ERR_LEN];
	struct ts_event ev;
	int fd, r;

	strcpy(f->path, "/tmp/tlbscope-ptr-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, trace, sizeof(trace) - 1), (ssize_t)(sizeof(trace) - 1));
	close(fd);
	f->src = ts_source_open(f->path, err);
	assert_non_null(f->src);
	f->tl = timeline_new(f->src, NULL);
	while ((r = ts_source_next(f->src, &ev)) > 0)
		timeline_feed(f->tl, &ev, collect, f);
	assert_int_equal(r, 0);
	timeline_finish(f->tl, collect, f);
	assert_int_equal(ts_source_skipped(f->src, NULL), 0);
	*state = f;
	return 0;
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

static const struct tl_mm *mm_named(struct fx *f, const char *name)
{
	for (uint32_t i = 1; i < timeline_mm_count(f->tl); i++)
		if (!strcmp(timeline_mm(f->tl, i)->name, name))
			return timeline_mm(f->tl, i);
	return NULL;
}

static uint32_t mm_id(struct fx *f, const char *name)
{
	for (uint32_t i = 1; i < timeline_mm_count(f->tl); i++)
		if (!strcmp(timeline_mm(f->tl, i)->name, name))
			return i;
	return 0;
}

/* One address, three address spaces: an ended mm's, then a live one's (owner change). */
static void test_pointer_reuse(void **state)
{
	struct fx *f = *state;
	const struct tl_ptr_stats *ps = timeline_ptr_stats(f->tl);
	int by_pointer = 0;

	assert_int_equal(ps->load_mm, 7);
	assert_int_equal(ps->at_switch, 6);
	assert_int_equal(ps->at_exec, 1);
	assert_int_equal(ps->pointers, 3);
	assert_int_equal(ps->reuses, 1);		/* 11 after 10 exited */
	assert_int_equal(ps->owner_changes, 1);		/* 13 while 11 lived */
	for (uint32_t i = 1; i < timeline_mm_count(f->tl); i++)
		by_pointer += timeline_mm(f->tl, i)->how == TL_HOW_POINTER;
	/* p1, p10, p11, p13, p13.1: more address spaces than addresses */
	assert_int_equal(by_pointer, 5);
	assert_non_null(mm_named(f, "p1"));
	assert_non_null(mm_named(f, "p10"));
	assert_non_null(mm_named(f, "p13"));
	assert_true(mm_named(f, "p10")->exited);
	assert_int_equal(mm_named(f, "p10")->mm_ptr, 0xff60000000847300ULL);
	/* thread 12 shares init's mm: no mm of its own */
	assert_null(mm_named(f, "p12"));
	assert_int_equal(mm_named(f, "p1")->switches_in, 3);
	/* no guesses left: init's process was met mid-trace but its pointer names it */
	assert_int_equal(mm_named(f, "p1")->how, TL_HOW_POINTER);
}

/* exec's activate_mm comes before the exec event: the new mm is the exec's. */
static void test_exec_activate(void **state)
{
	struct fx *f = *state;

	assert_non_null(mm_named(f, "p13.1"));
	assert_int_equal(f->exec_mm, mm_id(f, "p13.1"));
	assert_int_equal(strcmp(mm_named(f, "p13.1")->comm, "cat"), 0);
	assert_true(mm_named(f, "p13")->exited);
	assert_false(mm_named(f, "p11")->exited);
	/* p10 at its exit event, p13 at its exec (a derived EXIT) */
	assert_int_equal(f->exits, 2);
}

/* One request per __flush_tlb_range; the caller before it is evidence. */
static void test_requests(void **state)
{
	struct fx *f = *state;
	const struct tl_cpu *c0 = timeline_cpu(f->tl, 0);

	assert_int_equal(f->requests, 2);
	assert_int_equal(f->request_mm[0], mm_id(f, "p10"));
	assert_int_equal(f->request_mm[1], mm_id(f, "p13.1"));
	assert_int_equal(timeline_ptr_stats(f->tl)->callers_evidence, 1);
	assert_int_equal(timeline_probe_count(f->tl, ts_source_intern(f->src, "flush_tlb_page")), 1);
	assert_int_equal(timeline_name_count(f->tl, ts_source_intern(f->src, "my_page_probe")), 1);
	assert_int_equal(timeline_kprobe_requests(f->tl), 2);
	assert_int_equal(c0->flush_requests, 2);
	assert_int_equal(c0->kmask_requests, 2);
	assert_int_equal(c0->kernel_targets, 1);	/* CPU 1 of mask 0x3 */
	assert_int_equal(c0->remote_requests, 1);
	assert_int_equal(mm_named(f, "p10")->kernel_targets, 1);
	/* both requests flush CPU 0 itself (in mask, or no remote target) */
	assert_int_equal(timeline_local_flushes(f->tl, 0), 2);
}

/* __ipi_flush_tlb_range_asid: received on CPU 1, the sender's own call on CPU 0. */
static void test_performed(void **state)
{
	struct fx *f = *state;

	assert_int_equal(f->roles[TS_FLUSH_RECEIVED], 1);
	assert_int_equal(f->roles[TS_FLUSH_LOCAL], 1);
	assert_int_equal(timeline_cpu(f->tl, 1)->flushes_received_kprobe, 1);
	assert_int_equal(timeline_cpu(f->tl, 0)->flushes_received_kprobe, 0);
}

/*
 * A lazy-flush kernel's trace.  init (pid 1) runs on CPU 0 when tracing starts and flushes
 * its mm P1 towards CPU 1, which had P1 loaded before the trace: CPU 1's first switch_mm
 * names it as prev.  CPU 2 starts on init_mm (kernel threads only).  On CPU 1, 20 execs:
 * activate_mm (P2 -> P3), exit_mmap's full flush of the old mm P2, then a request for the
 * new mm, then the exec event.  On CPU 2, 21 exits: exit_mmap's full flush, then (later)
 * its exit event.  local_load_tlb_mm follows each switch_mm.
 */
#define LLOAD(mm)	"local_load_tlb_mm: (ffffffff8000ad4e) mm=" mm " mask=0x0"
#define P4 "0xff60000000846980"
static const char lazy_trace[] =
	"# tracer: nop\n"
	"#\n"
	EV(0, "2.000000", "init", 1, "__flush_tlb_range: (ffffffff8000ad62) mm=" P1
	   " mask=0x3 start=0x10000 size=0x1000 stride=0x1000")
	SW(1, "2.000010", "swapper/1", 0, "app", 20)
	EV(1, "2.000011", "swapper/1", 0, LOAD(P1, P2))
	EV(1, "2.000012", "swapper/1", 0, LLOAD(P2))
	SW(2, "2.000013", "swapper/2", 0, "other", 21)
	EV(2, "2.000014", "swapper/2", 0, LOAD(INIT_MM, P4))
	EV(2, "2.000015", "swapper/2", 0, LLOAD(P4))
	EV(1, "2.000020", "app", 20, LOAD(P2, P3))
	EV(1, "2.000021", "app", 20, LLOAD(P3))
	EV(1, "2.000022", "app", 20, "__flush_tlb_range: (ffffffff8000ad62) mm=" P2
	   " mask=0x2 start=0x0 size=0xffffffffffffffff stride=0x1000")
	EV(1, "2.000023", "app", 20, "__flush_tlb_range: (ffffffff8000ad62) mm=" P3
	   " mask=0x2 start=0x7fff0000 size=0x1000 stride=0x1000")
	EV(1, "2.000030", "app", 20, "sched_process_exec: filename=/bin/true pid=20 old_pid=20")
	/* 21 exits: exit_mmap's full flush of its mm, later its exit event (no group_dead) */
	EV(2, "2.000040", "other", 21, "__flush_tlb_range: (ffffffff8000ad62) mm=" P4
	   " mask=0x4 start=0x0 size=0xffffffffffffffff stride=0x1000")
	EV(2, "2.000041", "other", 21, "lazy_tlb_defer: (ffffffff8000b498) mm=" P4 " cpu=1 decision=2")
	EV(2, "2.000050", "other", 21, "sched_process_exit: comm=other pid=21 prio=120");

/* What the timeline emitted, in order. */
struct seen {
	int n;
	struct {
		int kind, cpu;
		uint32_t mm;
		bool initial, commit, request;
	} ev[64];
};

static void record(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct seen *s = ctx;

	(void)tl;
	if (s->n >= 64)
		return;
	s->ev[s->n].kind = ev->kind;
	s->ev[s->n].cpu = ev->cpu;
	s->ev[s->n].mm = ev->kind == TS_EV_LOAD_MM ? ev->u.load.mm :
			 ev->kind == TS_EV_EXIT ? ev->u.exit.mm :
			 ev->kind == TS_EV_FLUSH ? ev->u.flush.mm : 0;
	s->ev[s->n].initial = ev->kind == TS_EV_LOAD_MM && ev->u.load.initial;
	s->ev[s->n].commit = ev->kind == TS_EV_LOAD_MM && ev->u.load.commit;
	s->ev[s->n].request = ev->kind == TS_EV_FLUSH && ev->u.flush.role == TS_FLUSH_REQUEST;
	s->n++;
}

static void test_lazy_kernel(void **state)
{
	char path[] = "/tmp/tlbscope-lazy-XXXXXX", err[TS_ERR_LEN];
	struct seen *s = calloc(1, sizeof(*s));
	struct ts_source *src;
	struct timeline *tl;
	struct ts_event ev;
	int fd, r, i, initial = -1, req_p1 = -1, exit_p20 = -1, req_p3 = -1, exits = 0;
	int exit_p21 = -1, req_p4 = -1;
	uint32_t p1 = 0, p20 = 0, p21 = 0;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, lazy_trace, sizeof(lazy_trace) - 1),
			 (ssize_t)(sizeof(lazy_trace) - 1));
	close(fd);
	src = ts_source_open(path, err);
	assert_non_null(src);
	tl = timeline_new(src, NULL);
	while ((r = ts_source_next(src, &ev)) > 0)
		timeline_feed(tl, &ev, record, s);
	assert_int_equal(r, 0);
	timeline_finish(tl, record, s);
	assert_int_equal(ts_source_skipped(src, NULL), 0);

	for (uint32_t m = 1; m < timeline_mm_count(tl); m++) {
		if (!strcmp(timeline_mm(tl, m)->name, "p1"))
			p1 = m;
		if (!strcmp(timeline_mm(tl, m)->name, "p20"))
			p20 = m;
		if (!strcmp(timeline_mm(tl, m)->name, "p21"))
			p21 = m;
	}
	assert_true(p1 && p20 && p21);
	for (i = 0; i < s->n; i++) {
		if (s->ev[i].initial) {
			assert_int_equal(initial, -1);	/* one: CPU 2's start is init_mm */
			initial = i;
			assert_int_equal(s->ev[i].cpu, 1);
			assert_int_equal(s->ev[i].mm, p1);
		}
		if (s->ev[i].request && s->ev[i].mm == p1)
			req_p1 = i;
		if (s->ev[i].kind == TS_EV_EXIT && s->ev[i].mm) {
			exits++;
			if (s->ev[i].mm == p20)
				exit_p20 = i;
			else if (s->ev[i].mm == p21)
				exit_p21 = i;
		}
		if (s->ev[i].request && s->ev[i].cpu == 1 && s->ev[i].mm &&
		    s->ev[i].mm != p20 && s->ev[i].mm != p1)
			req_p3 = i;
		if (s->ev[i].request && s->ev[i].mm == p21)
			req_p4 = i;
		/* every table load names the mm its switch_mm resolved */
		if (s->ev[i].commit)
			assert_int_not_equal(s->ev[i].mm, 0);
	}
	/* CPU 1 had init's mm before the trace: known at init's request, and said before it */
	assert_true(initial >= 0 && initial < req_p1);
	assert_int_equal(timeline_ptr_stats(tl)->initial_known, 1);
	assert_int_equal(timeline_ptr_stats(tl)->initial_unknown, 1);
	/* the old mm ends at the first request for the new one, not at the exec event */
	assert_int_equal(exits, 2);
	assert_true(exit_p20 >= 0 && exit_p20 + 1 == req_p3);
	/* an exiting process's mm ends right after exit_mmap's flush, not at its exit event */
	assert_true(req_p4 >= 0 && exit_p21 == req_p4 + 1);
	assert_true(timeline_load_commits(tl));
	assert_int_equal(timeline_ptr_stats(tl)->load_mm, 3);	/* commits are not switch_mms */

	timeline_free(tl);
	ts_source_close(src);
	unlink(path);
	free(s);
}

/*
 * The same kernel with its lazy_tlb_exit_mm probe: an mm ends at that event, the moment
 * exit_mmap lets go of it on every CPU, whatever the exit or exec around it.  20 execs
 * (P2 -> P3; P2's exit_mmap ends before the new mm's first request); 21's exit_mmap
 * flushes P4 on CPU 2, is preempted, and ends 5 us later, before its exit event; 22's exit
 * event comes first, its mm P5 held by another task (23, a /proc reader) whose mmput runs
 * exit_mmap later, on CPU 0.  The answers: p20 ends at the probe of P2, p21 at the probe
 * of P4 (not right after the teardown flush, nor at its exit event), p22 at the probe of
 * P5, after 23's flush of P5, which is still p22's.
 */
#define DROP(mm)	"lazy_tlb_exit_mm: (ffffffff8000b352) mm=" mm
#define P5 "0xff60000000848000"
#define FULL(mm, mask)	"__flush_tlb_range: (ffffffff8000ad62) mm=" mm " mask=" mask	\
	" start=0x0 size=0xffffffffffffffff stride=0x1000"
static const char drop_trace[] =
	"# tracer: nop\n"
	"#\n"
	SW(1, "3.000010", "swapper/1", 0, "app", 20)
	EV(1, "3.000011", "swapper/1", 0, LOAD(INIT_MM, P2))
	EV(1, "3.000012", "swapper/1", 0, LLOAD(P2))
	SW(2, "3.000013", "swapper/2", 0, "other", 21)
	EV(2, "3.000014", "swapper/2", 0, LOAD(INIT_MM, P4))
	EV(2, "3.000015", "swapper/2", 0, LLOAD(P4))
	SW(3, "3.000016", "swapper/3", 0, "held", 22)
	EV(3, "3.000017", "swapper/3", 0, LOAD(INIT_MM, P5))
	EV(3, "3.000018", "swapper/3", 0, LLOAD(P5))
	EV(1, "3.000020", "app", 20, LOAD(P2, P3))
	EV(1, "3.000021", "app", 20, LLOAD(P3))
	EV(1, "3.000022", "app", 20, FULL(P2, "0x2"))
	EV(1, "3.000023", "app", 20, DROP(P2))
	EV(1, "3.000024", "app", 20, "__flush_tlb_range: (ffffffff8000ad62) mm=" P3
	   " mask=0x2 start=0x7fff0000 size=0x1000 stride=0x1000")
	EV(1, "3.000030", "app", 20, "sched_process_exec: filename=/bin/true pid=20 old_pid=20")
	EV(2, "3.000040", "other", 21, FULL(P4, "0x4"))
	EV(2, "3.000045", "other", 21, DROP(P4))
	EV(2, "3.000050", "other", 21, "sched_process_exit: comm=other pid=21 prio=120 group_dead=1")
	EV(3, "3.000060", "held", 22, "sched_process_exit: comm=held pid=22 prio=120 group_dead=1")
	SW(3, "3.000061", "held", 22, "swapper/3", 0)
	EV(0, "3.000070", "ps", 23, FULL(P5, "0x8"))
	EV(0, "3.000071", "ps", 23, DROP(P5));

static void test_lazy_exit_probe(void **state)
{
	char path[] = "/tmp/tlbscope-drop-XXXXXX", err[TS_ERR_LEN];
	struct seen *s = calloc(1, sizeof(*s));
	/* the emitted events of drop_trace, by index (the ring keeps the input's order) */
	enum { DROP_P2 = 12, REQ_P3 = 13, FULL_P4 = 15, DROP_P4 = 16, EXIT_21 = 17,
	       EXIT_22 = 18, FULL_P5 = 20, DROP_P5 = 21, N_EVENTS = 22 };
	struct ts_source *src;
	struct timeline *tl;
	struct ts_event ev;
	uint32_t p20 = 0, p21 = 0, p22 = 0;
	int fd, r, exits = 0;

	(void)state;
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, drop_trace, sizeof(drop_trace) - 1),
			 (ssize_t)(sizeof(drop_trace) - 1));
	close(fd);
	src = ts_source_open(path, err);
	assert_non_null(src);
	tl = timeline_new(src, NULL);
	while ((r = ts_source_next(src, &ev)) > 0)
		timeline_feed(tl, &ev, record, s);
	assert_int_equal(r, 0);
	timeline_finish(tl, record, s);
	assert_int_equal(ts_source_skipped(src, NULL), 0);
	for (uint32_t m = 1; m < timeline_mm_count(tl); m++) {
		if (!strcmp(timeline_mm(tl, m)->name, "p20"))
			p20 = m;
		if (!strcmp(timeline_mm(tl, m)->name, "p21"))
			p21 = m;
		if (!strcmp(timeline_mm(tl, m)->name, "p22"))
			p22 = m;
	}
	assert_true(p20 && p21 && p22);
	assert_int_equal(s->n, N_EVENTS);	/* nothing derived: the probes are the ends */
	for (int i = 0; i < s->n; i++)
		exits += s->ev[i].kind == TS_EV_EXIT && s->ev[i].mm;
	assert_int_equal(exits, 3);
	/* exec: the old mm ends at its exit_mmap's end, before the new mm's request */
	assert_int_equal(s->ev[DROP_P2].kind, TS_EV_EXIT);
	assert_int_equal(s->ev[DROP_P2].mm, p20);
	assert_true(s->ev[REQ_P3].request && s->ev[REQ_P3].mm != p20);
	/* exit: not right after the teardown flush, not at the exit event: at the probe */
	assert_true(s->ev[FULL_P4].request && s->ev[FULL_P4].mm == p21);
	assert_int_equal(s->ev[DROP_P4].kind, TS_EV_EXIT);
	assert_int_equal(s->ev[DROP_P4].mm, p21);
	assert_int_equal(s->ev[EXIT_21].kind, TS_EV_EXIT);
	assert_int_equal(s->ev[EXIT_21].mm, 0);
	/* an mm held past its process's exit: it lives on (23's flush is of it) to the probe */
	assert_int_equal(s->ev[EXIT_22].kind, TS_EV_EXIT);
	assert_int_equal(s->ev[EXIT_22].mm, 0);
	assert_true(s->ev[FULL_P5].request && s->ev[FULL_P5].mm == p22);
	assert_int_equal(s->ev[DROP_P5].kind, TS_EV_EXIT);
	assert_int_equal(s->ev[DROP_P5].mm, p22);
	assert_int_equal(s->ev[DROP_P5].cpu, 0);

	timeline_free(tl);
	ts_source_close(src);
	unlink(path);
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_pointer_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_activate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_requests, setup, teardown),
		cmocka_unit_test_setup_teardown(test_performed, setup, teardown),
		cmocka_unit_test(test_lazy_kernel),
		cmocka_unit_test(test_lazy_exit_probe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
