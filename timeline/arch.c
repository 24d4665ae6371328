// SPDX-License-Identifier: GPL-2.0-only
/*
 * Which architecture the traced kernel is, decided once from what the input carries, for
 * every command: the reader's own statement (perf's header), the kernel string, then the
 * events only one architecture has (RISC-V's flush functions as kprobes, x86's
 * tlb:tlb_flush).  Sections and advice that belong to one architecture ask this.
 */
#include <string.h>

#include "timeline-int.h"

/* RISC-V's own flush functions: the IPI handler, the SBI fence, a lazy kernel's table. */
static const char *const riscv_fns[] = {
	"__ipi_flush_tlb_range_asid", "__ipi_flush_tlb_all", "sbi_remote_sfence_vma_asid",
	"local_load_tlb_mm", "lazy_tlb_defer"
};

static enum tl_arch arch_named(const char *s)
{
	if (strstr(s, "riscv"))
		return TL_ARCH_RISCV;
	if (strstr(s, "x86_64") || strstr(s, "i686") || strstr(s, "i386"))
		return TL_ARCH_X86;
	if (strstr(s, "aarch64") || strstr(s, "arm") || strstr(s, "ppc") ||
	    strstr(s, "s390") || strstr(s, "loongarch") || strstr(s, "mips"))
		return TL_ARCH_OTHER;
	return TL_ARCH_UNKNOWN;
}

enum tl_arch timeline_arch(const struct timeline *tl, const char **how)
{
	const struct ts_source_info *info = ts_source_info(tl->src);
	const char *dummy;
	enum tl_arch a;

	if (!how)
		how = &dummy;
	if (info->arch && (a = arch_named(info->arch)) != TL_ARCH_UNKNOWN) {
		*how = "the input's own header";
		return a;
	}
	if (info->uname && (a = arch_named(info->uname)) != TL_ARCH_UNKNOWN) {
		*how = "the kernel string";
		return a;
	}
	for (size_t i = 0; i < info->nkprobes_defined; i++)
		for (size_t k = 0; k < sizeof(riscv_fns) / sizeof(riscv_fns[0]); k++)
			if (!strcmp(info->kprobes_defined[i], riscv_fns[k])) {
				*how = "its probes name RISC-V's flush functions";
				return TL_ARCH_RISCV;
			}
	for (size_t k = 0; k < sizeof(riscv_fns) / sizeof(riscv_fns[0]); k++)
		if (timeline_probe_count(tl, ts_source_intern(tl->src, riscv_fns[k]))) {
			*how = "its probes are on RISC-V's flush functions";
			return TL_ARCH_RISCV;
		}
	if (timeline_name_count(tl, ts_source_intern(tl->src, "tlb_flush"))) {
		*how = "x86's tlb:tlb_flush tracepoint";
		return TL_ARCH_X86;
	}
	*how = "neither a kernel string nor an event only one architecture has";
	return TL_ARCH_UNKNOWN;
}

static const char *const arch_names[] = { "unknown", "riscv", "x86_64", "other" };

const char *timeline_arch_name(enum tl_arch a)
{
	return a <= TL_ARCH_OTHER ? arch_names[a] : "?";
}

enum tl_arch timeline_arch_named(const char *name)
{
	for (int a = TL_ARCH_UNKNOWN; a <= TL_ARCH_OTHER; a++)
		if (name && !strcmp(name, arch_names[a]))
			return a;
	return TL_ARCH_UNKNOWN;
}
