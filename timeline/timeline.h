/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * timeline/ - per-CPU reconstruction from the normalized stream: what ran where and when,
 * which address space (mm) every task used (docs/design.md section 3 identity rules, each mm
 * with a note of how it was identified), and every flush request, local flush and flush IPI
 * the trace shows, attributed to the sending CPU and process.  The timeline resolves each
 * event and hands it on (with mm ids filled in) to one consumer callback, so analyses are
 * consumers of the same stream.
 */
#ifndef TLBSCOPE_TIMELINE_H
#define TLBSCOPE_TIMELINE_H

#include "../parsers/parsers.h"

/* How an mm's identity was established; TL_HOW_GUESS_* are the guesses. */
enum tl_how {
	TL_HOW_NONE,
	TL_HOW_GIVEN,		/* named by the input (JSON lines, switch_mm probes) */
	TL_HOW_TGID,		/* the trace's tgid column */
	TL_HOW_CLONE,		/* task_newtask clone flags */
	TL_HOW_EXEC,		/* sched_process_exec started it */
	TL_HOW_GUESS_FORK,	/* sched_process_fork without clone flags: assumed a new process */
	TL_HOW_GUESS_PID,	/* task first seen mid-trace: its pid taken as its process */
	/*
	 * the kernel's mm pointer (switch_mm kprobe), bound to the process that switches to
	 * it until that mm ends (exit, exec) or another process switches to the address
	 */
	TL_HOW_POINTER,
	TL_HOW__COUNT
};

/* Which event proves a flush IPI; the best one the trace has is chosen per trace. */
enum tl_ipi_ev {
	TL_IPI_CSD_QUEUE,	/* sender side, one per target, names the function */
	TL_IPI_CSD_ENTRY,	/* target side, names the function */
	TL_IPI_MASK,		/* ipi_send_cpu/cpumask with a flush callback */
	TL_IPI_TLB_FLUSH,	/* x86 tlb_flush "remote shootdown" on the target */
	TL_IPI_SBI,		/* riscv SBI remote fence (kprobe): one per remote hart in its mask */
	TL_IPI__COUNT
};

struct tl_cpu {
	uint64_t switches;		/* sched_switch events */
	uint64_t mm_switches;		/* switches that changed the CPU's active mm */
	uint64_t flush_requests;	/* flush requests made on this CPU */
	uint64_t ipis_sent[TL_IPI__COUNT];
	uint64_t ipis_received[TL_IPI__COUNT];
	uint64_t local_flushes;		/* flushes this CPU did for itself (flush events) */
	uint64_t local_flushes_csd;	/* its own call of a cross-call flush (csd == NULL) */
	uint64_t kthread_ns;		/* time running kernel threads other than idle */
	uint64_t idle_ns;		/* time in the idle task */
	uint64_t events;
	uint64_t lost;			/* events lost on this CPU (lost markers) */
	uint64_t lost_marks;		/* lost markers with an unknown count */
	/* kprobe facts (tlbscope-probes(7)); 0 without those probes */
	uint64_t kmask_requests;	/* requests carrying the kernel's own target mask */
	uint64_t kernel_targets;	/* remote CPUs in those masks (mask minus this CPU) */
	uint64_t remote_requests;	/* requests whose kernel mask has a remote CPU */
	uint64_t flushes_received_kprobe;	/* __ipi_flush_tlb_range_asid run for another CPU */
	uint64_t csd_all_ipis;		/* of ipis_sent[TL_IPI_CSD_QUEUE], those of a function
					 * that flushes everything (flush_tlb_all's): no mask */
};

struct tl_mm {
	char name[32];			/* "p1234", "p1234.1" after an exec, or the input's name */
	char comm[TS_COMM_LEN];		/* command of its first task */
	int32_t pid;			/* its process (tgid), -1 unknown */
	uint8_t how;			/* enum tl_how */
	bool exited;
	uint64_t first_ts;
	struct ts_cpumask ran_on;	/* CPUs that ever switched to it = stock mm_cpumask */
	struct ts_cpumask counted_on;	/* CPUs that switched to it inside the filter */
	uint64_t flush_requests;
	uint64_t ipis_caused[TL_IPI__COUNT];
	uint64_t switches_in;		/* mm switches to it */
	uint64_t mm_ptr;		/* the kernel's struct mm_struct * (TL_HOW_POINTER), else 0 */
	uint64_t kernel_targets;	/* remote CPUs in the kernel masks of its flush requests */
	uint64_t seq;			/* the order mms were made in: the id, unless ids are
					 * given back (timeline_recycle_mms()) */
};

/* mm identity from switch_mm pointers (all 0 when the trace has no switch_mm probe). */
struct tl_ptr_stats {
	uint64_t load_mm;		/* switch_mm events */
	uint64_t at_switch;		/* resolved with the sched_switch just before them */
	uint64_t at_exec;		/* exec's activate_mm: the new mm of the exec'ing process */
	uint64_t pointers;		/* distinct pointers */
	uint64_t reuses;		/* an ended mm's address given to a new mm */
	uint64_t owner_changes;		/* another process switched to a live mm's address */
	uint64_t adopted;		/* tasks whose guessed process the pointer corrected */
	uint64_t requests_by_ptr;	/* flush requests attributed by their mm pointer */
	uint64_t requests_ptr_unknown;	/* with a pointer no switch_mm had named */
	uint64_t callers_evidence;	/* flush_tlb_* events counted as evidence, not requests */
	uint64_t no_mm_switches;	/* switches to a user task with no switch_mm: it left its
					 * mm (exiting) and keeps the CPU's, as a kernel thread */
	uint64_t initial_known;		/* CPUs whose mm at the trace's start is known (the prev
					 * of their first switch_mm names a user mm) */
	uint64_t initial_unknown;	/* a user mm no event of the trace named (or none) */
};

struct tl_filter {
	uint64_t from, to;		/* count events with from <= ts < to (ns, trace clock) */
	bool has_cpus;
	struct ts_cpumask cpus;		/* count only these CPUs */
};

struct timeline;

/* Called once per resolved event; @ev is borrowed for the call. */
typedef void (*tl_emit_fn)(void *ctx, struct timeline *tl, const struct ts_event *ev);

/**
 * timeline_new - reconstruction state for events read from @src
 * @src: borrowed; must outlive the timeline (mm names given by the input live there)
 * @filter: may be NULL; counters then cover the whole trace (state always does)
 * Returns a timeline to be freed with timeline_free().
 */
struct timeline *timeline_new(struct ts_source *src, const struct tl_filter *filter);
void timeline_free(struct timeline *tl);

/*
 * timeline_feed - resolve one event (mm ids, flush role) and update state and counters.
 * @ev: read from the source, modified in place.  @emit gets the resolved event and any
 * event the timeline derives from it (flush requests grouped from csd_queue_cpu).
 */
void timeline_feed(struct timeline *tl, struct ts_event *ev, tl_emit_fn emit, void *ctx);
/* End of input: close per-CPU intervals at the last timestamp, flush the lookahead. */
void timeline_finish(struct timeline *tl, tl_emit_fn emit, void *ctx);
/*
 * timeline_release - process the events waiting in the lookahead that are older than
 * @before (ns of the trace clock), through @emit as timeline_feed() would.  The lookahead
 * holds up to LOOKAHEAD (8192) events, however old: a consumer that shows the state while
 * the input goes on (top, live or paced) calls this to bound it in time as well, or a
 * slow stream (an idle machine, a sparse trace) shows nothing until thousands of events
 * have come.  Those events are then resolved with the events after them so far only.
 * A settled input (ts_source_info()) has no lookahead: each event is processed as fed.
 */
void timeline_release(struct timeline *tl, uint64_t before, tl_emit_fn emit, void *ctx);

int timeline_cpus(const struct timeline *tl);		/* highest CPU seen + 1 */
/* The mm of the task @cpu runs now (0: a kernel thread, or none known). */
uint32_t timeline_current_mm(struct timeline *tl, int cpu);
/*
 * The mm a target-side flush IPI on @cpu is attributed to (csd_function_entry, x86's
 * tlb_flush of a shootdown): what ran on the last CPU that sent @cpu a cross-call, when it
 * sent it, into *@mm (0: a kernel thread).  false when no cross-call to @cpu was seen.
 */
bool timeline_ipi_sender_mm(struct timeline *tl, int cpu, uint32_t *mm);
/* Is an event of @cpu (-1: of no CPU) at @ts inside the filter the counters cover? */
bool timeline_counted(const struct timeline *tl, int cpu, uint64_t ts);
const struct tl_cpu *timeline_cpu(const struct timeline *tl, int cpu);
uint32_t timeline_mm_count(const struct timeline *tl);	/* ids 1..count-1 are valid */

/*
 * Giving ended mms' ids back, for a consumer that runs for ever (live top): the ids, and so
 * every table indexed by them, then stay as many as the address spaces that live, however
 * many come and go.  Off by default: an id names one mm for the timeline's whole life.
 * On, an ended mm's id is taken by a new mm once nothing can name the old one again:
 * no task (a task that exited and was switched out TL_GONE_NS ago is taken to be gone;
 * were it to run again, its mm is one ended mm that stands for all such), no CPU's loaded
 * mm or last cross-call, no map of the timeline, and nothing @mark says the consumer
 * holds.  @release is called just before the id is given to a new mm, with the old one's
 * tl_mm still readable: a consumer resets what it keeps per id (or keeps a copy).  Ids
 * the input named (TL_HOW_GIVEN) are never given back.
 */
struct tl_recycle {
	void (*mark)(void *ctx, uint8_t *held, size_t n);	/* held[id] = 1, id < n */
	void (*release)(void *ctx, struct timeline *tl, uint32_t id);
	void *ctx;
};
#define TL_GONE_NS	1000000000ULL
void timeline_recycle_mms(struct timeline *tl, const struct tl_recycle *r);
/* ids given back to new mms so far (0 unless timeline_recycle_mms()) */
uint64_t timeline_mms_recycled(const struct timeline *tl);
const struct tl_mm *timeline_mm(const struct timeline *tl, uint32_t id);
uint64_t timeline_first_ts(const struct timeline *tl);
uint64_t timeline_last_ts(const struct timeline *tl);
uint64_t timeline_lost(const struct timeline *tl, uint64_t *unknown_marks);

/*
 * Local flushes of @cpu from the best evidence: x86 tlb_flush traces every local flush
 * (the local leg of a cross-call too, which csd_function_entry shows a second time), so
 * csd counts are used only when the trace has no flush events.
 */
uint64_t timeline_local_flushes(const struct timeline *tl, int cpu);

/* Events by tracepoint name: name string ids of the source with their counts. */
uint64_t timeline_name_count(const struct timeline *tl, uint32_t name);
/* Events of kind @src_kind that were seen at all (the evidence block). */
uint64_t timeline_evidence(const struct timeline *tl, enum ts_evsrc src, bool tlb_only);
/* The flush-IPI evidence chosen for this trace, or -1 when the trace has none. */
int timeline_ipi_source(const struct timeline *tl);
/*
 * The flush IPIs a resolved event stands for, by the rule the timeline counts them with:
 * @fn(ctx, tl, source, from, to, ts) for each, source a TL_IPI_* and from -1 when the
 * sender is unknown.  Which source a trace counts is timeline_ipi_source()'s.
 */
typedef void (*tl_flush_ipi_fn)(void *ctx, struct timeline *tl, int src, int from, int to,
				uint64_t ts);
void timeline_flush_ipis_each(const struct ts_event *ev, struct timeline *tl, tl_flush_ipi_fn fn,
			      void *ctx);
const char *timeline_ipi_source_name(int src);
const char *timeline_how_name(enum tl_how how);
bool timeline_how_guessed(enum tl_how how);
/* Requests whose mm was the requesting task's (no mm in the event): a guess. */
uint64_t timeline_requests_mm_guessed(const struct timeline *tl);
/* Requests made while a kernel thread ran: no user mm to attribute. */
uint64_t timeline_requests_unattributed(const struct timeline *tl);
uint64_t timeline_ipis_unattributed(const struct timeline *tl, int src);
const struct tl_ptr_stats *timeline_ptr_stats(const struct timeline *tl);
/*
 * The trace has local_load_tlb_mm events (a lazy-flush kernel's table loads): a CPU takes
 * an mm at that event (LOAD_MM with u.load.commit), not at its sched_switch.
 */
bool timeline_load_commits(const struct timeline *tl);
/*
 * The trace is of a kernel with the lazy TLB flush series: its table loads or its
 * evictions (local_load_tlb_mm, local_flush_tlb_mm probes) are in it.  The one test of
 * it: report's kernel check and tune's base both ask here.
 */
bool timeline_lazy_kernel(const struct timeline *tl);

/*
 * Whether cross-call function @func (interned in the source) flushes everything, as
 * flush_tlb_all's does: no cpumask, every CPU.  The last two answers are kept.
 */
bool timeline_flushes_all(struct timeline *tl, uint32_t func);

/* The traced kernel's architecture (timeline/arch.c), decided once for every command. */
enum tl_arch { TL_ARCH_UNKNOWN, TL_ARCH_RISCV, TL_ARCH_X86, TL_ARCH_OTHER };
/* After the input is read: the architecture, and in *@how (may be NULL) what showed it. */
enum tl_arch timeline_arch(const struct timeline *tl, const char **how);
const char *timeline_arch_name(enum tl_arch a);	/* "riscv", "x86_64", "other", "unknown" */
/* ... and back, as a merged profile carries it without a timeline (unknown for another) */
enum tl_arch timeline_arch_named(const char *name);
/* Advice on RISC-V's lazy flush series: for RISC-V, and a trace not saying it is another. */
static inline bool tl_arch_may_be_riscv(enum tl_arch a)
{
	return a != TL_ARCH_X86 && a != TL_ARCH_OTHER;
}
/* The string of @id in the source the timeline reads (borrowed), "" for 0. */
const char *timeline_str(const struct timeline *tl, uint32_t id);
/* Flush requests that came from kprobes (__flush_tlb_range, callers, flush_tlb_all). */
uint64_t timeline_kprobe_requests(const struct timeline *tl);
/*
 * The input defines kprobes and holds not one of their events, though its tasks switched:
 * the kernel dropped them (riscv 6.12 drops kprobe events written in NMI context,
 * tlbscope-probes(7)).  Unless csd flush IPIs gave requests of their own, its flush
 * requests and local flushes are then unknown, not none.  (A kprobe event of any probe,
 * switch_mm's say, shows they were written: a flush request none of them saw was none.)
 */
bool timeline_kprobes_silent(const struct timeline *tl);
/*
 * Whether anything in the input can show a flush request: one counted (from a kprobe,
 * x86's tlb_flush, or a run of csd_queue_cpu flush IPIs), a kprobe defined (the input's
 * header, a probe's format), or tlb_flush seen.  Without one (the tracepoints of an
 * SBI-fence machine; flush IPIs seen only on their targets), its flush requests and local
 * flushes are unknown, not none.  An input without a switch is not judged: true (it shows
 * too little to say what it lacks).
 */
bool timeline_requests_observable(const struct timeline *tl);
/* Why the flush requests (and local flushes) are unknown: timeline_requests_unknown(). */
enum tl_requests_unknown {
	TL_REQUESTS_KNOWN,
	TL_REQUESTS_DROPPED,	/* timeline_kprobes_silent(), and no request counted at all */
	TL_REQUESTS_UNSEEN,	/* !timeline_requests_observable() */
};
/* The rule report, top and tune --json apply; each view words the reason itself. */
enum tl_requests_unknown timeline_requests_unknown(const struct timeline *tl);
/*
 * Counted flush requests grouped from csd_queue_cpu runs (no kprobe or tlb_flush showed
 * them): a request that flushes only its own CPU sends no IPI and is not among them.
 */
uint64_t timeline_csd_requests(const struct timeline *tl);
/* kprobe events of probed function @func (a string id of the source), in the filter. */
uint64_t timeline_probe_count(const struct timeline *tl, uint32_t func);
/*
 * Rows of the trace's task table ("tlbscope-tgid:" markers, TS_EV_TGID) read; with
 * @corrected, how many of them set right a task whose process had been guessed before.
 */
uint64_t timeline_tgid_markers(const struct timeline *tl, uint64_t *corrected);
/* Tasks whose tgid was learned from later events (lookahead); for the evidence block. */
uint64_t timeline_tasks(const struct timeline *tl, uint64_t *kthreads_guessed);

#endif
