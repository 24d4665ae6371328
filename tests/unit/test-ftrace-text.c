// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace text reader against real captures in tests/fixtures/text/ (tracefs "trace"
 * and "trace_pipe" files, trace-cmd report output): exact values of chosen lines, and
 * per-kind counts compared with a plain substring count over the same file.
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
#include "../../parsers/ftrace-fields.h"
#include "../../parsers/parsers.h"

struct evlist {
	struct ts_source *src;
	struct ts_event *ev;
	size_t nr, alloc;
};

static void fixture_path(char *buf, size_t len, const char *name)
{
	const char *dir = getenv("TLBSCOPE_SRCDIR");

	snprintf(buf, len, "%s/tests/fixtures/text/%s", dir && *dir ? dir : ".", name);
}

/* Read every event of fixture @name; the source stays open for its string table. */
static void load(struct evlist *l, const char *name)
{
	char path[4096], err[TS_ERR_LEN] = "";
	struct ts_event ev;
	int r;

	fixture_path(path, sizeof(path), name);
	memset(l, 0, sizeof(*l));
	l->src = ts_source_open(path, err);
	if (!l->src)
		fail_msg("%s: %s", path, err);
	assert_string_equal(ts_source_info(l->src)->format, "ftrace-text");
	while ((r = ts_source_next(l->src, &ev)) == 1) {
		ALLOC_GROW(l->ev, l->nr + 1, l->alloc);
		l->ev[l->nr++] = ev;
	}
	if (r)
		fail_msg("%s", ts_source_error(l->src));
}

static void unload(struct evlist *l)
{
	ts_source_close(l->src);
	free(l->ev);
}

/* The first event of @kind at @ts (ns) on @cpu. */
static const struct ts_event *find(const struct evlist *l, uint64_t ts, int cpu,
				   enum ts_kind kind)
{
	for (size_t i = 0; i < l->nr; i++)
		if (l->ev[i].ts == ts && l->ev[i].cpu == cpu && l->ev[i].kind == kind)
			return &l->ev[i];
	fail_msg("no %s event at %llu on cpu %d", ts_kind_name(kind), (unsigned long long)ts, cpu);
	return NULL;
}

static const char *str(const struct evlist *l, uint32_t id)
{
	return ts_source_str(l->src, id);
}

/* ---- independent counts: lines of the file holding a substring ---- */

static size_t grep_count(const char *name, const char *needle)
{
	char path[4096], line[8192];
	size_t n = 0;
	FILE *f;

	fixture_path(path, sizeof(path), name);
	f = fopen(path, "r");
	assert_non_null(f);
	while (fgets(line, sizeof(line), f))
		if (strstr(line, needle))
			n++;
	fclose(f);
	return n;
}

static void count_kinds(const struct evlist *l, size_t *n)
{
	memset(n, 0, TS_EV__COUNT * sizeof(*n));
	for (size_t i = 0; i < l->nr; i++)
		n[l->ev[i].kind]++;
}

/* Every event line of a well-formed fixture lands in the kind its name says. */
static void check_counts(const char *name)
{
	struct evlist l;
	size_t n[TS_EV__COUNT];

	load(&l, name);
	count_kinds(&l, n);
	assert_int_equal(n[TS_EV_SWITCH], grep_count(name, " sched_switch:"));
	assert_int_equal(n[TS_EV_FORK], grep_count(name, " sched_process_fork:"));
	assert_int_equal(n[TS_EV_NEWTASK], grep_count(name, " task_newtask:"));
	assert_int_equal(n[TS_EV_EXEC], grep_count(name, " sched_process_exec:"));
	assert_int_equal(n[TS_EV_EXIT], grep_count(name, " sched_process_exit:"));
	assert_int_equal(n[TS_EV_FLUSH], grep_count(name, " tlb_flush:"));
	assert_int_equal(n[TS_EV_IPI], grep_count(name, " ipi_send_cpu:") +
			 grep_count(name, " ipi_send_cpumask:") + grep_count(name, " csd_queue_cpu:") +
			 grep_count(name, " csd_function_entry:"));
	assert_int_equal(n[TS_EV_LOST], grep_count(name, "EVENTS]") +
			 grep_count(name, "EVENTS DROPPED]"));
	assert_int_equal(n[TS_EV_OTHER], grep_count(name, " csd_function_exit:") +
			 grep_count(name, " sched_wakeup:"));
	assert_int_equal(ts_source_skipped(l.src, NULL), 0);
	unload(&l);
}

static void test_counts(void **state)
{
	static const char *const names[] = {
		"tracefs-flags-tgid.txt", "tracefs-noflags-tgid.txt", "tracefs-flags-notgid.txt",
		"tracefs-pipe-lost.txt", "report-instance.txt", "report-plain-ns.txt",
		"report-latency.txt", "tracefs-latency-format.txt", "report-ts-diff.txt",
	};

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		check_counts(names[i]);
}

/* Values written down by hand from `grep -c` on the fixtures, as a second opinion. */
static void test_counts_fixed(void **state)
{
	struct evlist l;
	size_t n[TS_EV__COUNT];

	load(&l, "tracefs-flags-tgid.txt");
	count_kinds(&l, n);
	assert_int_equal(l.nr, 252);
	assert_int_equal(n[TS_EV_SWITCH], 31);
	assert_int_equal(n[TS_EV_FLUSH], 157);
	assert_int_equal(n[TS_EV_IPI], 26);
	assert_int_equal(n[TS_EV_FORK], 12);
	assert_int_equal(n[TS_EV_NEWTASK], 12);
	assert_int_equal(n[TS_EV_EXEC], 3);
	assert_int_equal(n[TS_EV_EXIT], 1);
	assert_int_equal(n[TS_EV_OTHER], 10);
	unload(&l);

	load(&l, "report-instance.txt");
	count_kinds(&l, n);
	assert_int_equal(n[TS_EV_SWITCH], 13);
	assert_int_equal(n[TS_EV_FLUSH], 90);
	assert_int_equal(n[TS_EV_LOST], 2);
	assert_int_equal(n[TS_EV_OTHER], 39);
	unload(&l);
}

/* tracefs with irq-info flags and record-tgid: "comm-pid (tgid) [cpu] flags ts: ..." */
static void test_tracefs_flags_tgid(void **state)
{
	const struct ts_source_info *info;
	const struct ts_event *e;
	struct evlist l;

	load(&l, "tracefs-flags-tgid.txt");
	info = ts_source_info(l.src);
	assert_int_equal(info->cpus, 2);
	assert_true(info->has_tgid);
	assert_string_equal(info->detail, "tracefs trace");

	/* cap.sh-17128 (17128) [001] ...1. 359.564402: csd_queue_cpu: cpu=0 ... func=do_sync_core */
	e = &l.ev[0];
	assert_int_equal(e->ts, 359564402000ULL);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->pid, 17128);
	assert_int_equal(e->tgid, 17128);
	assert_true(e->flags & TS_F_TGID);
	assert_string_equal(e->comm, "cap.sh");
	assert_int_equal(e->kind, TS_EV_IPI);
	assert_int_equal(e->u.ipi.src, TS_SRC_CSD_QUEUE);
	assert_string_equal(str(&l, e->u.ipi.func), "do_sync_core");
	assert_string_equal(str(&l, e->name), "csd_queue_cpu");
	assert_true(ts_cpumask_test(&e->u.ipi.targets, 0));
	assert_int_equal(ts_cpumask_weight(&e->u.ipi.targets), 1);

	/* ipi_send_cpu: callback=generic_smp_call_function_single_interrupt+0x0/0x10 */
	e = &l.ev[1];
	assert_int_equal(e->u.ipi.src, TS_SRC_IPI_CPU);
	assert_string_equal(str(&l, e->u.ipi.func), "generic_smp_call_function_single_interrupt");
	assert_false(e->flags & TS_F_TLB);

	/* <idle>-0 (-------) [000] d.h1. 359.564416: csd_function_entry: ... csd=00000000c879ff53 */
	e = find(&l, 359564416000ULL, 0, TS_EV_IPI);
	assert_int_equal(e->pid, 0);
	assert_int_equal(e->tgid, -1);
	assert_false(e->flags & TS_F_TGID);
	assert_string_equal(e->comm, "<idle>");
	assert_true(e->flags & TS_F_RECV);
	assert_false(e->flags & TS_F_LOCAL);

	/* the sender's own call: csd=0000000000000000, func=flush_tlb_func */
	e = find(&l, 359564512000ULL, 1, TS_EV_IPI);
	assert_true(e->flags & TS_F_RECV);
	assert_true(e->flags & TS_F_LOCAL);
	assert_true(e->flags & TS_F_TLB);
	assert_string_equal(str(&l, e->u.ipi.func), "flush_tlb_func");

	/* task_newtask: pid=17131 comm=cap.sh clone_flags=4100 (hex) */
	e = find(&l, 359565247000ULL, 1, TS_EV_NEWTASK);
	assert_int_equal(e->u.fork.parent_pid, 17128);
	assert_int_equal(e->u.fork.child_pid, 17131);
	assert_int_equal(e->u.fork.clone_flags, 0x4100);
	assert_string_equal(e->u.fork.child_comm, "cap.sh");

	/* sched_process_fork: comm=cap.sh pid=17128 child_comm=cap.sh child_pid=17130 */
	e = find(&l, 359564535000ULL, 1, TS_EV_FORK);
	assert_int_equal(e->u.fork.parent_pid, 17128);
	assert_int_equal(e->u.fork.child_pid, 17130);

	/* my task-name-17130 ... sched_process_exec: filename=./rename pid=17130 old_pid=17130 */
	e = find(&l, 359565439000ULL, 0, TS_EV_EXEC);
	assert_string_equal(e->comm, "my task-name");
	assert_int_equal(e->pid, 17130);
	assert_int_equal(e->tgid, 17130);
	assert_int_equal(e->u.exec.pid, 17130);
	assert_int_equal(e->u.exec.old_pid, 17130);
	assert_string_equal(str(&l, e->u.exec.filename), "./rename");

	/* prev_comm=my task-name prev_pid=17130 prev_state=S ==> next_comm=my task-name 17132 */
	e = find(&l, 359566050000ULL, 0, TS_EV_SWITCH);
	assert_int_equal(e->u.sw.prev_pid, 17130);
	assert_int_equal(e->u.sw.next_pid, 17132);
	assert_int_equal(e->u.sw.prev_state, 1);
	assert_string_equal(e->u.sw.prev_comm, "my task-name");
	assert_string_equal(e->u.sw.next_comm, "my task-name");

	/* Web Content-17215: prev_state=R+ ==> next_comm=cap.sh next_pid=17128 */
	e = find(&l, 359736115000ULL, 1, TS_EV_SWITCH);
	assert_string_equal(e->comm, "Web Content");
	assert_int_equal(e->pid, 17215);
	assert_int_equal(e->u.sw.prev_state, 0);
	assert_int_equal(e->u.sw.next_pid, 17128);
	assert_string_equal(e->u.sw.next_comm, "cap.sh");

	e = find(&l, 359736655000ULL, 1, TS_EV_SWITCH);
	assert_string_equal(e->u.sw.prev_comm, "Web Content");
	assert_string_equal(e->u.sw.next_comm, "Web Content");
	assert_int_equal(e->u.sw.next_pid, 17216);

	/* <idle>-0 ... tlb_flush: pages:0 reason:remote wrong CPU (5) */
	e = find(&l, 359564524000ULL, 0, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.reason, 5);
	assert_int_equal(e->u.flush.scope, TS_SCOPE_RANGE);
	assert_int_equal(e->u.flush.pages, 0);
	assert_int_equal(e->u.flush.src, TS_SRC_TLB_FLUSH);
	/* cap.sh ... tlb_flush: pages:1 reason:local MM shootdown (3) */
	e = find(&l, 359565179000ULL, 1, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.reason, 3);
	assert_int_equal(e->u.flush.pages, 1);
	unload(&l);
}

/* tracefs without irq-info flags; and without the TGID column */
static void test_tracefs_variants(void **state)
{
	const struct ts_event *e;
	struct evlist l;

	load(&l, "tracefs-noflags-tgid.txt");
	assert_true(ts_source_info(l.src)->has_tgid);
	/* cap.sh-17128 (17128) [001]    359.864428: tlb_flush: pages:-1 reason:local MM ... (3) */
	e = &l.ev[0];
	assert_int_equal(e->ts, 359864428000ULL);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->pid, 17128);
	assert_int_equal(e->tgid, 17128);
	assert_string_equal(e->comm, "cap.sh");
	assert_int_equal(e->kind, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.scope, TS_SCOPE_MM);
	assert_int_equal(e->u.flush.reason, 3);
	unload(&l);

	load(&l, "tracefs-flags-notgid.txt");
	assert_false(ts_source_info(l.src)->has_tgid);
	assert_int_equal(ts_source_info(l.src)->cpus, 2);
	for (size_t i = 0; i < l.nr; i++) {
		assert_int_equal(l.ev[i].tgid, -1);
		assert_false(l.ev[i].flags & TS_F_TGID);
	}
	/* my task-name-17314 [001] d..2. 360.164774: sched_switch: ... ==> cap.sh 17128 */
	e = find(&l, 360164774000ULL, 1, TS_EV_SWITCH);
	assert_string_equal(e->comm, "my task-name");
	assert_int_equal(e->pid, 17314);
	assert_int_equal(e->u.sw.prev_pid, 17314);
	assert_int_equal(e->u.sw.next_pid, 17128);
	assert_string_equal(e->u.sw.next_comm, "cap.sh");
	unload(&l);
}

/* trace_pipe: no header, "CPU:0 [LOST 2221 EVENTS]" */
static void test_tracefs_lost(void **state)
{
	struct evlist l;
	size_t i;

	load(&l, "tracefs-pipe-lost.txt");
	assert_true(ts_source_info(l.src)->has_tgid);
	assert_int_equal(ts_source_info(l.src)->cpus, 0);
	assert_int_equal(l.ev[0].kind, TS_EV_LOST);
	assert_int_equal(l.ev[0].cpu, 0);
	assert_int_equal(l.ev[0].u.lost.count, 2221);
	assert_int_equal(l.ev[0].ts, 0);	/* nothing before it */
	for (i = 1; i < l.nr && l.ev[i].kind != TS_EV_LOST; i++)
		;
	assert_true(i < l.nr);
	/* line 77; line 76 is the csd_function_exit at 369.434535 */
	assert_int_equal(i, 76);
	assert_int_equal(l.ev[i].cpu, 1);
	assert_int_equal(l.ev[i].u.lost.count, 1945);
	assert_int_equal(l.ev[i].ts, 369434535000ULL);
	assert_int_equal(l.ev[i - 1].ts, 369434535000ULL);
	unload(&l);
}

/* trace-cmd report with a buffer-name prefix and its sched_switch plugin */
static void test_report_instance(void **state)
{
	const struct ts_source_info *info;
	const struct ts_event *e;
	struct evlist l;

	load(&l, "report-instance.txt");
	info = ts_source_info(l.src);
	assert_int_equal(info->cpus, 2);
	assert_false(info->has_tgid);
	assert_string_equal(info->detail, "trace-cmd report");

	/* "tlbscope-textdev: CPU:1 [EVENTS DROPPED]": a number not given */
	assert_int_equal(l.ev[0].kind, TS_EV_LOST);
	assert_int_equal(l.ev[0].cpu, 1);
	assert_int_equal(l.ev[0].u.lost.count, 0);
	/* the line after it carries no prefix */
	assert_int_equal(l.ev[1].kind, TS_EV_FLUSH);
	assert_int_equal(l.ev[1].ts, 379029612000ULL);
	assert_string_equal(l.ev[1].comm, "hackbench");
	assert_int_equal(l.ev[1].pid, 17811);

	/* "CPU:0 [2382 EVENTS DROPPED]" after the exit at 379.030012 */
	e = find(&l, 379030012000ULL, 0, TS_EV_LOST);
	assert_int_equal(e->u.lost.count, 2382);
	assert_int_equal(e[-1].kind, TS_EV_EXIT);
	assert_int_equal(e[-1].u.exit.pid, 17825);
	assert_true(e[-1].flags & TS_F_GROUP_DEAD);

	/* my task-name-17849 [000] 379.030945: sched_switch: cap3.sh:17849 [120] R ==>
	 * migration/0:18 [0] */
	e = find(&l, 379030945000ULL, 0, TS_EV_SWITCH);
	assert_string_equal(e->comm, "my task-name");
	assert_int_equal(e->pid, 17849);
	assert_int_equal(e->tgid, -1);
	assert_int_equal(e->u.sw.prev_pid, 17849);
	assert_int_equal(e->u.sw.prev_state, 0);
	assert_string_equal(e->u.sw.prev_comm, "cap3.sh");
	assert_int_equal(e->u.sw.next_pid, 18);
	assert_string_equal(e->u.sw.next_comm, "migration/0");

	/* my task-name:17849 [120] S ==> my task-name:17850 [120] */
	e = find(&l, 379031617000ULL, 1, TS_EV_SWITCH);
	assert_string_equal(e->u.sw.prev_comm, "my task-name");
	assert_string_equal(e->u.sw.next_comm, "my task-name");
	assert_int_equal(e->u.sw.next_pid, 17850);
	assert_int_equal(e->u.sw.prev_state, 1);

	/* tlb_flush: pages=4 reason=local mm shootdown (3) */
	e = find(&l, 379031468000ULL, 1, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.pages, 4);
	assert_int_equal(e->u.flush.reason, 3);
	assert_int_equal(e->u.flush.scope, TS_SCOPE_RANGE);

	/* csd_queue_cpu: cpu=0 callsite=ttwu_queue_wakelist+0x11d func=sched_ttwu_pending */
	e = find(&l, 379031014000ULL, 1, TS_EV_IPI);
	assert_string_equal(str(&l, e->u.ipi.func), "sched_ttwu_pending");
	assert_true(ts_cpumask_test(&e->u.ipi.targets, 0));
	assert_int_equal(e->u.ipi.from, 1);
	unload(&l);
}

/* trace-cmd report -t (ns timestamps) of a top-level buffer: no prefix */
static void test_report_plain_ns(void **state)
{
	const struct ts_event *e;
	struct evlist l;

	load(&l, "report-plain-ns.txt");
	assert_string_equal(ts_source_info(l.src)->detail, "trace-cmd report");
	assert_int_equal(l.ev[0].kind, TS_EV_LOST);
	/* hackbench-17811 [001] 379.029611995: tlb_flush: pages=0 reason=flush on task switch */
	e = &l.ev[1];
	assert_int_equal(e->ts, 379029611995ULL);
	assert_int_equal(e->kind, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.reason, 0);
	assert_int_equal(e->u.flush.pages, 0);
	assert_int_equal(e->u.flush.scope, TS_SCOPE_RANGE);
	/* the lost marker takes the previous event's time */
	e = find(&l, 379030012052ULL, 0, TS_EV_LOST);
	assert_int_equal(e->u.lost.count, 2382);
	unload(&l);
}

/* trace-cmd report -l: "tsprobe:     bash-2759    0d..1.    72.464884: ..." */
static void test_report_latency(void **state)
{
	const struct ts_event *e;
	struct evlist l;

	load(&l, "report-latency.txt");
	e = find(&l, 72464884000ULL, 0, TS_EV_IPI);
	assert_string_equal(e->comm, "bash");
	assert_int_equal(e->pid, 2759);
	assert_true(e->flags & TS_F_RECV);
	assert_true(e->flags & TS_F_LOCAL);	/* csd=(nil) */
	assert_string_equal(str(&l, e->u.ipi.func), "do_sync_core");
	/* http-2753    1d.h..    72.464887: ... csd=0xffff888627d2e3e0 */
	e = find(&l, 72464887000ULL, 1, TS_EV_IPI);
	assert_string_equal(e->comm, "http");
	assert_false(e->flags & TS_F_LOCAL);
	/* hackbenc-2762 (comm cut to 8) ... sched_process_exec */
	e = find(&l, 72470367000ULL, 0, TS_EV_EXEC);
	assert_string_equal(e->comm, "hackbenc");
	assert_string_equal(str(&l, e->u.exec.filename), "/usr/bin/hackbench");
	/* bash:2759 [120] S ==> swapper/0:0 [120] */
	e = find(&l, 72467633000ULL, 0, TS_EV_SWITCH);
	assert_int_equal(e->u.sw.prev_pid, 2759);
	assert_int_equal(e->u.sw.next_pid, 0);
	assert_string_equal(e->u.sw.next_comm, "swapper/0");
	assert_int_equal(e->u.sw.prev_state, 1);
	unload(&l);
}

/* tracefs with options/latency-format: "my task--8606      0d..2. 918805633us : ..." */
static void test_tracefs_latency_format(void **state)
{
	const struct ts_event *e;
	struct evlist l;

	load(&l, "tracefs-latency-format.txt");
	assert_int_equal(ts_source_info(l.src)->cpus, 2);	/* "(M:PREEMPT(none) ... #P:2)" */
	assert_false(ts_source_info(l.src)->has_tgid);
	e = &l.ev[0];	/* bash-8603 0d..1. 918805260us : tlb_flush: pages:-1 ... (0) */
	assert_int_equal(e->ts, 918805260000ULL);
	assert_int_equal(e->pid, 8603);
	assert_int_equal(e->cpu, 0);
	assert_int_equal(e->u.flush.scope, TS_SCOPE_MM);
	/* sched_switch: prev_comm=bash prev_pid=8606 prev_state=D ==> next_comm=fuzz 8147 */
	e = find(&l, 918805633000ULL, 0, TS_EV_SWITCH);
	assert_string_equal(e->comm, "my task-");	/* latency-format cuts comms to 8 */
	assert_int_equal(e->pid, 8606);
	assert_int_equal(e->u.sw.prev_state, 2);
	assert_int_equal(e->u.sw.next_pid, 8147);
	/* "918805297us!:" a delay mark in place of the blank */
	e = find(&l, 918805297000ULL, 0, TS_EV_FLUSH);
	assert_int_equal(e->u.flush.pages, 0);
	unload(&l);
}

/* trace-cmd report --ts-diff: "379.029638: (+26)    sched_switch: ..." */
static void test_report_ts_diff(void **state)
{
	const struct ts_event *e;
	struct evlist l;

	load(&l, "report-ts-diff.txt");
	e = find(&l, 379029638000ULL, 1, TS_EV_SWITCH);
	assert_int_equal(e->u.sw.prev_pid, 17811);
	assert_int_equal(e->u.sw.prev_state, 16);	/* X */
	assert_int_equal(e->u.sw.next_pid, 17812);
	unload(&l);
}

/* Hand-written lines: odd names, cpumask IPIs, and 11 malformed lines to skip. */
static void test_malformed(void **state)
{
	const char *first;
	const struct ts_event *e;
	struct evlist l;
	size_t n[TS_EV__COUNT];

	load(&l, "tracefs-malformed.txt");
	assert_int_equal(ts_source_info(l.src)->cpus, 4);
	assert_int_equal(ts_source_skipped(l.src, &first), 11);
	assert_non_null(strstr(first, "line 12"));
	count_kinds(&l, n);
	assert_int_equal(l.nr, 10);
	assert_int_equal(n[TS_EV_SWITCH], 2);
	assert_int_equal(n[TS_EV_FLUSH], 2);
	assert_int_equal(n[TS_EV_IPI], 3);
	assert_int_equal(n[TS_EV_LOST], 1);

	/* kworker/u8:2-events_unbound-87 [002] ... prev_state=D|W ==> next_comm=Web Content */
	e = &l.ev[0];
	assert_int_equal(e->pid, 87);
	assert_int_equal(e->cpu, 2);
	assert_string_equal(e->comm, "kworker/u8:2-ev");	/* cut to TASK_COMM_LEN */
	assert_int_equal(e->u.sw.prev_state, 2);
	assert_int_equal(e->u.sw.next_pid, 1234);
	assert_string_equal(e->u.sw.next_comm, "Web Content");

	/* cpumask=00000000,0000000e callback=flush_tlb_func+0x0/0x140 */
	e = &l.ev[1];
	assert_int_equal(e->kind, TS_EV_IPI);
	assert_int_equal(e->u.ipi.src, TS_SRC_IPI_MASK);
	assert_int_equal(e->u.ipi.targets.bits[0], 0xe);
	assert_true(e->flags & TS_F_TLB);
	assert_string_equal(e->comm, "Web Content");
	/* cpumask=0e callback=0xffffffff81234567: no symbol */
	e = &l.ev[2];
	assert_int_equal(e->u.ipi.targets.bits[0], 0xe);
	assert_int_equal(e->u.ipi.func, 0);

	e = &l.ev[3];
	assert_int_equal(e->kind, TS_EV_FORK);
	assert_string_equal(e->u.fork.child_comm, "my task-name");
	assert_int_equal(e->u.fork.child_pid, 4322);

	e = &l.ev[4];	/* csd_function_entry, csd=0xffff888627d2e3e0 */
	assert_true(e->flags & TS_F_RECV);
	assert_false(e->flags & TS_F_LOCAL);
	assert_true(e->flags & TS_F_TLB);

	e = &l.ev[5];	/* pages:-1 reason:remote shootdown (1) */
	assert_int_equal(e->u.flush.scope, TS_SCOPE_MM);
	assert_int_equal(e->u.flush.reason, 1);

	e = &l.ev[6];	/* group_dead=false */
	assert_int_equal(e->kind, TS_EV_EXIT);
	assert_true(e->flags & TS_F_GROUP_KNOWN);
	assert_false(e->flags & TS_F_GROUP_DEAD);

	e = &l.ev[7];	/* CPU:3 [LOST EVENTS] */
	assert_int_equal(e->kind, TS_EV_LOST);
	assert_int_equal(e->cpu, 3);
	assert_int_equal(e->u.lost.count, 0);
	assert_int_equal(e->ts, 100000007000ULL);

	/* latency-format columns; at column 0 in a tracefs file "abc:" is no buffer name */
	e = &l.ev[8];
	assert_string_equal(e->comm, "abc: def");
	assert_int_equal(e->pid, 77);
	assert_int_equal(e->cpu, 1);
	assert_int_equal(e->ts, 100000017000ULL);
	assert_int_equal(e->u.flush.pages, 2);

	e = &l.ev[9];	/* the last line ends in CRLF */
	assert_int_equal(e->ts, 100000020000ULL);
	assert_int_equal(e->u.sw.next_pid, 4321);
	assert_string_equal(e->u.sw.next_comm, "my task-name");
	unload(&l);
}

/* ---- inputs that are not ours ---- */

static void write_tmp(char *path, const void *data, size_t len)
{
	static const char tmpl[] = "/tmp/tlbscope-test-text-XXXXXX";
	int fd;

	memcpy(path, tmpl, sizeof(tmpl));
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* @data as a text source, opened from a file at @path (64 bytes) removed at once */
static struct ts_source *open_tmp(char *path, const void *data, size_t len)
{
	char err[TS_ERR_LEN];
	struct ts_source *src;

	write_tmp(path, data, len);
	src = ts_source_open(path, err);
	unlink(path);
	if (!src)
		fail_msg("%s", err);
	return src;
}

static void expect_rejected(const void *data, size_t len)
{
	char path[64], err[TS_ERR_LEN] = "";
	struct ts_source *src;

	write_tmp(path, data, len);
	src = ts_source_open(path, err);
	unlink(path);
	if (src) {
		ts_source_close(src);
		fail_msg("input accepted");
	}
	assert_non_null(strstr(err, path));
}

static void test_rejects(void **state)
{
	static const char text[] = "hello world\nthis is: 1.5: not a trace\n";
	static const char bin[] = "\x7f" "ELF\x02\x01\x01\0\0\0\0\0\0\0\0\0";
	unsigned char rnd[4096];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(rnd); i++) {
		x = x * 1103515245 + 12345;
		rnd[i] = (unsigned char)(x >> 16);
	}
	expect_rejected(rnd, sizeof(rnd));
	expect_rejected("", 0);
	expect_rejected(text, sizeof(text) - 1);
	expect_rejected(bin, sizeof(bin) - 1);
}

static void test_probe(void **state)
{
	static const char pipe[] =
		"          <idle>-0       [001] d..2.   100.000020: sched_switch: prev_comm=a "
		"prev_pid=0 prev_prio=120 prev_state=R ==> next_comm=b next_pid=1 next_prio=120\n";
	static const char legend[] =
		"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		"#              | |         |   |||||     |         |\n"
		"            bash-12    [000] d..2.   100.000016: tlb_flush: pages:1 reason:x (2)\n";
	static const char report[] = "cpus=2\nversion = 7\nCPU 0 is empty\n";
	static const char json[] = "{\"ts\": 1, \"event\": \"switch\"}\n";

	assert_true(ts_format_ftrace_text.probe(pipe, sizeof(pipe) - 1));
	assert_true(ts_format_ftrace_text.probe(legend, sizeof(legend) - 1));
	assert_true(ts_format_ftrace_text.probe("# tracer: nop\n", 14));
	assert_true(ts_format_ftrace_text.probe(report, sizeof(report) - 1));
	assert_false(ts_format_ftrace_text.probe(json, sizeof(json) - 1));
	assert_false(ts_format_ftrace_text.probe("#!/bin/sh\necho hi\n", 18));
	assert_false(ts_format_ftrace_text.probe("\0\0\0\0", 4));
}

/*
 * A well-formed event line of 70000 bytes and a line with a NUL byte are skipped; the
 * lines around them still count.
 */
static void test_long_line(void **state)
{
	static const char good[] =
		"            bash-12    [000] d..2.   100.000016: tlb_flush: pages:1 reason:x (2)\n";
	size_t big = 70000, len = 0;
	char *data = xmalloc(4 * sizeof(good) + big + 64);
	char path[64], err[TS_ERR_LEN];
	struct ts_source *src;
	struct ts_event ev;
	int events = 0, r;

	memcpy(data, good, sizeof(good) - 1);
	len += sizeof(good) - 1;
	memcpy(data + len, good, sizeof(good) - 2);	/* the same, extended by " pad:xxx..." */
	len += sizeof(good) - 2;
	memcpy(data + len, " pad:", 5);
	memset(data + len + 5, 'x', big);
	len += 5 + big;
	data[len++] = '\n';
	memcpy(data + len, good, sizeof(good) - 2);	/* the same, then "\0 pad:1" */
	len += sizeof(good) - 2;
	memcpy(data + len, "\0 pad:1\n", 8);
	len += 8;
	memcpy(data + len, good, sizeof(good) - 1);
	len += sizeof(good) - 1;
	write_tmp(path, data, len);
	free(data);
	src = ts_source_open(path, err);
	unlink(path);
	if (!src)
		fail_msg("%s", err);
	while ((r = ts_source_next(src, &ev)) == 1) {
		assert_int_equal(ev.kind, TS_EV_FLUSH);
		assert_int_equal(ev.u.flush.reason, 2);
		events++;
	}
	assert_int_equal(r, 0);
	assert_int_equal(events, 2);
	assert_int_equal(ts_source_skipped(src, NULL), 2);
	ts_source_close(src);
}

/*
 * trace-cmd report of a clock it does not count in ns (or --raw-ts, or a trace.dat whose
 * clock option it misreads): "%12d:" integers, glued to "[CPU]" at 12 digits or more.
 * They are read as ns, and the input's advice says so.
 */
static void test_report_raw_ts(void **state)
{
	static const char text[] =
		"cpus=4\n"
		"        tlbscope-224   [002]191907508200: sched_switch:         tlbscope:224 [120] "
		"R ==> kworker/2:1:57 [120]\n"
		"          <idle>-0     [001]    41907508: tlb_flush:            pages=1 reason=remote "
		"shootdown (1)\n";
	char path[64];
	struct ts_source *src = open_tmp(path, text, sizeof(text) - 1);
	struct ts_event ev;

	assert_null(ts_source_info(src)->advice);
	assert_int_equal(ts_source_next(src, &ev), 1);
	assert_int_equal(ev.kind, TS_EV_SWITCH);
	assert_int_equal(ev.ts, 191907508200ULL);
	assert_int_equal(ev.cpu, 2);
	assert_int_equal(ev.pid, 224);
	assert_string_equal(ev.comm, "tlbscope");
	assert_int_equal(ev.u.sw.next_pid, 57);
	assert_non_null(ts_source_info(src)->advice);
	assert_non_null(strstr(ts_source_info(src)->advice, "read as nanoseconds"));
	assert_int_equal(ts_source_next(src, &ev), 1);
	assert_int_equal(ev.kind, TS_EV_FLUSH);
	assert_int_equal(ev.ts, 41907508ULL);
	assert_int_equal(ev.cpu, 1);
	assert_int_equal(ts_source_next(src, &ev), 0);
	assert_int_equal(ts_source_skipped(src, NULL), 0);
	ts_source_close(src);
}

/*
 * A text that opens as trace-cmd report ("cpus=N") but has no line read as an event fails
 * at its end, naming the first line skipped; one with no line at all is an empty trace.
 */
static void test_no_event_read(void **state)
{
	static const char bad[] = "cpus=2\nhello world\nthis is: not: an event\n";
	static const char empty[] = "cpus=2\n";
	char path[64];
	struct ts_source *src = open_tmp(path, bad, sizeof(bad) - 1);
	struct ts_event ev;

	assert_int_equal(ts_source_next(src, &ev), -1);
	assert_non_null(strstr(ts_source_error(src), "no line read as an event (2 skipped; "
			       "first: line 2: not an event line)"));
	assert_non_null(strstr(ts_source_error(src), path));
	ts_source_close(src);

	src = open_tmp(path, empty, sizeof(empty) - 1);
	assert_int_equal(ts_source_next(src, &ev), 0);
	ts_source_close(src);
}

/* ---- the number and field helpers, against what parse_*() and a plain scan say ---- */

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counts),
		cmocka_unit_test(test_counts_fixed),
		cmocka_unit_test(test_tracefs_flags_tgid),
		cmocka_unit_test(test_tracefs_variants),
		cmocka_unit_test(test_tracefs_lost),
		cmocka_unit_test(test_report_instance),
		cmocka_unit_test(test_report_plain_ns),
		cmocka_unit_test(test_report_latency),
		cmocka_unit_test(test_tracefs_latency_format),
		cmocka_unit_test(test_report_ts_diff),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_long_line),
		cmocka_unit_test(test_report_raw_ts),
		cmocka_unit_test(test_no_event_read),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
