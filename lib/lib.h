/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * lib/ - the few helpers every folder shares: checked allocation, growable arrays,
 * a string interner, an integer-keyed hash map and checked number parsing.
 */
#ifndef TLBSCOPE_LIB_H
#define TLBSCOPE_LIB_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * Allocation failure is not an input error: like git's xmalloc(), these report it and
 * abort instead of threading ENOMEM through every layer.
 */
/*
 * "tlbscope: " (@warn: "tlbscope: warning: ") and the message on stderr, stdout flushed
 * first so that the two interleave as written.
 */
void vmessage(bool warn, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
/*
 * prefault - the whole pages of @p's @len bytes, about to be written whole (a read into
 * them), made present in one call: page by page, each first write is a fault (11 us each
 * on a virtual machine with shadow page tables, 5 us made present together).
 */
void prefault(void *p, size_t len);
char *xstrdup(const char *s);

/*
 * ALLOC_GROW(items, nr, alloc) - make room for items[nr], growing by half (git's idiom).
 * Example: ALLOC_GROW(v, n + 1, v_alloc); v[n++] = x;
 */
#define ALLOC_GROW(x, nr, alloc)						\
	do {									\
		if ((size_t)(nr) > (size_t)(alloc)) {				\
			size_t _a = ((size_t)(alloc) + 16) * 3 / 2;		\
			if (_a < (size_t)(nr))					\
				_a = (nr);					\
			(x) = xrealloc((x), _a * sizeof(*(x)));			\
			(alloc) = _a;						\
		}								\
	} while (0)

/*
 * ALLOC_GROW_ZERO(items, nr, alloc) - as ALLOC_GROW, the new cells zeroed: for tables
 * indexed by an id (items[id] valid for id < nr once grown).
 * Example: ALLOC_GROW_ZERO(mms, id + 1, nmms); mms[id].count++;
 */
#define ALLOC_GROW_ZERO(x, nr, alloc)						\
	do {									\
		size_t _old = (alloc);						\
		ALLOC_GROW(x, nr, alloc);					\
		if ((size_t)(alloc) > _old)					\
			memset((x) + _old, 0, ((size_t)(alloc) - _old) * sizeof(*(x)));	\
	} while (0)

/*
 * id_byte - the byte of @id in a cache of bytes indexed by a string id (*@n of them, 0 for
 * "not known yet"), the cache grown zeroed to hold it.  Inlined: asked per record, and
 * nearly always held already.
 * Example: uint8_t *b = id_byte(&tlb, &ntlb, func); if (!*b) *b = is_tlb(func) ? 1 : 2;
 */
uint8_t *id_byte_grow(uint8_t **cache, size_t *n, uint32_t id);
static inline uint8_t *id_byte(uint8_t **cache, size_t *n, uint32_t id)
{
	return id < *n ? &(*cache)[id] : id_byte_grow(cache, n, id);
}

/* CLOCK_MONOTONIC now, in ns: intervals and deadlines (live tracefs stamps events with it) */
uint64_t mono_ns(void);

/*
 * Is this process in the initial pid namespace?  Trace events carry the kernel's global
 * pids; the /proc of another namespace numbers tasks otherwise (false also when unknown).
 */
bool in_init_pid_ns(void);

/*
 * read_file - all of @path (a /proc or tracefs file too, which have no size) into *@buf,
 * new (free() it), *@len bytes.  0, or -1 with errno set and *@buf NULL.
 */
int read_file(const char *path, char **buf, size_t *len);

/* String interner: id 0 is "", ids are dense and stable; strings owned by the table. */
struct strtab;
struct strtab *strtab_new(void);
void strtab_free(struct strtab *t);
uint32_t strtab_intern(struct strtab *t, const char *s);
uint32_t strtab_intern_n(struct strtab *t, const char *s, size_t len);
/* Returns the id of @s or 0 when absent (and @s is not ""). */
uint32_t strtab_lookup(const struct strtab *t, const char *s);
/* borrowed; NULL if no such id.  Safe from another thread for an id published to it. */
const char *strtab_get(const struct strtab *t, uint32_t id);
uint32_t strtab_count(const struct strtab *t);

/* Open-addressing map uint64 key -> uint64 value; keys may be any value. */
struct u64map {
	uint64_t *keys;
	uint64_t *vals;
	uint8_t *used;
	size_t nr, cap;
};
void u64map_init(struct u64map *m);
void u64map_release(struct u64map *m);
/* Returns a pointer to the value of @key, inserting @dflt when absent (then *@added = true). */
uint64_t *u64map_get(struct u64map *m, uint64_t key, uint64_t dflt, bool *added);
uint64_t *u64map_find(const struct u64map *m, uint64_t key);
/* Remove @key; false when it was not there.  Pointers into the map go stale. */
bool u64map_del(struct u64map *m, uint64_t key);
/*
 * The next entry from *@i (0 to start): its key and a pointer to its value; false after the
 * last.  The map must not grow during the walk.
 * Example: size_t i = 0; uint64_t k, *v; while (u64map_next(&m, &i, &k, &v)) *v = 0;
 */
bool u64map_next(const struct u64map *m, size_t *i, uint64_t *key, uint64_t **val);

/* Checked number parsing: whole string, no overflow; 0 ok, -1 not a number. */
int parse_u64(const char *s, int base, uint64_t *out);
int parse_s64(const char *s, int base, int64_t *out);
int parse_int(const char *s, int *out);
/* "1.5" seconds or "1500ms", "20us", "300ns" -> ns; plain numbers are seconds. */
int parse_duration_ns(const char *s, uint64_t *out);

/* Copy at most size-1 bytes and terminate; returns strlen(src). */
size_t strlcpy_ts(char *dst, const char *src, size_t size);

/* The length (1..4) of the UTF-8 character at @s, 0 when it is not one (or at the NUL). */
size_t utf8_char_len(const char *s);
/* Is NUL-terminated @s all UTF-8 (overlong forms, surrogates and past U+10FFFF are not)? */
bool utf8_valid(const char *s);
/*
 * @s with every byte that is not part of a UTF-8 character written as the four characters
 * \xNN (lowercase hex) into @out of @size bytes, cut before an escape or a character that
 * would not fit; returns the length the whole escaped string needs (without the NUL), as
 * snprintf() does.  utf8_escape("a\xffb", out, 16) gives "a\\xffb", 6.
 */
size_t utf8_escape(const char *s, char *out, size_t size);

/*
 * A relay (relay.c): one thread doing @work(@ctx, slot) on the caller's @nslots buffers in
 * the order they are handed over; with no @thread (or when none starts), the caller does it
 * in relay_put(), on the first buffer always.  relay_new() returns NULL for no buffer;
 * relay_slot() the next buffer to fill, once the thread is done with its last use;
 * relay_put() hands it over; relay_free() returns once every buffer handed over is done
 * (NULL: nothing).
 */
struct relay;
struct relay *relay_new(void **slots, unsigned nslots, void (*work)(void *ctx, void *slot),
			void *ctx, bool thread);
void *relay_slot(struct relay *r);
void relay_put(struct relay *r);
void relay_free(struct relay *r);

#endif
