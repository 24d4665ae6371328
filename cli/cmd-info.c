// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope info: what a trace is - format, CPUs, time span, kernel where known, and
 * every event by name with its count.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "probes.h"

static const char info_usage[] =
	"usage: tlbscope info [--json] [--probe-map FILE] TRACE\n"
	"\n"
	"  --json            one JSON object: format, cpus, span, kernel, events by name\n"
	"  --probe-map FILE  kprobe events and arguments under other names: lines\n"
	"                    'EVENT = FUNCTION', 'EVENT.FIELD = ARGUMENT' (tlbscope-probes(7))\n"
	"  -j, --jobs N      threads reading a trace.dat (default: the CPUs\n"
	"                    available; 1: no thread started)\n"
	"  --strict          exit 2 when records failed the input's checks (skipped,\n"
	"                    inconsistent, escaped; each said on stderr anyway)\n"
	"  --color WHEN      auto (default: on a terminal, unless NO_COLOR), always, never\n"
	"  --no-pager        never page (on a terminal the text goes through $PAGER or\n"
	"                    less -FRX)\n"
	"  -h, --help        this text\n";

int cmd_info(int argc, char **argv)
{
	static const struct cli_option opts[] = { COMMON_OPTS_JSON, PROBE_MAP_OPT, STRICT_OPT, JOBS_OPT,
						  VIEW_OPTS, { NULL } };
	struct common_opts o = { 0 };
	const struct ts_source_info *info;
	struct ts_source *src;
	struct timeline *tl;
	uint64_t first, last, total = 0, lost, marks;
	uint32_t *ids;
	size_t n;
	int r;

	r = common_parse(&o, "info", info_usage, opts, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	r = analyze(&o, NULL, NULL, &src, &tl);
	if (r) {
		timeline_free(tl);
		ts_source_close(src);
		ts_probe_map_free();
		return r;
	}
	info = ts_source_info(src);
	first = timeline_first_ts(tl);
	last = timeline_last_ts(tl);
	lost = timeline_lost(tl, &marks);
	n = events_by_name(src, tl, &ids);
	for (size_t i = 0; i < n; i++)
		total += timeline_name_count(tl, ids[i]);

	view_begin(!o.json);
	if (o.json) {
		json_t *root = json_object(), *evs = json_object();

		json_object_set_new(root, "file", json_text(o.input));
		json_object_set_new(root, "format", json_text(info->format));
		json_object_set_new(root, "detail", info->detail ? json_text(info->detail) : json_null());
		json_object_set_new(root, "kernel", info->uname ? json_text(info->uname) : json_null());
		json_object_set_new(root, "cmdline", info->cmdline ? json_text(info->cmdline) :
				    json_null());
		json_object_set_new(root, "cpus", json_integer(info->cpus ? info->cpus : timeline_cpus(tl)));
		json_object_set_new(root, "first_ns", json_integer((json_int_t)first));
		json_object_set_new(root, "last_ns", json_integer((json_int_t)last));
		json_object_set_new(root, "duration_ns", json_integer((json_int_t)(last - first)));
		json_object_set_new(root, "total_events", json_integer((json_int_t)total));
		json_object_set_new(root, "lost_events", json_integer((json_int_t)lost));
		json_object_set_new(root, "lost_markers_without_count", json_integer((json_int_t)marks));
		json_object_set_new(root, "malformed_skipped",
				    json_integer((json_int_t)ts_source_skipped(src, NULL)));
		source_checks_json(root, src);
		for (size_t i = 0; i < n; i++)
			json_object_set_new(evs, ts_source_str(src, ids[i]),
					    json_integer((json_int_t)timeline_name_count(tl, ids[i])));
		json_object_set_new(root, "events", evs);
		{
			json_t *k = json_array();

			for (size_t i = 0; i < info->nkprobes_defined; i++)
				json_array_append_new(k, json_text(info->kprobes_defined[i]));
			json_object_set_new(root, "kprobes_defined", k);
		}
		json_object_set_new(root, "probes", probes_json(src));
		json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		putchar('\n');
		json_decref(root);
	} else {
		char a[32], b[32], d[32];
		const char *where;

		format_ns(a, sizeof(a), first);
		format_ns(b, sizeof(b), last);
		format_ns(d, sizeof(d), last - first);
		printf("file:      %s\n", o.input);
		printf("format:    %s%s%s%s\n", info->format, info->detail ? " (" : "",
		       info->detail ? info->detail : "", info->detail ? ")" : "");
		printf("kernel:    %s\n", info->uname ? info->uname : "unknown (not in this input)");
		if (info->cmdline)
			printf("cmdline:   %s\n", info->cmdline);
		printf("cpus:      %d\n", info->cpus ? info->cpus : timeline_cpus(tl));
		printf("span:      %s .. %s s (%s s)\n", a, b, d);
		printf("events:    %llu\n", (unsigned long long)total);
		printf("lost:      %llu%s\n", (unsigned long long)lost,
		       marks ? " (and sub-buffers with an unknown number lost)" : "");
		if (ts_source_skipped(src, &where))
			printf("malformed: %llu skipped (first: %s)\n",
			       (unsigned long long)ts_source_skipped(src, NULL), where);
		source_checks_print(src, "");
		if (info->nkprobes_defined) {
			printf("kprobes:   %zu defined:", info->nkprobes_defined);
			for (size_t i = 0; i < info->nkprobes_defined; i++)
				printf("%s %s", i ? "," : "", info->kprobes_defined[i]);
			printf("\n");
		}
		{
			size_t np;

			ts_source_probes(src, &np);
			if (np)
				printf("probes:    %zu kprobe events ('tlbscope probes' shows how each "
				       "argument was found)\n", np);
			probes_print_problems(src, stdout, "  ");
		}
		printf("\n");
		{
			static const char *const hdr[] = { "EVENT", "COUNT" };
			struct table *t = table_new(2, hdr, "<>");

			for (size_t i = 0; i < n; i++) {
				char cnt[32];
				const char *row[2] = { ts_source_str(src, ids[i]), cnt };

				snprintf(cnt, sizeof(cnt), "%llu",
					 (unsigned long long)timeline_name_count(tl, ids[i]));
				table_add(t, row);
			}
			table_print(t, stdout, "");
			table_free(t);
		}
	}
	free(ids);
	timeline_free(tl);
	ts_source_close(src);
	ts_probe_map_free();
	return EXIT_OK;
}
