// SPDX-License-Identifier: GPL-2.0-only
/*
 * Why the flush IPIs happen, for `tlbscope report`: flush requests and IPIs by the kernel
 * path that asked (the flush_tlb_* caller probes, or x86 tlb_flush reasons), the sender x
 * target matrix, per process the share of IPI targets that were not running the mm (its
 * mm not active there: what lazy flushing would defer), and the worst bursts in time.  A consumer of the timeline's
 * resolved events (report passes explain_feed() to analyze()).
 *
 * The IPI evidence report counts is chosen over the whole trace, so everything here is
 * kept per evidence source and the chosen one is printed.  Memory: a hash map per source
 * for the matrix and one per (source, mm), the callers (a handful), and the few worst
 * bursts: flat in the trace's length.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"
#include "report-explain.h"

#define MAX_CALLERS	24
#define WORST		5
#define BURST_NS	10000000ULL	/* 10 ms intervals */

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
	uint32_t req_mm[TS_MAX_CPUS];		/* the mm of the CPU's last flush request */
	/*
	 * The mm each CPU has active, as the models see it: a kernel thread or idle keeps
	 * the one before (lazy TLB), switch_mm and exec's activate_mm load one.
	 */
	uint32_t active[TS_MAX_CPUS];
	uint32_t pend_mm[TS_MAX_CPUS];		/* the mm of the last IPI sent to the CPU */
	struct u64map matrix[TL_IPI__COUNT];	/* (from + 1) << 16 | to -> IPIs */
	struct u64map per_mm[TL_IPI__COUNT];	/* mm << 1 | not running -> IPIs */
	/* bursts: the interval being counted, and the worst ones */
	uint64_t bucket[TL_IPI__COUNT], bucket_ipis[TL_IPI__COUNT];
	struct u64map bucket_mm[TL_IPI__COUNT];
	struct burst worst[TL_IPI__COUNT][WORST];
	bool any_bucket[TL_IPI__COUNT];
};

struct explain *explain_new(struct ts_source *src)
{
	struct explain *x = xcalloc(1, sizeof(*x));

	x->src = src;
	for (int i = 0; i < TS_MAX_CPUS; i++)
		x->pending_caller[i] = x->req_caller[i] = -1;
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
		snprintf(name, sizeof(name), "tlb_flush %s", reason_name(ev->u.flush.reason));
		return caller_id(x, name);
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
 * target.  "Not running" when the target's active mm is another: the targets lazy(T, Q)
 * queues instead of interrupting (docs/design.md section 4, rule 2).
 */
static void count_ipi(void *ctx, struct timeline *tl, int s, int from, int to, uint64_t ts)
{
	struct explain *x = ctx;
	uint64_t b = ts / BURST_NS;
	bool not_running;
	uint32_t mm;
	int c;

	if (to < 0 || to >= TS_MAX_CPUS)
		return;
	if (s == TL_IPI_CSD_ENTRY || s == TL_IPI_TLB_FLUSH)
		mm = x->pend_mm[to];
	else if (s == TL_IPI_SBI)
		mm = from >= 0 ? x->req_mm[from] : 0;
	else
		mm = timeline_current_mm(tl, from);
	if (s != TL_IPI_CSD_ENTRY && s != TL_IPI_TLB_FLUSH)
		x->pend_mm[to] = mm;
	not_running = x->active[to] != mm;
	if (!timeline_counted(tl, to, ts))
		return;
	(*u64map_get(&x->matrix[s], (uint64_t)(from + 1) << 16 | (uint64_t)to, 0, NULL))++;
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
			x->pending_caller[ev->cpu] = -1;
			if (timeline_counted(tl, ev->cpu, ev->ts))
				x->callers[c].requests++;
		}
		timeline_flush_ipis_each(ev, tl, count_ipi, x);
		break;
	case TS_EV_IPI:
		timeline_flush_ipis_each(ev, tl, count_ipi, x);
		break;
	default:
		break;
	}
}

/* ---- output ---- */

static int cmp_caller(const void *a, const void *b)
{
	const struct caller *x = a, *y = b;

	if (x->requests != y->requests)
		return x->requests < y->requests ? 1 : -1;
	return strcmp(x->name, y->name);
}

struct mm_row {
	uint32_t mm;
	uint64_t ipis, not_running;
};

static struct timeline *sort_tl;

static int cmp_mm_row(const void *a, const void *b)
{
	const struct mm_row *x = a, *y = b;

	if (x->ipis != y->ipis)
		return x->ipis < y->ipis ? 1 : -1;
	return mm_name_cmp(sort_tl, x->mm, y->mm);
}

/* Processes' IPIs and those to CPUs not running the mm, most IPIs first; *@n rows. */
static struct mm_row *mm_rows(struct explain *x, struct timeline *tl, int s, size_t *n)
{
	struct mm_row *rows = NULL;
	size_t alloc = 0;

	*n = 0;
	for (size_t i = 0; i < x->per_mm[s].cap; i++) {
		const struct u64map *m = &x->per_mm[s];
		uint32_t mm = (uint32_t)(m->keys[i] >> 1);
		size_t k;

		if (!m->used[i])
			continue;
		for (k = 0; k < *n && rows[k].mm != mm; k++)
			;
		if (k == *n) {
			ALLOC_GROW(rows, *n + 1, alloc);
			rows[(*n)++] = (struct mm_row){ .mm = mm };
		}
		rows[k].ipis += m->vals[i];
		if (m->keys[i] & 1)
			rows[k].not_running += m->vals[i];
	}
	sort_tl = tl;
	if (*n)		/* no rows: NULL, which qsort() may not be given */
		qsort(rows, *n, sizeof(*rows), cmp_mm_row);
	return rows;
}

static uint64_t matrix_at(struct explain *x, int s, int from, int to)
{
	uint64_t *v = u64map_find(&x->matrix[s], (uint64_t)(from + 1) << 16 | (uint64_t)to);

	return v ? *v : 0;
}

static bool any_unknown_sender(struct explain *x, int s, int ncpus)
{
	for (int t = 0; t < ncpus; t++)
		if (matrix_at(x, s, -1, t))
			return true;
	return false;
}

void explain_text(struct explain *x, struct timeline *tl, int s, int top)
{
	int ncpus = timeline_cpus(tl);
	struct mm_row *rows;
	size_t n;

	if (x->ncallers) {
		static const char *const h[] = { "CALLER", "REQUESTS", "FLUSH_IPIS" };
		struct table *t = table_new(3, h, "<>>");

		qsort(x->callers, x->ncallers, sizeof(x->callers[0]), cmp_caller);
		printf("\nFlush requests and IPIs by kernel caller\n");
		for (int i = 0; i < x->ncallers; i++) {
			char r[24], p[24];
			const char *cells[3] = { x->callers[i].name, r, p };

			if (!x->callers[i].requests && (s < 0 || !x->callers[i].ipis[s]))
				continue;	/* seen only through evidence report does not count */
			snprintf(r, sizeof(r), "%llu", (unsigned long long)x->callers[i].requests);
			if (s >= 0)
				snprintf(p, sizeof(p), "%llu", (unsigned long long)x->callers[i].ipis[s]);
			else
				snprintf(p, sizeof(p), "n/a");
			table_add(t, cells);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	if (s < 0)
		return;
	printf("\nFlush IPIs, sender (rows) x target (columns)\n");
	{
		bool unknown = any_unknown_sender(x, s, ncpus);
		int ncols = ncpus + 2;
		const char **h = xcalloc(ncols, sizeof(*h));
		char **names = xcalloc(ncols, sizeof(*names));
		char *aligns = xcalloc(ncols + 1, 1);
		struct table *t;

		for (int c = 0; c < ncols; c++) {
			names[c] = xmalloc(24);
			if (c == 0)
				snprintf(names[c], 24, "FROM\\TO");
			else if (c <= ncpus)
				snprintf(names[c], 24, "CPU%d", c - 1);
			else
				snprintf(names[c], 24, "SENT");
			h[c] = names[c];
			aligns[c] = c ? '>' : '<';
		}
		t = table_new(ncols, h, aligns);
		for (int f = unknown ? -1 : 0; f < ncpus; f++) {
			const char **cells = xcalloc(ncols, sizeof(*cells));
			char (*v)[24] = xcalloc(ncols, 24);
			uint64_t sum = 0;

			snprintf(v[0], 24, f < 0 ? "unknown" : "CPU%d", f);
			for (int to = 0; to < ncpus; to++) {
				uint64_t m = matrix_at(x, s, f, to);

				sum += m;
				snprintf(v[to + 1], 24, "%llu", (unsigned long long)m);
			}
			snprintf(v[ncols - 1], 24, "%llu", (unsigned long long)sum);
			for (int c = 0; c < ncols; c++)
				cells[c] = v[c];
			table_add(t, cells);
			free(cells);
			free(v);
		}
		table_print(t, stdout, "  ");
		table_free(t);
		for (int c = 0; c < ncols; c++)
			free(names[c]);
		free(names);
		free(h);
		free(aligns);
	}
	rows = mm_rows(x, tl, s, &n);
	if (n) {
		static const char *const h[] = { "MM", "PID", "COMMAND", "FLUSH_IPIS",
						  "NOT_RUNNING", "SHARE" };
		struct table *t = table_new(6, h, "<><>>>");

		printf("\nFlush IPIs to CPUs that were not running the mm (its mm not active there: "
		       "what lazy flushing would queue instead)\n");
		for (size_t i = 0; i < n && (!top || (int)i < top); i++) {
			const struct tl_mm *m = timeline_mm(tl, rows[i].mm);
			char pid[16], ipis[24], nr[24], share[16];
			const char *cells[6] = { m ? m->name : "?", pid, m ? m->comm : "?", ipis, nr,
						 share };

			snprintf(pid, sizeof(pid), "%d", m ? m->pid : -1);
			snprintf(ipis, sizeof(ipis), "%llu", (unsigned long long)rows[i].ipis);
			snprintf(nr, sizeof(nr), "%llu", (unsigned long long)rows[i].not_running);
			snprintf(share, sizeof(share), "%.1f %%",
				 100.0 * rows[i].not_running / rows[i].ipis);
			table_add(t, cells);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	free(rows);
	if (x->any_bucket[s]) {
		close_bucket(x, tl, s);
		x->any_bucket[s] = false;
	}
	if (x->worst[s][0].ipis) {
		printf("\nWorst bursts of flush IPIs (10 ms intervals)\n");
		for (int k = 0; k < WORST && x->worst[s][k].ipis; k++) {
			const struct burst *b = &x->worst[s][k];
			const struct tl_mm *m = b->top_mm ? timeline_mm(tl, b->top_mm) : NULL;
			char at[32];

			format_ns(at, sizeof(at), b->start);
			printf("  at %s s: %llu IPIs in 10 ms (%.0f/s), most from %s (%s, %llu)\n",
			       at, (unsigned long long)b->ipis, b->ipis * 1e9 / BURST_NS,
			       m ? m->name : "?", m ? m->comm : "?",
			       (unsigned long long)b->top_mm_ipis);
		}
	}
}

void explain_json(struct explain *x, struct timeline *tl, int s, json_t *j)
{
	int ncpus = timeline_cpus(tl);
	json_t *callers = json_array(), *mat, *nr, *bursts;
	struct mm_row *rows;
	size_t n;

	qsort(x->callers, x->ncallers, sizeof(x->callers[0]), cmp_caller);
	for (int i = 0; i < x->ncallers; i++) {
		json_t *c;

		if (!x->callers[i].requests && (s < 0 || !x->callers[i].ipis[s]))
			continue;
		c = json_object();
		json_object_set_new(c, "caller", json_text(x->callers[i].name));
		json_object_set_new(c, "flush_requests",
				    json_integer((json_int_t)x->callers[i].requests));
		json_object_set_new(c, "flush_ipis", s >= 0 ?
				    json_integer((json_int_t)x->callers[i].ipis[s]) : json_null());
		json_array_append_new(callers, c);
	}
	json_object_set_new(j, "callers", callers);
	if (s < 0) {
		json_object_set_new(j, "ipi_matrix", json_null());
		json_object_set_new(j, "ipis_not_running", json_null());
		json_object_set_new(j, "ipi_bursts", json_null());
		return;
	}
	mat = json_object();
	{
		json_t *rowsj = json_array();

		for (int f = 0; f < ncpus; f++) {
			json_t *r = json_array();

			for (int to = 0; to < ncpus; to++)
				json_array_append_new(r, json_integer((json_int_t)matrix_at(x, s, f, to)));
			json_array_append_new(rowsj, r);
		}
		json_object_set_new(mat, "rows", rowsj);
		if (any_unknown_sender(x, s, ncpus)) {
			json_t *r = json_array();

			for (int to = 0; to < ncpus; to++)
				json_array_append_new(r, json_integer((json_int_t)matrix_at(x, s, -1, to)));
			json_object_set_new(mat, "unknown_sender", r);
		} else {
			json_object_set_new(mat, "unknown_sender", json_null());
		}
	}
	json_object_set_new(j, "ipi_matrix", mat);
	nr = json_array();
	rows = mm_rows(x, tl, s, &n);
	for (size_t i = 0; i < n; i++) {
		const struct tl_mm *m = timeline_mm(tl, rows[i].mm);
		json_t *o = json_object();

		json_object_set_new(o, "mm", json_text(m ? m->name : "?"));
		json_object_set_new(o, "pid", json_integer(m ? m->pid : -1));
		json_object_set_new(o, "comm", json_text(m ? m->comm : "?"));
		json_object_set_new(o, "flush_ipis", json_integer((json_int_t)rows[i].ipis));
		json_object_set_new(o, "targets_not_running",
				    json_integer((json_int_t)rows[i].not_running));
		json_array_append_new(nr, o);
	}
	free(rows);
	json_object_set_new(j, "ipis_not_running", nr);
	if (x->any_bucket[s]) {
		close_bucket(x, tl, s);
		x->any_bucket[s] = false;
	}
	bursts = json_object();
	json_object_set_new(bursts, "interval_ns", json_integer((json_int_t)BURST_NS));
	{
		json_t *w = json_array();

		for (int k = 0; k < WORST && x->worst[s][k].ipis; k++) {
			const struct burst *b = &x->worst[s][k];
			const struct tl_mm *m = b->top_mm ? timeline_mm(tl, b->top_mm) : NULL;
			json_t *o = json_object();

			json_object_set_new(o, "start_ns", json_integer((json_int_t)b->start));
			json_object_set_new(o, "length_ns", json_integer((json_int_t)BURST_NS));
			json_object_set_new(o, "flush_ipis", json_integer((json_int_t)b->ipis));
			json_object_set_new(o, "top_mm", m ? json_text(m->name) : json_null());
			json_object_set_new(o, "top_mm_flush_ipis",
					    json_integer((json_int_t)b->top_mm_ipis));
			json_array_append_new(w, o);
		}
		json_object_set_new(bursts, "worst", w);
	}
	json_object_set_new(j, "ipi_bursts", bursts);
}
