// SPDX-License-Identifier: GPL-2.0-only
/*
 * Batch mode of `tlbscope top` (-b, like top -b): one plain-text snapshot per interval, for
 * logs and pipes, no line wider than 100 columns.  Totals are printed next to the rates so
 * that a snapshot can be checked against `tlbscope report` for the same span.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "top-int.h"

int top_text_width(int cols_env)
{
	if (cols_env <= 0 || cols_env > TOP_TEXT_MAX_WIDTH)
		return TOP_TEXT_MAX_WIDTH;
	return cols_env < 40 ? 40 : cols_env;
}

/*
 * A line of at most @width characters: a sentence that would be wider goes on over the
 * next lines at a space, indented by 4 (a word wider than that is cut: none is).
 */
__attribute__((format(printf, 3, 4)))
static void put(FILE *out, int width, const char *fmt, ...)
{
	char line[1024];
	const char *s = line;
	int indent = 0;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	while ((int)strlen(s) + indent > width) {
		int room = width - indent, cut = room;

		while (cut > 0 && s[cut] != ' ')
			cut--;
		if (cut <= 0)
			cut = room;
		fprintf(out, "%*s%.*s\n", indent, "", cut, s);
		s += cut;
		while (*s == ' ')
			s++;
		indent = 4;
	}
	fprintf(out, "%*s%s\n", indent, "", s);
}

static void print_header(FILE *out, int width, const struct top_frame *f)
{
	const struct top_status *st = &f->st;
	const char *lead = "tlbscope top - ";
	char pos[64] = "", source[512], speed[32] = "";

	if (!st->live && st->percent >= 0)
		snprintf(pos, sizeof(pos), " at %.1f%%%s", st->percent, st->ended ? " (end)" : "");
	/* a long path gives way in its middle: the position at the end stays */
	top_elide_middle(source, sizeof(source), st->source,
			 width - (int)strlen(lead) - (int)strlen(pos));
	put(out, width, "%s%s%s", lead, source, pos);
	if (!st->live && st->speed > 0)
		snprintf(speed, sizeof(speed), ", speed %gx", st->speed);
	else if (!st->live)
		snprintf(speed, sizeof(speed), ", speed max");
	put(out, width, "elapsed %.1f s, trace time %s, %llu events (%s), lost %llu%s", st->elapsed,
	    f->trace_time, (unsigned long long)st->events, f->event_rate,
	    (unsigned long long)st->lost, speed);
	put(out, width, "lazy model T=%d Q=%d; flush IPIs from %s", f->T, f->Q,
	    f->ipi_src ? f->ipi_src : "(none seen)");
}

static void print_cpus(FILE *out, int width, const struct top_frame *f)
{
	const struct top_col *cols = top_cpu_cols_batch;
	struct top_fit fit;
	char line[1024], why[48];

	top_cols_fit(cols, TC__COUNT, width, &fit);
	fputc('\n', out);
	snprintf(why, sizeof(why), "not shown in %d columns", width);
	if (top_cols_marker(cols, &fit, why, line, sizeof(line)))
		put(out, width, "%s", line);
	top_cols_line(cols, &fit, NULL, line, sizeof(line));
	put(out, width, "%s", line);
	for (int i = 0; i < f->ncpu; i++) {
		const struct top_frame_cpu *fc = &f->cpu[i];
		const char *cells[TC__COUNT];
		size_t at;

		for (int k = 0; k < TC__COUNT; k++)
			cells[k] = fc->cell[k];
		at = top_cols_line(cols, &fit, cells, line, sizeof(line));
		if (fit.w[TC_HIST] >= 3) {
			int w = fit.w[TC_HIST] - 2 > TOP_SPARK ? TOP_SPARK : fit.w[TC_HIST] - 2;
			double max = 0;
			char spark[TOP_SPARK + 1];

			for (int k = 0; k < fc->c.nspark; k++)
				if (fc->c.spark[k] > max)
					max = fc->c.spark[k];
			top_spark_ascii(&fc->c, w, max, spark);
			snprintf(line + at, sizeof(line) - at, "|%s|", spark);
		}
		put(out, width, "%s", line);
	}
}

static void print_procs(FILE *out, int width, const struct top_frame *f)
{
	const struct top_col *cols = top_proc_cols;
	struct top_fit fit;
	char line[1024], why[48];

	top_cols_fit(cols, TP__COUNT, width - 2, &fit);
	put(out, width, "%s", "");
	/* 78 columns: the title fits a terminal of 80 */
	put(out, width, "Processes by flush IPIs (stock: CPUs that ever ran it; lazy: CPUs "
	    "running it)");
	snprintf(why, sizeof(why), "not shown in %d columns", width);
	if (top_cols_marker(cols, &fit, why, line, sizeof(line)))
		put(out, width, "  %s", line);
	top_cols_line(cols, &fit, NULL, line, sizeof(line));
	put(out, width, "  %s", line);
	for (int k = 0; k < f->nproc && k < 10; k++) {
		const char *cells[TP__COUNT];

		for (int i = 0; i < TP__COUNT; i++)
			cells[i] = f->proc[k][i];
		top_cols_line(cols, &fit, cells, line, sizeof(line));
		put(out, width, "  %s", line);
	}
	if (f->nproc_all > 10)
		put(out, width, "  ... %zu more", f->nproc_all - 10);
	if (!f->nproc && f->rec.requests_unknown)
		put(out, width, "  n/a: no flush request is known (Tuner: why)");
}

/* The models' IPIs, lazy(T, Q)'s counts and tune's answer (flush requests known). */
static void print_models(FILE *out, int width, const struct top_frame *f)
{
	const struct top_rec *r = &f->rec;
	char pct[16];

	if (r->stock_ipis)
		snprintf(pct, sizeof(pct), "%.1f %%", 100.0 * r->saved / r->stock_ipis);
	else
		snprintf(pct, sizeof(pct), "n/a");
	put(out, width, "Tuner: stock_asid %llu flush IPIs, lazy %llu: lazy saved %llu so far (%s)",
	    (unsigned long long)r->stock_ipis, (unsigned long long)r->lazy_ipis,
	    (unsigned long long)r->saved, pct);
	put(out, width, "  lazy(%d, %d) from the per-CPU tables: %llu evictions, %llu deferred, "
	    "%llu overflows", f->T, f->Q, (unsigned long long)r->point.evictions,
	    (unsigned long long)r->point.deferred, (unsigned long long)r->point.overflows);
	if (r->T && r->settable)
		put(out, width, "  recommendation (%s): MAX_LOADED_MM %d, MAX_TLB_FLUSH_TASK %d "
		    "(%s; cost %.3f ms, stock %.3f ms)", f->pf_name, r->T, r->Q, r->verdict,
		    r->cost_ms, r->stock_ms);
	else if (r->T)
		put(out, width, "  recommendation (%s): %s%s%s (the cheapest lazy point T=%d Q=%d: "
		    "cost %.3f ms, stock %.3f ms)", f->pf_name, r->verdict,
		    r->arch ? " to " : "", r->arch ? r->arch : "", r->T, r->Q, r->cost_ms,
		    r->stock_ms);
	else
		put(out, width, "  recommendation: no events yet");
}

/* A total, or "-" where it is unknown. */
static const char *total(char *buf, size_t len, bool known, uint64_t v)
{
	if (!known)
		return "-";
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void print_tuner(FILE *out, int width, const struct top_frame *f)
{
	const struct top_rec *r = &f->rec;
	char tx[24], rx[24], local[24];

	put(out, width, "%s", "");
	if (r->requests_unknown) {
		put(out, width, "Tuner: flush requests unknown: %s", r->requests_unknown);
		put(out, width, "  lazy(%d, %d) from the per-CPU tables: %llu evictions; deferred "
		    "and overflows unknown", f->T, f->Q, (unsigned long long)r->point.evictions);
		put(out, width, "  recommendation (%s): %s (no flush request known)", f->pf_name,
		    r->verdict);
	} else {
		print_models(out, width, f);
	}
	put(out, width, "totals: switches %llu, flush IPIs sent %s, received %s, local flushes %s",
	    (unsigned long long)f->sw, total(tx, sizeof(tx), f->have_ipis, f->tx),
	    total(rx, sizeof(rx), f->have_ipis, f->rx),
	    total(local, sizeof(local), !r->requests_unknown, f->local));
	put(out, width, "%s", "");
}

void top_text_print(FILE *out, int width, const struct top_model *m, struct timeline *tl,
		    const struct top_status *st)
{
	struct top_frame f = { 0 };

	top_frame_fill(&f, m, tl, st);
	print_header(out, width, &f);
	print_cpus(out, width, &f);
	print_procs(out, width, &f);
	print_tuner(out, width, &f);
	top_frame_release(&f);
}
