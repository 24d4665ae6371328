// SPDX-License-Identifier: GPL-2.0-only
/*
 * What `report` counts from a finished timeline (analysis/report.h): totals, per-CPU rows,
 * the address spaces by flush IPIs caused, the evidence block and the kprobes on the flush
 * path.  cli/'s renderers print it as text or JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "report.h"

static uint64_t cpu_mms(const struct timeline *tl, int cpu)
{
	uint64_t n = 0;

	for (uint32_t id = 1; id < timeline_mm_count(tl); id++)
		n += ts_cpumask_test(&timeline_mm(tl, id)->counted_on, cpu);
	return n;
}

static uint64_t ipis_sent(const struct tl_cpu *c, int src)
{
	return src < 0 ? 0 : c->ipis_sent[src];
}

static uint64_t ipis_recv(const struct tl_cpu *c, int src)
{
	return src < 0 ? 0 : c->ipis_received[src];
}

static bool mm_active(const struct tl_mm *m, int src)
{
	return m->switches_in || m->flush_requests || (src >= 0 && m->ipis_caused[src]);
}

static void sum_totals(const struct timeline *tl, int src, struct report_totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < timeline_cpus(tl); i++) {
		const struct tl_cpu *c = timeline_cpu(tl, i);

		t->switches += c->switches;
		t->mm_switches += c->mm_switches;
		t->requests += c->flush_requests;
		t->ipis += ipis_recv(c, src);
		t->local += timeline_local_flushes(tl, i);
		t->kmask_requests += c->kmask_requests;
		t->kernel_targets += c->kernel_targets;
		t->remote_requests += c->remote_requests;
		t->csd_flush_ipis += c->ipis_sent[TL_IPI_CSD_QUEUE];
		t->csd_all_ipis += c->csd_all_ipis;
	}
	for (uint32_t id = 1; id < timeline_mm_count(tl); id++) {
		const struct tl_mm *m = timeline_mm(tl, id);

		if (!mm_active(m, src))
			continue;
		t->mms++;
		t->how[m->how]++;
		t->guessed += timeline_how_guessed(m->how);
	}
}

/*
 * Timestamps of a text the user printed, at whatever precision it has (perf.data: --ns),
 * or of JSON lines made from one.
 */
static bool text_format(const char *format)
{
	return format && (!strcmp(format, "ftrace-text") || !strcmp(format, "perf-script"));
}

static bool text_timestamps(const struct ts_source_info *info)
{
	return text_format(info->format) || text_format(info->made_from);
}

static int sort_src_ipi;

static int cmp_mm(const void *a, const void *b)
{
	const struct tl_mm *x = *(const struct tl_mm *const *)a, *y = *(const struct tl_mm *const *)b;
	uint64_t xi = sort_src_ipi >= 0 ? x->ipis_caused[sort_src_ipi] : 0;
	uint64_t yi = sort_src_ipi >= 0 ? y->ipis_caused[sort_src_ipi] : 0;

	if (xi != yi)
		return xi < yi ? 1 : -1;
	if (x->flush_requests != y->flush_requests)
		return x->flush_requests < y->flush_requests ? 1 : -1;
	if (x->switches_in != y->switches_in)
		return x->switches_in < y->switches_in ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Address spaces active in the window, most flush IPIs first; the array is new. */
static const struct tl_mm **sorted_mms(const struct timeline *tl, int src, size_t *n)
{
	const struct tl_mm **v = xcalloc(timeline_mm_count(tl), sizeof(*v));

	*n = 0;
	for (uint32_t id = 1; id < timeline_mm_count(tl); id++)
		if (mm_active(timeline_mm(tl, id), src))
			v[(*n)++] = timeline_mm(tl, id);
	sort_src_ipi = src;
	qsort(v, *n, sizeof(*v), cmp_mm);
	return v;
}

static size_t collect_evidence(struct ts_source *src, struct timeline *tl,
			       struct report_evidence *e)
{
	static const struct {
		const char *name, *missing;
	} tps[] = {
		{ "sched_switch", "what ran on each CPU: no switches, no mm timeline" },
		{ "task_newtask", "clone flags: threads vs processes of tasks created in the trace "
				  "are guessed from sched_process_fork" },
		{ "sched_process_fork", "which tasks were created during the trace" },
		{ "sched_process_exec", "new address spaces at exec" },
		{ "sched_process_exit", "address spaces ending (stock masks never shrink)" },
		{ "csd_queue_cpu", "the sender and function of each cross-call on the sending CPU" },
		{ "csd_function_entry", "the flush function run on each target CPU" },
		{ "ipi_send_cpu", "single-target IPIs and their callbacks" },
		{ "ipi_send_cpumask", "multi-target IPIs and their target masks" },
		{ "tlb_flush", "x86 flush reasons (requests, local and remote flushes)" },
	};
	size_t n = 0;

	_Static_assert(sizeof(tps) / sizeof(tps[0]) == REPORT_NEVIDENCE, "the evidence block");
	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		uint32_t id = ts_source_intern(src, tps[i].name);

		e[n].name = tps[i].name;
		e[n].count = timeline_name_count(tl, id);
		e[n].missing = tps[i].missing;
		n++;
	}
	return n;
}

const struct report_kprobe report_kprobes[REPORT_NKPROBES] = {
	{ "switch_mm", "mm pointers: address spaces are derived from pids and clone flags, "
		       "not exact" },
	{ "__flush_tlb_range", "the kernel's own target mask, range and mm of every request "
			       "(local-only requests too)" },
	{ "flush_tlb_mm", "which caller made a whole-mm request" },
	{ "flush_tlb_mm_range", "which caller made a range request (munmap, mprotect)" },
	{ "flush_tlb_page", "which caller made a one-page request (COW)" },
	{ "flush_tlb_range", "which caller made a vma range request" },
	{ "flush_tlb_kernel_range", "kernel-range requests (vmalloc, module unload)" },
	{ "flush_tlb_all", "flush-everything requests" },
	{ "arch_tlbbatch_flush", "batched unmap flushes (reclaim, migration)" },
	{ "__ipi_flush_tlb_range_asid", "the flush each target (and the sender) runs" },
	{ "sbi_remote_sfence_vma_asid", "remote flushes handed to SBI firmware (plain virt, "
					"PLIC: no kernel IPI at all)" },
};

static void mark_defined(struct report_probes *p, const char *func)
{
	for (size_t i = 0; func && i < REPORT_NKPROBES; i++) {
		if (!strcmp(func, report_kprobes[i].func)) {
			p->defined[i] = true;
			return;
		}
	}
	p->ndefined_other++;
}

static void collect_probes(struct ts_source *src, struct timeline *tl, struct report_probes *p)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct ts_probe *pr;
	size_t np;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < REPORT_NKPROBES; i++) {
		p->count[i] = timeline_probe_count(tl, ts_source_intern(src, report_kprobes[i].func));
		p->total += p->count[i];
	}
	/*
	 * The input's kprobe events by the function each probes, whatever their names; a
	 * JSON-lines stream has only the names of the trace it came from.
	 */
	pr = ts_source_probes(src, &np);
	for (size_t d = 0; d < np; d++)
		mark_defined(p, pr[d].func);
	if (!np)
		for (size_t d = 0; d < info->nkprobes_defined; d++)
			mark_defined(p, ts_kprobe_func(info->kprobes_defined[d]));
	for (size_t i = 0; i < REPORT_NKPROBES; i++)
		p->defined[i] |= p->count[i] > 0;
	p->nmi_drop = timeline_kprobes_silent(tl);
}

void report_defined_list(struct ts_source *src, char *buf, size_t len)
{
	const struct ts_source_info *info = ts_source_info(src);
	size_t n = 0;

	buf[0] = '\0';
	for (size_t d = 0; d < info->nkprobes_defined && n + 1 < len; d++) {
		int w = snprintf(buf + n, len - n, "%s%s", d ? ", " : "", info->kprobes_defined[d]);

		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
}

/*
 * Why the kernel's own flush targets are unknown, for "n/a (...)", or NULL when they are
 * counted: a probe of a request whose mask argument is unavailable makes every total of
 * them partial; without any mask-carrying probe they were never seen.
 */
static const char *kmask_unknown_why(struct ts_source *src, struct timeline *tl,
				     const struct report_totals *t, char *why, size_t whylen)
{
	size_t n;
	const struct ts_probe *p = ts_source_probes(src, &n);
	bool mask_probe = false;

	/* the probe that makes every request first, then its callers */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
		const struct ts_probe_arg *a = p[i].func ? ts_probe_arg(&p[i], "mask") : NULL;

		if (!a || !strcmp(p[i].func, "sbi_remote_sfence_vma_asid") ||
		    !strcmp(p[i].func, "local_load_tlb_mm") || !strcmp(p[i].func, "local_flush_tlb_mm"))
			continue;
		if (k < n && strcmp(p[i].func, "__flush_tlb_range"))
			continue;
		mask_probe |= a->field && p[i].events;
		if (p[i].events && p[i].fields_known && !a->field) {
			snprintf(why, whylen, "probe %s (%s) has no mask argument; "
				 "tlbscope probes tells more", p[i].event, p[i].func);
			return why;
		}
	}
	if (t->kmask_requests || mask_probe)
		return NULL;
	if (!timeline_kprobe_requests(tl))
		return "no flush request from a kprobe on __flush_tlb_range or its callers, which "
		       "carry the kernel's cpumask: tlbscope-probes(7)";
	return "no flush request carries the kernel's cpumask";
}

/* What the kernel's own masks say against the IPIs the events show. */
static void kernel_check(struct ts_source *src, struct timeline *tl, struct report_result *r)
{
	const struct report_totals *t = &r->t;
	struct report_check *c = &r->check;
	uint64_t sbi = r->probes.count[REPORT_KPROBE_SBI];

	c->lazy_kernel = timeline_lazy_kernel(tl);
	if (t->kmask_unknown) {
		c->kind = timeline_kprobe_requests(tl) ? REPORT_CHECK_NO_MASK : REPORT_CHECK_NONE;
	} else if (!t->kmask_requests) {
		c->kind = REPORT_CHECK_NONE;
	} else if (!sbi && r->source != TL_IPI_SBI &&
		   !timeline_name_count(tl, ts_source_intern(src, "csd_queue_cpu"))) {
		c->kind = REPORT_CHECK_NO_IPIS;
		c->kernel = t->kernel_targets;
		c->why = "no csd_queue_cpu and no SBI fence events to compare them with";
	} else if (!sbi && r->source != TL_IPI_SBI && !t->csd_flush_ipis && t->kernel_targets &&
		   !c->lazy_kernel) {
		/*
		 * csd events, none of them a flush, against remote targets: the flushes went
		 * another way, the SBI remote fences of a kernel without IPI-based rfence
		 * (Debian's on plain virt), whose probe has no events; not a difference
		 */
		c->kind = REPORT_CHECK_NO_IPIS;
		c->kernel = t->kernel_targets;
		c->why = "the csd events name no flush function, so the remote flushes went "
			 "another way: SBI remote fences (a kernel without IPI-based rfence), "
			 "which no event here shows (sbi_remote_sfence_vma_asid has none)";
	} else if (sbi || r->source == TL_IPI_SBI) {
		c->kind = REPORT_CHECK_SBI;
		c->kernel = t->remote_requests;
		c->seen = sbi;
	} else {
		/* flush_tlb_all's IPIs go to every CPU, in no request's mask: apart */
		uint64_t seen = t->csd_flush_ipis - t->csd_all_ipis;

		c->kind = t->kernel_targets == seen || !c->lazy_kernel ?
			  REPORT_CHECK_CSD : REPORT_CHECK_LAZY;
		c->kernel = t->kernel_targets;
		c->seen = seen;
		c->all = t->csd_all_ipis;
	}
}

/* The time counted: the trace's span, cut to the window of @f. */
static uint64_t window_ns(struct timeline *tl, const struct tl_filter *f)
{
	uint64_t first = timeline_first_ts(tl), last = timeline_last_ts(tl);

	if (f && f->from > first)
		first = f->from;
	if (f && f->to < last)
		last = f->to;
	return last > first ? last - first : 0;
}

static void summarize(struct report_result *r, struct timeline *tl, const struct tl_filter *f,
		      const struct explain_result *x)
{
	struct report_summary *s = &r->sum;
	bool by_ipis = r->source >= 0;

	s->window_ns = window_ns(tl, f);
	s->rates_known = s->window_ns > 0;
	if (s->rates_known) {
		s->requests_per_s = r->t.requests * 1e9 / (double)s->window_ns;
		s->ipis_per_s = r->t.ipis * 1e9 / (double)s->window_ns;
	}
	if (by_ipis && r->t.mm_switches)
		s->ipis_per_mm_switch = (double)r->t.ipis / (double)r->t.mm_switches;
	for (size_t i = 0; i < x->nrows; i++)
		s->not_running += x->rows[i].not_running;
	s->mm_unknown = x->mm_unknown;
	/* explain's callers come by requests: the few that caused the most IPIs */
	for (int k = 0; k < REPORT_TOP; k++) {
		int best = -1;

		for (int i = 0; i < x->ncallers; i++) {
			bool taken = false;
			uint64_t v = by_ipis ? x->callers[i].ipis : x->callers[i].requests;

			for (int j = 0; j < s->ncallers; j++)
				taken |= s->callers[j] == i;
			if (taken || !v)
				continue;
			if (best < 0 || v > (by_ipis ? x->callers[best].ipis : x->callers[best].requests))
				best = i;
		}
		if (best < 0)
			break;
		s->callers[s->ncallers++] = best;
	}
	while (s->nmms < REPORT_TOP && (size_t)s->nmms < r->nmms &&
	       (by_ipis ? r->mms[s->nmms]->ipis_caused[r->source] :
			  r->mms[s->nmms]->flush_requests))
		s->nmms++;
}

struct report_result *report_result_new(struct ts_source *src, struct timeline *tl,
					const struct tl_filter *f, const struct explain_result *x)
{
	struct report_result *r = xcalloc(1, sizeof(*r));
	enum tl_requests_unknown unknown;
	uint64_t recorded = 0;
	int isrc = timeline_ipi_source(tl);

	r->source = isrc;
	sum_totals(tl, isrc, &r->t);
	r->t.kmask_unknown = kmask_unknown_why(src, tl, &r->t, r->why, sizeof(r->why));
	r->cpus = xcalloc(timeline_cpus(tl) ? timeline_cpus(tl) : 1, sizeof(*r->cpus));
	for (int i = 0; i < timeline_cpus(tl); i++) {
		const struct tl_cpu *c = timeline_cpu(tl, i);
		struct report_cpu *rc;

		recorded += c->events;
		if (f && f->has_cpus && !ts_cpumask_test(&f->cpus, i))
			continue;
		rc = &r->cpus[r->ncpus++];
		*rc = (struct report_cpu){
			.cpu = i, .seen = c->events || c->lost, .switches = c->switches,
			.mm_switches = c->mm_switches, .mms = cpu_mms(tl, i),
			.ipis_sent = ipis_sent(c, isrc), .ipis_recv = ipis_recv(c, isrc),
			.local = timeline_local_flushes(tl, i), .requests = c->flush_requests,
			.kthread_ns = c->kthread_ns, .idle_ns = c->idle_ns, .lost = c->lost,
			.kernel_targets = c->kernel_targets,
			.lost_share = c->lost ? (double)c->lost / (double)(c->lost + c->events) : 0,
		};
		r->unobserved += !rc->seen;
		rc->lossy = rc->lost_share > REPORT_LOSSY_SHARE || c->lost_marks;
		r->lossy_cpus += rc->lossy;
	}
	r->mms = sorted_mms(tl, isrc, &r->nmms);
	collect_evidence(src, tl, r->evidence);
	collect_probes(src, tl, &r->probes);
	r->lost = timeline_lost(tl, &r->lost_marks);
	r->lost_share = r->lost ? (double)r->lost / (double)(r->lost + recorded) : 0;
	r->span_ns = timeline_last_ts(tl) - timeline_first_ts(tl);
	r->text_timestamps = text_timestamps(ts_source_info(src));
	unknown = timeline_requests_unknown(tl);
	if (unknown == TL_REQUESTS_DROPPED)
		r->requests_unknown = "the kernel dropped every kprobe event: Evidence says why";
	else if (unknown == TL_REQUESTS_UNSEEN)
		r->requests_unknown = "no event of this input shows one: no kprobe on the flush "
				      "path, tlb_flush or csd flush IPI";
	kernel_check(src, tl, r);
	summarize(r, tl, f, x);
	return r;
}

void report_result_free(struct report_result *r)
{
	if (!r)
		return;
	free(r->cpus);
	free(r->mms);
	free(r);
}
