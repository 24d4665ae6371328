/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report's sections on why the flush IPIs happen (cli/report-explain.c), printed from
 * analysis/explain.h's result: callers, the sender x target matrix, targets not running
 * the mm, the worst bursts.
 */
#ifndef TLBSCOPE_CLI_REPORT_EXPLAIN_H
#define TLBSCOPE_CLI_REPORT_EXPLAIN_H

#include <jansson.h>

#include "cli.h"
#include "../analysis/explain.h"

/*
 * The text sections; @top limits the processes listed (0 all).  @requests_known false: no
 * flush request can be known, and the callers' requests are n/a (JSON null), not 0.
 */
void explain_text(const struct explain_result *x, int top, bool requests_known);
/* "callers", "ipi_matrix", "ipis_not_running", "ipis_mm_unknown", "ipi_bursts" into @j */
void explain_json(const struct explain_result *x, json_t *j, bool requests_known);

#endif
