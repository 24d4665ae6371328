/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Reading a trace.dat at a cursor, each read bounded by the file's size: what the checks
 * (tracedat-check.c the headers, tracedat-sections.c their sections' content,
 * tracedat-data.c the ring-buffer data) and the reader of compressed chunks share, with
 * the numbers of trace-cmd.dat(5) they read.
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_CUR_H
#define TLBSCOPE_PARSERS_TRACEDAT_CUR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <zstd.h>

#include "format.h"

/* option ids of trace-cmd.dat(5) that carry numbers the library uses to size or seek */
enum {
	OPT_DONE = 0, OPT_DATE = 1, OPT_BUFFER = 3, OPT_UNAME = 5, OPT_OFFSET = 7, OPT_CPUCOUNT = 8,
	OPT_TIME_SHIFT = 12, OPT_GUEST = 13, OPT_TSC2NSEC = 14, OPT_STRINGS = 15,
	OPT_HEADER_INFO = 16, OPT_FTRACE_EVENTS = 17, OPT_EVENT_FORMATS = 18, OPT_KALLSYMS = 19,
	OPT_PRINTK = 20, OPT_CMDLINES = 21, OPT_BUFFER_TEXT = 22,
};
#define SEC_FL_COMPRESS	1		/* a v7 section's flag: its content is compressed */
#define MAX_STRING	4096		/* system, buffer and clock names */
#define MAX_FORMAT	(1u << 20)	/* one event's format text */
#define MAX_RATIO	4096		/* no block inflates more than this */
#define MAX_BLOCK	(64u << 20)	/* nor past this (trace-cmd writes ~40 KiB chunks) */

enum { Z_NONE, Z_ZSTD, Z_ZLIB };

struct tdc_layout;
struct tep_handle;

struct cur {
	struct ts_source *src;
	int fd;
	uint64_t size;		/* the file's */
	uint64_t off;		/* where the next read starts */
	bool big;		/* big-endian file */
	int version;
	uint32_t page_size;
	int lsize;		/* bytes in the recorded kernel's long */
	bool compressed;	/* v7: CPU data in compressed chunks, not whole sub-buffers */
	int algo;		/* Z_* */
	ZSTD_DCtx *zstd;
	struct tep_handle *tep;	/* in the child: event formats parsed one by one */
	int note_fd;		/* in the child: where it says what it reads next */
	char *in, *out;		/* compressed block read, inflated (reused) */
	size_t in_alloc, out_alloc, out_len;
	struct tdc_layout *layout;	/* in the parent: where the data lies, NULL not asked */
	bool header_info;	/* v7: an option HEADER_INFO was seen (the library needs one) */
	/*
	 * The bytes read last, for the small reads of a walk of the headers (NULL: each read
	 * its own pread()); shared by the cursor's copies, whose reads move it.
	 */
	struct cur_win *win;
};

/*
 * A window of the file: the headers' thousands of small fields (an x86 kernel's 1,600
 * event formats, each a size and a text) read 64 KiB at a time, not with a system call
 * each (11 us apiece on a virtual machine: 4,900 of them were a quarter of a report).
 */
#define CUR_WIN_SIZE	(64u << 10)
struct cur_win {
	char *buf;		/* CUR_WIN_SIZE bytes */
	uint64_t off;		/* the file offset of buf[0] */
	size_t len;		/* bytes of the file there */
};

/* @n bytes at file offset @off into @buf through c->win: pread()'s result. */
ssize_t tdc_pread(struct cur *c, void *buf, size_t n, uint64_t off);

/* Names read from a corrupt file reach a message on one line: control characters as '?'. */
char *tdc_printable(char *s);
/* 0, or -1 with the message on c->src: "corrupt trace.dat vN: " and the message */
int tdc_bad(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* @n bytes at the cursor into @buf, the cursor past them; @what names them in the message */
int tdc_get(struct cur *c, void *buf, size_t n, const char *what);
/* A little- or big-endian number of @bytes (2, 4, 8) at the cursor. */
int tdc_num(struct cur *c, int bytes, uint64_t *v, const char *what);
/* The cursor moved @n bytes on, inside the file. */
int tdc_skip(struct cur *c, uint64_t n, const char *what);
/* A NUL-terminated string at the cursor, at most MAX_STRING bytes; copied to @buf (NULL: not). */
int tdc_cstr(struct cur *c, char *buf, size_t len, const char *what);
/* Does [@off, @off + @len) lie inside the file? */
bool tdc_inside(const struct cur *c, uint64_t off, uint64_t len);
/* @v of @bytes in the file's byte order, as the host's */
uint64_t tdc_swap(const struct cur *c, uint64_t v, int bytes);
/*
 * In the child of tracedat_check(): say what is read next, so that the parent can name it
 * if the library dies reading it.  A no-op in the parent.
 */
void tdc_note(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
