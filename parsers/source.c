// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registry of input formats, content-based detection, stdin handling and the line
 * reader the text formats share.  Adding a format: one file and one line in formats[].
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "format.h"

/* Order matters: the first format whose probe accepts the content wins. */
static const struct ts_format *const formats[] = {
	&ts_format_tracedat,
	&ts_format_jsonl,
	&ts_format_ftrace_text,
	&ts_format_perf_data,
	&ts_format_perf_text,
};

#define PROBE_LEN	65536

/*
 * Copy a stream (stdin, a pipe, a FIFO; its first bytes already in src->buf) to an unlinked
 * temporary file that a reader opening a path (libtracecmd) can have as /proc/self/fd/N.
 */
static int spool_input(struct ts_source *src)
{
	char tmpl[] = "/tmp/tlbscope-stdin-XXXXXX";
	int fd = mkstemp(tmpl);
	size_t off = 0;

	if (fd < 0)
		return ts_source_fail(src, "cannot create a temporary file: %s", strerror(errno));
	unlink(tmpl);
	for (;;) {
		while (off < src->buf_len) {
			ssize_t w = write(fd, src->buf + off, src->buf_len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				close(fd);
				return ts_source_fail(src, "writing a temporary copy of the input: %s",
						      strerror(errno));
			}
			off += w;
		}
		if (src->eof)
			break;
		src->buf_len = off = 0;
		src->line_start = 0;
		if (ts_source_fill(src)) {
			close(fd);
			return -1;
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return ts_source_fail(src, "seek in temporary file: %s", strerror(errno));
	}
	src->buf_len = src->line_start = 0;
	src->eof = false;
	if (src->fd > 0)
		close(src->fd);
	src->fd = fd;
	src->spooled = true;
	return 0;
}

/* Not a regular file (a pipe, a FIFO, a character device): it can be read only once. */
static bool is_stream(int fd)
{
	struct stat st;

	return fstat(fd, &st) || !S_ISREG(st.st_mode);
}

bool ts_input_once(const char *path)
{
	struct stat st;

	return !strcmp(path, "-") || (!stat(path, &st) && !S_ISREG(st.st_mode));
}

struct ts_source *ts_source_open(const char *path, char *err)
{
	return ts_source_open_as(path, NULL, err);
}

struct ts_source *ts_source_open_as(const char *path, const char *name, char *err)
{
	struct ts_source *src = xcalloc(1, sizeof(*src));
	const struct ts_format *fmt = NULL;
	bool is_stdin = !strcmp(path, "-");
	size_t i, window;

	if (!name || !strcmp(name, "-"))
		name = is_stdin || name ? "<stdin>" : path;
	src->path = path;
	src->display = xstrdup(name);
	src->strs = strtab_new();
	src->fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0) {
		ts_source_fail(src, "cannot open: %s", strerror(errno));
		goto out_fail;
	}
	/* Fill the probe window: formats are recognized by content only. */
	while (!src->eof && src->buf_len < PROBE_LEN)
		if (ts_source_fill(src))
			goto out_fail;
	if (!src->buf_len) {
		ts_source_fail(src, "empty input");
		goto out_fail;
	}
	/* the window, though one read may have brought more */
	window = src->buf_len < PROBE_LEN ? src->buf_len : PROBE_LEN;
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i]->probe(src->buf, window)) {
			fmt = formats[i];
			break;
		}
	}
	if (!fmt) {
		ts_source_fail(src, "unrecognized format (expected trace.dat, ftrace text, "
			       "trace-cmd report text, perf.data, perf script text or tlbscope "
			       "JSON lines)");
		goto out_fail;
	}
	src->fmt = fmt;
	src->info.format = fmt->name;
	if (fmt->needs_file && (is_stdin || is_stream(src->fd)) && spool_input(src))
		goto out_fail;
	if (fmt->open(src))
		goto out_fail;
	return src;

out_fail:
	strlcpy_ts(err, src->err, TS_ERR_LEN);
	ts_source_close(src);	/* the format's close() undoes a partial open() */
	return NULL;
}

void ts_source_close(struct ts_source *src)
{
	if (!src)
		return;
	if (src->fmt && src->fmt->close)
		src->fmt->close(src);
	if (src->fd > 0)
		close(src->fd);
	ts_probe_release_all(src);
	ts_checker_free(src->checker);
	free(src->tpk);
	free(src->tlbfn);
	strtab_free(src->strs);
	free(src->buf);
	free(src->display);
	free(src);
}

int ts_source_next(struct ts_source *src, struct ts_event *ev)
{
	int r;

	do {
		memset(ev, 0, sizeof(*ev));
		r = src->fmt->next(src, ev);
	} while (r > 0 && !ts_check_event(src, ev));
	if (!r && !src->fmt->endless)
		ts_check_end(src);	/* (live: nothing right now, more to come) */
	return r;
}

int ts_source_span(struct ts_source *src, uint64_t *first, uint64_t *last)
{
	struct ts_event ev;
	bool some = false;
	int r;

	if (src->fmt->span)
		return src->fmt->span(src, first, last);
	*first = UINT64_MAX;
	*last = 0;
	while ((r = ts_source_next(src, &ev)) > 0) {
		some = true;
		if (ev.ts < *first)
			*first = ev.ts;
		if (ev.ts > *last)
			*last = ev.ts;
	}
	return r < 0 ? -1 : some;
}

uint64_t ts_source_checked(const struct ts_source *src, enum ts_check c, const char **first)
{
	if (c >= TS_CHK__COUNT) {
		if (first)
			*first = "";
		return 0;
	}
	if (first)
		*first = src->check_first[c];
	return src->checked[c];
}

bool ts_source_only(struct ts_source *src, uint32_t kinds)
{
	return src->fmt->only && src->fmt->only(src, kinds);
}

const char *ts_source_error(const struct ts_source *src)
{
	return src->err;
}

const struct ts_source_info *ts_source_info(const struct ts_source *src)
{
	return &src->info;
}

bool ts_source_defines(const struct ts_source *src, const char *event)
{
	for (size_t i = 0; i < src->info.nkprobes_defined; i++)
		if (!strcmp(src->info.kprobes_defined[i], event))
			return true;
	return false;
}

uint64_t ts_source_skipped(const struct ts_source *src, const char **first_where)
{
	if (first_where)
		*first_where = src->first_skip;
	return src->skipped;
}
