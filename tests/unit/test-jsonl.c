// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON-lines format's one table (parsers/jsonl-keys.c) against its writer and readers:
 * every line the writer makes, of every kind with every optional member, is taken by the
 * exact reader (the writer keeps the table's order) and read alike by the general scanner;
 * lines not in that order or spelling are left to the others.
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
#include "../../parsers/jsonl-keys.h"
#include "../../parsers/jsonl-view.h"
#include "../../parsers/parsers.h"
#include "../../timeline/timeline.h"

/* A source to name strings through: a JSON-lines file of a header only. */
static struct ts_source *open_source(char *path, size_t len)
{
	char err[TS_ERR_LEN] = "";
	struct ts_source *src;
	FILE *f;
	int fd;

	snprintf(path, len, "/tmp/tlbscope-test-jsonl-XXXXXX");
	fd = mkstemp(path);
	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs("{\"kind\":\"header\",\"version\":1,\"cpus\":4,\"kernel\":\"Linux 6.1\"}\n", f);
	fclose(f);
	src = ts_source_open(path, err);
	assert_non_null(src);
	return src;
}

/* Events of every kind, every optional member present. */
static size_t make_events(struct ts_source *src, struct ts_event *evs, size_t max)
{
	size_t n = 0;

	for (int kind = 0; kind < TS_EV__COUNT && n + 2 <= max; kind++) {
		if (kind == TS_EV_MM)
			continue;	/* the timeline keeps it: written as an "mm" line */
		for (int variant = 0; variant < 2; variant++) {
			struct ts_event *ev = &evs[n++];

			memset(ev, 0, sizeof(*ev));
			ev->ts = 1000 + n;
			ev->cpu = 1;
			ev->kind = (uint8_t)kind;
			ev->name = ts_source_intern(src, "an_event");
			ev->probe = ts_source_intern(src, variant ? "lazy_tlb_defer" : "a_probe");
			ev->pid = 42;
			strcpy(ev->comm, "bash");
			ev->tgid = 40;
			ev->flags = TS_F_TGID;
			switch (kind) {
			case TS_EV_SWITCH:
				ev->u.sw.prev_pid = 42;
				ev->u.sw.next_pid = 7;
				ev->u.sw.prev_state = 1;
				strcpy(ev->u.sw.prev_comm, "bash");
				strcpy(ev->u.sw.next_comm, "cat");
				ev->u.sw.no_mm = 1;
				break;
			case TS_EV_FORK:
			case TS_EV_NEWTASK:
				ev->u.fork.parent_pid = 42;
				ev->u.fork.child_pid = 43;
				ev->u.fork.clone_flags = 0x11;
				strcpy(ev->u.fork.child_comm, "bash");
				break;
			case TS_EV_EXEC:
				ev->u.exec.pid = 42;
				ev->u.exec.old_pid = 41;
				ev->u.exec.filename = ts_source_intern(src, "/bin/cat");
				break;
			case TS_EV_EXIT:
				ev->u.exit.pid = 42;
				ev->u.exit.mm = (uint32_t)variant;	/* task_exit, then exit */
				break;
			case TS_EV_FLUSH:
				ev->u.flush.scope = variant ? TS_SCOPE_KERNEL : TS_SCOPE_RANGE;
				ev->u.flush.pages = 3;
				ev->u.flush.start = 4096;
				ev->u.flush.stride = 4096;
				ev->u.flush.reason = 2;
				ev->u.flush.role = TS_FLUSH_RECEIVED;
				ev->u.flush.fflags = TS_FF_PTR | TS_FF_KMASK;
				ev->u.flush.mm_ptr = 0xff60000000846000ULL;
				ts_cpumask_set(&ev->u.flush.kmask, 0);
				ts_cpumask_set(&ev->u.flush.kmask, 3);
				break;
			case TS_EV_IPI:
				ev->flags |= variant ? TS_F_RECV | TS_F_LOCAL | TS_F_TLB : TS_F_TLB;
				ev->u.ipi.from = 2;
				ev->u.ipi.func = ts_source_intern(src, "flush_tlb_func");
				ts_cpumask_set(&ev->u.ipi.targets, 2);
				break;
			case TS_EV_LOAD_MM:
				ev->u.load.prev = 0xff60000000846000ULL;
				ev->u.load.next = 0xff60000000847000ULL;
				ev->u.load.next_mask = 5;
				ev->u.load.mask_known = 1;
				ev->u.load.initial = 1;
				ev->u.load.commit = 1;
				break;
			case TS_EV_SFENCE:
				ev->u.sfence.count = 2;
				ev->u.sfence.site = ts_source_intern(src, "do_fault");
				break;
			case TS_EV_VMALLOC:
				ev->u.vmalloc.start = 8192;
				ev->u.vmalloc.pages = 4;
				break;
			case TS_EV_TGID:
				ev->u.task.pid = 42;
				ev->u.task.tgid = 40;
				ev->u.task.kthread = 1;
				strcpy(ev->u.task.comm, "bash");
				break;
			case TS_EV_LOST:
				ev->u.lost.count = 5;
				break;
			case TS_EV_OTHER:
				ev->u.defer.known = 1;
				ev->u.defer.mm_ptr = 0xff60000000846000ULL;
				ev->u.defer.target = 3;
				ev->u.defer.decision = 1;
				break;
			default:
				break;
			}
		}
	}
	return n;
}

/* The writer's lines: the mm line, then each event naming mm "p42". */
static char *write_lines(struct ts_source *src, size_t *len)
{
	struct ts_event evs[2 * TS_EV__COUNT];
	size_t n = make_events(src, evs, 2 * TS_EV__COUNT);
	struct ts_jsonl_writer *w;
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	assert_non_null(f);
	w = ts_jsonl_writer_new(f, src);
	ts_jsonl_write_mm(w, 1000, "p42", 42, "bash", 1);
	for (size_t i = 0; i < n; i++)
		ts_jsonl_write_event(w, &evs[i], "p42");
	ts_jsonl_writer_free(w);
	fclose(f);
	return buf;
}

/* How many members the text of a plain line has: its '":' (no strings hold one here). */
static int members(const char *line)
{
	int n = 0;

	for (const char *p = line; (p = strstr(p, "\":")); p += 2)
		n++;
	return n;
}

static void test_writer_keeps_table_order(void **state)
{
	char path[64], *buf, *line, *nl;
	struct jline a = { 0 }, b = { 0 };
	struct ts_source *src = open_source(path, sizeof(path));
	int lines = 0;
	size_t len;

	(void)state;
	buf = write_lines(src, &len);
	for (line = buf; (nl = strchr(line, '\n')); line = nl + 1) {
		char *x, *y;

		*nl = '\0';
		x = xstrdup(line);
		y = xstrdup(line);

		lines++;
		if (!jsonl_view_exact(x, strlen(x), &a))
			fail_msg("not taken by the exact reader: %s", line);
		assert_int_equal(__builtin_popcountll(a.has), members(line));
		assert_true(a.kind >= 0);
		/* the general scanner reads the same members, the same values */
		assert_true(jsonl_view_scan(y, strlen(y), &b));
		assert_true(a.has == b.has);
		assert_int_equal(a.kind, b.kind);
		for (int k = 0; k < N_KEYS; k++) {
			const struct jv *va = jget(&a, k), *vb = jget(&b, k);

			if (!va)
				continue;
			assert_int_equal(va->type, vb->type);
			if (va->type == JV_INT)
				assert_true(va->i == vb->i);
			if (va->type == JV_BOOL)
				assert_int_equal(va->b, vb->b);
			if (va->type == JV_STR) {
				assert_string_equal(va->s, vb->s);
				assert_int_equal(va->len, vb->len);
			}
		}
		free(x);
		free(y);
	}
	assert_true(lines > 2 * (TS_EV__COUNT - 1));
	free(buf);
	free(a.m);
	free(b.m);
	ts_source_close(src);
	unlink(path);
}

/*
 * The reader that finds a line's end as it parses (jsonl_view_exact_line()): over the
 * writer's lines one after another, each line's length and jsonl_view_exact()'s view; a
 * line cut anywhere short of its newline, or ended by "\r\n", is not taken and left as it
 * was; neither is any line jsonl_view_exact() leaves.
 */
static void test_exact_line_finds_the_end(void **state)
{
	char path[64], *buf, *at, *nl, *copy;
	struct jline a = { 0 }, b = { 0 };
	struct ts_source *src = open_source(path, sizeof(path));
	size_t len, n, lines = 0;

	(void)state;
	buf = write_lines(src, &len);	/* NUL-terminated, as the reader's buffer is */
	for (at = buf; (nl = strchr(at, '\n')); at = nl + 1) {
		size_t want = (size_t)(nl - at);
		char *x = xmalloc(want + 1), *y = xmalloc(want + 1);

		memcpy(x, at, want);	/* before the views put their NULs in */
		x[want] = '\0';
		memcpy(y, x, want + 1);

		n = jsonl_view_exact_line(at, len - (size_t)(at - buf), &a);
		assert_int_equal(n, want);
		assert_true(jsonl_view_exact(y, want, &b));
		assert_true(a.has == b.has);
		assert_int_equal(a.kind, b.kind);
		/* the line cut short of its newline: not taken, not changed */
		for (size_t k = 0; k <= want; k++) {
			copy = xmalloc(k + 1);
			memcpy(copy, x, k);
			copy[k] = '\0';
			assert_int_equal(jsonl_view_exact_line(copy, k, &a), 0);
			assert_memory_equal(copy, x, k);
			free(copy);
		}
		copy = xmalloc(want + 3);
		memcpy(copy, x, want);
		memcpy(copy + want, "\r\n", 3);
		assert_int_equal(jsonl_view_exact_line(copy, want + 2, &a), 0);
		free(copy);
		free(x);
		free(y);
		lines++;
	}
	assert_true(lines > TS_EV__COUNT);
	free(a.m);
	free(b.m);
	free(buf);
	ts_source_close(src);
	unlink(path);
}

static void test_exact_leaves_others(void **state)
{
	static const char *const lines[] = {
		/* keys out of the table's order */
		"{\"cpu\":0,\"ts\":1,\"kind\":\"switch\",\"next_pid\":5}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"next_pid\":5,\"prev_pid\":0}",
		/* blanks, escapes, UTF-8, reals, leading zeros, an unknown key or kind */
		"{\"ts\":1, \"cpu\":0,\"kind\":\"switch\"}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"comm\":\"a\\\"b\"}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"comm\":\"caf\xc3\xa9\"}",
		"{\"ts\":1.5,\"cpu\":0,\"kind\":\"switch\"}",
		"{\"ts\":01,\"cpu\":0,\"kind\":\"switch\"}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"x\":1}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"bpf_thing\",\"comm\":\"a\"}",
		/* not one object */
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\"} ",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\"}}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"comm\":\"a}",
		"{\"ts\":1,\"cpu\":{},\"kind\":\"switch\"}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"mm\":nul}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"switch\",\"no_mm\":tru}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"ipi\",\"targets\":[1,]}",
		"{\"ts\":1,\"cpu\":0,\"kind\":\"ipi\",\"targets\":[1}",
		"{\"ts\":",
		"{",
	};
	struct jline l = { 0 };

	(void)state;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		char *x = xstrdup(lines[i]);

		size_t n = strlen(lines[i]);
		char *y = xmalloc(n + 2);

		if (jsonl_view_exact(x, n, &l))
			fail_msg("taken by the exact reader: %s", lines[i]);
		assert_string_equal(x, lines[i]);	/* untouched */
		memcpy(y, lines[i], n);
		memcpy(y + n, "\n", 2);
		if (jsonl_view_exact_line(y, n + 1, &l))
			fail_msg("taken by the exact line reader: %s", lines[i]);
		assert_string_equal(y + n, "\n");
		assert_memory_equal(y, lines[i], n);
		free(x);
		free(y);
	}
	free(l.m);
}

/* The format's value names are the program's own names of the same things. */
static void test_table_names(void **state)
{
	(void)state;
	for (int h = 0; h < JSONL_N_HOWS; h++)
		assert_string_equal(jsonl_how_names[h], timeline_how_name(h));
	for (int k = 0; k < N_KINDS; k++) {
		assert_int_equal(jsonl_kind_id(jsonl_kinds[k].name, jsonl_kinds[k].len), k);
		assert_int_equal(jsonl_kinds[k].len, strlen(jsonl_kinds[k].name));
	}
	for (int k = 0; k < N_KEYS; k++)
		assert_int_equal(jsonl_key_id(jsonl_key_names[k], strlen(jsonl_key_names[k]),
					      jsonl_key_hash(jsonl_key_names[k],
							     strlen(jsonl_key_names[k]))), k);
	assert_int_equal(jsonl_kind_id("swit", 4), -1);
	assert_int_equal(jsonl_kind_id("", 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_writer_keeps_table_order),
		cmocka_unit_test(test_exact_line_finds_the_end),
		cmocka_unit_test(test_exact_leaves_others),
		cmocka_unit_test(test_table_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
