// SPDX-License-Identifier: GPL-2.0-only
/*
 * report as text for people (analysis/report.h's result, explain's sections and the
 * sfence.vma account): the totals, a table per CPU and per process, why the IPIs happen,
 * the evidence block and the events by name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "report.h"
#include "probes.h"

static const char nmi_drop_why[] =
	"on riscv 6.12 kprobe events are dropped in NMI context (ARCH_HAVE_NMI_SAFE_CMPXCHG "
	"missing); see tlbscope-probes(7)";

static void print_probes_text(struct ts_source *src, struct timeline *tl,
			      const struct report_result *r)
{
	const struct tl_ptr_stats *ps = timeline_ptr_stats(tl);
	const struct report_totals *t = &r->t;
	const struct report_probes *p = &r->probes;
	char list[1024];

	if (!p->total && !ts_source_info(src)->nkprobes_defined) {
		printf("  kprobes on the flush path: none in this trace -> cannot see: mm pointers "
		       "(identity is derived, not exact), the kernel's own target mask and range of "
		       "each request, local-only requests%s (tlbscope-probes(7))\n",
		       timeline_arch(tl, NULL) == TL_ARCH_X86 ? "" : ", SBI remote fences");
		return;
	}
	printf("  kprobes on the flush path (tlbscope-probes(7)):\n");
	for (size_t i = 0; i < REPORT_NKPROBES; i++) {
		if (p->count[i])
			printf("    %-28s %10llu\n", report_kprobes[i].func, (unsigned long long)p->count[i]);
		else if (p->defined[i])
			printf("    %-28s %10d  (defined, no event)\n", report_kprobes[i].func, 0);
		else
			printf("    %-28s    missing  -> cannot see: %s\n", report_kprobes[i].func,
			       report_kprobes[i].missing);
	}
	probes_print_problems(src, stdout, "  ");
	if (p->nmi_drop) {
		report_defined_list(src, list, sizeof(list));
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
	switch (r->check.kind) {
	case REPORT_CHECK_NONE:
		break;
	case REPORT_CHECK_NO_MASK:
		printf("  kernel check: n/a (%s)\n", t->kmask_unknown);
		break;
	case REPORT_CHECK_NO_IPIS:
		printf("  kernel check: n/a (%llu kernel flush targets; %s)\n",
		       (unsigned long long)r->check.kernel, r->check.why);
		break;
	case REPORT_CHECK_SBI:
		printf("  kernel check: requests with remote targets = SBI remote fences: "
		       "%llu = %llu (%s)\n", (unsigned long long)r->check.kernel,
		       (unsigned long long)r->check.seen,
		       r->check.kernel == r->check.seen ? "equal" : "DIFFERENT");
		break;
	case REPORT_CHECK_CSD:
		printf("  kernel check: remote targets in the __flush_tlb_range cpumask = "
		       "flush IPIs queued in csd events: %llu = %llu (%s)%s\n",
		       (unsigned long long)r->check.kernel, (unsigned long long)r->check.seen,
		       r->check.kernel == r->check.seen ? "equal" : "DIFFERENT",
		       r->check.lazy_kernel ? "; a lazy-flush kernel (its local_load_tlb_mm "
		       "events) that deferred nothing: every target was running the mm" : "");
		break;
	case REPORT_CHECK_LAZY:
		printf("  kernel check: remote targets in the __flush_tlb_range cpumask %llu, "
		       "flush IPIs queued in csd events %llu: a lazy-flush kernel (its "
		       "local_load_tlb_mm events), %llu targets not running the mm got no IPI "
		       "(their flush is queued)\n",
		       (unsigned long long)r->check.kernel, (unsigned long long)r->check.seen,
		       (unsigned long long)(r->check.kernel > r->check.seen ?
					    r->check.kernel - r->check.seen : 0));
		break;
	}
	if ((r->check.kind == REPORT_CHECK_CSD || r->check.kind == REPORT_CHECK_LAZY) &&
	    r->check.all)
		printf("  and %llu flush IPIs of flush_tlb_all, not counted above: it interrupts "
		       "every online CPU, with no cpumask to check them against\n",
		       (unsigned long long)r->check.all);
}

/*
 * A summary line of "name count" items that stops at 80 columns: the first item always,
 * the next ones while they fit with the unit after them.
 */
#define SUMMARY_WIDTH	80
struct top_line {
	char buf[SUMMARY_WIDTH * 4 + 1];	/* room for names in UTF-8 */
	size_t len;
	int cols, items;
};

static struct top_line top_line_start(const char *head)
{
	struct top_line l = { .cols = (int)strlen(head) };

	l.len = (size_t)snprintf(l.buf, sizeof(l.buf), "%s", head);
	return l;
}

static void top_line_add(struct top_line *l, const char *name, uint64_t n)
{
	char item[SUMMARY_WIDTH * 4];
	int w = snprintf(item, sizeof(item), "%s %s %llu", l->items ? "," : "", name,
			 (unsigned long long)n);
	int cols = 0;

	for (const char *p = item; *p; p++)
		cols += ((unsigned char)*p & 0xc0) != 0x80;
	/* the unit (" requests") must still fit after it */
	if (w < 0 || (l->items && l->cols + cols + 9 > SUMMARY_WIDTH) ||
	    l->len + (size_t)w >= sizeof(l->buf))
		return;
	memcpy(l->buf + l->len, item, (size_t)w + 1);
	l->len += (size_t)w;
	l->cols += cols;
	l->items++;
}

static void top_line_end(const struct top_line *l, const char *unit)
{
	printf("%s %s\n", l->buf, unit);
}

/* "p1 init" of an address space: its name and the command of its process */
static void mm_label(char *buf, size_t len, const struct tl_mm *m)
{
	snprintf(buf, len, "%s %s", m ? m->name : "?", m ? m->comm : "?");
}

/* The input checks in one summary line, when any record failed one (stderr says which). */
static void checks_warning(struct ts_source *src)
{
	uint64_t skipped = 0, kept = 0;

	for (int c = 0; c < TS_CHK__COUNT; c++)
		*(ts_check_skips(c) ? &skipped : &kept) += ts_source_checked(src, c, NULL);
	if (skipped || kept)
		printf("  warning: input checks skipped %llu records, kept %llu as found "
		       "(stderr)\n", (unsigned long long)skipped, (unsigned long long)kept);
}

/* A rate when the time counted is known, else nothing (the count stands alone). */
static void rate(char *buf, size_t len, bool known, double per_s)
{
	if (known)
		snprintf(buf, len, "%.1f/s", per_s);
	else
		snprintf(buf, len, "rate n/a: no time between the first and last event");
}

/* The flush IPIs to CPUs not running the mm: of those whose mm is known, when any is. */
static void print_not_running(const struct report_totals *t, const struct report_summary *s)
{
	if (s->mm_unknown >= t->ipis)
		printf("    to CPUs not running the mm: unknown (no IPI's sender seen)\n");
	else if (s->mm_unknown)
		printf("    to CPUs not running the mm: %llu of the %llu with a known mm "
		       "(%.1f %%)\n", (unsigned long long)s->not_running,
		       (unsigned long long)(t->ipis - s->mm_unknown),
		       100.0 * s->not_running / (t->ipis - s->mm_unknown));
	else
		printf("    to CPUs not running the mm: %llu (%.1f %%), what lazy flushing "
		       "queues\n", (unsigned long long)s->not_running,
		       100.0 * s->not_running / t->ipis);
}

/*
 * The first screen: what a person needs before the tables, at 80 columns - the flush
 * counts and rates, where the IPIs went, who caused them, the worst moment, whether the
 * kernel's own masks agree, and the warnings that change how to read the rest.
 */
static void print_summary(struct ts_source *src, struct timeline *tl,
			  const struct report_result *r, const struct explain_result *x)
{
	const struct report_summary *s = &r->sum;
	const struct report_totals *t = &r->t;
	enum tl_arch arch = timeline_arch(tl, NULL);
	char a[96], b[96];

	printf("\nSummary (%s%s", arch == TL_ARCH_UNKNOWN ? "arch unknown" :
	       timeline_arch_name(arch), arch == TL_ARCH_UNKNOWN ? "" : " kernel");
	printf(")\n");
	if (r->lossy_cpus)
		printf("  warning: %llu events lost (%.1f %%%s): counts, times and rates are "
		       "lower bounds\n", (unsigned long long)r->lost, 100.0 * r->lost_share,
		       r->lost_marks ? " and more" : "");
	if (r->unobserved)
		printf("  warning: %d CPU%s recorded nothing: n/a in the tables\n", r->unobserved,
		       r->unobserved > 1 ? "s" : "");
	rate(a, sizeof(a), s->rates_known, s->requests_per_s);
	if (r->requests_unknown)
		printf("  flush requests         n/a  (%s)\n", r->probes.nmi_drop ?
		       "kprobe events dropped" : "no event shows one");
	else if (t->requests && timeline_csd_requests(tl) == t->requests)
		printf("  flush requests  %10llu  (%s; from csd IPIs, local-only unseen)\n",
		       (unsigned long long)t->requests, a);
	else
		printf("  flush requests  %10llu  (%s)\n", (unsigned long long)t->requests, a);
	if (r->source >= 0) {
		rate(a, sizeof(a), s->rates_known, s->ipis_per_s);
		if (t->mm_switches)
			snprintf(b, sizeof(b), ", %.3f per mm switch", s->ipis_per_mm_switch);
		else
			b[0] = '\0';
		printf("  flush IPIs      %10llu  (%s%s)\n", (unsigned long long)t->ipis, a, b);
		printf("    counted from  %s\n", timeline_ipi_source_name(r->source));
		if (t->ipis && arch != TL_ARCH_X86)
			print_not_running(t, s);
	} else {
		printf("  flush IPIs             n/a  (no csd, ipi or tlb_flush event names a "
		       "flush)\n");
	}
	if (r->requests_unknown)
		printf("  local flushes          n/a  (%s)\n", r->probes.nmi_drop ?
		       "kprobe events dropped" : "as flush requests");
	else
		printf("  local flushes   %10llu\n", (unsigned long long)t->local);
	printf("  switches        %10llu  (%llu changed the mm; %llu address spaces)\n",
	       (unsigned long long)t->switches, (unsigned long long)t->mm_switches,
	       (unsigned long long)t->mms);
	if (s->ncallers) {
		struct top_line l = top_line_start("  top callers    ");

		for (int i = 0; i < s->ncallers; i++) {
			const struct explain_caller *c = &x->callers[s->callers[i]];

			top_line_add(&l, c->name, r->source >= 0 ? c->ipis : c->requests);
		}
		top_line_end(&l, r->source >= 0 ? "IPIs" : "requests");
	}
	if (s->nmms) {
		struct top_line l = top_line_start("  top processes  ");

		for (int i = 0; i < s->nmms; i++) {
			const struct tl_mm *m = r->mms[i];

			mm_label(a, sizeof(a), m);
			top_line_add(&l, a, r->source >= 0 ? m->ipis_caused[r->source] :
				     m->flush_requests);
		}
		top_line_end(&l, r->source >= 0 ? "IPIs" : "requests");
	}
	if (r->source >= 0 && x->nworst) {
		format_ns(a, sizeof(a), x->worst[0].start);
		mm_label(b, sizeof(b), x->worst[0].top_mm);
		if (x->worst[0].top_mm)
			printf("  worst 10 ms     %llu IPIs at %s s, most from %s\n",
			       (unsigned long long)x->worst[0].ipis, a, b);
		else
			printf("  worst 10 ms     %llu IPIs at %s s, none for a process's mm\n",
			       (unsigned long long)x->worst[0].ipis, a);
	}
	switch (r->check.kind) {
	case REPORT_CHECK_SBI:
	case REPORT_CHECK_CSD:
		printf("  kernel check    %s: %llu = %llu (%s)\n",
		       r->check.kind == REPORT_CHECK_SBI ? "remote requests = SBI fences" :
		       "mask targets = csd flush IPIs", (unsigned long long)r->check.kernel,
		       (unsigned long long)r->check.seen,
		       r->check.kernel == r->check.seen ? "equal" : "DIFFERENT");
		break;
	case REPORT_CHECK_LAZY:
		printf("  kernel check    lazy kernel: %llu mask targets, %llu IPIs (rest queued)\n",
		       (unsigned long long)r->check.kernel, (unsigned long long)r->check.seen);
		break;
	case REPORT_CHECK_NO_MASK:
	case REPORT_CHECK_NO_IPIS:
		printf("  kernel check    n/a (the Evidence section says why)\n");
		break;
	case REPORT_CHECK_NONE:
		break;
	}
	if ((r->check.kind == REPORT_CHECK_CSD || r->check.kind == REPORT_CHECK_LAZY) &&
	    r->check.all)
		printf("                  + %llu IPIs of flush_tlb_all (every CPU, no mask)\n",
		       (unsigned long long)r->check.all);
	if (r->probes.nmi_drop)
		printf("  warning: the kprobe events were dropped (Evidence says why)\n");
	checks_warning(src);
	if (r->requests_unknown && r->probes.nmi_drop)
		printf("  next: tlbscope record --kprobes-via perf, then tune its .perf.data\n");
	else if (r->requests_unknown)
		printf("  next: tlbscope record (its kprobes show the flush requests), then "
		       "tlbscope tune\n");
	else if (arch != TL_ARCH_X86)
		printf("  next: tlbscope tune TRACE (MAX_LOADED_MM and queue to set)\n");
}

void report_text(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
		 const struct report_result *r, const struct explain_result *x,
		 const struct sfence_result *sr, const struct platform *pf)
{
	const struct ts_source_info *info = ts_source_info(src);
	const struct report_totals t = r->t;
	int isrc = r->source;
	size_t nnames;
	uint64_t lost = r->lost, marks = r->lost_marks, kguess, rows, corrected;
	uint32_t *ids;
	char a[32], b[32], d[32];
	const char *where;
	size_t width;

	format_ns(a, sizeof(a), timeline_first_ts(tl));
	format_ns(b, sizeof(b), timeline_last_ts(tl));
	format_ns(d, sizeof(d), timeline_last_ts(tl) - timeline_first_ts(tl));
	/* the first screen is 80 columns: a long path puts the format under it */
	width = strlen("tlbscope report:  ()") + strlen(o->c.input) + strlen(info->format) +
		(info->detail ? strlen(", ") + strlen(info->detail) : 0);
	printf("tlbscope report: %s%s(%s%s%s)\n", o->c.input, width > SUMMARY_WIDTH ? "\n    " : " ",
	       info->format, info->detail ? ", " : "", info->detail ? info->detail : "");
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
	print_summary(src, tl, r, x);
	if (o->quiet)
		return;
	printf("\nTotals\n");
	printf("  context switches   %12llu\n", (unsigned long long)t.switches);
	printf("  mm switches        %12llu\n", (unsigned long long)t.mm_switches);
	printf("  address spaces     %12llu  (%llu identified by guesses)\n",
	       (unsigned long long)t.mms, (unsigned long long)t.guessed);
	if (r->requests_unknown)
		printf("  flush requests              n/a  (%s)\n", r->requests_unknown);
	else if (t.requests && timeline_csd_requests(tl) == t.requests)
		printf("  flush requests     %12llu  (grouped from csd IPIs, local-only ones "
		       "unseen)\n", (unsigned long long)t.requests);
	else
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
	if (r->requests_unknown)
		printf("  local flushes               n/a  (the same)\n");
	else
		printf("  local flushes      %12llu\n", (unsigned long long)t.local);
	printf("  lost events        %12llu%s\n", (unsigned long long)lost,
	       marks ? "  (plus sub-buffers that lost an unknown number)" : "");

	{
		static const char *const hdr[] = { "CPU", "SWITCHES", "MM_SWITCHES", "MMS",
			"IPIS_SENT", "IPIS_RECV", "LOCAL_FLUSH", "REQUESTS", "KTHREAD_S", "IDLE_S" };
		struct table *tab = table_new(10, hdr, ">>>>>>>>>>");

		printf("\nPer CPU\n");
		for (int i = 0; i < r->ncpus; i++) {
			const struct report_cpu *c = &r->cpus[i];
			char v[10][32];
			const char *row[10];

			snprintf(v[0], 32, "%d", c->cpu);
			snprintf(v[1], 32, "%llu", (unsigned long long)c->switches);
			snprintf(v[2], 32, "%llu", (unsigned long long)c->mm_switches);
			snprintf(v[3], 32, "%llu", (unsigned long long)c->mms);
			snprintf(v[4], 32, "%llu", (unsigned long long)c->ipis_sent);
			snprintf(v[5], 32, "%llu", (unsigned long long)c->ipis_recv);
			snprintf(v[6], 32, "%llu", (unsigned long long)c->local);
			snprintf(v[7], 32, "%llu", (unsigned long long)c->requests);
			format_ns(v[8], 32, c->kthread_ns);
			format_ns(v[9], 32, c->idle_ns);
			for (int k = 0; k < 10; k++)
				row[k] = v[k];
			/* nothing recorded on it: only what others sent it (column 5) is known */
			for (int k = 1; k < 10 && !c->seen; k++)
				row[k] = k == 5 ? row[k] : "n/a";
			if (r->requests_unknown)
				row[6] = row[7] = "n/a";
			if (r->source < 0)
				row[4] = row[5] = "n/a";	/* no IPI evidence: not 0 */
			table_add(tab, row);
		}
		table_print(tab, stdout, "  ");
		table_free(tab);
		if (r->unobserved)
			printf("  n/a: no event recorded there (offline, or not recorded); the IPIs "
			       "sent to it are known\n");
		if (r->lossy_cpus) {
			printf("  lost events on CPU");
			for (int i = 0, n = 0; i < r->ncpus; i++)
				if (r->cpus[i].lossy)
					printf("%s %d (%.1f %%%s)", n++ ? "," : "", r->cpus[i].cpu,
					       100.0 * r->cpus[i].lost_share,
					       r->cpus[i].lost_share > REPORT_LOSSY_SHARE ? "" :
					       ", and sub-buffers that lost an unknown number");
			printf(": their counts and times are lower bounds\n");
		}
	}

	{
		static const char *const hdr[] = { "MM", "PID", "COMMAND", "REQUESTS",
			"IPIS_CAUSED", "CPUS", "MM_SWITCHES_IN", "IDENTIFIED" };
		struct table *tab = table_new(8, hdr, "<><>>>><");
		size_t nmm = r->nmms, shown = o->top && (size_t)o->top < nmm ? (size_t)o->top : nmm;

		printf("\nPer process (address space), by flush IPIs caused\n");
		for (size_t i = 0; i < shown; i++) {
			const struct tl_mm *m = r->mms[i];
			char v[8][40];
			const char *row[8];

			snprintf(v[0], 40, "%s", m->name);
			snprintf(v[1], 40, "%d", m->pid);
			snprintf(v[2], 40, "%s", m->comm);
			if (r->requests_unknown)
				snprintf(v[3], 40, "n/a");
			else
				snprintf(v[3], 40, "%llu", (unsigned long long)m->flush_requests);
			if (isrc >= 0)
				snprintf(v[4], 40, "%llu", (unsigned long long)m->ipis_caused[isrc]);
			else
				snprintf(v[4], 40, "n/a");
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
		if (nmm)
			printf("  pN: the address space of process (tgid) N; pN.K its K-th after the "
			       "first (each exec starts one)\n");
	}

	explain_text(x, o->top, !r->requests_unknown);
	sfence_report_text(src, tl, sr, pf);
	printf("\nEvidence\n");
	for (size_t i = 0; i < REPORT_NEVIDENCE; i++) {
		const struct report_evidence *e = &r->evidence[i];

		if (e->count)
			printf("  %-20s %10llu\n", e->name, (unsigned long long)e->count);
		else if (!strcmp(e->name, "tlb_flush") && timeline_arch(tl, NULL) == TL_ARCH_RISCV)
			printf("  %-20s   x86 only  (its flush reasons; not a RISC-V event)\n", "tlb_flush");
		else
			printf("  %-20s    missing  -> cannot see: %s\n", e->name, e->missing);
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
	if (info->normalized)
		printf("  kernel threads recognized by name only: n/a (the JSON lines give every "
		       "switch's mm)\n");
	else
		printf("  kernel threads recognized by name only: %llu\n", (unsigned long long)kguess);
	if (r->requests_unknown)
		printf("  flush requests attributed to the requesting task's mm: n/a (the requests "
		       "are unknown)\n");
	else
		printf("  flush requests attributed to the requesting task's mm: %llu; with no user "
		       "mm (kernel thread requesting): %llu\n",
		       (unsigned long long)timeline_requests_mm_guessed(tl),
		       (unsigned long long)timeline_requests_unattributed(tl));
	if (r->text_timestamps)
		printf("  timestamps: as the text prints them (tracefs, perf script without --ns: "
		       "microseconds), so run times and spans have that precision, not trace.dat's "
		       "nanoseconds\n");
	/* mm pointers name every process's address space: then the tgid is not needed */
	rows = timeline_tgid_markers(tl, &corrected);
	if (rows && info->normalized)
		printf("  tgid: from the trace's task table (tlbscope-tgid markers): %llu rows; "
		       "malformed and correcting a guess n/a (the JSON lines keep the rows read, "
		       "their mms given)\n", (unsigned long long)rows);
	else if (rows || info->tgid_malformed)
		printf("  tgid: from the trace's task table (tlbscope-tgid markers): %llu rows, "
		       "%llu malformed, %llu correcting a guess made before them\n",
		       (unsigned long long)rows, (unsigned long long)info->tgid_malformed,
		       (unsigned long long)corrected);
	else if (info->normalized ? t.guessed > 0 :
		 !info->has_tgid && (t.guessed || !t.how[TL_HOW_POINTER]))
		printf("  tgid: not in this input; processes of tasks older than the trace are "
		       "guessed (pid as process)\n");
	print_probes_text(src, tl, r);
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

