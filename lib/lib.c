// SPDX-License-Identifier: GPL-2.0-only
/*
 * Shared helpers: allocation that aborts on exhaustion, the string interner, the
 * integer hash map and checked number parsing.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "lib.h"

static void oom(size_t size)
{
	fprintf(stderr, "tlbscope: out of memory allocating %zu bytes\n", size);
	abort();
}

void vmessage(bool warn, const char *fmt, va_list ap)
{
	fflush(stdout);
	fputs(warn ? "tlbscope: warning: " : "tlbscope: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);

	if (!p)
		oom(nmemb * size);
	return p;
}

void prefault(void *p, size_t len)
{
#ifdef MADV_POPULATE_WRITE
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);	/* 4 KiB, or 16/64 KiB (arm64) */
	uintptr_t a = ((uintptr_t)p + page - 1) & ~(page - 1);
	uintptr_t b = ((uintptr_t)p + len) & ~(page - 1);

	/* an older kernel says EINVAL: the pages then come one fault at a time */
	if (b > a)
		(void)madvise((void *)a, b - a, MADV_POPULATE_WRITE);
#else
	(void)p;
	(void)len;
#endif
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

uint8_t *id_byte_grow(uint8_t **cache, size_t *n, uint32_t id)
{
	ALLOC_GROW_ZERO(*cache, (size_t)id + 1, *n);
	return &(*cache)[id];
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom(strlen(s) + 1);
	return p;
}

size_t utf8_char_len(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	uint32_t cp;
	size_t n;

	if (!p[0])
		return 0;
	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)	/* also stops at the NUL */
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	if ((n == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
	    (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
		return 0;
	return n;
}

bool utf8_valid(const char *s)
{
	while (*s) {
		size_t n;

		if ((unsigned char)*s < 0x80) {
			s++;
			continue;
		}
		n = utf8_char_len(s);
		if (!n)
			return false;
		s += n;
	}
	return true;
}

size_t utf8_escape(const char *s, char *out, size_t size)
{
	size_t o = 0, need = 0;
	bool full = !size;

	while (*s) {
		size_t n = utf8_char_len(s), w = n ? n : 4;

		if (!full && o + w < size) {
			if (n)
				memcpy(out + o, s, n);
			else
				snprintf(out + o, 5, "\\x%02x", (unsigned char)*s);
			o += w;
		} else {
			full = true;
		}
		need += w;
		s += n ? n : 1;
	}
	if (size)
		out[o] = '\0';
	return need;
}

size_t strlcpy_ts(char *dst, const char *src, size_t size)
{
	size_t len = strlen(src);

	if (size) {
		size_t n = len < size - 1 ? len : size - 1;

		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}

/* ---- string interner ---- */

/*
 * id -> string in segments that never move: segment k holds 256 << k ids, allocated when
 * the first of them is interned.  So the string of an id handed to another thread (in an
 * event published with a release, cli/model-thread.c) stays readable there while this
 * thread interns more: strtab_get() reads no array that a realloc() could free under it.
 * Only the thread that interns may call the other functions meanwhile.
 */
#define STR_SEG0_BITS	8
#define STR_SEGS	(32 - STR_SEG0_BITS)

struct strtab {
	char **seg[STR_SEGS];
	uint32_t *hash, *len;	/* id -> its hash_bytes() and length: a probe compares these */
	uint32_t nr, alloc_meta;	/* nr: written with a release (strtab_get()) */
	uint32_t *slots;	/* hash slot -> id + 1, 0 = empty */
	uint32_t nslots;	/* power of two, kept at most half full */
};

/* Eight bytes at a time, multiply and fold (the strings are short names: mostly one word). */
static uint32_t hash_bytes(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len, w;

	for (; len >= 8; s += 8, len -= 8) {
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (len) {
		w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return (uint32_t)(h ^ (h >> 32));
}

struct strtab *strtab_new(void)
{
	struct strtab *t = xcalloc(1, sizeof(*t));

	t->nslots = 64;
	t->slots = xcalloc(t->nslots, sizeof(*t->slots));
	strtab_intern(t, "");
	return t;
}

/* The place of string @id: segment *@k, index returned. */
static inline uint32_t str_seg(uint32_t id, unsigned *k)
{
	uint32_t q = (id >> STR_SEG0_BITS) + 1;

	*k = 31 - (unsigned)__builtin_clz(q);
	return id - (((1u << *k) - 1) << STR_SEG0_BITS);
}

static inline char *str_of(const struct strtab *t, uint32_t id)
{
	unsigned k;
	uint32_t i = str_seg(id, &k);

	return t->seg[k][i];
}

void strtab_free(struct strtab *t)
{
	if (!t)
		return;
	for (uint32_t i = 0; i < t->nr; i++)
		free(str_of(t, i));
	for (unsigned k = 0; k < STR_SEGS; k++)
		free(t->seg[k]);
	free(t->hash);
	free(t->len);
	free(t->slots);
	free(t);
}

static void strtab_rehash(struct strtab *t)
{
	uint32_t n = t->nslots * 2;
	uint32_t *slots = xcalloc(n, sizeof(*slots));

	for (uint32_t id = 0; id < t->nr; id++) {
		uint32_t h = t->hash[id] & (n - 1);

		while (slots[h])
			h = (h + 1) & (n - 1);
		slots[h] = id + 1;
	}
	free(t->slots);
	t->slots = slots;
	t->nslots = n;
}

static uint32_t *strtab_slot(const struct strtab *t, const char *s, size_t len, uint32_t hash)
{
	uint32_t h = hash & (t->nslots - 1);

	for (;;) {
		uint32_t *slot = &t->slots[h];
		uint32_t id;

		if (!*slot)
			return slot;
		id = *slot - 1;
		if (t->hash[id] == hash && t->len[id] == len && !memcmp(str_of(t, id), s, len))
			return slot;
		h = (h + 1) & (t->nslots - 1);
	}
}

uint32_t strtab_intern_n(struct strtab *t, const char *s, size_t len)
{
	uint32_t hash = hash_bytes(s, len), *slot;
	char *copy;
	unsigned k;
	uint32_t i;

	if ((t->nr + 1) * 2 > t->nslots)
		strtab_rehash(t);
	slot = strtab_slot(t, s, len, hash);
	if (*slot)
		return *slot - 1;
	copy = xmalloc(len + 1);
	memcpy(copy, s, len);
	copy[len] = '\0';
	if (t->nr >= (uint32_t)(((1ULL << STR_SEGS) - 1) << STR_SEG0_BITS))
		oom(len + 1);	/* every id of every segment taken: 4,294,967,040 strings */
	i = str_seg(t->nr, &k);
	if (!t->seg[k])
		t->seg[k] = xmalloc(((size_t)1 << (k + STR_SEG0_BITS)) * sizeof(*t->seg[k]));
	if (t->nr + 1 > t->alloc_meta) {
		t->alloc_meta = t->alloc_meta ? t->alloc_meta * 2 : 64;
		t->hash = xrealloc(t->hash, t->alloc_meta * sizeof(*t->hash));
		t->len = xrealloc(t->len, t->alloc_meta * sizeof(*t->len));
	}
	t->seg[k][i] = copy;
	t->hash[t->nr] = hash;
	t->len[t->nr] = (uint32_t)len;
	*slot = t->nr + 1;
	__atomic_store_n(&t->nr, t->nr + 1, __ATOMIC_RELEASE);
	return t->nr - 1;
}

uint32_t strtab_intern(struct strtab *t, const char *s)
{
	return strtab_intern_n(t, s, strlen(s));
}

uint32_t strtab_lookup(const struct strtab *t, const char *s)
{
	size_t len = strlen(s);
	uint32_t *slot = strtab_slot(t, s, len, hash_bytes(s, len));

	return *slot ? *slot - 1 : 0;
}

const char *strtab_get(const struct strtab *t, uint32_t id)
{
	return id < __atomic_load_n(&t->nr, __ATOMIC_ACQUIRE) ? str_of(t, id) : NULL;
}

uint32_t strtab_count(const struct strtab *t)
{
	return t->nr;
}

/* ---- u64 map ---- */

static size_t hash_u64(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k;
}

void u64map_init(struct u64map *m)
{
	memset(m, 0, sizeof(*m));
}

void u64map_release(struct u64map *m)
{
	free(m->keys);
	free(m->vals);
	free(m->used);
	u64map_init(m);
}

static size_t u64map_slot(const struct u64map *m, uint64_t key)
{
	size_t h = hash_u64(key) & (m->cap - 1);

	while (m->used[h] && m->keys[h] != key)
		h = (h + 1) & (m->cap - 1);
	return h;
}

static void u64map_grow(struct u64map *m)
{
	struct u64map n = { .cap = m->cap ? m->cap * 2 : 64 };

	n.keys = xcalloc(n.cap, sizeof(*n.keys));
	n.vals = xcalloc(n.cap, sizeof(*n.vals));
	n.used = xcalloc(n.cap, 1);
	for (size_t i = 0; i < m->cap; i++) {
		size_t h;

		if (!m->used[i])
			continue;
		h = u64map_slot(&n, m->keys[i]);
		n.used[h] = 1;
		n.keys[h] = m->keys[i];
		n.vals[h] = m->vals[i];
		n.nr++;
	}
	u64map_release(m);
	*m = n;
}

uint64_t *u64map_get(struct u64map *m, uint64_t key, uint64_t dflt, bool *added)
{
	size_t h;

	if (added)
		*added = false;
	if ((m->nr + 1) * 2 > m->cap)
		u64map_grow(m);
	h = u64map_slot(m, key);
	if (!m->used[h]) {
		m->used[h] = 1;
		m->keys[h] = key;
		m->vals[h] = dflt;
		m->nr++;
		if (added)
			*added = true;
	}
	return &m->vals[h];
}

uint64_t *u64map_find(const struct u64map *m, uint64_t key)
{
	size_t h;

	if (!m->cap)
		return NULL;
	h = u64map_slot(m, key);
	return m->used[h] ? &m->vals[h] : NULL;
}

/*
 * Linear probing keeps every key between its home slot and where it sits, with no empty
 * slot in between: the entries after the hole move back into it while that still holds.
 */
bool u64map_del(struct u64map *m, uint64_t key)
{
	size_t h, j;

	if (!m->cap)
		return false;
	h = u64map_slot(m, key);
	if (!m->used[h])
		return false;
	m->used[h] = 0;
	m->nr--;
	for (j = (h + 1) & (m->cap - 1); m->used[j]; j = (j + 1) & (m->cap - 1)) {
		size_t home = hash_u64(m->keys[j]) & (m->cap - 1);

		/* the entry at j may move to h when its home is not within (h, j] */
		if (h <= j ? (home > h && home <= j) : (home > h || home <= j))
			continue;
		m->keys[h] = m->keys[j];
		m->vals[h] = m->vals[j];
		m->used[h] = 1;
		m->used[j] = 0;
		h = j;
	}
	return true;
}

bool u64map_next(const struct u64map *m, size_t *i, uint64_t *key, uint64_t **val)
{
	for (; *i < m->cap; (*i)++) {
		if (!m->used[*i])
			continue;
		*key = m->keys[*i];
		*val = &m->vals[*i];
		(*i)++;
		return true;
	}
	return false;
}

/* ---- numbers ---- */

int parse_u64(const char *s, int base, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == ' ')
		return -1;
	errno = 0;
	v = strtoull(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_s64(const char *s, int base, int64_t *out)
{
	long long v;
	char *end;

	if (!s || !*s || *s == ' ')
		return -1;
	errno = 0;
	v = strtoll(s, &end, base);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

int parse_int(const char *s, int *out)
{
	int64_t v;

	if (parse_s64(s, 10, &v) || v < INT_MIN || v > INT_MAX)
		return -1;
	*out = (int)v;
	return 0;
}

int parse_duration_ns(const char *s, uint64_t *out)
{
	static const struct { const char *suffix; double mult; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	double mult = 1e9, v;
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s)
		return -1;
	if (*end) {
		size_t i;

		for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(end, units[i].suffix))
				break;
		if (i == sizeof(units) / sizeof(units[0]))
			return -1;
		mult = units[i].mult;
	}
	/* "nan", "inf" and what overflows a u64 of ns are not durations */
	if (!isfinite(v) || v < 0 || v * mult > 1.8e19)
		return -1;
	*out = (uint64_t)(v * mult + 0.5);
	return 0;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool in_init_pid_ns(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	bool init = true;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *p = line + 6, *end;
		int levels = 0;

		if (strncmp(line, "NSpid:", 6))
			continue;
		/* "NSpid:\t1234\t5": one pid per namespace level, the initial one first */
		for (;; p = end, levels++) {
			strtol(p, &end, 10);
			if (end == p)
				break;
		}
		init = levels == 1;
		break;
	}
	fclose(f);
	return init;
}

int read_file(const char *path, char **buf, size_t *len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC), saved;
	size_t alloc = 0;
	ssize_t r;

	*buf = NULL;
	*len = 0;
	if (fd < 0)
		return -1;
	for (;;) {
		ALLOC_GROW(*buf, *len + 65536, alloc);
		r = read(fd, *buf + *len, alloc - *len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		*len += (size_t)r;
	}
	saved = errno;
	close(fd);
	if (r < 0) {
		free(*buf);
		*buf = NULL;
		*len = 0;
		errno = saved;
		return -1;
	}
	return 0;
}
