/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What `report` counts (analysis/report.c), from a finished timeline: the totals, a row per
 * CPU, the address spaces by flush IPIs caused, the evidence the trace carries and what its
 * absence hides, the kprobes on the flush path, and the one-screen summary's figures.
 * Unknown is kept apart from 0 everywhere (the *_known flags, a reason string).
 */
#ifndef TLBSCOPE_ANALYSIS_REPORT_H
#define TLBSCOPE_ANALYSIS_REPORT_H

#include "analysis.h"
#include "explain.h"

struct report_totals {
	uint64_t switches, mm_switches, requests, ipis, local, mms, guessed;
	uint64_t kmask_requests, kernel_targets, remote_requests, csd_flush_ipis;
	uint64_t csd_all_ipis;		/* of csd_flush_ipis, flush_tlb_all's (no mask) */
	/* why the kernel's flush targets are unknown, NULL when they are counted */
	const char *kmask_unknown;
	uint64_t how[TL_HOW__COUNT];
};

struct report_cpu {
	int cpu;
	bool seen;		/* an event or a loss was recorded there: else only the IPIs
				 * others sent it are known */
	uint64_t switches, mm_switches, mms, ipis_sent, ipis_recv, local, requests;
	uint64_t kthread_ns, idle_ns, lost, kernel_targets;
	double lost_share;	/* lost / (lost + recorded), 0 without losses */
	bool lossy;		/* past REPORT_LOSSY_SHARE, or losses of unknown size */
};

/* One tracepoint of the evidence block */
struct report_evidence {
	const char *name;
	uint64_t count;
	const char *missing;	/* what cannot be seen without it */
};

/* The kprobes of tlbscope-probes(7) on the flush path, by probed function */
struct report_kprobe {
	const char *func, *missing;
};
#define REPORT_NKPROBES	11
extern const struct report_kprobe report_kprobes[REPORT_NKPROBES];
#define REPORT_KPROBE_SBI	(REPORT_NKPROBES - 1)	/* sbi_remote_sfence_vma_asid */

struct report_probes {
	uint64_t count[REPORT_NKPROBES];
	bool defined[REPORT_NKPROBES];	/* the input defines an event for it */
	uint64_t total;
	size_t ndefined_other;		/* defined kprobe events of other functions */
	bool nmi_drop;			/* defined, none recorded, sched_switch recorded */
};

/* The kernel's own evidence against the IPIs counted (report_check()) */
enum report_check_kind {
	REPORT_CHECK_NONE,		/* no request carries the kernel's mask: nothing said */
	REPORT_CHECK_NO_MASK,		/* kprobe requests, but their mask is unknown (why) */
	REPORT_CHECK_NO_IPIS,		/* masks, but no csd or SBI events to compare with (why) */
	REPORT_CHECK_SBI,		/* requests with remote targets vs SBI remote fences */
	REPORT_CHECK_CSD,		/* remote targets in the masks vs csd flush IPIs */
	REPORT_CHECK_LAZY,		/* a lazy kernel: targets not running the mm got no IPI */
};

struct report_check {
	enum report_check_kind kind;
	uint64_t kernel, seen;		/* the kernel's count and the events' */
	uint64_t all;			/* REPORT_CHECK_CSD, _LAZY: flush_tlb_all's IPIs, apart */
	bool lazy_kernel;		/* local_load_tlb_mm events: a lazy-flush kernel */
	const char *why;		/* REPORT_CHECK_NO_IPIS: what is missing; static */
};

/* The one-screen summary's figures (report_result_new() with explain's result) */
#define REPORT_TOP	3
struct report_summary {
	uint64_t window_ns;		/* the time counted: the trace, or the window in it */
	double requests_per_s, ipis_per_s;	/* 0 with no time counted */
	bool rates_known;
	double ipis_per_mm_switch;	/* known with a source and mm switches */
	uint64_t not_running;		/* IPIs to CPUs whose active mm was another */
	uint64_t mm_unknown;		/* IPIs whose mm is unknown: in neither count */
	int callers[REPORT_TOP];	/* explain's callers, most IPIs first (requests when
					 * no IPI evidence) */
	int ncallers;
	int nmms;			/* of r->mms with an IPI (or a request) */
};

#define REPORT_NEVIDENCE	10
#define REPORT_LOSSY_SHARE	0.01	/* past this share of a CPU's events lost, its
					 * counts are lower bounds */

struct report_result {
	int source;			/* the flush-IPI evidence counted, -1 none */
	struct report_totals t;
	struct report_cpu *cpus;	/* the CPUs selected, in order */
	int ncpus;
	int unobserved;			/* CPUs of them with nothing recorded */
	const struct tl_mm **mms;	/* address spaces active in the window, most IPIs first */
	size_t nmms;
	struct report_evidence evidence[REPORT_NEVIDENCE];
	struct report_probes probes;
	uint64_t lost, lost_marks;	/* lost events, markers with an unknown count */
	double lost_share;		/* of all events, 0 without losses */
	int lossy_cpus;			/* CPUs past REPORT_LOSSY_SHARE (or losses of unknown size) */
	uint64_t span_ns;		/* first to last event */
	bool text_timestamps;		/* times as a text printed them (microseconds) */
	/*
	 * why flush requests and local flushes are unknown rather than 0 (kprobe events the
	 * kernel dropped, none from elsewhere), NULL when they are counted
	 */
	const char *requests_unknown;
	struct report_check check;
	struct report_summary sum;
	char why[256];			/* storage of t.kmask_unknown */
};

/*
 * The report of @tl (finished) read from @src, for the window and CPUs of @f (NULL: all),
 * with @x's explanation (for the same source) in its summary.  New: free with
 * report_result_free().
 */
struct report_result *report_result_new(struct ts_source *src, struct timeline *tl,
					const struct tl_filter *f, const struct explain_result *x);
void report_result_free(struct report_result *r);

/* "switch_mm, __flush_tlb_range, ..." of the input's defined kprobe events, into @buf. */
void report_defined_list(struct ts_source *src, char *buf, size_t len);

#endif
