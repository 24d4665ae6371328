/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the trace.dat checks: tracedat-check.c walks the headers, tracedat-sections.c
 * the content of their sections, tracedat-data.c the ring-buffer data they point at
 * (sub-buffers, compressed chunks).
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_CHECK_H
#define TLBSCOPE_PARSERS_TRACEDAT_CHECK_H

#include <stdbool.h>
#include <stdint.h>

#include <zstd.h>

#include <event-parse.h>

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

/*
 * Where each buffer's per-CPU ring-buffer data lies, as the checks found it (the parent's
 * walk), for a reader of the sub-buffers themselves (tracedat.c).  @direct is false when
 * the file says something that reader does not do as libtracecmd does: compressed options,
 * or timestamps the library corrects (options DATE, OFFSET, TIME_SHIFT, GUEST, TSC2NSEC).
 */
struct tdc_buffer {
	char name[64];			/* "" the top level */
	uint32_t page_size;
	bool compressed;		/* its CPUs' data in compressed chunks */
	int ncpus;			/* entries in cpu[], in the file's order */
	struct tdc_cpu {
		uint64_t cpu, off, size;	/* compressed: off is the chunk count's */
		uint64_t usize;		/* compressed: the bytes its chunks inflate to */
		/*
		 * sub-buffers after the first, or chunks after the first, left to the
		 * reader
		 */
		bool unchecked;
	} *cpu;
};

/*
 * Text of the file kept or located by the checks for a reader that builds its own
 * libtraceevent handle (tracedat-tep.c) instead of libtracecmd's open, which parses every
 * event format and all of kallsyms for the dozen events a trace uses.
 */
struct tdc_format {		/* one event format, its text in tdc_meta.arena */
	uint64_t sys, text, len;	/* arena offsets of its system's name and its text */
	uint64_t name;		/* arena offset of its "name:" ("" none) */
	uint64_t at;		/* where it is in the file (its compressed section's), for messages */
	int id;			/* its "ID:" (-1 none) */
	bool probe;		/* it has a __probe_ip field: a kprobe, parsed before any record */
	bool known;		/* the decoder reads its fields (tp_known()): parsed at once */
	bool parsed;
};

struct tdc_text {		/* a section's text, located: read when first asked for */
	bool found;
	bool z;			/* in the compressed section at @off (its header) */
	uint64_t off;		/* the text, or the compressed section's header */
	uint64_t zsize;		/* compressed: the section's bytes after its header */
	uint64_t pos, len;	/* the text's place in the (inflated) content, and bytes */
};

struct tdc_meta {
	bool want;		/* set by the caller: collect all this */
	char *arena;		/* format texts and system names, NUL-terminated */
	size_t arena_len, arena_alloc;
	struct tdc_format *fmt;
	size_t nfmt, fmt_alloc;
	int32_t *byid;		/* fmt[] index by ID, -1 none (tracedat-tep.c's) */
	size_t nbyid;
	struct tdc_ksyms *ksyms;	/* kallsyms as tracedat-tep.c reads them, NULL not */
	int type_off, type_size;	/* common_type in a record, from the first format (-1 unknown) */
	char header_page[1024];
	uint64_t header_page_len;	/* 0: none seen */
	struct tdc_text kallsyms, cmdlines;
	char uname[256];	/* option UNAME ("" none) */
	int cpus;		/* the CPU count libtracecmd would give (0 unknown) */
};

struct tdc_layout {
	/*
	 * Set by the caller: the checks look at each CPU's first sub-buffer only (the one
	 * libtracecmd loads as it opens the file) and leave the others' commits to the reader:
	 * tdc_check_subbuffer() as it loads each, or tdc_check_subbuffers() before the
	 * library reads them.  A header read per sub-buffer was a sixth of a 2 GB file's time.
	 */
	bool defer_pages;
	bool direct;
	int version;			/* 6 or 7, for the messages */
	bool big;			/* big-endian file */
	int lsize;			/* bytes in the recorded kernel's long */
	int algo;			/* Z_*: the file's compression */
	uint64_t size;			/* the file's bytes */
	int nbuf;
	struct tdc_buffer *buf;
	struct tdc_meta meta;
};

void tdc_layout_release(struct tdc_layout *l);
/*
 * The commit of sub-buffer @page of @buffer's CPU @cpu, whose header (timestamp, commit) is
 * at @hdr: 0, or -1 with the checks' message on @src.
 */
int tdc_check_subbuffer(struct ts_source *src, const struct tdc_layout *l, const char *buffer,
			uint64_t cpu, uint64_t page, const unsigned char *hdr, uint32_t page_size);
/* Every sub-buffer the checks left unchecked, of @buffer ("" the top level; NULL: all). */
int tdc_check_subbuffers(struct ts_source *src, int fd, const struct tdc_layout *l,
			 const char *buffer);

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
};

/* tracedat-check.c: reading the file at the cursor, bounded by its size */
int tdc_bad(struct cur *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int tdc_num(struct cur *c, int bytes, uint64_t *v, const char *what);
bool tdc_inside(const struct cur *c, uint64_t off, uint64_t len);
uint64_t tdc_swap(const struct cur *c, uint64_t v, int bytes);

/*
 * An event format of @len bytes at @off (for the messages): parsed in the child, noted in the
 * layout's meta when it wants it, else passed.
 */
int tdc_format_text(struct cur *c, const char *sys, const char *text, uint64_t len, uint64_t off);
/* Does the caller want the text of formats (the child's parse, or the layout's meta)? */
bool tdc_wants_formats(const struct cur *c);
/* Where the text of kallsyms or cmdlines (@t) is: see struct tdc_text. */
void tdc_text_note(struct cur *c, struct tdc_text *t, bool z, uint64_t off, uint64_t zsize,
		   uint64_t pos, uint64_t len);
/* The text @t located, read (inflated) into a new NUL-terminated buffer, or NULL (message on @src). */
char *tdc_text_read(struct ts_source *src, int fd, const struct tdc_layout *l,
		    const struct tdc_text *t, const char *what);

/* tracedat-sections.c: 0, or -1 with the message on the source; @where names the text */
int tdc_check_header_page(struct cur *c, const char *where, const char *text, uint64_t len);
int tdc_check_printk(struct cur *c, const char *where, const char *text, uint64_t len);
/* v7: the section whose offset the option @id at the cursor gives (the cursor passes it) */
int tdc_check_section_ref(struct cur *c, uint16_t id);

/* tracedat-data.c */
/*
 * The compressed chunk @i of @buffer's CPU @cpu whose header is at *@at, the CPU's data
 * ending at @end: its sizes bounded, and with @inflate inflated into c->out (c->out_len
 * bytes, 8 more allocated: ringbuf.h's walk reads past a sub-buffer) and the commits of its
 * sub-buffers checked, numbered from *@page.  *@at and *@page move past it either way.
 * 0, or -1 with the message on c->src.
 */
int tdc_chunk_read(struct cur *c, const char *buffer, uint64_t cpu, uint64_t i, uint64_t *at,
		   uint64_t end, uint32_t page_size, uint64_t *page, bool inflate);
/* A reader's cursor on the file of @l (fd @fd): its sizes and compression; release it with
 * tdc_cur_release(). */
void tdc_cur_init(struct cur *c, struct ts_source *src, int fd, const struct tdc_layout *l);
void tdc_cur_release(struct cur *c);
/* One CPU's data: inside the file, whole sub-buffers (inflated when compressed), sane commits */
int tdc_check_cpu_data(struct cur *c, const char *buffer, uint64_t cpu, uint64_t off,
		       uint64_t size, uint32_t page_size, bool compressed);
/* A compressed section's content at the cursor (@size bytes): sizes, then a block that inflates */
int tdc_check_zsection(struct cur *c, uint64_t size, const char *what);

/*
 * tracedat-tep.c: the reader's libtraceevent handle built from the layout's meta, formats
 * parsed as their records come.  tdc_tep_possible(): the meta has what it takes.
 * tdc_tep_new(): a new handle (tep_free() it), or NULL with the message on @src.
 * tdc_tep_event(): the event of @rec, whose type is @type (-1: read here), its format
 * parsed if it was not.  tdc_tep_load(): the saved command lines, or kallsyms (@syms), into
 * @tep; 0 or -1.
 */
bool tdc_tep_possible(const struct tdc_layout *l);
struct tep_handle *tdc_tep_new(struct ts_source *src, struct tdc_layout *l);
struct tep_event *tdc_tep_event(struct ts_source *src, struct tdc_layout *l,
				struct tep_handle *tep, const struct tep_record *rec, int type);
int tdc_tep_load(struct ts_source *src, int fd, struct tdc_layout *l, struct tep_handle *tep,
		 bool syms);
/*
 * kallsyms as tracedat-tep.c reads them: tdc_ksyms_new() a table of @text (copied), NULL
 * when a line's shape is for libtraceevent's own parse; tdc_ksyms_find() the name of the
 * function that holds *@addr (set to its start), as tep_find_function() gives it after
 * tep_parse_kallsyms(), or NULL; tdc_ksyms_free() after tep_free() of a handle it served.
 */
struct tdc_ksyms *tdc_ksyms_new(const char *text);
const char *tdc_ksyms_find(const struct tdc_ksyms *k, unsigned long long *addr);
void tdc_ksyms_free(struct tdc_ksyms *k);

#endif
