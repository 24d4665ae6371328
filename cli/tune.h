/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to tlbscope tune: its options and the renderers (tune-text.c, tune-json.c,
 * tune-svg.c) of the run analysis/tune.c computes.
 */
#ifndef TLBSCOPE_CLI_TUNE_H
#define TLBSCOPE_CLI_TUNE_H

#include <stdio.h>

#include "../analysis/tune.h"
#include "cli.h"

/* tune's command line: what the analysis is asked, and how to show it */
struct tune_opts {
	struct common_opts c;
	struct tune_params p;
	const char *platform;
	const char *svg;
	const char *decisions;
	const char *save_profile;	/* --save-profile FILE */
	const char *patch;		/* --patch FILE */
	bool verbose;			/* -v: every detail after the summary */
	bool quiet;			/* -q: the summary alone */
};

int tune_parse_args(struct tune_opts *o, int argc, char **argv);

/* tune-text.c */
/* Why the verdict, in words (the JSON's recommendation.reason too). */
void tune_reason(char *buf, size_t len, const struct tune_run *r);
/* "+1.2 %" of @part over @whole, or "n/a" when @whole is 0 */
const char *tune_percent(char *buf, size_t len, double part, double whole);
/* The text of a finished run: @why from tune_reason(); -v, -q */
void tune_print_text(const struct tune_run *r, const char *why, bool verbose, bool quiet);

/*
 * The patch against the base for an "enable" verdict to @out (NULL: only tell); false
 * when there is nothing to change.
 */
bool tune_write_patch(FILE *out, const struct tune_run *r);
/* The patch to file @path (--patch); 0, or -1 with the message printed. */
int tune_save_patch(const struct tune_run *r, const char *path);

/* tune-json.c: the JSON object (new reference), and printed */
struct json_t;
struct json_t *tune_json(const struct tune_run *r, const char *why);
void tune_print_json(const struct tune_run *r, const char *why);

/* tune-svg.c */
/* The SVG of @r into @path: 0, or -1 with the reason printed (the file cannot be written). */
int tune_write_svg(const struct tune_run *r, const char *path);

#endif
