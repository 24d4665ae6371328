/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tuner/ - replays the normalized stream under the kernel's flush mechanisms (docs/design.md
 * section 4): stock RISC-V with and without ASIDs, the ideal floor, and lazy(T, Q) for a
 * whole grid of thresholds T (MAX_LOADED_MM) and queue sizes Q (MAX_TLB_FLUSH_TASK) in one
 * pass, plus a direct replay of single (T, Q) points to check the sweep against.  Then a
 * cost model over platform profiles turns counts into a recommendation.
 */
#ifndef TLBSCOPE_TUNER_H
#define TLBSCOPE_TUNER_H

#include <stdio.h>

#include "../timeline/timeline.h"

#define TUNER_MAX_T	64	/* thresholds the sweep can answer for */
#define TUNER_MAX_Q	4096	/* queue sizes the options take */

/* The kernel's defaults: the series' MAX_LOADED_MM and MAX_TLB_FLUSH_TASK, and upstream's
 * tlb_flush_all_threshold (pages) */
#define LAZY_DEFAULT_T		6
#define LAZY_DEFAULT_Q		32
#define FLUSH_ALL_DEFAULT	64

/* The grid tune and top search unless told otherwise (Q >= 1: the series' queues exist) */
#define TUNER_DEFAULT_NT	18
#define TUNER_DEFAULT_NQ	9
extern const int tuner_default_T[TUNER_DEFAULT_NT];
extern const int tuner_default_Q[TUNER_DEFAULT_NQ];

enum tuner_model {
	TUNER_STOCK_ASID,	/* mask = CPUs that ever ran the mm (until it exits) */
	TUNER_STOCK_NOASID,	/* mask = CPUs whose active mm it is; every mm switch flushes */
	TUNER_IDEAL,		/* mask = CPUs running a task of it: nothing fewer is safe */
	/*
	 * lazy(T, Q)'s IPIs, the same at every T and Q: CPUs whose active mm it is, also
	 * when they are idle or in a kernel thread and only hold it lazily
	 */
	TUNER_LAZY,
	/*
	 * what-if: stock's mask, minus the CPUs that did a full local flush of the mm's ASID
	 * while not running it, since they last loaded it (the series' patches 8-9 alone)
	 */
	TUNER_CLEAR_AT_FULL,
	TUNER__MODELS
};

/* What a target of one of lazy's IPIs was doing (tuner_lazy_split()). */
enum tuner_target_state {
	TUNER_TGT_RUNNING,	/* a task of the mm: the IPI is needed (ideal's) */
	TUNER_TGT_IDLE,		/* the idle task, holding the mm lazily */
	TUNER_TGT_KTHREAD,	/* a kernel thread, holding it lazily */
	TUNER_TGT__COUNT
};

struct tuner_counts {
	uint64_t ipis;			/* flush IPIs: (request, remote target) pairs */
	uint64_t deferred;		/* lazy: pairs queued instead of interrupting */
	uint64_t deferred_flushes;	/* lazy: switch-backs that ran queued flushes */
	uint64_t overflows;		/* lazy: a full queue turned into a whole-ASID flag */
	uint64_t evictions;		/* lazy: mms evicted from a full table (local ASID flush) */
	uint64_t table_resets;		/* lazy: full local flushes that emptied a table */
	uint64_t local_flushes;		/* requests the requester's own CPU flushed */
	uint64_t refills;		/* evicted mms that came back within TLB reach */
	uint64_t ipi_requests;		/* requests that sent any IPI: one wait each */
	uint64_t replayed;		/* lazy: queued range entries flushed at switch_mm */
	uint64_t replayed_pages;	/* and their pages */
	uint64_t drain_max;		/* lazy: entries of the largest single drain */
	uint64_t drain_max_pages;	/* pages of the largest single drain (by pages) */
};

struct tuner_opts {
	const int *thresholds;		/* T values, each 1..TUNER_MAX_T */
	int nthresholds;
	const int *queues;		/* Q values, each >= 0 */
	int nqueues;
	uint64_t warmup_ns;		/* counts start this long after the first event */
	uint64_t flush_all_threshold;	/* pages: a bigger range flushes everything (64) */
	int tlb_reach_mms;		/* reuse distance within which an evicted mm's entries
					 * would still be resident (from the platform) */
	int ncpus;			/* CPUs of the machine (kernel flushes go to all) */
	const int (*replay)[2];		/* (T, Q) points to replay directly, may be NULL */
	int nreplay;
	int idle_first, idle_count;	/* of them, these replay the lazy-idle what-if */
	bool verify_models;		/* also count clear-at-full a second, independent way */
	bool replay_only;		/* no grid: the models and the replayed points only
					 * (no sweep, recommendation or windows) */
	bool models_off;		/* with replay_only, the replayed points alone: the
					 * models (tuner_model(), tuner_model_cpu(),
					 * tuner_stock_seeded()) are not
					 * replayed and stay 0 */
	/*
	 * When set, the last replayed point writes one line per remote CPU of each user-mm
	 * flush it decides for: "TS CPU TARGET DECISION" (ns, requester, target, the codes
	 * of a lazy-flush kernel's lazy_tlb_defer: 0 IPI, 1 queued, 2 whole-ASID flag for a
	 * full flush, 3 flag on queue overflow, 4 absorbed by the flag)
	 */
	FILE *decisions;
};

struct tuner;
struct platform;

/* Returns a new tuner (free with tuner_free()); the arrays in @o are copied. */
struct tuner *tuner_new(const struct tuner_opts *o);
void tuner_free(struct tuner *t);
/* A timeline consumer (tl_emit_fn): feed every resolved event. */
void tuner_feed(void *tuner, struct timeline *tl, const struct ts_event *ev);
/* Close open queue intervals at the end of the trace. */
void tuner_finish(struct tuner *t);

const struct tuner_counts *tuner_model(const struct tuner *t, enum tuner_model m);
const char *tuner_model_name(enum tuner_model m);
/* Counts of lazy(thresholds[ti], queues[qi]) from the one-pass sweep. */
void tuner_grid_point(const struct tuner *t, int ti, int qi, struct tuner_counts *out);
/*
 * The lazy-idle what-if at grid point (@ti, @qi): lazy, but a CPU that holds the mm only
 * lazily (idle, a kernel thread) gets the entry queued like an absent one (x86's is_lazy
 * rule); refills at @p's TLB reach (NULL: the options').  False for a sum of traces.
 */
bool tuner_whatif_point(const struct tuner *t, const struct platform *p, int ti, int qi,
			struct tuner_counts *out);
/* clear-at-full's IPIs counted the second way (opts.verify_models), for --verify */
uint64_t tuner_clear_at_full_check(const struct tuner *t);
/* Counts of the directly replayed point @i of opts.replay. */
const struct tuner_counts *tuner_replayed(const struct tuner *t, int i);
/*
 * Per CPU: a model's IPIs received and local flushes (kernel-wide flushes are in the
 * totals only); a replayed point's counters where each happens (IPIs, deferrals and
 * overflows on the target; deferred flushes, evictions, resets on the CPU itself).
 */
const struct tuner_counts *tuner_model_cpu(const struct tuner *t, enum tuner_model m, int cpu);
const struct tuner_counts *tuner_replayed_cpu(const struct tuner *t, int i, int cpu);
/*
 * Replay @i on @cpu, for a recording that began on a running system: the table slots
 * that may still hold an mm from before it, the first load once none can (0: never
 * within the trace), from which on the CPU's counters are exact, and the requests to
 * @cpu the replay could not decide for that.  Returns the CPU's counters just before
 * that load, NULL when there is no such replay or CPU.
 */
const struct tuner_counts *tuner_replayed_unknown(const struct tuner *t, int i, int cpu,
						  int *slots, uint64_t *known_at,
						  uint64_t *undecided);
/* @out = @a - @b, counter by counter (the maxima taken from @a) */
void tuner_counts_since(struct tuner_counts *out, const struct tuner_counts *a,
			const struct tuner_counts *b);
/* The table of replayed point @i on @cpu right now: mms loaded, range entries queued,
 * slots flagged for a whole-ASID flush (for live views). */
void tuner_replayed_state(const struct tuner *t, int i, int cpu, int *loaded, uint64_t *queued,
			  int *flagged);
/* Does @cpu hold @mm in the table of replayed point @i right now? */
bool tuner_replayed_holds(const struct tuner *t, int i, int cpu, uint32_t mm);
/* The mm @cpu runs now as every model sees it (0: none known); kernel threads keep it. */
uint32_t tuner_active(const struct tuner *t, int cpu);
/*
 * For timeline_recycle_mms(): held[mm] = 1 (mm < @n) for every mm a model still holds
 * (a CPU's, a table's, a queue's), and forgetting what is kept of @mm before its id names
 * another (its masks; an ended mm has no other state left).
 */
void tuner_mark_mms(const struct tuner *t, uint8_t *held, size_t n);
void tuner_forget_mm(struct tuner *t, uint32_t mm);

/* Per-CPU reuse distances of mm switches: hist[d] for d = 1..TUNER_MAX_T, hist[0] = new
 * or farther.  Summed over CPUs when @cpu < 0. */
void tuner_reuse_hist(const struct tuner *t, int cpu, uint64_t hist[TUNER_MAX_T + 1]);
/* Flush requests by size: buckets of 2^k pages (k = 0..20), [21] = whole mm / unknown. */
void tuner_flush_sizes(const struct tuner *t, uint64_t sizes[22]);
uint64_t tuner_requests(const struct tuner *t, uint64_t *unattributed);
uint64_t tuner_mm_switches(const struct tuner *t);
uint64_t tuner_switches(const struct tuner *t);
/* mm exits counted: a lazy kernel looks each one up in every CPU's table of T slots */
uint64_t tuner_exits(const struct tuner *t);
/* ns from where the counts start to the last event; 0 for a sum of traces */
uint64_t tuner_span(const struct tuner *t);
/*
 * Events on CPUs at or past the count the tuner was made for (a trace whose header
 * declares fewer CPUs than its events use): not replayed by any model.  @first_cpu (may be
 * NULL) gets the first such CPU, -1 when none.
 */
uint64_t tuner_unmodelled(const struct tuner *t, int *first_cpu);
/*
 * stock_asid's IPIs when each mm's mask is seeded, at its first request that carries the
 * kernel's own target mask (kprobes), with the CPUs that loaded it before the trace began.
 * For the check against the kernel only; the models themselves start from empty state.
 */
uint64_t tuner_stock_seeded(const struct tuner *t, uint64_t *mms_widened);

/* ---- the sfence.vma account and the Svvptc what-if (sfence.c) ---- */

#define SFENCE_TOP_SITES	12

struct sfence_opts {
	struct ts_source *src;		/* borrowed: its probes, names of probes and sites */
	uint64_t flush_all_threshold;	/* pages: a longer range is one whole-ASID fence (64) */
	const struct platform *pf;	/* borrowed: the prices of fences, NULL unpriced */
};

struct sfence_site {
	uint32_t site;			/* string id of the function the site is in, 0 unknown */
	uint64_t count;
};

/* What the same workload would execute on a kernel with Svvptc (from a baseline trace). */
struct sfence_whatif {
	uint64_t sfence;		/* A/D set by hardware: access updates change no PTE */
	uint64_t sfence_max;		/* every access update changed its PTE: a flush each */
	uint64_t removed_pte, removed_vmalloc;
	uint64_t ipis_removed, ipis_added_max;
	uint64_t faults_added_max;	/* each new PTE (and vmalloc page per CPU) faulting once */
};

struct sfence_result {
	/* from site probes (tlbscope-probes(7)): each event one executed fence */
	bool probed;
	uint64_t total, by_cause[TS_SF__COUNT];
	uint64_t by_cpu[TS_MAX_CPUS];
	int ncpus;			/* highest CPU with a fence + 1 */
	struct sfence_site sites[SFENCE_TOP_SITES];
	size_t nsites;
	/* the processes whose address space the fencing CPUs ran (.site: a timeline mm id) */
	struct sfence_site mms[SFENCE_TOP_SITES];
	size_t nmms;
	/*
	 * The flush causes again, from the flush probes by local_flush_tlb_range_asid()'s
	 * rules: the handler's fences where it ran, a request's own when only its CPU is in
	 * the kernel's mask, one per online CPU for flush_tlb_all
	 */
	bool flush_known;
	bool handler_seen;		/* __ipi_flush_tlb_range_asid events are in the trace */
	/* every request's fences are seen: masks known, the handler probed where needed */
	bool rules_complete;
	uint64_t inferred_range, inferred_all;
	uint64_t flush_all_requests;
	uint64_t remote_requests;	/* requests with a remote CPU: fenced by the handlers */
	uint64_t kmask_unknown;		/* requests without the kernel's mask: not inferred */
	uint64_t sbi_requests;		/* SBI remote fences: the firmware's fences, not counted */
	/* flush_cache_vmap (pre-Svvptc kernels): new vmalloc mappings and their flushes */
	bool vmalloc_known;
	uint64_t vmalloc_maps, vmalloc_fences, vmalloc_remote;
	/* Svvptc's flush_tlb_page() for each access-flag fence, if each changed the PTE */
	uint64_t access_flush_fences, access_flush_ipis;
	uint64_t access_mask_unknown;	/* of them, with the mm's mask unknown (taken as 1) */
	/* sfence_result()'s: the Svvptc what-if, and with a platform the time of fences */
	struct sfence_whatif svvptc;
	double fences_ns;		/* full fences priced as one, the rest per page */
	double svvptc_saved_ns;		/* the page fences Svvptc removes */
};


struct sfence;
/* A new account (free with sfence_free()); @o is copied. */
struct sfence *sfence_new(const struct sfence_opts *o);
void sfence_free(struct sfence *s);
void sfence_feed(void *s, struct timeline *tl, const struct ts_event *ev);	/* tl_emit_fn */
/*
 * The account once every event is fed, @ncpus the machine's online CPUs (flush_tlb_all
 * fences each); borrowed, valid until sfence_free().
 */
const struct sfence_result *sfence_result(struct sfence *s, int ncpus);
/* Fences one CPU executes for range flush @ev (kernel rules, 6.12). */
uint64_t sfence_range_fences(const struct ts_event *ev, uint64_t flush_all_threshold);
void sfence_whatif_svvptc(const struct sfence_result *r, struct sfence_whatif *w);


/* ---- cost model (cost.c) ---- */

enum platform_fig {
	PF_IPI_SEND, PF_IPI_RECV, PF_REMOTE_FLUSH, PF_LOCAL_ASID_FLUSH, PF_SFENCE_PAGE,
	PF_TLB_REFILL, PF_QUEUE_ENTRY, PF_DEFERRED_FLUSH, PF_TABLE_SCAN, PF_MEMORY_BYTE,
	PF_IPI_WAIT, PF_TLB_ENTRIES, PF_WORKING_SET,
	PF__COUNT
};
#define PF__COSTS	PF_TLB_ENTRIES	/* figures before this one are unit costs (ns) */

/* where a figure came from: the profile, the user's own file, or measured in the trace */
enum pf_origin { PF_FROM_PLATFORM, PF_FROM_USER, PF_FROM_TRACE };

/* A cost the trace measured, whether or not it priced a figure. */
struct pf_seen {
	const char *name, *how;		/* static strings */
	const char *unpriced;		/* why it prices nothing of its own, NULL: it can */
	enum platform_fig fig;		/* what it prices where used; PF__COUNT: shown only */
	uint64_t samples;
	double median, p25, p75;	/* ns */
	bool used;
};
#define PF_SEEN_MAX	4

struct platform {
	char name[64];
	char description[256];
	double v[PF__COUNT];
	char source[PF__COUNT][160];
	enum pf_origin origin[PF__COUNT];
	/* PF_FROM_TRACE: the samples, and the quartiles around the median in v[] (ns) */
	uint64_t samples[PF__COUNT];
	double p25[PF__COUNT], p75[PF__COUNT];
	struct pf_seen seen[PF_SEEN_MAX];	/* tuner_measure_apply() */
	int nseen;
};
const char *platform_origin_name(enum pf_origin o);

/*
 * Unit costs measured in the trace (measure.c): feed every event with its tracepoint
 * name (NULL when unknown); then tuner_measure_apply() puts each figure with at least
 * TUNER_MIN_SAMPLES samples into @p, unless the user's own file gave it.
 */
#define TUNER_MIN_SAMPLES	10
struct tuner_measure;
struct tuner_measure *tuner_measure_new(void);	/* free with tuner_measure_free() */
void tuner_measure_free(struct tuner_measure *m);
void tuner_measure_feed(struct tuner_measure *m, const struct ts_event *ev, const char *name);
/*
 * The clock's tick the events fed so far show (ns: the gcd of their times; 0 none yet).
 * Once it is 1, only flush IPIs and events of kind OTHER change what @m measures.
 */
uint64_t tuner_measure_tick(const struct tuner_measure *m);
/* ... @use false: a VM's timings, recorded in p->seen[] but pricing nothing */
void tuner_measure_apply(const struct tuner_measure *m, struct platform *p, bool use);

/* A virtual machine's timings are its host's scheduling, not the hardware's. */
struct tuner_host {
	bool vm;		/* the trace shows it came from a virtual machine */
	bool user;		/* said by --machine, not detected */
	char how[160];		/* what showed it, or that nothing did */
};
/* IPI delivery no interrupt controller takes: vCPU threads waiting for a host CPU */
#define TUNER_VM_DELIVERY_NS	50000
/* --machine of tune and top: found in the input, or said by the user */
enum tuner_machine { TUNER_MACHINE_AUTO, TUNER_MACHINE_VM, TUNER_MACHINE_METAL };
/* "auto", "vm" or "metal" as a tuner_machine; -1 for anything else */
int tuner_machine_parse(const char *s);
/*
 * From the events fed to @m, the kernel string @uname and what tlbscope record saw of the
 * machine, @machine ("vm (why)" or "metal (why)"; each may be NULL), unless @given says it
 */
void tuner_host_detect(const struct tuner_measure *m, const char *uname, const char *machine,
		       enum tuner_machine given, struct tuner_host *h);

struct json_t;
/* @dst += @src, every sample counted @w times */
void tuner_measure_merge(struct tuner_measure *dst, const struct tuner_measure *src, uint64_t w);
/* The histograms as JSON (new reference), and back: 0, or -1 when malformed. */
struct json_t *tuner_measure_json(const struct tuner_measure *m);
int tuner_measure_load(struct tuner_measure *m, struct json_t *j);

/*
 * Many traces (profile.c).  tuner_aggregate_new() - a tuner that takes no events but sums
 * others with tuner_merge() (@dst += @src x @w, every counter; the grids must be equal,
 * else -1 and a message in @err); free with tuner_free().
 * tuner_profile_json() - everything the decision needs of @t (new reference);
 * tuner_profile_load() - a new aggregate tuner from one, with @o's options but its own
 * grid (merge it into one made from @o to check the grid), or NULL and @err.
 */
struct tuner *tuner_aggregate_new(const struct tuner_opts *o);
/* An aggregate's CPUs, for the queue memory it prices (at most those it was made with). */
void tuner_set_ncpus(struct tuner *t, int ncpus);
int tuner_merge(struct tuner *dst, const struct tuner *src, uint64_t w, char *err);
struct json_t *tuner_profile_json(const struct tuner *t);
struct tuner *tuner_profile_load(struct json_t *j, const struct tuner_opts *o, char *err);

const char *platform_fig_name(enum platform_fig f);
/*
 * platform_load - the generic profile, overridden by @spec: a profile name
 * (tuner/platforms/NAME.json) or a JSON file of one's own giving any subset of figures.
 * Returns 0, or -1 with a message in @err (TS_ERR_LEN bytes).
 */
int platform_load(const char *spec, struct platform *p, char *err);
/* mms whose working sets fit in the TLB together: the reach of the refill account */
int platform_reach_mms(const struct platform *p);

#define QUEUE_ENTRY_BYTES	24	/* start, size, stride */

/* ns of one flush IPI to one target: send, receive and the remote flush */
double tuner_ipi_unit(const struct platform *p);
/* ns of @ipis IPIs sent by @requests requests: each request waits once, for its slowest */
double tuner_ipi_cost(const struct platform *p, uint64_t ipis, uint64_t requests);
/*
 * Cost in ns of lazy(T, Q) given its counts; @mm_switches for the table scans.  Every
 * model and grid point is priced by this one function on the same counters.
 */
double tuner_cost(const struct platform *p, const struct tuner_counts *c, int T, int Q,
		  uint64_t mm_switches, int ncpus);
/* Cost of a model (stock, ideal): tuner_cost() with no table and no queue. */
double tuner_model_cost(const struct platform *p, const struct tuner_counts *c);

/* Grid points whose differing cost is within this fraction of the cheapest are ties. */
#define TUNER_BAND	0.01

struct tuner_rec {
	int ti, qi;		/* the cheapest grid point a kernel can be set to */
	double cost;		/* its whole cost, ns */
	/* its cost without the IPIs every lazy point shares (what the choice is made on) */
	double differing;
	int small_ti, small_qi;	/* the smallest point within TUNER_BAND of it */
	double small_cost;
	/* the points within the band: how many, and the T and Q ranges they span */
	int nflat;
	int lo_ti, hi_ti, lo_qi, hi_qi;
	/*
	 * The TLB's reach (mms whose working sets fit together): points past it are not
	 * recommended.  free_ti, free_qi: the cheapest point of the whole grid, past the
	 * reach or not; the recommendation on the grid's last T while it still evicts, or
	 * on its last Q while it still overflows (edge_T, edge_Q), means the cost may fall
	 * further out.
	 */
	int reach;
	int free_ti, free_qi;
	double free_cost;
	bool edge_T, edge_Q;
};
void tuner_recommend(const struct tuner *t, const struct platform *p, struct tuner_rec *r);

/*
 * The verdict (JSON recommendation.verdict): lazy flush pays at a point to set, or the
 * base setting is as good as the best within the band, or lazy flush changes too little
 * for this workload, or the trace holds too little to tell.
 */
enum tuner_verdict {
	TUNER_ENABLE, TUNER_KEEP, TUNER_NO_BENEFIT, TUNER_INSUFFICIENT, TUNER_RETUNE,
	TUNER_NOT_APPLICABLE,
};
/* what the verdict rests on, for the text that explains it */
enum tuner_why {
	TUNER_WHY_FEW_REQUESTS,	/* fewer than TUNER_MIN_REQUESTS requests with an mm */
	TUNER_WHY_FEW_SWITCHES,	/* fewer than TUNER_MIN_MM_SWITCHES mm switches */
	TUNER_WHY_NO_REMOTE,	/* no request had a remote target: nothing to defer */
	TUNER_WHY_ALL_RUNNING,	/* every remote target was running the mm: no IPI avoidable */
	TUNER_WHY_COSTS_MORE,	/* the IPIs it avoids cost less than what it adds */
	TUNER_WHY_PAYS,		/* cheaper than stock by more than the band */
	TUNER_WHY_NOT_RISCV,	/* the trace is of another architecture's kernel */
};
#define TUNER_MIN_REQUESTS	10	/* counted, with an mm: fewer is no basis for advice */
#define TUNER_MIN_MM_SWITCHES	10

struct tuner_advice {
	enum tuner_verdict verdict;
	enum tuner_why why;
	int ti, qi;		/* the point to set (enable, keep); -1 when none */
	int base_ti, base_qi;	/* the setting the traced kernel runs, in the grid */
	/* all on tuner_cost()'s one basis, ns */
	double stock_cost, base_cost, point_cost, ideal_cost;
	uint64_t ipis_saved;	/* stock_asid's flush IPIs minus lazy's */
	double ipis_saved_ns;
	bool base_above_stock;	/* a lazy kernel whose own setting costs more than stock */
};
const char *tuner_verdict_name(enum tuner_verdict v);
/*
 * tuner_advise - the verdict from the whole trace's counts and recommendation @rec, for a
 * kernel running the base point (@base_ti, @base_qi of the grid); @lazy_kernel when the
 * trace is of a lazy-flush kernel (then "keep" rather than "enable" at the base).
 */
void tuner_advise(const struct tuner *t, const struct platform *p, const struct tuner_rec *rec,
		  int base_ti, int base_qi, bool lazy_kernel, bool riscv, struct tuner_advice *a);
/* Cost (ns) of grid point (@ti, @qi) priced with @p, refills at @p's TLB reach. */
double tuner_point_cost(const struct tuner *t, const struct platform *p, int ti, int qi);
/* The counts of that point with refills at @p's reach. */
void tuner_point_counts(const struct tuner *t, const struct platform *p, int ti, int qi,
			struct tuner_counts *out);
/* lazy's IPIs to user mms by what the target ran (TUNER_TGT_*) */
void tuner_lazy_split(const struct tuner *t, uint64_t split[TUNER_TGT__COUNT]);
/*
 * The point a recommendation shows: advice @a's point to set, else the smallest within the
 * band of @rec's cheapest.
 */
void tuner_shown_point(const struct tuner_advice *a, const struct tuner_rec *rec, int *ti,
		       int *qi);
/* Evictions of lazy(T) for any T in 1..TUNER_MAX_T (they do not depend on Q). */
uint64_t tuner_evictions_at(const struct tuner *t, int T);

/* ---- a lazy kernel's own evidence, and the base (advise.c) ---- */

struct tuner_lazy_kernel {
	uint64_t evictions;	/* its local_flush_tlb_mm events, counted after the warm-up */
	/*
	 * its queue size from its lazy_tlb_defer decisions: the entries a slot held when it
	 * overflowed, counted from a load that emptied it (-1: no such overflow, -2: two
	 * overflows disagreed); and the longest queue seen, a lower bound either way
	 */
	int64_t queue;
	uint64_t queue_min;
	struct u64map *qslots;	/* per CPU: mm pointer -> entries queued | known bit */
};
/* Empty @k (frees what it holds): ready for a trace. */
void tuner_lazy_kernel_reset(struct tuner_lazy_kernel *k);
/* Whether the feed reads a TS_EV_OTHER event whose probe is @probe (not NULL). */
bool tuner_lazy_kernel_reads(const char *probe);
/*
 * Feed every event; @probe the function its probe is on (NULL none), @counted after the
 * warm-up.  Only TS_EV_LOAD_MM events and TS_EV_OTHER ones whose @probe it reads
 * (tuner_lazy_kernel_reads()) count: a caller may pass just those (top does).
 */
void tuner_lazy_kernel_feed(struct tuner_lazy_kernel *k, const struct ts_event *ev,
			    const char *probe, bool counted);

struct tuner_base {
	int T, Q;
	int ti, qi;			/* the grid's index of T and Q, else of the nearest */
	const char *T_how, *Q_how;	/* "user", "the kernel's command line", "trace",
					 * "trace (at least)", "default", ... */
	int T_min, Q_min;		/* lower bounds the trace gives, 0 none */
};
/*
 * tuner_find_base - the setting the traced kernel runs: @user (T, Q) when given, else on
 * a lazy kernel its boot parameters when its command line @cmdline is known (NULL: not
 * recorded; a parameter not given is the kernel's default), else the T whose evictions
 * equal its own (at least the least T that evicts nothing when it evicted none) and the Q
 * its overflows show (at least its longest queue), else the series' defaults.
 */
void tuner_find_base(const struct tuner *t, const struct tuner_lazy_kernel *k, bool lazy_kernel,
		     const int *user, const char *cmdline, struct tuner_base *b);
/* The lazy kernel's boot parameters in @cmdline: (lazytlb.max_loaded_mm, .flush_queue), 0 not given */
void tuner_cmdline_base(const char *cmdline, int base[2]);

#define TUNER_MAX_WINDOWS	8
/*
 * Stability: the recommendation in each of @n (2..TUNER_MAX_WINDOWS) consecutive time
 * windows of about equal length; @bounds[k] is where window k ends (ns).  Returns @n, or 0
 * when the trace is too short to split.
 */
int tuner_windows(const struct tuner *t, const struct platform *p, int n, struct tuner_rec *recs,
		  uint64_t *bounds);
/*
 * In how many of @n windows (as tuner_windows()) grid point (@ti, @qi) costs within
 * TUNER_BAND of that window's cheapest: the quarters that agree with a point.
 */
int tuner_windows_agree(const struct tuner *t, const struct platform *p, int n, int ti, int qi);
/* tlb_flush_all_threshold (pages, a power of two) that minimizes flush cost over the
 * trace's flush-size distribution; 0 when no request in the trace has a size. */
uint64_t tuner_flush_all_threshold(const struct tuner *t, const struct platform *p);
int tuner_ncpus(const struct tuner *t);

#endif
