// SPDX-License-Identifier: GPL-2.0-only
/*
 * report's sections on why the flush IPIs happen, as text and JSON, from analysis/explain.c's
 * result: callers, the sender x target matrix, targets not running the mm, the worst bursts.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"
#include "report-explain.h"

void explain_text(const struct explain_result *x, int top, bool requests_known)
{
	int ncpus = x->ncpus, s = x->source;

	if (x->ncallers) {
		static const char *const h[] = { "CALLER", "REQUESTS", "FLUSH_IPIS" };
		struct table *t = table_new(3, h, "<>>");

		printf("\nFlush requests and IPIs by kernel caller\n");
		for (int i = 0; i < x->ncallers; i++) {
			char r[24], p[24];
			const char *cells[3] = { x->callers[i].name, r, p };

			if (requests_known)
				snprintf(r, sizeof(r), "%llu",
					 (unsigned long long)x->callers[i].requests);
			else
				snprintf(r, sizeof(r), "n/a");
			if (s >= 0)
				snprintf(p, sizeof(p), "%llu", (unsigned long long)x->callers[i].ipis);
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
		bool unknown = x->unknown_sender;
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
				uint64_t m = explain_matrix_at(x, f, to);

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
	if (x->nrows) {
		static const char *const h[] = { "MM", "PID", "COMMAND", "FLUSH_IPIS",
						  "NOT_RUNNING", "SHARE" };
		struct table *t = table_new(6, h, "<><>>>");

		printf("\nFlush IPIs to CPUs not running the mm (what lazy flushing would queue "
		       "instead)\n");
		for (size_t i = 0; i < x->nrows && (!top || (int)i < top); i++) {
			const struct explain_mm_row *row = &x->rows[i];
			const struct tl_mm *m = row->mm;
			char pid[16], ipis[24], nr[24], share[16];
			const char *cells[6] = { m ? m->name : "?", pid, m ? m->comm : "?", ipis, nr,
						 share };

			snprintf(pid, sizeof(pid), "%d", m ? m->pid : -1);
			snprintf(ipis, sizeof(ipis), "%llu", (unsigned long long)row->ipis);
			snprintf(nr, sizeof(nr), "%llu", (unsigned long long)row->not_running);
			snprintf(share, sizeof(share), "%.1f %%",
				 100.0 * row->not_running / row->ipis);
			table_add(t, cells);
		}
		table_print(t, stdout, "  ");
		table_free(t);
	}
	if (x->mm_unknown)
		printf("%s  %llu flush IPI%s of no known mm (no cross-call to the target seen "
		       "before): in no row\n", x->nrows ? "" : "\nFlush IPIs to CPUs not running the "
		       "mm\n", (unsigned long long)x->mm_unknown, x->mm_unknown == 1 ? "" : "s");
	if (x->nworst) {
		printf("\nWorst bursts of flush IPIs (10 ms intervals)\n");
		for (int k = 0; k < x->nworst; k++) {
			const struct explain_burst *b = &x->worst[k];
			const struct tl_mm *m = b->top_mm;
			char at[32];

			format_ns(at, sizeof(at), b->start);
			printf("  at %s s: %llu IPIs in 10 ms (%.0f/s), ", at,
			       (unsigned long long)b->ipis, b->ipis * 1e9 / EXPLAIN_BURST_NS);
			if (m)
				printf("most from %s (%s, %llu)\n", m->name, m->comm,
				       (unsigned long long)b->top_mm_ipis);
			else
				printf("for no process's mm (kernel-wide or unattributed)\n");
		}
	}
}

void explain_json(const struct explain_result *x, json_t *j, bool requests_known)
{
	int ncpus = x->ncpus, s = x->source;
	json_t *callers = json_array(), *mat, *nr, *bursts;

	for (int i = 0; i < x->ncallers; i++) {
		json_t *c = json_object();

		json_object_set_new(c, "caller", json_text(x->callers[i].name));
		json_object_set_new(c, "flush_requests", requests_known ?
				    json_integer((json_int_t)x->callers[i].requests) : json_null());
		json_object_set_new(c, "flush_ipis", s >= 0 ?
				    json_integer((json_int_t)x->callers[i].ipis) : json_null());
		json_array_append_new(callers, c);
	}
	json_object_set_new(j, "callers", callers);
	if (s < 0) {
		json_object_set_new(j, "ipi_matrix", json_null());
		json_object_set_new(j, "ipis_not_running", json_null());
		json_object_set_new(j, "ipis_mm_unknown", json_null());
		json_object_set_new(j, "ipi_bursts", json_null());
		return;
	}
	mat = json_object();
	{
		json_t *rowsj = json_array();

		for (int f = 0; f < ncpus; f++) {
			json_t *r = json_array();

			for (int to = 0; to < ncpus; to++)
				json_array_append_new(r, json_integer((json_int_t)explain_matrix_at(x, f, to)));
			json_array_append_new(rowsj, r);
		}
		json_object_set_new(mat, "rows", rowsj);
		if (x->unknown_sender) {
			json_t *r = json_array();

			for (int to = 0; to < ncpus; to++)
				json_array_append_new(r, json_integer((json_int_t)explain_matrix_at(x, -1, to)));
			json_object_set_new(mat, "unknown_sender", r);
		} else {
			json_object_set_new(mat, "unknown_sender", json_null());
		}
	}
	json_object_set_new(j, "ipi_matrix", mat);
	nr = json_array();
	for (size_t i = 0; i < x->nrows; i++) {
		const struct explain_mm_row *row = &x->rows[i];
		const struct tl_mm *m = row->mm;
		json_t *o = json_object();

		json_object_set_new(o, "mm", json_text(m ? m->name : "?"));
		json_object_set_new(o, "pid", json_integer(m ? m->pid : -1));
		json_object_set_new(o, "comm", json_text(m ? m->comm : "?"));
		json_object_set_new(o, "flush_ipis", json_integer((json_int_t)row->ipis));
		json_object_set_new(o, "targets_not_running",
				    json_integer((json_int_t)row->not_running));
		json_array_append_new(nr, o);
	}
	json_object_set_new(j, "ipis_not_running", nr);
	json_object_set_new(j, "ipis_mm_unknown", json_integer((json_int_t)x->mm_unknown));
	bursts = json_object();
	json_object_set_new(bursts, "interval_ns", json_integer((json_int_t)EXPLAIN_BURST_NS));
	{
		json_t *w = json_array();

		for (int k = 0; k < x->nworst; k++) {
			const struct explain_burst *b = &x->worst[k];
			const struct tl_mm *m = b->top_mm;
			json_t *o = json_object();

			json_object_set_new(o, "start_ns", json_integer((json_int_t)b->start));
			json_object_set_new(o, "length_ns", json_integer((json_int_t)EXPLAIN_BURST_NS));
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
