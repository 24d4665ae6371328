// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope record: capture what the analyses need into a trace.dat.  The recording itself
 * (a tracefs instance of our own, "tlbscope-<pid>", every CPU's ring buffer streamed to
 * files next to the output, the trace.dat written from them, tracefs restored on every
 * exit path) is record/'s; this file has the options, the command run under recording,
 * the signals and what is said about it all.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "../record/record.h"
#include "cli.h"

static const char record_usage[] =
	"usage: tlbscope record [-o FILE] [-D SECONDS] [-C CPUS] [-m KB] [--kprobes-via WHERE]\n"
	"                       [--] [COMMAND ...]\n"
	"\n"
	"  -o, --output FILE      the trace.dat to write (default trace.dat)\n"
	"  -D, --duration SECONDS record this long (units: s, ms, us, ns); with a COMMAND,\n"
	"                         the command is sent SIGTERM when the time is up\n"
	"  -C, --cpu CPUS         record only these CPUs (0,2-3)\n"
	"  -m, --buffer-kb KB     ring buffer per CPU in KiB (default 8192)\n"
	"  --kprobes-via WHERE    ftrace (default): the kprobes' events into the ring buffer;\n"
	"                         perf: perf record takes the same events too, into FILE with\n"
	"                         .dat replaced by .perf.data (for a kernel whose ring buffer\n"
	"                         drops kprobe events, as Debian's riscv64 6.12 does)\n"
	"  COMMAND ...            record while COMMAND runs (started once tracing is on);\n"
	"                         options end at the command, or at '--'\n"
	"  -h, --help             this text\n"
	"\n"
	"Without -D or a COMMAND, records until Ctrl-C.  Needs root.\n"
	"-d and -b are older spellings of -D and -m, kept for scripts.\n";

struct record_opts {
	const char *output;
	uint64_t duration_ns;		/* 0 = until the command ends or Ctrl-C */
	bool has_cpus;
	struct ts_cpumask cpus;
	unsigned long buffer_kb;
	char **command;			/* borrowed from argv; NULL = no command */
	bool via_perf;			/* --kprobes-via perf */
	char perf_out[PATH_MAX];	/* then perf record's file */
};

/* Test hook and parse entry: fills @o, never exits.  0 ok, 1 help shown, -1 bad usage. */
int record_parse_args(struct record_opts *o, int argc, char **argv);

/* Whether execvp() can find @cmd, checked before tracefs is touched. */
static bool command_found(const char *cmd)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	if (!*cmd)
		return false;
	if (strchr(cmd, '/'))
		return !access(cmd, X_OK);
	for (const char *p = path ? path : "/usr/bin:/bin"; ; ) {
		size_t n = strcspn(p, ":");

		if (snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, n ? p : ".", cmd) <
		    (int)sizeof(buf) && !access(buf, X_OK))
			return true;
		if (!p[n])
			return false;
		p += n + 1;
	}
}

int record_parse_args(struct record_opts *o, int argc, char **argv)
{
	/* -d and -b were record's first spellings; top has -d delay, -b batch */
	static const struct cli_option opts[] = {
		{ "output", 'o', true }, { "duration", 'D', true, 'd' }, { "cpu", 'C', true },
		{ "buffer-kb", 'm', true, 'b' }, { "kprobes-via", OPT_LONG, true }, { NULL }
	};
	struct cli_parser p;
	const char *v;
	char **rest;
	int key, n;

	memset(o, 0, sizeof(*o));
	o->output = "trace.dat";
	o->buffer_kb = 8192;
	cli_parser_init(&p, "record", record_usage, opts, CLI_STOP_AT_ARG, argc, argv);
	while ((key = cli_parser_next(&p, &v)) != CLI_END) {
		uint64_t u;

		switch (key) {
		case CLI_HELP:
			return 1;
		case CLI_BAD:
			return -1;
		case 'o':
			if (!*v) {
				error("record: --output needs a file name");
				return -1;
			}
			o->output = v;
			break;
		case 'D':
			if (parse_duration_ns(v, &o->duration_ns) || !o->duration_ns) {
				error("record: --duration: '%s' is not a positive time in seconds", v);
				return -1;
			}
			break;
		case 'C':
			if (ts_cpumask_parse_list(&o->cpus, v) || !ts_cpumask_weight(&o->cpus)) {
				error("record: --cpu: '%s' is not a CPU list like 0,2-3", v);
				return -1;
			}
			o->has_cpus = true;
			break;
		case 'm':
			if (parse_u64(v, 10, &u) || u < 4 || u > (1ULL << 30)) {
				error("record: --buffer-kb: '%s' is not a size in KiB (4 .. 1073741824)",
				      v);
				return -1;
			}
			o->buffer_kb = u;
			break;
		case OPT_LONG:
			if (strcmp(v, "ftrace") && strcmp(v, "perf")) {
				error("record: --kprobes-via: '%s' is not ftrace or perf", v);
				return -1;
			}
			o->via_perf = !strcmp(v, "perf");
			break;
		}
	}
	if (o->via_perf && !command_found("perf")) {
		error("record: --kprobes-via perf: no perf command (Debian: linux-perf)");
		return -1;
	}
	if (o->via_perf) {
		size_t len = strlen(o->output);

		if (len > 4 && !strcmp(o->output + len - 4, ".dat"))
			len -= 4;
		if (snprintf(o->perf_out, sizeof(o->perf_out), "%.*s.perf.data", (int)len,
			     o->output) >= (int)sizeof(o->perf_out)) {
			error("record: --output: the name is too long");
			return -1;
		}
	}
	rest = cli_parser_rest(&p, &n);
	if (n && !command_found(rest[0])) {
		error("record: '%s': command not found", rest[0]);
		return -1;
	}
	if (n)
		o->command = rest;
	else if (p.rest > 1 && !strcmp(argv[p.rest - 1], "--")) {
		error("record: '--' needs a command after it");
		return -1;
	}
	return 0;
}

/* ---- the recording ---- */

struct recorder {
	const struct record_opts *o;
	struct rec *rec;
	char tmpdir[PATH_MAX];
	char tmpout[PATH_MAX + 16];	/* the trace.dat until it is complete */
	pid_t child;
	const char *child_name;		/* the command, or "perf" when perf runs alone */
	int child_status;
	bool child_done;
	/*
	 * --kprobes-via perf: perf's control pipe ([0] perf reads, [1] ours) and its answers
	 * ([0] ours, non-blocking; [1] perf writes); -1 when closed.  perf answers the "ping"
	 * written at its start only from its main loop, that is once it records.
	 */
	int perf_ctl[2], perf_ack[2];
};

static volatile sig_atomic_t sig_count, sig_last;

static void on_signal(int sig)
{
	sig_last = sig;
	sig_count++;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

static void remove_tmpdir(struct recorder *rec)
{
	if (!rec->tmpdir[0])
		return;
	unlink(rec->tmpout);
	rmdir(rec->tmpdir);
	rec->tmpdir[0] = '\0';
}

/*
 * In a child before exec: no descriptor of ours may survive, or the instance's
 * trace_pipe_raw files stay open in the command and the instance cannot be removed (EBUSY).
 */
static void close_on_exec_all(void)
{
	if (close_range(3, ~0U, CLOSE_RANGE_CLOEXEC)) {
		for (int fd = 3; fd < 65536; fd++)
			fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
}

/*
 * Start @argv (the command, or perf record with it) once tracing is on; exec failure comes
 * back through a CLOEXEC pipe.  @keep: descriptors (-1: none) the command inherits.
 */
static int start_command(struct recorder *rec, char *const *argv, const int keep[2])
{
	int pfd[2], err = 0;
	ssize_t n;

	if (pipe2(pfd, O_CLOEXEC))
		return error("record: pipe: %s", strerror(errno)), -1;
	rec->child = fork();
	if (rec->child < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return error("record: fork: %s", strerror(errno)), -1;
	}
	if (rec->child == 0) {
		sigset_t none;

		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* ignored dispositions survive exec */
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		close(pfd[0]);
		close_on_exec_all();
		for (int i = 0; keep && i < 2; i++)
			if (keep[i] >= 0)
				fcntl(keep[i], F_SETFD, 0);
		execvp(argv[0], argv);
		err = errno;
		n = write(pfd[1], &err, sizeof(err));
		(void)n;
		_exit(127);
	}
	close(pfd[1]);
	do
		n = read(pfd[0], &err, sizeof(err));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	if (n == sizeof(err)) {
		waitpid(rec->child, NULL, 0);
		rec->child = 0;
		return error("record: cannot run '%s': %s", argv[0], strerror(err)), -1;
	}
	return 0;
}

static void reap_child(struct recorder *rec, bool block)
{
	int status;
	pid_t p;

	if (!rec->child || rec->child_done)
		return;
	p = waitpid(rec->child, &status, block ? 0 : WNOHANG);
	if (p == rec->child) {
		rec->child_done = true;
		rec->child_status = status;
	}
}

/*
 * The pipes of perf's --control, ours non-blocking and close-on-exec; 0, or -1 (printed,
 * none left open).
 */
static int perf_ctl_open(struct recorder *rec)
{
	if (pipe2(rec->perf_ctl, O_CLOEXEC))
		return error("record: pipe: %s", strerror(errno)), -1;
	if (pipe2(rec->perf_ack, O_CLOEXEC)) {
		close(rec->perf_ctl[0]);
		close(rec->perf_ctl[1]);
		rec->perf_ctl[0] = rec->perf_ctl[1] = -1;
		return error("record: pipe: %s", strerror(errno)), -1;
	}
	fcntl(rec->perf_ack[0], F_SETFL, O_NONBLOCK);
	return 0;
}

static void perf_ctl_close(struct recorder *rec)
{
	for (int i = 0; i < 2; i++) {
		if (rec->perf_ctl[i] >= 0)
			close(rec->perf_ctl[i]);
		if (rec->perf_ack[i] >= 0)
			close(rec->perf_ack[i]);
		rec->perf_ctl[i] = rec->perf_ack[i] = -1;
	}
}

/* Whether perf answered the ping: it records (its set-up took seconds under an emulator). */
static bool perf_answered(struct recorder *rec)
{
	char buf[64];
	ssize_t n = read(rec->perf_ack[0], buf, sizeof(buf) - 1);

	if (n <= 0)
		return false;
	buf[n] = '\0';
	return strstr(buf, "ack") != NULL;
}

/* How long perf may take to say it records before -D's time runs without it, in s. */
#define PERF_SETUP_MAX 300

/*
 * Record until the command ends, the duration is over, a reader fails or a signal comes.
 * Through perf, the duration counts from when perf records: stopped earlier, in its set-up,
 * perf writes nothing (a second under QEMU's TCG on a 6.12 riscv64 kernel was not enough).
 * Returns 0 to write the trace, -1 to abort (second signal).
 */
static int record_loop(struct recorder *rec)
{
	const struct record_opts *o = rec->o;
	uint64_t start = mono_ns(), end = 0;
	bool wait_perf = rec->perf_ack[0] >= 0 && rec->child;
	int seen = 0;

	if (!wait_perf && o->duration_ns)
		end = start + o->duration_ns;
	for (;;) {
		reap_child(rec, false);
		if (rec->child_done || rec_stream_failed(rec->rec) || (end && mono_ns() >= end))
			break;
		if (sig_count) {
			seen = sig_count;
			break;
		}
		if (wait_perf && perf_answered(rec)) {
			wait_perf = false;
			fprintf(stderr, "tlbscope: record: perf records (its set-up took %.1f s)\n",
				(mono_ns() - start) / 1e9);
			end = o->duration_ns ? mono_ns() + o->duration_ns : 0;
		} else if (wait_perf && mono_ns() - start >= PERF_SETUP_MAX * 1000000000ULL) {
			wait_perf = false;
			warning("record: perf did not say it records within %d s; the duration "
				"counts from now", PERF_SETUP_MAX);
			end = o->duration_ns ? mono_ns() + o->duration_ns : 0;
		}
		sleep_ms(50);
	}
	if (rec->child && !rec->child_done) {
		/* the command is stopped with the signal record got, or SIGTERM at -D's end */
		kill(rec->child, seen ? sig_last : SIGTERM);
	}
	if (seen)
		fprintf(stderr, "tlbscope: record: stopping (again to abort)\n");
	return 0;
}

/*
 * Say how the command ended; returns the exit status record takes from it, as perf record
 * does: its own status, 128 + the signal that killed it, 0 when it was stopped by record.
 */
static int report_child(struct recorder *rec)
{
	int st = rec->child_status;

	if (!rec->child)
		return 0;
	if (!rec->child_done) {
		warning("record: '%s' still running at exit; killed", rec->child_name);
		kill(rec->child, SIGKILL);
		waitpid(rec->child, NULL, 0);
		return 0;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st)) {
		warning("record: '%s' exited with status %d", rec->child_name, WEXITSTATUS(st));
		return WEXITSTATUS(st);
	}
	if (WIFSIGNALED(st) && WTERMSIG(st) != SIGINT && WTERMSIG(st) != SIGTERM) {
		warning("record: '%s' was killed by signal %d", rec->child_name, WTERMSIG(st));
		return 128 + WTERMSIG(st);
	}
	return 0;
}

/* Wait for the command after recording stopped; a further signal kills it. */
static void wait_child(struct recorder *rec, int signals_before)
{
	while (rec->child && !rec->child_done) {
		reap_child(rec, false);
		if (rec->child_done)
			break;
		if (sig_count > signals_before) {
			kill(rec->child, SIGKILL);
			signals_before = sig_count;
		}
		sleep_ms(50);
	}
}

static int make_tmpdir(struct recorder *rec)
{
	const char *out = rec->o->output, *slash = strrchr(out, '/');

	/* next to the output: same file system, so a full disk shows while recording */
	if (!slash)
		snprintf(rec->tmpdir, sizeof(rec->tmpdir), ".tlbscope-record-XXXXXX");
	else
		snprintf(rec->tmpdir, sizeof(rec->tmpdir), "%.*s/.tlbscope-record-XXXXXX",
			 (int)(slash - out), out);
	if (!mkdtemp(rec->tmpdir)) {
		if (slash)
			error("record: cannot write %s: its directory %.*s: %s", out,
			      (int)(slash - out), out, strerror(errno));
		else
			error("record: cannot write %s in this directory: %s", out,
			      strerror(errno));
		rec->tmpdir[0] = '\0';
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct recorder rec = { .perf_ctl = { -1, -1 }, .perf_ack = { -1, -1 } };
	struct record_opts o;
	struct rec_config rc;
	struct rec_table table;
	uint64_t bytes = 0, lost, t0;
	int status = EXIT_BAD, r = 0, ncpu, child_status;
	char **perf_argv = NULL;
	struct stat st;
	double secs;

	r = record_parse_args(&o, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	rec.o = &o;
	if (cli_need_root("record", NULL))
		return EXIT_BAD;
	rc = (struct rec_config){
		.who = "record", .prefix = "tlbscope", .buffer_kb = o.buffer_kb,
		.cpus = o.has_cpus ? &o.cpus : NULL, .tgid = true,
		.events = REC_EVENTS_RECORD, .kprobes_perf = o.via_perf ? o.perf_out : NULL,
	};

	/* before tracefs is touched; no SA_RESTART: a signal must cut sleeps and waits short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* a closed stderr pipe must not kill record before it removes its instance */
	signal(SIGPIPE, SIG_IGN);

	if (make_tmpdir(&rec))
		goto out_signals;
	rec.rec = rec_open(&rc);
	if (!rec.rec)
		goto out_cleanup;
	if (sig_count) {
		error("record: interrupted while setting up; nothing recorded, %s not written",
		      o.output);
		goto out_cleanup;
	}
	if (rec_stream_start(rec.rec, rec.tmpdir))
		goto out_cleanup;
	t0 = mono_ns();
	if (rec_on(rec.rec))
		goto out_cleanup;
	/* before the command starts: every task it will find is older than the trace */
	if (!rec_task_table(rec.rec, &table))
		fprintf(stderr, "tlbscope: record: task table: %llu tasks, %.1f KiB in %.1f ms%s\n",
			(unsigned long long)table.rows, table.bytes / 1024.0, table.ns / 1e6,
			table.pauses ? " (waiting for the stream to drain the small buffer)" : "");
	if (o.via_perf) {
		/* perf record, the command its workload: perf is set up before the command runs */
		r = perf_ctl_open(&rec);
		if (!r) {
			int keep[2] = { rec.perf_ctl[0], rec.perf_ack[1] };

			perf_argv = rec_perf_argv(rec.rec, o.perf_out, o.command, keep[0], keep[1]);
			rec.child_name = o.command ? o.command[0] : "perf";
			fprintf(stderr, "tlbscope: record: kprobes via perf: perf record takes the "
				"instance's tracepoints and kprobes into %s\n", o.perf_out);
			r = start_command(&rec, perf_argv, keep);
		}
		/* perf's ends are its own now; the ping waits in the pipe for its main loop */
		if (!r && write(rec.perf_ctl[1], "ping\n", 5) != 5)
			warning("record: cannot ask perf whether it records: %s", strerror(errno));
		for (int i = 0; !r && i < 2; i++) {
			int *fd = i ? &rec.perf_ack[1] : &rec.perf_ctl[0];

			close(*fd);
			*fd = -1;
		}
	} else if (o.command) {
		rec.child_name = o.command[0];
		r = start_command(&rec, o.command, NULL);
	}
	if (r) {
		rec_off(rec.rec);
		goto out_cleanup;
	}
	ncpu = o.has_cpus ? ts_cpumask_weight(&o.cpus) : rec_ncpus(rec.rec);
	fprintf(stderr, "tlbscope: record: recording %d CPU%s into %s (instance %s)%s\n",
		ncpu, ncpu == 1 ? "" : "s", o.output, rec_name(rec.rec),
		o.command || o.duration_ns ? "" : "; Ctrl-C stops");
	record_loop(&rec);
	/* perf holds the kprobes' events open: they can be removed only once it is gone */
	if (o.via_perf)
		wait_child(&rec, sig_count);
	rec_off(rec.rec);
	secs = (mono_ns() - t0) / 1e9;
	if (rec_stream_stop(rec.rec, &bytes)) {
		error("record: %s not written", o.output);
		goto out_cleanup;
	}
	lost = rec_lost(rec.rec, true);
	if (sig_count > 1)
		goto out_abort;
	snprintf(rec.tmpout, sizeof(rec.tmpout), "%s/out.dat", rec.tmpdir);
	if (rec_tracedat_head(rec.rec, rec.tmpout)) {
		error("record: %s not written", o.output);
		goto out_cleanup;
	}
	rec_close(rec.rec);	/* tracefs as it was, before the (long) copy of the data */
	wait_child(&rec, sig_count);
	if (sig_count > 1)
		goto out_abort;
	if (rec_tracedat_finish(rec.rec)) {
		error("record: %s not written", o.output);
		goto out_cleanup;
	}
	if (rename(rec.tmpout, o.output)) {
		error("record: %s: %s; not written", o.output, strerror(errno));
		goto out_cleanup;
	}
	fprintf(stderr, "tlbscope: record: wrote %s: %.1f s, %d CPU%s, %llu KiB of events, "
		"%llu lost\n", o.output, secs, ncpu, ncpu == 1 ? "" : "s",
		(unsigned long long)(bytes / 1024), (unsigned long long)lost);
	if (o.via_perf && !stat(o.perf_out, &st) && st.st_size > 0)
		fprintf(stderr, "tlbscope: record: perf record wrote %s (the kprobes and the "
			"tracepoints through perf events; tlbscope report reads it)\n", o.perf_out);
	else if (o.via_perf)
		warning("record: perf record wrote no %s; the kprobes' events are only where "
			"the ring buffer kept them", o.perf_out);
	status = EXIT_OK;
	goto out_cleanup;

out_abort:
	error("record: aborted; %s not written", o.output);
out_cleanup:
	rec_close(rec.rec);
	wait_child(&rec, sig_count);
	child_status = report_child(&rec);
	if (status == EXIT_OK && child_status)
		status = child_status;	/* the trace is written; the command's status is ours */
	rec_free(rec.rec);
	rec_argv_free(perf_argv);
	perf_ctl_close(&rec);
	remove_tmpdir(&rec);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return status;
}
