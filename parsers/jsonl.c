// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON lines reader: the normalized stream as `tlbscope events` prints it, or as another
 * tracer (bpftrace, LTTng, a kernel module) writes it.  One object per line; unknown
 * kinds and keys are ignored; a line that is not a JSON object, or lacks ts/cpu/kind, is
 * counted as malformed and skipped.  mm names are opaque strings given by the input.
 *
 * Speed: a line's members are found by the first of three readers that takes it whole
 * (jsonl-view.c): one for exactly what tlbscope writes (the keys in the order of
 * jsonl-keys.c; it parses in the read buffer and finds the line's end itself, and a line
 * it does not take is then split off and offered to all three), one for any flat object
 * of integers, plain strings, true/false/null and arrays of integers, and jansson for the
 * rest (escapes, UTF-8, reals, nesting, duplicate keys, anything malformed), so
 * third-party writers are read exactly as before.  All fill the same view of the line
 * that decode() reads.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "format.h"
#include "jsonl-view.h"

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



/*
 * The integers of array @v, each through @fn; false when one is not an integer or @fn
 * refuses it.
 */
static bool jints(const struct jv *v, bool (*fn)(void *ctx, int64_t t), void *ctx)
{
	if (v->jarr) {
		size_t i;
		json_t *t;

		json_array_foreach(v->jarr, i, t)
			if (!json_is_integer(t) || !fn(ctx, json_integer_value(t)))
				return false;
		return true;
	}
	for (const char *p = v->arr; ; ) {
		int64_t t;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == ']')
			return true;
		p = jsonl_scan_int(p, p + 32, &t);	/* checked by the scanner already */
		if (!p || !fn(ctx, t))
			return false;
	}
}

static bool cpu_into(void *ctx, int64_t t)
{
	if (t < 0 || t >= TS_MAX_CPUS)
		return false;
	ts_cpumask_set(ctx, (int)t);
	return true;
}

#define ICACHE_SLOTS	256

/* src->priv */
struct jsonl {
	/*
	 * The string ids of recent names (events, mms, functions), by a hash of their text:
	 * the same few recur on every line.  ASCII only, whose interning has no other effect
	 * (a name not in UTF-8 is counted each time it is met).
	 */
	struct icache_slot {
		uint32_t id;		/* 0: empty */
		uint32_t len;
		uint64_t head, tail;	/* the first and last 8 bytes (zero-padded under 8) */
		char s[32];
	} icache[ICACHE_SLOTS];
	const char **kprobes;	/* the header's "kprobes_defined" */
	char *pending;		/* the first line, read by open, when it is not the header */
	size_t pending_len;
	char *held;		/* that line while its event is being decoded */
	struct jline line;	/* the members of the line being decoded */
};

static int decode(struct ts_source *src, const struct jline *o, struct ts_event *ev,
		  const char **why);

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
		/* read from a copy: the line itself is kept whole for next() */
		char *copy = xmalloc(len + 1);
		struct jline *l = xcalloc(1, sizeof(*l));
		json_t *o = NULL;
		struct ts_event ev;
		const char *why, *kind;
		bool ok;
		int bad = 0;

		memcpy(copy, line, len + 1);
		ok = jsonl_view_exact(copy, len, l) || jsonl_view_scan(copy, len, l);
		if (!ok) {
			o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
			ok = json_is_object(o);
			if (ok)
				jsonl_view_json(o, l);
		}
		kind = ok ? jstr(l, K_KIND) : NULL;
		if (kind && !strcmp(kind, "header")) {
			const struct jv *v = jget(l, K_VERSION);

			/* a newer major version may mean other things by the same keys */
			if (v && (v->type != JV_INT || v->i < 1))
				bad = ts_source_fail(src, "line %llu: header \"version\" is not a "
						     "version number", (unsigned long long)src->lineno);
			else if (v && v->i > JSONL_VERSION)
				bad = ts_source_fail(src, "line %llu: JSON lines version %lld is newer "
						     "than this tlbscope reads (%d): a newer tlbscope "
						     "wrote it", (unsigned long long)src->lineno,
						     (long long)v->i, JSONL_VERSION);
			else
				decode(src, l, &ev, &why);
		} else {
			j->pending = xmalloc(len + 1);
			memcpy(j->pending, line, len + 1);
			j->pending_len = len;
		}
		json_decref(o);
		free(l->m);
		free(l);
		free(copy);
		if (bad)
			return -1;
	}
	return 0;
}

static int64_t jnum(const struct jline *o, enum jkey key, int64_t dflt)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_INT ? v->i : dflt;
}

/* A pid key: absent, null or -1 is unknown (-1); past the kernel's range, ts_pid()'s mark. */
static int32_t jpid(const struct jline *o, enum jkey key, int32_t dflt)
{
	const struct jv *v = jget(o, key);

	if (!v || v->type != JV_INT)
		return dflt;
	return v->i == -1 ? -1 : ts_pid(v->i);
}

/* A name into @buf of TS_COMM_LEN bytes, cut as strlcpy_ts() cuts it; "" when absent. */
static void jcomm(const struct jline *o, enum jkey key, char *buf)
{
	const struct jv *v = jget(o, key);

	if (!v || v->type != JV_STR)
		buf[0] = '\0';
	else if (v->ascii && v->len < TS_COMM_LEN)
		memcpy(buf, v->s, v->len + 1);	/* a scanner's: no NUL inside; it fits */
	else
		strlcpy_ts(buf, v->s, TS_COMM_LEN);
}

/*
 * ts_source_intern() of string member @v, through the cache of recent ASCII names: a slot
 * by its length and its first and last eight bytes, which are the whole of a name up to 16
 * bytes (longer ones are compared whole).
 */
static uint32_t intern(struct ts_source *src, const struct jv *v)
{
	struct jsonl *j = src->priv;
	struct icache_slot *slot;
	uint64_t head = 0, tail = 0;
	uint32_t n = v->len;

	if (!v->ascii || n >= sizeof(slot->s) || !n)
		return ts_source_intern(src, v->s);
	if (n >= 8) {
		memcpy(&head, v->s, 8);
		memcpy(&tail, v->s + n - 8, 8);
	} else {
		for (uint32_t i = 0; i < n; i++)
			head |= (uint64_t)(unsigned char)v->s[i] << (8 * i);
	}
	slot = &j->icache[((head ^ tail * 31) * 0x9e3779b97f4a7c15ULL + n) >> 56];
	if (slot->id && slot->len == n && slot->head == head && slot->tail == tail &&
	    (n <= 16 || !memcmp(slot->s, v->s, n)))
		return slot->id;
	slot->id = ts_source_intern(src, v->s);
	slot->len = n;
	slot->head = head;
	slot->tail = tail;
	memcpy(slot->s, v->s, n);
	return slot->id;
}

static uint32_t jstr_id(struct ts_source *src, const struct jline *o, enum jkey key)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_STR ? intern(src, v) : 0;
}

/* The index of @s in @names[0..@n) (NULL entries passed over), or @dflt. */
static int name_index(const char *s, const char *const *names, int n, int dflt)
{
	for (int i = 0; s && i < n; i++)
		if (names[i] && names[i][0] == s[0] && names[i][1] == s[1] && !strcmp(s, names[i]))
			return i;
	return dflt;
}

static int scope_of(const char *s)
{
	static const char *names[TS_SCOPE_TARGETS + 1];

	if (!names[0])
		for (int i = 0; i <= TS_SCOPE_TARGETS; i++)
			names[i] = ts_scope_name(i);
	return name_index(s, names, TS_SCOPE_TARGETS + 1, -1);
}

static int src_of(const char *s)
{
	static const char *names[TS_SRC__COUNT];

	if (!names[0])
		for (int i = 0; i < TS_SRC__COUNT; i++)
			names[i] = ts_evsrc_name(i);
	return name_index(s, names, TS_SRC__COUNT, TS_SRC_JSON);
}

/* "0xff60000000846000" (kernel pointers do not fit JSON integers); 0 when absent. */
static uint64_t jptr(const struct jline *o, enum jkey key, bool *present)
{
	const char *s = jstr(o, key);
	uint64_t v;

	if (present)
		*present = s != NULL;
	if (!s || strncmp(s, "0x", 2) || parse_u64(s + 2, 16, &v))
		return 0;
	return v;
}

/* A CPU list [0,3] into @m (CPUs past TS_MAX_CPUS are refused); false when absent/bad. */
static bool jcpus(const struct jline *o, enum jkey key, struct ts_cpumask *m)
{
	const struct jv *v = jget(o, key);

	if (!v || v->type != JV_ARR)
		return false;
	memset(m, 0, sizeof(*m));
	return jints(v, cpu_into, m);
}

/* The header's "kprobes_defined" names (the trace's own list, kept for the NMI-drop check). */
static void set_kprobes_defined(struct ts_source *src, const struct jv *a)
{
	struct jsonl *j = src->priv;
	const char **names;
	size_t i, n = 0;
	json_t *v;

	/* names are strings: a list of them comes through jansson; the scanner's is empty */
	if (!a || a->type != JV_ARR || j->kprobes)
		return;
	names = xcalloc((a->jarr ? json_array_size(a->jarr) : 0) + 1, sizeof(*names));
	json_array_foreach(a->jarr, i, v)
		if (json_is_string(v))
			names[n++] = ts_source_str(src, ts_source_intern(src, json_string_value(v)));
	j->kprobes = names;
	src->info.kprobes_defined = names;
	src->info.nkprobes_defined = n;
}

/* Fill @ev from one object; 1 = an event, 0 = a line to pass over, -1 = malformed. */
static int decode(struct ts_source *src, const struct jline *o, struct ts_event *ev,
		  const char **why)
{
	const char *kind = jstr(o, K_KIND);
	const struct jv *ts = jget(o, K_TS), *cpu = jget(o, K_CPU), *v;

	if (!kind)
		return *why = "no \"kind\"", -1;
	if (o->kind == JK_HEADER) {
		int64_t cpus = jnum(o, K_CPUS, 0);
		const char *k = jstr(o, K_KERNEL), *cl = jstr(o, K_CMDLINE);
		const char *ma = jstr(o, K_MACHINE), *fmt = jstr(o, K_FORMAT);

		if (cpus > TS_MAX_CPUS)
			return *why = "\"cpus\" past the 512 CPUs tlbscope handles", -1;
		if (cpus > 0)
			src->info.cpus = (int)cpus;
		if (k)
			src->info.uname = ts_source_str(src, ts_source_intern(src, k));
		if (cl)
			src->info.cmdline = ts_source_str(src, ts_source_intern(src, cl));
		if (ma)
			src->info.machine = ts_source_str(src, ts_source_intern(src, ma));
		if (fmt)
			src->info.made_from = ts_source_str(src, ts_source_intern(src, fmt));
		set_kprobes_defined(src, jget(o, K_KPROBES_DEFINED));
		return 0;
	}
	if (!ts || ts->type != JV_INT || ts->i < 0)
		return *why = "no integer \"ts\"", -1;
	ev->ts = (uint64_t)ts->i;
	if (o->kind == JK_MM) {
		ev->kind = TS_EV_MM;
		ev->cpu = 0;
		ev->u.mminfo.mm = jstr_id(src, o, K_MM);
		if (!ev->u.mminfo.mm)
			return *why = "mm line without \"mm\"", -1;
		ev->u.mminfo.pid = jpid(o, K_PID, -1);
		ev->u.mminfo.how = (uint8_t)name_index(jstr(o, K_HOW), jsonl_how_names,
						       JSONL_N_HOWS, 1);
		jcomm(o, K_COMM, ev->comm);
		return 1;
	}
	/* a lost event may be of no known CPU: -1 */
	if (!cpu || cpu->type != JV_INT || cpu->i >= TS_MAX_CPUS ||
	    cpu->i < (o->kind == JK_LOST ? -1 : 0))
		return *why = "no \"cpu\" in 0..511", -1;
	ev->cpu = (int32_t)cpu->i;
	ev->pid = jpid(o, K_PID, -1);
	ev->tgid = jpid(o, K_TGID, -1);
	if (jget(o, K_TGID))
		ev->flags |= TS_F_TGID;
	jcomm(o, K_COMM, ev->comm);
	ev->name = jstr_id(src, o, K_EVENT);
	ev->probe = jstr_id(src, o, K_PROBE);
	ev->flags |= TS_F_MM_GIVEN;

	if (o->kind == JK_SWITCH) {
		ev->kind = TS_EV_SWITCH;
		ev->u.sw.prev_pid = jpid(o, K_PREV_PID, -1);
		ev->u.sw.next_pid = jpid(o, K_NEXT_PID, -1);
		ev->u.sw.next_tgid = -1;
		ev->u.sw.prev_state = jnum(o, K_PREV_STATE, 0);
		jcomm(o, K_PREV_COMM, ev->u.sw.prev_comm);
		jcomm(o, K_NEXT_COMM, ev->u.sw.next_comm);
		if (ev->u.sw.next_pid == -1)
			return *why = "switch without \"next_pid\"", -1;
		ev->u.sw.mm = jstr_id(src, o, K_MM);
		if (!ev->u.sw.mm)
			ev->flags |= TS_F_KTHREAD;
		if (!ev->u.sw.mm && jtrue(o, K_NO_MM))
			ev->u.sw.no_mm = 1;
	} else if (o->kind == JK_FORK || o->kind == JK_NEWTASK) {
		ev->kind = o->kind == JK_FORK ? TS_EV_FORK : TS_EV_NEWTASK;
		ev->u.fork.parent_pid = jpid(o, K_PARENT_PID, -1);
		ev->u.fork.child_pid = jpid(o, K_CHILD_PID, -1);
		ev->u.fork.clone_flags = (uint64_t)jnum(o, K_CLONE_FLAGS, 0);
		jcomm(o, K_CHILD_COMM, ev->u.fork.child_comm);
	} else if (o->kind == JK_EXEC) {
		ev->kind = TS_EV_EXEC;
		ev->u.exec.pid = jpid(o, K_EXEC_PID, ev->pid);
		ev->u.exec.old_pid = jpid(o, K_OLD_PID, ev->u.exec.pid);
		ev->u.exec.filename = jstr_id(src, o, K_FILENAME);
		ev->u.exec.mm = jstr_id(src, o, K_MM);
	} else if (o->kind == JK_EXIT || o->kind == JK_TASK_EXIT) {
		bool dropped;

		ev->kind = TS_EV_EXIT;
		ev->u.exit.pid = jpid(o, K_EXIT_PID, -1);
		ev->u.exit.mm_given = jstr_id(src, o, K_MM);
		/* a lazy kernel's lazy_tlb_exit_mm: the pointer it dropped */
		ev->u.exit.mm_ptr = jptr(o, K_MM_PTR, &dropped);
		ev->u.exit.dropped = dropped;
	} else if (o->kind == JK_FLUSH) {
		const char *role = jstr(o, K_ROLE);
		int scope = scope_of(jstr(o, K_SCOPE));

		ev->kind = TS_EV_FLUSH;
		if (scope < 0)
			return *why = "flush without a known \"scope\"", -1;
		ev->u.flush.scope = (uint8_t)scope;
		ev->u.flush.mm = jstr_id(src, o, K_MM);
		ev->u.flush.pages = (uint64_t)jnum(o, K_PAGES, 0);
		ev->u.flush.start = (uint64_t)jnum(o, K_START, 0);
		ev->u.flush.stride = (uint64_t)jnum(o, K_STRIDE, 0);
		ev->u.flush.src = (uint8_t)src_of(jstr(o, K_SOURCE));
		ev->u.flush.reason = (uint8_t)jnum(o, K_REASON, TS_NO_REASON);
		{
			bool has_ptr;

			ev->u.flush.mm_ptr = jptr(o, K_MM_PTR, &has_ptr);
			if (has_ptr)
				ev->u.flush.fflags |= TS_FF_PTR;
			if (jcpus(o, K_KERNEL_MASK, &ev->u.flush.kmask))
				ev->u.flush.fflags |= TS_FF_KMASK;
			if (jstr(o, K_MM_FROM) && !strcmp(jstr(o, K_MM_FROM), "task"))
				ev->u.flush.fflags |= TS_FF_MM_TASK;
		}
		/* enum ts_flush_role, anything else a request */
		ev->u.flush.role = (uint8_t)name_index(role, jsonl_role_names, JSONL_N_ROLES,
						       TS_FLUSH_REQUEST);
	} else if (o->kind == JK_IPI) {
		ev->kind = TS_EV_IPI;
		ev->u.ipi.src = (uint8_t)src_of(jstr(o, K_SOURCE));
		ev->u.ipi.func = jstr_id(src, o, K_FUNC);
		if (jtrue(o, K_TLB))
			ev->flags |= TS_F_TLB;
		if (jtrue(o, K_RECV)) {
			int64_t from = jnum(o, K_FROM, -1);

			ev->flags |= TS_F_RECV;
			/* past any CPU: left to the stream's check, which skips and counts it */
			ev->u.ipi.from = from >= -1 && from < TS_MAX_CPUS ? (int32_t)from : INT32_MAX;
			if (jtrue(o, K_LOCAL))
				ev->flags |= TS_F_LOCAL;
		} else {
			const struct jv *arr = jget(o, K_TARGETS);

			if (!arr || arr->type != JV_ARR)
				return *why = "ipi without \"targets\"", -1;
			ev->u.ipi.from = ev->cpu;
			if (!jints(arr, cpu_into, &ev->u.ipi.targets))
				return *why = "ipi target not a CPU in 0..511", -1;
		}
	} else if (o->kind == JK_LOAD_MM) {
		struct ts_cpumask m;

		ev->kind = TS_EV_LOAD_MM;
		ev->u.load.mm = jstr_id(src, o, K_MM);
		ev->u.load.prev = jptr(o, K_PREV_PTR, NULL);
		ev->u.load.next = jptr(o, K_NEXT_PTR, NULL);
		if (jcpus(o, K_NEXT_MASK, &m)) {
			ev->u.load.next_mask = m.bits[0];
			ev->u.load.mask_known = 1;
		}
		ev->u.load.initial = jtrue(o, K_INITIAL);
		ev->u.load.commit = jtrue(o, K_COMMIT);
	} else if (o->kind == JK_SFENCE) {
		const char *cause = jstr(o, K_CAUSE);
		int c = TS_SF_UNCLASSIFIED;

		/* "pte_new" or, as a probe would name it, "sfence_pte_new" */
		if (cause) {
			char name[64];

			snprintf(name, sizeof(name), "sfence_%s", cause);
			c = ts_sfence_cause_of(name);
		}
		ev->kind = TS_EV_SFENCE;
		ev->u.sfence.cause = (uint8_t)c;
		v = jget(o, K_COUNT);
		if (v && (v->type != JV_INT || v->i < 0 || v->i > UINT32_MAX))
			return *why = "sfence \"count\" not an integer in 0..2^32-1", -1;
		ev->u.sfence.count = v ? (uint32_t)v->i : 1;
		ev->u.sfence.site = jstr_id(src, o, K_SITE);
	} else if (o->kind == JK_VMALLOC) {
		ev->kind = TS_EV_VMALLOC;
		ev->u.vmalloc.start = (uint64_t)jnum(o, K_START, 0);
		ev->u.vmalloc.pages = (uint64_t)jnum(o, K_PAGES, 0);
	} else if (o->kind == JK_TGID) {
		/* a row of the trace's task table: counted by its event name when unreadable */
		ev->kind = TS_EV_TGID;
		ev->u.task.pid = jpid(o, K_TASK_PID, -1);
		ev->u.task.tgid = jpid(o, K_TASK_TGID, -1);
		ev->u.task.kthread = jtrue(o, K_KTHREAD);
		jcomm(o, K_TASK_COMM, ev->u.task.comm);
		/* out of range (INT32_MIN) is left to the stream's check, which counts it */
		if (ev->u.task.pid == 0 || ev->u.task.pid == -1 || ev->u.task.tgid == 0 ||
		    ev->u.task.tgid == -1 ||
		    (ev->u.task.kthread && ev->u.task.tgid != ev->u.task.pid))
			return *why = "tgid without \"task_pid\" and \"task_tgid\" above 0", -1;
	} else if (o->kind == JK_LOST) {
		ev->kind = TS_EV_LOST;
		v = jget(o, K_COUNT);
		ev->u.lost.count = v && v->type == JV_INT && v->i > 0 ? (uint64_t)v->i : 0;
	} else {
		/* other and unknown kinds: counted by their event name, nothing more */
		const struct jv *t = jget(o, K_TARGET), *d = jget(o, K_DECISION);

		ev->kind = TS_EV_OTHER;
		if (!ev->name)
			ev->name = ts_source_intern(src, kind);
		/* a lazy_tlb_defer decision, as `events` writes it */
		if (t && d && t->type == JV_INT && d->type == JV_INT && t->i >= 0 &&
		    t->i < TS_MAX_CPUS && d->i >= 0 && d->i <= 255) {
			ev->u.defer.mm_ptr = jptr(o, K_MM_PTR, NULL);
			ev->u.defer.target = (int32_t)t->i;
			ev->u.defer.decision = (uint8_t)d->i;
			ev->u.defer.known = 1;
		}
	}
	return 1;
}

static int jsonl_next(struct ts_source *src, struct ts_event *ev)
{
	struct jsonl *j = src->priv;
	bool used = false;	/* @ev comes zeroed (ts_source_next()) until decode() fills it */

	for (;;) {
		json_error_t jerr;
		const char *why = NULL;
		bool failed = false, viewed = false;	/* viewed: as the line was found */
		size_t len = 0;
		char *line;
		json_t *o = NULL;
		int r;

		if (j->pending) {
			/* the first line, read by open(); freed when the next one is read */
			line = j->pending;
			len = j->pending_len;
			j->pending = NULL;
			j->held = line;
		} else {
			free(j->held);
			j->held = NULL;
			/* a line written the writer's own way: its end found as it is parsed */
			line = ts_source_peek(src, &len);
			len = len && *line == '{' ? jsonl_view_exact_line(line, len, &j->line) : 0;
			viewed = len > 0;
			if (viewed) {
				line[len] = '\0';
				ts_source_take(src, len);
			} else {
				line = ts_source_getline(src, &len, &failed);
				if (!line)
					return failed ? -1 : 0;
				if (!len || (line[0] != '{' && line[strspn(line, " \t")] == '\0'))
					continue;
			}
		}
		if (!viewed && !jsonl_view_exact(line, len, &j->line) &&
		    !jsonl_view_scan(line, len, &j->line)) {
			o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
			if (!json_is_object(o)) {
				ts_source_skip(src, "line %llu: %s", (unsigned long long)src->lineno,
					       o ? "not a JSON object" : jerr.text);
				json_decref(o);
				continue;
			}
			jsonl_view_json(o, &j->line);
		}
		if (used)
			memset(ev, 0, sizeof(*ev));
		used = true;
		ev->tgid = -1;
		r = decode(src, &j->line, ev, &why);
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
	free(j->held);
	free(j->line.m);
	free(j);
}

const struct ts_format ts_format_jsonl = {
	.name = "jsonl",
	.probe = jsonl_probe,
	.open = jsonl_open,
	.next = jsonl_next,
	.close = jsonl_close,
};
