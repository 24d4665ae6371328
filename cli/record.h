/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to tlbscope record: what cmd-record.c asks of record-btf.c (struct offsets for
 * kprobe arguments) and record-events.c (tracepoints and kprobes to enable).
 */
#ifndef TLBSCOPE_CLI_RECORD_H
#define TLBSCOPE_CLI_RECORD_H

#include <stdbool.h>
#include <stddef.h>

#include "cli.h"

/* "@NAME" offsets the kprobe arguments use: MM_CPUMASK, VMA_MM, BATCH_MASK, FTD_* */
#define RECORD_N_OFFS	7

/*
 * The offsets of the running kernel, from its BTF: @offs[k] for the k-th @NAME, -1 where
 * the BTF has no such member.  Returns false (all -1) when the kernel has no BTF.
 */
bool record_btf_offsets(long offs[RECORD_N_OFFS]);

/*
 * Expand the "@NAME" offsets in @args with @offs (-1 = unknown).  Arguments needing an
 * unknown offset are dropped and their names appended to @dropped (@dlen bytes).
 * Returns a new string.
 */
char *record_kprobe_args(const char *args, const long *offs, char *dropped, size_t dlen);

/* record-events.c */
#define RECORD_N_KP	11	/* the kprobes record adds (tlbscope-probes(7)) */
struct tracefs_instance;
struct tracefs_dynevent;
/*
 * Enable in @inst the tracepoints the analyses read that the kernel has, naming on stderr
 * each missing one and what it hides.  0, or -1 when none exists (nothing to record).
 */
int record_enable_tracepoints(struct tracefs_instance *inst, bool riscv);
/*
 * On riscv64 (@machine as uname gives it), create and enable in @inst the kprobes the
 * kernel can take (checked in @tracing_dir's available_filter_functions and kallsyms);
 * those created are stored in @added[RECORD_N_KP] for record_remove_kprobes().
 */
void record_add_kprobes(struct tracefs_instance *inst, const char *tracing_dir,
			const char *machine, struct tracefs_dynevent **added);
/* Remove the kprobes record_add_kprobes() created; @added entries become NULL. */
void record_remove_kprobes(struct tracefs_dynevent **added);

#endif
