// SPDX-License-Identifier: GPL-2.0-only
/*
 * Batch mode of `tlbscope top` (-b, like top -b): one plain-text snapshot per interval, for
 * logs and pipes.  Totals are printed next to the rates so that a snapshot can be checked
 * against `tlbscope report` for the same span.
 */
#include <stdlib.h>
#include <string.h>

#include "top-int.h"

static void print_header(FILE *out, const struct top_model *m, struct timeline *tl,
			 const struct top_status *st)
{
	char pos[64] = "";

	if (!st->live && st->percent >= 0)
		snprintf(pos, sizeof(pos), " at %.1f%%%s", st->percent, st->ended ? " (end)" : "");
	fprintf(out, "tlbscope top - %s%s\n", st->source, pos);
	fprintf(out, "elapsed %.1f s, trace time %.3f s, %llu events (%.0f/s), lost %llu",
		st->elapsed, m->first_ts ? (m->last_ts - m->first_ts) / 1e9 : 0.0,
		(unsigned long long)st->events, st->event_rate, (unsigned long long)st->lost);
	if (!st->live)
		fprintf(out, ", speed %s", st->speed > 0 ? "" : "max");
	if (!st->live && st->speed > 0)
		fprintf(out, "%gx", st->speed);
	fprintf(out, "\nlazy model T=%d Q=%d; flush IPIs from %s\n", m->T, m->Q,
		top_ipi_src(tl) >= 0 ? timeline_ipi_source_name(top_ipi_src(tl)) : "(none seen)");
}

void top_text_print(FILE *out, const struct top_model *m, struct timeline *tl,
		    const struct top_status *st)
{
	int src = top_ipi_src(tl), ncpu = timeline_cpus(tl);
	uint64_t sw = 0, tx = 0, rx = 0, local = 0;
	struct top_rec r;
	uint32_t *ids;
	size_t n;

	print_header(out, m, tl, st);
	fprintf(out, "\n%4s %-15s %7s %7s %-10s %9s %8s %7s %7s %7s %7s %8s %8s %6s %6s %7s  %s\n",
		"CPU", "TASK", "PID", "PROC", "MM", "SWITCHES", "SW/S", "IPI_TX", "TX/S",
		"IPI_RX", "RX/S", "LOCAL", "LOCAL/S", "LOADED", "QUEUED", "EVICT/S", "RX/S HISTORY");
	for (int i = 0; i < ncpu && i < m->ncpus; i++) {
		const struct tl_cpu *t = timeline_cpu(tl, i);
		const struct top_cpu *c = &m->cpu[i];
		const struct tl_mm *mm = c->mm ? timeline_mm(tl, c->mm) : NULL;
		double max = 0;
		uint64_t queued;
		int loaded = top_cpu_loaded(m, i, &queued);
		char spark[33], proc[16];

		for (int k = 0; k < c->nspark; k++)
			if (c->spark[k] > max)
				max = c->spark[k];
		top_spark_ascii(c, 32, max, spark);
		sw += t->switches;
		tx += top_cpu_tx(t, src);
		rx += top_cpu_rx(t, src);
		local += timeline_local_flushes(tl, i);
		if (mm && mm->pid >= 0)
			snprintf(proc, sizeof(proc), "%d", mm->pid);
		else
			snprintf(proc, sizeof(proc), "-");
		fprintf(out, "%4d %-15.15s %7d %7s %-10.10s %9llu %8.0f %7llu %7.0f %7llu %7.0f %8llu "
			"%8.0f %3d/%-2d %6llu %7.0f  |%s|\n", i, c->comm[0] ? c->comm : "-", c->pid,
			proc, top_mm_name(tl, c->mm), (unsigned long long)t->switches, c->r_sw,
			(unsigned long long)top_cpu_tx(t, src), c->r_tx,
			(unsigned long long)top_cpu_rx(t, src), c->r_rx,
			(unsigned long long)timeline_local_flushes(tl, i), c->r_local, loaded, m->T,
			(unsigned long long)queued, c->r_evict, spark);
	}

	n = top_mms_by_ipis(m, &ids);
	fprintf(out, "\nProcesses by flush IPIs (stock mask: CPUs that ever ran it; lazy: CPUs "
		"running it)\n");
	fprintf(out, "  %-10s %7s %-15s %9s %10s %9s %9s %9s\n", "MM", "PID", "COMMAND",
		"REQUESTS", "STOCK_IPIS", "LAZY_IPIS", "DEFERRED", "OBSERVED");
	for (size_t k = 0; k < n && k < 10; k++) {
		const struct top_mm *x = &m->mm[ids[k]];
		const struct tl_mm *t = timeline_mm(tl, ids[k]);

		fprintf(out, "  %-10.10s %7d %-15.15s %9llu %10llu %9llu %9llu %9llu\n",
			t ? t->name : "?", t ? t->pid : -1, t ? t->comm : "?",
			(unsigned long long)x->requests, (unsigned long long)x->stock_ipis,
			(unsigned long long)x->lazy_ipis, (unsigned long long)x->deferred,
			(unsigned long long)(t && src >= 0 ? t->ipis_caused[src] : 0));
	}
	if (n > 10)
		fprintf(out, "  ... %zu more\n", n - 10);
	free(ids);

	top_recommend(m, &r);
	fprintf(out, "\nTuner: stock_asid %llu flush IPIs, lazy %llu: lazy saved %llu so far",
		(unsigned long long)r.stock_ipis, (unsigned long long)r.lazy_ipis,
		(unsigned long long)r.saved);
	if (r.stock_ipis)
		fprintf(out, " (%.1f %%)", 100.0 * r.saved / r.stock_ipis);
	else
		fprintf(out, " (n/a)");
	fprintf(out, "\n  lazy(%d, %d) from the per-CPU tables: %llu evictions, %llu deferred, %llu "
		"overflows\n", m->T, m->Q, (unsigned long long)r.point.evictions,
		(unsigned long long)r.point.deferred, (unsigned long long)r.point.overflows);
	if (r.T && r.settable)
		fprintf(out, "  recommendation (%s): MAX_LOADED_MM %d, MAX_TLB_FLUSH_TASK %d "
			"(%.3f ms, %s)\n", m->pf.name, r.T, r.Q, r.cost_ms, r.verdict);
	else if (r.T)
		fprintf(out, "  recommendation (%s): %s (the cheapest lazy point T=%d Q=%d, "
			"%.3f ms)\n", m->pf.name, r.verdict, r.T, r.Q, r.cost_ms);
	else
		fprintf(out, "  recommendation: no events yet\n");
	fprintf(out, "totals: switches %llu, flush IPIs sent %llu, received %llu, local flushes "
		"%llu\n\n", (unsigned long long)sw, (unsigned long long)tx, (unsigned long long)rx,
		(unsigned long long)local);
}
