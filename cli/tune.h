/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to tlbscope tune: its options, the run they produce (computed once in
 * cmd-tune.c) and the renderers of tune-text.c, tune-json.c and tune-svg.c.
 */
#ifndef TLBSCOPE_CLI_TUNE_H
#define TLBSCOPE_CLI_TUNE_H

#include <stdio.h>

#include "../tuner/tuner.h"
#include "cli.h"

#define MAX_LIST 128
#define MAX_INPUTS 256	/* traces or profiles decided on together */

struct tune_opts {
	struct common_opts c;
	int T[MAX_LIST], nT;
	bool has_T;		/* --threshold given: the grid is the user's */
	int Q[MAX_LIST], nQ;
	const char *platform;
	uint64_t warmup_ns;
	uint64_t flush_all;
	int direct[2];
	bool has_direct, verify;
	int base[2];		/* --base T,Q: the setting the traced kernel runs */
	bool has_base;
	const char *svg;
	const char *decisions;
	/* every input (o.c.input is the first) and its weight, 1 unless --weight */
	const char *inputs[MAX_INPUTS];
	uint64_t weight[MAX_INPUTS];
	int ninputs;
	const char *save_profile;	/* --save-profile FILE */
	const char *patch;		/* --patch FILE */
	int machine;			/* --machine: TUNE_MACHINE_* */
	bool verbose;			/* -v: every detail after the summary */
	bool quiet;			/* -q: the summary alone */
};

enum { TUNE_MACHINE_AUTO, TUNE_MACHINE_VM, TUNE_MACHINE_METAL };

struct tune_run {
	struct tune_opts *o;
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
	const char *arch;	/* "riscv", "x86_64", "other", "unknown" */
	const char *arch_how;	/* what showed it */
	bool riscv;		/* the advice is for RISC-V (arch riscv or unknown) */
	int same_quarters;	/* quarters whose choice is the advised point */
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
};

int tune_parse_args(struct tune_opts *o, int argc, char **argv);

/* cmd-tune.c */
double tune_cost_of(const struct tune_run *r, const struct platform *pf, int ti, int qi);
/* the point advised, or where there is none the smallest cheapest one: (ti, qi) */
void tune_point(const struct tune_run *r, const struct tuner_rec *rec, int *ti, int *qi);

/* tune-text.c */
void tune_reason(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec,
		 uint64_t reach_cov_num, uint64_t reach_den);
/* "+1.2 %" of @part over @whole, or "n/a" when @whole is 0 */
const char *tune_percent(char *buf, size_t len, double part, double whole);
void tune_print_text(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified);

/*
 * The patch against the base for an "enable" verdict to @out (NULL: only tell); false
 * when there is nothing to change.
 */
bool tune_write_patch(FILE *out, const struct tune_run *r, uint64_t fat);
/* The patch to file @path (--patch); 0, or -1 with the message printed. */
int tune_save_patch(const struct tune_run *r, const char *path, uint64_t fat);

/* tune-json.c: the JSON object (new reference), and printed */
struct json_t;
struct json_t *tune_json(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
			 const char *obs_how, uint64_t fat, const char *why, int verified);
void tune_print_json(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified);

/* tune-svg.c */
/* The SVG of @r into @path: 0, or -1 with the reason printed (the file cannot be written). */
int tune_write_svg(const struct tune_run *r, const char *path, const struct tuner_rec *rec);

#endif
