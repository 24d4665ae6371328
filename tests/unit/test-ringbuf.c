// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit tests of the sub-buffer walk (parsers/ringbuf.h) against libtraceevent's kbuffer,
 * which libtracecmd reads trace.dat with: on sub-buffers built by hand (every record type,
 * both byte orders and long sizes, missed events stored or not, the absolute stamp's top
 * bits) and on random ones, each record's payload, size, timestamp, offset and missed
 * events must be kbuffer's; but the missed events kbuffer hides behind a time extension
 * at a sub-buffer's start, which the walk gives.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <kbuffer.h>

#include "../../parsers/ringbuf.h"

#define PAGE	4096
#define SLACK	16		/* both walks may read 8 bytes past a sub-buffer */
#define MAX_RECORDS	2048	/* a corrupt length can step back: both are cut here */

struct page {
	unsigned char b[PAGE + SLACK];
	size_t at;		/* where the next record is written */
	bool big, long8;
};

static void put32(struct page *p, size_t at, uint32_t v)
{
	if (p->big)
		v = __builtin_bswap32(v);
	memcpy(p->b + at, &v, 4);
}

static void put64(struct page *p, size_t at, uint64_t v)
{
	if (p->big)
		v = __builtin_bswap64(v);
	memcpy(p->b + at, &v, 8);
}

static void page_init(struct page *p, bool big, bool long8, uint64_t ts)
{
	memset(p, 0, sizeof(*p));
	p->big = big;
	p->long8 = long8;
	put64(p, 0, ts);
	p->at = long8 ? 16 : 12;
}

/* A record header: type_len and delta in the file's layout (big-endian: type_len on top). */
static void header(struct page *p, unsigned type_len, uint32_t delta)
{
	put32(p, p->at, p->big ? type_len << 27 | delta : delta << 5 | type_len);
	p->at += 4;
}

/* An event of @len payload bytes (a multiple of 4): type_len 1..28, or 0 and a length word. */
static void event(struct page *p, uint32_t delta, size_t len, unsigned char fill)
{
	if (len && len <= 28 * 4) {
		header(p, (unsigned)(len / 4), delta);
	} else {
		header(p, 0, delta);
		put32(p, p->at, (uint32_t)len + 4);
		p->at += 4;
	}
	memset(p->b + p->at, fill, len);
	p->at += len;
}

static void extend(struct page *p, unsigned type_len, uint64_t delta)
{
	header(p, type_len, (uint32_t)(delta & ((1u << 27) - 1)));
	put32(p, p->at, (uint32_t)(delta >> 27));
	p->at += 4;
}

/* Close the page: commit (and its flags) after the records written, @lost stored after them. */
static void commit(struct page *p, uint64_t flags, long long lost)
{
	size_t start = p->long8 ? 16 : 12;
	uint64_t c = (p->at - start) | flags;

	if (p->long8) {
		put64(p, 8, c);
		put64(p, p->at, (uint64_t)lost);
	} else {
		put32(p, 8, (uint32_t)c);
		put32(p, p->at, (uint32_t)lost);
	}
}

/* Walk @p both ways; every record must agree.  Returns the records walked. */
static int compare(struct page *p)
{
	struct kbuffer *kb = kbuffer_alloc(p->long8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
					   p->big ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	struct rb_subbuf s;
	int n = 0;

	assert_non_null(kb);
	kbuffer_load_subbuffer(kb, p->b);
	assert_int_equal(rb_load(&s, p->b, PAGE, p->big, p->long8), 0);
	for (;;) {
		unsigned long long kts = 0;
		void *kd = kbuffer_read_event(kb, &kts);
		const void *d = rb_event(&s);

		assert_ptr_equal(d, kd);
		if (!kd || n == MAX_RECORDS)
			break;
		assert_int_equal(s.ts, kts);
		assert_int_equal(rb_event_size(&s), kbuffer_event_size(kb));
		assert_int_equal(s.curr + s.start, kbuffer_curr_offset(kb));
		/* kbuffer hides a loss behind a time extension in front of the first event */
		if (n || !s.curr)
			assert_int_equal(rb_missed(&s), kbuffer_missed_events(kb));
		else
			assert_int_equal(rb_missed(&s), (int)s.lost);
		kbuffer_next_event(kb, NULL);
		rb_next(&s);
		n++;
	}
	kbuffer_free(kb);
	return n;
}

/* Every record type, in each byte order and long size, with the events' values checked. */
static void test_kinds(void **state)
{
	(void)state;
	for (int big = 0; big < 2; big++) {
		for (int long8 = 0; long8 < 2; long8++) {
			struct page p;
			struct rb_subbuf s;

			page_init(&p, big, long8, 1000);
			event(&p, 5, 8, 0xa1);			/* ts 1005 */
			extend(&p, RB_TYPE_TIME_EXTEND, 1ull << 40);
			event(&p, 1, 200, 0xa2);		/* long: type_len 0, ts 1006 + 2^40 */
			header(&p, RB_TYPE_PADDING, 3);		/* a discarded event: delta counts */
			put32(&p, p.at, 12);
			p.at += 12;
			extend(&p, RB_TYPE_TIME_STAMP, 5000);	/* absolute */
			event(&p, 2, 112, 0xa3);		/* 28 words: the last short type_len */
			commit(&p, 0, 0);
			assert_int_equal(compare(&p), 3);
			rb_load(&s, p.b, PAGE, big, long8);
			assert_int_equal(s.ts, 1005);
			assert_int_equal(rb_event_size(&s), 8);
			rb_next(&s);
			assert_int_equal(s.ts, 1006 + (1ull << 40));
			assert_int_equal(rb_event_size(&s), 200);
			assert_int_equal(*(const unsigned char *)rb_event(&s), 0xa2);
			rb_next(&s);
			assert_int_equal(s.ts, 5002);
			assert_int_equal(rb_next(&s), -1);
			assert_null(rb_event(&s));
		}
	}
}

/* Missed events: stored after the events, not stored (-1), and none; only the first record. */
static void test_missed(void **state)
{
	struct page p;
	struct rb_subbuf s;

	(void)state;
	for (int long8 = 0; long8 < 2; long8++) {
		page_init(&p, false, long8, 7);
		event(&p, 1, 4, 1);
		event(&p, 1, 4, 2);
		commit(&p, RB_MISSED_EVENTS | RB_MISSED_STORED, 4242);
		assert_int_equal(compare(&p), 2);
		rb_load(&s, p.b, PAGE, false, long8);
		assert_int_equal(rb_missed(&s), 4242);
		rb_next(&s);
		assert_int_equal(rb_missed(&s), 0);

		commit(&p, RB_MISSED_EVENTS, 0);
		assert_int_equal(compare(&p), 2);
		rb_load(&s, p.b, PAGE, false, long8);
		assert_int_equal(rb_missed(&s), -1);
	}
	/*
	 * A time extension first (the kernel's zeroed one at a page's first event): the
	 * missed events are still the first event's, where kbuffer says none
	 */
	page_init(&p, false, true, 7);
	extend(&p, RB_TYPE_TIME_EXTEND, 0);
	event(&p, 1, 4, 1);
	event(&p, 1, 4, 2);
	commit(&p, RB_MISSED_EVENTS | RB_MISSED_STORED, 9);
	assert_int_equal(compare(&p), 2);
	rb_load(&s, p.b, PAGE, false, true);
	assert_int_equal(rb_missed(&s), 9);
	rb_next(&s);
	assert_int_equal(rb_missed(&s), 0);
	commit(&p, RB_MISSED_EVENTS, 0);
	rb_load(&s, p.b, PAGE, false, true);
	assert_int_equal(rb_missed(&s), -1);
}

/* An absolute stamp takes its 5 top bits from the page's timestamp. */
static void test_stamp_msb(void **state)
{
	struct page p;
	struct rb_subbuf s;

	(void)state;
	page_init(&p, false, true, 0xf800000000000010ull);
	event(&p, 1, 4, 1);
	extend(&p, RB_TYPE_TIME_STAMP, 0x123);
	event(&p, 1, 4, 2);
	commit(&p, 0, 0);
	assert_int_equal(compare(&p), 2);
	rb_load(&s, p.b, PAGE, false, true);
	rb_next(&s);
	assert_int_equal(s.ts, 0xf800000000000124ull);
}

/* Corrupt lengths: a type_len 0 event of length 0 steps back; padding jumps past commit. */
static void test_corrupt(void **state)
{
	struct page p;

	(void)state;
	page_init(&p, false, true, 1);
	event(&p, 1, 4, 1);
	header(&p, 0, 1);
	put32(&p, p.at, 0);		/* length word 0: a payload of -4 bytes */
	p.at += 4;
	event(&p, 1, 4, 2);
	commit(&p, 0, 0);
	assert_true(compare(&p) >= 2);

	page_init(&p, false, true, 1);
	event(&p, 1, 4, 1);
	header(&p, RB_TYPE_PADDING, 0);
	put32(&p, p.at, 0x7ffffff0);
	p.at += 4;
	event(&p, 1, 4, 2);
	commit(&p, 0, 0);
	assert_int_equal(compare(&p), 1);

	/* a commit past the bytes given: refused, no event, nothing read past them */
	page_init(&p, false, true, 1);
	event(&p, 1, 4, 1);
	put64(&p, 8, PAGE);
	{
		struct rb_subbuf s;

		assert_int_equal(rb_load(&s, p.b, PAGE, false, true), -1);
		assert_null(rb_event(&s));
		assert_int_equal(rb_load(&s, p.b, 8, false, true), -1);
		assert_null(rb_event(&s));
	}
}

/* Random sub-buffers, commit anywhere in the page: the two walks never differ. */
static void test_random(void **state)
{
	unsigned int seed = 12345;

	(void)state;
	for (int i = 0; i < 3000; i++) {
		struct page p;
		uint32_t c;

		page_init(&p, i & 1, i & 2, 0);
		for (size_t j = 0; j < PAGE; j++)
			p.b[j] = (unsigned char)rand_r(&seed);
		/* mostly small type_lens, as real data has, to walk far */
		for (size_t j = 16; j < PAGE; j += 4 * (1 + rand_r(&seed) % 6))
			p.b[j] = (unsigned char)(p.big ? (rand_r(&seed) % 8) << 3 :
						 rand_r(&seed) % 8);
		c = (uint32_t)rand_r(&seed) % (PAGE - (p.long8 ? 16 : 12) + 1);
		if (p.long8)
			put64(&p, 8, c | ((uint64_t)(rand_r(&seed) & 3) << 30));
		else
			put32(&p, 8, c | ((uint32_t)(rand_r(&seed) & 3) << 30));
		compare(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kinds),
		cmocka_unit_test(test_missed),
		cmocka_unit_test(test_stamp_msb),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
