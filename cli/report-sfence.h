/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report's sfence.vma account and Svvptc what-if (cli/report-sfence.c): @r from
 * tuner/sfence.c, @pf the platform that prices the fences.
 */
#ifndef TLBSCOPE_CLI_REPORT_SFENCE_H
#define TLBSCOPE_CLI_REPORT_SFENCE_H

#include <jansson.h>

#include "cli.h"
#include "../tuner/tuner.h"

void sfence_report_text(struct ts_source *src, struct timeline *tl,
			const struct sfence_result *r, const struct platform *pf);
/* "sfence" and "whatif" into @root */
void sfence_report_json(struct ts_source *src, struct timeline *tl,
			const struct sfence_result *r, const struct platform *pf, json_t *root);

#endif
