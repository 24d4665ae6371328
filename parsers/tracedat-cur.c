// SPDX-License-Identifier: GPL-2.0-only
/*
 * Reading a trace.dat at a cursor (struct cur), each read bounded by the file's size, each
 * failure a message naming what was read and where: the primitives of the checks and of
 * the reader of compressed chunks.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "tracedat-cur.h"

char *tdc_printable(char *s)
{
	for (char *p = s; *p; p++)
		if (((unsigned char)*p < 0x20 && *p != '\t') || *p == 0x7f)
			*p = '?';
	return s;
}

int tdc_bad(struct cur *c, const char *fmt, ...)
{
	char msg[TS_ERR_LEN - 64];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return ts_source_fail(c->src, "corrupt trace.dat v%d: %s", c->version, tdc_printable(msg));
}

ssize_t tdc_pread(struct cur *c, void *buf, size_t n, uint64_t off)
{
	struct cur_win *w = c->win;
	ssize_t r;

	if (!w || n > CUR_WIN_SIZE / 2)
		return pread(c->fd, buf, n, (off_t)off);
	if (off < w->off || off - w->off > w->len || n > w->len - (off - w->off)) {
		r = pread(c->fd, w->buf, CUR_WIN_SIZE, (off_t)off);
		if (r < 0)
			return r;
		w->off = off;
		w->len = (size_t)r;
		if (n > w->len)
			n = w->len;	/* short, as pread() would be */
	}
	memcpy(buf, w->buf + (off - w->off), n);
	return (ssize_t)n;
}

int tdc_get(struct cur *c, void *buf, size_t n, const char *what)
{
	ssize_t r;

	if (c->off > c->size || n > c->size - c->off)
		return tdc_bad(c, "%s at offset %llu runs past the end of the file (%llu bytes)", what,
			   (unsigned long long)c->off, (unsigned long long)c->size);
	r = tdc_pread(c, buf, n, c->off);
	if (r != (ssize_t)n)
		return ts_source_fail(c->src, "read error at offset %llu: %s",
				      (unsigned long long)c->off, r < 0 ? strerror(errno) : "short read");
	c->off += n;
	return 0;
}

uint64_t tdc_swap(const struct cur *c, uint64_t v, int bytes)
{
	uint64_t r = 0;

	if (!c->big)
		return v;
	for (int i = 0; i < bytes; i++)
		r = r << 8 | ((v >> (8 * i)) & 0xff);
	return r;
}

int tdc_num(struct cur *c, int bytes, uint64_t *v, const char *what)
{
	uint64_t raw = 0;

	if (tdc_get(c, &raw, bytes, what))	/* x86 and riscv hosts are little-endian */
		return -1;
	*v = tdc_swap(c, raw, bytes);
	return 0;
}

int tdc_skip(struct cur *c, uint64_t n, const char *what)
{
	if (c->off > c->size || n > c->size - c->off)
		return tdc_bad(c, "%s at offset %llu: %llu bytes, past the end of the file (%llu bytes)",
			   what, (unsigned long long)c->off, (unsigned long long)n,
			   (unsigned long long)c->size);
	c->off += n;
	return 0;
}

int tdc_cstr(struct cur *c, char *buf, size_t len, const char *what)
{
	char tmp[MAX_STRING];
	uint64_t avail = c->off < c->size ? c->size - c->off : 0;
	size_t n = avail < sizeof(tmp) ? (size_t)avail : sizeof(tmp);
	ssize_t r = n ? tdc_pread(c, tmp, n, c->off) : 0;
	char *nul = r > 0 ? memchr(tmp, '\0', (size_t)r) : NULL;

	if (!nul)
		return tdc_bad(c, "%s at offset %llu: no terminated string", what,
			   (unsigned long long)c->off);
	c->off += (uint64_t)(nul - tmp) + 1;
	if (buf)
		strlcpy_ts(buf, tmp, len);
	return 0;
}

bool tdc_inside(const struct cur *c, uint64_t off, uint64_t len)
{
	return off <= c->size && len <= c->size - off;
}

void tdc_note(struct cur *c, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	if (c->note_fd < 0)
		return;
	buf[0] = 'A';
	va_start(ap, fmt);
	n = vsnprintf(buf + 1, sizeof(buf) - 2, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	n = n + 1 > (int)sizeof(buf) - 2 ? (int)sizeof(buf) - 2 : n + 1;
	buf[n] = '\n';
	if (write(c->note_fd, buf, n + 1) < 0)
		c->note_fd = -1;
}
