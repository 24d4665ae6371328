// SPDX-License-Identifier: GPL-2.0-only
/*
 * The sfence.vma account (docs/design.md section 1, Svvptc): the fences a kernel executed, by
 * cause, from per-site probes; the flush fences again from the flush probes by the kernel's
 * own rules (a cross-check, and the fallback without site probes); and what the same
 * workload would execute on a kernel with Svvptc.  A timeline consumer, flat in memory:
 * counters, one per probed site's function.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tuner-int.h"

struct sfence {
	struct sfence_opts o;
	struct sfence_result r;
	uint64_t *site_counts;		/* by string id of the site's function */
	size_t nsite_ids, site_alloc;
	uint64_t *mm_counts;		/* by timeline mm id of the running task, 0 none */
	size_t nmm_ids, mm_alloc;
	bool vmap_pending[TS_MAX_CPUS];	/* a flush_cache_vmap whose flush is still to come */
	/*
	 * A request with remote CPUs whose requester is in its mask: the requester's fences,
	 * counted here unless its own handler call (on_each_cpu_mask) or an SBI remote fence
	 * follows on that CPU.  A lazy-flush kernel that queued every remote target flushes
	 * the requester directly, with no handler.
	 */
	uint64_t pending_local[TS_MAX_CPUS];
	/* string ids of the probed functions a flush event names (ev->probe) */
	uint32_t id_handler, id_request, id_flush_all;
};

struct sfence *sfence_new(const struct sfence_opts *o)
{
	struct sfence *s = xcalloc(1, sizeof(*s));

	s->o = *o;
	if (!s->o.flush_all_threshold)
		s->o.flush_all_threshold = 64;
	/* a probe the trace defines but never fired: nothing of its kind happened */
	s->r.vmalloc_known = ts_source_defines(o->src, "flush_cache_vmap");
	s->r.handler_seen = ts_source_defines(o->src, "__ipi_flush_tlb_range_asid");
	s->id_handler = ts_source_intern(o->src, "__ipi_flush_tlb_range_asid");
	s->id_request = ts_source_intern(o->src, "__flush_tlb_range");
	s->id_flush_all = ts_source_intern(o->src, "flush_tlb_all");
	return s;
}

void sfence_free(struct sfence *s)
{
	if (!s)
		return;
	free(s->site_counts);
	free(s->mm_counts);
	free(s);
}

/*
 * Fences one CPU executes for a range flush, as local_flush_tlb_range_asid() does in
 * 6.12: one for a single page or the whole ASID, one per page up to
 * tlb_flush_all_threshold pages, one whole-ASID fence past it.
 */
uint64_t sfence_range_fences(const struct ts_event *ev, uint64_t flush_all_threshold)
{
	uint64_t n = ev->u.flush.pages;

	if (ev->u.flush.scope != TS_SCOPE_RANGE && ev->u.flush.scope != TS_SCOPE_KERNEL)
		return 1;
	if (ev->u.flush.stride > TS_PAGE_SIZE)
		n = (n * TS_PAGE_SIZE + ev->u.flush.stride - 1) / ev->u.flush.stride;
	return n <= 1 || n > flush_all_threshold ? 1 : n;
}

/* counts[id] += n, the array grown (zeroed) to hold @id */
static void count_id(uint64_t **counts, size_t *n_ids, size_t *alloc, uint32_t id, uint64_t n)
{
	if (id >= *n_ids) {
		size_t old = *n_ids;

		ALLOC_GROW(*counts, id + 1, *alloc);
		*n_ids = *alloc;
		memset(*counts + old, 0, (*n_ids - old) * sizeof(**counts));
	}
	(*counts)[id] += n;
}

/* CPUs in the kernel's mask of @mm now: every CPU that ran it (stock RISC-V with ASIDs) */
static int mm_mask_weight(struct timeline *tl, int cpu, bool *known)
{
	uint32_t id = timeline_current_mm(tl, cpu);
	const struct tl_mm *m = id ? timeline_mm(tl, id) : NULL;
	int w = m ? ts_cpumask_weight(&m->ran_on) : 0;

	*known = w > 0;
	return w > 0 ? w : 1;
}

static void commit_local(struct sfence *s, int c)
{
	s->r.inferred_range += s->pending_local[c];
	s->pending_local[c] = 0;
}

static void feed_flush(struct sfence *s, const struct ts_event *ev)
{
	struct sfence_result *r = &s->r;
	int c = ev->cpu;

	if (ev->u.flush.src != TS_SRC_KPROBE || !ev->probe)
		return;
	if (ev->probe == s->id_handler) {
		/* the handler, on a target or as the requester's own call: its fences here */
		r->flush_known = r->handler_seen = true;
		r->inferred_range += sfence_range_fences(ev, s->o.flush_all_threshold);
		if (ev->u.flush.role == TS_FLUSH_LOCAL)
			s->pending_local[c] = 0;
		return;
	}
	if (ev->u.flush.role != TS_FLUSH_REQUEST)
		return;
	commit_local(s, c);
	if (ev->probe == s->id_flush_all) {
		/* on_each_cpu(__ipi_flush_tlb_all): one full fence on every online CPU */
		r->flush_known = true;
		r->flush_all_requests++;
		return;
	}
	if (ev->probe != s->id_request)
		return;
	r->flush_known = true;
	if (ev->u.flush.fflags & TS_FF_KMASK) {
		int w = ts_cpumask_weight(&ev->u.flush.kmask);
		bool self = ts_cpumask_test(&ev->u.flush.kmask, c);
		bool vmap = s->vmap_pending[c] && ev->u.flush.scope == TS_SCOPE_KERNEL;

		if (vmap) {
			r->vmalloc_fences += (uint64_t)w * sfence_range_fences(ev,
									s->o.flush_all_threshold);
			r->vmalloc_remote += (uint64_t)(w - self);
		}
		/* only this CPU: local_flush_tlb_range_asid() here, no handler runs */
		if (w == 1 && self)
			r->inferred_range += sfence_range_fences(ev, s->o.flush_all_threshold);
		else if (w > 1 || (w == 1 && !self))
			r->remote_requests++;	/* (an empty mask: the kernel flushes nothing) */
		if (w > 1 && self)
			s->pending_local[c] = sfence_range_fences(ev, s->o.flush_all_threshold);
	} else {
		r->kmask_unknown++;
	}
	s->vmap_pending[c] = false;
}

void sfence_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct sfence *s = ctx;
	struct sfence_result *r = &s->r;
	bool known;
	int w;

	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	switch (ev->kind) {
	case TS_EV_VMALLOC:
		r->vmalloc_known = true;
		s->vmap_pending[ev->cpu] = true;
		if (timeline_counted(tl, ev->cpu, ev->ts))
			r->vmalloc_maps++;
		break;
	case TS_EV_FLUSH:
		if (timeline_counted(tl, ev->cpu, ev->ts))
			feed_flush(s, ev);
		else if (ev->u.flush.role == TS_FLUSH_REQUEST)
			s->vmap_pending[ev->cpu] = false;
		break;
	case TS_EV_IPI:
		if (ev->u.ipi.src != TS_SRC_SBI)
			break;
		/* the firmware fences every hart of the mask, the requester's too */
		s->pending_local[ev->cpu] = 0;
		if (timeline_counted(tl, ev->cpu, ev->ts))
			r->sbi_requests++;
		break;
	case TS_EV_SWITCH:
	case TS_EV_LOAD_MM:
		commit_local(s, ev->cpu);
		break;
	case TS_EV_SFENCE:
		r->probed = true;
		if (!timeline_counted(tl, ev->cpu, ev->ts))
			break;
		r->by_cause[ev->u.sfence.cause < TS_SF__COUNT ? ev->u.sfence.cause :
			    TS_SF_UNCLASSIFIED] += ev->u.sfence.count;
		r->total += ev->u.sfence.count;
		r->by_cpu[ev->cpu] += ev->u.sfence.count;
		if (ev->cpu >= r->ncpus)
			r->ncpus = ev->cpu + 1;
		count_id(&s->site_counts, &s->nsite_ids, &s->site_alloc, ev->u.sfence.site,
			 ev->u.sfence.count);
		/* the process whose address space the CPU runs: a kernel thread keeps the last */
		count_id(&s->mm_counts, &s->nmm_ids, &s->mm_alloc,
			 timeline_current_mm(tl, ev->cpu), ev->u.sfence.count);
		if (ev->u.sfence.cause == TS_SF_PTE_ACCESS) {
			/*
			 * With Svvptc, ptep_set_access_flags() that changes the PTE calls
			 * flush_tlb_page(): a fence on every CPU of mm_cpumask, an IPI to
			 * each other one (the upper bound of the what-if)
			 */
			w = mm_mask_weight(tl, ev->cpu, &known);
			r->access_flush_fences += (uint64_t)w * ev->u.sfence.count;
			r->access_flush_ipis += (uint64_t)(w - 1) * ev->u.sfence.count;
			r->access_mask_unknown += !known;
		}
		break;
	default:
		break;
	}
}

static int cmp_site(const void *a, const void *b)
{
	const struct sfence_site *x = a, *y = b;

	return x->count != y->count ? (x->count < y->count ? 1 : -1) :
	       (x->site > y->site) - (x->site < y->site);
}

/*
 * The SFENCE_TOP_SITES largest of @counts[@first..@n) into @out, largest first (ties by
 * id), by insertion into a sorted array one longer than kept; returns how many.
 */
static size_t top_counts(const uint64_t *counts, size_t n, size_t first,
			 struct sfence_site *out)
{
	struct sfence_site all[SFENCE_TOP_SITES + 1];
	size_t k = 0;

	for (size_t id = first; id < n; id++) {
		if (!counts[id])
			continue;
		all[k].site = (uint32_t)id;
		all[k].count = counts[id];
		k++;
		qsort(all, k, sizeof(all[0]), cmp_site);
		if (k > SFENCE_TOP_SITES)
			k = SFENCE_TOP_SITES;
	}
	memcpy(out, all, k * sizeof(all[0]));
	return k;
}

/* Full fences (a whole ASID or everything) are priced as one; the rest per page. */
static bool full_fence(int c)
{
	return c == TS_SF_FLUSH_ALL || c == TS_SF_ASID || c == TS_SF_LAZY_EVICT ||
	       c == TS_SF_LAZY_RESET;
}

const struct sfence_result *sfence_result(struct sfence *s, int ncpus)
{
	struct sfence_result *r = &s->r;

	for (int c = 0; c < TS_MAX_CPUS; c++)
		commit_local(s, c);
	if (ncpus > r->ncpus)
		r->ncpus = ncpus;
	r->inferred_all = r->flush_all_requests * (uint64_t)(r->ncpus > 0 ? r->ncpus : 1);
	/* requests to other CPUs are fenced in the handler: without its probe, unseen */
	r->rules_complete = r->flush_known && !r->kmask_unknown &&
			    (!r->remote_requests || r->handler_seen || r->sbi_requests);

	r->nsites = top_counts(s->site_counts, s->nsite_ids, 0, r->sites);
	r->nmms = top_counts(s->mm_counts, s->nmm_ids, 1, r->mms);
	sfence_whatif_svvptc(r, &r->svvptc);
	r->fences_ns = r->svvptc_saved_ns = 0;
	for (int c = 0; s->o.pf && c < TS_SF__COUNT; c++)
		r->fences_ns += (double)r->by_cause[c] * s->o.pf->v[full_fence(c) ?
				PF_LOCAL_ASID_FLUSH : PF_SFENCE_PAGE];
	if (s->o.pf)
		r->svvptc_saved_ns = (double)(r->total - r->svvptc.sfence) *
				     s->o.pf->v[PF_SFENCE_PAGE];
	return r;
}

void sfence_whatif_svvptc(const struct sfence_result *r, struct sfence_whatif *w)
{
	memset(w, 0, sizeof(*w));
	w->removed_pte = r->by_cause[TS_SF_PTE_NEW] + r->by_cause[TS_SF_PTE_ACCESS];
	/* inferred by the kernel's rules: never more than the flush fences the probes saw */
	w->removed_vmalloc = !r->vmalloc_known ? 0 :
			     r->vmalloc_fences < r->by_cause[TS_SF_FLUSH_RANGE] ?
			     r->vmalloc_fences : r->by_cause[TS_SF_FLUSH_RANGE];
	w->sfence = r->total - w->removed_pte - w->removed_vmalloc;
	w->sfence_max = w->sfence + r->access_flush_fences;
	w->ipis_removed = r->vmalloc_known ? r->vmalloc_remote : 0;
	w->ipis_added_max = r->access_flush_ipis;
	w->faults_added_max = r->by_cause[TS_SF_PTE_NEW] +
			      r->vmalloc_maps * (uint64_t)(r->ncpus > 0 ? r->ncpus : 1);
}
