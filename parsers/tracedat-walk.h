/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * One CPU's sub-buffers of a trace.dat read in order (tracedat-walk.c): read from the file
 * a chunk at a time, or inflated a compressed chunk at a time, and walked in place
 * (ringbuf.h).  The state of one CPU is touched by one thread only; what the CPUs share
 * (struct tdw_file) is read-only while they are read, so the CPUs of a file can be read by
 * as many threads (tracedat-jobs.c).
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_WALK_H
#define TLBSCOPE_PARSERS_TRACEDAT_WALK_H

#include <event-parse.h>

#include "ringbuf.h"
#include "tracedat-data.h"

/* What every CPU's reading of one buffer shares: set before the first read, then read-only. */
struct tdw_file {
	int fd;
	const struct tdc_layout *layout;	/* borrowed: the checks' */
	const char *buffer;			/* the buffer's name ("" the top level), borrowed */
	uint32_t page_size;			/* sub-buffer size: no record crosses one */
	uint32_t chunk_size;			/* uncompressed: bytes of sub-buffers per read */
	bool big;				/* the recorded kernel's byte order */
	bool compressed;			/* the buffer's data in compressed chunks */
};

struct tdw_cpu {
	struct rb_subbuf sb;		/* the sub-buffer walked */
	char *chunk;			/* sub-buffers read or inflated at once (8 bytes more) */
	size_t chunk_alloc;
	uint64_t chunk_len;		/* bytes of sub-buffers in chunk */
	uint64_t chunk_page;		/* the offset of its first in the CPU's data */
	uint64_t start;			/* offset of the CPU's data (the library's, see below) */
	uint64_t page_off;		/* the sub-buffer parsed: its offset, as start (none: ~0) */
	uint64_t next_off, end;		/* the next sub-buffer, the end of the CPU's data */
	/* compressed: the next chunk's header in the file, and chunks left */
	uint64_t znext, zend, zleft, zindex;
};

/* A CPU with no data (not listed): every read says it is drained. */
void tdw_cpu_empty(struct tdw_cpu *c);
/*
 * Where CPU @p's data starts for the reader: in the file when not compressed; when
 * compressed, the offset libtracecmd gives its records (and so the messages): the CPUs'
 * inflated data laid end to end from one sub-buffer in, each rounded up to whole
 * sub-buffers, in the order the buffer lists them (*@next, that running offset).  0, or -1
 * with the message on @src.
 */
int tdw_cpu_init(struct ts_source *src, const struct tdw_file *f, struct tdw_cpu *c,
		 const struct tdc_cpu *p, uint64_t *next);
/*
 * The next sub-buffers of CPU @cpu into c->chunk (grown as needed): read from the file, or
 * its next compressed chunk inflated by @z (and its commits checked, tdc_chunk_read()).
 * 1 read, 0 the CPU's data is done, -1 error (message on @src).
 */
int tdw_chunk(struct ts_source *src, const struct tdw_file *f, struct cur *z, struct tdw_cpu *c,
	      int cpu);
/*
 * Step to the CPU's next event (c->sb's current one), loading sub-buffers as needed and
 * checking each commit the checks left (uncompressed; a compressed chunk's are checked as
 * it is inflated): the steps of libtracecmd's tracecmd_peek_data().  With @more a new
 * chunk is read when the one in hand is done.  0 an event, 1 the CPU's data is done, 2 the
 * chunk is done (not @more), -1 error (message on @src).
 */
int tdw_next_slow(struct ts_source *src, const struct tdw_file *f, struct cur *z,
		  struct tdw_cpu *c, int cpu, bool more);
/* Inlined: the sub-buffer in hand has the event, the usual case, in two loads. */
static inline int tdw_next(struct ts_source *src, const struct tdw_file *f, struct cur *z,
			   struct tdw_cpu *c, int cpu, bool more)
{
	if (c->page_off != UINT64_MAX && rb_event(&c->sb))
		return 0;
	return tdw_next_slow(src, f, z, c, cpu, more);
}
/*
 * The current event as libtracecmd's record of it (data borrowed from c->chunk; its offset
 * is its sub-buffer's plus its place in it; missed events are those of rb_missed()).  Only
 * those fields and the CPU are set: the rest of @rec is left as it was.
 */
static inline void tdw_record(const struct tdw_cpu *c, int cpu, struct tep_record *rec)
{
	rec->ts = c->sb.ts;
	rec->cpu = cpu;
	rec->data = (void *)rb_event(&c->sb);
	rec->size = rb_event_size(&c->sb);
	rec->offset = c->page_off + c->sb.curr + c->sb.start;
	rec->missed_events = rb_missed(&c->sb);
}
void tdw_cpu_release(struct tdw_cpu *c);

#endif
