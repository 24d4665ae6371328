// SPDX-License-Identifier: GPL-2.0-only
/*
 * tune's text: the models against the kernel, the recommendation with its reasons, the
 * grid, stability and sensitivity, and the patch-ready #define hunk.  Reads a finished
 * struct tune_run; computes nothing the JSON does not have.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "tune.h"

static void say(int indent, const char *first, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Known reasons why the stock model and the kernel differ, in plain words. */
static void explain(const struct tune_run *r, int64_t observed, uint64_t predicted)
{
	uint64_t unattr;

	tuner_requests(r->tu, &unattr);
	if (!strcmp(r->arch, "x86_64"))
		say(6, "  - ", "this is an x86 kernel: it trims mm_cpumask and skips CPUs in lazy TLB "
			"mode, while the model is upstream RISC-V's mask that never shrinks, so the "
			"model predicts more than x86 sends");
	say(6, "  - ", "CPUs that ran a process before the trace began are in its real mask but "
		"not in the model's (the model under-predicts at the start of a trace)");
	if (unattr)
		say(6, "  - ", "%llu requests had no user mm to attribute (kernel threads flushing "
			"a user mm) and were not replayed", (unsigned long long)unattr);
	if (timeline_requests_mm_guessed(r->tl))
		say(6, "  - ", "requests are attributed to the requesting task's mm (the events "
			"name no mm): flushes of another process's mm are misattributed");
	if (timeline_lost(r->tl, NULL))
		say(6, "  - ", "events were lost: some requests and IPIs are missing on both sides");
	if (observed >= 0 && (uint64_t)observed > predicted && strcmp(r->arch, "x86_64"))
		say(6, "  - ", "flush_tlb_all and kernel-range flushes reach every online CPU");
}

const char *tune_percent(char *buf, size_t len, double part, double whole)
{
	double pct = whole ? 100.0 * part / whole : 0;

	if (whole == 0)
		snprintf(buf, len, "n/a");
	else if (part != 0 && fabs(pct) < 0.0001)
		snprintf(buf, len, "%s0.0001 %%", pct < 0 ? "> -" : "< +");	/* %g: 1e-05 */
	else if (part != 0 && fabs(pct) < 0.05)
		snprintf(buf, len, "%+.2g %%", pct);	/* not "-0.0 %": 1 IPI in 4336 is -0.023 % */
	else
		snprintf(buf, len, "%+.1f %%", pct);
	return buf;
}

/* Why lazy flush pays, and what T and Q trade at the point to set. */
static void reason_pays(char *buf, size_t len, const struct tune_run *r)
{
	const struct tuner_rec *rec = &r->rec;
	uint64_t cov = r->reach_cov, den = r->reach_den;
	const struct tuner_advice *a = &r->adv;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *lazy = tuner_model(r->tu, TUNER_LAZY);
	const struct tuner_counts c = tune_cell(r, a->ti, a->qi)->c, c1 = tune_cell(r, 0, a->qi)->c;
	int T = r->o->T[a->ti], Q = r->o->Q[a->qi], cT = r->o->T[rec->ti];
	char pct[32], bigger[256];
	double more;

	if (a->ti == r->o->nT - 1)
		snprintf(bigger, sizeof(bigger), "the grid ends at T=%d: try --threshold with "
			 "bigger values", T);
	else if (cT > T)
		snprintf(bigger, sizeof(bigger), "tables up to T=%d save less than %.0f %% more",
			 cT, 100 * TUNER_BAND);
	else if ((more = tune_cell(r, a->ti + 1, a->qi)->cost_ns - a->point_cost) >= 0)
		snprintf(bigger, sizeof(bigger), "the next size, T=%d, costs %.3f ms more",
			 r->o->T[a->ti + 1], more / 1e6);
	else if (r->o->T[a->ti + 1] > rec->reach)
		snprintf(bigger, sizeof(bigger), "the next size, T=%d, costs %.3f ms less in the "
			 "model but lies past the TLB's reach (%d mms fit), where a bigger table "
			 "keeps ASIDs whose entries the TLB no longer holds", r->o->T[a->ti + 1],
			 -more / 1e6, rec->reach);
	else
		snprintf(bigger, sizeof(bigger), "the next size, T=%d, costs %.3f ms less, within "
			 "%.0f %%: the smaller table is advised", r->o->T[a->ti + 1], -more / 1e6,
			 100 * TUNER_BAND);
	snprintf(buf, len,
		 "%s. Lazy flush interrupts only CPUs whose active mm it is, so it sends %llu "
		 "flush IPIs instead of the stock kernel's %llu (%s, %.3f ms of IPIs saved) "
		 "whatever T and Q are; with what it adds, T=%d Q=%d costs %.3f ms against "
		 "%.3f ms for stock (%.3f ms at the base T=%d Q=%d). "
		 "T trades evictions (a local ASID flush, and a TLB refill when the mm comes back "
		 "soon) against a longer table scan at every switch: %.1f %% of this trace's mm "
		 "switches return to one of the %d most recent mms, and at T=%d evictions fall to "
		 "%llu from %llu at T=%d; %s. Q=%d keeps queue overflows (whole-ASID flushes) at "
		 "%llu while bounding the per-CPU queue memory to %d x %d entries.",
		 a->verdict == TUNER_KEEP ? "Keep the kernel's setting, within the band of the "
		 "cheapest point" : "Lazy flush pays",
		 (unsigned long long)lazy->ipis, (unsigned long long)stock->ipis,
		 tune_percent(pct, sizeof(pct), -(double)a->ipis_saved, stock->ipis),
		 a->ipis_saved_ns / 1e6, T, Q, a->point_cost / 1e6, a->stock_cost / 1e6,
		 a->base_cost / 1e6, r->o->T[a->base_ti], r->o->Q[a->base_qi],
		 den ? 100.0 * cov / den : 0.0, T, T, (unsigned long long)c.evictions,
		 (unsigned long long)c1.evictions, r->o->T[0], bigger, Q,
		 (unsigned long long)c.overflows, T, Q);
}

/*
 * Append to @buf what weakens the point: quarters of the trace that chose otherwise, and
 * a grid flat within the band around it (a range, not a point).
 */

static void honesty(char *buf, size_t len, const struct tune_run *r)
{
	const struct tuner_rec *rec = &r->rec;
	size_t n = strlen(buf);
	int same = r->same_quarters;

	if (r->nwin && same < r->nwin && n < len)
		n += snprintf(buf + n, len - n, " The quarters of the trace disagree (the point is "
			      "within %.0f %% of the best in %d of %d; they chose T=%d..%d, "
			      "Q=%d..%d): read it as a range, not an exact value.", 100 * TUNER_BAND,
			      same, r->nwin, r->quarters_T[0], r->quarters_T[1], r->quarters_Q[0],
			      r->quarters_Q[1]);
	if (rec->nflat > 1 && n < len)
		snprintf(buf + n, len - n, " The grid is flat around it: %d points within %.0f %% "
			 "of the cheapest, T=%d..%d and Q=%d..%d, are as good.", rec->nflat,
			 100 * TUNER_BAND, r->o->T[rec->lo_ti], r->o->T[rec->hi_ti],
			 r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]);
}

/* kprobes defined on the flush path, and not one of their events recorded */
static bool kprobes_dropped(const struct tune_run *r)
{
	return r->src && r->tl && timeline_kprobes_silent(r->tl);
}

void tune_reason(char *buf, size_t len, const struct tune_run *r)
{
	const struct tuner_rec *rec = &r->rec;
	const struct tuner_advice *a = &r->adv;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);
	char warm[96] = "", pct[32];

	if (r->o->warmup_ns) {
		char ts[32];

		format_ns(ts, sizeof(ts), r->o->warmup_ns);
		snprintf(warm, sizeof(warm), " after the %s s warm-up%s", ts,
			 r->warm ? "" : " (which reaches past the trace's end)");
	}
	switch (a->why) {
	case TUNER_WHY_FEW_REQUESTS:
		if (kprobes_dropped(r)) {
			snprintf(buf, len, "Not enough to advise on: %llu flush requests with a user "
				 "mm were counted%s. The trace defines kprobes on the flush path but "
				 "holds none of their events: riscv 6.12 drops kprobe events written "
				 "in NMI context to the ftrace ring buffer (tlbscope-probes(7)). "
				 "Record with tlbscope record --kprobes-via perf (perf records the "
				 "kprobes beside the tracepoints) and tune the .perf.data it writes.",
				 (unsigned long long)(req - unattr), warm);
			return;
		}
		if (r->tl && !timeline_requests_observable(r->tl)) {
			snprintf(buf, len, "Not enough to advise on: no event of this input shows a "
				 "flush request (no kprobe on the flush path, no tlb_flush, no csd "
				 "flush IPI: the remote flushes of an SBI-fence machine leave no "
				 "event). Record with tlbscope record, which adds kprobes on the "
				 "flush path, and tune the trace.dat it writes.");
			return;
		}
		snprintf(buf, len, "Not enough to advise on: %llu flush requests with a user mm "
			 "were counted%s, and at least %d are needed, so there is no point to set "
			 "and no patch. Trace a longer run of the workload, with the flush events "
			 "(tlbscope record, or kprobes on __flush_tlb_range).",
			 (unsigned long long)(req - unattr), warm, TUNER_MIN_REQUESTS);
		return;
	case TUNER_WHY_FEW_SWITCHES:
		snprintf(buf, len, "Not enough to advise on: %llu mm switches were counted%s, "
			 "and at least %d are needed to see the loaded-mm tables fill and turn "
			 "over, so there is no point to set and no patch. Trace a longer run of "
			 "the workload, with sched_switch.",
			 (unsigned long long)tuner_mm_switches(r->tu), warm, TUNER_MIN_MM_SWITCHES);
		return;
	case TUNER_WHY_NO_REMOTE:
		snprintf(buf, len, "Lazy flush does not help: no flush request had a remote target "
			 "(stock sends no flush IPI), so there is nothing to defer; it would only "
			 "add its table (%.3f ms at T=%d Q=%d, stock %.3f ms).", a->point_cost / 1e6,
			 r->o->T[rec->small_ti], r->o->Q[rec->small_qi], a->stock_cost / 1e6);
		return;
	case TUNER_WHY_ALL_RUNNING: {
		const uint64_t *split = r->lazy_split;

		snprintf(buf, len, "Lazy flush does not help: every target of stock's %llu flush "
			 "IPIs had the mm active (%llu only lazily: the series still interrupts "
			 "those).",
			 (unsigned long long)stock->ipis,
			 (unsigned long long)(split[TUNER_TGT_IDLE] + split[TUNER_TGT_KTHREAD]));
		return;
	}
	case TUNER_WHY_COSTS_MORE:
		snprintf(buf, len, "Lazy flush does not pay for this workload: it would avoid "
			 "%llu of the stock kernel's %llu flush IPIs (%s), worth %.3f ms, but its "
			 "evictions, refills and table scans cost more: %.3f ms at its best point "
			 "T=%d Q=%d against %.3f ms for stock.", (unsigned long long)a->ipis_saved,
			 (unsigned long long)stock->ipis,
			 tune_percent(pct, sizeof(pct), -(double)a->ipis_saved, stock->ipis),
			 a->ipis_saved_ns / 1e6, a->point_cost / 1e6, r->o->T[rec->small_ti],
			 r->o->Q[rec->small_qi], a->stock_cost / 1e6);
		return;
	case TUNER_WHY_NOT_RISCV:
		snprintf(buf, len, "Not applicable: this is a%s %s kernel (%s), and the lazy TLB "
			 "flush series is RISC-V's. The models ran as what-ifs of the mechanism "
			 "(lazy sends %llu flush IPIs where RISC-V's stock mask would send %llu), "
			 "but there is no RISC-V setting or patch to give.",
			 !strcmp(r->arch, "x86_64") ? "n" : "", r->arch, r->arch_how,
			 (unsigned long long)tuner_model(r->tu, TUNER_LAZY)->ipis,
			 (unsigned long long)stock->ipis);
		return;
	case TUNER_WHY_PAYS:
		reason_pays(buf, len, r);
		honesty(buf, len, r);
		return;
	}
}

/*
 * The series' arch/riscv/include/asm/tlbflush.h (RFC v2): the two #defines at lines 77
 * and 78, under CONFIG_RISCV_LAZY_TLB_FLUSH, the values tab-aligned.  Context and line
 * numbers are the header's own, so git apply takes the hunk.
 */
#define HDR_LINE_T	77
static void header_line(FILE *out, char mark, int line, int T, int Q)
{
	switch (line) {
	case 74: case 76: case 80:
		fprintf(out, "%c\n", mark);
		break;
	case 75:
		fprintf(out, "%c#ifdef CONFIG_RISCV_LAZY_TLB_FLUSH\n", mark);
		break;
	case 77:
		fprintf(out, "%c#define MAX_LOADED_MM\t\t\t\t\t%d\n", mark, T);
		break;
	case 78:
		fprintf(out, "%c#define MAX_TLB_FLUSH_TASK\t\t\t\t%d\n", mark, Q);
		break;
	case 79:
		fprintf(out, "%c#define FLUSH_TLB_ALL_ASID\t\t\t\t0x1\n", mark);
		break;
	case 81:
		fprintf(out, "%cstruct tlb_context {\n", mark);
		break;
	}
}

/* Does the traced kernel take the lazy flush's settings as boot parameters? */
static bool boot_params(const struct tune_run *r)
{
	const struct ts_source_info *info = r->src ? ts_source_info(r->src) : NULL;

	/* lazy_tlb_defer is this project's lazy kernel's (tlbscope-probes(7)) */
	for (size_t i = 0; info && i < info->nkprobes_defined; i++)
		if (!strcmp(info->kprobes_defined[i], "lazy_tlb_defer"))
			return true;
	return false;
}

bool tune_write_patch(FILE *out, const struct tune_run *r)
{
	const struct tuner_advice *a = &r->adv;
	int bT, bQ, T, Q, first, last;

	if ((a->verdict != TUNER_ENABLE && a->verdict != TUNER_RETUNE) || a->ti < 0 ||
	    boot_params(r))
		return false;
	bT = r->o->T[a->base_ti];
	bQ = r->o->Q[a->base_qi];
	T = r->o->T[a->ti];
	Q = r->o->Q[a->qi];
	if (T == bT && Q == bQ)
		return false;
	if (!out)
		return true;
	/* three lines of context around the changed ones */
	first = (T != bT ? HDR_LINE_T : HDR_LINE_T + 1) - 3;
	last = (Q != bQ ? HDR_LINE_T + 1 : HDR_LINE_T) + 3;
	fprintf(out, "--- a/arch/riscv/include/asm/tlbflush.h\n"
		"+++ b/arch/riscv/include/asm/tlbflush.h\n"
		"@@ -%d,%d +%d,%d @@ extern unsigned long tlb_flush_all_threshold;\n",
		first, last - first + 1, first, last - first + 1);
	/* as diff writes it: the old lines of the changed block, then the new ones */
	for (int l = first; l <= last; l++) {
		bool changed_t = l == HDR_LINE_T && T != bT, changed_q = l == HDR_LINE_T + 1 && Q != bQ;

		if (!changed_t && !changed_q) {
			header_line(out, ' ', l, bT, bQ);
			continue;
		}
		header_line(out, '-', l, bT, bQ);
		if (changed_t && Q != bQ) {
			header_line(out, '-', l + 1, bT, bQ);
			header_line(out, '+', l, T, Q);
			header_line(out, '+', ++l, T, Q);
		} else {
			header_line(out, '+', l, T, Q);
		}
	}
	/* upstream's threshold (r->flush_all) is not the series': said beside the patch */
	return true;
}

int tune_save_patch(const struct tune_run *r, const char *path)
{
	FILE *f = fopen(path, "w");
	bool failed;

	if (!f)
		return error("tune: %s: %s", path, strerror(errno));
	errno = 0;
	tune_write_patch(f, r);
	failed = ferror(f);
	if (fclose(f) || failed)
		return error("tune: cannot write the patch to %s: %s", path,
			     strerror(errno ? errno : EIO));
	return 0;
}

/*
 * Print @fmt as a paragraph wrapped before column 80, the first line after @first, the
 * rest indented by @indent spaces: no line of the text output passes 100 columns.
 */
static void say(int indent, const char *first, const char *fmt, ...)
{
	char buf[4096];
	const char *p = buf;
	int col, width = 80;
	bool fresh = true;	/* nothing printed after the prefix or the indent yet */
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	col = printf("%s", first);
	while (*p) {
		int n;

		while (*p == ' ')
			p++;
		n = (int)strcspn(p, " ");
		if (!n)
			break;
		if (!fresh && col + 1 + n > width) {
			printf("\n%*s", indent, "");
			col = indent;
			fresh = true;
		}
		if (!fresh) {
			putchar(' ');
			col++;
		}
		col += printf("%.*s", n, p);
		fresh = false;
		p += n;
	}
	putchar('\n');
}

/* "T=6 Q=32" of grid indices */
static const char *point_name(char *buf, size_t len, const struct tune_run *r, int ti, int qi)
{
	snprintf(buf, len, "T=%d Q=%d", r->o->T[ti], r->o->Q[qi]);
	return buf;
}

/* per second of the counted trace and per mm switch, "n/a" where the span is not known */
static const char *rates(char *buf, size_t len, const struct tune_run *r, uint64_t n)
{
	uint64_t sw = tuner_mm_switches(r->tu);
	double secs = r->span_ns / 1e9;

	if (secs > 0 && sw)
		snprintf(buf, len, "%.1f/s, %.3f/mm switch", n / secs, (double)n / sw);
	else if (sw)
		snprintf(buf, len, "%.3f/mm switch", (double)n / sw);
	else
		snprintf(buf, len, "n/a/mm switch");
	return buf;
}

static void print_summary(const struct tune_run *r)
{
	const struct tuner_rec *rec = &r->rec;
	const struct tuner_advice *a = &r->adv;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_counts *lazy = tuner_model(r->tu, TUNER_LAZY);
	const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_IDEAL);
	int pti = r->pti, pqi = r->pqi, T, Q, reach = rec->reach, ncpus = r->ncpus;
	const struct tuner_counts c = r->shown;
	const uint64_t *split = r->lazy_split;
	char b1[64], b2[64], pct[32], pt[32], drain[192];
	bool point = a->ti >= 0;

	T = r->o->T[pti];
	Q = r->o->Q[pqi];
	if (r->host.vm)
		say(10, "machine   ", "%s%s in a virtual machine (%s): its timings unused, costs "
		    "from '%s'", r->arch, strcmp(r->arch, "unknown") ? " kernel" :
		    " architecture", r->host.how, r->pf.name);
	else
		say(10, "machine   ", "%s%s; %s; costs: the '%s' profile%s", r->arch,
		    strcmp(r->arch, "unknown") ? " kernel" : " architecture", r->host.how,
		    r->pf.name, r->pf.nseen ? " and the trace's own timings (-v)" : "");
	if (r->base_T_min)
		snprintf(pt, sizeof(pt), "T>=%d", r->base_T_min);
	else
		snprintf(pt, sizeof(pt), "T=%d", r->o->T[a->base_ti]);
	if (point && !strcmp(r->base_T_how, "default") && !strcmp(r->base_Q_how, "default"))
		say(10, "verdict   ", "%s: MAX_LOADED_MM=%d MAX_TLB_FLUSH_TASK=%d (base %s Q=%d: "
		    "the series' defaults)", tuner_verdict_name(a->verdict), T, Q, pt,
		    r->o->Q[a->base_qi]);
	else if (point && a->verdict == TUNER_KEEP && r->base_T_min && T == r->base_T_min)
		/* the kernel's own T, which the trace bounds from below only */
		say(10, "verdict   ", "%s: MAX_LOADED_MM>=%d (the kernel's, unread) "
		    "MAX_TLB_FLUSH_TASK=%d (base %s from the trace, Q=%d from %s)",
		    tuner_verdict_name(a->verdict), T, Q, pt, r->o->Q[a->base_qi],
		    r->base_Q_how);
	else if (point)
		say(10, "verdict   ", "%s: MAX_LOADED_MM=%d MAX_TLB_FLUSH_TASK=%d (base %s from %s, "
		    "Q=%d from %s)", tuner_verdict_name(a->verdict), T, Q, pt,
		    r->base_T_min ? "the trace" : r->base_T_how, r->o->Q[a->base_qi],
		    r->base_Q_how);
	else
		say(10, "verdict   ", "%s", tuner_verdict_name(a->verdict));
	if (a->verdict == TUNER_INSUFFICIENT)
		return;
	say(14, "  IPIs        ", "stock %llu, lazy %llu (%s; %s), floor %llu",
	    (unsigned long long)stock->ipis, (unsigned long long)lazy->ipis,
	    tune_percent(pct, sizeof(pct), (double)lazy->ipis - stock->ipis, stock->ipis),
	    rates(b1, sizeof(b1), r, lazy->ipis), (unsigned long long)ideal->ipis);
	{
		const struct tuner_counts *cf = tuner_model(r->tu, TUNER_CLEAR_AT_FULL);
		const struct tuner_counts w = r->whatif;
		uint64_t lazily = split[TUNER_TGT_IDLE] + split[TUNER_TGT_KTHREAD];

		if (stock->ipis && !lazily)
			say(14, "  what if     ", "no lazy IPI reaches a CPU holding the mm lazily; "
			    "clearing the mask at a full ASID flush alone (patches 8-9) sends %llu "
			    "(%.3f ms)", (unsigned long long)cf->ipis,
			    r->model_cost[TUNER_CLEAR_AT_FULL] / 1e6);
		else if (stock->ipis && r->whatif_ok)
			say(14, "  what if     ", "%llu of lazy's go to CPUs holding the mm lazily (%llu "
			    "idle, %llu kthread): deferring those (x86's is_lazy) sends %llu (%.3f ms); "
			    "clearing the mask at a full ASID flush alone (patches 8-9) sends %llu "
			    "(%.3f ms)", (unsigned long long)lazily,
			    (unsigned long long)split[TUNER_TGT_IDLE],
			    (unsigned long long)split[TUNER_TGT_KTHREAD], (unsigned long long)w.ipis,
			    r->whatif_cost_ns / 1e6, (unsigned long long)cf->ipis,
			    r->model_cost[TUNER_CLEAR_AT_FULL] / 1e6);
	}
	snprintf(b2, sizeof(b2), "  %-12s", point_name(pt, sizeof(pt), r, pti, pqi));
	if (c.replayed)
		snprintf(drain, sizeof(drain), "%llu queued range%s (%llu page%s) flushed at "
			 "switch_mm, the worst single drain %llu range%s, %llu page%s, with IRQs off",
			 (unsigned long long)c.replayed, c.replayed == 1 ? "" : "s",
			 (unsigned long long)c.replayed_pages, c.replayed_pages == 1 ? "" : "s",
			 (unsigned long long)c.drain_max, c.drain_max == 1 ? "" : "s",
			 (unsigned long long)c.drain_max_pages, c.drain_max_pages == 1 ? "" : "s");
	else
		snprintf(drain, sizeof(drain), "no queued range flushed at switch_mm");
	say(14, b2, "%llu evictions (%s), %llu refills within the TLB's reach; %s; %llu "
	    "overflows; %llu table resets; %d mm_structs pinned (%d x %d CPUs)",
	    (unsigned long long)c.evictions, rates(b1, sizeof(b1), r, c.evictions),
	    (unsigned long long)c.refills, drain, (unsigned long long)c.overflows,
	    (unsigned long long)c.table_resets, T * ncpus, T, ncpus);
	say(14, "  cost ms     ", "stock %.3f, base %.3f%s, %s %.3f, floor %.3f",
	    a->stock_cost / 1e6, a->base_cost / 1e6,
	    a->base_above_stock ? " (the kernel's own: above stock)" : "",
	    point ? "advised" : "cheapest", a->point_cost / 1e6, a->ideal_cost / 1e6);
	if (!point && (rec->edge_T || rec->edge_Q))
		say(14, "  grid edge   ", "the cheapest point is on the grid's last %s, where it "
		    "still %s: the cost may fall further out (a larger %s), so this verdict "
		    "holds for the grid given only", rec->edge_T ? "T" : "Q",
		    rec->edge_T ? "evicts" : "overflows", rec->edge_T ? "--threshold" : "--queue");
	if (!point)
		return;	/* which lazy point is cheapest is beside the verdict */
	if (r->nwin)
		say(14, "  confidence  ", "within %.0f %% of the best in %d of %d quarters%s; %d "
		    "point%s within %.0f %%: T=%d..%d, Q=%d..%d", 100 * TUNER_BAND,
		    r->same_quarters, r->nwin,
		    r->same_quarters < r->nwin ? " (read it as a range)" : "", rec->nflat,
		    rec->nflat == 1 ? "" : "s", 100 * TUNER_BAND, r->o->T[rec->lo_ti],
		    r->o->T[rec->hi_ti], r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]);
	else
		say(14, "  confidence  ", "too short a trace for quarters; %d point%s within %.0f %%",
		    rec->nflat, rec->nflat == 1 ? "" : "s", 100 * TUNER_BAND);
	say(14, "  assumed     ", "TLB %.0f entries, %.0f-page working sets (%s): %d mms fit, T "
	    "stops there%s%s", r->pf.v[PF_TLB_ENTRIES], r->pf.v[PF_WORKING_SET],
	    platform_origin_name(r->pf.origin[PF_TLB_ENTRIES]), reach,
	    rec->free_ti >= 0 && rec->free_ti != rec->ti && r->o->T[rec->free_ti] > reach ?
	    "; the grid's cheapest point lies past it" : "",
	    rec->edge_T || rec->edge_Q ? "; the point is on the grid's edge: the cost may fall "
	    "further out (--threshold, --queue)" : "");
}

void tune_print_text(const struct tune_run *r, const char *why, bool verbose, bool quiet)
{
	const struct tuner_rec *rec = &r->rec;
	int64_t observed = r->observed;
	const char *obs_how = r->obs_how;
	uint64_t fat = r->flush_all;
	const struct tuner_counts *stock = tuner_model(r->tu, TUNER_STOCK_ASID);
	const struct tuner_advice *a = &r->adv;
	/* the point to set, or where there is none the cheapest, for the counts shown */
	int pti = r->pti, pqi = r->pqi, T = r->o->T[pti], Q = r->o->Q[pqi];
	uint64_t unattr, req = tuner_requests(r->tu, &unattr);

	if (r->aggregate) {
		printf("tlbscope tune: %d input%s, their counters summed (up to %d CPUs):",
		       r->o->ninputs, r->o->ninputs == 1 ? "" : "s", r->ncpus);
		for (int i = 0; i < r->o->ninputs; i++)
			printf(" %s", r->o->inputs[i]);
		printf("\n");
		for (int i = 0; i < r->o->ninputs; i++)
			if (r->o->weight[i] > 1)
				printf("  %s counted %llu times (--weight)\n", r->o->inputs[i],
				       (unsigned long long)r->o->weight[i]);
	} else {
		say(4, "tlbscope tune: ", "%s (%s), %d CPUs", r->o->inputs[0],
		    ts_source_info(r->src)->format, r->ncpus);
	}
	if (verbose)
		say(2, "platform: ", "%s - %s", r->pf.name, r->pf.description);
	if (verbose)
		printf("replayed: %llu flush requests (%llu without an mm, not replayed), %llu switches, "
	       "%llu mm switches\n", (unsigned long long)req, (unsigned long long)unattr,
	       (unsigned long long)tuner_switches(r->tu),
	       (unsigned long long)tuner_mm_switches(r->tu));
	if (r->aggregate && (r->lost || r->skipped))
		printf("lost events: %llu, malformed records skipped: %llu, in the inputs: every "
		       "count below misses what they were\n", (unsigned long long)r->lost,
		       (unsigned long long)r->skipped);
	if (!r->aggregate) {
		uint64_t marks, lost = timeline_lost(r->tl, &marks);
		const char *where;
		int cpu;

		if (lost || marks)
			printf("lost events: %llu%s: every count below misses what they were "
			       "(switches, requests, IPIs)\n", (unsigned long long)lost,
			       marks ? " (and sub-buffers with an unknown number lost)" : "");
		if (ts_source_skipped(r->src, &where))
			printf("malformed records skipped: %llu (first: %s)\n",
			       (unsigned long long)ts_source_skipped(r->src, NULL), where);
		source_checks_line(r->src, "");
		if (tuner_unmodelled(r->tu, &cpu))
			printf("events not modelled: %llu on CPUs past the %d the input declares "
			       "(the first on CPU %d): every model count below misses them\n",
			       (unsigned long long)tuner_unmodelled(r->tu, NULL), r->ncpus, cpu);
	}

	print_summary(r);
	if (quiet) {
		if (a->verdict != TUNER_ENABLE && a->verdict != TUNER_KEEP &&
		    a->verdict != TUNER_RETUNE)
			say(2, "  ", "%s", why);
		return;
	}
	if (observed >= 0 && r->lazy_kernel) {
		/* lazy(T, Q) interrupts the CPUs whose active mm it is, the same at any T, Q */
		const struct tuner_counts *ideal = tuner_model(r->tu, TUNER_LAZY);
		char pct[32];

		say(4, "\n", "Check against the kernel: observed %lld flush IPIs (%s), predicted %llu "
		    "by lazy (the same at every T and Q) (%s)", (long long)observed, obs_how,
		    (unsigned long long)ideal->ipis,
		    tune_percent(pct, sizeof(pct), (double)ideal->ipis - observed, observed));
		if (verbose)
			say(4, "  - ", "a lazy-flush kernel (its local_load_tlb_mm events): it interrupts only "
		    "CPUs whose active mm is the flushed one, whatever T and Q; stock_asid's %llu "
		    "is what a stock kernel would have sent", (unsigned long long)stock->ipis);
	} else if (observed >= 0) {
		uint64_t widened, seeded = tuner_stock_seeded(r->tu, &widened);
		char pct[32], pct2[32], more[96] = "";

		if (!verbose && widened && seeded != stock->ipis)
			/* a recording begun on a running system: the masks' history before it */
			snprintf(more, sizeof(more), ", %llu with masks from before the trace (%s)",
				 (unsigned long long)seeded,
				 tune_percent(pct2, sizeof(pct2), (double)seeded - observed, observed));
		say(4, "\n", "Check against the kernel: observed %lld flush IPIs (%s%s), predicted %llu "
		    "by stock_asid (%s)%s", (long long)observed, obs_how,
		    r->aggregate ? ", summed over the inputs" : "",
		    (unsigned long long)stock->ipis,
		    tune_percent(pct, sizeof(pct), (double)stock->ipis - observed, observed), more);
		if (verbose) {
			uint64_t initial = r->tl ? timeline_ptr_stats(r->tl)->initial_known : 0;
			double sd = observed ? 100.0 * ((double)seeded - observed) / observed : 0.0;
			double diff = observed ? 100.0 * ((double)stock->ipis - observed) / observed : 0;

			if (widened)
				say(4, "  ", "with the kernel's masks at each mm's first request (the CPUs "
				    "that ran %llu mm%s before the trace): predicted %llu (%s)",
				       (unsigned long long)widened, widened == 1 ? "" : "s",
				       (unsigned long long)seeded,
				       tune_percent(pct, sizeof(pct), (double)seeded - observed,
						    observed));
			if (widened && observed && fabs(sd) <= 0.5)
				say(4, "  - ", "so the difference is the history before the trace began: "
				    "the model's per-request masks match the kernel's");
			else if (!widened && observed && fabs(diff) <= 0.5 && !r->kernel_masks)
				say(4, "  - ", "the model predicts the kernel's flush IPIs (the trace has no "
				    "kernel cpumask to compare request by request: n/a)");
			else if (!widened && observed && fabs(diff) <= 0.5)
				say(4, "  - ", "the model's per-request masks match the kernel's%s",
				    initial ? " (each model starts from the mm every CPU had loaded "
				    "when the trace began: the prev of its first switch_mm)" : "");
			else if ((observed || stock->ipis) && !r->aggregate)
				explain(r, observed, stock->ipis);
		}
	} else {
		say(4, "\n", "Check against the kernel: the trace shows no flush IPIs of its own "
		    "(no csd, ipi or tlb_flush event names a flush function)");
	}

	if (!verbose) {
		if (a->verdict != TUNER_ENABLE && a->verdict != TUNER_KEEP &&
		    a->verdict != TUNER_RETUNE)
			say(2, "  ", "%s", why);
		printf("Details (%sgrid, quarters, sensitivity, costs): -v%s\n",
		       tune_write_patch(NULL, r) ? "the patch, " : "",
		       tune_write_patch(NULL, r) ? "; --patch FILE" : "");
		return;
	}
	say(2, "\n", "Unit costs (ns; source: trace = measured in the input, median [quartiles], "
	    "platform = the profile, user = your --platform file)");
	for (int f = 0; f < PF__COSTS; f++) {
		char head[64];

		snprintf(head, sizeof(head), "  %-20s %7.0f %-8s ", platform_fig_name(f),
			 r->pf.v[f], platform_origin_name(r->pf.origin[f]));
		if (r->pf.origin[f] == PF_FROM_TRACE)
			say(6, head, "%llu samples [%.0f..%.0f]: %s",
			    (unsigned long long)r->pf.samples[f], r->pf.p25[f], r->pf.p75[f],
			    r->pf.source[f]);
		else
			say(6, head, "%s", r->pf.source[f]);
	}
	if (r->pf.nseen)
		printf("\nMeasured in the trace (ns, median [quartiles])%s\n", r->host.vm ?
		       ": a virtual machine's, shown and not used" : "");
	for (int k = 0; k < r->pf.nseen; k++) {
		const struct pf_seen *m = &r->pf.seen[k];

		say(6, "  ", "%-26s %9.0f [%.0f..%.0f] %llu samples, %s: %s", m->name, m->median,
		    m->p25, m->p75, (unsigned long long)m->samples, m->how,
		    m->used ? "prices it" : m->unpriced ? m->unpriced : r->host.vm ?
		    "a VM's, not used" : "your --platform file's wins");
	}

	printf("\nModels\n");
	{
		static const char *const hdr[] = { "MODEL", "FLUSH_IPIS", "LOCAL_FLUSHES", "COST_MS" };
		struct table *t = table_new(4, hdr, "<>>>");

		for (int m = 0; m < TUNER__MODELS; m++) {
			const struct tuner_counts *c = tuner_model(r->tu, m);
			char n[32], b[32], d[32];
			const char *row[4] = { tuner_model_name(m), n, b, d };

			snprintf(n, 32, "%llu", (unsigned long long)c->ipis);
			snprintf(b, 32, "%llu", (unsigned long long)c->local_flushes);
			snprintf(d, 32, "%.3f", r->model_cost[m] / 1e6);
			table_add(t, row);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	if (a->verdict == TUNER_INSUFFICIENT) {
		printf("\nRecommendation\n  verdict                  %s\n\n  %s\n",
		       tuner_verdict_name(a->verdict), why);
		return;
	}

	say(2, "\n", "Lazy grid: cost in ms (rows T = MAX_LOADED_MM, columns Q = "
	    "MAX_TLB_FLUSH_TASK; * cheapest, + recommended, = base)");
	printf("  %5s", "T\\Q");
	for (int qi = 0; qi < r->o->nQ; qi++)
		printf(" %9d", r->o->Q[qi]);
	printf("\n");
	for (int ti = 0; ti < r->o->nT; ti++) {
		printf("  %5d", r->o->T[ti]);
		for (int qi = 0; qi < r->o->nQ; qi++) {
			/* '+' only where there is a point to set (enable, keep) */
			bool point = a->ti >= 0;
			char mark = point && ti == a->ti && qi == a->qi ? '+' :
				    ti == rec->ti && qi == rec->qi ? '*' :
				    ti == a->base_ti && qi == a->base_qi ? '=' : ' ';

			printf(" %8.3f%c", tune_cell(r, ti, qi)->cost_ns / 1e6, mark);
		}
		printf("\n");
	}
	{
		const struct tuner_counts c = tune_cell(r, pti, pqi)->c;

		say(4, "\n", "At T=%d, Q=%d: %llu IPIs, %llu deferred, %llu deferred flushes, %llu "
		    "overflows, %llu evictions (%llu refills), %llu table resets; %llu mm exits, "
		    "each looked up in %d tables of %d slots", T, Q,
		       (unsigned long long)c.ipis, (unsigned long long)c.deferred,
		       (unsigned long long)c.deferred_flushes, (unsigned long long)c.overflows,
		       (unsigned long long)c.evictions, (unsigned long long)c.refills,
		       (unsigned long long)c.table_resets, (unsigned long long)tuner_exits(r->tu),
		       r->ncpus, T);
	}
	{
		uint64_t h[TUNER_MAX_T + 1], all = 0, cum = 0;

		tuner_reuse_hist(r->tu, -1, h);
		for (int d = 0; d <= TUNER_MAX_T; d++)
			all += h[d];
		say(2, "\n", "Reuse distance of mm switches (depth in each CPU's recency stack: a "
		    "table of T slots hits when depth <= T)");
		printf("  ");
		for (int d = 1; d <= 16 && all; d++) {
			cum += h[d];
			printf("%s<=%d %.1f%%", d == 1 || d == 9 ? "" : "  ", d, 100.0 * cum / all);
			if (d == 8)
				printf("\n  ");
		}
		if (all)
			printf("\n  first loads or deeper than %d: %.1f%%\n", TUNER_MAX_T,
			       100.0 * h[0] / all);
	}
	if (r->o->has_direct) {
		const struct tuner_counts *d = tuner_replayed(r->tu, r->nreplay - 1);

		say(4, "", "Direct replay of T=%d, Q=%d: %llu IPIs, %llu deferred, %llu deferred "
		    "flushes, %llu overflows, %llu evictions, %llu table resets, %llu local flushes",
		       r->o->direct[0], r->o->direct[1], (unsigned long long)d->ipis,
		       (unsigned long long)d->deferred, (unsigned long long)d->deferred_flushes,
		       (unsigned long long)d->overflows, (unsigned long long)d->evictions,
		       (unsigned long long)d->table_resets, (unsigned long long)d->local_flushes);
	}
	if (r->o->verify)
		printf("Verify: %d grid points replayed directly, %s\n", r->nreplay,
		       r->verify_bad ? "DIFFERENCES (see stderr)" : "every counter equal to the sweep");

	printf("\nRecommendation\n");
	printf("  verdict                  %s\n", tuner_verdict_name(a->verdict));
	{
		char b[1024];
		size_t n = 0;

		n += snprintf(b + n, sizeof(b) - n, "T=%d (%s) Q=%d (%s)", r->o->T[a->base_ti],
			      r->base_T_how, r->o->Q[a->base_qi], r->base_Q_how);
		if (r->base_T_min && n < sizeof(b))
			n += snprintf(b + n, sizeof(b) - n, "; the kernel evicted nothing: its T "
				      "is at least %d", r->base_T_min);
		if (r->base_T_seen != r->o->T[a->base_ti] && n < sizeof(b))
			n += snprintf(b + n, sizeof(b) - n, "; T=%d priced at the nearest grid "
				      "value (add it with --threshold)", r->base_T_seen);
		if (r->base_Q_min && n < sizeof(b))
			n += snprintf(b + n, sizeof(b) - n, "; no queue overflowed after an "
				      "emptying load, but one held %d entries: its Q is at least %d",
				      r->base_Q_min, r->base_Q_min);
		else if (r->lazy_kernel && !r->o->has_base && strcmp(r->base_Q_how, "trace") &&
			 n < sizeof(b))
			n += snprintf(b + n, sizeof(b) - n, "; its Q is not in the trace (no queue "
				      "overflowed after an emptying load; the longest held %llu)",
				      (unsigned long long)r->lk.queue_min);
		if (r->base_Q_seen != r->o->Q[a->base_qi] && n < sizeof(b))
			snprintf(b + n, sizeof(b) - n, "; Q=%d priced at the nearest grid value "
				 "(add it with --queue)", r->base_Q_seen);
		say(27, "  base                     ", "%s", b);
	}
	if (a->ti >= 0) {
		printf("  MAX_LOADED_MM            %d\n", T);
		printf("  MAX_TLB_FLUSH_TASK       %d\n", Q);
		if (fat)
			say(27, "  tlb_flush_all_threshold  ", "%llu%s", (unsigned long long)fat,
			    fat == FLUSH_ALL_DEFAULT ? " (upstream's)" : " (upstream's is 64, in "
			    "arch/riscv/mm/tlbflush.c; not in the patch, which changes the series' "
			    "header only)");
		else
			say(27, "  tlb_flush_all_threshold  ", "64 (kept: no flush request in this "
			    "trace has a size; kprobes on __flush_tlb_range give them)");
	}
	say(27, "  costs (ms, one basis)    ", "stock %.3f, floor %.3f, base %.3f, cheapest T=%d "
	    "Q=%d %.3f", a->stock_cost / 1e6, a->ideal_cost / 1e6, a->base_cost / 1e6,
	       r->o->T[rec->ti], r->o->Q[rec->qi], rec->cost / 1e6);
	say(27, "  IPIs saved               ", "%llu (%.3f ms), the same at every lazy point: the "
	    "choice among them is made on the rest of the cost",
	       (unsigned long long)a->ipis_saved, a->ipis_saved_ns / 1e6);
	if (rec->nflat > 1)
		say(27, "  equally good             ", "%d points within %.0f %% of the cheapest: "
		    "T=%d..%d, Q=%d..%d (the grid is flat there)", rec->nflat,
		       100 * TUNER_BAND, r->o->T[rec->lo_ti], r->o->T[rec->hi_ti],
		       r->o->Q[rec->lo_qi], r->o->Q[rec->hi_qi]);
	say(2, "\n  ", "%s", why);

	if (a->verdict == TUNER_NO_BENEFIT)
		return;	/* no point to set: which lazy point is cheapest is beside it */
	if (r->nwin) {
		int lo = INT_MAX, hi = 0, qlo = INT_MAX, qhi = 0;

		printf("\nStability (the recommendation in each quarter of the trace)\n");
		for (int k = 0; k < r->nwin; k++) {
			const struct tuner_rec *w = &r->win[k];
			char ts[32];
			int wT = r->o->T[w->small_ti];

			format_ns(ts, sizeof(ts), r->until[k]);
			lo = wT < lo ? wT : lo;
			hi = wT > hi ? wT : hi;
			qlo = r->o->Q[w->small_qi] < qlo ? r->o->Q[w->small_qi] : qlo;
			qhi = r->o->Q[w->small_qi] > qhi ? r->o->Q[w->small_qi] : qhi;
			printf("  until %s s: T=%d Q=%d\n", ts, wT, r->o->Q[w->small_qi]);
		}
		if (r->same_quarters < r->nwin)
			say(4, "  ", "the point given is within %.0f %% of the best in %d of %d "
			    "quarters: the quarters disagree (they chose T=%d..%d, Q=%d..%d), so read "
			    "it as a range, not an exact value", 100 * TUNER_BAND, r->same_quarters,
			    r->nwin, lo, hi, qlo, qhi);
		else
			say(4, "  ", "the point given is within %.0f %% of the best in every quarter",
			    100 * TUNER_BAND);
	} else {
		printf("\nStability: the trace is too short to split into quarters\n");
	}

	printf("\nSensitivity (each figure x0.5 and x2: the point advised then, and the "
	       "verdict when it changes)\n");
	{
		char still[512] = "";
		size_t n = 0;

		for (int f = 0; f < PF__COUNT; f++) {
			bool moved = false;

			for (int k = 0; k < 2; k++)
				moved |= r->sens_ti[f][k] != pti || r->sens_qi[f][k] != pqi ||
					 r->sens_verdict[f][k] != a->verdict;
			if (!moved) {
				if (n < sizeof(still))
					n += snprintf(still + n, sizeof(still) - n, "%s%s",
						      n ? ", " : "", platform_fig_name(f));
				continue;
			}
			printf("  %-22s", platform_fig_name(f));
			for (int k = 0; k < 2; k++) {
				int sti = r->sens_ti[f][k], sqi = r->sens_qi[f][k];

				if (sti == pti && sqi == pqi)
					printf("  x%-3s same", k ? "2" : "0.5");
				else
					printf("  x%-3s T=%d Q=%d", k ? "2" : "0.5", r->o->T[sti],
					       r->o->Q[sqi]);
				if (r->sens_verdict[f][k] != a->verdict)
					printf(" (%s)", tuner_verdict_name(r->sens_verdict[f][k]));
			}
			printf("\n");
		}
		if (n)
			say(4, "  ", "the same point at x0.5 and x2: %s (the IPIs every lazy point "
			    "shares cannot move the choice; the rest are too small here)", still);
	}

	if (a->verdict == TUNER_KEEP) {
		printf("\nPatch: none, the kernel's setting is the advice\n");
		return;
	}
	if (a->verdict != TUNER_ENABLE && a->verdict != TUNER_RETUNE)
		return;
	if (!r->lazy_kernel)
		printf("\nEnable: CONFIG_RISCV_LAZY_TLB_FLUSH=y (the lazy TLB flush series)\n");
	if (boot_params(r)) {
		say(4, "\n", "Boot parameters of the traced kernel (it takes lazytlb.*): "
		    "lazytlb.max_loaded_mm=%d lazytlb.flush_queue=%d", T, Q);
		return;
	}
	if (!tune_write_patch(NULL, r)) {
		printf("\nPatch: none, T=%d Q=%d is the base\n", T, Q);
		return;
	}
	printf("\nPatch (against the series' arch/riscv/include/asm/tlbflush.h, RFC v2, at "
	       "T=%d Q=%d; git apply)\n", r->o->T[a->base_ti], r->o->Q[a->base_qi]);
	tune_write_patch(stdout, r);
}
