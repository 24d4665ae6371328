// SPDX-License-Identifier: GPL-2.0-only
/*
 * tlbscope record: capture what the analyses need into a trace.dat, from a tracefs instance
 * of our own ("tlbscope-<pid>"), streaming every CPU's ring buffer to disk while recording.
 * The tracefs state it adds (the instance, kprobes in the group "tlbscope") is removed on
 * every exit path; the top-level buffer is never touched.
 *
 * The trace.dat is written from the per-CPU raw files by tracedat-write.c, which only
 * reads tracefs and /proc (libtracecmd's writer sets kptr_restrict).  What is enabled is
 * record-events.c's, the struct offsets of the kprobe arguments record-btf.c's.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record.h"

static const char record_usage[] =
	"usage: tlbscope record [-o FILE] [-D SECONDS] [-C CPUS] [-m KB] [--] [COMMAND ...]\n"
	"\n"
	"  -o, --output FILE      the trace.dat to write (default trace.dat)\n"
	"  -D, --duration SECONDS record this long (units: s, ms, us, ns); with a COMMAND,\n"
	"                         the command is sent SIGTERM when the time is up\n"
	"  -C, --cpu CPUS         record only these CPUs (0,2-3)\n"
	"  -m, --buffer-kb KB     ring buffer per CPU in KiB (default 8192)\n"
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
		{ "buffer-kb", 'm', true, 'b' }, { NULL }
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

struct cpu_reader {
	struct recorder *rec;
	int cpu;
	int out_fd;			/* the per-CPU raw file */
	struct tracefs_cpu *tcpu;	/* NULL for a CPU not recorded */
	pthread_t thread;
	bool started;
	int err;			/* errno of a failed read or write; 0 ok */
	uint64_t bytes;
};

struct recorder {
	const struct record_opts *o;
	struct tracefs_instance *inst;
	char name[64];
	const char *tracing_dir;	/* borrowed from libtracefs */
	char tmpdir[PATH_MAX];
	char tmpout[PATH_MAX + 16];	/* the trace.dat until it is complete */
	struct tracedat_out *out;	/* open from write_head() to write_tracedat() */
	int ncpus;
	struct cpu_reader *cpus;
	struct tracefs_dynevent *kp_added[RECORD_N_KP];	/* kprobes we created (removed at exit) */
	atomic_int stop;		/* readers: drain what is left and return */
	pid_t child;
	int child_status;
	bool child_done;
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

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Write all of @len or fail with errno set (ENOSPC for a full disk). */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= w;
	}
	return 0;
}

/* Move everything readable now from the CPU's ring buffer to its file; -1 on error. */
static int reader_drain(struct cpu_reader *c, void *buf)
{
	for (;;) {
		int r = tracefs_cpu_read(c->tcpu, buf, true);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno == EAGAIN)
			return 0;
		if (r < 0) {
			c->err = errno;
			return -1;
		}
		if (r == 0)
			return 0;
		if (write_all(c->out_fd, buf, r)) {
			c->err = errno;
			return -1;
		}
		c->bytes += r;
	}
}

/*
 * One thread per recorded CPU: every 100 ms, copy what the ring buffer holds to the CPU's
 * file, so the buffer only has to hold 100 ms of events (no overwrite on long runs).
 */
static void *reader_main(void *arg)
{
	struct cpu_reader *c = arg;
	void *buf = xmalloc(tracefs_cpu_read_size(c->tcpu));

	for (;;) {
		bool last = atomic_load(&c->rec->stop);

		if (reader_drain(c, buf)) {
			atomic_store(&c->rec->stop, 1);
			break;
		}
		if (last)
			break;
		sleep_ms(100);
	}
	free(buf);
	return NULL;
}

/* "tracing_cpumask" format: hex words of 32 CPUs, most significant first, comma-separated. */
static void cpumask_hex(const struct ts_cpumask *m, int ncpus, char *out, size_t len)
{
	size_t pos = 0;

	out[0] = '\0';
	for (int w = (ncpus - 1) / 32; w >= 0; w--) {
		uint32_t word = m->bits[w / 2] >> (32 * (w % 2));

		pos += snprintf(out + pos, len - pos, "%s%08x", pos ? "," : "", word);
		if (pos >= len)
			break;
	}
}

static bool tracefs_mounted(void)
{
	FILE *f = fopen("/proc/mounts", "re");
	char line[1024];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = strstr(line, " tracefs ") != NULL;
	fclose(f);
	return found;
}

/* Find tracefs, mounting it at /sys/kernel/tracing when it is not mounted.  0 ok. */
static int tracefs_find(struct recorder *rec)
{
	if (!tracefs_mounted()) {
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
			error("record: tracefs is not mounted, and mounting it at /sys/kernel/tracing "
			      "failed: %s", strerror(errno));
			return -1;
		}
		fprintf(stderr, "tlbscope: record: tracefs was not mounted; mounted it at "
			"/sys/kernel/tracing\n");
	}
	rec->tracing_dir = tracefs_tracing_dir();
	if (!rec->tracing_dir) {
		error("record: cannot find the tracefs mount");
		return -1;
	}
	return 0;
}

static int count_cpus(struct recorder *rec)
{
	char *dir = tracefs_instance_get_file(rec->inst, "per_cpu");
	struct dirent *d;
	DIR *dp;
	int n = 0;

	dp = dir ? opendir(dir) : NULL;
	tracefs_put_tracing_file(dir);
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		int cpu;

		if (!strncmp(d->d_name, "cpu", 3) && !parse_int(d->d_name + 3, &cpu) && cpu + 1 > n)
			n = cpu + 1;
	}
	closedir(dp);
	return n;
}





/* Undo everything added to tracefs; safe to call more than once. */
static void recorder_cleanup(struct recorder *rec)
{
	if (rec->inst) {
		tracefs_trace_off(rec->inst);
		for (int i = 0; i < rec->ncpus && rec->cpus; i++) {
			tracefs_cpu_close(rec->cpus[i].tcpu);
			rec->cpus[i].tcpu = NULL;
		}
		if (tracefs_instance_destroy(rec->inst))
			warning("record: cannot remove tracefs instance %s: %s", rec->name,
				strerror(errno));
		tracefs_instance_free(rec->inst);
		rec->inst = NULL;
	}
	record_remove_kprobes(rec->kp_added);
}

static void remove_tmpdir(struct recorder *rec)
{
	char path[PATH_MAX + 16];

	if (!rec->tmpdir[0])
		return;
	for (int i = 0; i < rec->ncpus; i++) {
		snprintf(path, sizeof(path), "%s/cpu%d", rec->tmpdir, i);
		unlink(path);
	}
	tracedat_out_free(rec->out);
	rec->out = NULL;
	unlink(rec->tmpout);
	rmdir(rec->tmpdir);
	rec->tmpdir[0] = '\0';
}

static int setup_instance(struct recorder *rec, bool riscv)
{
	const struct record_opts *o = rec->o;

	tracefs_reap_stale("record");
	snprintf(rec->name, sizeof(rec->name), "tlbscope-%d", (int)getpid());
	if (tracefs_instance_exists(rec->name)) {
		error("record: tracefs instance %s already exists", rec->name);
		return -1;
	}
	rec->inst = tracefs_instance_create(rec->name);
	if (!rec->inst) {
		error("record: cannot create tracefs instance %s: %s", rec->name, strerror(errno));
		return -1;
	}
	tracefs_trace_off(rec->inst);	/* a new instance starts with tracing on */
	rec->ncpus = count_cpus(rec);
	if (rec->ncpus <= 0) {
		error("record: %s: no per_cpu directories", rec->name);
		return -1;
	}
	if (tracefs_instance_set_buffer_size(rec->inst, o->buffer_kb, -1)) {
		error("record: cannot set the ring buffer to %lu KiB per CPU: %s", o->buffer_kb,
		      strerror(errno));
		return -1;
	}
	if (o->has_cpus) {
		char hex[TS_MAX_CPUS / 4 + TS_MAX_CPUS / 32 + 8];

		for (int c = rec->ncpus; c < TS_MAX_CPUS; c++)
			if (ts_cpumask_test(&o->cpus, c)) {
				error("record: --cpu: CPU %d does not exist (this machine has %d)", c,
				      rec->ncpus);
				return -1;
			}
		cpumask_hex(&o->cpus, rec->ncpus, hex, sizeof(hex));
		if (tracefs_instance_file_write(rec->inst, "tracing_cpumask", hex) < 0) {
			error("record: cannot set tracing_cpumask to %s: %s", hex, strerror(errno));
			return -1;
		}
	}
	if (tracefs_option_enable(rec->inst, TRACEFS_OPTION_RECORD_TGID))
		warning("record: cannot set options/record-tgid; processes will be guessed from pids");
	return record_enable_tracepoints(rec->inst, riscv);
}

static int open_readers(struct recorder *rec)
{
	char path[PATH_MAX + 16];

	rec->cpus = xcalloc(rec->ncpus, sizeof(*rec->cpus));
	for (int i = 0; i < rec->ncpus; i++)
		rec->cpus[i].out_fd = -1;
	for (int i = 0; i < rec->ncpus; i++) {
		struct cpu_reader *c = &rec->cpus[i];

		c->rec = rec;
		c->cpu = i;
		snprintf(path, sizeof(path), "%s/cpu%d", rec->tmpdir, i);
		c->out_fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (c->out_fd < 0) {
			error("record: %s: %s", path, strerror(errno));
			return -1;
		}
		if (rec->o->has_cpus && !ts_cpumask_test(&rec->o->cpus, i))
			continue;	/* an empty file keeps the CPU numbering */
		c->tcpu = tracefs_cpu_open(rec->inst, i, true);
		if (!c->tcpu) {
			error("record: cannot open cpu %d's trace_pipe_raw: %s", i, strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int start_readers(struct recorder *rec)
{
	sigset_t all, old;
	int r = 0;

	/* signals go to the main thread only */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < rec->ncpus; i++) {
		struct cpu_reader *c = &rec->cpus[i];

		if (!c->tcpu)
			continue;
		if (pthread_create(&c->thread, NULL, reader_main, c)) {
			error("record: cannot start a reader thread for cpu %d", i);
			r = -1;
			break;
		}
		c->started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return r;
}

/* Stop the readers after their last drain; returns -1 (message printed) if one failed. */
static int stop_readers(struct recorder *rec)
{
	int r = 0;

	atomic_store(&rec->stop, 1);
	for (int i = 0; i < rec->ncpus && rec->cpus; i++) {
		struct cpu_reader *c = &rec->cpus[i];

		if (c->started) {
			pthread_join(c->thread, NULL);
			c->started = false;
		}
		if (c->out_fd >= 0 && close(c->out_fd) && !c->err)
			c->err = errno;
		c->out_fd = -1;
		if (c->err) {
			error("record: %s: cpu %d's data: %s; %s not written", rec->tmpdir, i,
			      strerror(c->err), rec->o->output);
			r = -1;
		}
	}
	return r;
}

/* Overruns and dropped events per CPU, from per_cpu/cpuN/stats; returns the total. */
static uint64_t report_lost(struct recorder *rec)
{
	static const struct {
		const char *key, *label;
	} keys[] = { { "overrun:", "overrun" }, { "dropped events:", "dropped" } };
	uint64_t total = 0;

	for (int i = 0; i < rec->ncpus; i++) {
		char file[64], *stats, *p;

		if (rec->o->has_cpus && !ts_cpumask_test(&rec->o->cpus, i))
			continue;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", i);
		stats = tracefs_instance_file_read(rec->inst, file, NULL);
		if (!stats)
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			uint64_t v;

			p = strstr(stats, keys[k].key);
			if (!p)
				continue;
			v = strtoull(p + strlen(keys[k].key), NULL, 10);
			if (v)
				fprintf(stderr, "tlbscope: cpu %d: %llu events lost (%s)\n", i,
					(unsigned long long)v, keys[k].label);
			total += v;
		}
		free(stats);
	}
	return total;
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

/* The header part of the trace.dat (event formats, kallsyms, cmdlines), while our events exist. */
static int write_head(struct recorder *rec)
{
	snprintf(rec->tmpout, sizeof(rec->tmpout), "%s/out.dat", rec->tmpdir);
	rec->out = tracedat_out_open(rec->tmpout, rec->inst, "record");
	if (!rec->out)
		return error("record: %s not written", rec->o->output), -1;
	return 0;
}

/* The cpu files after the header, then @o->output (through a temporary name, so no half file). */
static int write_tracedat(struct recorder *rec)
{
	char **files = xcalloc(rec->ncpus, sizeof(*files));
	int r;

	for (int i = 0; i < rec->ncpus; i++) {
		size_t len = strlen(rec->tmpdir) + 16;

		files[i] = xmalloc(len);
		snprintf(files[i], len, "%s/cpu%d", rec->tmpdir, i);
	}
	r = tracedat_out_add_cpus(rec->out, rec->ncpus, files);
	if (tracedat_out_close(rec->out))
		r = -1;
	rec->out = NULL;
	if (!r && rename(rec->tmpout, rec->o->output)) {
		error("record: %s: %s", rec->o->output, strerror(errno));
		r = -1;
	}
	if (r)
		error("record: %s not written", rec->o->output);
	for (int i = 0; i < rec->ncpus; i++)
		free(files[i]);
	free(files);
	return r;
}

/* Start the command once tracing is on; exec failure comes back through a CLOEXEC pipe. */
static int start_command(struct recorder *rec)
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
		execvp(rec->o->command[0], rec->o->command);
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
		return error("record: cannot run '%s': %s", rec->o->command[0], strerror(err)), -1;
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
 * Record until the command ends, the duration is over, a reader fails or a signal comes.
 * Returns 0 to write the trace, -1 to abort (second signal).
 */
static int record_loop(struct recorder *rec)
{
	const struct record_opts *o = rec->o;
	uint64_t end = o->duration_ns ? now_ns() + o->duration_ns : 0;
	int seen = 0;

	for (;;) {
		reap_child(rec, false);
		if (rec->child_done || atomic_load(&rec->stop) || (end && now_ns() >= end))
			break;
		if (sig_count) {
			seen = sig_count;
			break;
		}
		sleep_ms(50);
	}
	if (rec->child && !rec->child_done) {
		/* the command is stopped with the signal record got, or SIGTERM at -d's end */
		kill(rec->child, seen ? sig_last : SIGTERM);
	}
	if (seen)
		fprintf(stderr, "tlbscope: record: stopping (again to abort)\n");
	return 0;
}

static void report_child(struct recorder *rec)
{
	int st = rec->child_status;

	if (!rec->child)
		return;
	if (!rec->child_done) {
		warning("record: '%s' still running at exit; killed", rec->o->command[0]);
		kill(rec->child, SIGKILL);
		waitpid(rec->child, NULL, 0);
		return;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st))
		warning("record: '%s' exited with status %d", rec->o->command[0], WEXITSTATUS(st));
	else if (WIFSIGNALED(st) && WTERMSIG(st) != SIGINT && WTERMSIG(st) != SIGTERM)
		warning("record: '%s' was killed by signal %d", rec->o->command[0], WTERMSIG(st));
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
		error("record: cannot create a directory next to %s: %s", out, strerror(errno));
		rec->tmpdir[0] = '\0';
		return -1;
	}
	return 0;
}

int cmd_record(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	struct recorder rec = { 0 };
	struct record_opts o;
	struct utsname un;
	uint64_t bytes = 0, lost, t0;
	int status = EXIT_BAD, r, ncpu;
	double secs;
	bool riscv;

	r = record_parse_args(&o, argc, argv);
	if (r)
		return r > 0 ? EXIT_OK : EXIT_BAD;
	rec.o = &o;
	if (geteuid() != 0)
		return error("record: needs root (tracefs)");
	if (uname(&un))
		return error("record: uname: %s", strerror(errno));
	riscv = !strcmp(un.machine, "riscv64");

	/* before tracefs is touched; no SA_RESTART: a signal must cut sleeps and waits short */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	/* a closed stderr pipe must not kill record before it removes its instance */
	signal(SIGPIPE, SIG_IGN);

	if (tracefs_find(&rec) || make_tmpdir(&rec))
		goto out_signals;
	if (setup_instance(&rec, riscv))
		goto out_cleanup;
	record_add_kprobes(rec.inst, rec.tracing_dir, un.machine, rec.kp_added);
	if (sig_count) {
		error("record: interrupted while setting up; nothing recorded, %s not written",
		      o.output);
		goto out_cleanup;
	}
	if (open_readers(&rec) || start_readers(&rec))
		goto out_stop;
	t0 = now_ns();
	if (tracefs_trace_on(rec.inst)) {
		error("record: cannot turn tracing on in %s: %s", rec.name, strerror(errno));
		goto out_stop;
	}
	if (o.command && start_command(&rec)) {
		tracefs_trace_off(rec.inst);
		goto out_stop;
	}
	ncpu = o.has_cpus ? ts_cpumask_weight(&o.cpus) : rec.ncpus;
	fprintf(stderr, "tlbscope: record: recording %d CPU%s into %s (instance %s)%s\n",
		ncpu, ncpu == 1 ? "" : "s", o.output, rec.name,
		o.command || o.duration_ns ? "" : "; Ctrl-C stops");
	record_loop(&rec);
	tracefs_trace_off(rec.inst);
	secs = (now_ns() - t0) / 1e9;
	if (stop_readers(&rec))
		goto out_cleanup;
	for (int i = 0; i < rec.ncpus; i++)
		bytes += rec.cpus[i].bytes;
	lost = report_lost(&rec);
	if (sig_count > 1)
		goto out_abort;
	if (write_head(&rec))
		goto out_cleanup;
	recorder_cleanup(&rec);
	wait_child(&rec, sig_count);
	if (sig_count > 1)
		goto out_abort;
	if (write_tracedat(&rec))
		goto out_cleanup;
	fprintf(stderr, "tlbscope: record: wrote %s: %.1f s, %d CPU%s, %llu KiB of events, "
		"%llu lost\n", o.output, secs, ncpu, ncpu == 1 ? "" : "s",
		(unsigned long long)(bytes / 1024), (unsigned long long)lost);
	status = EXIT_OK;
	goto out_cleanup;

out_abort:
	error("record: aborted; %s not written", o.output);
	goto out_cleanup;
out_stop:
	stop_readers(&rec);
out_cleanup:
	recorder_cleanup(&rec);
	wait_child(&rec, sig_count);
	report_child(&rec);
	remove_tmpdir(&rec);
	free(rec.cpus);
out_signals:
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return status;
}
