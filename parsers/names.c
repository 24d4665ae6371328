// SPDX-License-Identifier: GPL-2.0-only
/*
 * The stream's names and masks: event kinds, sfence causes, flush scopes and evidence
 * sources by name, which functions are TLB flushes, and CPU masks parsed from the kernel's
 * hex and list forms.  Depends on nothing else of parsers/.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

const char *ts_kind_name(enum ts_kind kind)
{
	static const char *const names[TS_EV__COUNT] = {
		[TS_EV_SWITCH] = "switch", [TS_EV_FORK] = "fork",
		[TS_EV_NEWTASK] = "newtask", [TS_EV_EXEC] = "exec",
		[TS_EV_EXIT] = "exit", [TS_EV_FLUSH] = "flush", [TS_EV_IPI] = "ipi",
		[TS_EV_LOAD_MM] = "load_mm", [TS_EV_EVICT] = "evict",
		[TS_EV_FAULT] = "fault", [TS_EV_VMALLOC] = "vmalloc", [TS_EV_SFENCE] = "sfence",
		[TS_EV_LOST] = "lost", [TS_EV_OTHER] = "other", [TS_EV_MM] = "mm",
		[TS_EV_TGID] = "tgid",
	};

	return kind < TS_EV__COUNT ? names[kind] : "?";
}

static const char *const sfence_causes[TS_SF__COUNT] = {
	[TS_SF_PTE_NEW] = "pte_new", [TS_SF_PTE_ACCESS] = "pte_access",
	[TS_SF_FLUSH_RANGE] = "flush_range", [TS_SF_FLUSH_ALL] = "flush_all",
	[TS_SF_ASID] = "asid", [TS_SF_LAZY_EVICT] = "lazy_evict",
	[TS_SF_LAZY_DEFERRED] = "lazy_deferred", [TS_SF_LAZY_RESET] = "lazy_reset",
	[TS_SF_OTHER] = "other", [TS_SF_UNCLASSIFIED] = "unclassified",
};

const char *ts_sfence_cause_name(enum ts_sfence_cause c)
{
	return c < TS_SF__COUNT ? sfence_causes[c] : "?";
}

int ts_sfence_cause_of(const char *event)
{
	const char *s = strstr(event, "sfence");
	int best = TS_SF_UNCLASSIFIED;
	size_t best_len = 0;

	/* the SBI remote fence probe (sbi_remote_sfence_vma_asid) asks the firmware */
	if (!s || strstr(event, "sbi"))
		return -1;
	s += strlen("sfence");
	/* the longest cause that follows as a word: "_pte_new", "_vma_flush_range_2" */
	for (int c = 0; c < TS_SF_UNCLASSIFIED; c++) {
		size_t l = strlen(sfence_causes[c]);

		for (const char *p = s; (p = strstr(p, sfence_causes[c])); p++) {
			if (p[-1] == '_' && (!p[l] || p[l] == '_') && l > best_len) {
				best = c;
				best_len = l;
			}
		}
	}
	return best;
}

const char *ts_scope_name(enum ts_scope scope)
{
	static const char *const names[] = { "range", "mm", "kernel", "all", "targets" };

	return scope <= TS_SCOPE_TARGETS ? names[scope] : "?";
}

const char *ts_evsrc_name(enum ts_evsrc s)
{
	static const char *const names[TS_SRC__COUNT] = {
		[TS_SRC_NONE] = "none", [TS_SRC_TLB_FLUSH] = "tlb_flush",
		[TS_SRC_CSD_QUEUE] = "csd_queue_cpu", [TS_SRC_CSD_ENTRY] = "csd_function_entry",
		[TS_SRC_IPI_CPU] = "ipi_send_cpu", [TS_SRC_IPI_MASK] = "ipi_send_cpumask",
		[TS_SRC_JSON] = "json", [TS_SRC_KPROBE] = "kprobe",
		[TS_SRC_KPROBE_CALLER] = "kprobe_caller", [TS_SRC_SBI] = "sbi_remote_fence",
	};

	return s < TS_SRC__COUNT ? names[s] : "?";
}

bool ts_func_is_tlb_flush(const char *func)
{
	static const char *const funcs[] = {
		"flush_tlb_func",		/* x86 */
		"__ipi_flush_tlb_range_asid",	/* riscv */
		"__ipi_flush_tlb_all",		/* riscv */
		"ipi_flush_tlb_all",		/* older riscv, arm */
		"ipi_flush_tlb_range",
		"ipi_flush_tlb_page",
		"ipi_flush_tlb_mm",
		"do_flush_tlb_all",		/* x86 flush_tlb_all */
		"do_kernel_range_flush",	/* x86 kernel ranges */
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(func, funcs[i]))
			return true;
	return false;
}

int ts_cpumask_weight(const struct ts_cpumask *m)
{
	int w = 0;

	/* a call into libgcc per word without -mpopcnt: the empty words (most) skip it */
	for (size_t i = 0; i < TS_MAX_CPUS / 64; i++)
		if (m->bits[i])
			w += __builtin_popcountll(m->bits[i]);
	return w;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Kernel %*pb: 32-bit hex groups, most significant first, separated by commas. */
static int parse_hexmask(struct ts_cpumask *m, const char *s)
{
	size_t len = strlen(s);
	int bit = 0;

	for (size_t i = len; i-- > 0;) {
		int v;

		if (s[i] == ',')
			continue;
		v = hexval(s[i]);
		if (v < 0)
			return -1;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= TS_MAX_CPUS)
				return -1;
			ts_cpumask_set(m, bit);
		}
	}
	return 0;
}

/* "0,3-5" */
static int parse_cpulist(struct ts_cpumask *m, const char *s)
{
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= TS_MAX_CPUS)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(++s, &end, 10);
			if (end == s || b < a || b >= TS_MAX_CPUS)
				return -1;
			s = end;
		}
		for (long c = a; c <= b; c++)
			ts_cpumask_set(m, (int)c);
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

int ts_cpumask_parse_hex(struct ts_cpumask *m, const char *s)
{
	memset(m, 0, sizeof(*m));
	return *s ? parse_hexmask(m, s) : -1;
}

int ts_cpumask_parse_list(struct ts_cpumask *m, const char *s)
{
	memset(m, 0, sizeof(*m));
	return *s ? parse_cpulist(m, s) : -1;
}
