// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ftrace text formats: the tracefs "trace" / "trace_pipe" files (with or without the
 * irq-info flags and record-tgid columns, or in latency-format) and the output of
 * "trace-cmd report" (with or without buffer-name prefixes, -l latency columns, -t
 * nanosecond timestamps, --ts-diff, the integer ones of --raw-ts or a raw clock).  Each
 * line is split into its header columns here; the event's fields go to tp_decode().
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ftrace-fields.h"

#define MAX_LINE	65536	/* longer lines are skipped as malformed */
#define PROBE_LINES	16	/* event lines the probe looks at */
#define HEAD_MAX	512	/* the timestamp is looked for in this many leading bytes */

#define NAME_SLOTS	128	/* distinct event names remembered (a power of 2) */
#define NAME_MAX_LEN	127	/* longer names are skipped as malformed */

/*
 * An event name met before: its string id once tp_decode() has interned it (0 before) and
 * whether it is sched_switch, so that a line's name costs a hash and a memcmp.
 */
struct name_slot {
	uint32_t id;
	uint8_t len;		/* 0: a free slot */
	bool sched_switch;
	char name[NAME_MAX_LEN + 1];
};

struct ftext {
	struct name_slot names[NAME_SLOTS];
	int nnames;		/* slots used; the table is never more than half full */
	const char *const *switch_names;	/* ftext_many()'s, once checked */
	bool report;		/* trace-cmd report output, else a tracefs file */
	bool tracefs_hdr;	/* a '#' header was seen: no buffer-name prefixes */
	uint64_t last_ts;	/* ns of the last event, given to LOST events */
	/*
	 * A tracefs header "entries-in-buffer/entries-written: A/B" with B > A: the ring
	 * buffer overwrote B - A events (the oldest, of unknown CPUs).  Told as one LOST
	 * event, with cpu -1, just before the first event.
	 */
	uint64_t overwritten;
	bool overwritten_told;
	uint64_t events;	/* event lines read (not headers, skipped lines or losses) */
	bool has_stash;
	struct ts_event stash;	/* the first event, held back behind that LOST event */
};

/* The columns before an event's fields; spans point into the line. */
struct line_hdr {
	uint64_t ts;		/* ns */
	bool raw_ts;		/* an integer timestamp, read as ns (ts_token()) */
	int cpu;
	int pid;
	int tgid;		/* -1: no TGID column or "(-------)" */
	bool tgid_col;		/* the line has a TGID column */
	const char *comm;
	size_t comm_len;
	const char *name;	/* event name, name_len bytes, not terminated */
	size_t name_len;
	const char *payload;	/* the event's text, up to the end of the line */
};

/* irq-info flags such as "d..2." or "...." (4 or 5 characters on current kernels) */
static bool is_flags(const char *s, size_t len)
{
	if (len < 4 || len > 6)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_alnum((unsigned char)s[i]) && s[i] != '.')
			return false;
	return !is_dig((unsigned char)s[0]);
}

/*
 * The part before the timestamp: "COMM-PID [(TGID)] [CPU] [FLAGS]", or with trace-cmd
 * report -l "COMM-PID CPUFLAGS".  Parsed from the right: the comm may hold anything, so
 * the pid is after the last '-' left of the columns.
 */
static int parse_head(const char *s, size_t len, struct line_hdr *h)
{
	size_t end = rtrim(s, len), tok, i;
	bool have_cpu = false;

	tok = end;
	while (tok && !is_blank(s[tok - 1]))
		tok--;
	if (end - tok >= 3 && s[tok] == '[' && s[end - 1] == ']') {
		if (!all_digits(s + tok + 1, end - tok - 2))
			return -1;
		have_cpu = true;
	} else if (is_flags(s + tok, end - tok)) {
		/* tracefs irq-info: the "[CPU]" token must come before */
		size_t e2 = rtrim(s, tok), t2 = e2;

		while (t2 && !is_blank(s[t2 - 1]))
			t2--;
		if (e2 - t2 >= 3 && s[t2] == '[' && s[e2 - 1] == ']' &&
		    all_digits(s + t2 + 1, e2 - t2 - 2)) {
			tok = t2;
			end = e2;
			have_cpu = true;
		}
	}
	if (have_cpu) {
		if (span_int(s + tok + 1, end - tok - 2, &h->cpu))
			return -1;
	} else {
		/* report -l: cpu digits glued to the flags, "1d..2." */
		for (i = tok; i < end && is_dig((unsigned char)s[i]); i++)
			;
		if (i == tok || !is_flags(s + i, end - i) || span_int(s + tok, i - tok, &h->cpu))
			return -1;
	}
	if (h->cpu < 0 || h->cpu >= TS_MAX_CPUS)
		return -1;
	end = rtrim(s, tok);

	h->tgid = -1;
	h->tgid_col = false;
	if (end && s[end - 1] == ')') {
		size_t open = end - 1, a, b;

		/* "(  17128)", "(-------)": a few characters, never a scan of the line */
		while (open && s[open] != '(' && end - open < 16)
			open--;
		if (s[open] != '(')
			return -1;
		for (a = open + 1; a < end - 1 && is_blank(s[a]); a++)
			;
		b = rtrim(s, end - 1);
		if (a >= b)
			return -1;
		if (s[a] == '-') {
			for (i = a; i < b && s[i] == '-'; i++)
				;
			if (i != b)
				return -1;
		} else if (span_int(s + a, b - a, &h->tgid) || h->tgid < 0) {
			return -1;
		}
		h->tgid_col = true;
		end = rtrim(s, open);
	}

	/* "COMM-PID": the pid is all digits after the last '-' */
	for (i = end; i && is_dig((unsigned char)s[i - 1]); i--)
		;
	if (i == end || !i || s[i - 1] != '-')
		return -1;
	if (span_int(s + i, end - i, &h->pid) || h->pid < 0)
		return -1;
	end = i - 1;
	i = skip_blanks(s, 0, end);
	h->comm = s + i;
	h->comm_len = end - i;
	return 0;
}

/*
 * [A-Za-z0-9_.-] (1) by table; a byte past 0x7f (2) is the locale's isalnum() to judge, as
 * is_alnum() has it.  One load and compare per byte of the common ASCII name.
 */
static const uint8_t name_class[256] = {
	['a' ... 'z'] = 1, ['A' ... 'Z'] = 1, ['0' ... '9'] = 1, ['_'] = 1, ['-'] = 1, ['.'] = 1,
	[0x80 ... 0xff] = 2,
};

/* The end of the event name starting at @n, before @len. */
static inline size_t name_end(const char *s, size_t n, size_t len)
{
	for (; n < len; n++) {
		unsigned char c = (unsigned char)s[n];

		if (name_class[c] != 1 && !(name_class[c] == 2 && isalnum(c)))
			break;
	}
	return n;
}

/*
 * Is the ':' at @c the end of a timestamp?  "72.463764:" (seconds, tracefs and trace-cmd)
 * or, with the tracefs latency-format option, "918805260us :" where the character before
 * the ':' marks long delays.  The token must follow a blank; its start goes to @start.
 * trace-cmd report prints the clock's raw count as an integer ("%12d:", glued to the
 * "[CPU]" when it fills the width) for a clock not counting in ns (counter, x86-tsc), with
 * --raw-ts, and for a trace.dat whose clock option it misreads: read as ns, *@raw set.
 */
static bool ts_token(const char *s, size_t c, size_t *start, uint64_t *ns, bool *raw)
{
	uint64_t us, sec = 0, frac = 0;
	size_t b, e, flen;
	unsigned d;

	if (c >= 4 && s[c - 3] == 'u' && s[c - 2] == 's' && s[c - 1] &&
	    strchr(" !#$@*+", s[c - 1])) {
		e = c - 3;
		for (b = e; b && is_dig((unsigned char)s[b - 1]); b--)
			;
		if (b == e || !b || !is_blank(s[b - 1]) || span_u64(s + b, e - b, 10, &us) ||
		    __builtin_mul_overflow(us, 1000ULL, ns))
			return false;
		*start = b;
		return true;
	}
	/*
	 * "SECONDS.FRACTION" read from the ':' back, in the one pass that finds its start: what
	 * ftext_parse_ts() takes of the token of digits and dots before @c, and nothing else
	 */
	for (b = c; b && (d = (unsigned char)s[b - 1] - '0') < 10; b--)
		if (c - b < 9)
			frac += d * ftext_ten_to[c - b];
	flen = c - b;
	if (flen && b && s[b - 1] != '.') {
		if ((!is_blank(s[b - 1]) && s[b - 1] != ']') || span_u64(s + b, flen, 10, ns))
			return false;
		*raw = true;
		*start = b;
		return true;
	}
	if (!flen || flen > 9 || b < 2 || s[b - 1] != '.')
		return false;
	e = --b;
	while (b && is_dig((unsigned char)s[b - 1]))
		b--;
	/* a second '.' is not a blank either: "1.2.3" is no timestamp */
	if (b == e || !b || !is_blank(s[b - 1]))
		return false;
	if (e - b <= 19) {
		for (size_t i = b; i < e; i++)
			sec = sec * 10 + (uint64_t)(s[i] - '0');
	} else if (span_u64(s + b, e - b, 10, &sec)) {	/* leading zeros, or past 64 bits */
		return false;
	}
	if (__builtin_mul_overflow(sec, 1000000000ULL, &sec) ||
	    __builtin_add_overflow(sec, frac * ftext_ten_to[9 - flen], ns))
		return false;
	*start = b;
	return true;
}

/*
 * Split an event line.  The timestamp is the first timestamp token followed by a blank and
 * "event_name:", whose left part is a valid head.
 */
static int parse_event_line(const char *s, size_t len, struct line_hdr *h)
{
	size_t lim = len < HEAD_MAX ? len : HEAD_MAX;

	for (size_t c = 1; c < lim; c++) {
		const char *colon = memchr(s + c, ':', lim - c);
		size_t start, p, n;

		if (!colon)
			break;
		c = (size_t)(colon - s);
		if (c + 1 < len && s[c + 1] != ' ')
			continue;
		h->raw_ts = false;
		if (!ts_token(s, c, &start, &h->ts, &h->raw_ts))
			continue;
		p = skip_blanks(s, c + 1, len);
		/* trace-cmd report --ts-diff: "72.463807: (+43)    ipi_send_cpu: ..." */
		if (p + 1 < len && s[p] == '(' && s[p + 1] == '+') {
			for (n = p + 2; n < len && is_dig((unsigned char)s[n]); n++)
				;
			if (n == len || s[n] != ')')
				continue;
			p = skip_blanks(s, n + 1, len);
		}
		n = name_end(s, p, len);
		if (n == p || n >= len || s[n] != ':' || (n + 1 < len && !is_blank(s[n + 1])))
			continue;
		if (parse_head(s, start, h))
			continue;
		h->name = s + p;
		h->name_len = n - p;
		h->payload = s + skip_blanks(s, n + 1, len);
		return 0;
	}
	return -1;
}

/*
 * Lost-event markers: tracefs "CPU:1 [LOST 123 EVENTS]" / "CPU:1 [LOST EVENTS]", trace-cmd
 * report "CPU:1 [123 EVENTS DROPPED]" / "CPU:1 [EVENTS DROPPED]".  @count 0 = unknown.
 */
static int parse_lost(const char *s, size_t len, int *cpu, uint64_t *count)
{
	const char *p = s + 4, *end = s + len, *d, *tail;
	bool tracefs = false;
	size_t tl;

	if (len < 4 || memcmp(s, "CPU:", 4))
		return -1;
	for (d = p; d < end && is_dig((unsigned char)*d); d++)
		;
	if (span_int(p, (size_t)(d - p), cpu) || *cpu < 0 || *cpu >= TS_MAX_CPUS)
		return -1;
	if (end - d < 2 || memcmp(d, " [", 2))
		return -1;
	p = d + 2;
	if (end - p >= 5 && !memcmp(p, "LOST ", 5)) {
		tracefs = true;
		p += 5;
	}
	*count = 0;
	for (d = p; d < end && is_dig((unsigned char)*d); d++)
		;
	if (d > p) {
		if (span_u64(p, (size_t)(d - p), 10, count) || d == end || *d != ' ')
			return -1;
		p = d + 1;
	}
	tail = tracefs ? "EVENTS]" : "EVENTS DROPPED]";
	tl = strlen(tail);
	return (size_t)(end - p) == tl && !memcmp(p, tail, tl) ? 0 : -1;
}

/* ---- lines ---- */

/* "<lit><digits>" -> the number; 0 ok, -1 otherwise */
static int lit_num(const char *s, size_t len, const char *lit, int *n)
{
	size_t l = strlen(lit);

	if (len <= l || memcmp(s, lit, l) || !all_digits(s + l, len - l))
		return -1;
	return span_int(s + l, len - l, n);
}

/* A header's CPU count; one past what a CPU mask holds is a malformed header, not a size. */
static void declare_cpus(struct ts_source *src, int n)
{
	if (n > TS_MAX_CPUS) {
		if (src->lineno)	/* reading, not the first look of scan_head() */
			ts_source_skip(src, "line %llu: a header declares %d CPUs (at most %d handled)",
				       (unsigned long long)src->lineno, n, TS_MAX_CPUS);
		return;
	}
	src->info.cpus = n;
}

/*
 * Header and summary lines: '#' lines, "cpus=2", "version = 7", "CPU 0 is empty".
 * @s is NUL-terminated at @len.
 */
static bool meta_line(struct ts_source *src, struct ftext *ft, const char *s, size_t len)
{
	const char *p;
	int n;

	if (s[0] == '#') {
		ft->tracefs_hdr = true;
		/* "# entries-in-buffer/entries-written: 120/120   #P:2" */
		p = strstr(s, "#P:");
		if (p) {
			size_t d;

			for (d = 3; is_dig((unsigned char)p[d]); d++)
				;
			if (!lit_num(p, d, "#P:", &n) && n > 0)
				declare_cpus(src, n);
			else if (d > 3 && src->lineno)	/* digits past an int */
				ts_source_skip(src, "line %llu: a header declares %.*s CPUs (at most "
					       "%d handled)", (unsigned long long)src->lineno,
					       (int)(d - 3), p + 3, TS_MAX_CPUS);
		}
		if (strstr(s, "TGID"))
			src->info.has_tgid = true;
		p = strstr(s, "entries-in-buffer/entries-written:");
		if (p) {
			unsigned long long in, written;

			if (sscanf(p + 34, " %llu/%llu", &in, &written) == 2 && written > in)
				ft->overwritten = written - in;
		}
		return true;
	}
	/* an event line mostly starts with the blanks before its comm */
	if (s[0] != 'c' && s[0] != 'v' && s[0] != 'C')
		return false;
	if (!lit_num(s, len, "cpus=", &n)) {
		if (n > 0)
			declare_cpus(src, n);
		ft->report = true;
		return true;
	}
	if (!lit_num(s, len, "version = ", &n))
		return true;
	if (len > 13 && !memcmp(s, "CPU ", 4) && !memcmp(s + len - 9, " is empty", 9))
		return true;
	return false;
}

/*
 * The slot of event name @name (@len bytes, 1 to NAME_MAX_LEN), added on its first sight;
 * NULL when the table is half full with other names.  Borrowed from @ft.
 */
static struct name_slot *name_find(struct ftext *ft, const char *name, size_t len)
{
	/*
	 * the slot by the length and the first, middle and last bytes: the few names of a
	 * trace mostly differ there, and a clash only costs the next slot
	 */
	uint32_t h = ((uint32_t)len * 0x9e3779b1u) ^ (unsigned char)name[0] * 0x85ebca6bu ^
		     (unsigned char)name[len / 2] * 0xc2b2ae35u ^ (unsigned char)name[len - 1];

	h ^= h >> 15;
	for (h &= NAME_SLOTS - 1;; h = (h + 1) & (NAME_SLOTS - 1)) {
		struct name_slot *n = &ft->names[h];

		if (n->len == len && !memcmp(n->name, name, len))
			return n;
		if (n->len)
			continue;
		if (ft->nnames * 2 >= NAME_SLOTS)
			return NULL;
		ft->nnames++;
		memcpy(n->name, name, len);
		n->name[len] = '\0';
		n->len = (uint8_t)len;
		n->sched_switch = !strcmp(n->name, "sched_switch");
		return n;
	}
}

/* Strip a trace-cmd report buffer name ("tsprobe: ") at the start of @s, if any. */
static const char *strip_instance(const char *s, size_t *len)
{
	size_t i;

	if (is_blank(s[0]))
		return NULL;
	for (i = 0; i < *len && !is_blank(s[i]); i++)
		;
	if (i < 2 || i >= *len || s[i - 1] != ':')
		return NULL;
	while (i < *len && is_blank(s[i]))
		i++;
	*len -= i;
	return s + i;
}

/*
 * strstr(@p, "prev_pid=") != NULL for @p of @len bytes, asked of the few '=' in it: the
 * plugin's sched_switch line has only those of its " ==> ".
 */
static bool has_prev_pid(const char *p, size_t len)
{
	for (const char *q = p; (q = memchr(q, '=', len - (size_t)(q - p))); q++)
		if (q - p >= 8 && !memcmp(q - 8, "prev_pid", 8))
			return true;
	return false;
}

/*
 * One trimmed, non-empty line, NUL-terminated at @len.  Returns 1 with @ev filled, 0 for a
 * line that carries no event (headers, skipped malformed lines).
 */
static int handle_line(struct ts_source *src, struct ftext *ft, const char *s, size_t len,
		       struct ts_event *ev)
{
	struct text_fields tf;	/* not zeroed: 1 KiB per line; what is read is set below */
	struct tp_fields f = {
		.ctx = &tf, .num = ftext_num, .str = ftext_str, .sym = ftext_sym, .mask = ftext_mask,
		.list = ftext_list, .many = ftext_many,
	};
	struct line_hdr h;
	struct name_slot *slot;
	char name_buf[NAME_MAX_LEN + 1], why[160];
	const char *rest, *name;
	bool sched_switch;
	size_t rlen = len;
	uint64_t count;
	int cpu;

	if (meta_line(src, ft, s, len))
		return 0;
	/* "abc: def-12 ..." in a tracefs file is task "abc: def", not buffer "abc" */
	rest = ft->tracefs_hdr ? NULL : strip_instance(s, &rlen);
	if (!parse_lost(s, len, &cpu, &count) || (rest && !parse_lost(rest, rlen, &cpu, &count))) {
		ev->kind = TS_EV_LOST;
		ev->ts = ft->last_ts;
		ev->cpu = cpu;
		ev->pid = ev->tgid = -1;
		ev->u.lost.count = count;
		return 1;
	}
	/* a buffer-name prefix is tried first: "tsprobe:  bash-1 [000]" parses either way */
	if ((!rest || parse_event_line(rest, rlen, &h)) && parse_event_line(s, len, &h)) {
		ts_source_skip(src, "line %llu: not an event line", (unsigned long long)src->lineno);
		return 0;
	}
	if (h.name_len > NAME_MAX_LEN) {
		ts_source_skip(src, "line %llu: event name too long", (unsigned long long)src->lineno);
		return 0;
	}
	slot = name_find(ft, h.name, h.name_len);
	if (slot) {
		name = slot->name;
		sched_switch = slot->sched_switch;
		f.name_id = slot->id;
	} else {
		memcpy(name_buf, h.name, h.name_len);
		name_buf[h.name_len] = '\0';
		name = name_buf;
		sched_switch = !strcmp(name, "sched_switch");
	}

	ev->ts = h.ts;
	ev->cpu = h.cpu;
	ev->pid = h.pid;
	ev->tgid = h.tgid;
	if (h.tgid >= 0)
		ev->flags |= TS_F_TGID;
	if (h.tgid_col)
		src->info.has_tgid = true;
	if (h.raw_ts && !src->info.advice)
		src->info.advice = "integer timestamps (trace-cmd report prints a clock's raw count "
				   "so): read as nanoseconds, which they are only for a nanosecond "
				   "clock (not counter or x86-tsc); the trace.dat itself gives the "
				   "clock";
	copy_out(h.comm, h.comm_len, ev->comm, TS_COMM_LEN);

	why[0] = '\0';
	tf.event = name;
	tf.payload = h.payload;
	tf.plugin = false;
	tf.report = ft->report;
	tf.idx.done = false;
	tf.switch_names = &ft->switch_names;
	if (sched_switch && !has_prev_pid(h.payload, len - (size_t)(h.payload - s))) {
		if (ftext_parse_plugin_switch(h.payload, &tf.sw)) {
			ts_source_skip(src, "line %llu: sched_switch: cannot read '%.40s'",
				       (unsigned long long)src->lineno, h.payload);
			return 0;
		}
		tf.plugin = true;
	}
	if (tp_decode(src, name, &f, ev, why, sizeof(why))) {
		if (slot)
			slot->id = ev->name;
		ts_source_skip(src, "line %llu: %s", (unsigned long long)src->lineno, why);
		return 0;
	}
	if (slot)
		slot->id = ev->name;
	ft->last_ts = ev->ts;
	ft->events++;
	return 1;
}

/* The read error message, without the "<file>: " that ts_source_fail() adds again. */
static int read_failed(struct ts_source *src)
{
	char msg[TS_ERR_LEN];
	size_t dl = strlen(src->display);
	const char *m = src->err;

	if (!strncmp(m, src->display, dl) && m[dl] == ':')
		m += dl + 2;
	strlcpy_ts(msg, m, sizeof(msg));
	if (!strncmp(msg, "line ", 5))		/* the line reader named the place itself */
		return ts_source_fail(src, "%s", msg);
	return ts_source_fail(src, "after line %llu: %s", (unsigned long long)src->lineno, msg);
}

static int ftext_next(struct ts_source *src, struct ts_event *ev)
{
	struct ftext *ft = src->priv;

	if (ft->has_stash) {
		*ev = ft->stash;
		ft->has_stash = false;
		return 1;
	}
	for (;;) {
		bool failed;
		size_t len;
		char *line = ts_source_getline(src, &len, &failed);

		if (!line) {
			if (failed)
				return read_failed(src);
			/* nothing read as an event: the text is not one of ours, not an empty trace */
			if (!ft->events && src->skipped)
				return ts_source_fail(src, "no line read as an event (%llu skipped; "
						      "first: %s)", (unsigned long long)src->skipped,
						      src->first_skip);
			return 0;
		}
		if (len > MAX_LINE) {
			ts_source_skip(src, "line %llu: longer than %d bytes",
				       (unsigned long long)src->lineno, MAX_LINE);
			continue;
		}
		if (memchr(line, '\0', len)) {
			ts_source_skip(src, "line %llu: NUL byte in the text",
				       (unsigned long long)src->lineno);
			continue;
		}
		/* what is left after the trailing blanks ends in a non-blank: not a blank line */
		len = rtrim(line, len);
		if (!len)
			continue;
		line[len] = '\0';
		if (handle_line(src, ft, line, len, ev)) {
			if (ft->overwritten && !ft->overwritten_told) {
				ft->overwritten_told = true;
				ft->stash = *ev;
				ft->has_stash = true;
				memset(ev, 0, sizeof(*ev));
				ev->kind = TS_EV_LOST;
				ev->ts = ft->stash.ts;
				ev->cpu = -1;
				ev->pid = ev->tgid = -1;
				ev->u.lost.count = ft->overwritten;
			}
			return 1;
		}
		memset(ev, 0, sizeof(*ev));
	}
}

/* ---- probe and open ---- */

/* Iterate over the complete lines of @head (and a final unterminated one). */
static const char *next_line(const char *head, size_t len, size_t *off, size_t *llen)
{
	const char *s, *nl;

	if (*off >= len)
		return NULL;
	s = head + *off;
	nl = memchr(s, '\n', len - *off);
	*llen = nl ? (size_t)(nl - s) : len - *off;
	*off += *llen + 1;
	if (*llen && s[*llen - 1] == '\r')
		(*llen)--;
	return s;
}

/*
 * Content check: a tracefs header ("# tracer:"), trace-cmd report's "cpus=N" first line,
 * or (trace_pipe, cut files) event lines making up most of the first lines.
 */
static bool ftext_probe(const char *head, size_t len)
{
	size_t off = 0, llen;
	const char *s;
	int events = 0, other = 0;
	bool first = true;

	while ((s = next_line(head, len, &off, &llen)) && events + other < PROBE_LINES) {
		struct line_hdr h;
		size_t rlen;
		const char *rest;
		uint64_t count;
		int cpu;

		if (llen > MAX_LINE || memchr(s, '\0', llen))
			return false;
		llen = rtrim(s, llen);
		if (!llen)
			continue;
		if (first) {
			first = false;
			if ((llen > 9 && !memcmp(s, "# tracer:", 9)) ||
			    (llen > 5 && !memcmp(s, "cpus=", 5) && all_digits(s + 5, llen - 5)))
				return true;
		}
		if (s[0] == '#')
			continue;
		rlen = llen;
		rest = strip_instance(s, &rlen);
		if (!parse_event_line(s, llen, &h) || !parse_lost(s, llen, &cpu, &count) ||
		    (rest && (!parse_event_line(rest, rlen, &h) ||
			      !parse_lost(rest, rlen, &cpu, &count))))
			events++;
		else if (off < len)	/* a cut last line of the window does not count */
			other++;
	}
	return events > 0 && events > other;
}

/* Settle info (cpus, tgid column, which text kind) from the lines already buffered. */
static void scan_head(struct ts_source *src, struct ftext *ft)
{
	size_t off = 0, llen;
	const char *s;
	bool seen_event = false;

	while ((s = next_line(src->buf, src->buf_len, &off, &llen)) && !seen_event) {
		char tmp[512];
		struct line_hdr h;
		size_t rlen;
		const char *rest;

		llen = rtrim(s, llen);
		if (!llen || llen >= sizeof(tmp) || memchr(s, '\0', llen))
			continue;
		memcpy(tmp, s, llen);
		tmp[llen] = '\0';
		if (meta_line(src, ft, tmp, llen))
			continue;
		if (strstr(tmp, "EVENTS DROPPED]"))
			ft->report = true;
		rlen = llen;
		rest = ft->tracefs_hdr ? NULL : strip_instance(tmp, &rlen);
		if (rest && !parse_event_line(rest, rlen, &h)) {
			ft->report = true;
			seen_event = true;
		} else if (!parse_event_line(tmp, llen, &h)) {
			seen_event = true;
		}
		if (seen_event && h.tgid_col)
			src->info.has_tgid = true;
	}
}

static int ftext_open(struct ts_source *src)
{
	struct ftext *ft = xcalloc(1, sizeof(*ft));

	src->priv = ft;
	scan_head(src, ft);
	src->info.detail = ft->report ? "trace-cmd report" : "tracefs trace";
	return 0;
}

static void ftext_close(struct ts_source *src)
{
	free(src->priv);
	src->priv = NULL;
}

const struct ts_format ts_format_ftrace_text = {
	.name = "ftrace-text",
	.probe = ftext_probe,
	.needs_file = false,
	.open = ftext_open,
	.next = ftext_next,
	.close = ftext_close,
};
