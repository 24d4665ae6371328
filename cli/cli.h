/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * cli/ - argv to options, dispatch, and everything printed for people or programs.
 * Only this folder decides exit statuses (0 ok, 1 a problem found where asked, 2 bad
 * usage or bad input).
 */
#ifndef TLBSCOPE_CLI_H
#define TLBSCOPE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../timeline/timeline.h"

#define EXIT_OK		0
#define EXIT_PROBLEM	1
#define EXIT_BAD	2

/* Print "tlbscope: <msg>" on stderr; returns EXIT_BAD so that `return error(...)` works. */
int error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Options every analysis command shares. */
struct common_opts {
	const char *input;
	bool json;
	bool has_filter;
	struct tl_filter filter;
	bool from_rel, to_rel;	/* --from/--to given as +T after the first event */
	const char *from_arg, *to_arg;	/* as given, for messages (borrowed from argv) */
	const char *display;	/* the input's name in messages when input is a spooled copy */
	bool checks_said;	/* analyze_run() leaves the input's checks unsaid (a second
				 * pass over an input already read) */
	/*
	 * analyze_run() of a whole input may feed the timeline and @emit on a thread of
	 * their own (model_thread_run()) when more than one thread is in effect: @emit
	 * then runs on that thread, and must not write what the reader's thread writes
	 */
	bool model_thread;
};

/*
 * The command line, one convention for every command (cli/options.c, getopt_long): a
 * command lists its options in a table ended by { NULL }; keys are the short letter, or
 * a value from OPT_LONG up for an option with a long name only.
 */
#include <getopt.h>

struct cli_option {
	const char *name;	/* the long name, without "--" */
	int key;		/* short letter, or OPT_LONG + n */
	bool value;		/* takes a value */
	int old;		/* an older short letter kept for scripts, 0 none */
};

#define OPT_LONG	256
#define CLI_MAX_OPTS	32
#define CLI_STOP_AT_ARG	1	/* the first non-option ends the options (a command follows) */

/* cli_parser_next() results other than an option's key */
#define CLI_END		0	/* no more options or arguments */
#define CLI_ARG		1	/* an argument that is not an option, in *val */
#define CLI_HELP	(-1)	/* -h/--help: usage printed on stdout */
#define CLI_BAD		(-2)	/* bad usage: message printed on stderr */

struct cli_parser {
	const char *cmd, *usage;
	int argc;
	char **argv;
	const struct cli_option *opts;
	struct option longs[CLI_MAX_OPTS + 2];
	char shorts[3 * CLI_MAX_OPTS + 4];
	bool stop_at_arg, after_dashes, done;
	int rest;
};

void cli_parser_init(struct cli_parser *p, const char *cmd, const char *usage,
		     const struct cli_option *opts, unsigned flags, int argc, char **argv);
/* The next option's key (its value in *@val), CLI_ARG, CLI_END, CLI_HELP or CLI_BAD. */
int cli_parser_next(struct cli_parser *p, const char **val);
/* After CLI_END with CLI_STOP_AT_ARG: the arguments left, *@n of them. */
char **cli_parser_rest(struct cli_parser *p, int *n);

/* The options every analysis command shares; pass COMMON_OPTS_JSON (and _FILTER) in a table. */
enum { OPT_JSON = OPT_LONG, OPT_FROM, OPT_TO, OPT_COMMON_END };
#define COMMON_OPTS_JSON	{ "json", OPT_JSON, false }
#define COMMON_OPTS_FILTER	{ "cpu", 'C', true }, { "from", OPT_FROM, true }, { "to", OPT_TO, true }

/*
 * Take a shared option (--json, -C/--cpu LIST, --from T, --to T, --probe-map FILE) of
 * key @key and value @val.  Returns 1 when taken, 0 when @key is not a shared option, -1 on a bad value
 * (message printed).
 */
int common_opt(struct common_opts *o, int key, const char *val);

/* Option @opt's value @v as an int in @lo..@hi into *@out: 0, or -1 (message printed as @cmd). */
int opt_int_in(const char *cmd, const char *opt, const char *v, int lo, int hi, int *out);
/*
 * The lazy model's point of diff, export and top: --threshold T (1..TUNER_MAX_T) into *@T
 * when @threshold, else --queue Q (0..TUNER_MAX_Q) into *@Q.  0, or -1 (message printed).
 */
int opt_lazy_point(const char *cmd, bool threshold, const char *v, int *T, int *Q);

/*
 * Arguments of an analysis command, one trace: 1 taken, -1 (message printed) when a trace
 * was already given.
 */
int common_input(struct common_opts *o, const char *cmd, const char *arg);

/*
 * The whole command line of a command that has shared options only (@opts) and one
 * trace: 0 ok, 1 help shown, -1 bad usage (message printed).
 */
int common_parse(struct common_opts *o, const char *cmd, const char *usage,
		 const struct cli_option *opts, int argc, char **argv);

/*
 * The filter of @o against the opened @src: --cpu naming a CPU past those the trace has,
 * or --from not before --to when both are of a kind (absolute, or +T), is a usage error.
 * 0 ok, -1 with the message printed.
 */
int common_filter_check(const struct common_opts *o, struct ts_source *src);

/*
 * The absolute window of @o's filter in *@f, +T times counted from @first_ts (ns, the
 * first event's); -1 with the message printed when it ends before it starts.
 */
int common_filter_window(const struct common_opts *o, uint64_t first_ts, struct tl_filter *f);

/*
 * One pass over @o->input: every event through a timeline to @emit (NULL: none).  On success *@src
 * and *@tl are new (free with ts_source_close() and timeline_free()) and 0 is returned;
 * on bad input the message is printed and EXIT_BAD returned.
 */
int analyze(const struct common_opts *o, tl_emit_fn emit, void *ctx, struct ts_source **src,
	    struct timeline **tl);

/*
 * The window @f of @o's --from/--to lies wholly outside the events @tl read: a report of
 * zeros would be a lie, so it is bad usage.  0, or -1 with the message (the window, the
 * trace's span) printed.
 */
int common_window_misses(const struct common_opts *o, const struct tl_filter *f,
			 const struct timeline *tl);

/*
 * model-thread.c: the events @next gives (1 one, 0 the end, -1 failed) fed to @tl and
 * @emit, on a thread of its own while that is faster (timed as it goes; the environment's
 * TLBSCOPE_MODEL_THREAD "always", "never" or "alternate" decides instead), every event fed
 * on return, by one thread at a time and in order.  Returns @next's last result.
 */
int model_thread_run(struct timeline *tl, tl_emit_fn emit, void *ctx,
		     int (*next)(void *arg, struct ts_event *ev), void *arg);

/* The read loop of analyze() over an already open @src (borrowed). */
int analyze_run(const struct common_opts *o, struct ts_source *src, tl_emit_fn emit, void *ctx,
		struct timeline **tl);
/*
 * analyze_run() of the input's beginning: from its @min-th event on (0: never), stopping
 * at the first event after which @enough(@ctx, timeline, events read) says so (NULL:
 * right there), checked every 1024 events.  *@whole is false when it stopped before the
 * end: the timeline is finished there, and nothing about the input as a whole (lost
 * events, its checks, a --from/--to it misses) is said.
 */
int analyze_run_prefix(const struct common_opts *o, struct ts_source *src, uint64_t min,
		       bool (*enough)(void *ctx, const struct timeline *tl, uint64_t n),
		       tl_emit_fn emit, void *ctx, struct timeline **tl, bool *whole);

/*
 * --strict (every command that reads a trace): records the input's checks skipped or found
 * inconsistent (parsers' enum ts_check, malformed records) make the run fail with exit 2.
 */
#define STRICT_OPT	{ "strict", OPT_STRICT, false }
#define OPT_STRICT	(OPT_LONG + 201)	/* past every command's own keys, as --probe-map */
extern bool cli_strict;

/*
 * -j N, --jobs N (every command that reads a trace): threads reading a trace.dat, set for
 * every source opened after it (ts_jobs_set()).  jobs_opt(): 1 taken, -1 (message printed)
 * when @val is not a count in 1..1024.
 */
#define JOBS_OPT	{ "jobs", 'j', true }
int jobs_opt(const char *val);

/*
 * What the checks of @src's records found (skipped, inconsistent, escaped, malformed), as
 * one stderr warning per class naming @name and the first place.  Returns EXIT_BAD (the
 * message printed) when --strict is on and any record failed a check, else EXIT_OK.
 * Losses are not failed checks: the kernel's, said where lost events are.
 */
int source_checks_warn(struct ts_source *src, const char *name);
/*
 * The same on stdout, two lines a class after @indent: "input checks: <what>: N" and
 * "  first: <place>"; returns the lines printed.
 */
int source_checks_print(struct ts_source *src, const char *indent);
/* The same in one line after @indent for a one-screen summary, when any record failed a check. */
void source_checks_line(struct ts_source *src, const char *indent);

/*
 * A string that may not be UTF-8 (a path, a name the input gave) as JSON, its stray bytes
 * escaped as \xNN as the input's checks escape names, never dropped: jansson refuses such a
 * string.  New reference; NULL only for a NULL @s.
 */
struct json_t *json_text(const char *s);

/*
 * The same into @obj: "input_checks", {key: count} of every class, and "input_checks_first",
 * {key: place} of the classes met.
 */
void source_checks_json(struct json_t *obj, struct ts_source *src);

/*
 * Views (cli/view.c): a text view on a terminal goes through a pager ($TLBSCOPE_PAGER,
 * $PAGER, less -FRX; --no-pager), in colour on a terminal only (--color=auto|always|never,
 * NO_COLOR), and no line of it is longer than 100 columns (prose continues on the next,
 * indented).  A command calls view_begin() once it is about to print (its warnings
 * already on stderr): @text for a text view, false for data (JSON) that is only paged.
 * main() ends every command with view_end(), which flushes as finish_stdout() does.
 */
enum view_color { VIEW_COLOR_AUTO, VIEW_COLOR_NEVER, VIEW_COLOR_ALWAYS };

/* What the command table says of the command running (cli/tlbscope.c) */
enum {
	CMD_PAGER = 1,		/* its text goes through the pager on a terminal */
	CMD_TRACEFS = 2,	/* it traces this machine: root and tracefs (top: unless --replay) */
};
extern unsigned cli_command_flags;
/*
 * A command of CMD_TRACEFS about to trace: 0 as root, else "CMD: needs root (tracefs);
 * UNLESS" said and EXIT_BAD (@unless: how to do without it, or NULL).
 */
int cli_need_root(const char *cmd, const char *unless);
extern struct view_opts {
	enum view_color color;
	bool no_pager;
} cli_view;
#define OPT_COLOR	(OPT_LONG + 202)
#define OPT_NO_PAGER	(OPT_LONG + 203)
#define VIEW_OPTS	{ "color", OPT_COLOR, true }, { "no-pager", OPT_NO_PAGER, false }
/* --color/--no-pager of key @key: 1 taken, 0 not one of them, -1 bad value (said). */
int view_opt(int key, const char *val);
void view_begin(bool text);
int view_end(int status);

/* Flush stdout and report a write error (full disk, closed pipe); returns the exit status. */
int finish_stdout(int status);

/* Text tables aligned like perf/rtla: columns right-aligned unless marked left ("<"). */
struct table;
struct table *table_new(int ncols, const char *const *headers, const char *aligns);
void table_add(struct table *t, const char *const *cells);
void table_print(struct table *t, FILE *out, const char *indent);
void table_free(struct table *t);

/* Sorted string ids of the event names the timeline counted; *@ids is new (free()). */
size_t events_by_name(struct ts_source *src, struct timeline *tl, uint32_t **ids);

void format_ns(char *buf, size_t len, uint64_t ns);	/* "1.234567" seconds */

/*
 * An input that can be read only once (@input "-" for standard input, or a named pipe or
 * a device) copied to a temporary file (in TMPDIR or /tmp, unlinked at once) for a command
 * that reads its input more than once: @path (@len bytes) becomes "/proc/self/fd/N",
 * valid in children too, *@fdp the descriptor to close; 1.  0 for what can be read again
 * (ts_input_once()), read in place.  -1 with the message printed as @cmd.
 */
int spool_stream(const char *cmd, const char *input, char *path, size_t len, int *fdp);

int cmd_report(int argc, char **argv);
/* report --json / tune --json of @path, in this process: new references, NULL on failure
 * (the message printed) */
struct json_t;
struct json_t *report_json_of(const char *path, const char *display);
struct json_t *tune_json_of(const char *path, const char *display, int T, int Q);
int cmd_info(int argc, char **argv);
int cmd_events(int argc, char **argv);
int cmd_tune(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_diff(int argc, char **argv);

#endif
