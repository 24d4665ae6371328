// SPDX-License-Identifier: GPL-2.0-only
/*
 * Tables that fit their width, htop style: every column has a drop rank, and when the
 * width is short the highest-ranked columns go first (or are narrowed first, as TASK is),
 * so that a column is shown whole or not at all.  What went is said by a marker line
 * ("+3 cols: MM PROC PID ..."), never by a header cut in the middle.  Used by the curses
 * screen (its width) and by batch snapshots (100 columns at most).
 */
#include <stdio.h>
#include <string.h>

#include "top-int.h"

/* The separator before a flex column: two spaces, one before every other column. */
static int sep_before(const struct top_col *c, int i, int first)
{
	if (i == first)
		return 0;
	return c[i].flex ? 2 : 1;
}

/* Characters of the line with the columns of @f, the flex column at its minimum width. */
static int used_width(const struct top_col *c, int n, const int *w)
{
	int used = 0, first = -1;

	for (int i = 0; i < n; i++) {
		if (!w[i])
			continue;
		if (first < 0)
			first = i;
		used += sep_before(c, i, first) + w[i];
	}
	return used;
}

void top_cols_fit(const struct top_col *c, int n, int width, struct top_fit *f)
{
	int used;

	memset(f, 0, sizeof(*f));
	f->n = n;
	for (int i = 0; i < n; i++)
		f->w[i] = c[i].width;
	/* ranks from the highest down: at each rank, first narrow, then drop */
	for (int rank = TOP_COL_RANK_MAX; rank > 0; rank--) {
		for (int i = n - 1; i >= 0; i--) {
			if (used_width(c, n, f->w) <= width)
				goto fitted;
			if (c[i].narrow_rank == rank && c[i].narrow && f->w[i] > c[i].narrow)
				f->w[i] = c[i].narrow;
		}
		for (int i = n - 1; i >= 0; i--) {
			if (used_width(c, n, f->w) <= width)
				goto fitted;
			if (c[i].drop_rank == rank && f->w[i]) {
				f->w[i] = 0;
				f->ndropped++;
			}
		}
	}
fitted:
	used = used_width(c, n, f->w);
	for (int i = 0; i < n; i++)
		if (c[i].flex && f->w[i] && used < width)
			f->w[i] += width - used;	/* the flex column takes what is left */
	f->width = used_width(c, n, f->w);
}

/* Append @s aligned in a cell of @w characters; text too long keeps w - 1 and a '~'. */
static size_t put_cell(char *buf, size_t len, size_t at, const char *s, int w, bool left)
{
	int slen = (int)strlen(s);
	int k;

	if (at >= len)
		return at;
	if (slen > w)
		k = snprintf(buf + at, len - at, "%.*s~", w - 1, s);
	else
		k = snprintf(buf + at, len - at, left ? "%-*s" : "%*s", w, s);
	return k < 0 ? at : at + (size_t)k;
}

size_t top_cols_line(const struct top_col *c, const struct top_fit *f, const char *const *cells,
		     char *buf, size_t len)
{
	size_t at = 0;
	int first = -1;
	bool flex_cells = false;

	buf[0] = '\0';
	for (int i = 0; i < f->n; i++) {
		const char *s = cells ? cells[i] : c[i].name;

		if (!f->w[i])
			continue;
		if (first < 0)
			first = i;
		for (int k = sep_before(c, i, first); k > 0 && at + 1 < len; k--)
			buf[at++] = ' ';
		buf[at] = '\0';
		/* a flex column's cells are drawn by the caller (a sparkline): only its header */
		if (c[i].flex && cells) {
			flex_cells = true;
			break;
		}
		at = put_cell(buf, len, at, s ? s : "", f->w[i], c[i].left);
	}
	/* no trailing blanks (a line's length is what it shows), unless a sparkline follows */
	while (!flex_cells && at > 0 && buf[at - 1] == ' ')
		buf[--at] = '\0';
	return at;
}

size_t top_cols_marker(const struct top_col *c, const struct top_fit *f, const char *why,
		       char *buf, size_t len)
{
	size_t at;
	int k;

	buf[0] = '\0';
	if (!f->ndropped)
		return 0;
	k = snprintf(buf, len, "+%d col%s:", f->ndropped, f->ndropped > 1 ? "s" : "");
	at = k < 0 ? 0 : (size_t)k;
	/* in the order they go: the first named is the least needed */
	for (int rank = TOP_COL_RANK_MAX; rank > 0; rank--)
		for (int i = f->n - 1; i >= 0; i--)
			if (c[i].drop_rank == rank && !f->w[i] && at < len) {
				k = snprintf(buf + at, len - at, " %s", c[i].name);
				at += k < 0 ? 0 : (size_t)k;
			}
	if (why && at < len) {
		k = snprintf(buf + at, len - at, " (%s)", why);
		at += k < 0 ? 0 : (size_t)k;
	}
	return at < len ? at : len - 1;
}

void top_fmt_count(char *buf, size_t len, int width, double v)
{
	static const char unit[] = " kMGTP";
	int u = 0;

	if (v < 0) {
		snprintf(buf, len, "-");
		return;
	}
	if (snprintf(buf, len, "%.0f", v) <= width)
		return;
	/* too many digits for the column: 1234567 in 6 is "1235k", in 4 "1.2M" */
	while (u < 5) {
		v /= 1000;
		u++;
		if (v < 9.95 && snprintf(buf, len, "%.1f%c", v, unit[u]) <= width)
			return;
		if (snprintf(buf, len, "%.0f%c", v, unit[u]) <= width)
			return;
	}
	snprintf(buf, len, "%.0f%c", v, unit[u]);
}

void top_elide_middle(char *dst, size_t size, const char *s, int width)
{
	size_t len = strlen(s), head, tail;

	if (width < 8)
		width = 8;
	if (len <= (size_t)width && len < size) {
		memcpy(dst, s, len + 1);
		return;
	}
	if ((size_t)width >= size)
		width = (int)size - 1;
	head = (size_t)(width - 3) / 3;
	tail = (size_t)width - 3 - head;
	snprintf(dst, size, "%.*s...%s", (int)head, s, s + len - tail);
}
