// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracepoint's fields through libtraceevent, for the readers of binary ring-buffer
 * records (trace.dat, live tracefs): every read is bounds-checked against the record, so
 * a corrupt record is a missing field, never a read past its end.
 */
#include <string.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "format.h"

/*
 * tep_find_field() compares names one field at a time; the decoder asks for the same
 * (event, field-name literal) pairs again and again, so the answers are cached by address.
 */
static struct tep_format_field *field_of(struct tep_fields *c, const char *name)
{
	struct tep_format_field *f;

	if (c->cache) {
		uintptr_t h = ((uintptr_t)c->event >> 4) * 31 + ((uintptr_t)name >> 2);
		struct tep_field_slot *slot = &c->cache->slot[h % TEP_FIELD_CACHE];

		if (slot->event != c->event || slot->name != name) {
			slot->event = c->event;
			slot->name = name;
			slot->field = tep_find_field(c->event, name);
		}
		f = slot->field;
	} else {
		f = tep_find_field(c->event, name);
	}
	/* a corrupt format may give any int: checked in 64 bits against this record */
	if (!f || f->offset < 0 || f->size < 0 ||
	    (long long)f->offset + f->size > (long long)c->rec->size)
		return NULL;
	return f;
}

/* Payload bytes of @f in the record (__data_loc fields resolved), bounds-checked. */
static const void *field_bytes(struct tep_fields *c, struct tep_format_field *f, int *len)
{
	unsigned long long loc;

	if (!(f->flags & TEP_FIELD_IS_DYNAMIC)) {
		/* "char buf[]" (ftrace:print): size 0, the bytes run to the record's end */
		*len = f->size ? f->size : c->rec->size - f->offset;
		return (const char *)c->rec->data + f->offset;
	}
	if (tep_read_number_field(f, c->rec->data, &loc))
		return NULL;
	/* __data_loc: offset in the low 16 bits, length in the high 16 */
	if ((loc & 0xffff) + (loc >> 16) > (unsigned long long)c->rec->size)
		return NULL;
	*len = (int)(loc >> 16);
	return (const char *)c->rec->data + (loc & 0xffff);
}

static int get_num(void *ctx, const char *name, int64_t *val)
{
	struct tep_fields *c = ctx;
	struct tep_format_field *f = field_of(c, name);
	unsigned long long v;

	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return -1;
	if (tep_read_number_field(f, c->rec->data, &v))
		return -1;
	/* sign-extend signed fields narrower than 64 bits */
	if ((f->flags & TEP_FIELD_IS_SIGNED) && f->size < 8 && (v >> (f->size * 8 - 1)) & 1)
		v |= ~0ULL << (f->size * 8);
	*val = (int64_t)v;
	return 0;
}

static int get_str(void *ctx, const char *name, char *buf, size_t len)
{
	struct tep_fields *c = ctx;
	struct tep_format_field *f = field_of(c, name);
	const char *p;
	int n;

	if (!f || !(p = field_bytes(c, f, &n)))
		return -1;
	n = (int)strnlen(p, n);
	if ((size_t)n >= len)
		n = (int)len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return 0;
}

/* The function field @name points at: 0 and *@fn (NULL: no symbol), -1 no such field. */
static int sym_of(struct tep_fields *c, const char *name, const char **fn,
		  struct tep_sym_slot **slot)
{
	struct tep_format_field *f = field_of(c, name);
	unsigned long long addr;
	struct tep_sym_slot *s;

	*slot = NULL;
	if (!f || tep_read_number_field(f, c->rec->data, &addr))
		return -1;
	if (!c->cache) {
		*fn = tep_find_function(c->tep, addr);
		return 0;
	}
	s = &c->cache->sym[(addr >> 2) % TEP_SYM_CACHE];
	if (!s->used || s->addr != addr) {
		s->used = true;
		s->addr = addr;
		s->func = tep_find_function(c->tep, addr);
		s->id = 0;
	}
	*fn = s->func;
	*slot = s;
	return 0;
}

static int get_sym(void *ctx, const char *name, char *buf, size_t len)
{
	struct tep_sym_slot *s;
	const char *fn;

	if (sym_of(ctx, name, &fn, &s) || !fn)
		return -1;
	strlcpy_ts(buf, fn, len);
	return 0;
}

/* get_sym() as a string id, interned once per cached address */
static uint32_t get_sym_id(void *ctx, const char *name)
{
	struct tep_fields *c = ctx;
	struct tep_sym_slot *s;
	const char *fn;

	if (sym_of(c, name, &fn, &s) || !fn)
		return 0;
	if (!s)
		return ts_source_intern(c->src, fn);
	if (!s->id)
		s->id = ts_source_intern(c->src, fn);
	return s->id;
}

static int get_mask(void *ctx, const char *name, struct ts_cpumask *m)
{
	struct tep_fields *c = ctx;
	struct tep_format_field *f = field_of(c, name);
	int lsize = tep_get_long_size(c->tep);
	const unsigned char *p;
	int n;

	if (!f || !(p = field_bytes(c, f, &n)))
		return -1;
	if (lsize != 4 && lsize != 8)
		lsize = 8;
	memset(m, 0, sizeof(*m));
	/* a bitmap of unsigned longs in the recorded kernel's byte order */
	for (int i = 0; i < n; i++) {
		int word = i / lsize, byte = i % lsize;
		int base = (word * lsize + (c->bigendian ? lsize - 1 - byte : byte)) * 8;

		for (int b = 0; b < 8; b++) {
			if (!(p[i] & (1 << b)))
				continue;
			if (base + b >= TS_MAX_CPUS)
				return -1;
			ts_cpumask_set(m, base + b);
		}
	}
	return 0;
}

static int get_list(void *ctx, const char **names, int *sizes, int max)
{
	struct tep_fields *c = ctx;
	int n = 0;

	/* format.fields: the event's own fields in order (common_* are in common_fields) */
	for (struct tep_format_field *f = c->event->format.fields; f && n < max; f = f->next) {
		if (!f->name || !strcmp(f->name, "__probe_ip") || !strcmp(f->name, "__probe_func") ||
		    !strcmp(f->name, "__probe_ret_ip"))
			continue;
		names[n] = f->name;
		sizes[n++] = f->size;
	}
	return n;
}

void tep_fields_bind(struct tp_fields *f, struct tep_fields *c, struct ts_source *src)
{
	uint32_t id;

	if (c->cache) {
		struct tep_name_slot *n =
			&c->cache->name[((uintptr_t)c->event >> 4) % TEP_NAME_CACHE];

		if (n->event != c->event) {
			n->event = c->event;
			n->id = ts_source_intern(src, c->event->name);
		}
		id = n->id;
	} else {
		id = ts_source_intern(src, c->event->name);
	}
	c->src = src;
	*f = (struct tp_fields){ .ctx = c, .num = get_num, .str = get_str, .sym = get_sym,
				 .mask = get_mask, .list = get_list,
				 .sym_id = get_sym_id, .name_id = id };
}

struct tep_event *tep_event_of(struct tep_field_cache *cache, struct tep_handle *tep,
			       struct tep_record *rec)
{
	int type = tep_data_type(tep, rec);
	struct tep_event_slot *slot = &cache->ev[(unsigned)type % TEP_EVENT_CACHE];

	if (!slot->used || slot->type != type) {
		slot->type = type;
		slot->used = true;
		slot->event = tep_find_event(tep, type);
	}
	return slot->event;
}
