// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a trace asserts, checked once for every reader: each event ts_source_next() returns
 * passes here.  A record that cannot be true (a pid the kernel cannot have, a CPU past the
 * input's own count, time running back on a CPU, an exact repeat) is skipped; one that is
 * possible but disagrees with what came before (a switch away from a task that was not
 * running) is kept; a name that is not UTF-8 is escaped.  Each is counted by class with the
 * first place, for every command to say (docs/design.md, "What the readers check").
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

static const struct {
	const char *key;	/* JSON key */
	const char *what;	/* for people, after the count */
	bool skips;		/* the record is skipped (else kept, or escaped) */
} classes[TS_CHK__COUNT] = {
	[TS_CHK_PID] = { "pid_out_of_range", "records with a pid outside 0..4194303, skipped",
			 true },
	[TS_CHK_CPU] = { "cpu_out_of_range", "records naming a CPU past the input's count, skipped",
			 true },
	[TS_CHK_TIME] = { "time_backwards",
			  "records earlier than their CPU's previous one, skipped", true },
	[TS_CHK_DUP] = { "duplicate", "exact repeats of their CPU's previous record, skipped",
			 true },
	[TS_CHK_PREV_PID] = { "switch_inconsistent",
			      "switches from a task that was not running there, kept", false },
	[TS_CHK_PREV_PID_LOSSY] = { "switch_inconsistent_after_loss",
				    "such switches after lost events on the CPU (expected), kept",
				    false },
	[TS_CHK_UTF8] = { "names_not_utf8", "names not in UTF-8, escaped as \\xNN", false },
};

const char *ts_check_key(enum ts_check c)
{
	return c < TS_CHK__COUNT ? classes[c].key : "?";
}

const char *ts_check_what(enum ts_check c)
{
	return c < TS_CHK__COUNT ? classes[c].what : "?";
}

bool ts_check_skips(enum ts_check c)
{
	return c < TS_CHK__COUNT && classes[c].skips;
}

/* What the stream has shown of one CPU so far. */
struct chk_cpu {
	uint64_t last_ts;	/* ns, of the last record kept */
	int32_t cur_pid;	/* the task running since the last switch (pid_known) */
	bool pid_known;
	bool seen;
	bool lossy;		/* events were lost on it (or on an unknown CPU) */
	bool have_last;		/* last holds the record just before, of a kind that cannot repeat */
	struct ts_event last;
	/*
	 * A switch from a pid other than the one running, not counted yet: an exec by a thread
	 * that is not its process's leader (de_thread()) gives the thread the leader's pid
	 * before the exec's own event, which then explains the switch.
	 */
	bool pend;
	uint64_t pend_ts;
	uint64_t pend_lineno;	/* the input's line then */
	int32_t pend_from;	/* the switch's prev_pid */
	int32_t pend_was;	/* the pid that was running */
	bool pend_lossy;
};

/* How long a switch waits for the exec that explains it (ns of trace time). */
#define PEND_NS	1000000000ULL

struct ts_checker {
	struct chk_cpu cpu[TS_MAX_CPUS];
	bool all_lossy;		/* a loss of no known CPU */
	int npend;		/* CPUs with a switch waiting (pend_ts) */
	int pend_cpus;		/* every such CPU is below this */
	int pend_first;		/* the one that has waited longest (npend > 0) */
	/* the time of the first of TS_CHK_PREV_PID, TS_CHK_PREV_PID_LOSSY (counted out of order) */
	uint64_t prev_first_ts[2];
};

void ts_checker_free(struct ts_checker *k)
{
	free(k);
}

/* @ns as "12.345678" (seconds, microseconds) into @buf of 32 bytes */
static const char *secs(char *buf, uint64_t ns)
{
	snprintf(buf, 32, "%llu.%06llu", (unsigned long long)(ns / 1000000000),
		 (unsigned long long)(ns % 1000000000 / 1000));
	return buf;
}

/*
 * "line 12: cpu 3 at 12.345678 s" for a text input (@lineno, 0 none), else the record's CPU
 * and time alone.
 */
static void place(const struct ts_source *src, uint64_t lineno, const struct ts_event *ev,
		  char *buf, size_t len)
{
	char s[32];
	size_t n = 0;

	if (lineno)
		n = (size_t)snprintf(buf, len, "%s %llu: ", ts_source_line(src),
				     (unsigned long long)lineno);
	if (ev->kind == TS_EV_MM)	/* metadata: no CPU of its own */
		buf[n ? n - 2 : 0] = '\0';
	else if (n < len)
		snprintf(buf + n, len - n, "cpu %d at %s s", ev->cpu, secs(s, ev->ts));
}

static void count_at(struct ts_source *src, uint64_t lineno, const struct ts_event *ev,
		     enum ts_check c, bool first, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/*
 * One record of class @c counted, at @ev (read at @lineno); the first one's place and why
 * kept (@first: this one's, though counted after others).
 */
static void count_at(struct ts_source *src, uint64_t lineno, const struct ts_event *ev,
		     enum ts_check c, bool first, const char *fmt, ...)
{
	char where[80];
	size_t n;
	va_list ap;

	if (src->checked[c]++ && !first)
		return;
	place(src, lineno, ev, where, sizeof(where));
	n = (size_t)snprintf(src->check_first[c], sizeof(src->check_first[c]), "%s: ", where);
	if (n >= sizeof(src->check_first[c]))
		return;
	va_start(ap, fmt);
	vsnprintf(src->check_first[c] + n, sizeof(src->check_first[c]) - n, fmt, ap);
	va_end(ap);
}

/* count_at() the record just read */
#define count(src, ev, c, ...)	count_at(src, (src)->lineno, ev, c, false, __VA_ARGS__)

/* A pid field: -1 is "unknown" (the reader's own), anything else must be the kernel's. */
static bool pid_ok(int32_t pid)
{
	return pid == -1 || (pid >= 0 && pid < TS_PID_LIMIT);
}

#define PID_FIELD(kind, field, what) \
	[kind] = { { offsetof(struct ts_event, u.field) }, { what } }
#define PID_FIELDS(kind, f1, w1, f2, w2) \
	[kind] = { { offsetof(struct ts_event, u.f1), offsetof(struct ts_event, u.f2) }, \
		   { w1, w2 } }

/*
 * The pid fields of each kind besides the task's own pid and tgid, which every kind has:
 * their offsets in struct ts_event (0 ends the list: a pid is never the first field).
 */
static const struct {
	uint16_t off[3];
	const char *name[3];
} pid_fields[TS_EV__COUNT] = {
	[TS_EV_SWITCH] = { { offsetof(struct ts_event, u.sw.prev_pid),
			     offsetof(struct ts_event, u.sw.next_pid),
			     offsetof(struct ts_event, u.sw.next_tgid) },
			   { "prev_pid", "next_pid", "next_tgid" } },
	PID_FIELDS(TS_EV_FORK, fork.parent_pid, "parent_pid", fork.child_pid, "child_pid"),
	PID_FIELDS(TS_EV_NEWTASK, fork.parent_pid, "parent_pid", fork.child_pid, "child_pid"),
	PID_FIELDS(TS_EV_EXEC, exec.pid, "exec pid", exec.old_pid, "old_pid"),
	PID_FIELD(TS_EV_EXIT, exit.pid, "exit pid"),
	PID_FIELD(TS_EV_MM, mminfo.pid, "mm's pid"),
	PID_FIELDS(TS_EV_TGID, task.pid, "task pid", task.tgid, "task tgid"),
};

/* The first pid field of @ev (a kind below TS_EV__COUNT) that no kernel can have, or NULL. */
static const char *bad_pid(const struct ts_event *ev)
{
	if (!pid_ok(ev->pid))
		return "pid";
	if (!pid_ok(ev->tgid))
		return "tgid";
	for (int i = 0; i < 3 && pid_fields[ev->kind].off[i]; i++) {
		int32_t pid;

		memcpy(&pid, (const char *)ev + pid_fields[ev->kind].off[i], sizeof(pid));
		if (!pid_ok(pid))
			return pid_fields[ev->kind].name[i];
	}
	return NULL;
}

/* The first CPU of @m at or past @cpus, or -1: a word at a time. */
static int mask_past(const struct ts_cpumask *m, int cpus)
{
	int w = cpus / 64;
	uint64_t past = m->bits[w] & ~((1ULL << (cpus % 64)) - 1);

	_Static_assert(TS_MAX_CPUS == 512, "the words or'ed below are a mask's eight");
	/* up to 64 CPUs, nearly every trace: the other words or'ed at once, no branch each */
	if (w == 0 && !(past | m->bits[1] | m->bits[2] | m->bits[3] | m->bits[4] | m->bits[5] |
			m->bits[6] | m->bits[7]))
		return -1;
	for (;;) {
		if (past)
			return w * 64 + __builtin_ctzll(past);
		if (++w == TS_MAX_CPUS / 64)
			return -1;
		past = m->bits[w];
	}
}

/* A CPU of @ev's masks at or past @cpus (the input's count, below TS_MAX_CPUS), or -1. */
static int bad_target(const struct ts_event *ev, int cpus)
{
	if (ev->kind == TS_EV_IPI) {
		if (ev->u.ipi.from >= cpus)
			return ev->u.ipi.from;
		return mask_past(&ev->u.ipi.targets, cpus);
	}
	if (ev->kind == TS_EV_FLUSH && (ev->u.flush.fflags & TS_FF_KMASK))
		return mask_past(&ev->u.flush.kmask, cpus);
	return -1;
}

/*
 * A name of @size bytes with what is not UTF-8 escaped as \xNN, in place, cut at @size - 1
 * bytes without splitting an escape or a character: true when anything changed.  Valid
 * UTF-8 (a comm of CJK characters) is left alone; the kernel cuts comm at 15 bytes, maybe
 * inside a character, and that tail is escaped like any other stray byte.
 */
static bool escape_name(char *s, size_t size)
{
	char out[TS_COMM_LEN];

	if (size > sizeof(out))
		return false;
	s[size - 1] = '\0';	/* a reader's copy is terminated; a name is never more */
	if (utf8_valid(s))
		return false;
	utf8_escape(s, out, size);
	memcpy(s, out, size);
	return true;
}

/*
 * No byte of the name's whole array has its top bit set: plain ASCII, nothing to check (the
 * common case, two loads; bytes past the NUL only make it take the slow path).
 */
static inline bool ascii_name(const char *s)
{
	uint64_t w[TS_COMM_LEN / 8];

	memcpy(w, s, sizeof(w));
	return !((w[0] | w[1]) & 0x8080808080808080ULL);
}

char *ts_check_escape(struct ts_source *src, const char *s)
{
	size_t need = utf8_escape(s, NULL, 0);
	char *e = xmalloc(need + 1);

	utf8_escape(s, e, need + 1);
	if (!src->checked[TS_CHK_UTF8]++) {
		char *first = src->check_first[TS_CHK_UTF8];
		size_t len = sizeof(src->check_first[TS_CHK_UTF8]);

		/* a binary input has no line: the name is its own place */
		if (src->lineno)
			snprintf(first, len, "%s %llu: the name \"%.100s\"",
				 ts_source_line(src), (unsigned long long)src->lineno, e);
		else
			snprintf(first, len, "the name \"%.100s\"", e);
	}
	return e;
}

/* All names of @ev plain ASCII, the common case, checked without a call. */
static inline bool ascii_names(const struct ts_event *ev)
{
	if (!ascii_name(ev->comm))
		return false;
	if (ev->kind == TS_EV_SWITCH)
		return ascii_name(ev->u.sw.prev_comm) && ascii_name(ev->u.sw.next_comm);
	if (ev->kind == TS_EV_FORK || ev->kind == TS_EV_NEWTASK)
		return ascii_name(ev->u.fork.child_comm);
	return ev->kind != TS_EV_TGID || ascii_name(ev->u.task.comm);
}

/* The names of @ev: escaped where not UTF-8 (the first such name counted). */
static void check_names(struct ts_source *src, struct ts_event *ev)
{
	static const char *const which[] = { "comm", "prev_comm", "next_comm", "child_comm",
					     "task comm" };
	char *names[5] = { ev->comm, NULL, NULL, NULL, NULL };
	int bad = -1;

	if (ev->kind == TS_EV_SWITCH) {
		names[1] = ev->u.sw.prev_comm;
		names[2] = ev->u.sw.next_comm;
	} else if (ev->kind == TS_EV_FORK || ev->kind == TS_EV_NEWTASK) {
		names[3] = ev->u.fork.child_comm;
	} else if (ev->kind == TS_EV_TGID) {
		names[4] = ev->u.task.comm;
	}
	for (int i = 0; i < 5; i++)
		if (names[i] && escape_name(names[i], TS_COMM_LEN) && bad < 0)
			bad = i;
	if (bad >= 0)
		count(src, ev, TS_CHK_UTF8, "%s \"%s\"", which[bad], names[bad]);
}

/* The CPU whose switch has waited longest, -1 none. */
static int pend_oldest(const struct ts_checker *k)
{
	int best = -1;

	for (int i = 0; i < k->pend_cpus && k->npend; i++)
		if (k->cpu[i].pend && (best < 0 || k->cpu[i].pend_ts < k->cpu[best].pend_ts))
			best = i;
	return best;
}

/* @cpu's switch waits no more: counted (no exec explained it), or not. */
static void pend_end(struct ts_source *src, int cpu, bool counted)
{
	struct ts_checker *k = src->checker;
	struct chk_cpu *c = &k->cpu[cpu];

	_Static_assert(TS_CHK_PREV_PID_LOSSY == TS_CHK_PREV_PID + 1, "prev_first_ts[] by class");
	if (counted) {
		struct ts_event at = { .ts = c->pend_ts, .cpu = cpu, .kind = TS_EV_SWITCH };
		enum ts_check cls = c->pend_lossy ? TS_CHK_PREV_PID_LOSSY : TS_CHK_PREV_PID;
		uint64_t *first_ts = &k->prev_first_ts[cls - TS_CHK_PREV_PID];
		/* a CPU's second switch counts its first before older ones of other CPUs */
		bool earlier = src->checked[cls] && c->pend_ts < *first_ts;

		if (!src->checked[cls] || earlier)
			*first_ts = c->pend_ts;
		count_at(src, c->pend_lineno, &at, cls, earlier,
			 "a switch from pid %d, pid %d was running", c->pend_from, c->pend_was);
	}
	c->pend = false;
	k->npend--;
	if (cpu == k->pend_first && k->npend)
		k->pend_first = pend_oldest(k);
}

/* The switches that waited past PEND_NS at @now, counted. */
static void pend_expire(struct ts_source *src, uint64_t now)
{
	struct ts_checker *k = src->checker;

	/* (a record a little earlier than a waiting switch, of another CPU, expires nothing) */
	while (k->npend && now > k->cpu[k->pend_first].pend_ts &&
	       now - k->cpu[k->pend_first].pend_ts > PEND_NS)
		pend_end(src, k->pend_first, true);
}

void ts_check_end(struct ts_source *src)
{
	while (src->checker && src->checker->npend)
		pend_end(src, src->checker->pend_first, true);
}

/*
 * A switch on @c from @ev's prev_pid while @was ran: waits for the exec that would explain
 * it (one at a time on a CPU: an earlier one is counted).
 */
static void pend_switch(struct ts_source *src, struct chk_cpu *c, const struct ts_event *ev,
			int32_t was, bool lossy)
{
	struct ts_checker *k = src->checker;

	if (c->pend)
		pend_end(src, ev->cpu, true);
	c->pend = true;
	c->pend_ts = ev->ts;
	c->pend_lineno = src->lineno;
	c->pend_from = ev->u.sw.prev_pid;
	c->pend_was = was;
	c->pend_lossy = lossy;
	if (!k->npend++ || ev->ts < k->cpu[k->pend_first].pend_ts)
		k->pend_first = ev->cpu;
	if (ev->cpu >= k->pend_cpus)
		k->pend_cpus = ev->cpu + 1;
}

/*
 * An exec by a thread that is not its process's leader: the thread runs on as the leader's
 * pid, and a switch waiting on it is explained.
 */
static void exec_thread(struct ts_source *src, struct chk_cpu *c, const struct ts_event *ev)
{
	struct ts_checker *k = src->checker;

	if (c->pid_known && c->cur_pid == ev->u.exec.old_pid)
		c->cur_pid = ev->u.exec.pid;
	for (int i = 0; i < k->pend_cpus && k->npend; i++) {
		struct chk_cpu *p = &k->cpu[i];

		if (p->pend && p->pend_was == ev->u.exec.old_pid &&
		    p->pend_from == ev->u.exec.pid)
			pend_end(src, i, false);
	}
}

/* Kinds of which two equal records in a row on one CPU cannot both be true. */
static bool unrepeatable(uint8_t kind)
{
	return kind == TS_EV_SWITCH || kind == TS_EV_FORK || kind == TS_EV_NEWTASK ||
	       kind == TS_EV_EXEC || kind == TS_EV_EXIT;
}

/* An event earlier than @last_ts on its CPU, counted; apart: the hot path keeps no buffer. */
static __attribute__((noinline, cold)) void count_time(struct ts_source *src,
							const struct ts_event *ev,
							uint64_t last_ts)
{
	char s[32];

	count(src, ev, TS_CHK_TIME, "after %s s", secs(s, last_ts));
}

int ts_check_event(struct ts_source *src, struct ts_event *ev)
{
	int cpus = src->info.cpus;
	const char *pid_field;
	struct chk_cpu *c;
	int t;

	if (!src->checker)
		src->checker = xcalloc(1, sizeof(*src->checker));
	if (ev->kind >= TS_EV__COUNT)
		return 1;	/* a reader's own bug, not the input's: never produced */
	pid_field = bad_pid(ev);
	if (pid_field) {
		count(src, ev, TS_CHK_PID, "%s outside 0..%d", pid_field, TS_PID_LIMIT - 1);
		return 0;
	}
	if (ev->kind == TS_EV_MM) {	/* metadata: no CPU, no time of its own */
		if (!ascii_names(ev))
			check_names(src, ev);
		return 1;
	}
	/* a loss is always kept: of a CPU the input cannot have, it is a loss of no known CPU */
	if (ev->kind == TS_EV_LOST && (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS ||
				       (cpus > 0 && ev->cpu >= cpus)))
		ev->cpu = -1;
	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS) {
		if (ev->kind == TS_EV_LOST) {
			src->checker->all_lossy = true;
			return 1;
		}
		count(src, ev, TS_CHK_CPU, "not a CPU");
		return 0;
	}
	if (ev->kind == TS_EV_IPI && (ev->u.ipi.from < -1 || ev->u.ipi.from >= TS_MAX_CPUS)) {
		count(src, ev, TS_CHK_CPU, "an IPI from cpu %d", ev->u.ipi.from);
		return 0;
	}
	if (cpus > 0 && ev->cpu >= cpus) {
		count(src, ev, TS_CHK_CPU, "the input declares %d CPUs", cpus);
		return 0;
	}
	if (cpus > 0 && cpus < TS_MAX_CPUS && (t = bad_target(ev, cpus)) >= 0) {
		count(src, ev, TS_CHK_CPU, "%s names cpu %d, the input declares %d CPUs",
		      ev->kind == TS_EV_IPI ? "an IPI" : "a flush's target mask", t, cpus);
		return 0;
	}
	c = &src->checker->cpu[ev->cpu];
	if (ev->kind == TS_EV_LOST) {
		/* a loss is always kept: it is reported, and its time is the next record's */
		c->lossy = true;
		c->have_last = false;
		return 1;
	}
	if (c->seen && ev->ts < c->last_ts) {
		count_time(src, ev, c->last_ts);
		return 0;
	}
	if (c->have_last && ev->ts == c->last.ts && ev->kind == c->last.kind &&
	    !memcmp(ev, &c->last, sizeof(*ev))) {
		count(src, ev, TS_CHK_DUP, "%s again", ts_kind_name(ev->kind));
		return 0;
	}
	if (!ascii_names(ev))
		check_names(src, ev);
	c->seen = true;
	c->last_ts = ev->ts;
	c->have_last = unrepeatable(ev->kind);
	if (c->have_last)
		c->last = *ev;
	if (ev->kind == TS_EV_SWITCH) {
		if (c->pid_known && ev->u.sw.prev_pid >= 0 && ev->u.sw.prev_pid != c->cur_pid)
			pend_switch(src, c, ev, c->cur_pid, c->lossy || src->checker->all_lossy);
		c->cur_pid = ev->u.sw.next_pid;
		c->pid_known = c->cur_pid >= 0;
	} else if (ev->kind == TS_EV_EXEC && ev->u.exec.old_pid != ev->u.exec.pid) {
		exec_thread(src, c, ev);
	}
	if (src->checker->npend)
		pend_expire(src, ev->ts);
	return 1;
}
