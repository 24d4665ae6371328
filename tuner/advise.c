// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a lazy-flush kernel's own events say of its setting (its evictions, its queues as
 * its lazy_tlb_defer decisions fill them), and the base the advice is measured against:
 * the user's, else the one the trace shows, else the series' defaults - never a default
 * presented as the kernel's own.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tuner-int.h"

#define QSLOT_KNOWN	(1ULL << 40)	/* the count started from an emptied queue */

/* The codes of the lazy kernel's lazy_tlb_defer(mm, cpu, decision) (tlbscope-probes(7)) */
enum { DEFER_IPI, DEFER_QUEUED, DEFER_FLAG_FULL, DEFER_FLAG_OVERFLOW, DEFER_ABSORBED };

void tuner_lazy_kernel_reset(struct tuner_lazy_kernel *k)
{
	if (k->qslots) {
		for (int i = 0; i < TS_MAX_CPUS; i++)
			u64map_release(&k->qslots[i]);
		free(k->qslots);
	}
	memset(k, 0, sizeof(*k));
	k->queue = -1;
}

/* the lazy kernel's probes the tally reads: an eviction, a deferral */
static const char evict_probe[] = "local_flush_tlb_mm", defer_probe[] = "lazy_tlb_defer";

bool tuner_lazy_kernel_reads(const char *probe)
{
	return !strcmp(probe, evict_probe) || !strcmp(probe, defer_probe);
}

/*
 * A load of mm on a CPU runs and empties that slot's queue (local_load_tlb_mm); each
 * "queued" decision for a remote CPU adds an entry; an overflow comes when the queue
 * already holds Q entries.  @probe: the function the event's probe is on, NULL none.
 */
void tuner_lazy_kernel_feed(struct tuner_lazy_kernel *k, const struct ts_event *ev,
			    const char *probe, bool counted)
{
	uint64_t *v;
	int cpu;

	if (counted && ev->kind == TS_EV_OTHER && probe && !strcmp(probe, evict_probe))
		k->evictions++;	/* a lazy kernel's eviction */
	if (ev->kind == TS_EV_LOAD_MM && ev->u.load.commit)
		cpu = ev->cpu;
	else if (ev->kind == TS_EV_OTHER && probe && ev->u.defer.known &&
		 !strcmp(probe, defer_probe))
		cpu = ev->u.defer.target;
	else
		return;
	if (cpu < 0 || cpu >= TS_MAX_CPUS)
		return;
	if (!k->qslots)
		k->qslots = xcalloc(TS_MAX_CPUS, sizeof(*k->qslots));
	if (ev->kind == TS_EV_LOAD_MM) {
		*u64map_get(&k->qslots[cpu], ev->u.load.next, 0, NULL) = QSLOT_KNOWN;
		return;
	}
	v = u64map_get(&k->qslots[cpu], ev->u.defer.mm_ptr, 0, NULL);
	switch (ev->u.defer.decision) {
	case DEFER_QUEUED:
		*v += 1;
		if ((*v & ~QSLOT_KNOWN) > k->queue_min)
			k->queue_min = *v & ~QSLOT_KNOWN;
		break;
	case DEFER_FLAG_OVERFLOW:	/* the queue was full: it held Q entries */
		if (*v & QSLOT_KNOWN) {
			int64_t q = (int64_t)(*v & ~QSLOT_KNOWN);

			if (k->queue == -1)
				k->queue = q;
			else if (k->queue != q)
				k->queue = -2;
		}
		*v = 0;		/* the flag absorbs what follows until the next load */
		break;
	case DEFER_FLAG_FULL:
		*v = 0;
		break;
	default:
		break;
	}
}

/* The index in @l (@n values) of @v, else of the value nearest to it. */
static int nearest(const int *l, int n, int v)
{
	int best = 0;

	for (int i = 1; i < n; i++)
		if (abs(l[i] - v) < abs(l[best] - v))
			best = i;
	return best;
}

static void base_in_grid(const struct tuner *t, struct tuner_base *b)
{
	b->ti = nearest(t->thresholds, t->o.nthresholds, b->T);
	b->qi = nearest(t->queues, t->o.nqueues, b->Q);
}

/* The value of boot parameter @key= in @cmdline (1..@max), else 0. */
static int boot_param(const char *cmdline, const char *key, int max)
{
	size_t n = strlen(key);

	for (const char *p = cmdline; p && *p; p += strcspn(p, " ")) {
		p += strspn(p, " ");
		if (!strncmp(p, key, n) && p[n] == '=') {
			char *end;
			long v = strtol(p + n + 1, &end, 10);

			if ((*end == ' ' || !*end) && v >= 1 && v <= max)
				return (int)v;
		}
		if (!strncmp(p, "-- ", 3))
			break;		/* the rest is init's, not the kernel's */
	}
	return 0;
}

void tuner_cmdline_base(const char *cmdline, int base[2])
{
	base[0] = boot_param(cmdline, "lazytlb.max_loaded_mm", TUNER_MAX_T);
	base[1] = boot_param(cmdline, "lazytlb.flush_queue", TUNER_MAX_Q);
}

void tuner_find_base(const struct tuner *t, const struct tuner_lazy_kernel *k, bool lazy_kernel,
		     const int *user, const char *cmdline, struct tuner_base *b)
{
	memset(b, 0, sizeof(*b));
	b->T = user ? user[0] : LAZY_DEFAULT_T;
	b->Q = user ? user[1] : LAZY_DEFAULT_Q;
	b->T_how = b->Q_how = user ? "user" : "default";
	if (user || !lazy_kernel) {
		base_in_grid(t, b);
		return;
	}
	if (cmdline) {
		/* the kernel was told its setting at boot; without a parameter it runs its default */
		int set[2];

		tuner_cmdline_base(cmdline, set);
		b->T = set[0] ? set[0] : LAZY_DEFAULT_T;
		b->Q = set[1] ? set[1] : LAZY_DEFAULT_Q;
		b->T_how = set[0] ? "the kernel's command line" :
			   "the kernel's default (its command line sets none)";
		b->Q_how = set[1] ? "the kernel's command line" :
			   "the kernel's default (its command line sets none)";
		base_in_grid(t, b);
		return;
	}
	if (k->evictions) {
		/* evictions fall strictly with T while there are any: the T that matches */
		uint64_t best = UINT64_MAX;

		for (int T = 1; T <= TUNER_MAX_T; T++) {
			uint64_t e = tuner_evictions_at(t, T);
			uint64_t d = e > k->evictions ? e - k->evictions : k->evictions - e;

			if (d < best) {
				best = d;
				b->T = T;
			}
		}
		b->T_how = "trace";
	} else {
		/* no eviction: its T is only known from below, the least T that evicts none */
		int T = 1;

		while (T < TUNER_MAX_T && tuner_evictions_at(t, T))
			T++;
		b->T = b->T_min = T;
		b->T_how = "trace (at least)";
	}
	if (k->queue >= 0) {
		b->Q = (int)k->queue;
		b->Q_how = "trace";
	} else if (k->queue_min > (uint64_t)b->Q) {
		b->Q = b->Q_min = (int)(k->queue_min < INT_MAX ? k->queue_min : INT_MAX);
		b->Q_how = "trace";
	}
	base_in_grid(t, b);
}

void tuner_shown_point(const struct tuner_advice *a, const struct tuner_rec *rec, int *ti,
		       int *qi)
{
	*ti = a->ti >= 0 ? a->ti : rec->small_ti;
	*qi = a->ti >= 0 ? a->qi : rec->small_qi;
}
