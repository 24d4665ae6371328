// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's sfence.vma account and its Svvptc what-if (tuner/sfence.c), as text and JSON.
 * What no probe of the trace shows is n/a (null) with the reason, never 0.
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"
#include "report-sfence.h"

static const char *const cause_what[TS_SF__COUNT] = {
	[TS_SF_PTE_NEW] = "update_mmu_cache after a new user PTE",
	[TS_SF_PTE_ACCESS] = "update_mmu_cache after an access/dirty update",
	[TS_SF_FLUSH_RANGE] = "flush requests' ranges (requester and IPI targets)",
	[TS_SF_FLUSH_ALL] = "flush_tlb_all, on every CPU",
	[TS_SF_ASID] = "ASID rollover / no-ASID switch",
	[TS_SF_LAZY_EVICT] = "lazy flush: mm evicted from a CPU's table",
	[TS_SF_LAZY_DEFERRED] = "lazy flush: queued flushes run at switch_mm",
	[TS_SF_LAZY_RESET] = "lazy flush: full local flush reset the table",
	[TS_SF_OTHER] = "other sites (fixmap, text patching, ...)",
	[TS_SF_UNCLASSIFIED] = "site probes whose name gives no cause",
};

static const char no_sites_why[] =
	"no sfence site probe: the preventive fences after new PTEs are inline "
	"(update_mmu_cache) and need a probe per site, tlbscope-probes(7) \"The sfence.vma account\"";
static const char no_probes_why[] =
	"no RISC-V flush or sfence site probe in this trace";

/* Why the flush rules miss some fences, NULL when they see them all. */
static const char *rules_gap(const struct sfence_result *r, char *buf, size_t len)
{
	if (r->rules_complete)
		return NULL;
	if (r->kmask_unknown)
		snprintf(buf, len, "%llu requests without the kernel's mask: whether they were "
			 "fenced locally is unknown", (unsigned long long)r->kmask_unknown);
	else
		snprintf(buf, len, "no __ipi_flush_tlb_range_asid probe: the fences of %llu "
			 "requests to other CPUs run in its handler, unseen",
			 (unsigned long long)r->remote_requests);
	return buf;
}

static double pct(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

static void text_account(struct ts_source *src, struct timeline *tl,
			 const struct sfence_result *r, const struct platform *pf)
{
	char t[32];

	printf("  total              %12llu  (site probes: each event one executed fence)\n",
	       (unsigned long long)r->total);
	for (int c = 0; c < TS_SF__COUNT; c++)
		if (r->by_cause[c])
			printf("  %-18s %12llu  %5.1f %%  %s\n", ts_sfence_cause_name(c),
			       (unsigned long long)r->by_cause[c], pct(r->by_cause[c], r->total),
			       cause_what[c]);
	if (r->rules_complete)
		printf("  flush fences by the kernel's rules (flush probes): %llu range + %llu "
		       "flush_tlb_all = %llu; the site probes counted %llu\n",
		       (unsigned long long)r->inferred_range, (unsigned long long)r->inferred_all,
		       (unsigned long long)(r->inferred_range + r->inferred_all),
		       (unsigned long long)(r->by_cause[TS_SF_FLUSH_RANGE] +
					    r->by_cause[TS_SF_FLUSH_ALL]));
	printf("  per CPU:");
	for (int i = 0; i < r->ncpus; i++)
		printf(" %d: %llu", i, (unsigned long long)r->by_cpu[i]);
	printf("\n  top sites:");
	for (size_t i = 0; i < r->nsites; i++)
		printf("%s %s %llu", i ? "," : "", r->sites[i].site ?
		       ts_source_str(src, r->sites[i].site) : "(unknown)",
		       (unsigned long long)r->sites[i].count);
	printf("\n  top processes (the address space the CPU ran):");
	for (size_t i = 0; i < r->nmms && i < 5; i++) {
		const struct tl_mm *m = timeline_mm(tl, r->mms[i].site);

		printf("%s %s(%s) %llu", i ? "," : "", m ? m->comm : "?", m ? m->name : "?",
		       (unsigned long long)r->mms[i].count);
	}
	format_ns(t, sizeof(t), (uint64_t)r->fences_ns);
	printf("\n  time: %s s at %s (%.0f ns a page fence, %.0f ns a whole-ASID fence)\n", t,
	       pf->name, pf->v[PF_SFENCE_PAGE], pf->v[PF_LOCAL_ASID_FLUSH]);
}

static void text_whatif(const struct sfence_result *r, const struct platform *pf)
{
	const struct sfence_whatif w = r->svvptc;
	char t[32];

	printf("\nWhat if this kernel had Svvptc\n");
	printf("  sfence.vma         %12llu -> %llu  (%+.1f %%); up to %llu on a core that traps "
	       "to set A/D bits\n", (unsigned long long)r->total, (unsigned long long)w.sfence,
	       -pct(r->total - w.sfence, r->total), (unsigned long long)w.sfence_max);
	printf("  removed            %12llu  preventive fences after new user PTEs\n",
	       (unsigned long long)r->by_cause[TS_SF_PTE_NEW]);
	printf("                     %12llu  after access/dirty updates\n",
	       (unsigned long long)r->by_cause[TS_SF_PTE_ACCESS]);
	if (r->vmalloc_known)
		printf("                     %12llu  of the flushes of %llu new vmalloc mappings\n",
		       (unsigned long long)w.removed_vmalloc, (unsigned long long)r->vmalloc_maps);
	else
		printf("                              n/a  of new vmalloc mappings' flushes (no "
		       "flush_cache_vmap probe: a function only before 6.12)\n");
	if (r->vmalloc_known)
		printf("  flush IPIs         %12s  %llu fewer (vmalloc flushes), up to %llu more "
		       "(access/dirty updates' flush_tlb_page)\n", "",
		       (unsigned long long)w.ipis_removed, (unsigned long long)w.ipis_added_max);
	else
		printf("  flush IPIs         %12s  up to %llu more (access/dirty updates' "
		       "flush_tlb_page); fewer for vmalloc flushes: n/a\n", "",
		       (unsigned long long)w.ipis_added_max);
	printf("  extra page faults  %12d  on a core that caches no invalid PTE (QEMU, the "
	       "series' uarch); at most %llu\n", 0, (unsigned long long)w.faults_added_max);
	format_ns(t, sizeof(t), (uint64_t)r->svvptc_saved_ns);
	printf("  fence time saved   %12s s  at %.0f ns a page fence (%s)\n", t,
	       pf->v[PF_SFENCE_PAGE], pf->name);
	printf("  assumes: the hardware sets A/D bits (Svadu, as QEMU does), so an access/dirty "
	       "update in handle_pte_fault is a spurious fault whose PTE is unchanged and "
	       "ptep_set_access_flags() flushes nothing; else each is a flush_tlb_page() on the "
	       "mm's CPUs (sfence_max)\n");
}

void sfence_report_text(struct ts_source *src, struct timeline *tl,
			const struct sfence_result *r, const struct platform *pf)
{
	char gap[160];

	printf("\nsfence.vma\n");
	/* RISC-V's instruction: an x86 trace gets one line for what a RISC-V one shows */
	if (timeline_arch(tl, NULL) == TL_ARCH_X86 && !r->probed) {
		printf("  n/a on x86_64: a RISC-V account (fences by cause, a Svvptc what-if)\n");
		return;
	}
	if (r->probed) {
		text_account(src, tl, r, pf);
		text_whatif(r, pf);
		return;
	}
	if (!r->flush_known) {
		printf("  total                     n/a  (%s)\n", no_probes_why);
		return;
	}
	printf("  total                     n/a  (%s)\n", no_sites_why);
	if (rules_gap(r, gap, sizeof(gap))) {
		printf("  %-18s          n/a  (%s)\n", "flush_range", gap);
	} else {
		printf("  %-18s %12llu  fences of flush requests, from the flush probes by the "
		       "kernel's rules\n", "flush_range", (unsigned long long)r->inferred_range);
		printf("  %-18s %12llu  flush_tlb_all on every CPU\n", "flush_all",
		       (unsigned long long)r->inferred_all);
	}
	if (r->sbi_requests)
		printf("  SBI remote fences: %llu (the firmware's fences, not counted)\n",
		       (unsigned long long)r->sbi_requests);
	printf("\nWhat if this kernel had Svvptc: n/a (needs the site probes of update_mmu_cache)\n");
}

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

void sfence_report_json(struct ts_source *src, struct timeline *tl,
			const struct sfence_result *r, const struct platform *pf, json_t *root)
{
	json_t *j = json_object(), *c = json_object(), *w = json_object(), *a;
	const struct sfence_whatif wi = r->svvptc;
	char gap[160];

	json_object_set_new(j, "total", r->probed ? jint(r->total) : json_null());
	json_object_set_new(j, "exact", json_boolean(r->probed));
	json_object_set_new(j, "source", r->probed ? json_string("site probes") :
			    r->flush_known ? json_string("flush probes") : json_null());
	json_object_set_new(j, "why", r->probed ? json_null() :
			    json_text(r->flush_known ? no_sites_why : no_probes_why));
	for (int k = 0; k < TS_SF__COUNT; k++) {
		json_t *v = json_null();

		if (r->probed)
			v = jint(r->by_cause[k]);
		else if (k == TS_SF_FLUSH_RANGE && r->rules_complete)
			v = jint(r->inferred_range);
		else if (k == TS_SF_FLUSH_ALL && r->rules_complete)
			v = jint(r->inferred_all);
		json_object_set_new(c, ts_sfence_cause_name(k), v);
	}
	json_object_set_new(j, "by_cause", c);
	if (r->flush_known) {
		const char *why = rules_gap(r, gap, sizeof(gap));

		a = json_object();
		json_object_set_new(a, "complete", json_boolean(!why));
		json_object_set_new(a, "why", why ? json_text(why) : json_null());
		json_object_set_new(a, "range", why ? json_null() : jint(r->inferred_range));
		json_object_set_new(a, "all", why ? json_null() : jint(r->inferred_all));
		json_object_set_new(a, "requests_without_mask", jint(r->kmask_unknown));
		json_object_set_new(a, "sbi_remote_fences", jint(r->sbi_requests));
		json_object_set_new(j, "flush_rules", a);
	} else {
		json_object_set_new(j, "flush_rules", json_null());
	}
	if (r->probed) {
		a = json_array();
		for (int i = 0; i < r->ncpus; i++)
			json_array_append_new(a, jint(r->by_cpu[i]));
		json_object_set_new(j, "by_cpu", a);
		a = json_array();
		for (size_t i = 0; i < r->nsites; i++) {
			json_t *s = json_object();

			json_object_set_new(s, "function", r->sites[i].site ?
					    json_text(ts_source_str(src, r->sites[i].site)) :
					    json_null());
			json_object_set_new(s, "count", jint(r->sites[i].count));
			json_array_append_new(a, s);
		}
		json_object_set_new(j, "sites", a);
		a = json_array();
		for (size_t i = 0; i < r->nmms; i++) {
			const struct tl_mm *m = timeline_mm(tl, r->mms[i].site);
			json_t *p = json_object();

			json_object_set_new(p, "mm", m ? json_text(m->name) : json_null());
			json_object_set_new(p, "pid", m && m->pid >= 0 ? json_integer(m->pid) :
					    json_null());
			json_object_set_new(p, "comm", m ? json_text(m->comm) : json_null());
			json_object_set_new(p, "count", jint(r->mms[i].count));
			json_array_append_new(a, p);
		}
		json_object_set_new(j, "processes", a);
		json_object_set_new(j, "time_ns", json_real(r->fences_ns));
	} else {
		json_object_set_new(j, "by_cpu", json_null());
		json_object_set_new(j, "sites", json_null());
		json_object_set_new(j, "processes", json_null());
		json_object_set_new(j, "time_ns", json_null());
	}
	if (r->vmalloc_known) {
		a = json_object();
		json_object_set_new(a, "maps", jint(r->vmalloc_maps));
		json_object_set_new(a, "fences", jint(r->vmalloc_fences));
		json_object_set_new(a, "remote_cpus", jint(r->vmalloc_remote));
		json_object_set_new(j, "vmalloc", a);
	} else {
		json_object_set_new(j, "vmalloc", json_null());
	}
	json_object_set_new(j, "platform", json_text(pf->name));
	json_object_set_new(root, "sfence", j);

	if (!r->probed) {
		json_object_set_new(w, "svvptc", json_null());
		json_object_set_new(w, "svvptc_why", json_text(r->flush_known ? no_sites_why :
								   no_probes_why));
		json_object_set_new(root, "whatif", w);
		return;
	}
	a = json_object();
	json_object_set_new(a, "sfence", jint(wi.sfence));
	json_object_set_new(a, "sfence_max", jint(wi.sfence_max));
	json_object_set_new(a, "removed_pte", jint(wi.removed_pte));
	json_object_set_new(a, "removed_vmalloc", r->vmalloc_known ? jint(wi.removed_vmalloc) :
			    json_null());
	json_object_set_new(a, "faults_added", jint(0));
	json_object_set_new(a, "faults_added_max", jint(wi.faults_added_max));
	json_object_set_new(a, "ipis_removed", r->vmalloc_known ? jint(wi.ipis_removed) :
			    json_null());
	json_object_set_new(a, "ipis_added_max", jint(wi.ipis_added_max));
	json_object_set_new(a, "time_saved_ns",
			    json_real(r->svvptc_saved_ns));
	{
		json_t *as = json_array();

		json_array_append_new(as, json_text(
			"update_mmu_cache fences no new or updated user PTE (Svvptc)"));
		json_array_append_new(as, json_text(
			"new vmalloc mappings are not flushed (6.12's flush_cache_vmap)"));
		json_array_append_new(as, json_text(
			"the hardware sets A/D bits: an access/dirty update is a spurious fault with "
			"the PTE unchanged, so no flush (else up to sfence_max)"));
		json_array_append_new(as, json_text(
			"no gratuitous fault on a core that caches no invalid PTE (else up to "
			"faults_added_max)"));
		json_object_set_new(a, "assumptions", as);
	}
	json_object_set_new(w, "svvptc", a);
	json_object_set_new(w, "svvptc_why", json_null());
	json_object_set_new(root, "whatif", w);
}
