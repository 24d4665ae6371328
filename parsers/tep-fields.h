/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What the binary ring-buffer readers (trace.dat, live tracefs) ask of every record, inlined:
 * its event, its pid, the binding of its fields for tp_decode() (tep-fields.c).  Each is
 * a few loads when the caches already know the answer, and the out-of-line function of
 * the same name with _slow otherwise (the first record of a type, no common fields known,
 * a record too short for them), which gives what it always gave.
 */
#ifndef TLBSCOPE_PARSERS_TEP_FIELDS_H
#define TLBSCOPE_PARSERS_TEP_FIELDS_H

#include <string.h>

#include <event-parse.h>

#include "format.h"

#define HOST_BIGENDIAN	(__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)

/*
 * tep_read_number() without the two calls per field: a 1, 2, 4 or 8-byte number at @p in
 * the recorded kernel's byte order.  0, or -1 for another size (as the library says).
 * Inlined: a call per field was more than the load (and a size known at the caller folds).
 */
static inline __attribute__((always_inline)) int
tep_load_num(const void *p, int size, bool bigendian, unsigned long long *v)
{
	bool swap = bigendian != HOST_BIGENDIAN;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (size) {
	case 1:
		*v = *(const uint8_t *)p;
		return 0;
	case 2:
		memcpy(&u16, p, 2);
		*v = swap ? __builtin_bswap16(u16) : u16;
		return 0;
	case 4:
		memcpy(&u32, p, 4);
		*v = swap ? __builtin_bswap32(u32) : u32;
		return 0;
	case 8:
		memcpy(&u64, p, 8);
		*v = swap ? __builtin_bswap64(u64) : u64;
		return 0;
	}
	return -1;
}

struct tep_event *tep_event_of_slow(struct tep_field_cache *cache, struct tep_handle *tep,
				    struct tep_record *rec);
int tep_record_pid_slow(struct tep_field_cache *cache, struct tep_handle *tep,
			struct tep_record *rec);

/* The event of @rec (tep_find_event_by_record(), cached by type id in @cache). */
static inline struct tep_event *tep_event_of(struct tep_field_cache *cache,
					     struct tep_handle *tep, struct tep_record *rec)
{
	unsigned long long v;
	struct tep_event_slot *slot;

	if (cache->common_ok && cache->type_off + cache->type_size <= rec->size &&
	    !tep_load_num((const char *)rec->data + cache->type_off, cache->type_size,
			  cache->common_big, &v)) {
		slot = &cache->ev[(unsigned)(int)v % TEP_EVENT_CACHE];
		if (slot->used && slot->type == (int)v) {
			cache->last = slot;
			return slot->event;
		}
	}
	return tep_event_of_slow(cache, tep, rec);
}

/* tep_data_pid() of @rec, read where @cache has learned the common fields lie. */
static inline int tep_record_pid(struct tep_field_cache *cache, struct tep_handle *tep,
				 struct tep_record *rec)
{
	unsigned long long v;

	if (cache->common_ok && cache->pid_off + 4 <= rec->size) {
		tep_load_num((const char *)rec->data + cache->pid_off, 4, cache->common_big, &v);
		return (int)(int32_t)v;
	}
	return tep_record_pid_slow(cache, tep, rec);
}

/* The cache's slot of @c's event: the one the rebind found, else looked up; NULL none. */
static inline struct tep_event_slot *tep_fields_slot(struct tep_fields *c)
{
	struct tep_event_slot *e;

	if (c->slot)
		return c->slot;
	if (!c->cache)
		return NULL;
	e = &c->cache->ev[(unsigned)c->event->id % TEP_EVENT_CACHE];
	return e->event == c->event ? e : NULL;
}

/* The string id of @c's event name, kept in its slot once interned in @src. */
static inline uint32_t tep_event_name_id(struct tep_fields *c, struct ts_source *src)
{
	struct tep_event_slot *slot = tep_fields_slot(c);

	if (!slot)
		return ts_source_intern(src, c->event->name);
	if (!slot->name_id)
		slot->name_id = ts_source_intern(src, c->event->name);
	return slot->name_id;
}

/*
 * The next record's: @f and @c bound to each other by tep_fields_bind() before (the getters,
 * tep, cache, byte order and source kept), @c's event and record set and f->name_id with
 * them, so a reader binds once and not at every record.
 */
static inline void tep_fields_rebind(struct tp_fields *f, struct tep_fields *c,
				     struct tep_event *event, struct tep_record *rec)
{
	struct tep_event_slot *slot = c->cache ? c->cache->last : NULL;

	c->event = event;
	c->rec = rec;
	/* the event just looked up: its slot, without the event's id read again */
	c->slot = slot && slot->event == event ? slot : NULL;
	f->name_id = tep_event_name_id(c, c->src);
}

#endif
