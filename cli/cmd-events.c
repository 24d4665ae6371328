// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope events: the normalized stream (docs/design.md section 3) as JSON lines, after the
 * timeline resolved mms and flush roles.  Every command reads this back as an input, and
 * gives the same answers from it as from the original trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"
#include "probes.h"

static const char events_usage[] =
	"usage: tlbscope events [-C LIST] [--from T] [--to T] [--probe-map FILE] TRACE\n"
	"\n"
	"Prints one JSON object per line: a header, then every event in time order.\n"
	"  -C, --cpu LIST  only events recorded on these CPUs (0,2-3)\n"
	"  --from T        only events at or after T (seconds, or +T after the first event)\n"
	"  --to T          only events before T\n"
	"  --probe-map FILE  kprobe events and arguments under other names: lines\n"
	"                  'EVENT = FUNCTION', 'EVENT.FIELD = ARGUMENT' (tlbscope-probes(7))\n"
	"  --strict        exit 2 when records failed the input's checks (skipped,\n"
	"                  inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help      this text\n";

struct writer {
	struct ts_source *src;
	const struct common_opts *o;
	bool *mm_told;		/* mm id -> its "mm" line was printed */
	size_t mm_told_alloc;
	bool header_done;
	bool window_set;	/* @window is known: the first event has been seen */
	bool window_bad;	/* ... and ends before it starts (said): nothing is printed */
	struct tl_filter window;	/* absolute times */
};

static void put(json_t *obj)
{
	json_dumpf(obj, stdout, JSON_COMPACT | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(obj);
}

static void header(struct writer *w)
{
	const struct ts_source_info *info = ts_source_info(w->src);
	json_t *h = json_object();

	json_object_set_new(h, "kind", json_string("header"));
	json_object_set_new(h, "version", json_integer(1));
	json_object_set_new(h, "cpus", json_integer(info->cpus));
	json_object_set_new(h, "format", json_text(info->format));
	if (info->uname)
		json_object_set_new(h, "kernel", json_text(info->uname));
	if (info->nkprobes_defined) {
		json_t *k = json_array();

		for (size_t i = 0; i < info->nkprobes_defined; i++)
			json_array_append_new(k, json_text(info->kprobes_defined[i]));
		json_object_set_new(h, "kprobes_defined", k);
	}
	put(h);
	w->header_done = true;
}

/* The mm's name for an event, printing its "mm" line the first time it appears. */
static json_t *mm_ref(struct writer *w, struct timeline *tl, uint32_t id, uint64_t ts)
{
	const struct tl_mm *m = timeline_mm(tl, id);
	json_t *j;

	if (!id || !m)
		return json_null();
	ALLOC_GROW_ZERO(w->mm_told, id + 1, w->mm_told_alloc);
	if (!w->mm_told[id]) {
		w->mm_told[id] = true;
		j = json_object();
		json_object_set_new(j, "ts", json_integer((json_int_t)ts));
		json_object_set_new(j, "kind", json_string("mm"));
		json_object_set_new(j, "mm", json_text(m->name));
		json_object_set_new(j, "pid", json_integer(m->pid));
		json_object_set_new(j, "comm", json_text(m->comm));
		json_object_set_new(j, "how", json_text(timeline_how_name(m->how)));
		put(j);
	}
	return json_text(m->name);
}

static json_t *cpus_array(const struct ts_cpumask *m)
{
	json_t *a = json_array();

	for (int i = 0; i < TS_MAX_CPUS; i++) {
		if (!m->bits[i / 64]) {
			i |= 63;
			continue;
		}
		if (ts_cpumask_test(m, i))
			json_array_append_new(a, json_integer(i));
	}
	return a;
}

/* Kernel pointers exceed JSON's signed 64-bit integers: "0xff60000000846000". */
static json_t *ptr_json(uint64_t p)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)p);
	return json_text(buf);
}

static const char *role_name(uint8_t role)
{
	static const char *const names[] = { "request", "local", "received" };

	return role <= TS_FLUSH_RECEIVED ? names[role] : "request";
}

static void write_event(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct writer *w = ctx;
	const struct common_opts *o = w->o;
	json_t *j, *mm = NULL;

	if (o->has_filter && !w->window_set) {
		w->window_set = true;
		w->window_bad = common_filter_window(o, ev->ts, &w->window) < 0;
	}
	if (w->window_bad)
		return;
	if (!w->header_done)
		header(w);
	if (o->has_filter) {
		if (ev->ts < w->window.from || ev->ts >= w->window.to)
			return;
		if (o->filter.has_cpus && !ts_cpumask_test(&o->filter.cpus, ev->cpu))
			return;
	}
	/* the mm line must come before the event that names it */
	if (ev->kind == TS_EV_SWITCH && !(ev->flags & TS_F_KTHREAD))
		mm = mm_ref(w, tl, ev->u.sw.mm, ev->ts);
	else if (ev->kind == TS_EV_FLUSH)
		mm = mm_ref(w, tl, ev->u.flush.mm, ev->ts);
	else if (ev->kind == TS_EV_EXIT)
		mm = mm_ref(w, tl, ev->u.exit.mm, ev->ts);
	else if (ev->kind == TS_EV_EXEC)
		mm = mm_ref(w, tl, ev->u.exec.mm, ev->ts);
	else if (ev->kind == TS_EV_LOAD_MM)
		mm = mm_ref(w, tl, ev->u.load.mm, ev->ts);

	j = json_object();
	json_object_set_new(j, "ts", json_integer((json_int_t)ev->ts));
	json_object_set_new(j, "cpu", json_integer(ev->cpu));
	json_object_set_new(j, "kind", json_text(ev->kind == TS_EV_EXIT && !ev->u.exit.mm &&
				   ev->u.exit.pid >= 0 ? "task_exit" : ts_kind_name(ev->kind)));
	if (ev->name)
		json_object_set_new(j, "event", json_text(ts_source_str(w->src, ev->name)));
	if (ev->probe)
		json_object_set_new(j, "probe", json_text(ts_source_str(w->src, ev->probe)));
	if (ev->pid >= 0) {
		json_object_set_new(j, "pid", json_integer(ev->pid));
		json_object_set_new(j, "comm", json_text(ev->comm));
	}
	if (ev->flags & TS_F_TGID)
		json_object_set_new(j, "tgid", json_integer(ev->tgid));

	switch (ev->kind) {
	case TS_EV_SWITCH:
		json_object_set_new(j, "prev_pid", json_integer(ev->u.sw.prev_pid));
		json_object_set_new(j, "prev_comm", json_text(ev->u.sw.prev_comm));
		json_object_set_new(j, "prev_state", json_integer(ev->u.sw.prev_state));
		json_object_set_new(j, "next_pid", json_integer(ev->u.sw.next_pid));
		json_object_set_new(j, "next_comm", json_text(ev->u.sw.next_comm));
		json_object_set_new(j, "mm", mm ? mm : json_null());
		mm = NULL;
		if (ev->u.sw.no_mm)
			json_object_set_new(j, "no_mm", json_true());
		break;
	case TS_EV_FORK:
	case TS_EV_NEWTASK:
		json_object_set_new(j, "parent_pid", json_integer(ev->u.fork.parent_pid));
		json_object_set_new(j, "child_pid", json_integer(ev->u.fork.child_pid));
		json_object_set_new(j, "child_comm", json_text(ev->u.fork.child_comm));
		if (ev->kind == TS_EV_NEWTASK)
			json_object_set_new(j, "clone_flags",
					    json_integer((json_int_t)ev->u.fork.clone_flags));
		break;
	case TS_EV_EXEC:
		json_object_set_new(j, "exec_pid", json_integer(ev->u.exec.pid));
		json_object_set_new(j, "old_pid", json_integer(ev->u.exec.old_pid));
		json_object_set_new(j, "filename",
				    json_text(ts_source_str(w->src, ev->u.exec.filename)));
		json_object_set_new(j, "mm", mm);
		mm = NULL;
		break;
	case TS_EV_EXIT:
		if (ev->u.exit.pid >= 0)
			json_object_set_new(j, "exit_pid", json_integer(ev->u.exit.pid));
		json_object_set_new(j, "mm", mm);
		mm = NULL;
		break;
	case TS_EV_FLUSH:
		json_object_set_new(j, "role", json_text(role_name(ev->u.flush.role)));
		json_object_set_new(j, "mm", mm);
		mm = NULL;
		json_object_set_new(j, "scope", json_text(ts_scope_name(ev->u.flush.scope)));
		if (ev->u.flush.scope == TS_SCOPE_RANGE || ev->u.flush.scope == TS_SCOPE_KERNEL)
			json_object_set_new(j, "pages", ev->u.flush.pages ?
					    json_integer((json_int_t)ev->u.flush.pages) : json_null());
		if (ev->u.flush.start)
			json_object_set_new(j, "start", json_integer((json_int_t)ev->u.flush.start));
		if (ev->u.flush.stride)
			json_object_set_new(j, "stride", json_integer((json_int_t)ev->u.flush.stride));
		json_object_set_new(j, "source", json_text(ts_evsrc_name(ev->u.flush.src)));
		if (ev->u.flush.reason != TS_NO_REASON)
			json_object_set_new(j, "reason", json_integer(ev->u.flush.reason));
		if (ev->u.flush.fflags & TS_FF_PTR)
			json_object_set_new(j, "mm_ptr", ptr_json(ev->u.flush.mm_ptr));
		if (ev->u.flush.fflags & TS_FF_KMASK)
			json_object_set_new(j, "kernel_mask", cpus_array(&ev->u.flush.kmask));
		break;
	case TS_EV_LOAD_MM: {
		struct ts_cpumask m = { .bits = { ev->u.load.next_mask } };

		json_object_set_new(j, "mm", mm);
		mm = NULL;
		json_object_set_new(j, "prev_ptr", ptr_json(ev->u.load.prev));
		json_object_set_new(j, "next_ptr", ptr_json(ev->u.load.next));
		/* not [] where the trace does not say: the probe had no such argument */
		json_object_set_new(j, "next_mask", ev->u.load.mask_known ? cpus_array(&m) :
				    json_null());
		if (ev->u.load.initial)
			json_object_set_new(j, "initial", json_true());
		if (ev->u.load.commit)
			json_object_set_new(j, "commit", json_true());
		break;
	}
	case TS_EV_IPI:
		if (ev->flags & TS_F_RECV) {
			json_object_set_new(j, "recv", json_true());
			json_object_set_new(j, "from", ev->u.ipi.from >= 0 ?
					    json_integer(ev->u.ipi.from) : json_null());
			if (ev->flags & TS_F_LOCAL)
				json_object_set_new(j, "local", json_true());
		} else {
			json_object_set_new(j, "targets", cpus_array(&ev->u.ipi.targets));
		}
		json_object_set_new(j, "tlb", json_boolean(ev->flags & TS_F_TLB));
		if (ev->u.ipi.func)
			json_object_set_new(j, "func",
					    json_text(ts_source_str(w->src, ev->u.ipi.func)));
		json_object_set_new(j, "source", json_text(ts_evsrc_name(ev->u.ipi.src)));
		break;
	case TS_EV_OTHER:
		/* the union holds a defer only for that probe (others keep what they had) */
		if (ev->probe && ev->u.defer.known &&
		    !strcmp(ts_source_str(w->src, ev->probe), "lazy_tlb_defer")) {
			json_object_set_new(j, "mm_ptr", ptr_json(ev->u.defer.mm_ptr));
			json_object_set_new(j, "target", json_integer(ev->u.defer.target));
			json_object_set_new(j, "decision", json_integer(ev->u.defer.decision));
		}
		break;
	case TS_EV_SFENCE:
		json_object_set_new(j, "cause",
				    json_text(ts_sfence_cause_name(ev->u.sfence.cause)));
		json_object_set_new(j, "count", json_integer(ev->u.sfence.count));
		if (ev->u.sfence.site)
			json_object_set_new(j, "site",
					    json_text(ts_source_str(w->src, ev->u.sfence.site)));
		break;
	case TS_EV_VMALLOC:
		json_object_set_new(j, "start", ev->u.vmalloc.start ?
				    json_integer((json_int_t)ev->u.vmalloc.start) : json_null());
		json_object_set_new(j, "pages", ev->u.vmalloc.pages ?
				    json_integer((json_int_t)ev->u.vmalloc.pages) : json_null());
		break;
	case TS_EV_TGID:
		json_object_set_new(j, "task_pid", json_integer(ev->u.task.pid));
		json_object_set_new(j, "task_tgid", json_integer(ev->u.task.tgid));
		json_object_set_new(j, "kthread", json_boolean(ev->u.task.kthread));
		json_object_set_new(j, "task_comm", json_text(ev->u.task.comm));
		break;
	case TS_EV_LOST:
		json_object_set_new(j, "count", ev->u.lost.count ?
				    json_integer((json_int_t)ev->u.lost.count) : json_null());
		break;
	default:
		break;
	}
	json_decref(mm);
	put(j);
}

int cmd_events(int argc, char **argv)
{
	static const struct cli_option opts[] = { COMMON_OPTS_FILTER, PROBE_MAP_OPT, STRICT_OPT,
						  { NULL } };
	struct common_opts o = { 0 };
	struct writer w = { 0 };
	struct ts_source *src;
	struct timeline *tl;
	int r;

	r = common_parse(&o, "events", events_usage, opts, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	/* the filter selects lines; the timeline itself sees and resolves everything */
	{
		struct common_opts all = o;
		char err[TS_ERR_LEN];

		all.has_filter = false;
		src = ts_source_open(o.input, err);
		if (!src)
			return error("%s", err);
		if (o.has_filter && common_filter_check(&o, src)) {
			ts_source_close(src);
			return EXIT_BAD;
		}
		w.o = &o;
		w.src = src;
		r = analyze_run(&all, src, write_event, &w, &tl);
		if (w.window_bad || (!r && o.has_filter &&
				     common_window_misses(&o, &w.window, tl)))
			r = EXIT_BAD;
		/* stdout is the stream: what a probe lacks goes to stderr, once */
		fflush(stdout);
		if (!r)
			probes_print_problems(src, stderr, "tlbscope: warning: ");
	}
	ts_probe_map_free();
	free(w.mm_told);
	timeline_free(tl);
	ts_source_close(src);
	return r;
}
