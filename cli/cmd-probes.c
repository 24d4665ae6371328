// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope probes: every kprobe event of a trace, the function of tlbscope-probes(7) it
 * probes, which of its fields holds each argument and how that was found, and so what is
 * exact, inferred or unavailable.  Also the one-line notes report, info and events print
 * for a probe that lacks something.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "cli.h"
#include "probes.h"

static const char probes_usage[] =
	"usage: tlbscope probes [--json] [--probe-map FILE] TRACE\n"
	"\n"
	"Lists each kprobe event of TRACE, the function it probes, and how each argument of\n"
	"tlbscope-probes(7) was found in its fields: exact, inferred or unavailable.\n"
	"  --json            one JSON object: the probes as an array\n"
	"  --probe-map FILE  lines 'EVENT = FUNCTION' and 'EVENT.FIELD = ARGUMENT' for what\n"
	"                    tlbscope cannot tell by itself (tlbscope-probes(7))\n"
	"  -j, --jobs N      threads reading a trace.dat (default: the CPUs\n"
	"                    available; 1: no thread started)\n"
	"  --strict          exit 2 when records failed the input's checks (skipped,\n"
	"                    inconsistent, escaped; each said on stderr anyway)\n"
	"  --color WHEN      auto (default: on a terminal, unless NO_COLOR), always, never\n"
	"  --no-pager        never page (on a terminal the text goes through $PAGER or\n"
	"                    less -FRX)\n"
	"  -h, --help        this text\n";

static const char *how_text(uint8_t how)
{
	switch (how) {
	case TS_MAP_NAME:	return "by name";
	case TS_MAP_ALIAS:	return "by a documented alias";
	case TS_MAP_POSITION:	return "by position (inferred)";
	case TS_MAP_FILE:	return "by --probe-map";
	case TS_MAP_SYMBOL:	return "by the symbol of its probe address";
	case TS_MAP_EVENT_NAME:	return "by its event name (inferred)";
	default:		return "unavailable";
	}
}

/* Does losing this argument hide anything tlbscope uses? */
static bool arg_matters(const struct ts_probe_arg *a)
{
	return strncmp(a->hides, "nothing", 7) != 0;
}

/*
 * What makes a missing argument @arg of @p found: the --probe-map line naming the field
 * that holds it (the exact line when one field was left over), or the kprobe's definition
 * when it recorded none to spare.
 */
static const char *map_hint(char *buf, size_t len, const struct ts_probe *p, const char *arg)
{
	size_t used;

	if (p->nunused == 1) {
		snprintf(buf, len, "; if its field '%s' holds it, a --probe-map line says so: "
			 "'%s.%s = %s'", p->unused[0], p->event, p->unused[0], arg);
		return buf;
	}
	if (!p->nunused) {
		snprintf(buf, len, "; the probe records no other field: add it to the kprobe "
			 "(tlbscope-probes(7))");
		return buf;
	}
	used = (size_t)snprintf(buf, len, "; if one of its fields (");
	for (int i = 0; i < p->nunused && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
					 p->unused[i]);
	if (used < len)
		snprintf(buf + used, len - used, ") holds it, a --probe-map line says so: "
			 "'%s.FIELD = %s'", p->event, arg);
	return buf;
}

int probes_print_problems(struct ts_source *src, FILE *out, const char *indent)
{
	char hint[512];

	size_t n;
	const struct ts_probe *p = ts_source_probes(src, &n);
	int lines = 0;

	for (size_t i = 0; i < n; i++, p++) {
		char inferred[256] = "";
		size_t used = 0;

		if (!p->func) {
			/* events of kprobes on other functions are only counted: say so once */
			if (!p->events)
				continue;
			fprintf(out, "%sprobe %s: probed function unknown (none of tlbscope-probes(7) by "
				"its symbol or name) -> its %llu events are counted by name only; name "
				"the function with --probe-map if it is one of them\n", indent, p->event,
				(unsigned long long)p->events);
			lines++;
			continue;
		}
		if (!p->fields_known)
			continue;
		if (!p->usable) {
			for (int a = 0; a < p->nargs; a++) {
				if (!p->args[a].required || p->args[a].field)
					continue;
				fprintf(out, "%sprobe %s (%s): no argument '%s' -> its %llu events are "
					"counted by name only; cannot see: %s%s\n", indent, p->event,
					p->func, p->args[a].arg, (unsigned long long)p->events,
					p->args[a].hides,
					map_hint(hint, sizeof(hint), p, p->args[a].arg));
				lines++;
			}
		} else if (p->unusable_events) {
			fprintf(out, "%sprobe %s (%s): %llu of %llu events lack an argument it needs "
				"and are counted by name only\n", indent, p->event, p->func,
				(unsigned long long)p->unusable_events, (unsigned long long)p->events);
			lines++;
		}
		for (int a = 0; a < p->nargs; a++) {
			const struct ts_probe_arg *g = &p->args[a];

			if (g->field || g->required || !arg_matters(g))
				continue;
			fprintf(out, "%sprobe %s (%s): no argument '%s' -> cannot see: %s%s\n",
				indent, p->event, p->func, g->arg, g->hides,
				map_hint(hint, sizeof(hint), p, g->arg));
			lines++;
		}
		if (p->func_how == TS_MAP_EVENT_NAME)
			used += (size_t)snprintf(inferred, sizeof(inferred), "the function by its "
						 "event name");
		for (int a = 0; a < p->nargs && used < sizeof(inferred); a++)
			if (p->args[a].how == TS_MAP_POSITION)
				used += (size_t)snprintf(inferred + used, sizeof(inferred) - used,
							 "%s%s <- %s", used ? ", " : "",
							 p->args[a].arg, p->args[a].field);
		if (used) {
			fprintf(out, "%sprobe %s (%s): inferred %s; check with 'tlbscope probes'\n",
				indent, p->event, p->func, inferred);
			lines++;
		}
	}
	return lines;
}

json_t *probes_notes_json(struct ts_source *src)
{
	json_t *arr = json_array();
	char *buf = NULL, *line, *next;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return arr;
	probes_print_problems(src, f, "");
	fclose(f);
	for (line = buf; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		json_array_append_new(arr, json_text(line));
	}
	free(buf);
	return arr;
}

json_t *probes_json(struct ts_source *src)
{
	size_t n;
	const struct ts_probe *p = ts_source_probes(src, &n);
	json_t *arr = json_array();

	for (size_t i = 0; i < n; i++, p++) {
		json_t *o = json_object(), *args = json_array(), *unused = json_array();

		json_object_set_new(o, "event", json_text(p->event));
		json_object_set_new(o, "function", p->func ? json_text(p->func) : json_null());
		json_object_set_new(o, "function_found_by", p->func ?
				    json_text(ts_map_how_name(p->func_how)) : json_null());
		json_object_set_new(o, "events", json_integer((json_int_t)p->events));
		json_object_set_new(o, "events_counted_by_name_only",
				    json_integer((json_int_t)(p->func && p->usable ?
							      p->unusable_events : p->events)));
		json_object_set_new(o, "usable", json_boolean(p->func && p->usable));
		for (int a = 0; a < p->nargs; a++) {
			const struct ts_probe_arg *g = &p->args[a];
			json_t *ao = json_object();

			json_object_set_new(ao, "argument", json_text(g->arg));
			json_object_set_new(ao, "field", g->field ? json_text(g->field) : json_null());
			json_object_set_new(ao, "found_by", json_text(ts_map_how_name(g->how)));
			json_object_set_new(ao, "status", json_text(!g->field ? "unavailable" :
					    ts_map_how_exact(g->how) || g->how == TS_MAP_ALIAS ?
					    "exact" : "inferred"));
			json_object_set_new(ao, "required", json_boolean(g->required));
			json_object_set_new(ao, "hides", g->field ? json_null() : json_text(g->hides));
			json_array_append_new(args, ao);
		}
		json_object_set_new(o, "arguments", p->fields_known ? args : json_null());
		if (!p->fields_known)
			json_decref(args);
		for (int a = 0; a < p->nunused; a++)
			json_array_append_new(unused, json_text(p->unused[a]));
		json_object_set_new(o, "fields_unused", unused);
		json_array_append_new(arr, o);
	}
	return arr;
}

static void print_text(struct ts_source *src, const char *input)
{
	const struct ts_source_info *info = ts_source_info(src);
	size_t n;
	const struct ts_probe *p = ts_source_probes(src, &n);

	printf("tlbscope probes: %s (%s%s%s)\n", input, info->format, info->detail ? ", " : "",
	       info->detail ? info->detail : "");
	if (!n) {
		printf("no kprobe events: tlbscope-probes(7) says what they would show\n");
		return;
	}
	for (size_t i = 0; i < n; i++, p++) {
		printf("\n%s: ", p->event);
		if (!p->func && !p->events) {
			printf("function unknown (not one of tlbscope-probes(7) by name, and no event "
			       "gives its probe address)\n");
			continue;
		}
		if (!p->func) {
			printf("function unknown (not one of tlbscope-probes(7) by its symbol or "
			       "name), %llu events counted by name only\n",
			       (unsigned long long)p->events);
			continue;
		}
		printf("%s (%s), %llu events", p->func, how_text(p->func_how),
		       (unsigned long long)p->events);
		if (!p->usable && p->events)
			printf(", all counted by name only");
		else if (p->unusable_events)
			printf(", %llu counted by name only", (unsigned long long)p->unusable_events);
		printf("\n");
		if (!p->fields_known) {
			printf("  arguments: not known (no event of it in this input)\n");
			continue;
		}
		for (int a = 0; a < p->nargs; a++) {
			const struct ts_probe_arg *g = &p->args[a];

			if (g->field)
				printf("  %-10s <- %-12s %s\n", g->arg, g->field, how_text(g->how));
			else
				printf("  %-10s    %-12s unavailable%s -> cannot see: %s\n", g->arg, "-",
				       g->required ? " (needed)" : "", g->hides);
		}
		for (int a = 0; a < p->nunused; a++)
			printf("  (field %s: no argument of tlbscope-probes(7) takes it)\n",
			       p->unused[a]);
	}
	printf("\n");
	if (!probes_print_problems(src, stdout, ""))
		printf("every argument tlbscope uses was found by name or alias: exact\n");
}

int cmd_probes(int argc, char **argv)
{
	static const struct cli_option opts[] = { COMMON_OPTS_JSON, PROBE_MAP_OPT, STRICT_OPT, JOBS_OPT,
						  VIEW_OPTS, { NULL } };
	struct common_opts o = { 0 };
	struct ts_source *src;
	struct timeline *tl;
	int r;

	r = common_parse(&o, "probes", probes_usage, opts, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	r = analyze(&o, NULL, NULL, &src, &tl);
	if (!r) {
		view_begin(!o.json);
		if (o.json) {
			json_t *root = json_object();

			json_object_set_new(root, "file", json_text(o.input));
			json_object_set_new(root, "format", json_text(ts_source_info(src)->format));
			json_object_set_new(root, "probes", probes_json(src));
			json_dumpf(root, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
			putchar('\n');
			json_decref(root);
		} else {
			print_text(src, o.input);
		}
	}
	timeline_free(tl);
	ts_source_close(src);
	ts_probe_map_free();
	return r;
}
