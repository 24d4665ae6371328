// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracepoint's fields through libtraceevent, for the readers of binary ring-buffer
 * records (trace.dat, live tracefs): every read is bounds-checked against the record, so
 * a corrupt record is a missing field, never a read past its end.
 */
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "tep-fields.h"

/* The value of field @f (field_of() checked it lies in the record). */
static int read_field(struct tep_fields *c, struct tep_format_field *f, unsigned long long *v)
{
	return tep_load_num((const char *)c->rec->data + f->offset, f->size, c->bigendian, v);
}

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

/*
 * A number the getters can read at its place in every record that holds it: 1, 2, 4 or 8
 * bytes, neither an array nor dynamic, its end within an int.
 */
static bool plain_num(const struct tep_format_field *f)
{
	return f && f->offset >= 0 && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	       (f->size == 1 || f->size == 2 || f->size == 4 || f->size == 8) &&
	       f->offset <= INT_MAX - f->size;
}

/*
 * The plain number field @name of the record's event (1, 2, 4 or 8 bytes, neither an array
 * nor dynamic) where it lies in this record: its place kept in the event's slot by the
 * name's address, so the getters asked for the same few fields of every record skip the
 * lookups.  NULL when the cache does not hold it (no cache, a full slot, a field of another
 * kind, past this record): then field_of() and its checks say what there is.  Inlined:
 * as a call it cost as much as the lookups it saves.
 */
static inline __attribute__((always_inline)) const struct tep_direct_field *
direct_of(struct tep_fields *c, const char *name)
{
	struct tep_event_slot *e;
	struct tep_direct_field *d;
	int i;

	if (!(e = tep_fields_slot(c)))
		return NULL;
	for (i = 0; i < e->ndirect && e->direct[i].name != name; i++)
		;
	if (i == e->ndirect) {
		struct tep_format_field *f;

		if (i == TEP_DIRECT_FIELDS)
			return NULL;
		f = tep_find_field(c->event, name);
		d = &e->direct[e->ndirect++];
		d->name = name;
		d->size = 0;	/* not a plain number: the getters' own path */
		if (plain_num(f)) {
			d->off = f->offset;
			d->size = f->size;
			d->sign = f->flags & TEP_FIELD_IS_SIGNED;
		}
	}
	d = &e->direct[i];
	return d->size && d->off + d->size <= c->rec->size ? d : NULL;
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
	if (read_field(c, f, &loc))
		return NULL;
	/* __data_loc: offset in the low 16 bits, length in the high 16 */
	if ((loc & 0xffff) + (loc >> 16) > (unsigned long long)c->rec->size)
		return NULL;
	*len = (int)(loc >> 16);
	return (const char *)c->rec->data + (loc & 0xffff);
}

/* The number of @size bytes at @p, sign-extended when @sign and narrower than 64 bits. */
static inline int num_at(const void *p, int size, bool sign, bool bigendian, int64_t *val)
{
	unsigned long long v;

	if (tep_load_num(p, size, bigendian, &v))
		return -1;
	if (sign && size < 8 && (v >> (size * 8 - 1)) & 1)
		v |= ~0ULL << (size * 8);
	*val = (int64_t)v;
	return 0;
}

/*
 * The bytes of @w (8, little-endian) before its first NUL, the rest zeroed; *@ended when
 * it has one.  A byte is NUL where (b - 1) & ~b has its top bit: exact for the lowest such
 * byte, which is the first.
 */
static inline uint64_t before_nul(uint64_t w, bool *ended)
{
	uint64_t z = (w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL;
	int k;

	*ended = z != 0;
	if (!z)
		return w;
	k = __builtin_ctzll(z) / 8;
	return k ? w & (~0ULL >> (64 - 8 * k)) : 0;
}

/*
 * The string of at most @n bytes at @p into @buf of @len bytes, cut to fit, NUL-ended.
 * The @n bytes lie in the record (field_of(), the plan's end): all 16 of a comm are read.
 */
static inline void str_at(const char *p, int n, char *buf, size_t len)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	if (n == 16 && len >= 16) {
		/*
		 * a task's comm, two in every switch: two words, where libc's strnlen() and
		 * memcpy() took 2 % of live top's time in their calls
		 */
		uint64_t w[2];
		bool ended;

		memcpy(w, p, 16);
		w[0] = before_nul(w[0], &ended);
		w[1] = ended ? 0 : before_nul(w[1], &ended);
		if (len == 16)
			w[1] &= ~0ULL >> 8;	/* cut to fit: 15 bytes and the NUL */
		memcpy(buf, w, 16);
		if (len > 16)
			buf[16] = '\0';
		return;
	}
#endif
	n = (int)strnlen(p, n);
	if ((size_t)n >= len)
		n = (int)len - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
}

static int get_num(void *ctx, const char *name, int64_t *val)
{
	struct tep_fields *c = ctx;
	const struct tep_direct_field *d = direct_of(c, name);
	struct tep_format_field *f;

	if (d)
		return num_at((const char *)c->rec->data + d->off, d->size, d->sign,
			      c->bigendian, val);
	f = field_of(c, name);
	if (!f || (f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)))
		return -1;
	return num_at((const char *)c->rec->data + f->offset, f->size,
		      f->flags & TEP_FIELD_IS_SIGNED, c->bigendian, val);
}

static int get_str(void *ctx, const char *name, char *buf, size_t len)
{
	struct tep_fields *c = ctx;
	struct tep_format_field *f = field_of(c, name);
	const char *p;
	int n;

	if (!f || !(p = field_bytes(c, f, &n)))
		return -1;
	str_at(p, n, buf, len);
	return 0;
}

/*
 * many()'s plan: each field where get_num() or get_str() reads it whenever the record holds
 * it (numbers of 1, 2, 4 or 8 bytes, neither arrays nor dynamic; strings of a fixed size),
 * else none (plan_end 0).
 */
static void plan_fields(struct tep_event_slot *s, const char *const *names, int nn, int ns)
{
	s->plan_names = names;
	s->plan_end = 0;
	for (int i = 0; i < nn + ns; i++) {
		struct tep_format_field *f = tep_find_field(s->event, names[i]);
		bool num = i < nn;

		if (num ? !plain_num(f) :
		    (!f || f->offset < 0 || f->size <= 0 || f->offset > INT_MAX - f->size ||
		     (f->flags & TEP_FIELD_IS_DYNAMIC))) {
			s->plan_end = 0;
			return;
		}
		s->plan[i] = (struct tep_plan_field){ .off = f->offset, .size = f->size,
						      .sign = f->flags & TEP_FIELD_IS_SIGNED };
		if (f->offset + f->size > s->plan_end)
			s->plan_end = f->offset + f->size;
	}
}

static int get_many(void *ctx, const char *const *names, int nn, int64_t *vals, int ns,
		    char **strs, size_t len)
{
	struct tep_fields *c = ctx;
	struct tep_event_slot *s;
	const char *data = c->rec->data;

	if (nn + ns > TEP_PLAN_FIELDS || !(s = tep_fields_slot(c)))
		return 0;
	if (s->plan_names != names)
		plan_fields(s, names, nn, ns);
	if (!s->plan_end || s->plan_end > c->rec->size)
		return 0;
	for (int i = 0; i < nn; i++)
		num_at(data + s->plan[i].off, s->plan[i].size, s->plan[i].sign, c->bigendian,
		       &vals[i]);
	for (int i = 0; i < ns; i++)
		str_at(data + s->plan[nn + i].off, s->plan[nn + i].size, strs[i], len);
	return 1;
}

/* The function field @name points at: 0 and *@fn (NULL: no symbol), -1 no such field. */
static int sym_of(struct tep_fields *c, const char *name, const char **fn,
		  struct tep_sym_slot **slot)
{
	const struct tep_direct_field *d = direct_of(c, name);
	struct tep_format_field *f;
	unsigned long long addr = 0;	/* set: tep_load_num() takes the sizes direct_of() lets by */
	struct tep_sym_slot *s;

	*slot = NULL;
	if (d) {
		tep_load_num((const char *)c->rec->data + d->off, d->size, c->bigendian, &addr);
	} else {
		f = field_of(c, name);
		if (!f || read_field(c, f, &addr))
			return -1;
	}
	if (c->cache && c->cache->lazy_syms && !c->cache->syms_asked) {
		c->cache->syms_asked = true;
		c->cache->lazy_syms(c->cache->lazy_ctx);
	}
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
	c->src = src;
	c->slot = NULL;
	*f = (struct tp_fields){ .ctx = c, .num = get_num, .str = get_str, .sym = get_sym,
				 .mask = get_mask, .list = get_list,
				 .sym_id = get_sym_id, .many = get_many,
				 .name_id = tep_event_name_id(c, src) };
}

/*
 * Where every record has its common_type and common_pid (the common fields of any event's
 * format), learned once: the library's tep_data_type() and tep_data_pid() are two calls
 * and a switch each, per record.  false when the formats do not say (read by the library).
 */
static inline bool common_layout(struct tep_field_cache *cache, struct tep_handle *tep)
{
	struct tep_event *e;
	struct tep_format_field *t, *p;

	if (cache->common_asked)
		return cache->common_ok;
	e = tep_get_events_count(tep) > 0 ? tep_get_event(tep, 0) : NULL;
	t = e ? tep_find_common_field(e, "common_type") : NULL;
	p = e ? tep_find_common_field(e, "common_pid") : NULL;
	cache->common_asked = true;
	cache->common_ok = t && p && t->offset >= 0 && p->offset >= 0 &&
			   (t->size == 1 || t->size == 2 || t->size == 4) && p->size == 4;
	if (cache->common_ok) {
		cache->type_off = t->offset;
		cache->type_size = t->size;
		cache->pid_off = p->offset;
		cache->common_big = tep_is_file_bigendian(tep);
	}
	return cache->common_ok;
}

int tep_record_pid_slow(struct tep_field_cache *cache, struct tep_handle *tep,
			struct tep_record *rec)
{
	unsigned long long v;

	if (!common_layout(cache, tep) || cache->pid_off + 4 > rec->size)
		return tep_data_pid(tep, rec);
	tep_load_num((const char *)rec->data + cache->pid_off, 4, cache->common_big, &v);
	return (int)(int32_t)v;
}

struct tep_event *tep_event_of_slow(struct tep_field_cache *cache, struct tep_handle *tep,
				    struct tep_record *rec)
{
	struct tep_event_slot *slot;
	unsigned long long v = 0;	/* set: type_size is 1, 2 or 4 */
	int type;

	/* libtraceevent learns the common fields from its first event: let the reader parse one */
	if (!cache->common_asked && cache->lazy_event && !tep_get_events_count(tep))
		cache->lazy_event(cache->lazy_ctx, rec, -1);
	if (common_layout(cache, tep) && cache->type_off + cache->type_size <= rec->size) {
		tep_load_num((const char *)rec->data + cache->type_off, cache->type_size,
			     cache->common_big, &v);
		type = (int)v;
	} else {
		type = tep_data_type(tep, rec);
	}
	slot = &cache->ev[(unsigned)type % TEP_EVENT_CACHE];
	if (!slot->used || slot->type != type) {
		slot->type = type;
		slot->used = true;
		slot->event = tep_find_event(tep, type);
		if (!slot->event && cache->lazy_event)
			slot->event = cache->lazy_event(cache->lazy_ctx, rec, type);
		slot->plan_names = NULL;	/* another event's plan, fields and name */
		slot->ndirect = 0;
		slot->name_id = 0;
	}
	cache->last = slot;
	return slot->event;
}
