/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The ring-buffer data of a trace.dat (tracedat-data.c): where each buffer's per-CPU data
 * lies and what a reader needs of the headers (struct tdc_layout, filled by the checks'
 * walk), the checks of sub-buffers and compressed chunks, and the reading of a chunk.
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_DATA_H
#define TLBSCOPE_PARSERS_TRACEDAT_DATA_H

#include "tracedat-cur.h"

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

#endif
