// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a format reader uses of its source (format.h): the message of a failure, the
 * records it passes over, and its input line by line.  The registry (source.c) opens and
 * drives the readers; this file calls none of them back.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "format.h"

/*
 * The longest line the text formats take: an ftrace line is a few hundred bytes and a JSON
 * line a few KiB; past this the input is not what it claims, and buffering it whole would
 * make memory follow the file.
 */
#define LINE_MAX_LEN	(1 << 20)
/*
 * Bytes asked of each read(): a system call cost about 2 us in a paravirtualized guest,
 * where 16 KiB reads made report of a JSON-lines file 9 % slower than 64 KiB ones, and
 * 256 KiB ones 1-2 % faster.
 */
#define READ_LEN	(256 << 10)

int ts_source_fail(struct ts_source *src, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	/* "<file>: <message>", the file name first as every message of tlbscope has it */
	n = strlcpy_ts(src->err, src->display, sizeof(src->err));
	if (n + 2 >= sizeof(src->err))
		return -1;
	memcpy(src->err + n, ": ", 3);
	va_start(ap, fmt);
	vsnprintf(src->err + n + 2, sizeof(src->err) - n - 2, fmt, ap);
	va_end(ap);
	return -1;
}

void ts_source_skip(struct ts_source *src, const char *fmt, ...)
{
	va_list ap;

	if (!src->skipped++) {
		va_start(ap, fmt);
		vsnprintf(src->first_skip, sizeof(src->first_skip), fmt, ap);
		va_end(ap);
	}
}

int ts_source_fill(struct ts_source *src)
{
	ssize_t n;

	if (src->line_start) {
		memmove(src->buf, src->buf + src->line_start, src->buf_len - src->line_start);
		src->buf_len -= src->line_start;
		src->line_start = 0;
	}
	ALLOC_GROW(src->buf, src->buf_len + READ_LEN + 1, src->buf_alloc);
	do
		n = read(src->fd, src->buf + src->buf_len, READ_LEN);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return ts_source_fail(src, "read error: %s", strerror(errno));
	if (!n)
		src->eof = true;
	src->buf_len += n;
	src->buf[src->buf_len] = '\0';	/* the spare byte: where ts_source_peek()'s scans stop */
	return 0;
}

char *ts_source_peek(struct ts_source *src, size_t *avail)
{
	*avail = src->buf_len - src->line_start;
	return src->buf ? src->buf + src->line_start : NULL;
}

void ts_source_take(struct ts_source *src, size_t len)
{
	src->line_start += len + 1;
	src->lineno++;
}

char *ts_source_getline(struct ts_source *src, size_t *len, bool *failed)
{
	*failed = false;
	for (;;) {
		char *start = src->buf + src->line_start;
		size_t avail = src->buf_len - src->line_start;
		char *nl = avail ? memchr(start, '\n', avail) : NULL;

		if (nl || (src->eof && avail)) {
			size_t l = nl ? (size_t)(nl - start) : avail;

			/* the buffer always has one spare byte past buf_len (see fill()) */
			start[l] = '\0';
			if (l && start[l - 1] == '\r')
				start[--l] = '\0';
			src->line_start += nl ? l + 1 + (start[l] == '\r') : avail;
			if (nl && start + l + 1 <= nl)	/* a stripped \r moved the end */
				src->line_start = (size_t)(nl - src->buf) + 1;
			src->lineno++;
			*len = l;
			return start;
		}
		if (src->eof)
			return NULL;
		if (avail > LINE_MAX_LEN) {
			ts_source_fail(src, "%s %llu: longer than %d KiB, not a trace line",
				       ts_source_line(src), (unsigned long long)src->lineno + 1,
				       LINE_MAX_LEN >> 10);
			*failed = true;
			return NULL;
		}
		if (ts_source_fill(src)) {
			*failed = true;
			return NULL;
		}
	}
}
