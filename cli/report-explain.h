/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Why the flush IPIs happen (cli/report-explain.c), for report: callers, the sender x
 * target matrix, targets not running the mm, the worst bursts.  @s is the IPI evidence
 * report counts (timeline_ipi_source(), -1 none).
 */
#ifndef TLBSCOPE_CLI_REPORT_EXPLAIN_H
#define TLBSCOPE_CLI_REPORT_EXPLAIN_H

#include <jansson.h>

#include "cli.h"

struct explain;
struct explain *explain_new(struct ts_source *src);
void explain_free(struct explain *x);
void explain_feed(void *ctx, struct timeline *tl, const struct ts_event *ev);	/* tl_emit_fn */
/* The text sections; @top limits the processes listed (0 all). */
void explain_text(struct explain *x, struct timeline *tl, int s, int top);
/* "callers", "ipi_matrix", "ipis_not_running", "ipi_bursts" into @j */
void explain_json(struct explain *x, struct timeline *tl, int s, json_t *j);

#endif
