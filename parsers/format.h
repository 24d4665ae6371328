/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to parsers/: the interface every format reader implements, the shared line
 * reader used by the text formats, and the tracepoint decoder that turns one tracepoint's
 * fields - however a format gets at them - into a normalized event.
 */
#ifndef TLBSCOPE_PARSERS_FORMAT_H
#define TLBSCOPE_PARSERS_FORMAT_H

#include "parsers.h"

struct strtab;

struct ts_format {
	const char *name;
	/* Does this content look like ours?  @head: the first @len bytes of the input. */
	bool (*probe)(const char *head, size_t len);
	/* Needs a seekable file (stdin is then spooled to a temporary file first). */
	bool needs_file;
	/* 0 ok, -1 with ts_source_fail() called */
	int (*open)(struct ts_source *src);
	/* 1 event, 0 end (endless: nothing right now), -1 bad input with ts_source_fail() called */
	int (*next)(struct ts_source *src, struct ts_event *ev);
	bool endless;			/* a live input: next() never ends it */
	/*
	 * Optional: the first and last timestamps of the records left, read without decoding
	 * them (the source is spent after); 1 some, 0 none, -1 bad input (ts_source_fail()).
	 * Without it, ts_source_span() reads the events.
	 */
	int (*span)(struct ts_source *src, uint64_t *first, uint64_t *last);
	/* Optional: ts_source_only()'s; without it every event is returned still. */
	bool (*only)(struct ts_source *src, uint32_t kinds);
	void (*close)(struct ts_source *src);
	/*
	 * Optional: what its line numbers count, for a reader of text it runs a program for
	 * ("perf script line"); without it "line".
	 */
	const char *lines;
};

extern const struct ts_format ts_format_tracedat;
/*
 * tracedat-check.c: the headers of the trace.dat open as @fd bounded by its size, and with
 * @libraries what libtracecmd makes of them in a child process; 0 or -1.  @layout (may be
 * NULL): where its ring-buffer data lies (struct tdc_layout), to be released with
 * tdc_layout_release().  tracedat_died(): the message when the libraries died on it.
 */
struct tdc_layout;
int tracedat_check(struct ts_source *src, int fd, struct tdc_layout *layout, bool libraries);
int tracedat_died(struct ts_source *src, int fd, bool hung, const char *last);
/*
 * tracedat-guard.c: when the program asked for it (ts_tracedat_guard_here()), the
 * library's steps between tracedat_guard() and tracedat_unguard() run in this process,
 * a crash or hang in them ending the run with the message of tracedat_died().
 */
bool tracedat_guarded_here(void);
void tracedat_guard(struct ts_source *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void tracedat_unguard(void);
extern const struct ts_format ts_format_ftrace_text;
extern const struct ts_format ts_format_jsonl;
extern const struct ts_format ts_format_perf_text;
extern const struct ts_format ts_format_perf_data;

struct ts_source {
	const struct ts_format *fmt;
	const char *path;		/* as given; "-" for stdin */
	char *display;			/* name used in messages ("<stdin>" for "-") */
	int fd;
	bool spooled;			/* fd is an unlinked copy of a stream (stdin, FIFO):
					 * reopen it as /proc/self/fd/N, not by path */
	/* line reader (text formats) */
	char *buf;
	size_t buf_len, buf_alloc, line_start;
	bool eof;
	uint64_t lineno;		/* 1-based number of the line last returned */
	struct strtab *strs;
	struct ts_source_info info;
	char err[TS_ERR_LEN];
	uint64_t skipped;		/* malformed records passed over */
	char first_skip[160];
	uint8_t *tpk;			/* per event name id: how it decodes (tracepoints.c) */
	size_t ntpk;
	uint8_t *tlbfn;			/* per string id: a TLB-flush function? 0 not asked */
	size_t ntlbfn;
	struct ts_probe *probes;	/* kprobe events met (probes.c) */
	size_t nprobes, probes_alloc;
	void *priv;			/* the format's own state */
	struct ts_checker *checker;	/* validate.c's per-CPU state, made at first use */
	uint64_t checked[TS_CHK__COUNT];	/* records of each class of enum ts_check */
	char check_first[TS_CHK__COUNT][160];
};

/*
 * validate.c: 1 when @ev (just read) is to be returned, 0 when it is skipped; either way
 * counted in src->checked[] when a check failed, names escaped in place.
 */
int ts_check_event(struct ts_source *src, struct ts_event *ev);
/*
 * The input ended: what ts_check_event() kept waiting (a switch an exec might still explain)
 * is counted now.
 */
void ts_check_end(struct ts_source *src);
/* @s (not UTF-8) escaped as \\xNN, new (free()); counted as TS_CHK_UTF8 with its place. */
char *ts_check_escape(struct ts_source *src, const char *s);
void ts_checker_free(struct ts_checker *k);

/*
 * A pid the input gave, as the event holds it: out of the kernel's range (negative, 2^22
 * or more, past 32 bits) it becomes INT32_MIN, which the check of every event skips and
 * counts, instead of wrapping into a real pid (4294967296 into 0, the idle task).
 */
static inline int32_t ts_pid(int64_t v)
{
	return v >= 0 && v < TS_PID_LIMIT ? (int32_t)v : INT32_MIN;
}

/* reader.c: what a reader uses of its source */
/* "line", or what the format's line numbers count (ts_format.lines), before a number. */
static inline const char *ts_source_line(const struct ts_source *src)
{
	return src->fmt && src->fmt->lines ? src->fmt->lines : "line";
}
/* Record the failure message "<file>: <fmt...>"; always returns -1. */
int ts_source_fail(struct ts_source *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Count a malformed record; the first one's place and reason are kept for the report. */
void ts_source_skip(struct ts_source *src, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Next line without its newline, NUL-terminated and writable; valid until the next call.
 * Returns NULL at the end or on a read error (then src->err is set and returns NULL with
 * *@failed = true).
 */
char *ts_source_getline(struct ts_source *src, size_t *len, bool *failed);
/*
 * The input buffered past the last line taken, *@avail bytes of it (NUL-terminated: a
 * scan of it stops there), for a reader that finds a line's end as it parses it; then
 * ts_source_take() of the @len bytes of the line and its newline, which counts it as
 * ts_source_getline() would have.  Nothing is read: at 0 bytes or a line not whole in
 * them, ts_source_getline().
 */
char *ts_source_peek(struct ts_source *src, size_t *avail);
void ts_source_take(struct ts_source *src, size_t len);
/* Read more input into the line buffer; 0 ok (maybe eof), -1 read error (said). */
int ts_source_fill(struct ts_source *src);

/*
 * How a format hands a tracepoint's fields to the decoder.  Each getter returns 0 when the
 * field exists and was converted, -1 when the event has no such field.
 */
struct tp_fields {
	void *ctx;
	int (*num)(void *ctx, const char *field, int64_t *val);
	int (*str)(void *ctx, const char *field, char *buf, size_t len);
	/* name of the kernel function a pointer field points at, without +offset */
	int (*sym)(void *ctx, const char *field, char *buf, size_t len);
	int (*mask)(void *ctx, const char *field, struct ts_cpumask *m);
	/*
	 * The event's own fields in order (not the common_ ones, not __probe_ip): names
	 * borrowed until the next record, sizes in bytes (0 unknown); at most @max, -1 when
	 * the format cannot tell.  May be NULL.
	 */
	int (*list)(void *ctx, const char **names, int *sizes, int max);
	/*
	 * sym() as the source's string id (0: no symbol), from a cache when the reader keeps
	 * one (trace.dat: by address).  May be NULL: then sym() and an intern.
	 */
	uint32_t (*sym_id)(void *ctx, const char *field);
	/*
	 * The fields of a frequent event at once: the numbers named by @names[0..nn), then
	 * the strings named by the @ns names after them into @strs (each of @len bytes), as
	 * num() and str() give them.  @names is a static array: its address is the key of a
	 * plan the reader keeps per event.  1 when it read them all; 0 when it cannot (a field
	 * missing, dynamic, an array, past the record), and then nothing is to be taken from
	 * it: the single getters say what there is.  May be NULL.
	 */
	int (*many)(void *ctx, const char *const *names, int nn, int64_t *vals, int ns,
		    char **strs, size_t len);
	uint32_t name_id;	/* the event name's string id when the reader has it, else 0 */
};

/*
 * The fields of one binary ring-buffer record through libtraceevent (tep-fields.c), for
 * the trace.dat and live readers.  Set tep, cache (may be NULL), bigendian once, event and
 * rec per record; tep_fields_bind() makes the getters tp_decode() calls, and a reader's
 * later records take tep-fields.h's inline tep_fields_rebind() (with tep_event_of() and
 * tep_record_pid() there).
 */
struct tep_handle;
struct tep_event;
struct tep_record;
struct tep_format_field;

#define TEP_FIELD_CACHE	256
#define TEP_SYM_CACHE	1024
#define TEP_EVENT_CACHE	256
#define TEP_PLAN_FIELDS	6
#define TEP_DIRECT_FIELDS	4

struct tep_field_cache {
	struct tep_field_slot {
		const struct tep_event *event;
		const char *name;		/* tracepoints.c's literal: compared by address */
		struct tep_format_field *field;	/* NULL: the event has no such field */
	} slot[TEP_FIELD_CACHE];
	/* kernel addresses already resolved: callsites and callbacks repeat endlessly */
	struct tep_sym_slot {
		unsigned long long addr;
		const char *func;		/* libtraceevent's string, NULL: no symbol */
		uint32_t id;			/* func interned in the source, 0 not yet */
		bool used;
	} sym[TEP_SYM_CACHE];
	/* events by type id: libtraceevent's lookup is a binary search when the type changes */
	struct tep_event_slot {
		int type;
		bool used;
		struct tep_event *event;	/* NULL: no such event */
		/* many()'s plan for its names: where each field lies, 0 bytes: no plan */
		const char *const *plan_names;
		int plan_end;			/* the bytes a record needs for all of them */
		struct tep_plan_field {
			int off, size;
			bool sign;
		} plan[TEP_PLAN_FIELDS];
		/*
		 * the event's name interned, 0 not yet (interning the same few names per
		 * record is a hash lookup)
		 */
		uint32_t name_id;
		/* single numbers asked by name (tep-fields.c, direct_of()), size 0: not plain */
		int ndirect;
		struct tep_direct_field {
			const char *name;	/* tracepoints.c's literal: compared by address */
			int off, size;
			bool sign;
		} direct[TEP_DIRECT_FIELDS];
	} ev[TEP_EVENT_CACHE];
	struct tep_event_slot *last;	/* the slot of the event tep_event_of() gave last */
	/*
	 * For a reader whose handle parses formats and symbols when first needed (trace.dat):
	 * lazy_event(lazy_ctx, rec, type) the event of a type the handle does not know yet
	 * (type -1: the first record, before the handle knows any), lazy_syms(lazy_ctx) once
	 * before the first symbol is looked up.  NULL: the handle has everything.
	 */
	struct tep_event *(*lazy_event)(void *ctx, struct tep_record *rec, int type);
	void (*lazy_syms)(void *ctx);
	void *lazy_ctx;
	bool syms_asked;
	/* where records hold common_type and common_pid (tep-fields.c), once asked */
	bool common_asked, common_ok;
	bool common_big;		/* the file's byte order (tep_is_file_bigendian()) */
	int type_off, type_size, pid_off;
};

struct tep_fields {
	struct tep_handle *tep;
	struct tep_field_cache *cache;	/* borrowed, may be NULL */
	bool bigendian;			/* byte order of the recorded kernel */
	struct tep_event *event;
	struct tep_record *rec;
	struct ts_source *src;		/* set by tep_fields_bind(): sym_id() interns there */
	struct tep_event_slot *slot;	/* event's in cache, known at a rebind; NULL: look */
};

/* Also sets f->name_id from the cache, interning @c's event name in @src on a miss. */
void tep_fields_bind(struct tp_fields *f, struct tep_fields *c, struct ts_source *src);

/*
 * The probe of kprobe event @name (@name_id its string id) in @src, resolved from @f (its
 * __probe_ip symbol and its fields) the first time.  A format that defines the event before
 * any record passes @f with no sym getter (list only, or NULL): the function is then found
 * by name, and found again at the first record.  Never NULL; owned by @src.
 */
struct ts_probe *ts_probe_resolve(struct ts_source *src, const char *name, uint32_t name_id,
				  const struct tp_fields *f);
void ts_probe_release_all(struct ts_source *src);

/* Is @name a tracepoint tp_decode() reads fields of by its name? */
bool tp_known(const char *name);
/*
 * The field cross-call tracepoint @name (csd_queue_cpu, csd_function_entry, ipi_send_cpu,
 * ipi_send_cpumask) names its function in, the one tp_decode() reads u.ipi.func from;
 * NULL for other events.  A kprobe of such a name (it has __probe_ip) decodes otherwise.
 */
const char *tp_call_field(const char *name);
/*
 * tp_decode - fill @ev's kind and payload from tracepoint @name's fields
 * @ev must already hold ts, cpu, pid, tgid, comm.  Unknown tracepoints become
 * TS_EV_OTHER.  Returns 0, or -1 when a known tracepoint lacks a field it must have
 * (a message is then in @why, of @why_len bytes).
 */
int tp_decode(struct ts_source *src, const char *name, const struct tp_fields *f,
	      struct ts_event *ev, char *why, size_t why_len);

#endif
