/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * report's renderers (cli/report-text.c, cli/report-json.c) of analysis/report.h's
 * result, explain's and the sfence.vma account's.
 */
#ifndef TLBSCOPE_CLI_REPORT_H
#define TLBSCOPE_CLI_REPORT_H

#include <jansson.h>

#include "cli.h"
#include "report-explain.h"
#include "report-sfence.h"
#include "../analysis/report.h"

struct report_opts {
	struct common_opts c;
	int top;
	bool quiet;		/* -q: the summary alone */
	const char *platform;	/* borrowed from argv, NULL: generic */
};

void report_text(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
		 const struct report_result *r, const struct explain_result *x,
		 const struct sfence_result *sr, const struct platform *pf);
/* The report as one JSON object (new reference). */
json_t *report_json(const struct report_opts *o, struct ts_source *src, struct timeline *tl,
		    const struct report_result *r, const struct explain_result *x,
		    const struct sfence_result *sr, const struct platform *pf);

#endif
