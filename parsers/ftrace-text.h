/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the ftrace text reader (ftrace-text.c: lines and their header columns;
 * ftrace-fields.c: an event's fields read out of its printed text).
 */
#ifndef TLBSCOPE_PARSERS_FTRACE_TEXT_H
#define TLBSCOPE_PARSERS_FTRACE_TEXT_H

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

static inline size_t rtrim(const char *s, size_t len)
{
	while (len && is_blank(s[len - 1]))
		len--;
	return len;
}

static inline bool all_digits(const char *s, size_t len)
{
	if (!len)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]))
			return false;
	return true;
}

/* Decimal span -> int; 0 ok, -1 not a number or too long. */
static inline int span_int(const char *s, size_t len, int *out)
{
	char tmp[24];

	if (!len || len >= sizeof(tmp))
		return -1;
	memcpy(tmp, s, len);
	tmp[len] = '\0';
	return parse_int(tmp, out);
}

static inline int span_u64(const char *s, size_t len, int base, uint64_t *out)
{
	char tmp[32];

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

struct text_fields {
	const char *event;
	const char *payload;
	bool plugin;
	bool report;		/* trace-cmd report: libtraceevent prints cpumasks as lists */
	struct plugin_switch sw;
	char names[512];	/* ftext_list(): the keys of the payload, NUL-separated */
};

/* "72.463764" (usec) or "72.463764123" (ns) -> ns, exactly; 0 ok, -1 malformed. */
int ftext_parse_ts(const char *s, size_t len, uint64_t *ns);

/* ftrace-fields.c: the getters of struct tp_fields over a line's text (ctx: text_fields) */
int ftext_num(void *ctx, const char *field, int64_t *val);
int ftext_str(void *ctx, const char *field, char *buf, size_t size);
int ftext_sym(void *ctx, const char *field, char *buf, size_t size);
int ftext_mask(void *ctx, const char *field, struct ts_cpumask *m);
int ftext_list(void *ctx, const char **names, int *sizes, int max);
/* "bash:2759 [120] S ==> swapper/0:0 [120]" (trace-cmd's sched_switch plugin); 0 or -1 */
int ftext_parse_plugin_switch(const char *p, struct plugin_switch *sw);

#endif
