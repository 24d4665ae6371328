/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to parsers/: an event's printed text read (ftrace-fields.c) - its fields by
 * name, numbers, timestamps, trace-cmd's sched_switch line - for the readers of text that
 * ftrace prints: the ftrace text reader (ftrace-text.c, a line's header columns) and perf
 * script's (perf.c).  Nothing here calls back into them.
 */
#ifndef TLBSCOPE_PARSERS_FTRACE_FIELDS_H
#define TLBSCOPE_PARSERS_FTRACE_FIELDS_H

#include <ctype.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

#define VAL_LEN		256	/* longest field value kept (filenames are cut there) */

/* ---- small span helpers ---- */

static inline bool is_blank(int c)
{
	return c == ' ' || c == '\t';
}

/*
 * isdigit(), isalnum(), islower() without a call and a table lookup per byte: ASCII is
 * classified alike in every locale; other bytes are still the locale's to judge.
 */
static inline bool is_dig(int c)
{
	return (unsigned)c - '0' < 10;
}

static inline bool is_lower(int c)
{
	return c < 0x80 ? (unsigned)c - 'a' < 26 : islower(c);
}

static inline bool is_alnum(int c)
{
	return c < 0x80 ? (unsigned)(c | 0x20) - 'a' < 26 || is_dig(c) : isalnum(c);
}

#define SPACES8	0x2020202020202020ULL	/* eight ' ' in a word */

/* Eight ' ' at @s?  The columns of trace-cmd report are padded with long runs of them. */
static inline bool spaces8(const char *s)
{
	uint64_t w;

	memcpy(&w, s, 8);
	return w == SPACES8;
}

/*
 * The ' ' bytes that end (@tail) or start the word at @s: the zero bytes of w ^ SPACES8 at
 * its high or low end, counted by one bit scan on a little-endian machine (0 elsewhere: the
 * callers' byte loops then count them).  @s's word is not all spaces.
 */
static inline size_t spaces_in8(const char *s, bool tail)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	uint64_t w;

	memcpy(&w, s, 8);
	w ^= SPACES8;
	return (size_t)(tail ? __builtin_clzll(w) : __builtin_ctzll(w)) / 8;
#else
	(void)s;
	(void)tail;
	return 0;
#endif
}

static inline size_t rtrim(const char *s, size_t len)
{
	while (len >= 8 && spaces8(s + len - 8))
		len -= 8;
	if (len >= 8)
		len -= spaces_in8(s + len - 8, true);
	while (len && is_blank(s[len - 1]))
		len--;
	return len;
}

/* The first non-blank at or after @i, before @len (@len when none). */
static inline size_t skip_blanks(const char *s, size_t i, size_t len)
{
	while (i + 8 <= len && spaces8(s + i))
		i += 8;
	if (i + 8 <= len)
		i += spaces_in8(s + i, false);
	while (i < len && is_blank(s[i]))
		i++;
	return i;
}

static inline bool all_digits(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!is_dig((unsigned char)s[i]))
			return false;
	return true;
}

/*
 * Plain digits -> value, the common case of every number on a line, without a copy or
 * strtoull: 0 when @s is 1 to 19 decimal digits (never overflows), -1 for anything else
 * (empty, signs, blanks, longer), which the callers hand to the checked parse_*() helpers
 * so that what those accept or reject stays theirs.  Example: dec_u64("120", 3, &v).
 */
static inline int dec_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len || len > 19)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned char)s[i] - '0';

		if (d > 9)
			return -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/*
 * As dec_u64() for hex: 1 to 16 hex digits after an optional "0x" (never overflows);
 * -1 for anything else ("0X", signs, blanks, longer), for parse_u64() to judge.
 */
static inline int hex_u64(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (len > 2 && s[0] == '0' && s[1] == 'x') {
		s += 2;
		len -= 2;
	}
	if (!len || len > 16)
		return -1;
	for (size_t i = 0; i < len; i++) {
		unsigned c = (unsigned char)s[i], d;

		if (c - '0' <= 9)
			d = c - '0';
		else if ((c | 0x20) - 'a' <= 5)
			d = (c | 0x20) - 'a' + 10;
		else
			return -1;
		v = v << 4 | d;
	}
	*out = v;
	return 0;
}

/* Decimal span -> int; 0 ok, -1 not a number or too long. */
static inline int span_int(const char *s, size_t len, int *out)
{
	char tmp[24];
	uint64_t v;

	if (len <= 9 && !dec_u64(s, len, &v)) {
		*out = (int)v;
		return 0;
	}
	if (!len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return parse_int(tmp, out);
}

static inline int span_u64(const char *s, size_t len, int base, uint64_t *out)
{
	char tmp[32];

	if (!(base == 10 ? dec_u64(s, len, out) : base == 16 ? hex_u64(s, len, out) : -1))
		return 0;
	if (!len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return parse_u64(tmp, base, out);
}

static inline int copy_out(const char *v, size_t len, char *buf, size_t size)
{
	if (!size)
		return -1;
	if (len >= size)
		len = size - 1;
	memcpy(buf, v, len);
	buf[len] = '\0';
	return 0;
}

/* trace-cmd's sched_switch plugin: "bash:2759 [120] S ==> swapper/0:0 [120]" */
struct plugin_switch {
	const char *prev_comm, *next_comm, *state;
	size_t prev_comm_len, next_comm_len, state_len;
	int prev_pid, next_pid;
};

#define TF_TOKENS	64	/* token starts of a payload indexed; past that, lookups scan */

/*
 * Where the tokens of a payload start (offset 0 and after every ' '), found in one pass at
 * the first field lookup (ftrace-fields.c): "key=" is then looked for at these places only.
 */
struct tf_index {
	bool done;
	bool full;		/* more than TF_TOKENS tokens: not used */
	int ntok;
	size_t len;		/* of the payload */
	uint32_t tok[TF_TOKENS];
};

struct text_fields {
	const char *event;
	const char *payload;	/* NUL-terminated */
	bool plugin;
	bool report;		/* trace-cmd report: libtraceevent prints cpumasks as lists */
	struct plugin_switch sw;
	struct tf_index idx;	/* idx.done false (zeroed) for each new payload */
	/*
	 * ftext_many()'s names of the sched_switch plugin's fields once checked, kept by the
	 * reader across lines (tp_decode() passes the same static array each time); NULL: the
	 * reader offers no many()
	 */
	const char *const **switch_names;
	char names[512];	/* ftext_list(): the keys of the payload, NUL-separated */
};

/* ten_to[n] = 10^n: a fraction of n digits is ten_to[9 - n] nanoseconds a unit */
extern const uint32_t ftext_ten_to[10];

/* "72.463764" (usec) or "72.463764123" (ns) -> ns, exactly; 0 ok, -1 malformed. */
int ftext_parse_ts(const char *s, size_t len, uint64_t *ns);

/* The getters of struct tp_fields over a line's text (ctx: text_fields) */
int ftext_num(void *ctx, const char *field, int64_t *val);
int ftext_str(void *ctx, const char *field, char *buf, size_t size);
int ftext_sym(void *ctx, const char *field, char *buf, size_t size);
int ftext_mask(void *ctx, const char *field, struct ts_cpumask *m);
int ftext_list(void *ctx, const char **names, int *sizes, int max);
/*
 * tp_fields.many for trace-cmd's sched_switch plugin line: its five fields at once, as
 * ftext_num() and ftext_str() give them; 0 for any other line or names.
 */
int ftext_many(void *ctx, const char *const *names, int nn, int64_t *vals, int ns,
	       char **strs, size_t len);
/* "bash:2759 [120] S ==> swapper/0:0 [120]" (trace-cmd's sched_switch plugin); 0 or -1 */
int ftext_parse_plugin_switch(const char *p, struct plugin_switch *sw);

#endif
