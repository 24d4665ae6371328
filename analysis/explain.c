// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why the flush IPIs happen, for `tlbscope report`: flush requests and IPIs by the kernel
 * path that asked (the flush_tlb_* caller probes, or x86 tlb_flush reasons), the sender x
 * target matrix, per process the share of IPI targets that were not running the mm (its
 * mm not active there: what lazy flushing would defer), and the worst bursts in time.  A
 * consumer of the timeline's resolved events; cli/report-explain.c prints the result.
 *
 * The IPI evidence report counts is chosen over the whole trace, so everything here is
 * kept per evidence source and the chosen one is printed.  Memory: a hash map per source
 * for the matrix and one per (source, mm), the callers (a handful), and the few worst
 * bursts: flat in the trace's length.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "explain.h"

#define MAX_CALLERS	EXPLAIN_MAX_CALLERS
#define WORST		EXPLAIN_WORST
#define BURST_NS	EXPLAIN_BURST_NS

struct caller {
	char name[48];
	uint64_t requests, ipis[TL_IPI__COUNT];
};

struct burst {
	uint64_t start, ipis;
	uint32_t top_mm;
	uint64_t top_mm_ipis;
};

struct explain {
	struct ts_source *src;
	struct caller callers[MAX_CALLERS];
	int ncallers;
	/* per CPU: the caller probe last seen and the caller of the last request */
	int pending_caller[TS_MAX_CPUS], req_caller[TS_MAX_CPUS];
	/*
	 * caller_id() of "tlb_flush <reason>" by x86 reason, -1 not asked yet: the name is a
	 * function of the reason and an id, once given, never changes (callers only grow, until
	 * explain_result() sorts them after the last event, as the ids kept per CPU assume)
	 */
	int reason_caller[256];
	uint32_t req_mm[TS_MAX_CPUS];		/* the mm of the CPU's last flush request */
	/*
	 * The CPU's last request flushed kernel mappings or everything (a kprobe's, made
	 * before its IPIs): no model could queue its IPIs, whatever the targets run
	 */
	bool req_nomm[TS_MAX_CPUS];
	bool ipi_all;		/* the IPI event being counted is flush_tlb_all's */
	/*
	 * The mm each CPU has active, as the models see it: a kernel thread or idle keeps
	 * the one before (lazy TLB), switch_mm and exec's activate_mm load one.
	 */
	uint32_t active[TS_MAX_CPUS];
	/* target-side IPIs counted whose mm is unknown: no cross-call to the CPU seen before */
	uint64_t mm_unknown[TL_IPI__COUNT];
	struct u64map matrix[TL_IPI__COUNT];	/* (from + 1) << 16 | to -> IPIs */
	struct u64map per_mm[TL_IPI__COUNT];	/* mm << 1 | not running -> IPIs */
	/* bursts: the interval being counted, and the worst ones */
	uint64_t bucket[TL_IPI__COUNT], bucket_ipis[TL_IPI__COUNT];
	struct u64map bucket_mm[TL_IPI__COUNT];
	struct burst worst[TL_IPI__COUNT][WORST];
	bool any_bucket[TL_IPI__COUNT];
	struct explain_result result;	/* explain_result()'s, once asked */
	bool finished;
};

struct explain *explain_new(struct ts_source *src)
{
	struct explain *x = xcalloc(1, sizeof(*x));

	x->src = src;
	for (int i = 0; i < TS_MAX_CPUS; i++)
		x->pending_caller[i] = x->req_caller[i] = -1;
	for (int i = 0; i < 256; i++)
		x->reason_caller[i] = -1;
	for (int s = 0; s < TL_IPI__COUNT; s++) {
		u64map_init(&x->matrix[s]);
		u64map_init(&x->per_mm[s]);
		u64map_init(&x->bucket_mm[s]);
	}
	return x;
}

void explain_free(struct explain *x)
{
	if (!x)
		return;
	for (int s = 0; s < TL_IPI__COUNT; s++) {
		u64map_release(&x->matrix[s]);
		u64map_release(&x->per_mm[s]);
		u64map_release(&x->bucket_mm[s]);
	}
	free(x->result.matrix);
	free(x->result.rows);
	free(x);
}

static int caller_id(struct explain *x, const char *name)
{
	for (int i = 0; i < x->ncallers; i++)
		if (!strcmp(x->callers[i].name, name))
			return i;
	if (x->ncallers == MAX_CALLERS)
		return MAX_CALLERS - 1;		/* the last slot takes the rest */
	snprintf(x->callers[x->ncallers].name, sizeof(x->callers[0].name), "%s", name);
	return x->ncallers++;
}

/* x86 tlb_flush's reasons (enum tlb_flush_reason) */
static const char *reason_name(int reason)
{
	static const char *const names[] = {
		"task_switch", "remote_shootdown", "local_shootdown", "local_mm_shootdown",
		"remote_send_ipi", "remote_wrong_cpu",
	};

	return reason >= 0 && reason < (int)(sizeof(names) / sizeof(names[0])) ?
	       names[reason] : "tlb_flush";
}

/* The kernel path of a flush request: its own caller probe, the one just before it, ... */
static int request_caller(struct explain *x, const struct ts_event *ev)
{
	const char *fn = ev->probe ? ts_source_str(x->src, ev->probe) : NULL;
	char name[64];

	switch (ev->u.flush.src) {
	case TS_SRC_KPROBE_CALLER:
		return caller_id(x, fn ? fn : "?");
	case TS_SRC_KPROBE:
		if (x->pending_caller[ev->cpu] >= 0)
			return x->pending_caller[ev->cpu];
		/* __flush_tlb_range with no caller probe before it (or flush_tlb_all) */
		return caller_id(x, fn && strcmp(fn, "__flush_tlb_range") ? fn :
				 "__flush_tlb_range (caller not traced)");
	case TS_SRC_TLB_FLUSH:
		/* on every x86 request: the name formatted once per reason */
		if (x->reason_caller[ev->u.flush.reason] < 0) {
			snprintf(name, sizeof(name), "tlb_flush %s", reason_name(ev->u.flush.reason));
			x->reason_caller[ev->u.flush.reason] = caller_id(x, name);
		}
		return x->reason_caller[ev->u.flush.reason];
	case TS_SRC_CSD_QUEUE:
		return caller_id(x, "unknown (only csd events)");
	default:
		return caller_id(x, ts_evsrc_name(ev->u.flush.src));
	}
}

/* Ties between mms go by name: ids depend on the order the input named them in. */
static int mm_name_cmp(struct timeline *tl, uint32_t a, uint32_t b)
{
	const struct tl_mm *ma = timeline_mm(tl, a), *mb = timeline_mm(tl, b);

	return strcmp(ma ? ma->name : "", mb ? mb->name : "");
}

static void close_bucket(struct explain *x, struct timeline *tl, int s)
{
	struct burst b = { .start = x->bucket[s] * BURST_NS, .ipis = x->bucket_ipis[s] };
	struct burst *w = x->worst[s];
	size_t i;

	if (!b.ipis)
		return;
	for (i = 0; i < x->bucket_mm[s].cap; i++) {
		const struct u64map *m = &x->bucket_mm[s];

		if (m->used[i] && (m->vals[i] > b.top_mm_ipis ||
				   (m->vals[i] == b.top_mm_ipis &&
				    mm_name_cmp(tl, (uint32_t)m->keys[i], b.top_mm) < 0))) {
			b.top_mm = (uint32_t)m->keys[i];
			b.top_mm_ipis = m->vals[i];
		}
	}
	for (int k = 0; k < WORST; k++)
		if (b.ipis > w[k].ipis) {
			memmove(&w[k + 1], &w[k], (WORST - 1 - k) * sizeof(w[0]));
			w[k] = b;
			break;
		}
}

/*
 * One flush IPI of evidence @s.  Its mm as timeline/ attributes it: the sender's running
 * task's, the request's for an SBI fence, the sender's at send time when seen on the
 * target (unknown where no cross-call to the target came before: counted apart).  "Not
 * running" when the target's active mm is another: the targets lazy(T, Q) queues instead
 * of interrupting (docs/design.md section 4, rule 2).
 */
static void count_ipi(void *ctx, struct timeline *tl, int s, int from, int to, uint64_t ts)
{
	struct explain *x = ctx;
	uint64_t b = ts / BURST_NS;
	bool not_running, known = true;
	uint32_t mm = 0;
	int c;

	if (to < 0 || to >= TS_MAX_CPUS)
		return;
	if (s == TL_IPI_CSD_ENTRY || s == TL_IPI_TLB_FLUSH)
		known = timeline_ipi_sender_mm(tl, to, &mm);
	else if (s == TL_IPI_SBI)
		mm = from >= 0 ? x->req_mm[from] : 0;
	else
		mm = timeline_current_mm(tl, from);
	/* a flush of kernel mappings or of everything: its sender's, but no model queues it */
	not_running = x->active[to] != mm &&
		      !((s == TL_IPI_CSD_QUEUE || s == TL_IPI_MASK) &&
			(x->ipi_all || (from >= 0 && x->req_nomm[from])));
	if (!timeline_counted(tl, to, ts))
		return;
	(*u64map_get(&x->matrix[s], (uint64_t)(from + 1) << 16 | (uint64_t)to, 0, NULL))++;
	if (!known)
		x->mm_unknown[s]++;
	if (mm)
		(*u64map_get(&x->per_mm[s], (uint64_t)mm << 1 | not_running, 0, NULL))++;
	c = from >= 0 ? x->req_caller[from] : -1;
	x->callers[c >= 0 ? c : caller_id(x, "unknown (sender not traced)")].ipis[s]++;
	if (!x->any_bucket[s] || b != x->bucket[s]) {
		if (x->any_bucket[s])
			close_bucket(x, tl, s);
		u64map_release(&x->bucket_mm[s]);
		u64map_init(&x->bucket_mm[s]);
		x->bucket[s] = b;
		x->bucket_ipis[s] = 0;
		x->any_bucket[s] = true;
	}
	x->bucket_ipis[s]++;
	if (mm)
		(*u64map_get(&x->bucket_mm[s], mm, 0, NULL))++;
}

void explain_feed(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct explain *x = ctx;
	const char *fn;

	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	switch (ev->kind) {
	case TS_EV_SWITCH:
		x->pending_caller[ev->cpu] = -1;
		if (!(ev->flags & TS_F_KTHREAD) && ev->u.sw.mm)
			x->active[ev->cpu] = ev->u.sw.mm;
		break;
	case TS_EV_LOAD_MM:
		if (ev->u.load.mm)
			x->active[ev->cpu] = ev->u.load.mm;
		break;
	case TS_EV_OTHER:
		/* a caller probe of __flush_tlb_range, taken by the request that follows */
		fn = ev->probe ? ts_source_str(x->src, ev->probe) : NULL;
		if (fn && !strncmp(fn, "flush_tlb_", 10))
			x->pending_caller[ev->cpu] = caller_id(x, fn);
		else if (fn && !strcmp(fn, "arch_tlbbatch_flush"))
			x->pending_caller[ev->cpu] = caller_id(x, fn);
		break;
	case TS_EV_FLUSH:
		if (ev->u.flush.role == TS_FLUSH_REQUEST) {
			int c = request_caller(x, ev);

			x->req_caller[ev->cpu] = c;
			x->req_mm[ev->cpu] = ev->u.flush.mm;
			x->req_nomm[ev->cpu] = (ev->u.flush.src == TS_SRC_KPROBE ||
						ev->u.flush.src == TS_SRC_KPROBE_CALLER) &&
					       (ev->u.flush.scope == TS_SCOPE_KERNEL ||
						ev->u.flush.scope == TS_SCOPE_ALL ||
						ev->u.flush.scope == TS_SCOPE_TARGETS);
			x->pending_caller[ev->cpu] = -1;
			if (timeline_counted(tl, ev->cpu, ev->ts))
				x->callers[c].requests++;
		}
		timeline_flush_ipis_each(ev, tl, count_ipi, x);
		break;
	case TS_EV_IPI:
		x->ipi_all = ev->u.ipi.func && timeline_flushes_all(tl, ev->u.ipi.func);
		timeline_flush_ipis_each(ev, tl, count_ipi, x);
		x->ipi_all = false;
		break;
	default:
		break;
	}
}

/* ---- the result ---- */

static int cmp_caller(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;

	if (x->requests != y->requests)
		return x->requests < y->requests ? 1 : -1;
	return strcmp(x->name, y->name);
}

static int cmp_mm_row(const void *a, const void *b)
{
	const struct explain_mm_row *x = a, *y = b;

	if (x->ipis != y->ipis)
		return x->ipis < y->ipis ? 1 : -1;
	return strcmp(x->mm ? x->mm->name : "", y->mm ? y->mm->name : "");
}

/* Processes' IPIs and those to CPUs not running the mm, most IPIs first, into @r. */
static void mm_rows(struct explain *x, struct timeline *tl, int s, struct explain_result *r)
{
	const struct u64map *m = &x->per_mm[s];
	uint32_t *ids = NULL;
	size_t alloc = 0, ialloc = 0;

	r->nrows = 0;
	for (size_t i = 0; i < m->cap; i++) {
		uint32_t mm = (uint32_t)(m->keys[i] >> 1);
		size_t k;

		if (!m->used[i])
			continue;
		for (k = 0; k < r->nrows && ids[k] != mm; k++)
			;
		if (k == r->nrows) {
			ALLOC_GROW(r->rows, r->nrows + 1, alloc);
			ALLOC_GROW(ids, r->nrows + 1, ialloc);
			ids[k] = mm;
			r->rows[r->nrows++] = (struct explain_mm_row){ .mm = timeline_mm(tl, mm) };
		}
		r->rows[k].ipis += m->vals[i];
		if (m->keys[i] & 1)
			r->rows[k].not_running += m->vals[i];
	}
	free(ids);
	if (r->nrows)		/* no rows: NULL, which qsort() may not be given */
		qsort(r->rows, r->nrows, sizeof(*r->rows), cmp_mm_row);
}

static uint64_t matrix_at(struct explain *x, int s, int from, int to)
{
	uint64_t *v = u64map_find(&x->matrix[s], (uint64_t)(from + 1) << 16 | (uint64_t)to);

	return v ? *v : 0;
}

uint64_t explain_matrix_at(const struct explain_result *r, int from, int to)
{
	return r->matrix[(size_t)(from + 1) * (size_t)r->ncpus + (size_t)to];
}

const struct explain_result *explain_result(struct explain *x, struct timeline *tl, int s)
{
	struct explain_result *r = &x->result;

	if (x->finished)
		return r;
	x->finished = true;
	r->source = s;
	qsort(x->callers, x->ncallers, sizeof(x->callers[0]), cmp_caller);
	for (int i = 0; i < x->ncallers; i++) {
		const struct caller *c = &x->callers[i];

		if (!c->requests && (s < 0 || !c->ipis[s]))
			continue;	/* seen only through evidence report does not count */
		snprintf(r->callers[r->ncallers].name, sizeof(r->callers[0].name), "%s", c->name);
		r->callers[r->ncallers].requests = c->requests;
		r->callers[r->ncallers].ipis = s >= 0 ? c->ipis[s] : 0;
		r->ncallers++;
	}
	if (s < 0)
		return r;
	r->ncpus = timeline_cpus(tl);
	r->matrix = xcalloc((size_t)(r->ncpus + 1) * (size_t)(r->ncpus ? r->ncpus : 1),
			    sizeof(*r->matrix));
	for (int f = -1; f < r->ncpus; f++)
		for (int to = 0; to < r->ncpus; to++) {
			uint64_t v = matrix_at(x, s, f, to);

			r->matrix[(size_t)(f + 1) * (size_t)r->ncpus + (size_t)to] = v;
			r->unknown_sender |= f < 0 && v;
		}
	mm_rows(x, tl, s, r);
	r->mm_unknown = x->mm_unknown[s];
	if (x->any_bucket[s]) {
		close_bucket(x, tl, s);
		x->any_bucket[s] = false;
	}
	for (int k = 0; k < WORST && x->worst[s][k].ipis; k++) {
		const struct burst *b = &x->worst[s][k];

		r->worst[k] = (struct explain_burst){ .start = b->start, .ipis = b->ipis,
			.top_mm = b->top_mm ? timeline_mm(tl, b->top_mm) : NULL,
			.top_mm_ipis = b->top_mm_ipis };
		r->nworst++;
	}
	return r;
}

static void *explain_new_op(struct ts_source *src, const void *opts)
{
	return explain_new(src);
}

static void explain_free_op(void *state)
{
	explain_free(state);
}

const struct analysis_ops explain_analysis = {
	.name = "explain", .new = explain_new_op, .feed = explain_feed, .free = explain_free_op,
};
