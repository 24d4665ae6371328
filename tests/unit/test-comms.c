// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the live task names (parsers/comms.h): an event's name first, then the
 * running user task's name in /proc/PID/stat (here a directory made to look like /proc),
 * then the saved cmdlines, whose entry for a reused pid may be a long-gone task's; kernel
 * threads, which /proc names past their comm, from the saved cmdlines; and a pid pushed out
 * of its cache set is looked up again, never named after another.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <event-parse.h>

#include "../../parsers/comms.h"

struct fixture {
	char dir[64];
	struct tep_handle *tep;
	struct comms c;
};

#define USER_FLAGS	"4194304"	/* PF_RANDOMIZE */
#define KTHREAD_FLAGS	"69238880"	/* a kworker's: PF_KTHREAD | PF_WQ_WORKER | ... */

/* @f's /proc has a task @pid whose stat gives @name (as is) and @flags */
static void stat_of(struct fixture *f, int pid, const char *name, const char *flags)
{
	char path[128];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%d", f->dir, pid);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/%d/stat", f->dir, pid);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%d (%s) S 1 %d %d 0 -1 %s 101 0 0 0 0 0 0 0 20 0 1 0 2036437 3133440 383\n",
		pid, name, pid, pid, flags);
	fclose(fp);
}

static void task(struct fixture *f, int pid, const char *name)
{
	stat_of(f, pid, name, USER_FLAGS);
}

static void gone(struct fixture *f, int pid)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%d/stat", f->dir, pid);
	unlink(path);
	snprintf(path, sizeof(path), "%s/%d", f->dir, pid);
	rmdir(path);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	strcpy(f->dir, "/tmp/tlbscope-comms-XXXXXX");
	assert_non_null(mkdtemp(f->dir));
	f->tep = tep_alloc();
	assert_non_null(f->tep);
	comms_init(&f->c, f->tep, f->dir);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	if (system(cmd))
		return -1;
	tep_free(f->tep);
	free(f);
	return 0;
}

/* pid 4242 was "grep" when the kernel saved it; the task running as 4242 now is "tlbscope" */
static void test_proc_before_cmdlines(void **state)
{
	struct fixture *f = *state;

	tep_register_comm(f->tep, "grep", 4242);
	task(f, 4242, "tlbscope");
	assert_string_equal(comms_get(&f->c, 4242), "tlbscope");
	assert_int_equal(f->c.proc_reads, 1);
	/* kept: the next event's name costs no read */
	assert_string_equal(comms_get(&f->c, 4242), "tlbscope");
	assert_int_equal(f->c.proc_reads, 1);
}

static void test_exited_and_unknown(void **state)
{
	struct fixture *f = *state;

	tep_register_comm(f->tep, "kworker/0:1", 77);
	assert_string_equal(comms_get(&f->c, 77), "kworker/0:1");
	assert_string_equal(comms_get(&f->c, 78), "<...>");
	assert_string_equal(comms_get(&f->c, 0), "<idle>");
	assert_string_equal(comms_get(&f->c, -1), "<...>");
	/* an empty comm file says nothing */
	task(f, 79, "");
	assert_string_equal(comms_get(&f->c, 79), "<...>");
}

static void test_events_first(void **state)
{
	struct fixture *f = *state;
	char taught[TS_COMM_LEN] = "taught";

	task(f, 500, "procname");
	comms_learn(&f->c, 500, taught);
	assert_string_equal(comms_get(&f->c, 500), "taught");
	assert_int_equal(f->c.proc_reads, 0);
	/* a name an event gives later replaces one looked up */
	task(f, 501, "before-exec");
	assert_string_equal(comms_get(&f->c, 501), "before-exec");
	strcpy(taught, "after-exec");
	comms_learn(&f->c, 501, taught);
	assert_string_equal(comms_get(&f->c, 501), "after-exec");
	/* pid 0 and empty names teach nothing */
	comms_learn(&f->c, 0, taught);
	assert_string_equal(comms_get(&f->c, 0), "<idle>");
	taught[0] = '\0';
	comms_learn(&f->c, 501, taught);
	assert_string_equal(comms_get(&f->c, 501), "after-exec");
}

/* three pids of one set: each keeps its own name, the one pushed out is looked up again */
static void test_collisions(void **state)
{
	struct fixture *f = *state;
	const int a = 1000, b = a + COMMS_SETS, c = a + 2 * COMMS_SETS;
	char na[TS_COMM_LEN] = "task-a", nb[TS_COMM_LEN] = "task-b", nc[TS_COMM_LEN] = "task-c";

	comms_learn(&f->c, a, na);
	comms_learn(&f->c, b, nb);
	assert_string_equal(comms_get(&f->c, a), "task-a");
	assert_string_equal(comms_get(&f->c, b), "task-b");
	assert_string_equal(comms_get(&f->c, a), "task-a");
	assert_int_equal(f->c.proc_reads, 0);
	/* c pushes out b (a was used last); b, still running, is read from /proc */
	comms_learn(&f->c, c, nc);
	task(f, b, "task-b");
	assert_string_equal(comms_get(&f->c, c), "task-c");
	assert_string_equal(comms_get(&f->c, a), "task-a");
	assert_int_equal(f->c.proc_reads, 0);
	assert_string_equal(comms_get(&f->c, b), "task-b");
	assert_int_equal(f->c.proc_reads, 1);
	/* c went out in turn: gone from /proc, so the saved cmdlines name it */
	tep_register_comm(f->tep, "task-c", c);
	assert_string_equal(comms_get(&f->c, c), "task-c");
	assert_int_equal(f->c.proc_reads, 1);
	gone(f, b);
}

/* names of 15 characters, with ") " in them, and longer than a comm can be */
static void test_lengths(void **state)
{
	struct fixture *f = *state;

	task(f, 600, "fifteen-chars-x");
	assert_string_equal(comms_get(&f->c, 600), "fifteen-chars-x");
	task(f, 601, "a) b) c");
	assert_string_equal(comms_get(&f->c, 601), "a) b) c");
	tep_register_comm(f->tep, "twenty-characte", 602);
	task(f, 602, "twenty-characters-xx");
	assert_string_equal(comms_get(&f->c, 602), "twenty-characte");
}

/* /proc's name of a kernel thread is not its comm: the saved cmdlines give that */
static void test_kthreads(void **state)
{
	struct fixture *f = *state;

	/* a worker running an item of the "pm" workqueue: short enough to pass for a comm */
	tep_register_comm(f->tep, "kworker/0:1", 56);
	stat_of(f, 56, "kworker/0:1+pm", KTHREAD_FLAGS);
	assert_string_equal(comms_get(&f->c, 56), "kworker/0:1");
	assert_int_equal(f->c.proc_reads, 1);
	tep_register_comm(f->tep, "kworker/1:1H", 57);
	stat_of(f, 57, "kworker/1:1H-kblockd", KTHREAD_FLAGS);
	assert_string_equal(comms_get(&f->c, 57), "kworker/1:1H");
}

/* in another pid namespace /proc is not consulted: the saved cmdlines are all there is */
static void test_no_proc(void **state)
{
	struct fixture *f = *state;

	comms_init(&f->c, f->tep, NULL);
	tep_register_comm(f->tep, "grep", 4242);
	task(f, 4242, "tlbscope");
	assert_string_equal(comms_get(&f->c, 4242), "grep");
	assert_int_equal(f->c.proc_reads, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_proc_before_cmdlines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exited_and_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_events_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_collisions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lengths, setup, teardown),
		cmocka_unit_test_setup_teardown(test_kthreads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_proc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
