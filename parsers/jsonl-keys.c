// SPDX-License-Identifier: GPL-2.0-only
/*
 * The JSON-lines format's tables (jsonl-keys.h): the keys, the kinds of line and each
 * kind's keys in the writer's order, with the lookups of a key or a kind by its text.
 */
#include <stdbool.h>
#include <string.h>

#include "jsonl-keys.h"

const char *const jsonl_key_names[N_KEYS] = {
	[K_CAUSE] = "cause", [K_CHILD_COMM] = "child_comm", [K_CHILD_PID] = "child_pid",
	[K_CMDLINE] = "cmdline",
	[K_CLONE_FLAGS] = "clone_flags", [K_COMM] = "comm", [K_COMMIT] = "commit",
	[K_COUNT] = "count", [K_CPU] = "cpu", [K_CPUS] = "cpus", [K_DECISION] = "decision",
	[K_EVENT] = "event", [K_EXEC_PID] = "exec_pid", [K_EXIT_PID] = "exit_pid",
	[K_FILENAME] = "filename", [K_FORMAT] = "format", [K_FROM] = "from",
	[K_FUNC] = "func", [K_HOW] = "how", [K_INITIAL] = "initial", [K_KERNEL] = "kernel",
	[K_KERNEL_MASK] = "kernel_mask", [K_KIND] = "kind",
	[K_KPROBES_DEFINED] = "kprobes_defined", [K_KTHREAD] = "kthread", [K_LOCAL] = "local",
	[K_MACHINE] = "machine",
	[K_MM] = "mm", [K_MM_FROM] = "mm_from", [K_MM_PTR] = "mm_ptr", [K_NEXT_COMM] = "next_comm",
	[K_NEXT_MASK] = "next_mask", [K_NEXT_PID] = "next_pid", [K_NEXT_PTR] = "next_ptr",
	[K_NO_MM] = "no_mm", [K_OLD_PID] = "old_pid", [K_PAGES] = "pages",
	[K_PARENT_PID] = "parent_pid", [K_PID] = "pid", [K_PREV_COMM] = "prev_comm",
	[K_PREV_PID] = "prev_pid", [K_PREV_PTR] = "prev_ptr", [K_PREV_STATE] = "prev_state",
	[K_PROBE] = "probe", [K_REASON] = "reason", [K_RECV] = "recv", [K_ROLE] = "role",
	[K_SCOPE] = "scope", [K_SITE] = "site", [K_SOURCE] = "source", [K_START] = "start",
	[K_STRIDE] = "stride", [K_TARGET] = "target", [K_TARGETS] = "targets",
	[K_TASK_COMM] = "task_comm", [K_TASK_PID] = "task_pid", [K_TASK_TGID] = "task_tgid",
	[K_TGID] = "tgid", [K_TLB] = "tlb", [K_TS] = "ts", [K_VERSION] = "version",
};

const char *const jsonl_role_names[JSONL_N_ROLES] = { "request", "local", "received" };
const char *const jsonl_how_names[JSONL_N_HOWS] = {
	"none", "given", "tgid", "clone", "exec", "guess-fork", "guess-pid", "pointer"
};

/* What every event line starts with: when, where, what, and the task that ran. */
#define EV_HEAD	K_TS, K_CPU, K_KIND, K_EVENT, K_PROBE, K_PID, K_COMM, K_TGID
#define KIND(n, ...) {								\
	.name = n, .len = sizeof(n) - 1,					\
	.nkeys = sizeof((const uint8_t[]){ __VA_ARGS__ }),			\
	.keys = { __VA_ARGS__ },						\
}

const struct jsonl_kind jsonl_kinds[N_KINDS] = {
	[JK_HEADER] = KIND("header", K_KIND, K_VERSION, K_CPUS, K_FORMAT, K_KERNEL,
			   K_CMDLINE, K_MACHINE, K_KPROBES_DEFINED),
	[JK_MM] = KIND("mm", K_TS, K_KIND, K_MM, K_PID, K_COMM, K_HOW),
	[JK_SWITCH] = KIND("switch", EV_HEAD, K_PREV_PID, K_PREV_COMM, K_PREV_STATE, K_NEXT_PID,
			   K_NEXT_COMM, K_MM, K_NO_MM),
	[JK_FORK] = KIND("fork", EV_HEAD, K_PARENT_PID, K_CHILD_PID, K_CHILD_COMM),
	[JK_NEWTASK] = KIND("newtask", EV_HEAD, K_PARENT_PID, K_CHILD_PID, K_CHILD_COMM,
			    K_CLONE_FLAGS),
	[JK_EXEC] = KIND("exec", EV_HEAD, K_EXEC_PID, K_OLD_PID, K_FILENAME, K_MM),
	/*
	 * "exit": an mm's last user left (with "mm_ptr": a lazy kernel's lazy_tlb_exit_mm, the
	 * moment every table dropped it); "task_exit": a task left, no mm ended with it
	 */
	[JK_EXIT] = KIND("exit", EV_HEAD, K_EXIT_PID, K_MM, K_MM_PTR),
	[JK_TASK_EXIT] = KIND("task_exit", EV_HEAD, K_EXIT_PID, K_MM),
	[JK_FLUSH] = KIND("flush", EV_HEAD, K_ROLE, K_MM, K_MM_FROM, K_SCOPE, K_PAGES, K_START,
			  K_STRIDE, K_SOURCE, K_REASON, K_MM_PTR, K_KERNEL_MASK),
	[JK_IPI] = KIND("ipi", EV_HEAD, K_RECV, K_FROM, K_LOCAL, K_TARGETS, K_TLB, K_FUNC,
			K_SOURCE),
	[JK_LOAD_MM] = KIND("load_mm", EV_HEAD, K_MM, K_PREV_PTR, K_NEXT_PTR, K_NEXT_MASK,
			    K_INITIAL, K_COMMIT),
	[JK_SFENCE] = KIND("sfence", EV_HEAD, K_CAUSE, K_COUNT, K_SITE),
	[JK_VMALLOC] = KIND("vmalloc", EV_HEAD, K_START, K_PAGES),
	[JK_TGID] = KIND("tgid", EV_HEAD, K_TASK_PID, K_TASK_TGID, K_KTHREAD, K_TASK_COMM),
	[JK_LOST] = KIND("lost", EV_HEAD, K_COUNT),
	/* another event; a lazy kernel's lazy_tlb_defer with its decision */
	[JK_OTHER] = KIND("other", EV_HEAD, K_MM_PTR, K_TARGET, K_DECISION),
	[JK_EVICT] = KIND("evict", EV_HEAD),
	[JK_FAULT] = KIND("fault", EV_HEAD),
};

#define KEY_SLOTS	512

static int8_t key_slot[KEY_SLOTS];	/* enum jkey + 1, 0 empty */
static uint8_t key_len[N_KEYS];
static struct jsonl_key_text key_text[N_KEYS];
static bool built;

/* The hash table of the keys and their written texts, once. */
static void build(void)
{
	for (int k = 0; k < N_KEYS; k++) {
		struct jsonl_key_text *t = &key_text[k];
		char text[24] = { 0 };
		unsigned h;

		key_len[k] = (uint8_t)strlen(jsonl_key_names[k]);
		h = jsonl_key_hash(jsonl_key_names[k], key_len[k]);
		while (key_slot[h % KEY_SLOTS])
			h++;
		key_slot[h % KEY_SLOTS] = (int8_t)(k + 1);

		t->len = (uint8_t)(key_len[k] + 3);
		text[0] = '"';
		memcpy(text + 1, jsonl_key_names[k], key_len[k]);
		text[key_len[k] + 1] = '"';
		text[key_len[k] + 2] = ':';
		for (int i = 0; i < 3; i++) {
			t->w[i] = jsonl_load8(text + 8 * i);
			t->m[i] = 0;
			for (int b = 0; b < 8; b++)
				if (8 * i + b < t->len)
					t->m[i] |= (uint64_t)0xff << (8 * b);
		}
	}
	built = true;
}

const struct jsonl_key_text *jsonl_key_texts(void)
{
	if (!built)
		build();
	return key_text;
}

int jsonl_key_id(const char *s, size_t n, unsigned hash)
{
	if (!built)
		build();
	for (unsigned h = hash; key_slot[h % KEY_SLOTS]; h++) {
		int k = key_slot[h % KEY_SLOTS] - 1;

		if (key_len[k] == n && !memcmp(jsonl_key_names[k], s, n))
			return k;
	}
	return -1;
}

#define KIND_SLOTS	64

static int8_t kind_slot[KIND_SLOTS];	/* enum jkind + 1, 0 empty */

/* A kind's slot: its length, first and last letters (distinct kinds mostly differ there). */
static unsigned kind_hash(const char *s, size_t n)
{
	return (unsigned)(n * 7 + (unsigned char)s[0] * 3 + (unsigned char)s[n - 1]);
}

int jsonl_kind_id(const char *s, size_t n)
{
	static bool kinds_built;

	if (!kinds_built) {
		for (int k = 0; k < N_KINDS; k++) {
			unsigned h = kind_hash(jsonl_kinds[k].name, jsonl_kinds[k].len);

			while (kind_slot[h % KIND_SLOTS])
				h++;
			kind_slot[h % KIND_SLOTS] = (int8_t)(k + 1);
		}
		kinds_built = true;
	}
	if (!n)
		return -1;
	for (unsigned h = kind_hash(s, n); kind_slot[h % KIND_SLOTS]; h++) {
		const struct jsonl_kind *k = &jsonl_kinds[kind_slot[h % KIND_SLOTS] - 1];

		if (k->len == n && !memcmp(k->name, s, n))
			return kind_slot[h % KIND_SLOTS] - 1;
	}
	return -1;
}
