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

/* sym_id() of a reader without an id getter: the name, interned */
static __attribute__((noinline)) uint32_t sym_interned(struct ts_source *src,
						       const struct tp_fields *f, const char *field)
{
	char sym[128];

	if (f->sym(f->ctx, field, sym, sizeof(sym)) < 0 || !sym[0])
		return 0;
	return ts_source_intern(src, sym);
}

static uint32_t sym_id(struct ts_source *src, const struct tp_fields *f, const char *field)
{
	if (f->sym_id)
		return f->sym_id(f->ctx, field);
	return sym_interned(src, f, field);
}

static int check_cpu(int64_t cpu, const char *name, char *why, size_t why_len)
{
	if (cpu < 0 || cpu >= TS_MAX_CPUS) {
		snprintf(why, why_len, "%s: cpu %lld out of range", name, (long long)cpu);
		return -1;
	}
	return 0;
}

#define FLUSH_TLB_MAX_SIZE	UINT64_MAX	/* riscv: size of a whole-mm / everything flush */

static uint64_t pages_of(uint64_t bytes)
{
	return bytes / TS_PAGE_SIZE + !!(bytes % TS_PAGE_SIZE);
}

/*
 * Argument @arg of the probe @p (tlbscope-probes(7)'s name) through the field it was mapped
 * to; -1 when the event has none.
 */
static int karg(const struct ts_probe *p, const struct tp_fields *f, const char *arg, int64_t *v)
{
	const struct ts_probe_arg *a = ts_probe_arg(p, arg);

	return a && a->field ? f->num(f->ctx, a->field, v) : -1;
}

#define KNEED(call, arg)							\
	do {									\
		if ((call) < 0) {						\
			snprintf(why, why_len, "%s: no argument '%s'", name, arg);	\
			return -1;						\
		}								\
	} while (0)

/* The optional x64 "mask" argument: the first word of a kernel cpumask. */
static void kprobe_mask(const struct ts_probe *p, const struct tp_fields *f, struct ts_event *ev)
{
	int64_t v;

	if (karg(p, f, "mask", &v))
		return;
	ev->u.flush.kmask.bits[0] = (uint64_t)v;
	ev->u.flush.fflags |= TS_FF_KMASK;
}

static void kprobe_request(struct ts_event *ev, uint8_t src, uint8_t scope)
{
	ev->kind = TS_EV_FLUSH;
	ev->u.flush.src = src;
	ev->u.flush.reason = TS_NO_REASON;
	ev->u.flush.role = TS_FLUSH_REQUEST;
	ev->u.flush.scope = scope;
}

/* A range [start, end) of a caller probe: pages, or the whole mm when it is not a range. */
static void kprobe_range(struct ts_event *ev, int64_t start, int64_t end)
{
	ev->u.flush.start = (uint64_t)start;
	if ((uint64_t)end > (uint64_t)start)
		ev->u.flush.pages = pages_of((uint64_t)end - (uint64_t)start);
}

/*
 * One event of a kprobe on a function of tlbscope-probes(7), recognized by @func (the
 * probed function) whatever the event is called.  Argument names are the man page's.
 */
static int kprobe_decode(struct ts_source *src, const struct ts_probe *p, const struct tp_fields *f,
			 struct ts_event *ev, const char *name, char *why, size_t why_len)
{
	const char *func = p->func;
	int64_t mm = 0, a = 0, b = 0, c = 0;

	if (!strcmp(func, "switch_mm")) {
		ev->kind = TS_EV_LOAD_MM;
		KNEED(karg(p, f, "next", &b), "next");
		if (karg(p, f, "prev", &a) == 0)
			ev->u.load.prev = (uint64_t)a;
		ev->u.load.next = (uint64_t)b;
		if (karg(p, f, "next_mask", &c) == 0) {
			ev->u.load.next_mask = (uint64_t)c;
			ev->u.load.mask_known = 1;
		}
	} else if (!strcmp(func, "local_load_tlb_mm")) {
		/* a lazy-flush kernel's table takes the mm (tlbscope-probes(7)) */
		ev->kind = TS_EV_LOAD_MM;
		KNEED(karg(p, f, "mm", &b), "mm");
		ev->u.load.next = (uint64_t)b;
		ev->u.load.commit = 1;
	} else if (!strcmp(func, "lazy_tlb_exit_mm")) {
		/* exit_mmap's end on a lazy-flush kernel: the mm leaves every table now */
		KNEED(karg(p, f, "mm", &mm), "mm");
		ev->kind = TS_EV_EXIT;
		ev->u.exit.pid = -1;
		ev->u.exit.dropped = 1;
		ev->u.exit.mm_ptr = (uint64_t)mm;
	} else if (!strcmp(func, "__flush_tlb_range")) {
		KNEED(karg(p, f, "mm", &mm), "mm");
		KNEED(karg(p, f, "size", &b), "size");
		karg(p, f, "start", &a);
		kprobe_request(ev, TS_SRC_KPROBE, TS_SCOPE_RANGE);
		kprobe_mask(p, f, ev);
		ev->u.flush.fflags |= TS_FF_PTR;
		ev->u.flush.mm_ptr = (uint64_t)mm;
		ev->u.flush.start = (uint64_t)a;
		if (karg(p, f, "stride", &c) == 0)
			ev->u.flush.stride = (uint64_t)c;
		if ((uint64_t)b == FLUSH_TLB_MAX_SIZE) {
			/* mm NULL with everything: arch_tlbbatch_flush's batch mask */
			ev->u.flush.scope = mm ? TS_SCOPE_MM : TS_SCOPE_TARGETS;
			ev->u.flush.start = 0;
		} else {
			ev->u.flush.scope = mm ? TS_SCOPE_RANGE : TS_SCOPE_KERNEL;
			ev->u.flush.pages = pages_of((uint64_t)b);
		}
	} else if (!strcmp(func, "flush_tlb_mm") || !strcmp(func, "flush_tlb_mm_range") ||
		   !strcmp(func, "flush_tlb_page") || !strcmp(func, "flush_tlb_range")) {
		KNEED(karg(p, f, "mm", &mm), "mm");
		kprobe_request(ev, TS_SRC_KPROBE_CALLER, TS_SCOPE_RANGE);
		kprobe_mask(p, f, ev);
		ev->u.flush.fflags |= TS_FF_PTR;
		ev->u.flush.mm_ptr = (uint64_t)mm;
		if (!strcmp(func, "flush_tlb_mm")) {
			ev->u.flush.scope = TS_SCOPE_MM;
		} else if (!strcmp(func, "flush_tlb_page")) {
			KNEED(karg(p, f, "addr", &a), "addr");
			ev->u.flush.start = (uint64_t)a;
			ev->u.flush.pages = 1;
		} else {
			KNEED(karg(p, f, "start", &a), "start");
			KNEED(karg(p, f, "end", &b), "end");
			kprobe_range(ev, a, b);
		}
	} else if (!strcmp(func, "flush_tlb_kernel_range")) {
		KNEED(karg(p, f, "start", &a), "start");
		KNEED(karg(p, f, "end", &b), "end");
		kprobe_request(ev, TS_SRC_KPROBE_CALLER, TS_SCOPE_KERNEL);
		kprobe_range(ev, a, b);
	} else if (!strcmp(func, "arch_tlbbatch_flush")) {
		kprobe_request(ev, TS_SRC_KPROBE_CALLER, TS_SCOPE_TARGETS);
		kprobe_mask(p, f, ev);
	} else if (!strcmp(func, "lazy_tlb_defer")) {
		/* counted by name as before; its arguments when the probe has them all */
		if (karg(p, f, "mm", &a) == 0 && karg(p, f, "cpu", &b) == 0 &&
		    karg(p, f, "decision", &c) == 0 && b >= 0 && b < TS_MAX_CPUS &&
		    c >= 0 && c <= 255) {
			ev->u.defer.mm_ptr = (uint64_t)a;
			ev->u.defer.target = (int32_t)b;
			ev->u.defer.decision = (uint8_t)c;
			ev->u.defer.known = 1;
		}
	} else if (!strcmp(func, "flush_cache_vmap")) {
		/* a pre-Svvptc kernel flushes every new vmalloc range (tlbscope-probes(7)) */
		ev->kind = TS_EV_VMALLOC;
		if (karg(p, f, "start", &a) == 0 && karg(p, f, "end", &b) == 0 &&
		    (uint64_t)b > (uint64_t)a) {
			ev->u.vmalloc.start = (uint64_t)a;
			ev->u.vmalloc.pages = pages_of((uint64_t)b - (uint64_t)a);
		}
	} else if (!strcmp(func, "flush_tlb_all")) {
		/* not a caller of __flush_tlb_range: always a request of its own */
		kprobe_request(ev, TS_SRC_KPROBE, TS_SCOPE_ALL);
	} else if (!strcmp(func, "__ipi_flush_tlb_range_asid")) {
		KNEED(karg(p, f, "size", &b), "size");
		kprobe_request(ev, TS_SRC_KPROBE, TS_SCOPE_RANGE);
		/* performed here; timeline/ tells the sender's own call (local) from a target's */
		ev->u.flush.role = TS_FLUSH_RECEIVED;
		if (karg(p, f, "start", &a) == 0)
			ev->u.flush.start = (uint64_t)a;
		if (karg(p, f, "stride", &c) == 0)
			ev->u.flush.stride = (uint64_t)c;
		if ((uint64_t)b == FLUSH_TLB_MAX_SIZE) {
			ev->u.flush.scope = TS_SCOPE_MM;
			ev->u.flush.start = 0;
		} else {
			ev->u.flush.pages = pages_of((uint64_t)b);
		}
	} else if (!strcmp(func, "sbi_remote_sfence_vma_asid")) {
		KNEED(karg(p, f, "mask", &a), "mask");
		ev->kind = TS_EV_IPI;
		ev->u.ipi.src = TS_SRC_SBI;
		ev->u.ipi.from = ev->cpu;
		ev->u.ipi.func = ts_source_intern(src, "sbi_remote_sfence_vma_asid");
		ev->flags |= TS_F_TLB;
		if (a) {
			ev->u.ipi.targets.bits[0] = (uint64_t)a;
		} else {
			/* a NULL mask (flush_tlb_all) means every online hart */
			int n = src->info.cpus > 0 ? src->info.cpus : 64;

			for (int i = 0; i < n && i < TS_MAX_CPUS; i++)
				ts_cpumask_set(&ev->u.ipi.targets, i);
		}
	}
	return 0;
}

/*
 * What an event name decodes as, decided at its first record and kept per name (string id)
 * in src->tpk: the name alone, or a kprobe's __probe_ip, tells it.
 */
enum tp_kind {
	TPK_UNSEEN, TPK_OTHER, TPK_KPROBE, TPK_SWITCH, TPK_FORK, TPK_NEWTASK, TPK_EXEC,
	TPK_EXIT, TPK_IPI_CPU, TPK_CSD_QUEUE, TPK_IPI_MASK, TPK_CSD_ENTRY, TPK_TLB_FLUSH,
	TPK_PRINT, TPK_SFENCE,	/* + the cause */
};

/* the tracepoints decoded by name (a kprobe is known by its __probe_ip field) */
static const struct { const char *name; uint8_t kind; } tps[] = {
	{ "sched_switch", TPK_SWITCH }, { "sched_process_fork", TPK_FORK },
	{ "task_newtask", TPK_NEWTASK }, { "sched_process_exec", TPK_EXEC },
	{ "sched_process_exit", TPK_EXIT }, { "ipi_send_cpu", TPK_IPI_CPU },
	{ "csd_queue_cpu", TPK_CSD_QUEUE }, { "ipi_send_cpumask", TPK_IPI_MASK },
	{ "csd_function_entry", TPK_CSD_ENTRY }, { "tlb_flush", TPK_TLB_FLUSH },
	{ "print", TPK_PRINT }, { "tracing_mark_write", TPK_PRINT },
};

bool tp_known(const char *name)
{
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (!strcmp(name, tps[i].name))
			return true;
	return false;
}

/* The field a cross-call of kind @kind names its function in, NULL for other kinds. */
static const char *call_field(uint8_t kind)
{
	switch (kind) {
	case TPK_CSD_QUEUE:
	case TPK_CSD_ENTRY:
		return "func";
	case TPK_IPI_CPU:
	case TPK_IPI_MASK:
		return "callback";
	default:
		return NULL;
	}
}

const char *tp_call_field(const char *name)
{
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
		if (!strcmp(name, tps[i].name))
			return call_field(tps[i].kind);
	return NULL;
}

/* once per event name: apart, so that the decoder's frame stays small */
static __attribute__((noinline)) uint8_t classify(const char *name, const struct tp_fields *f)
{
	int64_t v;
	char sym[128];
	int cause;

	if (need_num(f, "__probe_ip", &v) < 0) {
		for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++)
			if (!strcmp(name, tps[i].name))
				return tps[i].kind;
		return TPK_OTHER;
	}
	/*
	 * a kprobe: an sfence site probe by its name, unless its symbol is an SBI call (a
	 * probe of tlbscope-probes(7) under a name of its own)
	 */
	cause = ts_sfence_cause_of(name);
	if (cause >= 0 && f->sym && f->sym(f->ctx, "__probe_ip", sym, sizeof(sym)) == 0 &&
	    !strncmp(sym, "sbi_", 4))
		cause = -1;
	return cause >= 0 ? (uint8_t)(TPK_SFENCE + cause) : TPK_KPROBE;
}

static uint8_t kind_of(struct ts_source *src, uint32_t id, const char *name,
		       const struct tp_fields *f)
{
	uint8_t *k = id_byte(&src->tpk, &src->ntpk, id);

	if (*k == TPK_UNSEEN)
		*k = classify(name, f);
	return *k;
}

/* Is the cross-call function of string id @func a TLB flush?  Kept per id in src->tlbfn. */
static bool tlb_func(struct ts_source *src, uint32_t func)
{
	uint8_t *t = id_byte(&src->tlbfn, &src->ntlbfn, func);

	if (!*t)
		*t = ts_func_is_tlb_flush(ts_source_str(src, func)) ? 2 : 1;
	return *t == 2;
}

/*
 * Where a trace's marker text is: a print event's "buf" names the writer ("%ps: "), so
 * trace-cmd report and perf show "tracing_mark_write: TEXT"; tracefs prints TEXT alone.
 * Returns TEXT when it starts with @prefix, else NULL.
 */
static const char *marker_text(const char *buf, const char *prefix)
{
	size_t n = strlen(prefix);
	const char *colon;

	if (!strncmp(buf, prefix, n))
		return buf;
	colon = strstr(buf, ": ");
	if (!colon || memchr(buf, ' ', (size_t)(colon - buf)))
		return NULL;
	return strncmp(colon + 2, prefix, n) ? NULL : colon + 2;
}

/*
 * A one-line marker of `tlbscope record` (tlbscope-record(1)), such as its kernel command
 * line, "tlbscope-cmdline: console=ttyS0 lazytlb.max_loaded_mm=12 ...": the text after
 * @marker, interned, NULL when @buf is not that marker; the event is left an "other" one.
 */
static const char *line_marker(struct ts_source *src, const char *buf, const char *marker)
{
	const char *p = marker_text(buf, marker);
	char line[1024];
	size_t n;

	if (!p)
		return NULL;
	p += strlen(marker);
	p += strspn(p, " \t");
	n = strcspn(p, "\n");
	while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	snprintf(line, sizeof(line), "%.*s", (int)n, p);
	return ts_source_str(src, ts_source_intern(src, line));
}

/* Its "tlbscope-cmdline:" and "tlbscope-machine:" lines: the source's info (the last read). */
static void info_markers(struct ts_source *src, const char *buf)
{
	const char *v;

	if ((v = line_marker(src, buf, TS_CMDLINE_MARKER)))
		src->info.cmdline = v;
	else if ((v = line_marker(src, buf, TS_MACHINE_MARKER)))
		src->info.machine = v;
}

/*
 * A line of `tlbscope record`'s task table (tlbscope-record(1)):
 * "tlbscope-tgid: pid=123 tgid=100 comm=bash", kernel threads with "kthread=1" (then
 * tgid = pid).  Keys in any order, unknown ones passed over, comm last (it may hold
 * blanks).  Text that is not a marker is left alone (an "other" event); a marker that
 * cannot be read is counted as malformed and skipped, never fatal.
 */
static void tgid_marker(struct ts_source *src, const char *buf, struct ts_event *ev)
{
	const char *p = marker_text(buf, TS_TGID_MARKER), *why = NULL;
	int pid = -1, tgid = -1, kthread = 0;
	char comm[TS_COMM_LEN] = "";

	if (!p)
		return;
	p += strlen(TS_TGID_MARKER);
	for (;;) {
		const char *k, *eq, *e;
		char val[24];
		int v;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		if (!strncmp(p, "comm=", 5)) {
			size_t n = strcspn(p + 5, "\n");

			while (n && (p[5 + n - 1] == ' ' || p[5 + n - 1] == '\t'))
				n--;
			if (n >= sizeof(comm))
				n = sizeof(comm) - 1;
			memcpy(comm, p + 5, n);
			comm[n] = '\0';
			break;
		}
		k = p;
		e = p + strcspn(p, " \t\n");
		p = e;
		eq = memchr(k, '=', (size_t)(e - k));
		if (!eq) {
			why = "a word without '='";
			break;
		}
		if ((size_t)(e - eq - 1) >= sizeof(val)) {
			why = "a value too long";
			break;
		}
		memcpy(val, eq + 1, (size_t)(e - eq - 1));
		val[e - eq - 1] = '\0';
		if (eq - k == 3 && !memcmp(k, "pid", 3))
			why = parse_int(val, &v) ? "pid not a number" : (pid = v, NULL);
		else if (eq - k == 4 && !memcmp(k, "tgid", 4))
			why = parse_int(val, &v) ? "tgid not a number" : (tgid = v, NULL);
		else if (eq - k == 7 && !memcmp(k, "kthread", 7))
			why = parse_int(val, &v) || (v != 0 && v != 1) ? "kthread not 0 or 1" :
									  (kthread = v, NULL);
		if (why)
			break;
	}
	if (!why && (pid <= 0 || tgid <= 0))
		why = "no pid and tgid above 0";
	if (!why && kthread && tgid != pid)
		why = "a kernel thread whose tgid is not its pid";
	if (why) {
		src->info.tgid_malformed++;
		if (src->lineno)
			ts_source_skip(src, "%s %llu: malformed task-table marker: %s",
				       ts_source_line(src), (unsigned long long)src->lineno, why);
		else
			ts_source_skip(src, "cpu %d, at %llu ns: malformed task-table marker: %s",
				       ev->cpu, (unsigned long long)ev->ts, why);
		return;
	}
	ev->kind = TS_EV_TGID;
	ev->u.task.pid = pid;
	ev->u.task.tgid = tgid;
	ev->u.task.kthread = (uint8_t)kthread;
	strlcpy_ts(ev->u.task.comm, comm, sizeof(ev->u.task.comm));
}

/*
 * The rare events' buffers in functions of their own: the decoder's frame, which every
 * event's call sets up, stays a few hundred bytes (it was 1.2 KiB with them).
 */
static __attribute__((noinline)) uint32_t filename_id(struct ts_source *src,
						      const struct tp_fields *f)
{
	char file[256];

	opt_str(f, "filename", file, sizeof(file));
	return ts_source_intern(src, file);
}

/* ftrace:print, a trace_marker write; tracefs names it by its writer */
static __attribute__((noinline)) void print_markers(struct ts_source *src,
						    const struct tp_fields *f, struct ts_event *ev)
{
	char buf[1024];

	if (f->str(f->ctx, "buf", buf, sizeof(buf)) == 0) {
		tgid_marker(src, buf, ev);
		info_markers(src, buf);
	}
}

int tp_decode(struct ts_source *src, const char *name, const struct tp_fields *f,
	      struct ts_event *ev, char *why, size_t why_len)
{
	int64_t v, w;
	uint8_t kind;

	ev->name = f->name_id ? f->name_id : ts_source_intern(src, name);
	ev->kind = TS_EV_OTHER;
	kind = kind_of(src, ev->name, name, f);

	if (kind >= TPK_SFENCE) {
		/*
		 * a site probe: one executed sfence.vma; its symbol is the function the site
		 * sits in, never a probed function of tlbscope-probes(7)
		 */
		ev->kind = TS_EV_SFENCE;
		ev->u.sfence.cause = (uint8_t)(kind - TPK_SFENCE);
		ev->u.sfence.count = 1;
		if (f->sym)
			ev->u.sfence.site = sym_id(src, f, "__probe_ip");
		return 0;
	}
	if (kind == TPK_KPROBE) {
		/*
		 * a kprobe: the probed function names it (probes.c), whatever the event and
		 * its arguments are called; one that lacks an argument it needs is counted by
		 * name, and the source's probe list says what it lacks
		 */
		struct ts_probe *p = ts_probe_resolve(src, name, ev->name, f);

		p->events++;
		if (!p->func)
			return 0;
		ev->probe = p->func_id;
		if (p->usable && !kprobe_decode(src, p, f, ev, name, why, why_len))
			return 0;
		p->unusable_events++;
		ev->kind = TS_EV_OTHER;
		ev->flags &= (uint8_t)~TS_F_TLB;
		memset(&ev->u, 0, sizeof(ev->u));
		why[0] = '\0';
		return 0;
	}
	switch (kind) {
	case TPK_SWITCH: {
		/* the most frequent event: its fields at once where the reader can (many()) */
		static const char *const names[] = { "prev_pid", "next_pid", "prev_state",
						       "prev_comm", "next_comm" };
		char *comms[] = { ev->u.sw.prev_comm, ev->u.sw.next_comm };
		int64_t n[3];

		ev->kind = TS_EV_SWITCH;
		if (!f->many || !f->many(f->ctx, names, 3, n, 2, comms, TS_COMM_LEN)) {
			NEED(need_num(f, "prev_pid", &n[0]), "prev_pid");
			NEED(need_num(f, "next_pid", &n[1]), "next_pid");
			n[2] = need_num(f, "prev_state", &v) == 0 ? v : ev->u.sw.prev_state;
			opt_str(f, "prev_comm", ev->u.sw.prev_comm, TS_COMM_LEN);
			opt_str(f, "next_comm", ev->u.sw.next_comm, TS_COMM_LEN);
		}
		ev->u.sw.prev_pid = ts_pid(n[0]);
		ev->u.sw.next_pid = ts_pid(n[1]);
		ev->u.sw.prev_state = n[2];
		ev->u.sw.next_tgid = -1;
		break;
	}
	case TPK_FORK:
		ev->kind = TS_EV_FORK;
		NEED(need_num(f, "parent_pid", &v), "parent_pid");
		NEED(need_num(f, "child_pid", &w), "child_pid");
		ev->u.fork.parent_pid = ts_pid(v);
		ev->u.fork.child_pid = ts_pid(w);
		opt_str(f, "child_comm", ev->u.fork.child_comm, TS_COMM_LEN);
		break;
	case TPK_NEWTASK:
		ev->kind = TS_EV_NEWTASK;
		NEED(need_num(f, "pid", &v), "pid");
		NEED(need_num(f, "clone_flags", &w), "clone_flags");
		ev->u.fork.parent_pid = ev->pid;
		ev->u.fork.child_pid = ts_pid(v);
		ev->u.fork.clone_flags = (uint64_t)w;
		opt_str(f, "comm", ev->u.fork.child_comm, TS_COMM_LEN);
		break;
	case TPK_EXEC:
		ev->kind = TS_EV_EXEC;
		NEED(need_num(f, "pid", &v), "pid");
		ev->u.exec.pid = ts_pid(v);
		ev->u.exec.old_pid = ts_pid(need_num(f, "old_pid", &w) ? v : w);
		ev->u.exec.filename = filename_id(src, f);
		break;
	case TPK_EXIT:
		ev->kind = TS_EV_EXIT;
		NEED(need_num(f, "pid", &v), "pid");
		ev->u.exit.pid = ts_pid(v);
		if (need_num(f, "group_dead", &w) == 0) {
			ev->flags |= TS_F_GROUP_KNOWN;
			if (w)
				ev->flags |= TS_F_GROUP_DEAD;
		}
		break;
	case TPK_IPI_CPU:
	case TPK_CSD_QUEUE: {
		bool csd = kind == TPK_CSD_QUEUE;

		ev->kind = TS_EV_IPI;
		NEED(need_num(f, "cpu", &v), "cpu");
		if (check_cpu(v, name, why, why_len))
			return -1;
		ts_cpumask_set(&ev->u.ipi.targets, (int)v);
		ev->u.ipi.src = csd ? TS_SRC_CSD_QUEUE : TS_SRC_IPI_CPU;
		ev->u.ipi.func = sym_id(src, f, call_field(kind));
		ev->u.ipi.from = ev->cpu;
		break;
	}
	case TPK_IPI_MASK:
		ev->kind = TS_EV_IPI;
		NEED(f->mask(f->ctx, "cpumask", &ev->u.ipi.targets), "cpumask");
		ev->u.ipi.src = TS_SRC_IPI_MASK;
		ev->u.ipi.func = sym_id(src, f, call_field(kind));
		ev->u.ipi.from = ev->cpu;
		break;
	case TPK_CSD_ENTRY:
		ev->kind = TS_EV_IPI;
		ev->flags |= TS_F_RECV;
		ev->u.ipi.src = TS_SRC_CSD_ENTRY;
		ev->u.ipi.func = sym_id(src, f, call_field(kind));
		ev->u.ipi.from = -1;
		/* the caller's own invocation of a cross-call runs with csd == NULL */
		if (need_num(f, "csd", &v) == 0 && v == 0)
			ev->flags |= TS_F_LOCAL;
		break;
	case TPK_PRINT:
		print_markers(src, f, ev);
		break;
	case TPK_TLB_FLUSH: {
		static const char *const names[] = { "reason", "pages" };
		int64_t n[2];

		ev->kind = TS_EV_FLUSH;
		if (!f->many || !f->many(f->ctx, names, 2, n, 0, NULL, 0)) {
			NEED(need_num(f, "reason", &n[0]), "reason");
			NEED(need_num(f, "pages", &n[1]), "pages");
		}
		ev->u.flush.src = TS_SRC_TLB_FLUSH;
		ev->u.flush.reason = (uint8_t)n[0];
		/* pages is TLB_FLUSH_ALL (-1) for a whole-mm flush */
		if (n[1] < 0) {
			ev->u.flush.scope = TS_SCOPE_MM;
		} else {
			ev->u.flush.scope = TS_SCOPE_RANGE;
			ev->u.flush.pages = (uint64_t)n[1];
		}
		break;
	}
	default:
		break;
	}
	if (ev->kind == TS_EV_IPI && ev->u.ipi.func && tlb_func(src, ev->u.ipi.func))
		ev->flags |= TS_F_TLB;
	return 0;
}
