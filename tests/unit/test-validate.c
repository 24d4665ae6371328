// SPDX-License-Identifier: GPL-2.0-only
/*
 * The input checks' one that waits (parsers/validate.c): a switch from a pid other than the
 * one running is counted only when no exec explains it.  A thread that is not its process's
 * leader takes the leader's pid in de_thread(), before the exec's own event; the switches
 * from that pid in between are the kernel's truth, not the input's fault.
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
#include "../../parsers/parsers.h"

struct fx {
	char path[64];
	struct ts_source *src;
	uint64_t ts;
};

/* A source to check events against: a JSON-lines file of a header only (2 CPUs). */
static int setup(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	char err[TS_ERR_LEN] = "";
	FILE *out;
	int fd;

	snprintf(f->path, sizeof(f->path), "/tmp/tlbscope-test-validate-XXXXXX");
	fd = mkstemp(f->path);
	assert_true(fd >= 0);
	out = fdopen(fd, "w");
	fputs("{\"kind\":\"header\",\"version\":1,\"cpus\":2,\"kernel\":\"Linux 6.1\"}\n", out);
	fclose(out);
	f->src = ts_source_open(f->path, err);
	assert_non_null(f->src);
	f->ts = 1000000000;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fx *f = *state;

	ts_source_close(f->src);
	unlink(f->path);
	free(f);
	return 0;
}

/* A switch on @cpu from @prev to @next, @dt ns after the last event; returns the verdict. */
static int sw(struct fx *f, uint64_t dt, int cpu, int prev, int next)
{
	struct ts_event ev = { .ts = f->ts += dt, .cpu = cpu, .pid = prev, .tgid = -1,
			       .kind = TS_EV_SWITCH };

	ev.u.sw.prev_pid = prev;
	ev.u.sw.next_pid = next;
	return ts_check_event(f->src, &ev);
}

/* An exec on @cpu: the task @old_pid runs on as @pid. */
static void exec_ev(struct fx *f, int cpu, int pid, int old_pid)
{
	struct ts_event ev = { .ts = f->ts += 1000, .cpu = cpu, .pid = pid, .tgid = -1,
			       .kind = TS_EV_EXEC };

	ev.u.exec.pid = pid;
	ev.u.exec.old_pid = old_pid;
	assert_int_equal(ts_check_event(f->src, &ev), 1);
}

static uint64_t inconsistent(struct fx *f, const char **first)
{
	return ts_source_checked(f->src, TS_CHK_PREV_PID, first);
}

/* The switch comes before the exec (the task slept in between): explained, never counted. */
static void test_switch_then_exec(void **state)
{
	struct fx *f = *state;

	assert_int_equal(sw(f, 1000, 0, 0, 201), 1);
	/* 201 took its leader's pid 200 */
	assert_int_equal(sw(f, 1000, 0, 200, 0), 1);	/* kept either way */
	assert_int_equal(sw(f, 1000, 0, 0, 200), 1);
	exec_ev(f, 0, 200, 201);
	assert_int_equal(sw(f, 1000, 0, 200, 0), 1);
	ts_check_end(f->src);
	assert_int_equal(inconsistent(f, NULL), 0);
}

/* The exec comes first: the CPU runs the leader's pid from then on. */
static void test_exec_then_switch(void **state)
{
	struct fx *f = *state;

	sw(f, 1000, 1, 0, 301);
	exec_ev(f, 1, 300, 301);
	sw(f, 1000, 1, 300, 0);
	ts_check_end(f->src);
	assert_int_equal(inconsistent(f, NULL), 0);
}

/*
 * A switch no exec explains: counted once a second has passed (a live view sees it then),
 * at its own place; an exec of other pids explains nothing.
 */
static void test_unexplained(void **state)
{
	struct fx *f = *state;
	const char *first;

	sw(f, 1000, 0, 0, 100);
	sw(f, 1000, 0, 77, 0);
	/* another CPU's record a little earlier (its clock, or the merge): nothing expires */
	f->ts -= 2000;
	assert_int_equal(sw(f, 0, 1, 0, 0), 1);
	assert_int_equal(inconsistent(f, NULL), 0);
	f->ts += 2000;
	exec_ev(f, 1, 400, 401);
	sw(f, 500000000, 1, 0, 5);
	assert_int_equal(inconsistent(f, NULL), 0);	/* half a second: it may come still */
	sw(f, 600000000, 1, 5, 0);
	assert_int_equal(inconsistent(f, &first), 1);
	/* the line: the header's, all this source read */
	assert_string_equal(first, "line 1: cpu 0 at 1.000002 s: a switch from pid 77, pid 100 was "
			    "running");
	/* two on one CPU: the first is counted when the second comes; the end counts the rest */
	sw(f, 1000, 0, 0, 100);
	sw(f, 1000, 0, 78, 0);
	sw(f, 1000, 0, 0, 100);
	sw(f, 1000, 0, 79, 0);
	assert_int_equal(inconsistent(f, NULL), 2);
	ts_check_end(f->src);
	assert_int_equal(inconsistent(f, NULL), 3);
}

/* The oldest one explained, the next oldest still waits its whole second from its own time. */
static void test_oldest_explained(void **state)
{
	struct fx *f = *state;
	const char *first;

	sw(f, 1000, 0, 0, 201);
	sw(f, 1000, 0, 200, 0);			/* waits from 1.000002 s */
	sw(f, 1000, 1, 0, 5);
	sw(f, 500000000, 1, 66, 0);		/* waits from 1.500003 s */
	exec_ev(f, 0, 200, 201);		/* explains CPU 0's */
	sw(f, 700000000, 0, 0, 0);		/* 2.2 s: CPU 1's has waited 0.7 s */
	assert_int_equal(inconsistent(f, NULL), 0);
	sw(f, 400000000, 0, 0, 0);		/* 2.6 s: now it is counted */
	assert_int_equal(inconsistent(f, &first), 1);
	assert_string_equal(first, "line 1: cpu 1 at 1.500003 s: a switch from pid 66, pid 5 was "
			    "running");
	ts_check_end(f->src);
	assert_int_equal(inconsistent(f, NULL), 1);
}

/* The first one said is the earliest, though a CPU's second switch counts its first early. */
static void test_first_in_order(void **state)
{
	struct fx *f = *state;
	const char *first;

	sw(f, 1000, 1, 0, 5);
	sw(f, 1000, 1, 66, 0);
	sw(f, 1000, 0, 0, 100);
	sw(f, 1000, 0, 78, 0);
	sw(f, 1000, 0, 0, 100);
	sw(f, 1000, 0, 79, 0);
	assert_int_equal(inconsistent(f, &first), 1);
	assert_string_equal(first, "line 1: cpu 0 at 1.000004 s: a switch from pid 78, pid 100 was "
			    "running");
	ts_check_end(f->src);
	assert_int_equal(inconsistent(f, &first), 3);
	assert_string_equal(first, "line 1: cpu 1 at 1.000002 s: a switch from pid 66, pid 5 was "
			    "running");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_switch_then_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec_then_switch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unexplained, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oldest_explained, setup, teardown),
		cmocka_unit_test_setup_teardown(test_first_in_order, setup, teardown),
	};

	return cmocka_run_group_tests_name("validate", tests, NULL, NULL);
}
