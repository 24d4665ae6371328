// SPDX-License-Identifier: GPL-2.0-only
/*
 * One CPU's sub-buffers of a trace.dat read in order, as libtracecmd's tracecmd_read_data()
 * walks them with kbuffer, without its allocation per record, its pages of the file left
 * mapped (memory that grew with the file), its cache of inflated chunks and kbuffer's calls
 * through pointers per record: a chunk of sub-buffers read (or a compressed chunk inflated)
 * at a time, each walked in place (ringbuf.h).  Used by the reader's own thread
 * (tracedat.c) and by its workers (tracedat-jobs.c), one CPU per thread at a time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "tracedat-walk.h"

void tdw_cpu_empty(struct tdw_cpu *c)
{
	memset(c, 0, sizeof(*c));
	c->page_off = UINT64_MAX;	/* no sub-buffer loaded */
}

int tdw_cpu_init(struct ts_source *src, const struct tdw_file *f, struct tdw_cpu *c,
		 const struct tdc_cpu *p, uint64_t *next)
{
	uint64_t ps = f->page_size;
	struct cur z;
	uint32_t count;

	tdw_cpu_empty(c);
	if (!f->compressed) {
		/* whole sub-buffers (the checks found each CPU's data to be whole ones) */
		c->start = c->next_off = c->chunk_page = p->off;
		c->end = p->off + p->size;
		return 0;
	}
	c->start = c->next_off = c->chunk_page = c->end = *next;
	if (!p->size)
		return 0;
	c->end += p->usize;
	*next += (p->usize + ps - 1) / ps * ps;
	/* the chunk count, bounded by the checks, then the chunks */
	if (pread(f->fd, &count, 4, (off_t)p->off) != 4)
		return ts_source_fail(src, "cpu %llu: cannot read the chunk count at offset %llu",
				      (unsigned long long)p->cpu, (unsigned long long)p->off);
	tdc_cur_init(&z, src, f->fd, f->layout);
	c->zleft = tdc_swap(&z, count, 4);
	c->znext = p->off + 4;
	c->zend = p->off + 4 + p->size;
	return 0;
}

int tdw_chunk(struct ts_source *src, const struct tdw_file *f, struct cur *z, struct tdw_cpu *c,
	      int cpu)
{
	uint64_t n = c->end - c->next_off;

	if (c->next_off >= c->end)
		return 0;
	if (f->compressed) {
		uint64_t page = (c->next_off - c->start) / f->page_size;
		int r;

		if (!c->zleft)
			return 0;
		/* the inflater's output is this CPU's chunk, kept while its records are read */
		z->out = c->chunk;
		z->out_alloc = c->chunk_alloc;
		r = tdc_chunk_read(z, f->buffer, (uint64_t)cpu, c->zindex, &c->znext, c->zend,
				   f->page_size, &page, true);
		c->chunk = z->out;
		c->chunk_alloc = z->out_alloc;
		z->out = NULL;
		z->out_alloc = 0;
		if (r)
			return -1;
		c->zleft--;
		c->zindex++;
		n = z->out_len;
	} else {
		if (n > f->chunk_size)
			n = f->chunk_size;
		/* 8 bytes more, zeroed: ringbuf.h's walk reads up to 8 past a sub-buffer */
		ALLOC_GROW(c->chunk, (size_t)f->chunk_size + 8, c->chunk_alloc);
		memset(c->chunk + n, 0, 8);
		if (pread(f->fd, c->chunk, n, (off_t)c->next_off) != (ssize_t)n)
			return ts_source_fail(src, "cpu %d: cannot read %llu bytes of sub-buffers "
					      "at offset %llu", cpu, (unsigned long long)n,
					      (unsigned long long)c->next_off);
	}
	c->chunk_page = c->next_off;
	c->chunk_len = n;
	return 1;
}

int tdw_next_slow(struct ts_source *src, const struct tdw_file *f, struct cur *z,
		  struct tdw_cpu *c, int cpu, bool more)
{
	unsigned char *page;

	while (c->page_off == UINT64_MAX || !rb_event(&c->sb)) {
		if (c->next_off >= c->chunk_page + c->chunk_len) {
			int r;

			if (!more)
				return 2;
			r = tdw_chunk(src, f, z, c, cpu);
			if (r <= 0)
				return r < 0 ? -1 : 1;
		}
		c->page_off = c->next_off;
		c->next_off += f->page_size;
		page = (unsigned char *)c->chunk + (c->page_off - c->chunk_page);
		/* its commit, which the checks left to this reader (defer_pages) */
		if (!f->compressed &&
		    tdc_check_subbuffer(src, f->layout, f->buffer, (uint64_t)cpu,
					(c->page_off - c->start) / f->page_size, page, f->page_size))
			return -1;
		/* checked above, or as its chunk was inflated, to the stricter bound of the checks */
		rb_load(&c->sb, page, f->page_size, f->big, f->layout->lsize == 8);
	}
	return 0;
}

void tdw_cpu_release(struct tdw_cpu *c)
{
	free(c->chunk);
	c->chunk = NULL;
	c->chunk_alloc = 0;
}
