// SPDX-License-Identifier: GPL-2.0-only
/*
 * One tracepoint's fields -> one normalized event.  Shared by every format that carries
 * kernel tracepoints (trace.dat through libtraceevent, the ftrace text formats), so the
 * meaning of each event is decided in exactly one place.
 */
#include <stdio.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

#define NEED(call, field)							\
	do {									\
		if ((call) < 0) {						\
			snprintf(why, why_len, "%s: no field '%s'", name, field);	\
			return -1;						\
		}								\
	} while (0)

static int need_num(const struct tp_fields *f, const char *field, int64_t *v)
{
	return f->num(f->ctx, field, v);
}

static void opt_str(const struct tp_fields *f, const char *field, char *buf, size_t len)
{
	if (f->str(f->ctx, field, buf, len) < 0)
		buf[0] = '\0';
}

static uint32_t sym_id(struct ts_source *src, const struct tp_fields *f, const char *field)
{
	char sym[128];

	if (f->sym(f->ctx, field, sym, sizeof(sym)) < 0 || !sym[0])
		return 0;
	return ts_source_intern(src, sym);
}

static int check_cpu(int64_t cpu, const char *name, char *why, size_t why_len)
{
	if (cpu < 0 || cpu >= TS_MAX_CPUS) {
		snprintf(why, why_len, "%s: cpu %lld out of range", name, (long long)cpu);
		return -1;
	}
	return 0;
}

int tp_decode(struct ts_source *src, const char *name, const struct tp_fields *f,
	      struct ts_event *ev, char *why, size_t why_len)
{
	int64_t v, w;

	ev->name = ts_source_intern(src, name);
	ev->kind = TS_EV_OTHER;

	if (!strcmp(name, "sched_switch")) {
		ev->kind = TS_EV_SWITCH;
		NEED(need_num(f, "prev_pid", &v), "prev_pid");
		NEED(need_num(f, "next_pid", &w), "next_pid");
		ev->u.sw.prev_pid = (int32_t)v;
		ev->u.sw.next_pid = (int32_t)w;
		ev->u.sw.next_tgid = -1;
		if (need_num(f, "prev_state", &v) == 0)
			ev->u.sw.prev_state = v;
		opt_str(f, "prev_comm", ev->u.sw.prev_comm, TS_COMM_LEN);
		opt_str(f, "next_comm", ev->u.sw.next_comm, TS_COMM_LEN);
	} else if (!strcmp(name, "sched_process_fork")) {
		ev->kind = TS_EV_FORK;
		NEED(need_num(f, "parent_pid", &v), "parent_pid");
		NEED(need_num(f, "child_pid", &w), "child_pid");
		ev->u.fork.parent_pid = (int32_t)v;
		ev->u.fork.child_pid = (int32_t)w;
		opt_str(f, "child_comm", ev->u.fork.child_comm, TS_COMM_LEN);
	} else if (!strcmp(name, "task_newtask")) {
		ev->kind = TS_EV_NEWTASK;
		NEED(need_num(f, "pid", &v), "pid");
		NEED(need_num(f, "clone_flags", &w), "clone_flags");
		ev->u.fork.parent_pid = ev->pid;
		ev->u.fork.child_pid = (int32_t)v;
		ev->u.fork.clone_flags = (uint64_t)w;
		opt_str(f, "comm", ev->u.fork.child_comm, TS_COMM_LEN);
	} else if (!strcmp(name, "sched_process_exec")) {
		char file[256];

		ev->kind = TS_EV_EXEC;
		NEED(need_num(f, "pid", &v), "pid");
		ev->u.exec.pid = (int32_t)v;
		ev->u.exec.old_pid = need_num(f, "old_pid", &w) ? (int32_t)v : (int32_t)w;
		opt_str(f, "filename", file, sizeof(file));
		ev->u.exec.filename = ts_source_intern(src, file);
	} else if (!strcmp(name, "sched_process_exit")) {
		ev->kind = TS_EV_EXIT;
		NEED(need_num(f, "pid", &v), "pid");
		ev->u.exit.pid = (int32_t)v;
		if (need_num(f, "group_dead", &w) == 0) {
			ev->flags |= TS_F_GROUP_KNOWN;
			if (w)
				ev->flags |= TS_F_GROUP_DEAD;
		}
	} else if (!strcmp(name, "ipi_send_cpu") || !strcmp(name, "csd_queue_cpu")) {
		bool csd = name[0] == 'c';

		ev->kind = TS_EV_IPI;
		NEED(need_num(f, "cpu", &v), "cpu");
		if (check_cpu(v, name, why, why_len))
			return -1;
		ts_cpumask_set(&ev->u.ipi.targets, (int)v);
		ev->u.ipi.src = csd ? TS_SRC_CSD_QUEUE : TS_SRC_IPI_CPU;
		ev->u.ipi.func = sym_id(src, f, csd ? "func" : "callback");
		ev->u.ipi.from = ev->cpu;
	} else if (!strcmp(name, "ipi_send_cpumask")) {
		ev->kind = TS_EV_IPI;
		NEED(f->mask(f->ctx, "cpumask", &ev->u.ipi.targets), "cpumask");
		ev->u.ipi.src = TS_SRC_IPI_MASK;
		ev->u.ipi.func = sym_id(src, f, "callback");
		ev->u.ipi.from = ev->cpu;
	} else if (!strcmp(name, "csd_function_entry")) {
		ev->kind = TS_EV_IPI;
		ev->flags |= TS_F_RECV;
		ev->u.ipi.src = TS_SRC_CSD_ENTRY;
		ev->u.ipi.func = sym_id(src, f, "func");
		ev->u.ipi.from = -1;
		/* the caller's own invocation of a cross-call runs with csd == NULL */
		if (need_num(f, "csd", &v) == 0 && v == 0)
			ev->flags |= TS_F_LOCAL;
	} else if (!strcmp(name, "tlb_flush")) {
		ev->kind = TS_EV_FLUSH;
		NEED(need_num(f, "reason", &v), "reason");
		NEED(need_num(f, "pages", &w), "pages");
		ev->u.flush.src = TS_SRC_TLB_FLUSH;
		ev->u.flush.reason = (uint8_t)v;
		/* pages is TLB_FLUSH_ALL (-1) for a whole-mm flush */
		if (w < 0) {
			ev->u.flush.scope = TS_SCOPE_MM;
		} else {
			ev->u.flush.scope = TS_SCOPE_RANGE;
			ev->u.flush.pages = (uint64_t)w;
		}
	}
	if (ev->kind == TS_EV_IPI && ev->u.ipi.func &&
	    ts_func_is_tlb_flush(ts_source_str(src, ev->u.ipi.func)))
		ev->flags |= TS_F_TLB;
	return 0;
}
