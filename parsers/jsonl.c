// SPDX-License-Identifier: GPL-2.0-only
/*
 * JSON lines reader: the normalized stream as `tlbscope events` prints it, or as another
 * tracer (bpftrace, LTTng, a kernel module) writes it.  One object per line; unknown
 * kinds and keys are ignored; a line that is not a JSON object, or lacks ts/cpu/kind, is
 * counted as malformed and skipped.  mm names are opaque strings given by the input.
 *
 * Speed: a line is first read by a scanner for what tlbscope itself writes - one flat
 * object of integers, plain ASCII strings without escapes, true/false/null and arrays of
 * integers - which finds the members in place, without allocating.  Any line it does not
 * take whole (escapes, UTF-8, reals, nesting, duplicate keys, anything malformed) goes to
 * jansson instead, so third-party writers are read exactly as before; both fill the same
 * view of the line's members that decode() reads.
 */
#include <errno.h>
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



/* ---- one line's members: the fast scanner's or jansson's ---- */

enum jv_type { JV_NULL, JV_BOOL, JV_INT, JV_STR, JV_ARR, JV_OTHER };

/*
 * The keys tlbscope reads or writes, found by a small hash table instead of comparing a
 * line's keys one by one; a key outside it is kept and looked up by name.
 */
enum jkey {
	K_CAUSE, K_CHILD_COMM, K_CHILD_PID, K_CLONE_FLAGS, K_COMM, K_COMMIT,
	K_COUNT, K_CPU, K_CPUS, K_DECISION, K_EVENT, K_EXEC_PID,
	K_EXIT_PID, K_FILENAME, K_FORMAT, K_FROM, K_FUNC,
	K_HOW, K_INITIAL, K_KERNEL, K_KERNEL_MASK, K_KIND,
	K_KPROBES_DEFINED, K_KTHREAD, K_LOCAL, K_MM, K_MM_PTR, K_NEXT_COMM,
	K_NEXT_MASK, K_NEXT_PID, K_NEXT_PTR, K_NO_MM, K_OLD_PID,
	K_PAGES, K_PARENT_PID, K_PID, K_PREV_COMM, K_PREV_PID,
	K_PREV_PTR, K_PREV_STATE, K_PROBE, K_REASON, K_RECV,
	K_ROLE, K_SCOPE, K_SITE, K_SOURCE, K_START, K_STRIDE,
	K_TARGET, K_TARGETS, K_TASK_COMM, K_TASK_PID, K_TASK_TGID, K_TGID, K_TLB, K_TS, K_VERSION,
	N_KEYS
};

static const char *const known_keys[N_KEYS] = {
	"cause", "child_comm", "child_pid", "clone_flags", "comm", "commit", "count",
	"cpu", "cpus", "decision", "event", "exec_pid", "exit_pid", "filename",
	"format", "from", "func", "how", "initial", "kernel",
	"kernel_mask", "kind", "kprobes_defined", "kthread", "local", "mm", "mm_ptr",
	"next_comm", "next_mask", "next_pid", "next_ptr", "no_mm", "old_pid",
	"pages", "parent_pid", "pid", "prev_comm", "prev_pid", "prev_ptr",
	"prev_state", "probe", "reason", "recv", "role", "scope",
	"site", "source", "start", "stride", "target", "targets", "task_comm", "task_pid",
	"task_tgid", "tgid", "tlb",
	"ts", "version"
};
#define KEY_SLOTS	512

static int8_t key_slot[KEY_SLOTS];	/* known_keys index + 1, 0 empty */
static uint8_t key_len[N_KEYS];

/* FNV-1a */
static unsigned key_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The index of @s[0..@n) (whose key_hash() is @hash) in known_keys, or -1. */
static int key_id(const char *s, size_t n, unsigned hash)
{
	static bool built;
	unsigned h;

	if (!built) {
		for (int k = 0; k < N_KEYS; k++) {
			key_len[k] = (uint8_t)strlen(known_keys[k]);
			h = key_hash(known_keys[k], key_len[k]);
			while (key_slot[h % KEY_SLOTS])
				h++;
			key_slot[h % KEY_SLOTS] = (int8_t)(k + 1);
		}
		built = true;
	}
	for (h = hash; key_slot[h % KEY_SLOTS]; h++) {
		int k = key_slot[h % KEY_SLOTS] - 1;

		if (key_len[k] == n && !memcmp(known_keys[k], s, n))
			return k;
	}
	return -1;
}

struct jv {
	const char *key;
	int kid;		/* known_keys index, -1 another key */
	uint8_t type;
	bool b;
	int64_t i;
	const char *s;		/* JV_STR, NUL-terminated */
	const char *arr;	/* JV_ARR from the scanner: the text after '[' */
	json_t *jarr;		/* JV_ARR from jansson */
};

#define JL_MAX	64	/* members the scanner takes; jansson's lines may have more */

struct jline {
	struct jv *m;
	int n, alloc;
	int at[N_KEYS];		/* the member of each known key + 1, 0 none */
	bool others;		/* some key is not a known one */
	/*
	 * The known key + 1 that member i had on the last line of the same kind (0: none;
	 * row 0 before the "kind" member, then a row per hash of its value): tlbscope writes
	 * its keys in one order per kind, so the key is mostly that one, checked by a compare
	 * instead of a hash and a table probe
	 */
	uint8_t guess[16][JL_MAX];
};

static void jline_reset(struct jline *l)
{
	l->n = 0;
	l->others = false;
	memset(l->at, 0, sizeof(l->at));
}

static struct jv *jline_add(struct jline *l)
{
	ALLOC_GROW(l->m, (size_t)l->n + 1, l->alloc);
	memset(&l->m[l->n], 0, sizeof(l->m[0]));
	return &l->m[l->n++];
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/*
 * A string's bytes, one table lookup each: 0 an ordinary character, STR_END the closing
 * quote, STR_SLOW what the fast path leaves to jansson (escapes, control characters, UTF-8).
 */
enum { STR_END = 1, STR_SLOW = 2 };
static const uint8_t str_class[256] = {
	[0 ... 0x1f] = STR_SLOW, ['"'] = STR_END, ['\\'] = STR_SLOW, [0x80 ... 0xff] = STR_SLOW,
};

/* A string without escapes, UTF-8 or control characters: its closing quote, or NULL. */
static const char *scan_str(const char *p, const char *end)
{
	uint8_t c;

	while (p < end && !(c = str_class[(unsigned char)*p]))
		p++;
	return p < end && c == STR_END ? p : NULL;
}

/* scan_str() of a key, its FNV-1a hash (key_hash()) taken on the way. */
static const char *scan_key(const char *p, const char *end, unsigned *hash)
{
	unsigned h = 2166136261u;
	uint8_t c;

	while (p < end && !(c = str_class[(unsigned char)*p])) {
		h = (h ^ (unsigned char)*p) * 16777619u;
		p++;
	}
	*hash = h;
	return p < end && c == STR_END ? p : NULL;
}

/* An integer as JSON writes it (no leading zeros) that fits int64: past it, or NULL. */
static const char *scan_int(const char *p, const char *end, int64_t *v)
{
	bool neg = *p == '-';
	uint64_t u = 0;
	const char *d = p + neg;

	if (d >= end || *d < '0' || *d > '9' || (*d == '0' && d + 1 < end && d[1] >= '0' &&
						 d[1] <= '9'))
		return NULL;
	for (p = d; p < end && *p >= '0' && *p <= '9'; p++) {
		if (u > (UINT64_MAX - 9) / 10)
			return NULL;
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
		return NULL;	/* a real */
	if (u > (uint64_t)INT64_MAX + neg)
		return NULL;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return p;
}

static const char *scan_lit(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(p, lit, n) ? p + n : NULL;
}

/*
 * The fast path: @line[0..@len) as one flat object, its strings NUL-terminated in place
 * once the whole line has been taken.  false (the line untouched) for jansson to read.
 */
static bool scan_line(char *line, size_t len, struct jline *l)
{
	const char *p = line, *end = line + len;
	char *term[2 * JL_MAX];
	int nterm = 0, row = 0;

	jline_reset(l);
	p = skip_ws(p, end);
	if (p == end || *p++ != '{')
		return false;
	p = skip_ws(p, end);
	if (p < end && *p == '}')
		p++;
	else
		for (;;) {
			struct jv *v;
			const char *q;
			unsigned h;
			int g;

			if (l->n == JL_MAX || p >= end || *p != '"')
				return false;
			g = l->guess[row][l->n] - 1;
			if (g >= 0 && (size_t)(end - p) > key_len[g] + 1u && p[1 + key_len[g]] == '"' &&
			    !memcmp(p + 1, known_keys[g], key_len[g])) {
				q = p + 1 + key_len[g];		/* what scan_key() would find */
			} else {
				if (!(q = scan_key(p + 1, end, &h)))
					return false;
				g = key_id(p + 1, (size_t)(q - p - 1), h);
				l->guess[row][l->n] = (uint8_t)(g + 1);
			}
			v = jline_add(l);
			v->key = p + 1;
			v->kid = g;
			if (v->kid >= 0 && l->at[v->kid])
				return false;	/* a duplicate key: jansson's to refuse */
			if (v->kid >= 0)
				l->at[v->kid] = l->n;
			else
				l->others = true;
			term[nterm++] = (char *)q;
			p = skip_ws(q + 1, end);
			if (p >= end || *p++ != ':')
				return false;
			p = skip_ws(p, end);
			if (p >= end)
				return false;
			if (*p == '"') {
				if (!(q = scan_str(p + 1, end)))
					return false;
				v->type = JV_STR;
				v->s = p + 1;
				term[nterm++] = (char *)q;
				if (v->kid == K_KIND && q > v->s)
					row = ((unsigned char)v->s[0] * 3 + (unsigned char)v->s[q - v->s - 1] +
					       (unsigned)(q - v->s)) & 15;
				p = q + 1;
			} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
				v->type = JV_INT;
				if (!(p = scan_int(p, end, &v->i)))
					return false;
			} else if (*p == '[') {
				int64_t t;

				v->type = JV_ARR;
				v->arr = ++p;
				p = skip_ws(p, end);
				if (p < end && *p == ']') {
					p++;
				} else {
					for (;;) {
						if (p >= end || !(p = scan_int(p, end, &t)))
							return false;
						p = skip_ws(p, end);
						if (p < end && *p == ',') {
							p = skip_ws(p + 1, end);
							continue;
						}
						if (p >= end || *p++ != ']')
							return false;
						break;
					}
				}
			} else if ((q = scan_lit(p, end, "true")) || (q = scan_lit(p, end, "false"))) {
				v->type = JV_BOOL;
				v->b = *p == 't';
				p = q;
			} else if ((q = scan_lit(p, end, "null"))) {
				v->type = JV_NULL;
				p = q;
			} else {
				return false;	/* nested objects and the rest: jansson's */
			}
			p = skip_ws(p, end);
			if (p < end && *p == ',') {
				p = skip_ws(p + 1, end);
				continue;
			}
			if (p >= end || *p++ != '}')
				return false;
			break;
		}
	if (skip_ws(p, end) != end)
		return false;
	/* jansson refuses duplicate keys (JSON_REJECT_DUPLICATES): among the unknown ones too */
	for (int i = 0; l->others && i < l->n; i++)
		for (int k = i + 1; l->m[i].kid < 0 && k < l->n; k++) {
			const char *a = l->m[i].key, *b = l->m[k].key;

			while (*a == *b && *a != '"')
				a++, b++;
			if (*a == '"' && *b == '"')
				return false;
		}
	for (int i = 0; i < nterm; i++)
		*term[i] = '\0';
	return true;
}

/* The slow path: a jansson object's members in the same view (borrowed from @o). */
static void view_of(json_t *o, struct jline *l)
{
	const char *key;
	json_t *v;

	jline_reset(l);
	json_object_foreach(o, key, v) {
		struct jv *m = jline_add(l);
		size_t n = strlen(key);

		m->key = key;
		m->kid = key_id(key, n, key_hash(key, n));
		if (m->kid >= 0)
			l->at[m->kid] = l->n;
		else
			l->others = true;
		if (json_is_integer(v)) {
			m->type = JV_INT;
			m->i = json_integer_value(v);
		} else if (json_is_string(v)) {
			m->type = JV_STR;
			m->s = json_string_value(v);
		} else if (json_is_boolean(v)) {
			m->type = JV_BOOL;
			m->b = json_is_true(v);
		} else if (json_is_null(v)) {
			m->type = JV_NULL;
		} else if (json_is_array(v)) {
			m->type = JV_ARR;
			m->jarr = v;
		} else {
			m->type = JV_OTHER;
		}
	}
}

static const struct jv *jget(const struct jline *o, enum jkey k)
{
	return o->at[k] ? &o->m[o->at[k] - 1] : NULL;
}

static const char *jstr(const struct jline *o, enum jkey key)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_STR ? v->s : NULL;
}

static bool jtrue(const struct jline *o, enum jkey key)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_BOOL && v->b;
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
		p = scan_int(p, p + 32, &t);	/* checked by scan_line already */
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

/* src->priv */
struct jsonl {
	const char **kprobes;	/* the header's "kprobes_defined" */
	char *pending;		/* the first line, read by open, when it is not the header */
	size_t pending_len;
	char *held;		/* that line while its event is being decoded */
	struct jline line;	/* the members of the line being decoded */
};

static int decode(struct ts_source *src, const struct jline *o, struct ts_event *ev,
		  const char **why);

/* The major version of the stream `tlbscope events` writes (its header's "version"). */
#define JSONL_VERSION	1

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
		ok = scan_line(copy, len, l);
		if (!ok) {
			o = json_loadb(line, len, JSON_REJECT_DUPLICATES, NULL);
			ok = json_is_object(o);
			if (ok)
				view_of(o, l);
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

static void jcomm(const struct jline *o, enum jkey key, char *buf)
{
	const char *s = jstr(o, key);

	strlcpy_ts(buf, s ? s : "", TS_COMM_LEN);
}

static uint32_t jstr_id(struct ts_source *src, const struct jline *o, enum jkey key)
{
	const char *s = jstr(o, key);

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
	if (!strcmp(kind, "header")) {
		int64_t cpus = jnum(o, K_CPUS, 0);
		const char *k = jstr(o, K_KERNEL);

		if (cpus > TS_MAX_CPUS)
			return *why = "\"cpus\" past the 512 CPUs tlbscope handles", -1;
		if (cpus > 0)
			src->info.cpus = (int)cpus;
		if (k)
			src->info.uname = ts_source_str(src, ts_source_intern(src, k));
		set_kprobes_defined(src, jget(o, K_KPROBES_DEFINED));
		return 0;
	}
	if (!ts || ts->type != JV_INT || ts->i < 0)
		return *why = "no integer \"ts\"", -1;
	ev->ts = (uint64_t)ts->i;
	if (!strcmp(kind, "mm")) {
		ev->kind = TS_EV_MM;
		ev->cpu = 0;
		ev->u.mminfo.mm = jstr_id(src, o, K_MM);
		if (!ev->u.mminfo.mm)
			return *why = "mm line without \"mm\"", -1;
		ev->u.mminfo.pid = jpid(o, K_PID, -1);
		ev->u.mminfo.how = (uint8_t)how_of(jstr(o, K_HOW));
		jcomm(o, K_COMM, ev->comm);
		return 1;
	}
	/* a lost event may be of no known CPU: -1 */
	if (!cpu || cpu->type != JV_INT || cpu->i >= TS_MAX_CPUS ||
	    cpu->i < (strcmp(kind, "lost") ? 0 : -1))
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

	if (!strcmp(kind, "switch")) {
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
	} else if (!strcmp(kind, "fork") || !strcmp(kind, "newtask")) {
		ev->kind = kind[0] == 'f' ? TS_EV_FORK : TS_EV_NEWTASK;
		ev->u.fork.parent_pid = jpid(o, K_PARENT_PID, -1);
		ev->u.fork.child_pid = jpid(o, K_CHILD_PID, -1);
		ev->u.fork.clone_flags = (uint64_t)jnum(o, K_CLONE_FLAGS, 0);
		jcomm(o, K_CHILD_COMM, ev->u.fork.child_comm);
	} else if (!strcmp(kind, "exec")) {
		ev->kind = TS_EV_EXEC;
		ev->u.exec.pid = jpid(o, K_EXEC_PID, ev->pid);
		ev->u.exec.old_pid = jpid(o, K_OLD_PID, ev->u.exec.pid);
		ev->u.exec.filename = jstr_id(src, o, K_FILENAME);
		ev->u.exec.mm = jstr_id(src, o, K_MM);
	} else if (!strcmp(kind, "exit") || !strcmp(kind, "task_exit")) {
		ev->kind = TS_EV_EXIT;
		ev->u.exit.pid = jpid(o, K_EXIT_PID, -1);
		ev->u.exit.mm_given = jstr_id(src, o, K_MM);
	} else if (!strcmp(kind, "flush")) {
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
		}
		ev->u.flush.role = role && !strcmp(role, "local") ? TS_FLUSH_LOCAL :
				   role && !strcmp(role, "received") ? TS_FLUSH_RECEIVED :
				   TS_FLUSH_REQUEST;
	} else if (!strcmp(kind, "ipi")) {
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
	} else if (!strcmp(kind, "load_mm")) {
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
	} else if (!strcmp(kind, "sfence")) {
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
	} else if (!strcmp(kind, "vmalloc")) {
		ev->kind = TS_EV_VMALLOC;
		ev->u.vmalloc.start = (uint64_t)jnum(o, K_START, 0);
		ev->u.vmalloc.pages = (uint64_t)jnum(o, K_PAGES, 0);
	} else if (!strcmp(kind, "tgid")) {
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
	} else if (!strcmp(kind, "lost")) {
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

	for (;;) {
		json_error_t jerr;
		const char *why = NULL;
		bool failed = false;
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
			line = ts_source_getline(src, &len, &failed);
			if (!line)
				return failed ? -1 : 0;
			if (!len || line[strspn(line, " \t")] == '\0')
				continue;
		}
		if (!scan_line(line, len, &j->line)) {
			o = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
			if (!json_is_object(o)) {
				ts_source_skip(src, "line %llu: %s", (unsigned long long)src->lineno,
					       o ? "not a JSON object" : jerr.text);
				json_decref(o);
				continue;
			}
			view_of(o, &j->line);
		}
		memset(ev, 0, sizeof(*ev));
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
