// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ring-buffer data of a trace.dat, checked before libtracecmd reads it: each CPU's
 * region inside the file and made of whole sub-buffers, each sub-buffer's commit within
 * it, and compressed chunks (zstd, zlib) inflated once to the size they claim, that size
 * bounded.  libtracecmd inflates every CPU's data as it opens the file and crashes in its
 * own cleanup when a chunk fails there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "../lib/lib.h"
#include "ringbuf.h"
#include "tracedat-data.h"

/*
 * A sub-buffer's header: a timestamp (8 bytes), then commit (a long): the bytes of events
 * that follow, with flags in bits 27 and up (missed events; ringbuf.h).  libtracecmd reads
 * a page's events up to commit, and a page it cannot load ends that CPU's data without a
 * word.
 */

static int check_page(struct cur *c, const unsigned char *hdr, uint32_t page_size,
		      const char *buffer, uint64_t cpu, uint64_t page)
{
	uint64_t commit = 0;

	memcpy(&commit, hdr + 8, c->lsize);
	commit = tdc_swap(c, commit, c->lsize) & RB_COMMIT_MASK;
	if (commit > page_size - 8 - c->lsize)
		return tdc_bad(c, "buffer '%s', cpu %llu, sub-buffer %llu: %llu bytes of events in a "
			   "%u-byte sub-buffer", buffer, (unsigned long long)cpu,
			   (unsigned long long)page, (unsigned long long)commit, page_size);
	return 0;
}

/* Sub-buffer headers read at once: a read(2) each was most of a 2 GB file's checks. */
#define PAGES_CHUNK	(256u << 10)

/*
 * The commits of the whole sub-buffers of @size bytes at @off from sub-buffer @first on,
 * read PAGES_CHUNK at a time (into c->in).
 */
static int check_pages(struct cur *c, const char *buffer, uint64_t cpu, uint64_t off,
		       uint64_t size, uint32_t page_size, uint64_t first)
{
	uint64_t per = page_size >= PAGES_CHUNK ? 1 : PAGES_CHUNK / page_size;

	for (uint64_t p = first; p < size / page_size; ) {
		uint64_t n = size / page_size - p < per ? size / page_size - p : per;
		/* a sub-buffer bigger than the chunk: its header alone */
		size_t len = per == 1 ? 16 : (size_t)(n * page_size);
		uint64_t at = off + p * page_size;

		ALLOC_GROW(c->in, len, c->in_alloc);
		if (pread(c->fd, c->in, len, (off_t)at) != (ssize_t)len)
			return ts_source_fail(c->src, "read error at offset %llu",
					      (unsigned long long)at);
		for (uint64_t i = 0; i < n; i++, p++)
			if (check_page(c, (unsigned char *)c->in + i * page_size, page_size,
				       buffer, cpu, p))
				return -1;
	}
	return 0;
}

/*
 * One compressed block of @zsize bytes at @off that must inflate to exactly @usize bytes.
 * @what names it in the message.
 */
static int check_zblock(struct cur *c, uint64_t off, uint64_t zsize, uint64_t usize,
			const char *what)
{
	size_t got;

	if (!usize || usize > MAX_BLOCK || usize > zsize * MAX_RATIO + 4096)
		return tdc_bad(c, "%s at offset %llu: %llu bytes said to inflate to %llu", what,
			   (unsigned long long)off, (unsigned long long)zsize,
			   (unsigned long long)usize);
	if (c->algo == Z_NONE)
		return tdc_bad(c, "%s at offset %llu: compressed, but the file names no compression",
			   what, (unsigned long long)off);
	ALLOC_GROW(c->in, zsize, c->in_alloc);
	/* 8 bytes more: ringbuf.h's walk reads up to 8 bytes past a sub-buffer */
	if (usize + 8 > c->out_alloc) {
		ALLOC_GROW(c->out, usize + 8, c->out_alloc);
		prefault(c->out, usize);	/* inflated into whole */
	}
	memset(c->out + usize, 0, 8);
	if (pread(c->fd, c->in, zsize, (off_t)off) != (ssize_t)zsize)
		return tdc_bad(c, "%s at offset %llu: cannot read %llu bytes", what,
			   (unsigned long long)off, (unsigned long long)zsize);
	if (c->algo == Z_ZSTD) {
		if (!c->zstd && !(c->zstd = ZSTD_createDCtx()))
			return ts_source_fail(c->src, "out of memory");
		got = ZSTD_decompressDCtx(c->zstd, c->out, usize, c->in, zsize);
		if (ZSTD_isError(got))
			return tdc_bad(c, "%s at offset %llu: zstd: %s", what, (unsigned long long)off,
				   ZSTD_getErrorName(got));
	} else {
		uLongf n = usize;
		int r = uncompress((Bytef *)c->out, &n, (const Bytef *)c->in, zsize);

		if (r != Z_OK)
			return tdc_bad(c, "%s at offset %llu: zlib: %s", what, (unsigned long long)off,
				   zError(r));
		got = n;
	}
	if (got != usize)
		return tdc_bad(c, "%s at offset %llu: inflates to %zu bytes, not %llu", what,
			   (unsigned long long)off, got, (unsigned long long)usize);
	c->out_len = got;
	return 0;
}

/* A compressed section's content at the cursor: sizes, then the block; @size its bytes. */
int tdc_check_zsection(struct cur *c, uint64_t size, const char *what)
{
	uint64_t zsize, usize;

	if (size < 8 || tdc_num(c, 4, &zsize, what) || tdc_num(c, 4, &usize, what))
		return tdc_bad(c, "%s: compressed section too short", what);
	if (zsize > size - 8)
		return tdc_bad(c, "%s at offset %llu: %llu compressed bytes in a %llu-byte section", what,
			   (unsigned long long)c->off, (unsigned long long)zsize,
			   (unsigned long long)size);
	return check_zblock(c, c->off, zsize, usize, what);
}

int tdc_chunk_read(struct cur *c, const char *buffer, uint64_t cpu, uint64_t i, uint64_t *at,
		   uint64_t end, uint32_t page_size, uint64_t *page, bool inflate)
{
	struct cur z = *c;
	uint64_t zsize, usize;
	char what[128];

	z.off = *at;
	if (end - z.off < 8 || tdc_num(&z, 4, &zsize, "chunk") || tdc_num(&z, 4, &usize, "chunk"))
		return tdc_bad(c, "buffer '%s', cpu %llu: chunk %llu at offset %llu runs past "
			   "the CPU's data", buffer, (unsigned long long)cpu,
			   (unsigned long long)i, (unsigned long long)*at);
	if (zsize > end - z.off || usize % page_size)
		return tdc_bad(c, "buffer '%s', cpu %llu: chunk %llu at offset %llu: %llu bytes "
			   "inflating to %llu", buffer, (unsigned long long)cpu,
			   (unsigned long long)i, (unsigned long long)*at,
			   (unsigned long long)zsize, (unsigned long long)usize);
	*at = z.off + zsize;
	if (!inflate) {
		*page += usize / page_size;
		return 0;
	}
	snprintf(what, sizeof(what), "buffer '%.64s', cpu %llu, chunk %llu", buffer,
		 (unsigned long long)cpu, (unsigned long long)i);
	if (check_zblock(c, z.off, zsize, usize, what))
		return -1;
	for (uint64_t p = 0; p < usize / page_size; p++, (*page)++)
		if (check_page(c, (unsigned char *)c->out + p * page_size, page_size, buffer,
			       cpu, *page))
			return -1;
	return 0;
}

/*
 * A compressed CPU's data: a count, then chunks of (compressed size, size, bytes), each in
 * the CPU's region (whose size, as trace-cmd writes it, leaves out the 4-byte count), each
 * a whole number of sub-buffers, none inflating past MAX_RATIO: the library allocates what
 * the sizes say.  With @first_only the chunks after the first are only bounded, their
 * inflating left to the reader.  *@usize: the bytes they inflate to.
 */
static int check_chunks(struct cur *c, const char *buffer, uint64_t cpu, uint64_t off,
			uint64_t size, uint32_t page_size, bool first_only, uint64_t *usize)
{
	struct cur z = *c;
	uint64_t count, at, end = off + 4 + size, page = 0;

	z.off = off;
	if (!tdc_inside(c, off, size + 4) || tdc_num(&z, 4, &count, "compressed chunk count"))
		return tdc_bad(c, "buffer '%s', cpu %llu: no chunk count at offset %llu", buffer,
			   (unsigned long long)cpu, (unsigned long long)off);
	if (count > size / 8)
		return tdc_bad(c, "buffer '%s', cpu %llu: %llu compressed chunks do not fit in %llu "
			   "bytes", buffer, (unsigned long long)cpu, (unsigned long long)count,
			   (unsigned long long)size);
	at = z.off;
	for (uint64_t i = 0; i < count; i++)
		if (tdc_chunk_read(c, buffer, cpu, i, &at, end, page_size, &page,
				   !first_only || !i))
			return -1;
	*usize = page * page_size;
	return 0;
}

/* Note @cpu's data of @buffer in the layout: a new buffer when the name changes. */
static void layout_add(struct tdc_layout *l, const char *buffer, uint64_t cpu, uint64_t off,
		       uint64_t size, uint32_t page_size, bool compressed)
{
	struct tdc_buffer *b = l->nbuf ? &l->buf[l->nbuf - 1] : NULL;

	if (!b || strcmp(b->name, buffer) || b->page_size != page_size ||
	    b->compressed != compressed) {
		l->buf = xrealloc(l->buf, (l->nbuf + 1) * sizeof(*l->buf));
		b = &l->buf[l->nbuf++];
		memset(b, 0, sizeof(*b));
		strlcpy_ts(b->name, buffer, sizeof(b->name));
		b->page_size = page_size;
		b->compressed = compressed;
	}
	b->cpu = xrealloc(b->cpu, (b->ncpus + 1) * sizeof(*b->cpu));
	b->cpu[b->ncpus++] = (struct tdc_cpu){ .cpu = cpu, .off = off, .size = size,
					       .unchecked = l->defer_pages && size &&
							    (compressed || size > page_size) };
}

void tdc_layout_release(struct tdc_layout *l)
{
	for (int i = 0; l && i < l->nbuf; i++)
		free(l->buf[i].cpu);
	if (l) {
		free(l->buf);
		l->buf = NULL;
		l->nbuf = 0;
		free(l->meta.arena);
		free(l->meta.fmt);
		free(l->meta.byid);
		l->meta.arena = NULL;
		l->meta.fmt = NULL;
		l->meta.byid = NULL;
		l->meta.nbyid = 0;
		l->meta.nfmt = l->meta.fmt_alloc = l->meta.arena_len = l->meta.arena_alloc = 0;
	}
}

/* One CPU's ring-buffer data: inside the file, and whole sub-buffers when not compressed. */
int tdc_check_cpu_data(struct cur *c, const char *buffer, uint64_t cpu, uint64_t off,
			  uint64_t size, uint32_t page_size, bool compressed)
{
	if (cpu >= TS_MAX_CPUS)
		return tdc_bad(c, "buffer '%s': CPU %llu (supported: 0..%d)", buffer,
			   (unsigned long long)cpu, TS_MAX_CPUS - 1);
	if (c->layout)
		layout_add(c->layout, buffer, cpu, off, size, page_size, compressed);
	if (!size || c->tep)	/* the child parses formats; the parent checked the data */
		return 0;
	if (compressed) {
		uint64_t usize = 0;
		bool defer = c->layout && c->layout->defer_pages;

		if (check_chunks(c, buffer, cpu, off, size, page_size, defer, &usize))
			return -1;
		if (c->layout)
			c->layout->buf[c->layout->nbuf - 1].cpu[
				c->layout->buf[c->layout->nbuf - 1].ncpus - 1].usize = usize;
		return 0;
	}
	if (!tdc_inside(c, off, size))
		return tdc_bad(c, "buffer '%s', cpu %llu: %llu bytes of data at offset %llu run past "
			   "the end of the file (%llu bytes)", buffer, (unsigned long long)cpu,
			   (unsigned long long)size, (unsigned long long)off,
			   (unsigned long long)c->size);
	if (off % page_size || size % page_size)
		return tdc_bad(c, "buffer '%s', cpu %llu: data at offset %llu, %llu bytes, is not "
			   "whole %u-byte sub-buffers", buffer, (unsigned long long)cpu,
			   (unsigned long long)off, (unsigned long long)size, page_size);
	/* the first sub-buffer always: libtracecmd loads it as it opens the file */
	return check_pages(c, buffer, cpu, off, c->layout && c->layout->defer_pages ?
			   page_size : size, page_size, 0);
}

void tdc_cur_init(struct cur *c, struct ts_source *src, int fd, const struct tdc_layout *l)
{
	*c = (struct cur){ .src = src, .fd = fd, .size = l->size, .version = l->version,
			   .big = l->big, .lsize = l->lsize, .algo = l->algo, .note_fd = -1 };
}

void tdc_cur_release(struct cur *c)
{
	ZSTD_freeDCtx(c->zstd);
	free(c->in);
	free(c->out);
	c->zstd = NULL;
	c->in = c->out = NULL;
	c->in_alloc = c->out_alloc = 0;
}

int tdc_check_subbuffer(struct ts_source *src, const struct tdc_layout *l, const char *buffer,
			uint64_t cpu, uint64_t page, const unsigned char *hdr, uint32_t page_size)
{
	struct cur c;

	tdc_cur_init(&c, src, -1, l);
	return check_page(&c, hdr, page_size, buffer, cpu, page);
}

int tdc_check_subbuffers(struct ts_source *src, int fd, const struct tdc_layout *l,
			 const char *buffer)
{
	struct cur c;
	int r = 0;

	tdc_cur_init(&c, src, fd, l);
	for (int i = 0; !r && i < l->nbuf; i++) {
		const struct tdc_buffer *b = &l->buf[i];

		for (int j = 0; !r && j < b->ncpus && (!buffer || !strcmp(buffer, b->name)); j++) {
			const struct tdc_cpu *p = &b->cpu[j];
			uint64_t usize;

			if (!p->unchecked)
				continue;
			if (b->compressed)
				r = check_chunks(&c, b->name, p->cpu, p->off, p->size, b->page_size,
						 false, &usize);
			else
				r = check_pages(&c, b->name, p->cpu, p->off, p->size, b->page_size, 1);
		}
	}
	tdc_cur_release(&c);
	return r;
}
