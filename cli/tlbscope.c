// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope: the command table and dispatch, git style.  Each subcommand lives in its own
 * cli/cmd-<name>.c and parses its own arguments.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "probes.h"

#define TLBSCOPE_VERSION "0.1"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	unsigned flags;		/* CMD_* */
	const char *summary;
};

static const struct command commands[] = {
	{ "report", cmd_report, CMD_PAGER,
	  "where TLB flushes and flush IPIs come from, per CPU and process" },
	{ "info", cmd_info, CMD_PAGER, "what a trace is: format, CPUs, span, kernel, events by name" },
	{ "events", cmd_events, 0, "the normalized event stream as JSON lines" },
	{ "probes", cmd_probes, CMD_PAGER,
	  "the kprobe events of a trace and how their arguments were mapped" },
	{ "tune", cmd_tune, CMD_PAGER, "replay under stock and lazy flushing; recommend T and Q" },
	{ "record", cmd_record, CMD_TRACEFS,
	  "capture a trace.dat of this machine from a tracefs instance" },
	{ "top", cmd_top, CMD_TRACEFS,
	  "watch flushes, IPIs and the lazy model live (root), or replay a trace" },
	{ "export", cmd_export, 0, "the trace as a Perfetto / chrome://tracing timeline" },
	{ "diff", cmd_diff, CMD_PAGER, "two runs side by side: the same measures and their change" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: tlbscope <command> [options] TRACE\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-8s %s%s\n", commands[i].name, commands[i].summary,
			commands[i].flags & CMD_TRACEFS && !strstr(commands[i].summary, "(root)") ?
			" (root)" : "");
	fprintf(out, "\nTRACE is a trace.dat, ftrace text (tracefs 'trace' or 'trace-cmd report'\n"
		"output), a perf.data or 'perf script' output, or tlbscope JSON lines; '-' reads\n"
		"standard input.\n"
		"'tlbscope <command> --help' and 'man tlbscope-<command>' tell more.\n");
}

int main(int argc, char **argv)
{
	char err[TS_ERR_LEN];

	/* re-executed after libtracecmd died on a trace.dat: say where, as for bad input */
	if (ts_tracedat_died_main(argc, argv, err))
		return error("%s", err);
	ts_tracedat_guard_here();
	if (argc < 2) {
		usage(stderr);
		return EXIT_BAD;
	}
	/* "help CMD" is "CMD --help", as git has it */
	if (!strcmp(argv[1], "help") && argc > 2) {
		char *help[] = { argv[2], "--help", NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return view_end(commands[i].fn(2, help));
		error("'%s' is not a tlbscope command; see 'tlbscope --help'", argv[2]);
		return EXIT_BAD;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return finish_stdout(EXIT_OK);
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("tlbscope %s\n", TLBSCOPE_VERSION);
		return finish_stdout(EXIT_OK);
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name)) {
			cli_command_flags = commands[i].flags;
			return view_end(commands[i].fn(argc - 1, argv + 1));
		}
	error("'%s' is not a tlbscope command; see 'tlbscope --help'", argv[1]);
	return EXIT_BAD;
}
