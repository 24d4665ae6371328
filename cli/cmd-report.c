// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope report: totals, a per-CPU table, a per-process (address space) table, the
 * evidence block (which events the trace has, what therefore cannot be seen, how much of
 * the identity rests on guesses) and lost events; as text for people or --json.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"

static const char report_usage[] =
	"usage: tlbscope report [--json] [--cpu LIST] [--from T] [--to T] [--top N] TRACE\n"
	"\n"
	"  --json        one JSON object with stable snake_case keys\n"
	"  --cpu LIST    count only these CPUs (0,2-3); state is rebuilt from all of them\n"
	"  --from T      count events at or after T: seconds of the trace clock, or +T\n"
	"                after the first event (units: s, ms, us, ns)\n"
	"  --to T        count events before T (same forms)\n"
	"  --top N       processes listed in the text table (default 20, 0 = all)\n";

struct report_opts {
	struct common_opts c;
	int top;
};

/* Test hook and parse entry: fills @o, never exits.  0 ok, 1 help shown, -1 bad usage. */
int report_parse_args(struct report_opts *o, int argc, char **argv);

int report_parse_args(struct report_opts *o, int argc, char **argv)
{
	memset(o, 0, sizeof(*o));
	o->top = 20;
	for (int i = 1; i < argc; i++) {
		int r;

		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(report_usage, stdout);
			return 1;
		}
		r = common_opt_parse(&o->c, argc, argv, &i, true);
		if (r < 0)
			return -1;
		if (r)
			continue;
		if (!strcmp(argv[i], "--top")) {
			if (i + 1 >= argc || parse_int(argv[i + 1], &o->top) || o->top < 0) {
				error("--top needs a count");
				return -1;
			}
			i++;
			continue;
		}
		if (argv[i][0] == '-' && argv[i][1]) {
			error("report: unknown option '%s'\n%s", argv[i], report_usage);
			return -1;
		}
		if (o->c.input) {
			error("report: one trace at a time ('%s' and '%s')", o->c.input, argv[i]);
			return -1;
		}
		o->c.input = argv[i];
	}
	if (!o->c.input) {
		error("report: no trace given\n%s", report_usage);
		return -1;
	}
	return 0;
}

static void no_consumer(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
}

struct totals {
	uint64_t switches, mm_switches, requests, ipis, local, mms, guessed;
	uint64_t how[TL_HOW__COUNT];
};

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

static void sum_totals(const struct timeline *tl, int src, struct totals *t)
{
	memset(t, 0, sizeof(*t));
	for (int i = 0; i < timeline_cpus(tl); i++) {
		const struct tl_cpu *c = timeline_cpu(tl, i);

		t->switches += c->switches;
		t->mm_switches += c->mm_switches;
		t->requests += c->flush_requests;
		t->ipis += ipis_recv(c, src);
		t->local += timeline_local_flushes(tl, i);
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

static const struct tl_mm **sorted_mms(const struct timeline *tl, int src, size_t *n);
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

/* The evidence block: which events exist, and what their absence hides. */
struct evidence {
	const char *key, *label;
	uint64_t count;
	const char *missing;	/* what cannot be seen without it */
};

static size_t collect_evidence(struct ts_source *src, struct timeline *tl, struct evidence *e)
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

	for (size_t i = 0; i < sizeof(tps) / sizeof(tps[0]); i++) {
		uint32_t id = ts_source_intern(src, tps[i].name);

		e[n].key = tps[i].name;
		e[n].label = tps[i].name;
		e[n].count = timeline_name_count(tl, id);
		e[n].missing = tps[i].missing;
		n++;
	}
	return n;
}

static void print_text(const struct report_opts *o, struct ts_source *src, struct timeline *tl)
{
	const struct ts_source_info *info = ts_source_info(src);
	int isrc = timeline_ipi_source(tl);
	struct totals t;
	struct evidence ev[16];
	size_t nev, nmm, nnames;
	const struct tl_mm **mms;
	uint64_t lost, marks, kguess;
	uint32_t *ids;
	char a[32], b[32], d[32];
	const char *where;

	sum_totals(tl, isrc, &t);
	format_ns(a, sizeof(a), timeline_first_ts(tl));
	format_ns(b, sizeof(b), timeline_last_ts(tl));
	format_ns(d, sizeof(d), timeline_last_ts(tl) - timeline_first_ts(tl));
	printf("tlbscope report: %s (%s%s%s%s)\n", o->c.input, info->format,
	       info->detail ? ", " : "", info->detail ? info->detail : "", "");
	if (info->uname)
		printf("kernel: %s\n", info->uname);
	printf("span: %s .. %s s (%s s), %d CPUs\n", a, b, d,
	       info->cpus ? info->cpus : timeline_cpus(tl));
	if (o->c.has_filter) {
		char f[32], to[32];

		format_ns(f, sizeof(f), o->c.filter.from);
		format_ns(to, sizeof(to), o->c.filter.to);
		printf("window: %s%s .. %s%s%s\n", o->c.from_rel ? "+" : "", f,
		       o->c.to_rel ? "+" : "", o->c.filter.to == UINT64_MAX ? "end" : to,
		       o->c.filter.has_cpus ? ", selected CPUs only" : "");
	}
	lost = timeline_lost(tl, &marks);

	printf("\nTotals\n");
	printf("  context switches   %12llu\n", (unsigned long long)t.switches);
	printf("  mm switches        %12llu\n", (unsigned long long)t.mm_switches);
	printf("  address spaces     %12llu  (%llu identified by guesses)\n",
	       (unsigned long long)t.mms, (unsigned long long)t.guessed);
	printf("  flush requests     %12llu\n", (unsigned long long)t.requests);
	if (isrc >= 0)
		printf("  flush IPIs         %12llu  (counted from %s)\n",
		       (unsigned long long)t.ipis, timeline_ipi_source_name(isrc));
	else
		printf("  flush IPIs                  n/a  (no flush IPI evidence in this trace)\n");
	printf("  local flushes      %12llu\n", (unsigned long long)t.local);
	printf("  lost events        %12llu%s\n", (unsigned long long)lost,
	       marks ? "  (plus sub-buffers that lost an unknown number)" : "");

	{
		static const char *const hdr[] = { "CPU", "SWITCHES", "MM_SWITCHES", "MMS",
			"IPIS_SENT", "IPIS_RECV", "LOCAL_FLUSH", "REQUESTS", "KTHREAD_S", "IDLE_S" };
		struct table *tab = table_new(10, hdr, ">>>>>>>>>>");

		printf("\nPer CPU\n");
		for (int i = 0; i < timeline_cpus(tl); i++) {
			const struct tl_cpu *c = timeline_cpu(tl, i);
			char v[10][32];
			const char *row[10];

			if (o->c.filter.has_cpus && !ts_cpumask_test(&o->c.filter.cpus, i))
				continue;
			snprintf(v[0], 32, "%d", i);
			snprintf(v[1], 32, "%llu", (unsigned long long)c->switches);
			snprintf(v[2], 32, "%llu", (unsigned long long)c->mm_switches);
			snprintf(v[3], 32, "%llu", (unsigned long long)cpu_mms(tl, i));
			snprintf(v[4], 32, "%llu", (unsigned long long)ipis_sent(c, isrc));
			snprintf(v[5], 32, "%llu", (unsigned long long)ipis_recv(c, isrc));
			snprintf(v[6], 32, "%llu", (unsigned long long)timeline_local_flushes(tl, i));
			snprintf(v[7], 32, "%llu", (unsigned long long)c->flush_requests);
			format_ns(v[8], 32, c->kthread_ns);
			format_ns(v[9], 32, c->idle_ns);
			for (int k = 0; k < 10; k++)
				row[k] = v[k];
			table_add(tab, row);
		}
		table_print(tab, stdout, "  ");
		table_free(tab);
	}

	mms = sorted_mms(tl, isrc, &nmm);
	{
		static const char *const hdr[] = { "MM", "PID", "COMMAND", "REQUESTS",
			"IPIS_CAUSED", "CPUS", "MM_SWITCHES_IN", "IDENTIFIED" };
		struct table *tab = table_new(8, hdr, "<><>>>><");
		size_t shown = o->top && (size_t)o->top < nmm ? (size_t)o->top : nmm;

		printf("\nPer process (address space), by flush IPIs caused%s\n",
		       shown < nmm ? "" : "");
		for (size_t i = 0; i < shown; i++) {
			const struct tl_mm *m = mms[i];
			char v[8][40];
			const char *row[8];

			snprintf(v[0], 40, "%s", m->name);
			snprintf(v[1], 40, "%d", m->pid);
			snprintf(v[2], 40, "%s", m->comm);
			snprintf(v[3], 40, "%llu", (unsigned long long)m->flush_requests);
			snprintf(v[4], 40, "%llu", (unsigned long long)(isrc >= 0 ? m->ipis_caused[isrc] : 0));
			snprintf(v[5], 40, "%d", ts_cpumask_weight(&m->ran_on));
			snprintf(v[6], 40, "%llu", (unsigned long long)m->switches_in);
			snprintf(v[7], 40, "%s", timeline_how_name(m->how));
			for (int k = 0; k < 8; k++)
				row[k] = v[k];
			table_add(tab, row);
		}
		table_print(tab, stdout, "  ");
		table_free(tab);
		if (shown < nmm)
			printf("  ... %zu more (--top 0 lists all)\n", nmm - shown);
	}
	free(mms);

	printf("\nEvidence\n");
	nev = collect_evidence(src, tl, ev);
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].count)
			printf("  %-20s %10llu\n", ev[i].label, (unsigned long long)ev[i].count);
		else
			printf("  %-20s    missing  -> cannot see: %s\n", ev[i].label, ev[i].missing);
	}
	printf("  flush IPIs counted from: %s\n", isrc >= 0 ? timeline_ipi_source_name(isrc) :
	       "nothing (no csd, ipi or tlb_flush event names a TLB-flush function; on RISC-V "
	       "with SBI remote fences only kprobes on the flush functions see them)");
	if (isrc == TL_IPI_CSD_ENTRY || isrc == TL_IPI_TLB_FLUSH)
		printf("  senders of target-side flush IPIs: the last CPU that sent that target a "
		       "cross-call (%llu without one)\n",
		       (unsigned long long)timeline_ipis_unattributed(tl, isrc));
	printf("  address spaces: %llu, of which guessed %llu (guess-pid %llu, guess-fork %llu); "
	       "tgid %llu, clone %llu, exec %llu, given %llu\n",
	       (unsigned long long)t.mms, (unsigned long long)t.guessed,
	       (unsigned long long)t.how[TL_HOW_GUESS_PID], (unsigned long long)t.how[TL_HOW_GUESS_FORK],
	       (unsigned long long)t.how[TL_HOW_TGID], (unsigned long long)t.how[TL_HOW_CLONE],
	       (unsigned long long)t.how[TL_HOW_EXEC], (unsigned long long)t.how[TL_HOW_GIVEN]);
	timeline_tasks(tl, &kguess);
	printf("  kernel threads recognized by name only: %llu\n", (unsigned long long)kguess);
	printf("  flush requests attributed to the requesting task's mm: %llu; with no user mm "
	       "(kernel thread requesting): %llu\n",
	       (unsigned long long)timeline_requests_mm_guessed(tl),
	       (unsigned long long)timeline_requests_unattributed(tl));
	if (!info->has_tgid && !info->normalized)
		printf("  tgid: not in this input; processes of tasks older than the trace are "
		       "guessed (pid as process)\n");
	printf("  mm pointers and flush ranges: not in this trace (needs kprobes on switch_mm "
	       "and the flush functions)\n");
	printf("  lost events: %llu%s\n", (unsigned long long)lost,
	       marks ? " (and sub-buffers that lost an unknown number)" : "");
	if (ts_source_skipped(src, &where))
		printf("  malformed records skipped: %llu (first: %s)\n",
		       (unsigned long long)ts_source_skipped(src, NULL), where);

	nnames = events_by_name(src, tl, &ids);
	printf("\nEvents\n");
	for (size_t i = 0; i < nnames; i++)
		printf("  %-28s %12llu\n", ts_source_str(src, ids[i]),
		       (unsigned long long)timeline_name_count(tl, ids[i]));
	free(ids);
}

static json_t *jint(uint64_t v)
{
	return json_integer((json_int_t)v);
}

static void print_json(const struct report_opts *o, struct ts_source *src, struct timeline *tl)
{
	const struct ts_source_info *info = ts_source_info(src);
	int isrc = timeline_ipi_source(tl);
	json_t *root = json_object(), *j, *arr;
	struct totals t;
	struct evidence ev[16];
	size_t nev, nmm, nnames;
	const struct tl_mm **mms;
	uint64_t lost, marks, kguess;
	uint32_t *ids;

	sum_totals(tl, isrc, &t);
	lost = timeline_lost(tl, &marks);

	j = json_object();
	json_object_set_new(j, "file", json_string(o->c.input));
	json_object_set_new(j, "format", json_string(info->format));
	json_object_set_new(j, "detail", info->detail ? json_string(info->detail) : json_null());
	json_object_set_new(j, "kernel", info->uname ? json_string(info->uname) : json_null());
	json_object_set_new(root, "input", j);

	j = json_object();
	json_object_set_new(j, "first_ns", jint(timeline_first_ts(tl)));
	json_object_set_new(j, "last_ns", jint(timeline_last_ts(tl)));
	json_object_set_new(j, "cpus", json_integer(info->cpus ? info->cpus : timeline_cpus(tl)));
	json_object_set_new(root, "span", j);
	if (o->c.has_filter) {
		j = json_object();
		json_object_set_new(j, "from_ns", jint(o->c.filter.from));
		json_object_set_new(j, "to_ns", o->c.filter.to == UINT64_MAX ? json_null() :
				    jint(o->c.filter.to));
		json_object_set_new(j, "from_relative", json_boolean(o->c.from_rel));
		json_object_set_new(j, "to_relative", json_boolean(o->c.to_rel));
		if (o->c.filter.has_cpus) {
			json_t *c = json_array();

			for (int i = 0; i < TS_MAX_CPUS; i++)
				if (ts_cpumask_test(&o->c.filter.cpus, i))
					json_array_append_new(c, json_integer(i));
			json_object_set_new(j, "cpus", c);
		}
		json_object_set_new(root, "window", j);
	}

	j = json_object();
	json_object_set_new(j, "switches", jint(t.switches));
	json_object_set_new(j, "mm_switches", jint(t.mm_switches));
	json_object_set_new(j, "mms", jint(t.mms));
	json_object_set_new(j, "flush_requests", jint(t.requests));
	json_object_set_new(j, "flush_ipis", isrc >= 0 ? jint(t.ipis) : json_null());
	json_object_set_new(j, "local_flushes", jint(t.local));
	json_object_set_new(root, "totals", j);

	arr = json_array();
	for (int i = 0; i < timeline_cpus(tl); i++) {
		const struct tl_cpu *c = timeline_cpu(tl, i);

		if (o->c.filter.has_cpus && !ts_cpumask_test(&o->c.filter.cpus, i))
			continue;
		j = json_object();
		json_object_set_new(j, "cpu", json_integer(i));
		json_object_set_new(j, "switches", jint(c->switches));
		json_object_set_new(j, "mm_switches", jint(c->mm_switches));
		json_object_set_new(j, "mms", jint(cpu_mms(tl, i)));
		json_object_set_new(j, "flush_ipis_sent", jint(ipis_sent(c, isrc)));
		json_object_set_new(j, "flush_ipis_received", jint(ipis_recv(c, isrc)));
		json_object_set_new(j, "local_flushes", jint(timeline_local_flushes(tl, i)));
		json_object_set_new(j, "flush_requests", jint(c->flush_requests));
		json_object_set_new(j, "kthread_ns", jint(c->kthread_ns));
		json_object_set_new(j, "idle_ns", jint(c->idle_ns));
		json_object_set_new(j, "lost_events", jint(c->lost));
		json_array_append_new(arr, j);
	}
	json_object_set_new(root, "cpus", arr);

	mms = sorted_mms(tl, isrc, &nmm);
	arr = json_array();
	for (size_t i = 0; i < nmm; i++) {
		const struct tl_mm *m = mms[i];

		j = json_object();
		json_object_set_new(j, "mm", json_string(m->name));
		json_object_set_new(j, "pid", json_integer(m->pid));
		json_object_set_new(j, "comm", json_string(m->comm));
		json_object_set_new(j, "identified", json_string(timeline_how_name(m->how)));
		json_object_set_new(j, "guessed", json_boolean(timeline_how_guessed(m->how)));
		json_object_set_new(j, "flush_requests", jint(m->flush_requests));
		json_object_set_new(j, "flush_ipis", jint(isrc >= 0 ? m->ipis_caused[isrc] : 0));
		json_object_set_new(j, "cpus", json_integer(ts_cpumask_weight(&m->ran_on)));
		json_object_set_new(j, "mm_switches_in", jint(m->switches_in));
		json_array_append_new(arr, j);
	}
	free(mms);
	json_object_set_new(root, "processes", arr);

	j = json_object();
	{
		json_t *tp = json_object(), *how = json_object(), *missing = json_array();

		nev = collect_evidence(src, tl, ev);
		for (size_t i = 0; i < nev; i++) {
			json_object_set_new(tp, ev[i].key, jint(ev[i].count));
			if (!ev[i].count)
				json_array_append_new(missing, json_string(ev[i].missing));
		}
		json_object_set_new(j, "tracepoints", tp);
		json_object_set_new(j, "cannot_see", missing);
		json_object_set_new(j, "flush_ipi_source", isrc >= 0 ?
				    json_string(timeline_ipi_source_name(isrc)) : json_null());
		json_object_set_new(j, "flush_ipis_sender_unknown",
				    jint(timeline_ipis_unattributed(tl, isrc)));
		for (int h = 1; h < TL_HOW__COUNT; h++)
			json_object_set_new(how, timeline_how_name(h), jint(t.how[h]));
		json_object_set_new(j, "mms_identified", how);
		json_object_set_new(j, "mms_guessed", jint(t.guessed));
		timeline_tasks(tl, &kguess);
		json_object_set_new(j, "kthreads_by_name", jint(kguess));
		json_object_set_new(j, "requests_mm_from_task", jint(timeline_requests_mm_guessed(tl)));
		json_object_set_new(j, "requests_without_mm", jint(timeline_requests_unattributed(tl)));
		json_object_set_new(j, "malformed_skipped", jint(ts_source_skipped(src, NULL)));
	}
	json_object_set_new(root, "evidence", j);

	nnames = events_by_name(src, tl, &ids);
	j = json_object();
	for (size_t i = 0; i < nnames; i++)
		json_object_set_new(j, ts_source_str(src, ids[i]), jint(timeline_name_count(tl, ids[i])));
	free(ids);
	json_object_set_new(root, "events", j);
	json_object_set_new(root, "lost_events", jint(lost));
	json_object_set_new(root, "lost_markers_without_count", jint(marks));

	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	putchar('\n');
	json_decref(root);
}

int cmd_report(int argc, char **argv)
{
	struct report_opts o;
	struct ts_source *src;
	struct timeline *tl;
	int r = report_parse_args(&o, argc, argv);

	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	r = analyze(&o.c, no_consumer, NULL, &src, &tl);
	if (!r) {
		if (o.c.json)
			print_json(&o, src, tl);
		else
			print_text(&o, src, tl);
	}
	timeline_free(tl);
	ts_source_close(src);
	return r;
}
