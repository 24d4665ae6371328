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

struct tune_opts {
	struct common_opts c;
	int T[MAX_LIST], nT;
	int Q[MAX_LIST], nQ;
	const char *platform;
	uint64_t warmup_ns;
	uint64_t flush_all;
	int direct[2];
	bool has_direct, verify;
	const char *svg;
	const char *decisions;
};

struct tune_run {
	struct tune_opts *o;
	struct ts_source *src;
	struct timeline *tl;
	struct tuner *tu;
	struct platform pf;
	int ncpus;
	int (*replay)[2];
	int nreplay;
	/* computed once, printed as text or JSON */
	struct tuner_rec sens[PF__COSTS][2];	/* each unit cost x0.5, x2 */
	struct tuner_rec win[4];		/* each quarter of the trace */
	uint64_t until[4];
	int nwin;
};

int tune_parse_args(struct tune_opts *o, int argc, char **argv);

/* cmd-tune.c */
double tune_cost_of(const struct tune_run *r, const struct platform *pf, int ti, int qi);
const char *tune_arch_of(const struct ts_source_info *info);

/* tune-text.c */
void tune_reason(char *buf, size_t len, const struct tune_run *r, const struct tuner_rec *rec,
		 uint64_t reach_cov_num, uint64_t reach_den);
void tune_print_text(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified);

/* tune-json.c */
void tune_print_json(struct tune_run *r, const struct tuner_rec *rec, int64_t observed,
		     const char *obs_how, uint64_t fat, const char *why, int verified);

/* tune-svg.c */
void tune_write_svg(const struct tune_run *r, const char *path, const struct tuner_rec *rec);

#endif
