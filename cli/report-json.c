// SPDX-License-Identifier: GPL-2.0-only
/*
 * report as one JSON object with stable snake_case keys (analysis/report.h's result,
 * explain's sections and the sfence.vma account); unknown is null, never 0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "report.h"
#include "probes.h"

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* @v when the trace shows it (@is_known), else null: unknown is not 0 */
static json_t *known(uint64_t is_known, uint64_t v)
{
	return is_known ? jint(v) : json_null();
}

/* evidence.kprobes, .kprobe_nmi_drop, .mm_pointers, .kernel_check (not for JSON input) */
static void json_probes(json_t *ev, struct ts_source *src, struct timeline *tl,
			const struct report_result *r)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct tl_ptr_stats *ps = timeline_ptr_stats(tl);
	const struct report_totals *t = &r->t;
	const struct report_probes *p = &r->probes;
	json_t *k = json_object(), *d = json_array(), *j;

	for (size_t i = 0; i < REPORT_NKPROBES; i++)
		json_object_set_new(k, report_kprobes[i].func, p->defined[i] ? jint(p->count[i]) :
				    json_null());
	json_object_set_new(ev, "kprobes", k);
	for (size_t i = 0; i < info->nkprobes_defined; i++)
		json_array_append_new(d, json_text(info->kprobes_defined[i]));
	json_object_set_new(ev, "kprobes_defined", d);
	json_object_set_new(ev, "kprobe_nmi_drop", json_boolean(p->nmi_drop));
	j = json_object();
	json_object_set_new(j, "switch_mm_events", jint(ps->load_mm));
	json_object_set_new(j, "resolved_at_switch", jint(ps->at_switch));
	json_object_set_new(j, "resolved_at_exec", jint(ps->at_exec));
	json_object_set_new(j, "distinct", jint(ps->pointers));
	json_object_set_new(j, "reuses", jint(ps->reuses));
	json_object_set_new(j, "owner_changes", jint(ps->owner_changes));
	json_object_set_new(j, "guessed_process_corrected", jint(ps->adopted));
	json_object_set_new(j, "switches_without_mm", jint(ps->no_mm_switches));
	json_object_set_new(j, "initial_known", jint(ps->initial_known));
	json_object_set_new(j, "initial_unknown", jint(ps->initial_unknown));
	json_object_set_new(j, "requests_by_pointer", jint(ps->requests_by_ptr));
	json_object_set_new(j, "requests_pointer_unknown", jint(ps->requests_ptr_unknown));
	json_object_set_new(j, "caller_events_as_evidence", jint(ps->callers_evidence));
	json_object_set_new(ev, "mm_pointers", j);
	j = json_object();
	json_object_set_new(j, "kprobe_requests", jint(timeline_kprobe_requests(tl)));
	json_object_set_new(j, "requests_with_kernel_mask", jint(t->kmask_requests));
	json_object_set_new(j, "requests_with_remote_targets",
			    known(!t->kmask_unknown, t->remote_requests));
	json_object_set_new(j, "kernel_remote_targets", known(!t->kmask_unknown, t->kernel_targets));
	json_object_set_new(j, "csd_flush_ipis_queued", jint(t->csd_flush_ipis));
	json_object_set_new(j, "csd_flush_all_ipis_queued", jint(t->csd_all_ipis));
	json_object_set_new(j, "sbi_remote_fences", jint(p->count[REPORT_KPROBE_SBI]));
	json_object_set_new(j, "lazy_flush_kernel", json_boolean(timeline_lazy_kernel(tl)));
	json_object_set_new(ev, "kernel_check", j);
}

json_t *report_json(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
		    const struct report_result *r, const struct explain_result *x,
		    const struct sfence_result *sr, const struct platform *pf)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct report_totals t = r->t;
	int isrc = r->source;
	json_t *root = json_object(), *j, *arr;
	size_t nnames;
	uint64_t kguess, corrected;
	const char *arch, *arch_how;
	uint32_t *ids;
	arch = timeline_arch_name(timeline_arch(tl, &arch_how));
	/* "o?": a NULL string (no detail, no kernel) is null */
	json_object_set_new(root, "input", json_pack("{s:o,s:o,s:o?,s:o?,s:s,s:s}",
			    "file", json_text(o->c.input), "format", json_text(info->format),
			    "detail", json_text(info->detail), "kernel", json_text(info->uname),
			    "arch", arch, "arch_how", arch_how));
	json_object_set_new(root, "span", json_pack("{s:o,s:o,s:i}",
			    "first_ns", jint(timeline_first_ts(tl)),
			    "last_ns", jint(timeline_last_ts(tl)),
			    "cpus", info->cpus ? info->cpus : timeline_cpus(tl)));
	if (o->c.has_filter) {
		j = json_pack("{s:o,s:o,s:b,s:b}", "from_ns", jint(o->c.filter.from),
			      "to_ns", o->c.filter.to == UINT64_MAX ? json_null() :
			      jint(o->c.filter.to), "from_relative", o->c.from_rel,
			      "to_relative", o->c.to_rel);
		if (o->c.filter.has_cpus) {
			int c;

			json_object_set_new(j, "cpus", json_array());
			ts_cpumask_for_each(c, &o->c.filter.cpus)
				json_array_append_new(json_object_get(j, "cpus"), json_integer(c));
		}
		json_object_set_new(root, "window", j);
	}

	j = json_object();
	json_object_set_new(j, "switches", jint(t.switches));
	json_object_set_new(j, "mm_switches", jint(t.mm_switches));
	json_object_set_new(j, "mms", jint(t.mms));
	json_object_set_new(j, "flush_requests", known(!r->requests_unknown, t.requests));
	json_object_set_new(j, "flush_ipis", isrc >= 0 ? jint(t.ipis) : json_null());
	json_object_set_new(j, "local_flushes", known(!r->requests_unknown, t.local));
	if (r->requests_unknown)
		json_object_set_new(j, "requests_unknown", json_string(r->requests_unknown));
	json_object_set_new(j, "kernel_flush_targets", known(!t.kmask_unknown, t.kernel_targets));
	json_object_set_new(root, "totals", j);

	arr = json_array();
	for (int i = 0; i < r->ncpus; i++) {
		const struct report_cpu *c = &r->cpus[i];
		bool seen = c->seen;	/* else only what others sent it is known */

		j = json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cpu", c->cpu,
			      "switches", known(seen, c->switches),
			      "mm_switches", known(seen, c->mm_switches),
			      "mms", known(seen, c->mms),
			      "flush_ipis_sent", known(isrc >= 0 && seen, c->ipis_sent),
			      "flush_ipis_received", known(isrc >= 0, c->ipis_recv),
			      "local_flushes", known(seen && !r->requests_unknown, c->local),
			      "flush_requests", known(seen && !r->requests_unknown, c->requests),
			      "kthread_ns", known(seen, c->kthread_ns),
			      "idle_ns", known(seen, c->idle_ns), "lost_events", jint(c->lost));
		if (!seen)
			json_object_set_new(j, "unobserved", json_string("no event was recorded on "
					    "this CPU: only the IPIs sent to it are known"));
		json_object_set_new(j, "kernel_flush_targets", known(!t.kmask_unknown,
								     c->kernel_targets));
		json_array_append_new(arr, j);
	}
	json_object_set_new(root, "cpus", arr);

	arr = json_array();
	for (size_t i = 0; i < r->nmms; i++) {
		const struct tl_mm *m = r->mms[i];

		j = json_object();
		json_object_set_new(j, "mm", json_text(m->name));
		json_object_set_new(j, "pid", json_integer(m->pid));
		json_object_set_new(j, "comm", json_text(m->comm));
		json_object_set_new(j, "identified", json_text(timeline_how_name(m->how)));
		json_object_set_new(j, "guessed", json_boolean(timeline_how_guessed(m->how)));
		json_object_set_new(j, "flush_requests", known(!r->requests_unknown,
							       m->flush_requests));
		json_object_set_new(j, "flush_ipis", known(isrc >= 0, isrc >= 0 ? m->ipis_caused[isrc] :
							   0));
		json_object_set_new(j, "cpus", json_integer(ts_cpumask_weight(&m->ran_on)));
		json_object_set_new(j, "mm_switches_in", jint(m->switches_in));
		json_object_set_new(j, "kernel_flush_targets", known(!t.kmask_unknown,
								     m->kernel_targets));
		json_array_append_new(arr, j);
	}
	json_object_set_new(root, "processes", arr);

	j = json_object();
	{
		json_t *tp = json_object(), *how = json_object(), *missing = json_array();

		for (size_t i = 0; i < REPORT_NEVIDENCE; i++) {
			const struct report_evidence *e = &r->evidence[i];

			json_object_set_new(tp, e->name, jint(e->count));
			if (!e->count)
				json_array_append_new(missing, json_text(e->missing));
		}
		json_object_set_new(j, "tracepoints", tp);
		json_object_set_new(j, "cannot_see", missing);
		json_object_set_new(j, "flush_ipi_source", isrc >= 0 ?
				    json_text(timeline_ipi_source_name(isrc)) : json_null());
		json_object_set_new(j, "flush_ipis_sender_unknown",
				    jint(timeline_ipis_unattributed(tl, isrc)));
		for (int h = 1; h < TL_HOW__COUNT; h++)
			json_object_set_new(how, timeline_how_name(h), jint(t.how[h]));
		json_object_set_new(j, "mms_identified", how);
		json_object_set_new(j, "mms_guessed", jint(t.guessed));
		timeline_tasks(tl, &kguess);
		json_object_set_new(j, "kthreads_by_name",
				    info->normalized ? json_null() : jint(kguess));
		json_object_set_new(j, "tgid_markers", jint(timeline_tgid_markers(tl, &corrected)));
		/* JSON lines keep the rows read, and their mms are given: nothing to correct */
		json_object_set_new(j, "tgid_markers_malformed",
				    info->normalized ? json_null() : jint(info->tgid_malformed));
		json_object_set_new(j, "tgid_markers_corrected",
				    info->normalized ? json_null() : jint(corrected));
		json_object_set_new(j, "requests_mm_from_task",
				    known(!r->requests_unknown, timeline_requests_mm_guessed(tl)));
		json_object_set_new(j, "requests_without_mm",
				    known(!r->requests_unknown, timeline_requests_unattributed(tl)));
		json_object_set_new(j, "malformed_skipped", jint(ts_source_skipped(src, NULL)));
		source_checks_json(j, src);
		json_object_set_new(j, "timestamps_as_printed",
				    json_boolean(r->text_timestamps));
		json_probes(j, src, tl, r);
		json_object_set_new(j, "probe_notes", probes_notes_json(src));
	}
	json_object_set_new(root, "evidence", j);

	nnames = events_by_name(src, tl, &ids);
	j = json_object();
	for (size_t i = 0; i < nnames; i++)
		json_object_set_new(j, ts_source_str(src, ids[i]), jint(timeline_name_count(tl, ids[i])));
	free(ids);
	json_object_set_new(root, "events", j);
	explain_json(x, root, !r->requests_unknown);
	sfence_report_json(src, tl, sr, pf, root);
	json_object_set_new(root, "lost_events", jint(r->lost));
	json_object_set_new(root, "lost_markers_without_count", jint(r->lost_marks));
	return root;
}

