// SPDX-License-Identifier: GPL-2.0-only
/*
 * A JSON line's members as a view (jsonl-view.h), by the first of three readers that takes
 * the line whole:
 *  - the exact one, for what `tlbscope events` writes: the keys are expected in their
 *    kind's order (jsonl-keys.c), so each is one compare of its written text, and every
 *    value is read in place without allocating;
 *  - the general scanner, for one flat object of integers, plain ASCII strings without
 *    escapes, true/false/null and arrays of integers in any order and spacing (keys found
 *    by a hash, or by the key the same member had on the last line of its kind);
 *  - jansson, for anything else (escapes, UTF-8, reals, nesting, duplicate keys, or lines
 *    that are not JSON, which it refuses with its message).
 * The first two take only lines jansson reads, and give the view jansson's would be.
 */
#include <string.h>

#include "../lib/lib.h"
#include "jsonl-view.h"

static inline size_t key_len(int k)
{
	return jsonl_key_texts()[k].len - 3u;
}

static void jline_reset(struct jline *l)
{
	l->has = 0;
	l->n = 0;
	l->kind = -1;
	l->others = false;
}

/* The value of known key @k, now on the line (false: already was, a duplicate). */
static inline struct jv *jline_known(struct jline *l, int k)
{
	struct jv *v = &l->key[k];

	if (l->has >> k & 1)
		return NULL;
	l->has |= 1ULL << k;
	memset(v, 0, sizeof(*v));
	v->kid = k;
	return v;
}

static struct jv *jline_add(struct jline *l)
{
	ALLOC_GROW(l->m, (size_t)l->n + 1, l->alloc);
	memset(&l->m[l->n], 0, sizeof(l->m[0]));
	return &l->m[l->n++];
}

static const char *skip_ws(const char *p, const char *end)
{
	while (p < end && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n'))
		p++;
	return p;
}

/*
 * A string's bytes, one table lookup each: 0 an ordinary character, STR_END the closing
 * quote, STR_SLOW what the fast path leaves to jansson (escapes, control characters, UTF-8).
 */
enum { STR_END = 1, STR_SLOW = 2 };
static const uint8_t str_class[256] = {
	[0 ... 0x1f] = STR_SLOW, ['"'] = STR_END, ['\\'] = STR_SLOW, [0x80 ... 0xff] = STR_SLOW,
};

/* A string without escapes, UTF-8 or control characters: its closing quote, or NULL. */
static const char *scan_str(const char *p, const char *end)
{
	uint8_t c;

	while (p < end && !(c = str_class[(unsigned char)*p]))
		p++;
	return p < end && c == STR_END ? p : NULL;
}

/* scan_str() of a key, its FNV-1a hash (key_hash()) taken on the way. */
static const char *scan_key(const char *p, const char *end, unsigned *hash)
{
	unsigned h = 2166136261u;
	uint8_t c;

	while (p < end && !(c = str_class[(unsigned char)*p])) {
		h = (h ^ (unsigned char)*p) * 16777619u;
		p++;
	}
	*hash = h;
	return p < end && c == STR_END ? p : NULL;
}

const char *jsonl_scan_int(const char *p, const char *end, int64_t *v)
{
	bool neg = *p == '-';
	uint64_t u = 0;
	const char *d = p + neg;

	if (d >= end || *d < '0' || *d > '9' || (*d == '0' && d + 1 < end && d[1] >= '0' &&
						 d[1] <= '9'))
		return NULL;
	for (p = d; p < end && *p >= '0' && *p <= '9'; p++) {
		if (u > (UINT64_MAX - 9) / 10)
			return NULL;
		u = u * 10 + (uint64_t)(*p - '0');
	}
	if (p < end && (*p == '.' || *p == 'e' || *p == 'E'))
		return NULL;	/* a real */
	if (u > (uint64_t)INT64_MAX + neg)
		return NULL;
	*v = neg ? (int64_t)(0 - u) : (int64_t)u;
	return p;
}

static const char *scan_lit(const char *p, const char *end, const char *lit)
{
	size_t n = strlen(lit);

	return (size_t)(end - p) >= n && !memcmp(p, lit, n) ? p + n : NULL;
}

bool jsonl_view_scan(char *line, size_t len, struct jline *l)
{
	const char *p = line, *end = line + len;
	char *term[2 * JL_MAX];
	int nterm = 0, row = 0, idx = 0;	/* idx: members so far */

	jline_reset(l);
	p = skip_ws(p, end);
	if (p == end || *p++ != '{')
		return false;
	p = skip_ws(p, end);
	if (p < end && *p == '}')
		p++;
	else
		for (;;) {
			struct jv *v;
			const char *q;
			unsigned h;
			int g;

			if (idx == JL_MAX || p >= end || *p != '"')
				return false;
			g = l->guess[row][idx] - 1;
			if (g >= 0 && (size_t)(end - p) > key_len(g) + 1u && p[1 + key_len(g)] == '"' &&
			    !memcmp(p + 1, jsonl_key_names[g], key_len(g))) {
				q = p + 1 + key_len(g);		/* what scan_key() would find */
			} else {
				if (!(q = scan_key(p + 1, end, &h)))
					return false;
				g = jsonl_key_id(p + 1, (size_t)(q - p - 1), h);
				l->guess[row][idx] = (uint8_t)(g + 1);
			}
			idx++;
			if (g >= 0) {
				if (!(v = jline_known(l, g)))
					return false;	/* a duplicate key: jansson's to refuse */
			} else {
				v = jline_add(l);
				v->kid = -1;
				l->others = true;
			}
			v->key = p + 1;
			term[nterm++] = (char *)q;
			p = skip_ws(q + 1, end);
			if (p >= end || *p++ != ':')
				return false;
			p = skip_ws(p, end);
			if (p >= end)
				return false;
			if (*p == '"') {
				if (!(q = scan_str(p + 1, end)))
					return false;
				v->type = JV_STR;
				v->s = p + 1;
				v->len = (uint32_t)(q - v->s);
				v->ascii = true;
				term[nterm++] = (char *)q;
				if (v->kid == K_KIND) {
					l->kind = jsonl_kind_id(v->s, (size_t)(q - v->s));
					if (q > v->s)
						row = ((unsigned char)v->s[0] * 3 +
						       (unsigned char)v->s[q - v->s - 1] +
						       (unsigned)(q - v->s)) & 15;
				}
				p = q + 1;
			} else if (*p == '-' || (*p >= '0' && *p <= '9')) {
				v->type = JV_INT;
				if (!(p = jsonl_scan_int(p, end, &v->i)))
					return false;
			} else if (*p == '[') {
				int64_t t;

				v->type = JV_ARR;
				v->arr = ++p;
				p = skip_ws(p, end);
				if (p < end && *p == ']') {
					p++;
				} else {
					for (;;) {
						if (p >= end || !(p = jsonl_scan_int(p, end, &t)))
							return false;
						p = skip_ws(p, end);
						if (p < end && *p == ',') {
							p = skip_ws(p + 1, end);
							continue;
						}
						if (p >= end || *p++ != ']')
							return false;
						break;
					}
				}
			} else if ((q = scan_lit(p, end, "true")) || (q = scan_lit(p, end, "false"))) {
				v->type = JV_BOOL;
				v->b = *p == 't';
				p = q;
			} else if ((q = scan_lit(p, end, "null"))) {
				v->type = JV_NULL;
				p = q;
			} else {
				return false;	/* nested objects and the rest: jansson's */
			}
			p = skip_ws(p, end);
			if (p < end && *p == ',') {
				p = skip_ws(p + 1, end);
				continue;
			}
			if (p >= end || *p++ != '}')
				return false;
			break;
		}
	if (skip_ws(p, end) != end)
		return false;
	/* jansson refuses duplicate keys (JSON_REJECT_DUPLICATES): among the unknown ones too */
	for (int i = 0; i < l->n; i++)
		for (int k = i + 1; k < l->n; k++) {
			const char *a = l->m[i].key, *b = l->m[k].key;

			while (*a == *b && *a != '"')
				a++, b++;
			if (*a == '"' && *b == '"')
				return false;
		}
	for (int i = 0; i < nterm; i++)
		*term[i] = '\0';
	return true;
}

void jsonl_view_json(json_t *o, struct jline *l)
{
	const char *key;
	json_t *v;

	jline_reset(l);
	json_object_foreach(o, key, v) {
		size_t n = strlen(key);
		int kid = jsonl_key_id(key, n, jsonl_key_hash(key, n));
		struct jv *m;

		/* jansson's keys are unique (JSON_REJECT_DUPLICATES); others are not read */
		if (kid < 0 || !(m = jline_known(l, kid))) {
			l->others = true;
			continue;
		}
		m->key = key;
		if (json_is_integer(v)) {
			m->type = JV_INT;
			m->i = json_integer_value(v);
		} else if (json_is_string(v)) {
			m->type = JV_STR;
			m->s = json_string_value(v);
			m->len = (uint32_t)json_string_length(v);
			m->ascii = false;	/* not known */
			if (m->kid == K_KIND)
				l->kind = jsonl_kind_id(m->s, strlen(m->s));
		} else if (json_is_boolean(v)) {
			m->type = JV_BOOL;
			m->b = json_is_true(v);
		} else if (json_is_null(v)) {
			m->type = JV_NULL;
		} else if (json_is_array(v)) {
			m->type = JV_ARR;
			m->jarr = v;
		} else {
			m->type = JV_OTHER;
		}
	}
}


/* ---- the exact reader ---- */

/*
 * The bytes at @p are key @t's written text ("name":)?  @end: where the bytes end.
 * A word at a time where 24 bytes are left: a different key differs in its first word.
 */
static inline bool at_key(const char *p, const char *end, const struct jsonl_key_text *t)
{
	if (end - p < 24)
		return end - p >= t->len && !memcmp(p, t->w, t->len);
	if ((jsonl_load8(p) ^ t->w[0]) & t->m[0])
		return false;
	return !(((jsonl_load8(p + 8) ^ t->w[1]) & t->m[1]) |
		 ((jsonl_load8(p + 16) ^ t->w[2]) & t->m[2]));
}

#define ONES	0x0101010101010101ULL
#define HIGHS	0x8080808080808080ULL

/*
 * The end of a plain string starting at @p (printable ASCII, no '\\'): its closing quote,
 * or NULL.  Eight bytes at a time while eight are left before @end: a byte below 0x20,
 * past 0x7f, '"' or '\\' marks the word, and the first marked byte is the first such
 * (borrows run only upwards from a real one).
 */
static inline const char *plain_str_end(const char *p, const char *end)
{
	while (end - p >= 8) {
		uint64_t w = jsonl_load8(p), q = w ^ (ONES * '"'), b = w ^ (ONES * '\\');
		/* below 0x20, == '"', == '\\' (a zero byte of q or b), or past 0x7f */
		uint64_t mark = (((w - ONES * 0x20) & ~w) | ((q - ONES) & ~q) | ((b - ONES) & ~b) |
				 w) & HIGHS;

		if (mark) {
			p += __builtin_ctzll(mark) / 8;
			return *p == '"' ? p : NULL;
		}
		p += 8;
	}
	for (; p < end; p++) {
		uint8_t c = str_class[(unsigned char)*p];

		if (c)
			return c == STR_END ? p : NULL;
	}
	return NULL;
}

/*
 * An integer as jsonl_scan_int() takes it, its digits summed without a check per digit
 * while there are at most 18 of them (never past INT64_MAX); longer ones are its to judge.
 * The object ends in '}' before @end, or a NUL is at @end: the digits end before @end.
 */
static inline const char *exact_int(const char *p, const char *end, int64_t *v)
{
	const char *d = p + (*p == '-'), *q = d;
	uint64_t u = 0;
	unsigned c;

	while ((c = (unsigned char)*q - '0') < 10) {
		u = u * 10 + c;
		q++;
	}
	if (q == d || q - d > 18 || (*d == '0' && q - d > 1) || *q == '.' || (*q | 0x20) == 'e')
		return q - d > 18 ? jsonl_scan_int(p, end, v) : NULL;
	*v = *p == '-' ? -(int64_t)u : (int64_t)u;
	return q;
}

/* The keys a line may have before its "kind" says which kind's order follows. */
static const uint8_t before_kind[] = { K_TS, K_CPU, K_KIND };

/*
 * Each kind's keys in order with their written texts; orders[N_KINDS]: the keys before
 * "kind".  Built once.
 */
static struct order {
	const uint8_t *keys;
	int n;
	int kind_at;		/* where "kind" is: the keys after it follow it there */
	struct jsonl_key_text text[JSONL_KEYS_MAX];
} orders[N_KINDS + 1];
static bool orders_built;

static void build_orders(void)
{
	const struct jsonl_key_text *kt = jsonl_key_texts();

	for (int k = 0; k <= N_KINDS; k++) {
		struct order *o = &orders[k];

		o->keys = k < N_KINDS ? jsonl_kinds[k].keys : before_kind;
		o->n = k < N_KINDS ? jsonl_kinds[k].nkeys : (int)sizeof(before_kind);
		for (int i = 0; i < o->n; i++) {
			o->text[i] = kt[o->keys[i]];
			if (o->keys[i] == K_KIND)
				o->kind_at = i;
		}
	}
	orders_built = true;
}

/* Where the view of an object puts the NULs that end its strings. */
struct terms {
	char *at[JSONL_KEYS_MAX + 3];
	int n;
};

static void terminate(const struct terms *t)
{
	for (int i = 0; i < t->n; i++)
		*t->at[i] = '\0';
}

/*
 * The exact view of the object at @line, bounded by @end (a NUL or other byte past its
 * members is at @end): where its '}' is, or NULL.  Its strings' ends into *@ends, for
 * terminate() once the object is taken.
 */
static const char *view_exact(char *line, const char *end, struct jline *l, struct terms *ends)
{
	const char *p = line + 1;
	/* the order in locals: stores through v would make them reloaded from orders[] */
	const struct jsonl_key_text *texts = orders[N_KINDS].text;
	const uint8_t *keys = before_kind;
	int nkeys = sizeof(before_kind), at = 0, nends = 0;
	uint64_t has = 0;

	if (end - line < 2 || line[0] != '{')
		return NULL;
	if (!orders_built)
		build_orders();
	jline_reset(l);
	ends->n = 0;
	if (*p == '}')
		return p;	/* {} */
	for (;;) {
		struct jv *v;
		int k;

		while (at < nkeys && !at_key(p, end, &texts[at]))
			at++;
		if (at == nkeys)
			return NULL;	/* another key, or out of order */
		k = keys[at];
		p += texts[at++].len;
		/* keys only go forward in the order: none is met twice */
		v = &l->key[k];
		has |= 1ULL << k;
		v->key = NULL;
		v->kid = k;
		if (p >= end)
			return NULL;
		if (*p == '"') {
			const char *q = plain_str_end(++p, end);

			if (!q)
				return NULL;
			v->type = JV_STR;
			v->s = p;
			v->len = (uint32_t)(q - p);
			v->ascii = true;
			ends->at[nends++] = (char *)q;
			if (k == K_KIND) {
				int kind = jsonl_kind_id(p, (size_t)(q - p));

				/* another kind has its keys in another order */
				if (kind < 0)
					return NULL;
				l->kind = kind;
				texts = orders[kind].text;
				keys = orders[kind].keys;
				nkeys = orders[kind].n;
				at = orders[kind].kind_at + 1;
			}
			p = q + 1;
		} else if ((unsigned)(*p - '0') < 10 || *p == '-') {
			v->type = JV_INT;
			if (!(p = exact_int(p, end, &v->i)))
				return NULL;
		} else if (*p == '[') {
			int64_t t;

			v->type = JV_ARR;
			v->arr = ++p;
			v->jarr = NULL;
			if (p < end && *p == ']') {
				p++;
			} else {
				for (;;) {
					if (!(p = jsonl_scan_int(p, end, &t)) || p >= end)
						return NULL;
					if (*p == ',') {
						p++;
						continue;
					}
					if (*p++ != ']')
						return NULL;
					break;
				}
			}
		} else if (end - p >= 4 && !memcmp(p, "true", 4)) {
			v->type = JV_BOOL;
			v->b = true;
			p += 4;
		} else if (end - p >= 5 && !memcmp(p, "false", 5)) {
			v->type = JV_BOOL;
			v->b = false;
			p += 5;
		} else if (end - p >= 4 && !memcmp(p, "null", 4)) {
			v->type = JV_NULL;
			p += 4;
		} else {
			return NULL;
		}
		if (p >= end)
			return NULL;
		if (*p == '}')
			break;
		if (*p++ != ',' || p >= end)
			return NULL;
	}
	l->has = has;
	ends->n = nends;
	return p;
}

bool jsonl_view_exact(char *line, size_t len, struct jline *l)
{
	struct terms t;

	/* the line's last byte its '}' (a member's value never takes one) */
	if (len < 2 || line[len - 1] != '}' || view_exact(line, line + len, l, &t) != line + len - 1)
		return false;
	terminate(&t);
	return true;
}

size_t jsonl_view_exact_line(char *p, size_t avail, struct jline *l)
{
	struct terms t;
	const char *end = view_exact(p, p + avail, l, &t);

	if (!end || end[1] != '\n')	/* p[avail] is a NUL: end + 1 is still in bounds */
		return 0;
	terminate(&t);
	return (size_t)(end + 1 - p);
}
