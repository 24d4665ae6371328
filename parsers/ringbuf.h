/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The records of one ring-buffer sub-buffer, walked in place: the format of
 * kernel/trace/ring_buffer.c as libtraceevent's kbuffer reads it.  A header of a 64-bit
 * timestamp and a commit word (a long: the bytes of events, missed-events flags above
 * them), then events each headed by a 32-bit word of a 5-bit type_len and a 27-bit time
 * delta.  Inline, as it is the trace.dat reader's loop per record; the results are
 * kbuffer's to the byte, its quirks included (tests/unit/test-ringbuf.c compares the two
 * on crafted sub-buffers), but one: the missed events of a sub-buffer whose first record
 * is a time extension (rb_missed()).  Not the 2.6.30 format: that is left to the library.
 */
#ifndef TLBSCOPE_PARSERS_RINGBUF_H
#define TLBSCOPE_PARSERS_RINGBUF_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

enum {
	RB_TYPE_PADDING = 29,		/* its length in the word after the header */
	RB_TYPE_TIME_EXTEND = 30,	/* a delta of 59 bits: 27 + the next word's 32 */
	RB_TYPE_TIME_STAMP = 31,	/* an absolute timestamp, its 5 top bits the page's */
};
#define RB_COMMIT_MASK		((1u << 27) - 1)	/* the commit word's bytes of events */
#define RB_DELTA_MASK		((1u << 27) - 1)	/* a header's time delta */
#define RB_MISSED_EVENTS	(1ull << 31)
#define RB_MISSED_STORED	(1ull << 30)	/* their count after the last event */
#define RB_TS_MSB		(0xf8ull << 56)

struct rb_subbuf {
	const unsigned char *data;	/* the events: after the header */
	uint32_t start;			/* the header's bytes: 12 or 16 */
	uint32_t size;			/* commit: bytes of events */
	uint32_t curr;			/* the current record's header, from data */
	uint32_t index;			/* its payload */
	uint32_t next;			/* the next record's header */
	uint32_t first;			/* the first event's header */
	uint64_t ts;			/* the current record's timestamp */
	long long lost;			/* events missed before this sub-buffer (-1: how many unknown) */
	bool swap;			/* the file's byte order is not the host's */
	bool big;			/* the file is big-endian */
	bool long8;			/* the recorded kernel's long is 8 bytes */
};

static inline uint32_t rb_u32(const struct rb_subbuf *s, const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return s->swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rb_u64(const struct rb_subbuf *s, const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return s->swap ? __builtin_bswap64(v) : v;
}

static inline uint64_t rb_long(const struct rb_subbuf *s, const unsigned char *p)
{
	return s->long8 ? rb_u64(s, p) : rb_u32(s, p);
}

/*
 * Step to the next record that is an event (time extensions, absolute stamps and padding
 * passed over, as kbuffer does): 0, or -1 when the sub-buffer has no more.  Reads up to 8
 * bytes at any header before commit, so the caller's memory must run 8 bytes past the
 * sub-buffer.
 */
static inline int rb_next(struct rb_subbuf *s)
{
	unsigned int type_len;

	do {
		const unsigned char *p;
		uint32_t word;
		uint64_t delta;
		int length;

		s->curr = s->next;
		if (s->next >= s->size)
			return -1;
		p = s->data + s->curr;
		word = rb_u32(s, p);
		p += 4;
		type_len = s->big ? word >> 27 : word & 31;
		delta = s->big ? word & RB_DELTA_MASK : word >> 5;
		switch (type_len) {
		case RB_TYPE_PADDING:
			length = (int)rb_u32(s, p);
			break;
		case RB_TYPE_TIME_STAMP:
		case RB_TYPE_TIME_EXTEND:
			delta += (uint64_t)rb_u32(s, p) << 27;
			if (type_len == RB_TYPE_TIME_STAMP)
				delta |= s->ts & RB_TS_MSB;
			p += 4;
			length = 0;
			break;
		case 0:
			/* kbuffer's int arithmetic, done unsigned: the same bits, no overflow */
			length = (int)((rb_u32(s, p) - 4u + 3u) & ~3u);
			p += 4;
			break;
		default:
			length = (int)type_len * 4;
			break;
		}
		s->ts = type_len == RB_TYPE_TIME_STAMP ? delta : s->ts + delta;
		s->index = (uint32_t)(p - s->data);
		s->next = s->index + (uint32_t)length;
	} while (type_len >= RB_TYPE_PADDING);
	return 0;
}

/*
 * Take the sub-buffer at @page, of @len bytes, of a @big-endian kernel whose long is 8
 * bytes (@long8) or 4, and step to its first event.  -1 when its commit runs past @len:
 * then it has no event.
 */
static inline int rb_load(struct rb_subbuf *s, const void *page, uint32_t len, bool big,
			  bool long8)
{
	uint64_t commit;

	s->big = big;
	s->swap = big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__);
	s->long8 = long8;
	s->start = long8 ? 16 : 12;
	s->data = (const unsigned char *)page + s->start;
	s->ts = rb_u64(s, page);
	commit = rb_long(s, (const unsigned char *)page + 8);
	s->size = (uint32_t)commit & RB_COMMIT_MASK;
	s->curr = s->index = s->next = 0;
	if (len < s->start || s->size > len - s->start) {
		s->size = 0;
		return -1;
	}
	if (!(commit & RB_MISSED_EVENTS))
		s->lost = 0;
	else if (commit & RB_MISSED_STORED)
		s->lost = (long long)rb_long(s, s->data + s->size);
	else
		s->lost = -1;
	rb_next(s);
	s->first = s->curr;
	return 0;
}

/* The current event's payload, or NULL when the sub-buffer has no more. */
static inline const void *rb_event(const struct rb_subbuf *s)
{
	return s->curr < s->size ? s->data + s->index : NULL;
}

/* The current event's payload bytes (kbuffer_event_size()). */
static inline int rb_event_size(const struct rb_subbuf *s)
{
	return (int)(s->next - s->index);
}

/*
 * Events missed before the current one: only a sub-buffer's first event has any.  An int,
 * as kbuffer_missed_events() and libtracecmd's record give it.  kbuffer gives them only
 * when that event is the sub-buffer's very first record: a time extension in front of it
 * (the kernel writes one, zeroed, when the first event of a page comes 2^27 ns or more
 * after the CPU's last, or its stamp was forced) hid the loss there, and not here.
 */
static inline int rb_missed(const struct rb_subbuf *s)
{
	return s->curr == s->first ? (int)s->lost : 0;
}

#endif
