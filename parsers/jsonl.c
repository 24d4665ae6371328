// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON lines reader: the normalized stream as `tlbscope events` prints it, or as another
 * tracer (bpftrace, LTTng, a kernel module) writes it.  One object per line; unknown
 * kinds and keys are ignored; a line that is not a JSON object, or lacks ts/cpu/kind, is
 * counted as malformed and skipped.  mm names are opaque strings given by the input.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "format.h"

static bool jsonl_probe(const char *head, size_t len)
{
	size_t i = 0;
	const char *nl;

	while (i < len && (head[i] == ' ' || head[i] == '\t' || head[i] == '\n' || head[i] == '\r'))
		i++;
	if (i >= len || head[i] != '{')
		return false;
	nl = memchr(head + i, '\n', len - i);
	return memmem(head + i, (nl ? (size_t)(nl - head) : len) - i, "\"kind\"", 6) != NULL;
}

/* src->priv */
struct jsonl {
	const char **kprobes;	/* the header's "kprobes_defined" */
	char *pending;		/* the first line, read by open, when it is not the header */
	size_t pending_len;
};

static int decode(struct ts_source *src, json_t *o, struct ts_event *ev, const char **why);

/*
 * The header (its first line, as `tlbscope events` writes it) is read here, so that the
 * CPU count is known before the first event; any other first line is kept for next().
 */
static int jsonl_open(struct ts_source *src)
{
	struct jsonl *j = xcalloc(1, sizeof(*j));
	bool failed;
	size_t len;
	char *line;

	src->priv = j;
	src->info.detail = "JSON lines";
	src->info.normalized = true;
	while ((line = ts_source_getline(src, &len, &failed)) &&
	       (!len || line[strspn(line, " \t\r")] == '\0'))
		;
	if (!line)
		return failed ? -1 : 0;
	{
		json_t *o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
		const char *kind = json_string_value(json_object_get(o, "kind"));
		struct ts_event ev;
		const char *why;

		if (kind && !strcmp(kind, "header")) {
			decode(src, o, &ev, &why);
		} else {
			j->pending = xmalloc(len + 1);
			memcpy(j->pending, line, len + 1);
			j->pending_len = len;
		}
		json_decref(o);
	}
	return 0;
}

static int64_t jnum(json_t *o, const char *key, int64_t dflt)
{
	json_t *v = json_object_get(o, key);

	return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static void jcomm(json_t *o, const char *key, char *buf)
{
	const char *s = json_string_value(json_object_get(o, key));

	strlcpy_ts(buf, s ? s : "", TS_COMM_LEN);
}

static uint32_t jstr_id(struct ts_source *src, json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? ts_source_intern(src, s) : 0;
}

static int scope_of(const char *s)
{
	static const char *const names[] = { "range", "mm", "kernel", "all", "targets" };

	for (int i = 0; s && i < 5; i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

static int src_of(const char *s)
{
	for (int i = 0; s && i < TS_SRC__COUNT; i++)
		if (!strcmp(s, ts_evsrc_name(i)))
			return i;
	return TS_SRC_JSON;
}

static int how_of(const char *s)
{
	static const char *const names[] = { "none", "given", "tgid", "clone", "exec",
					     "guess-fork", "guess-pid", "pointer" };

	for (int i = 0; s && i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(s, names[i]))
			return i;
	return 1;
}

/* "0xff60000000846000" (kernel pointers do not fit JSON integers); 0 when absent. */
static uint64_t jptr(json_t *o, const char *key, bool *present)
{
	const char *s = json_string_value(json_object_get(o, key));
	uint64_t v;

	if (present)
		*present = s != NULL;
	if (!s || strncmp(s, "0x", 2) || parse_u64(s + 2, 16, &v))
		return 0;
	return v;
}

/* A CPU list [0,3] into @m (CPUs past TS_MAX_CPUS are refused); false when absent/bad. */
static bool jcpus(json_t *o, const char *key, struct ts_cpumask *m)
{
	json_t *arr = json_object_get(o, key), *t;
	size_t i;

	if (!json_is_array(arr))
		return false;
	memset(m, 0, sizeof(*m));
	json_array_foreach(arr, i, t) {
		if (!json_is_integer(t) || json_integer_value(t) < 0 ||
		    json_integer_value(t) >= TS_MAX_CPUS)
			return false;
		ts_cpumask_set(m, (int)json_integer_value(t));
	}
	return true;
}

/* The header's "kprobes_defined" names (the trace's own list, kept for the NMI-drop check). */
static void set_kprobes_defined(struct ts_source *src, json_t *arr)
{
	struct jsonl *j = src->priv;
	const char **names;
	size_t i, n = 0;
	json_t *v;

	if (!json_is_array(arr) || j->kprobes)
		return;
	names = xcalloc(json_array_size(arr) + 1, sizeof(*names));
	json_array_foreach(arr, i, v)
		if (json_is_string(v))
			names[n++] = ts_source_str(src, ts_source_intern(src, json_string_value(v)));
	j->kprobes = names;
	src->info.kprobes_defined = names;
	src->info.nkprobes_defined = n;
}

/* Fill @ev from one object; 1 = an event, 0 = a line to pass over, -1 = malformed. */
static int decode(struct ts_source *src, json_t *o, struct ts_event *ev, const char **why)
{
	const char *kind = json_string_value(json_object_get(o, "kind"));
	json_t *ts = json_object_get(o, "ts"), *cpu = json_object_get(o, "cpu"), *v;

	if (!kind)
		return *why = "no \"kind\"", -1;
	if (!strcmp(kind, "header")) {
		int64_t cpus = jnum(o, "cpus", 0);
		const char *k = json_string_value(json_object_get(o, "kernel"));

		if (cpus > TS_MAX_CPUS)
			return *why = "\"cpus\" past the 512 CPUs tlbscope handles", -1;
		if (cpus > 0)
			src->info.cpus = (int)cpus;
		if (k)
			src->info.uname = ts_source_str(src, ts_source_intern(src, k));
		set_kprobes_defined(src, json_object_get(o, "kprobes_defined"));
		return 0;
	}
	if (!json_is_integer(ts) || json_integer_value(ts) < 0)
		return *why = "no integer \"ts\"", -1;
	ev->ts = (uint64_t)json_integer_value(ts);
	if (!strcmp(kind, "mm")) {
		ev->kind = TS_EV_MM;
		ev->cpu = 0;
		ev->u.mminfo.mm = jstr_id(src, o, "mm");
		if (!ev->u.mminfo.mm)
			return *why = "mm line without \"mm\"", -1;
		ev->u.mminfo.pid = (int32_t)jnum(o, "pid", -1);
		ev->u.mminfo.how = (uint8_t)how_of(json_string_value(json_object_get(o, "how")));
		jcomm(o, "comm", ev->comm);
		return 1;
	}
	/* a lost event may be of no known CPU: -1 */
	if (!json_is_integer(cpu) || json_integer_value(cpu) >= TS_MAX_CPUS ||
	    json_integer_value(cpu) < (strcmp(kind, "lost") ? 0 : -1))
		return *why = "no \"cpu\" in 0..511", -1;
	ev->cpu = (int32_t)json_integer_value(cpu);
	ev->pid = (int32_t)jnum(o, "pid", -1);
	ev->tgid = (int32_t)jnum(o, "tgid", -1);
	if (json_object_get(o, "tgid"))
		ev->flags |= TS_F_TGID;
	jcomm(o, "comm", ev->comm);
	ev->name = jstr_id(src, o, "event");
	ev->probe = jstr_id(src, o, "probe");
	ev->flags |= TS_F_MM_GIVEN;

	if (!strcmp(kind, "switch")) {
		ev->kind = TS_EV_SWITCH;
		ev->u.sw.prev_pid = (int32_t)jnum(o, "prev_pid", -1);
		ev->u.sw.next_pid = (int32_t)jnum(o, "next_pid", -1);
		ev->u.sw.next_tgid = -1;
		ev->u.sw.prev_state = jnum(o, "prev_state", 0);
		jcomm(o, "prev_comm", ev->u.sw.prev_comm);
		jcomm(o, "next_comm", ev->u.sw.next_comm);
		if (ev->u.sw.next_pid < 0)
			return *why = "switch without \"next_pid\"", -1;
		ev->u.sw.mm = jstr_id(src, o, "mm");
		if (!ev->u.sw.mm)
			ev->flags |= TS_F_KTHREAD;
		if (!ev->u.sw.mm && json_is_true(json_object_get(o, "no_mm")))
			ev->u.sw.no_mm = 1;
	} else if (!strcmp(kind, "fork") || !strcmp(kind, "newtask")) {
		ev->kind = kind[0] == 'f' ? TS_EV_FORK : TS_EV_NEWTASK;
		ev->u.fork.parent_pid = (int32_t)jnum(o, "parent_pid", -1);
		ev->u.fork.child_pid = (int32_t)jnum(o, "child_pid", -1);
		ev->u.fork.clone_flags = (uint64_t)jnum(o, "clone_flags", 0);
		jcomm(o, "child_comm", ev->u.fork.child_comm);
	} else if (!strcmp(kind, "exec")) {
		ev->kind = TS_EV_EXEC;
		ev->u.exec.pid = (int32_t)jnum(o, "exec_pid", ev->pid);
		ev->u.exec.old_pid = (int32_t)jnum(o, "old_pid", ev->u.exec.pid);
		ev->u.exec.filename = jstr_id(src, o, "filename");
		ev->u.exec.mm = jstr_id(src, o, "mm");
	} else if (!strcmp(kind, "exit") || !strcmp(kind, "task_exit")) {
		ev->kind = TS_EV_EXIT;
		ev->u.exit.pid = (int32_t)jnum(o, "exit_pid", -1);
		ev->u.exit.mm_given = jstr_id(src, o, "mm");
	} else if (!strcmp(kind, "flush")) {
		const char *role = json_string_value(json_object_get(o, "role"));
		int scope = scope_of(json_string_value(json_object_get(o, "scope")));

		ev->kind = TS_EV_FLUSH;
		if (scope < 0)
			return *why = "flush without a known \"scope\"", -1;
		ev->u.flush.scope = (uint8_t)scope;
		ev->u.flush.mm = jstr_id(src, o, "mm");
		ev->u.flush.pages = (uint64_t)jnum(o, "pages", 0);
		ev->u.flush.start = (uint64_t)jnum(o, "start", 0);
		ev->u.flush.stride = (uint64_t)jnum(o, "stride", 0);
		ev->u.flush.src = (uint8_t)src_of(json_string_value(json_object_get(o, "source")));
		ev->u.flush.reason = (uint8_t)jnum(o, "reason", TS_NO_REASON);
		{
			bool has_ptr;

			ev->u.flush.mm_ptr = jptr(o, "mm_ptr", &has_ptr);
			if (has_ptr)
				ev->u.flush.fflags |= TS_FF_PTR;
			if (jcpus(o, "kernel_mask", &ev->u.flush.kmask))
				ev->u.flush.fflags |= TS_FF_KMASK;
		}
		ev->u.flush.role = role && !strcmp(role, "local") ? TS_FLUSH_LOCAL :
				   role && !strcmp(role, "received") ? TS_FLUSH_RECEIVED :
				   TS_FLUSH_REQUEST;
	} else if (!strcmp(kind, "ipi")) {
		ev->kind = TS_EV_IPI;
		ev->u.ipi.src = (uint8_t)src_of(json_string_value(json_object_get(o, "source")));
		ev->u.ipi.func = jstr_id(src, o, "func");
		if (json_is_true(json_object_get(o, "tlb")))
			ev->flags |= TS_F_TLB;
		if (json_is_true(json_object_get(o, "recv"))) {
			ev->flags |= TS_F_RECV;
			ev->u.ipi.from = (int32_t)jnum(o, "from", -1);
			if (json_is_true(json_object_get(o, "local")))
				ev->flags |= TS_F_LOCAL;
		} else {
			size_t i;
			json_t *t, *arr = json_object_get(o, "targets");

			if (!json_is_array(arr))
				return *why = "ipi without \"targets\"", -1;
			ev->u.ipi.from = ev->cpu;
			json_array_foreach(arr, i, t) {
				if (!json_is_integer(t) || json_integer_value(t) < 0 ||
				    json_integer_value(t) >= TS_MAX_CPUS)
					return *why = "ipi target not a CPU in 0..511", -1;
				ts_cpumask_set(&ev->u.ipi.targets, (int)json_integer_value(t));
			}
		}
	} else if (!strcmp(kind, "load_mm")) {
		struct ts_cpumask m;

		ev->kind = TS_EV_LOAD_MM;
		ev->u.load.mm = jstr_id(src, o, "mm");
		ev->u.load.prev = jptr(o, "prev_ptr", NULL);
		ev->u.load.next = jptr(o, "next_ptr", NULL);
		if (jcpus(o, "next_mask", &m)) {
			ev->u.load.next_mask = m.bits[0];
			ev->u.load.mask_known = 1;
		}
		ev->u.load.initial = json_is_true(json_object_get(o, "initial"));
		ev->u.load.commit = json_is_true(json_object_get(o, "commit"));
	} else if (!strcmp(kind, "lost")) {
		ev->kind = TS_EV_LOST;
		v = json_object_get(o, "count");
		ev->u.lost.count = json_is_integer(v) && json_integer_value(v) > 0 ?
				   (uint64_t)json_integer_value(v) : 0;
	} else {
		/* other and unknown kinds: counted by their event name, nothing more */
		ev->kind = TS_EV_OTHER;
		if (!ev->name)
			ev->name = ts_source_intern(src, kind);
	}
	return 1;
}

static int jsonl_next(struct ts_source *src, struct ts_event *ev)
{
	struct jsonl *j = src->priv;

	for (;;) {
		json_error_t jerr;
		const char *why = NULL;
		bool failed = false;
		size_t len = 0;
		char *line;
		json_t *o;
		int r;

		if (j->pending) {
			/* the first line, read by open() */
			o = json_loadb(j->pending, j->pending_len, JSON_REJECT_DUPLICATES, &jerr);
			free(j->pending);
			j->pending = NULL;
		} else {
			line = ts_source_getline(src, &len, &failed);
			if (!line)
				return failed ? -1 : 0;
			if (!len || line[strspn(line, " \t")] == '\0')
				continue;
			o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
		}
		if (!json_is_object(o)) {
			ts_source_skip(src, "line %llu: %s", (unsigned long long)src->lineno,
				       o ? "not a JSON object" : jerr.text);
			json_decref(o);
			continue;
		}
		memset(ev, 0, sizeof(*ev));
		ev->tgid = -1;
		r = decode(src, o, ev, &why);
		json_decref(o);
		if (r < 0) {
			ts_source_skip(src, "line %llu: %s", (unsigned long long)src->lineno, why);
			continue;
		}
		if (r > 0)
			return 1;
	}
}

static void jsonl_close(struct ts_source *src)
{
	struct jsonl *j = src->priv;

	if (!j)
		return;
	free(j->kprobes);
	free(j->pending);
	free(j);
}

const struct ts_format ts_format_jsonl = {
	.name = "jsonl",
	.probe = jsonl_probe,
	.open = jsonl_open,
	.next = jsonl_next,
	.close = jsonl_close,
};
