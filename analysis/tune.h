/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * tune's analysis (analysis/tune.c): each input replayed into the models (or a saved
 * profile read), their weighted sum, the unit costs (a VM's timings price nothing), the
 * traced kernel's base, the recommendation and verdict, their sensitivity, the quarters of
 * the trace and --verify's comparison, as one finished struct tune_run that cli/'s
 * renderers (tune-text.c, tune-json.c, tune-svg.c) print.
 */
#ifndef TLBSCOPE_ANALYSIS_TUNE_H
#define TLBSCOPE_ANALYSIS_TUNE_H

#include <stdio.h>

#include "analysis.h"
#include "../tuner/tuner.h"

#define MAX_LIST 128
#define MAX_INPUTS 256	/* traces or profiles decided on together */

/* What tune is asked (cli/cmd-tune.c parses it) */
struct tune_params {
	int T[MAX_LIST], nT;
	bool has_T;		/* --threshold given: the grid is the user's */
	int Q[MAX_LIST], nQ;
	uint64_t warmup_ns;
	uint64_t flush_all;
	int direct[2];
	bool has_direct, verify;
	int base[2];		/* --base T,Q: the setting the traced kernel runs */
	bool has_base;
	/* every input (the first is the trace named in messages) and its weight */
	const char *inputs[MAX_INPUTS];
	uint64_t weight[MAX_INPUTS];
	int ninputs;
	enum tuner_machine machine;	/* --machine */
};

struct tune_run {
	const struct tune_params *o;	/* what was asked */
	struct ts_source *src;
	struct timeline *tl;
	struct tuner *tu;
	struct tuner_measure *meas;	/* unit costs the trace shows */
	struct platform pf;
	int ncpus;
	int (*replay)[2];
	int nreplay;
	int idle_first, idle_count;	/* of the replays, the lazy-idle ones (--verify) */
	/* computed once, printed as text or JSON */
	/* each unit cost, the TLB's size and the working set x0.5, x2 */
	struct tuner_rec sens[PF__COUNT][2];
	enum tuner_verdict sens_verdict[PF__COUNT][2];	/* and the verdict then */
	int sens_ti[PF__COUNT][2], sens_qi[PF__COUNT][2];	/* the point advised then */
	struct tuner_host host;	/* a VM's timings price nothing */
	char *uname;		/* the kernel string of the (last) trace, NULL none */
	char *machine;		/* record's look at the machine (ts_source_info), NULL none */
	char *cmdline;		/* the traced kernel's command line, NULL not recorded (or
				 * inputs that differ in it) */
	const char *arch;	/* "riscv", "x86_64", "other", "unknown" */
	const char *arch_how;	/* what showed it */
	bool riscv;		/* the advice is for RISC-V (arch riscv or unknown) */
	int same_quarters;	/* quarters whose choice is the advised point */
	int quarters_T[2], quarters_Q[2];	/* the range of the quarters' own choices */
	bool kernel_masks;	/* a request carried the kernel's own cpumask (or a sum) */
	uint64_t span_ns;	/* of the counted part of the trace, 0 unknown */
	struct tuner_rec win[4];		/* each quarter of the trace */
	uint64_t until[4];
	int nwin;
	struct tuner_advice adv;
	/* where recommendation.base came from: "user" (--base), "trace", "default" */
	const char *base_T_how, *base_Q_how;
	int base_T_seen;	/* the base T found, before the nearest grid value is taken */
	int base_T_min;		/* a lazy kernel that evicted nothing runs at least this T */
	bool lazy_kernel;	/* the trace shows a lazy-flush kernel's table loads */
	/*
	 * more than one input, or a profile: r.tu is their weighted sum, and r.src, r.tl
	 * are NULL (what only a trace shows is not printed)
	 */
	bool aggregate;
	int64_t observed;	/* the kernel's flush IPIs after the warm-up, -1 none shown */
	/* a sum's inputs: events lost and malformed records skipped, over all of them */
	uint64_t lost, skipped;
	const char *obs_how;
	/* counted after --warmup, as the models are */
	bool started, warm;
	uint64_t t0;		/* ns, the first event */
	uint64_t ipis_at_warm[TL_IPI__COUNT];	/* the kernel's flush IPIs before the count began */
	struct tuner_lazy_kernel lk;	/* what a lazy kernel's own events show */
	int base_Q_min;		/* a lazy kernel whose queues held more than the default */
	int base_Q_seen;	/* the base Q found, before the nearest grid value is taken */
	/* tune_run_finish()'s */
	struct tuner_rec rec;	/* the recommendation over the grid */
	uint64_t reach_cov, reach_den;	/* mm reuses within the advised T's reach, of all */
	int verify_bad;		/* --verify: differences between the sweep and the replays */
	char *verify_diffs;	/* and what they are, a line each (NULL none) */
	/*
	 * The numbers the renderers print, priced once: every grid point (grid[ti * nQ + qi],
	 * in the order of o->T and o->Q), the point shown (the advice, else the smallest
	 * cheapest one) with every counter, the what-if of deferring to CPUs that hold the mm
	 * lazily at that point, each model's cost, where lazy's IPIs go.
	 */
	struct tune_cell {
		struct tuner_counts c;
		double cost_ns;
	} *grid;
	int pti, pqi;
	struct tuner_counts shown;
	uint64_t exit_slot_lookups;	/* each exit looks its mm up in every CPU's table */
	bool whatif_ok;			/* false: the what-if is not replayed */
	struct tuner_counts whatif;
	double whatif_cost_ns;
	double model_cost[TUNER__MODELS];
	uint64_t lazy_split[TUNER_TGT__COUNT];
	uint64_t flush_all;		/* pages past which a range flushes the whole ASID */
};

/* grid point (@ti, @qi) of a finished run */
static inline const struct tune_cell *tune_cell(const struct tune_run *r, int ti, int qi)
{
	return &r->grid[ti * r->o->nQ + qi];
}

/* The consumer of one trace's resolved stream (tl_emit_fn; @ctx the run). */
void tune_run_feed(void *ctx, struct timeline *tl, const struct ts_event *ev);
/* Forget the per-trace state of the consumer, for the next input. */
void tune_run_reset(struct tune_run *r);
/*
 * One trace read into r->tu, r->meas, r->tl, r->src: the models finished, and what the
 * trace itself shows (its arch, kernel string, lazy kernel, observed flush IPIs).
 */
void tune_run_trace_done(struct tune_run *r);

/* Is @path a profile of tune --save-profile?  A new reference to its root, else NULL. */
struct json_t *tune_profile_open(const char *path);
/* Everything of the run that a later decision needs, as a profile (new reference). */
struct json_t *tune_profile_json(const struct tune_run *r);

/*
 * Replay one trace @path into @r with @to (the caller's reading of the file:
 * tune_run_reset(), the source, tune_run_feed() over it, tune_run_trace_done()); 0, or an
 * exit status with the message printed.
 */
typedef int (*tune_replay_fn)(void *ctx, struct tune_run *r, const char *path,
			      struct tuner_opts *to);
/*
 * Every input into one aggregate r->tu: traces through @replay, profiles read; each
 * counted its weight's times.  0, or an exit status (@err says why when @replay did not).
 */
int tune_run_aggregate(struct tune_run *r, struct tuner_opts *to, tune_replay_fn replay,
		       void *ctx, char *err, size_t errlen);

/*
 * The decision once every input is in: unit costs (the trace's own unless from a VM),
 * --verify, the recommendation, the kernel's base, the advice, its sensitivity and the
 * quarters.  Returns the differences --verify found (0 without it).
 */
int tune_run_finish(struct tune_run *r);
void tune_run_free(struct tune_run *r);

#endif
