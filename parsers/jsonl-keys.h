/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to parsers/: the JSON-lines format defined once - its keys, its kinds of line
 * and, for each kind, the order in which `tlbscope events` writes the keys.  The writer
 * (jsonl-write.c) writes from these tables; the reader (jsonl.c, jsonl-view.c) looks keys
 * up in them and reads a line written in their order without a search.
 */
#ifndef TLBSCOPE_PARSERS_JSONL_KEYS_H
#define TLBSCOPE_PARSERS_JSONL_KEYS_H

#include <stdint.h>
#include <stddef.h>
#include <string.h>

/* The major version of the stream (the header's "version"). */
#define JSONL_VERSION	1

enum jkey {
	K_CAUSE, K_CHILD_COMM, K_CHILD_PID, K_CLONE_FLAGS, K_CMDLINE, K_COMM, K_COMMIT,
	K_COUNT, K_CPU, K_CPUS, K_DECISION, K_EVENT, K_EXEC_PID,
	K_EXIT_PID, K_FILENAME, K_FORMAT, K_FROM, K_FUNC,
	K_HOW, K_INITIAL, K_KERNEL, K_KERNEL_MASK, K_KIND,
	K_KPROBES_DEFINED, K_KTHREAD, K_LOCAL, K_MACHINE, K_MM, K_MM_FROM, K_MM_PTR, K_NEXT_COMM,
	K_NEXT_MASK, K_NEXT_PID, K_NEXT_PTR, K_NO_MM, K_OLD_PID,
	K_PAGES, K_PARENT_PID, K_PID, K_PREV_COMM, K_PREV_PID,
	K_PREV_PTR, K_PREV_STATE, K_PROBE, K_REASON, K_RECV,
	K_ROLE, K_SCOPE, K_SITE, K_SOURCE, K_START, K_STRIDE,
	K_TARGET, K_TARGETS, K_TASK_COMM, K_TASK_PID, K_TASK_TGID, K_TGID, K_TLB, K_TS, K_VERSION,
	N_KEYS
};

/* The "kind" of a line.  Any other kind is read as an event counted by its name. */
enum jkind {
	JK_HEADER, JK_MM, JK_SWITCH, JK_FORK, JK_NEWTASK, JK_EXEC, JK_EXIT, JK_TASK_EXIT,
	JK_FLUSH, JK_IPI, JK_LOAD_MM, JK_SFENCE, JK_VMALLOC, JK_TGID, JK_LOST, JK_OTHER,
	JK_EVICT, JK_FAULT,
	N_KINDS
};

#define JSONL_KEYS_MAX	32	/* the keys of one kind of line, at most */

struct jsonl_kind {
	const char *name;		/* "switch" */
	uint8_t len;			/* strlen(name) */
	uint8_t nkeys;
	/*
	 * Every key a line of this kind may have, in the order the writer writes them ("ts",
	 * "cpu" and "kind" first; the writer leaves some out, never reorders them)
	 */
	uint8_t keys[JSONL_KEYS_MAX];	/* enum jkey */
};

/*
 * A key as it is written, '"' key '"' ':', in three words with a mask of the bytes it
 * fills: a line's bytes at a key compare in three loads when 24 bytes are left.
 */
struct jsonl_key_text {
	uint64_t w[3], m[3];
	uint8_t len;			/* of the quoted key and its ':' */
};

/* The values of "role" (enum ts_flush_role) and of an mm line's "how" (enum tl_how). */
#define JSONL_N_ROLES	3
#define JSONL_N_HOWS	8

extern const char *const jsonl_role_names[JSONL_N_ROLES];
extern const char *const jsonl_how_names[JSONL_N_HOWS];
extern const char *const jsonl_key_names[N_KEYS];
extern const struct jsonl_kind jsonl_kinds[N_KINDS];

/* The key_text of every key: built at the first call, then constant. */
const struct jsonl_key_text *jsonl_key_texts(void);

/*
 * The 8 bytes at @p as a word whose lowest byte is @p[0], on any host: the word-at-a-time
 * scans (jsonl-view.c) and the keys' words they compare with (struct jsonl_key_text)
 */
static inline uint64_t jsonl_load8(const char *p)
{
	uint64_t w;

	memcpy(&w, p, 8);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return w;
}

/* FNV-1a of @s[0..@n): the hash jsonl_key_id() takes (a scanner computes it as it goes). */
static inline unsigned jsonl_key_hash(const char *s, size_t n)
{
	unsigned h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 16777619u;
	return h;
}

/* The enum jkey of key @s[0..@n) whose jsonl_key_hash() is @hash, or -1 another key. */
int jsonl_key_id(const char *s, size_t n, unsigned hash);

/* The enum jkind of kind name @s[0..@n), or -1 another kind. */
int jsonl_kind_id(const char *s, size_t n);

#endif
