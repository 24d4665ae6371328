// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of analysis/: report's counts and explain's (callers, IPI matrix, targets not
 * running the mm, bursts) and the one-screen summary's figures, on a hand-made trace whose
 * answers are worked out by hand below.  The trace (ftrace text, 2 CPUs, CPU 1 recorded
 * nothing, x86's tlb_flush reasons): sh 100 clones 101 (CLONE_VM: its thread) and forks
 * 102 (which execs cat) and 103; 103 sends one flush IPI to CPU 1 (csd_queue_cpu) and
 * flushes locally twice.
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
#include "../../analysis/explain.h"
#include "../../analysis/report.h"

static const char trace[] =
	"# tracer: nop\n"
	"#\n"
	"# entries-in-buffer/entries-written: 23/23   #P:2\n"
	"#\n"
	"          <idle>-0       [000] d..2.     1.000000: sched_switch: prev_comm=swapper/0 prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=sh next_pid=100 next_prio=120\n"
	"              sh-100     [000] .....     1.000010: task_newtask: pid=101 comm=sh clone_flags=3d0f00 oom_score_adj=0\n"
	"              sh-100     [000] .....     1.000020: sched_process_fork: comm=sh pid=100 child_comm=sh child_pid=101\n"
	"              sh-100     [000] .....     1.000030: task_newtask: pid=102 comm=sh clone_flags=1200000 oom_score_adj=0\n"
	"              sh-100     [000] .....     1.000040: sched_process_fork: comm=sh pid=100 child_comm=sh child_pid=102\n"
	"              sh-100     [000] .....     1.000050: task_newtask: pid=103 comm=sh clone_flags=1200000 oom_score_adj=0\n"
	"              sh-100     [000] d..2.     1.000100: sched_switch: prev_comm=sh prev_pid=100 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=101 next_prio=120\n"
	"              sh-101     [000] d..2.     1.000200: sched_switch: prev_comm=sh prev_pid=101 prev_prio=120 prev_state=S ==> next_comm=kworker/0:1 next_pid=40 next_prio=120\n"
	"     kworker/0:1-40      [000] d..2.     1.000300: sched_switch: prev_comm=kworker/0:1 prev_pid=40 prev_prio=120 prev_state=I ==> next_comm=sh next_pid=102 next_prio=120\n"
	"              sh-102     [000] .....     1.000400: sched_process_exec: filename=/bin/cat pid=102 old_pid=102\n"
	"             cat-102     [000] d..2.     1.000500: sched_switch: prev_comm=cat prev_pid=102 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=103 next_prio=120\n"
	"              sh-103     [000] .....     1.000550: tlb_flush: pages:3 reason:remote IPI send (4)\n"
	"              sh-103     [000] .....     1.000560: csd_queue_cpu: cpu=1 callsite=on_each_cpu_cond_mask+0x20 func=flush_tlb_func csd=0xffff888627d2e3e0\n"
	"              sh-103     [000] .....     1.000570: ipi_send_cpu: cpu=1 callsite=on_each_cpu_cond_mask+0x20 callback=generic_smp_call_function_single_interrupt+0x0\n"
	"              sh-103     [000] .....     1.000580: csd_function_entry: func=flush_tlb_func, csd=(nil)\n"
	"              sh-103     [000] .....     1.000590: tlb_flush: pages:3 reason:local MM shootdown (3)\n"
	"              sh-103     [000] .....     1.000700: tlb_flush: pages:1 reason:local MM shootdown (3)\n"
	"              sh-103     [000] d..2.     1.000800: sched_switch: prev_comm=sh prev_pid=103 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=100 next_prio=120\n"
	"              sh-100     [000] .....     1.000900: sched_process_exit: comm=sh pid=101 prio=120 group_dead=false\n"
	"              sh-100     [000] .....     1.000950: sched_process_exit: comm=sh pid=100 prio=120 group_dead=true\n"
	"              sh-100     [000] d..2.     1.001000: sched_switch: prev_comm=sh prev_pid=100 prev_prio=120 prev_state=X ==> next_comm=swapper/0 next_pid=0 next_prio=120\n";

struct fx {
	char path[64];
	struct ts_source *src;
	struct timeline *tl;
	struct explain *x;
	const struct explain_result *xr;
	struct report_result *r;
};

static int setup_window(void **state, const struct tl_filter *f)
{
	struct fx *fx = calloc(1, sizeof(*fx));
	char err[TS_ERR_LEN];
	struct ts_event ev;
	int fd;

	strcpy(fx->path, "/tmp/tlbscope-analysis-XXXXXX");
	fd = mkstemp(fx->path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, trace, sizeof(trace) - 1), (ssize_t)sizeof(trace) - 1);
	close(fd);
	fx->src = ts_source_open(fx->path, err);
	assert_non_null(fx->src);
	fx->x = explain_new(fx->src);
	while (ts_source_next(fx->src, &ev) > 0) {
		if (!fx->tl)
			fx->tl = timeline_new(fx->src, f);
		timeline_feed(fx->tl, &ev, explain_feed, fx->x);
	}
	timeline_finish(fx->tl, explain_feed, fx->x);
	fx->xr = explain_result(fx->x, fx->tl, timeline_ipi_source(fx->tl));
	fx->r = report_result_new(fx->src, fx->tl, f, fx->xr);
	*state = fx;
	return 0;
}

static int setup(void **state)
{
	return setup_window(state, NULL);
}

/* the second half: 1.000500 s on (the flush included), all CPUs */
static int setup_half(void **state)
{
	static struct tl_filter f = { .from = 1000500000, .to = UINT64_MAX };

	return setup_window(state, &f);
}

static int teardown(void **state)
{
	struct fx *fx = *state;

	report_result_free(fx->r);
	explain_free(fx->x);
	timeline_free(fx->tl);
	ts_source_close(fx->src);
	unlink(fx->path);
	free(fx);
	return 0;
}

/* Totals and the per-CPU rows: CPU 1 recorded nothing and only its received IPI is known. */
static void test_report_counts(void **state)
{
	struct fx *fx = *state;
	const struct report_result *r = fx->r;

	assert_int_equal(r->source, TL_IPI_CSD_QUEUE);
	assert_int_equal(r->t.switches, 7);
	/* the switches to 100, 102, cat (exec), 103 and 100: 101 shares 100's mm, the
	 * kernel thread keeps the one before, the idle task too */
	assert_int_equal(r->t.mm_switches, 5);
	/* the remote send and the first local MM shootdown; the one right after the send is
	 * the same request's local part, not another */
	assert_int_equal(r->t.requests, 2);
	assert_int_equal(r->t.ipis, 1);
	assert_int_equal(r->ncpus, 2);
	assert_true(r->cpus[0].seen);
	assert_false(r->cpus[1].seen);
	assert_int_equal(r->unobserved, 1);
	assert_int_equal(r->cpus[0].ipis_sent, 1);
	assert_int_equal(r->cpus[1].ipis_recv, 1);
	assert_int_equal(r->lost, 0);
	assert_int_equal(r->lossy_cpus, 0);
	/* no kprobe: the kernel's own masks are unknown, and no check is said */
	assert_non_null(r->t.kmask_unknown);
	assert_int_equal(r->check.kind, REPORT_CHECK_NONE);
	/* address spaces by IPIs caused: 103's first, the only one with an IPI */
	assert_true(r->nmms >= 1);
	assert_string_equal(r->mms[0]->name, "p103");
}

/* Why the IPI happened: the caller, the matrix, the target not running the mm, the burst. */
static void test_explain(void **state)
{
	struct fx *fx = *state;
	const struct explain_result *x = fx->xr;

	/* both requests by their tlb_flush reason, tied at one request: by name */
	assert_int_equal(x->ncallers, 2);
	assert_string_equal(x->callers[0].name, "tlb_flush local_mm_shootdown");
	assert_int_equal(x->callers[0].ipis, 0);
	assert_string_equal(x->callers[1].name, "tlb_flush remote_send_ipi");
	assert_int_equal(x->callers[1].ipis, 1);
	assert_int_equal(explain_matrix_at(x, 0, 1), 1);
	assert_int_equal(explain_matrix_at(x, 1, 0), 0);
	assert_false(x->unknown_sender);
	/* CPU 1 has no active mm the trace shows: not 103's */
	assert_int_equal(x->nrows, 1);
	assert_string_equal(x->rows[0].mm->name, "p103");
	assert_int_equal(x->rows[0].not_running, 1);
	assert_int_equal(x->nworst, 1);
	assert_int_equal(x->worst[0].start, 1000000000);
	assert_int_equal(x->worst[0].ipis, 1);
}

/* The summary: rates over the 1 ms the trace spans, the caller and process of the IPI. */
static void test_summary(void **state)
{
	struct fx *fx = *state;
	const struct report_summary *s = &fx->r->sum;

	assert_int_equal(s->window_ns, 1000000);
	assert_true(s->rates_known);
	assert_true(s->requests_per_s > 1999.9 && s->requests_per_s < 2000.1);
	assert_true(s->ipis_per_s > 999.9 && s->ipis_per_s < 1000.1);
	assert_true(s->ipis_per_mm_switch > 0.1999 && s->ipis_per_mm_switch < 0.2001);
	assert_int_equal(s->not_running, 1);
	/* only the caller that caused an IPI */
	assert_int_equal(s->ncallers, 1);
	assert_string_equal(fx->xr->callers[s->callers[0]].name, "tlb_flush remote_send_ipi");
	assert_int_equal(s->nmms, 1);
}

/* A window: its rates are over the part of it the trace covers (1.0005 .. 1.001 s). */
static void test_summary_window(void **state)
{
	struct fx *fx = *state;
	const struct report_summary *s = &fx->r->sum;

	assert_int_equal(s->window_ns, 500000);
	assert_int_equal(fx->r->t.requests, 2);
	assert_true(s->requests_per_s > 3999.9 && s->requests_per_s < 4000.1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_report_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_explain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary, setup, teardown),
		cmocka_unit_test_setup_teardown(test_summary_window, setup_half, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
