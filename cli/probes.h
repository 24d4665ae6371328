/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The kprobe events of a trace as tlbscope mapped them (cli/cmd-probes.c): the probes
 * command, and what report, info and events say about a probe that lacks something.
 */
#ifndef TLBSCOPE_CLI_PROBES_H
#define TLBSCOPE_CLI_PROBES_H

#include <stdio.h>

#include <jansson.h>

#include "../parsers/parsers.h"

#define PROBE_MAP_OPT	{ "probe-map", OPT_PROBE_MAP, true }
/* a key past every command's own options (they count up from OPT_COMMON_END) */
#define OPT_PROBE_MAP	(OPT_LONG + 200)

/*
 * One line per probe that lacks something (its function, an argument) or was mapped by
 * inference, each with what that hides, to @out after @indent; returns the lines printed.
 */
int probes_print_problems(struct ts_source *src, FILE *out, const char *indent);

/* The lines of probes_print_problems() as an array of strings (new). */
json_t *probes_notes_json(struct ts_source *src);

/* Every probe as an array of objects (event, function, arguments and how each was found). */
json_t *probes_json(struct ts_source *src);

int cmd_probes(int argc, char **argv);

#endif
