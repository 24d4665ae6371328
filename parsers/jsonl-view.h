/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to the JSON-lines reader: one line's members as a view that decode() in
 * jsonl.c reads, filled by one of three readers of the line (jsonl-view.c), fastest first.
 */
#ifndef TLBSCOPE_PARSERS_JSONL_VIEW_H
#define TLBSCOPE_PARSERS_JSONL_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "jsonl-keys.h"

enum jv_type { JV_NULL, JV_BOOL, JV_INT, JV_STR, JV_ARR, JV_OTHER };

struct jv {
	const char *key;	/* NUL- or '"'-terminated; NULL from the exact reader */
	int kid;		/* enum jkey, -1 another key */
	uint8_t type;
	bool b;
	int64_t i;
	const char *s;		/* JV_STR, NUL-terminated */
	uint32_t len;		/* JV_STR: strlen(s), unless s holds a NUL (jansson's \u0000) */
	bool ascii;		/* JV_STR: known to be ASCII */
	const char *arr;	/* JV_ARR from a scanner: the text after '[' */
	json_t *jarr;		/* JV_ARR from jansson */
};

#define JL_MAX	64	/* members the scanners take; jansson's lines may have more */

struct jline {
	uint64_t has;		/* bit k: known key k is on the line, its value in key[k] */
	struct jv key[N_KEYS];
	struct jv *m;		/* the general scanner's members of other keys */
	int n, alloc;
	int kind;		/* enum jkind of its "kind" string, -1 none or another */
	bool others;		/* some key is not a known one */
	/*
	 * The general scanner's guesses: the known key + 1 that member i had on the last line
	 * of the same kind (0: none; row 0 before the "kind" member, then a row per hash of
	 * its value), checked by a compare before a hash and a table probe
	 */
	uint8_t guess[16][JL_MAX];
};

/*
 * jsonl_view_exact - the view of @line[0..@len) when it is exactly as `tlbscope events`
 * writes it: '{', "key":value members joined by ',' with no blanks, the keys in their
 * kind's order of jsonl_kinds[] (some left out), integers, strings of printable ASCII
 * without escapes, true/false/null, arrays of integers, '}'.  Its strings are then
 * NUL-terminated in place.  false, the line untouched, for jsonl_view_scan().
 */
bool jsonl_view_exact(char *line, size_t len, struct jline *l);
/*
 * jsonl_view_exact_line - the same of the line that starts at @p, found as it is parsed in
 * the @avail bytes there (@p[@avail] a NUL): its length (its '\n' then at @p + length),
 * or 0 when it is not such a line or not whole in them (nothing changed).
 */
size_t jsonl_view_exact_line(char *p, size_t avail, struct jline *l);
/*
 * jsonl_view_scan - the same of any one flat object of those values, keys in any order,
 * blanks anywhere JSON allows them; false, the line untouched, for jansson.
 */
bool jsonl_view_scan(char *line, size_t len, struct jline *l);
/* jsonl_view_json - the members of jansson's object @o (borrowed from it). */
void jsonl_view_json(json_t *o, struct jline *l);

/* An integer as JSON writes it (no leading zeros) that fits int64: past it, or NULL. */
const char *jsonl_scan_int(const char *p, const char *end, int64_t *v);

_Static_assert(N_KEYS <= 64, "struct jline's has: a bit per known key");

static inline const struct jv *jget(const struct jline *o, enum jkey k)
{
	return o->has >> k & 1 ? &o->key[k] : NULL;
}

static inline const char *jstr(const struct jline *o, enum jkey key)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_STR ? v->s : NULL;
}

static inline bool jtrue(const struct jline *o, enum jkey key)
{
	const struct jv *v = jget(o, key);

	return v && v->type == JV_BOOL && v->b;
}

#endif
