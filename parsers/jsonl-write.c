// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON-lines writer: one normalized event (as the timeline resolved it) per line, its
 * keys in the order jsonl-keys.c gives for its kind, compact, as jansson would print the
 * same object (JSON_COMPACT | JSON_PRESERVE_ORDER).  Plain strings are copied; any that
 * needs an escape is printed by jansson itself, so the bytes are jansson's either way.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "format.h"
#include "jsonl-keys.h"

struct ts_jsonl_writer {
	FILE *out;				/* borrowed */
	const struct ts_source *src;		/* borrowed: string ids */
	const struct jsonl_key_text *keys;
	char *buf;				/* the line being written */
	size_t len, alloc;
};

struct ts_jsonl_writer *ts_jsonl_writer_new(FILE *out, const struct ts_source *src)
{
	struct ts_jsonl_writer *w = xcalloc(1, sizeof(*w));

	w->out = out;
	w->src = src;
	w->keys = jsonl_key_texts();
	return w;
}

void ts_jsonl_writer_free(struct ts_jsonl_writer *w)
{
	if (!w)
		return;
	free(w->buf);
	free(w);
}

/* Room for @n more bytes and the 24 a key's words take. */
static char *room(struct ts_jsonl_writer *w, size_t n)
{
	ALLOC_GROW(w->buf, w->len + n + 32, w->alloc);
	return w->buf + w->len;
}

static void put(struct ts_jsonl_writer *w, const char *s, size_t n)
{
	memcpy(room(w, n), s, n);
	w->len += n;
}

static void put_c(struct ts_jsonl_writer *w, char c)
{
	*room(w, 1) = c;
	w->len++;
}

/* "key": after a ',' unless it is the object's first member */
static void key(struct ts_jsonl_writer *w, enum jkey k)
{
	const struct jsonl_key_text *t = &w->keys[k];
	char *p = room(w, 1 + sizeof(t->w));

	if (w->len && p[-1] != '{') {
		*p++ = ',';
		w->len++;
	}
	memcpy(p, t->w, sizeof(t->w));
	w->len += t->len;
}

static void put_int(struct ts_jsonl_writer *w, int64_t v)
{
	char tmp[24], *e = tmp + sizeof(tmp), *p = e;
	uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;

	do
		*--p = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		*--p = '-';
	put(w, p, (size_t)(e - p));
}

static void put_null(struct ts_jsonl_writer *w)
{
	put(w, "null", 4);
}

/* A value that 0 means the reader did not have (a count, an address): null, else it. */
static void put_or_null(struct ts_jsonl_writer *w, uint64_t v)
{
	if (v)
		put_int(w, (int64_t)v);
	else
		put_null(w);
}

static void put_bool(struct ts_jsonl_writer *w, bool b)
{
	if (b)
		put(w, "true", 4);
	else
		put(w, "false", 5);
}

/* A string as jansson prints it (a string not in UTF-8 first escaped \xNN, as json_text()). */
static void put_jansson(struct ts_jsonl_writer *w, const char *s)
{
	json_t *j = json_string(s);
	char *d;

	if (!j) {
		size_t need = utf8_escape(s, NULL, 0);
		char *e = xmalloc(need + 1);

		utf8_escape(s, e, need + 1);
		j = json_string(e);
		free(e);
	}
	d = json_dumps(j, JSON_ENCODE_ANY | JSON_COMPACT);
	if (d)
		put(w, d, strlen(d));
	free(d);
	json_decref(j);
}

static void put_str(struct ts_jsonl_writer *w, const char *s)
{
	bool ascii = true;
	size_t n;

	for (n = 0; s[n]; n++) {
		unsigned char c = (unsigned char)s[n];

		if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
			return put_jansson(w, s);
		ascii &= c < 0x80;
	}
	if (!ascii && !utf8_valid(s))
		return put_jansson(w, s);
	put_c(w, '"');
	put(w, s, n);
	put_c(w, '"');
}

static void put_id(struct ts_jsonl_writer *w, uint32_t id)
{
	put_str(w, ts_source_str(w->src, id));
}

/* Kernel pointers exceed JSON's signed 64-bit integers: "0xff60000000846000". */
static void put_ptr(struct ts_jsonl_writer *w, uint64_t p)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "\"0x%llx\"", (unsigned long long)p);
	put(w, buf, strlen(buf));
}

static void put_cpus(struct ts_jsonl_writer *w, const struct ts_cpumask *m)
{
	int cpu;

	put_c(w, '[');
	ts_cpumask_for_each(cpu, m) {
		if (w->buf[w->len - 1] != '[')
			put_c(w, ',');
		put_int(w, cpu);
	}
	put_c(w, ']');
}

static void line_end(struct ts_jsonl_writer *w)
{
	put(w, "}\n", 2);
	fwrite(w->buf, 1, w->len, w->out);
	w->len = 0;
}

void ts_jsonl_write_header(struct ts_jsonl_writer *w)
{
	const struct ts_source_info *info = ts_source_info(w->src);

	put_c(w, '{');
	key(w, K_KIND);
	put_str(w, jsonl_kinds[JK_HEADER].name);
	key(w, K_VERSION);
	put_int(w, JSONL_VERSION);
	key(w, K_CPUS);
	put_int(w, info->cpus);
	if (info->format) {
		key(w, K_FORMAT);
		put_str(w, info->format);
	}
	if (info->uname) {
		key(w, K_KERNEL);
		put_str(w, info->uname);
	}
	if (info->cmdline) {	/* a lazy kernel's lazytlb.* settings are tune's base */
		key(w, K_CMDLINE);
		put_str(w, info->cmdline);
	}
	if (info->machine) {	/* record's view of the machine: a VM's timings price nothing */
		key(w, K_MACHINE);
		put_str(w, info->machine);
	}
	if (info->nkprobes_defined) {
		key(w, K_KPROBES_DEFINED);
		put_c(w, '[');
		for (size_t i = 0; i < info->nkprobes_defined; i++) {
			if (i)
				put_c(w, ',');
			put_str(w, info->kprobes_defined[i]);
		}
		put_c(w, ']');
	}
	line_end(w);
}

void ts_jsonl_write_mm(struct ts_jsonl_writer *w, uint64_t ts, const char *name, int32_t pid,
		       const char *comm, uint8_t how)
{
	put_c(w, '{');
	key(w, K_TS);
	put_int(w, (int64_t)ts);
	key(w, K_KIND);
	put_str(w, jsonl_kinds[JK_MM].name);
	key(w, K_MM);
	put_str(w, name);
	key(w, K_PID);
	put_int(w, pid);
	key(w, K_COMM);
	put_str(w, comm);
	key(w, K_HOW);
	put_str(w, how < JSONL_N_HOWS ? jsonl_how_names[how] : "?");
	line_end(w);
}

/* The kind of @ev's line: an exit that ended no mm is a task's ("task_exit"). */
static enum jkind kind_of(const struct ts_event *ev)
{
	static const uint8_t kinds[TS_EV__COUNT] = {
		[TS_EV_SWITCH] = JK_SWITCH, [TS_EV_FORK] = JK_FORK, [TS_EV_NEWTASK] = JK_NEWTASK,
		[TS_EV_EXEC] = JK_EXEC, [TS_EV_EXIT] = JK_EXIT, [TS_EV_FLUSH] = JK_FLUSH,
		[TS_EV_IPI] = JK_IPI, [TS_EV_LOAD_MM] = JK_LOAD_MM, [TS_EV_EVICT] = JK_EVICT,
		[TS_EV_FAULT] = JK_FAULT, [TS_EV_VMALLOC] = JK_VMALLOC, [TS_EV_SFENCE] = JK_SFENCE,
		[TS_EV_LOST] = JK_LOST, [TS_EV_OTHER] = JK_OTHER, [TS_EV_MM] = JK_MM,
		[TS_EV_TGID] = JK_TGID,
	};

	if (ev->kind == TS_EV_EXIT && !ev->u.exit.mm && ev->u.exit.pid >= 0)
		return JK_TASK_EXIT;
	return kinds[ev->kind < TS_EV__COUNT ? ev->kind : TS_EV_OTHER];
}

static void put_mm(struct ts_jsonl_writer *w, const char *mm)
{
	key(w, K_MM);
	if (mm)
		put_str(w, mm);
	else
		put_null(w);
}

static void flush_members(struct ts_jsonl_writer *w, const struct ts_event *ev, const char *mm)
{
	key(w, K_ROLE);
	put_str(w, jsonl_role_names[ev->u.flush.role < JSONL_N_ROLES ? ev->u.flush.role : 0]);
	put_mm(w, mm);
	if (ev->u.flush.fflags & TS_FF_MM_TASK) {
		key(w, K_MM_FROM);
		put_str(w, "task");
	}
	key(w, K_SCOPE);
	put_str(w, ts_scope_name(ev->u.flush.scope));
	if (ev->u.flush.scope == TS_SCOPE_RANGE || ev->u.flush.scope == TS_SCOPE_KERNEL) {
		key(w, K_PAGES);
		put_or_null(w, ev->u.flush.pages);
	}
	if (ev->u.flush.start) {
		key(w, K_START);
		put_int(w, (int64_t)ev->u.flush.start);
	}
	if (ev->u.flush.stride) {
		key(w, K_STRIDE);
		put_int(w, (int64_t)ev->u.flush.stride);
	}
	key(w, K_SOURCE);
	put_str(w, ts_evsrc_name(ev->u.flush.src));
	if (ev->u.flush.reason != TS_NO_REASON) {
		key(w, K_REASON);
		put_int(w, ev->u.flush.reason);
	}
	if (ev->u.flush.fflags & TS_FF_PTR) {
		key(w, K_MM_PTR);
		put_ptr(w, ev->u.flush.mm_ptr);
	}
	if (ev->u.flush.fflags & TS_FF_KMASK) {
		key(w, K_KERNEL_MASK);
		put_cpus(w, &ev->u.flush.kmask);
	}
}

static void ipi_members(struct ts_jsonl_writer *w, const struct ts_event *ev)
{
	if (ev->flags & TS_F_RECV) {
		key(w, K_RECV);
		put_bool(w, true);
		key(w, K_FROM);
		if (ev->u.ipi.from >= 0)
			put_int(w, ev->u.ipi.from);
		else
			put_null(w);
		if (ev->flags & TS_F_LOCAL) {
			key(w, K_LOCAL);
			put_bool(w, true);
		}
	} else {
		key(w, K_TARGETS);
		put_cpus(w, &ev->u.ipi.targets);
	}
	key(w, K_TLB);
	put_bool(w, ev->flags & TS_F_TLB);
	if (ev->u.ipi.func) {
		key(w, K_FUNC);
		put_id(w, ev->u.ipi.func);
	}
	key(w, K_SOURCE);
	put_str(w, ts_evsrc_name(ev->u.ipi.src));
}

static void load_members(struct ts_jsonl_writer *w, const struct ts_event *ev, const char *mm)
{
	struct ts_cpumask m = { .bits = { ev->u.load.next_mask } };

	put_mm(w, mm);
	key(w, K_PREV_PTR);
	put_ptr(w, ev->u.load.prev);
	key(w, K_NEXT_PTR);
	put_ptr(w, ev->u.load.next);
	/* not [] where the trace does not say: the probe had no such argument */
	key(w, K_NEXT_MASK);
	if (ev->u.load.mask_known)
		put_cpus(w, &m);
	else
		put_null(w);
	if (ev->u.load.initial) {
		key(w, K_INITIAL);
		put_bool(w, true);
	}
	if (ev->u.load.commit) {
		key(w, K_COMMIT);
		put_bool(w, true);
	}
}

/* The members after the common ones, in jsonl_kinds[]'s order for the kind. */
static void kind_members(struct ts_jsonl_writer *w, const struct ts_event *ev, const char *mm)
{
	switch (ev->kind) {
	case TS_EV_SWITCH:
		key(w, K_PREV_PID);
		put_int(w, ev->u.sw.prev_pid);
		key(w, K_PREV_COMM);
		put_str(w, ev->u.sw.prev_comm);
		key(w, K_PREV_STATE);
		put_int(w, ev->u.sw.prev_state);
		key(w, K_NEXT_PID);
		put_int(w, ev->u.sw.next_pid);
		key(w, K_NEXT_COMM);
		put_str(w, ev->u.sw.next_comm);
		put_mm(w, mm);
		if (ev->u.sw.no_mm) {
			key(w, K_NO_MM);
			put_bool(w, true);
		}
		break;
	case TS_EV_FORK:
	case TS_EV_NEWTASK:
		key(w, K_PARENT_PID);
		put_int(w, ev->u.fork.parent_pid);
		key(w, K_CHILD_PID);
		put_int(w, ev->u.fork.child_pid);
		key(w, K_CHILD_COMM);
		put_str(w, ev->u.fork.child_comm);
		if (ev->kind == TS_EV_NEWTASK) {
			key(w, K_CLONE_FLAGS);
			put_int(w, (int64_t)ev->u.fork.clone_flags);
		}
		break;
	case TS_EV_EXEC:
		key(w, K_EXEC_PID);
		put_int(w, ev->u.exec.pid);
		key(w, K_OLD_PID);
		put_int(w, ev->u.exec.old_pid);
		key(w, K_FILENAME);
		put_id(w, ev->u.exec.filename);
		put_mm(w, mm);
		break;
	case TS_EV_EXIT:
		if (ev->u.exit.pid >= 0) {
			key(w, K_EXIT_PID);
			put_int(w, ev->u.exit.pid);
		}
		put_mm(w, mm);
		if (ev->u.exit.dropped) {
			key(w, K_MM_PTR);
			put_ptr(w, ev->u.exit.mm_ptr);
		}
		break;
	case TS_EV_FLUSH:
		flush_members(w, ev, mm);
		break;
	case TS_EV_LOAD_MM:
		load_members(w, ev, mm);
		break;
	case TS_EV_IPI:
		ipi_members(w, ev);
		break;
	case TS_EV_OTHER:
		/* the union holds a defer only for that probe (others keep what they had) */
		if (ev->probe && ev->u.defer.known &&
		    !strcmp(ts_source_str(w->src, ev->probe), "lazy_tlb_defer")) {
			key(w, K_MM_PTR);
			put_ptr(w, ev->u.defer.mm_ptr);
			key(w, K_TARGET);
			put_int(w, ev->u.defer.target);
			key(w, K_DECISION);
			put_int(w, ev->u.defer.decision);
		}
		break;
	case TS_EV_SFENCE:
		key(w, K_CAUSE);
		put_str(w, ts_sfence_cause_name(ev->u.sfence.cause));
		key(w, K_COUNT);
		put_int(w, ev->u.sfence.count);
		if (ev->u.sfence.site) {
			key(w, K_SITE);
			put_id(w, ev->u.sfence.site);
		}
		break;
	case TS_EV_VMALLOC:
		key(w, K_START);
		put_or_null(w, ev->u.vmalloc.start);
		key(w, K_PAGES);
		put_or_null(w, ev->u.vmalloc.pages);
		break;
	case TS_EV_TGID:
		key(w, K_TASK_PID);
		put_int(w, ev->u.task.pid);
		key(w, K_TASK_TGID);
		put_int(w, ev->u.task.tgid);
		key(w, K_KTHREAD);
		put_bool(w, ev->u.task.kthread);
		key(w, K_TASK_COMM);
		put_str(w, ev->u.task.comm);
		break;
	case TS_EV_LOST:
		key(w, K_COUNT);
		put_or_null(w, ev->u.lost.count);
		break;
	default:
		break;
	}
}

void ts_jsonl_write_event(struct ts_jsonl_writer *w, const struct ts_event *ev, const char *mm)
{
	put_c(w, '{');
	key(w, K_TS);
	put_int(w, (int64_t)ev->ts);
	key(w, K_CPU);
	put_int(w, ev->cpu);
	key(w, K_KIND);
	put_str(w, jsonl_kinds[kind_of(ev)].name);
	if (ev->name) {
		key(w, K_EVENT);
		put_id(w, ev->name);
	}
	if (ev->probe) {
		key(w, K_PROBE);
		put_id(w, ev->probe);
	}
	if (ev->pid >= 0) {
		key(w, K_PID);
		put_int(w, ev->pid);
		key(w, K_COMM);
		put_str(w, ev->comm);
	}
	if (ev->flags & TS_F_TGID) {
		key(w, K_TGID);
		put_int(w, ev->tgid);
	}
	kind_members(w, ev, mm);
	line_end(w);
}
