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
#include "report-explain.h"
#include "report-sfence.h"
#include "probes.h"

static const char report_usage[] =
	"usage: tlbscope report [--json] [-C LIST] [--from T] [--to T] [--top N]\n"
	"                       [--platform P] [--probe-map FILE] TRACE\n"
	"\n"
	"  --json          one JSON object with stable snake_case keys\n"
	"  -C, --cpu LIST  count only these CPUs (0,2-3); state is rebuilt from all of them\n"
	"  --from T        count events at or after T: seconds of the trace clock, or +T\n"
	"                  after the first event (units: s, ms, us, ns)\n"
	"  --to T          count events before T (same forms)\n"
	"  --top N         processes listed in the text table (default 20, 0 = all)\n"
	"  --platform P    price the sfence.vma account with platform P (a name or a JSON\n"
	"                  file, as tune's; default generic)\n"
	"  --probe-map FILE  kprobe events and arguments under other names: lines\n"
	"                  'EVENT = FUNCTION', 'EVENT.FIELD = ARGUMENT' (tlbscope-probes(7))\n"
	"  --strict        exit 2 when records failed the input's checks (skipped,\n"
	"                  inconsistent, escaped; each said on stderr anyway)\n"
	"  -h, --help      this text\n";

struct report_opts {
	struct common_opts c;
	int top;
	const char *platform;	/* borrowed from argv, NULL: generic */
};

/* Test hook and parse entry: fills @o, never exits.  0 ok, 1 help shown, -1 bad usage. */
static int report_parse_args(struct report_opts *o, int argc, char **argv)
{
	enum { OPT_TOP = OPT_COMMON_END, OPT_PLATFORM };
	static const struct cli_option opts[] = {
		COMMON_OPTS_JSON, COMMON_OPTS_FILTER, { "top", OPT_TOP, true },
		{ "platform", OPT_PLATFORM, true }, PROBE_MAP_OPT, STRICT_OPT, { NULL }
	};
	struct cli_parser p;
	const char *v;
	int key, r;

	memset(o, 0, sizeof(*o));
	o->top = 20;
	cli_parser_init(&p, "report", report_usage, opts, 0, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		if (key == CLI_HELP)
			return 1;
		if (key == CLI_BAD)
			return -1;
		if (key == CLI_ARG)
			r = common_input(&o->c, "report", v);
		else if (key == OPT_PLATFORM)
			o->platform = v, r = 1;
		else if (key == OPT_TOP)
			r = parse_int(v, &o->top) || o->top < 0 ?
				error("report: --top: '%s' is not a count (0 = all)", v), -1 : 1;
		else
			r = common_opt(&o->c, key, v);
		if (r < 0)
			return -1;
	}
	if (!o->c.input)
		return error("report: no trace given\n%s", report_usage), -1;
	return 0;
}

struct totals {
	uint64_t switches, mm_switches, requests, ipis, local, mms, guessed;
	uint64_t kmask_requests, kernel_targets, remote_requests, csd_flush_ipis;
	/* why the kernel's flush targets are unknown (kmask_unknown_why()), NULL when known */
	const char *kmask_unknown;
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
		t->kmask_requests += c->kmask_requests;
		t->kernel_targets += c->kernel_targets;
		t->remote_requests += c->remote_requests;
		t->csd_flush_ipis += c->ipis_sent[TL_IPI_CSD_QUEUE];
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

/* Timestamps of a text the user printed, at whatever precision it has (perf.data: --ns). */
static bool text_timestamps(const struct ts_source_info *info)
{
	return !strcmp(info->format, "ftrace-text") || !strcmp(info->format, "perf-script");
}

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

/* The kprobes of tlbscope-probes(7), by probed function, and what each one's absence hides. */
static const struct {
	const char *func, *missing;
} kprobes[] = {
	{ "switch_mm", "mm pointers: address spaces are derived from pids and clone flags, "
		       "not exact" },
	{ "__flush_tlb_range", "the kernel's own target mask, range and mm of every request "
			       "(local-only requests too)" },
	{ "flush_tlb_mm", "which caller made a whole-mm request" },
	{ "flush_tlb_mm_range", "which caller made a range request (munmap, mprotect)" },
	{ "flush_tlb_page", "which caller made a one-page request (COW)" },
	{ "flush_tlb_range", "which caller made a vma range request" },
	{ "flush_tlb_kernel_range", "kernel-range requests (vmalloc, module unload)" },
	{ "flush_tlb_all", "flush-everything requests" },
	{ "arch_tlbbatch_flush", "batched unmap flushes (reclaim, migration)" },
	{ "__ipi_flush_tlb_range_asid", "the flush each target (and the sender) runs" },
	{ "sbi_remote_sfence_vma_asid", "remote flushes handed to SBI firmware (plain virt, "
					"PLIC: no kernel IPI at all)" },
};
#define NKPROBES (sizeof(kprobes) / sizeof(kprobes[0]))

struct probe_state {
	uint64_t count[NKPROBES];
	bool defined[NKPROBES];		/* the input defines an event for it */
	uint64_t total;
	size_t ndefined_other;		/* defined kprobe events of other functions */
	bool nmi_drop;			/* defined, none recorded, sched_switch recorded */
};

static void mark_defined(struct probe_state *p, const char *func)
{
	for (size_t i = 0; func && i < NKPROBES; i++) {
		if (!strcmp(func, kprobes[i].func)) {
			p->defined[i] = true;
			return;
		}
	}
	p->ndefined_other++;
}

static void collect_probes(struct ts_source *src, struct timeline *tl, struct probe_state *p)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct ts_probe *pr;
	size_t np;

	memset(p, 0, sizeof(*p));
	for (size_t i = 0; i < NKPROBES; i++) {
		p->count[i] = timeline_probe_count(tl, ts_source_intern(src, kprobes[i].func));
		p->total += p->count[i];
	}
	/*
	 * The input's kprobe events by the function each probes, whatever their names; a
	 * JSON-lines stream has only the names of the trace it came from.
	 */
	pr = ts_source_probes(src, &np);
	for (size_t d = 0; d < np; d++)
		mark_defined(p, pr[d].func);
	if (!np)
		for (size_t d = 0; d < info->nkprobes_defined; d++)
			mark_defined(p, ts_kprobe_func(info->kprobes_defined[d]));
	for (size_t i = 0; i < NKPROBES; i++)
		p->defined[i] |= p->count[i] > 0;
	p->nmi_drop = info->nkprobes_defined && !p->total &&
		      timeline_name_count(tl, ts_source_intern(src, "sched_switch"));
}

/* "switch_mm, __flush_tlb_range, ..." of the defined kprobe events, into @buf. */
static void defined_list(struct ts_source *src, char *buf, size_t len)
{
	const struct ts_source_info *info = ts_source_info(src);
	size_t n = 0;

	buf[0] = '\0';
	for (size_t d = 0; d < info->nkprobes_defined && n + 1 < len; d++) {
		int w = snprintf(buf + n, len - n, "%s%s", d ? ", " : "", info->kprobes_defined[d]);

		if (w < 0 || (size_t)w >= len - n)
			break;
		n += (size_t)w;
	}
}

static const char nmi_drop_why[] =
	"on riscv 6.12 kprobe events are dropped in NMI context (ARCH_HAVE_NMI_SAFE_CMPXCHG "
	"missing); see tlbscope-probes(7)";

/*
 * Why the kernel's own flush targets are unknown, for "n/a (...)", or NULL when they are
 * counted: a probe of a request whose mask argument is unavailable makes every total of
 * them partial; without any mask-carrying probe they were never seen.
 */
static const char *kmask_unknown_why(struct ts_source *src, struct timeline *tl,
				     const struct totals *t)
{
	static char why[256];
	size_t n;
	const struct ts_probe *p = ts_source_probes(src, &n);
	bool mask_probe = false;

	/* the probe that makes every request first, then its callers */
	for (size_t k = 0; k < 2 * n; k++) {
		size_t i = k % n;
		const struct ts_probe_arg *a = p[i].func ? ts_probe_arg(&p[i], "mask") : NULL;

		if (!a || !strcmp(p[i].func, "sbi_remote_sfence_vma_asid") ||
		    !strcmp(p[i].func, "local_load_tlb_mm") || !strcmp(p[i].func, "local_flush_tlb_mm"))
			continue;
		if (k < n && strcmp(p[i].func, "__flush_tlb_range"))
			continue;
		mask_probe |= a->field && p[i].events;
		if (p[i].events && p[i].fields_known && !a->field) {
			snprintf(why, sizeof(why), "probe %s (%s) has no mask argument; "
				 "tlbscope probes tells more", p[i].event, p[i].func);
			return why;
		}
	}
	if (t->kmask_requests || mask_probe)
		return NULL;
	if (!timeline_kprobe_requests(tl))
		return "no flush request from a kprobe on __flush_tlb_range or its callers, which "
		       "carry the kernel's cpumask: tlbscope-probes(7)";
	return "no flush request carries the kernel's cpumask";
}

static void print_probes_text(struct ts_source *src, struct timeline *tl, const struct totals *t,
			      int isrc)
{
	const struct tl_ptr_stats *ps = timeline_ptr_stats(tl);
	struct probe_state p;
	char list[1024];

	collect_probes(src, tl, &p);
	if (!p.total && !ts_source_info(src)->nkprobes_defined) {
		printf("  kprobes on the flush path: none in this trace -> cannot see: mm pointers "
		       "(identity is derived, not exact), the kernel's own target mask and range of "
		       "each request, local-only requests%s (tlbscope-probes(7))\n",
		       timeline_arch(tl, NULL) == TL_ARCH_X86 ? "" : ", SBI remote fences");
		return;
	}
	printf("  kprobes on the flush path (tlbscope-probes(7)):\n");
	for (size_t i = 0; i < NKPROBES; i++) {
		if (p.count[i])
			printf("    %-28s %10llu\n", kprobes[i].func, (unsigned long long)p.count[i]);
		else if (p.defined[i])
			printf("    %-28s %10d  (defined, no event)\n", kprobes[i].func, 0);
		else
			printf("    %-28s    missing  -> cannot see: %s\n", kprobes[i].func,
			       kprobes[i].missing);
	}
	probes_print_problems(src, stdout, "  ");
	if (p.nmi_drop) {
		defined_list(src, list, sizeof(list));
		printf("  kprobe events for %s are defined but none were recorded: %s\n", list,
		       nmi_drop_why);
	}
	if (ps->load_mm || ps->pointers) {
		printf("  mm pointers: %llu distinct, %llu switch_mm events (%llu resolved at their "
		       "sched_switch, %llu exec), %llu reuses of an ended mm's address, %llu "
		       "owner changes, %llu tasks' guessed process corrected, %llu switches to an "
		       "exiting task that left its mm; CPUs' mm when the trace began (the prev of "
		       "their first switch_mm): %llu known, %llu named by no event (init_mm, no user mm)\n",
		       (unsigned long long)ps->pointers, (unsigned long long)ps->load_mm,
		       (unsigned long long)ps->at_switch, (unsigned long long)ps->at_exec,
		       (unsigned long long)ps->reuses, (unsigned long long)ps->owner_changes,
		       (unsigned long long)ps->adopted, (unsigned long long)ps->no_mm_switches,
		       (unsigned long long)ps->initial_known, (unsigned long long)ps->initial_unknown);
	}
	if (timeline_kprobe_requests(tl))
		printf("  flush requests from kprobes: %llu (by mm pointer %llu, pointer not yet "
		       "named by switch_mm %llu); flush_tlb_* caller events taken as evidence: "
		       "%llu\n", (unsigned long long)timeline_kprobe_requests(tl),
		       (unsigned long long)ps->requests_by_ptr,
		       (unsigned long long)ps->requests_ptr_unknown,
		       (unsigned long long)ps->callers_evidence);
	if (t->kmask_unknown && timeline_kprobe_requests(tl)) {
		printf("  kernel check: n/a (%s)\n", t->kmask_unknown);
	} else if (!t->kmask_unknown && t->kmask_requests) {
		uint64_t sbi = p.count[NKPROBES - 1];

		if (!sbi && isrc != TL_IPI_SBI &&
		    !timeline_name_count(tl, ts_source_intern(src, "csd_queue_cpu")))
			printf("  kernel check: n/a (no csd_queue_cpu and no SBI fence events to "
			       "compare the %llu kernel flush targets with)\n",
			       (unsigned long long)t->kernel_targets);
		else if (sbi || isrc == TL_IPI_SBI)
			printf("  kernel check: requests with remote targets = SBI remote fences: "
			       "%llu = %llu (%s)\n", (unsigned long long)t->remote_requests,
			       (unsigned long long)sbi,
			       t->remote_requests == sbi ? "equal" : "DIFFERENT");
		else if (t->kernel_targets == t->csd_flush_ipis || !timeline_lazy_kernel(tl))
			printf("  kernel check: remote targets in the __flush_tlb_range cpumask = "
			       "flush IPIs queued in csd events: %llu = %llu (%s)%s\n",
			       (unsigned long long)t->kernel_targets,
			       (unsigned long long)t->csd_flush_ipis,
			       t->kernel_targets == t->csd_flush_ipis ? "equal" : "DIFFERENT",
			       timeline_lazy_kernel(tl) ? "; a lazy-flush kernel (its local_load_tlb_mm "
			       "events) that deferred nothing: every target was running the mm" : "");
		else
			printf("  kernel check: remote targets in the __flush_tlb_range cpumask %llu, "
			       "flush IPIs queued in csd events %llu: a lazy-flush kernel (its "
			       "local_load_tlb_mm events), %llu targets not running the mm got no IPI "
			       "(their flush is queued)\n",
			       (unsigned long long)t->kernel_targets,
			       (unsigned long long)t->csd_flush_ipis,
			       (unsigned long long)(t->kernel_targets > t->csd_flush_ipis ?
						    t->kernel_targets - t->csd_flush_ipis : 0));
	}
}

static void print_text(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
		       struct explain *x, const struct sfence_result *sr,
		       const struct platform *pf)
{
	const struct ts_source_info *info = ts_source_info(src);
	int isrc = timeline_ipi_source(tl);
	struct totals t;
	struct evidence ev[16];
	size_t nev, nmm, nnames;
	const struct tl_mm **mms;
	uint64_t lost, marks, kguess, rows, corrected;
	uint32_t *ids;
	char a[32], b[32], d[32];
	const char *where;

	sum_totals(tl, isrc, &t);
	t.kmask_unknown = kmask_unknown_why(src, tl, &t);
	format_ns(a, sizeof(a), timeline_first_ts(tl));
	format_ns(b, sizeof(b), timeline_last_ts(tl));
	format_ns(d, sizeof(d), timeline_last_ts(tl) - timeline_first_ts(tl));
	printf("tlbscope report: %s (%s%s%s)\n", o->c.input, info->format,
	       info->detail ? ", " : "", info->detail ? info->detail : "");
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
	if (!t.kmask_unknown)
		printf("  kernel flush targets %10llu  (remote CPUs in the kernel's masks of %llu "
		       "requests)\n", (unsigned long long)t.kernel_targets,
		       (unsigned long long)t.kmask_requests);
	else if (t.requests)
		printf("  kernel flush targets        n/a  (%s)\n", t.kmask_unknown);
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
		int unobserved = 0;

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
			/* nothing recorded on it: only what others sent it (column 5) is known */
			for (int k = 1; k < 10 && !c->events && !c->lost; k++)
				row[k] = k == 5 ? row[k] : "n/a";
			unobserved += !c->events && !c->lost;
			table_add(tab, row);
		}
		table_print(tab, stdout, "  ");
		table_free(tab);
		if (unobserved)
			printf("  n/a: no event recorded there (offline, or not recorded); the IPIs "
			       "sent to it are known\n");
	}

	mms = sorted_mms(tl, isrc, &nmm);
	{
		static const char *const hdr[] = { "MM", "PID", "COMMAND", "REQUESTS",
			"IPIS_CAUSED", "CPUS", "MM_SWITCHES_IN", "IDENTIFIED" };
		struct table *tab = table_new(8, hdr, "<><>>>><");
		size_t shown = o->top && (size_t)o->top < nmm ? (size_t)o->top : nmm;

		printf("\nPer process (address space), by flush IPIs caused\n");
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

	explain_text(explain_result(x, tl, isrc), o->top);
	sfence_report_text(src, tl, sr, pf);
	printf("\nEvidence\n");
	nev = collect_evidence(src, tl, ev);
	for (size_t i = 0; i < nev; i++) {
		if (ev[i].count)
			printf("  %-20s %10llu\n", ev[i].label, (unsigned long long)ev[i].count);
		else if (!strcmp(ev[i].key, "tlb_flush") && timeline_arch(tl, NULL) == TL_ARCH_RISCV)
			printf("  %-20s   x86 only  (its flush reasons; not a RISC-V event)\n", "tlb_flush");
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
	       "tgid %llu, clone %llu, exec %llu, given %llu, pointer %llu\n",
	       (unsigned long long)t.mms, (unsigned long long)t.guessed,
	       (unsigned long long)t.how[TL_HOW_GUESS_PID], (unsigned long long)t.how[TL_HOW_GUESS_FORK],
	       (unsigned long long)t.how[TL_HOW_TGID], (unsigned long long)t.how[TL_HOW_CLONE],
	       (unsigned long long)t.how[TL_HOW_EXEC], (unsigned long long)t.how[TL_HOW_GIVEN],
	       (unsigned long long)t.how[TL_HOW_POINTER]);
	timeline_tasks(tl, &kguess);
	printf("  kernel threads recognized by name only: %llu\n", (unsigned long long)kguess);
	printf("  flush requests attributed to the requesting task's mm: %llu; with no user mm "
	       "(kernel thread requesting): %llu\n",
	       (unsigned long long)timeline_requests_mm_guessed(tl),
	       (unsigned long long)timeline_requests_unattributed(tl));
	if (text_timestamps(info))
		printf("  timestamps: as the text prints them (tracefs, perf script without --ns: "
		       "microseconds), so run times and spans have that precision, not trace.dat's "
		       "nanoseconds\n");
	/* mm pointers name every process's address space: then the tgid is not needed */
	rows = timeline_tgid_markers(tl, &corrected);
	if (rows || info->tgid_malformed)
		printf("  tgid: from the trace's task table (tlbscope-tgid markers): %llu rows, "
		       "%llu malformed, %llu correcting a guess made before them\n",
		       (unsigned long long)rows, (unsigned long long)info->tgid_malformed,
		       (unsigned long long)corrected);
	else if (!info->has_tgid && !info->normalized && (t.guessed || !t.how[TL_HOW_POINTER]))
		printf("  tgid: not in this input; processes of tasks older than the trace are "
		       "guessed (pid as process)\n");
	print_probes_text(src, tl, &t, isrc);
	printf("  lost events: %llu%s\n", (unsigned long long)lost,
	       marks ? " (and sub-buffers that lost an unknown number)" : "");
	if (ts_source_skipped(src, &where))
		printf("  malformed records skipped: %llu (first: %s)\n",
		       (unsigned long long)ts_source_skipped(src, NULL), where);
	source_checks_print(src, "  ");

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

/* @v when the trace shows it (@is_known), else null: unknown is not 0 */
static json_t *known(uint64_t is_known, uint64_t v)
{
	return is_known ? jint(v) : json_null();
}

/* evidence.kprobes, .kprobe_nmi_drop, .mm_pointers, .kernel_check (not for JSON input) */
static void json_probes(json_t *ev, struct ts_source *src, struct timeline *tl,
			const struct totals *t)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct tl_ptr_stats *ps = timeline_ptr_stats(tl);
	json_t *k = json_object(), *d = json_array(), *j;
	struct probe_state p;

	collect_probes(src, tl, &p);
	for (size_t i = 0; i < NKPROBES; i++)
		json_object_set_new(k, kprobes[i].func, p.defined[i] ? jint(p.count[i]) :
				    json_null());
	json_object_set_new(ev, "kprobes", k);
	for (size_t i = 0; i < info->nkprobes_defined; i++)
		json_array_append_new(d, json_text(info->kprobes_defined[i]));
	json_object_set_new(ev, "kprobes_defined", d);
	json_object_set_new(ev, "kprobe_nmi_drop", json_boolean(p.nmi_drop));
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
	json_object_set_new(j, "sbi_remote_fences", jint(p.count[NKPROBES - 1]));
	json_object_set_new(j, "lazy_flush_kernel", json_boolean(timeline_lazy_kernel(tl)));
	json_object_set_new(ev, "kernel_check", j);
}

/* The report as one JSON object (new reference). */
static json_t *build_json(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
			  struct explain *x, const struct sfence_result *sr,
			  const struct platform *pf)
{
	const struct ts_source_info *info = ts_source_info(src);
	int isrc = timeline_ipi_source(tl);
	json_t *root = json_object(), *j, *arr;
	struct totals t;
	struct evidence ev[16];
	size_t nev, nmm, nnames;
	const struct tl_mm **mms;
	uint64_t lost, marks, kguess, corrected;
	const char *arch, *arch_how;
	uint32_t *ids;

	sum_totals(tl, isrc, &t);
	t.kmask_unknown = kmask_unknown_why(src, tl, &t);
	lost = timeline_lost(tl, &marks);
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
	json_object_set_new(j, "flush_requests", jint(t.requests));
	json_object_set_new(j, "flush_ipis", isrc >= 0 ? jint(t.ipis) : json_null());
	json_object_set_new(j, "local_flushes", jint(t.local));
	json_object_set_new(j, "kernel_flush_targets", known(!t.kmask_unknown, t.kernel_targets));
	json_object_set_new(root, "totals", j);

	arr = json_array();
	for (int i = 0; i < timeline_cpus(tl); i++) {
		const struct tl_cpu *c = timeline_cpu(tl, i);
		bool seen = c->events || c->lost;	/* else only what others sent it is known */

		if (o->c.filter.has_cpus && !ts_cpumask_test(&o->c.filter.cpus, i))
			continue;
		j = json_pack("{s:i,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o,s:o}", "cpu", i,
			      "switches", known(seen, c->switches),
			      "mm_switches", known(seen, c->mm_switches),
			      "mms", known(seen, cpu_mms(tl, i)),
			      "flush_ipis_sent", known(isrc >= 0 && seen, ipis_sent(c, isrc)),
			      "flush_ipis_received", known(isrc >= 0, ipis_recv(c, isrc)),
			      "local_flushes", known(seen, timeline_local_flushes(tl, i)),
			      "flush_requests", known(seen, c->flush_requests),
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

	mms = sorted_mms(tl, isrc, &nmm);
	arr = json_array();
	for (size_t i = 0; i < nmm; i++) {
		const struct tl_mm *m = mms[i];

		j = json_object();
		json_object_set_new(j, "mm", json_text(m->name));
		json_object_set_new(j, "pid", json_integer(m->pid));
		json_object_set_new(j, "comm", json_text(m->comm));
		json_object_set_new(j, "identified", json_text(timeline_how_name(m->how)));
		json_object_set_new(j, "guessed", json_boolean(timeline_how_guessed(m->how)));
		json_object_set_new(j, "flush_requests", jint(m->flush_requests));
		json_object_set_new(j, "flush_ipis", known(isrc >= 0, isrc >= 0 ? m->ipis_caused[isrc] :
							   0));
		json_object_set_new(j, "cpus", json_integer(ts_cpumask_weight(&m->ran_on)));
		json_object_set_new(j, "mm_switches_in", jint(m->switches_in));
		json_object_set_new(j, "kernel_flush_targets", known(!t.kmask_unknown,
								     m->kernel_targets));
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
				json_array_append_new(missing, json_text(ev[i].missing));
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
		json_object_set_new(j, "kthreads_by_name", jint(kguess));
		json_object_set_new(j, "tgid_markers", jint(timeline_tgid_markers(tl, &corrected)));
		json_object_set_new(j, "tgid_markers_malformed", jint(info->tgid_malformed));
		json_object_set_new(j, "tgid_markers_corrected", jint(corrected));
		json_object_set_new(j, "requests_mm_from_task", jint(timeline_requests_mm_guessed(tl)));
		json_object_set_new(j, "requests_without_mm", jint(timeline_requests_unattributed(tl)));
		json_object_set_new(j, "malformed_skipped", jint(ts_source_skipped(src, NULL)));
		source_checks_json(j, src);
		json_object_set_new(j, "timestamps_as_printed",
				    json_boolean(text_timestamps(info)));
		json_probes(j, src, tl, &t);
		json_object_set_new(j, "probe_notes", probes_notes_json(src));
	}
	json_object_set_new(root, "evidence", j);

	nnames = events_by_name(src, tl, &ids);
	j = json_object();
	for (size_t i = 0; i < nnames; i++)
		json_object_set_new(j, ts_source_str(src, ids[i]), jint(timeline_name_count(tl, ids[i])));
	free(ids);
	json_object_set_new(root, "events", j);
	explain_json(explain_result(x, tl, isrc), root);
	sfence_report_json(src, tl, sr, pf, root);
	json_object_set_new(root, "lost_events", jint(lost));
	json_object_set_new(root, "lost_markers_without_count", jint(marks));
	return root;
}

/* report's analyses, each a consumer of the one resolved stream */
struct consumers {
	struct explain *x;
	struct sfence *sf;
};

static void feed_all(void *ctx, struct timeline *tl, const struct ts_event *ev)
{
	struct consumers *c = ctx;

	explain_feed(c->x, tl, ev);
	sfence_feed(c->sf, tl, ev);
}

/* report with @argv; @out: its JSON object there (new reference) instead of printed */
static int report_main(int argc, char **argv, json_t **out)
{
	struct report_opts o;
	struct ts_source *src = NULL;
	struct timeline *tl = NULL;
	struct consumers c = { NULL, NULL };
	struct platform pf;
	char err[TS_ERR_LEN];
	int r = report_parse_args(&o, argc, argv);

	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	if (platform_load(o.platform, &pf, err))
		return error("report: %s", err);
	src = ts_source_open(o.c.input, err);
	if (!src)
		r = error("%s", err);
	if (!r) {
		struct sfence_opts so = { .src = src, .flush_all_threshold = FLUSH_ALL_DEFAULT };

		c.x = explain_new(src);
		c.sf = sfence_new(&so);
		r = analyze_run(&o.c, src, feed_all, &c, &tl);
	}
	if (!r) {
		int ncpus = ts_source_info(src)->cpus ?: timeline_cpus(tl);
		const struct sfence_result *sr = sfence_result(c.sf, ncpus);

		json_t *root = out || o.c.json ? build_json(&o, src, tl, c.x, sr, &pf) : NULL;

		if (out) {
			*out = root;
		} else if (root) {
			json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(root);
		} else
			print_text(&o, src, tl, c.x, sr, &pf);
	}
	explain_free(c.x);
	sfence_free(c.sf);
	timeline_free(tl);
	ts_source_close(src);
	ts_probe_map_free();
	return r;
}

int cmd_report(int argc, char **argv)
{
	return report_main(argc, argv, NULL);
}

json_t *report_json_of(const char *path)
{
	char *argv[] = { "report", "--json", "--", (char *)path, NULL };
	json_t *j = NULL;

	if (report_main(4, argv, &j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}
