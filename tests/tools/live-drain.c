// SPDX-License-Identifier: GPL-2.0-only
/*
 * A tracefs instance's buffer read by top's live reader (parsers/live.c), for
 * tests/real/live-tracefs.sh.  Two ways:
 *   live-drain INSTANCE OUT
 * tests/fixtures/capture.sh's drain: an existing instance, tracing off, clock "mono".
 * Each CPU's stats are read first, then the buffer drained, one line per event into OUT
 * ("CPU SECONDS.MICROSECONDS", as the instance's 'trace' file stamps it), and to stdout
 *   cpu N: entries E overrun O read R lost L	(L "unknown" when the kernel did not say)
 *   live-drain --live SECONDS [KB [MS]] -- COMMAND...
 * an instance as top makes it (rec_open()), of KB a CPU (1024), read while COMMAND runs
 * for SECONDS, every MS ms (10: the writer is still on the sub-buffers read, often); then
 * tracing off and the rest drained.
 * To stdout, with the kernel's counts after the drain (stats: events it handed over,
 * overwritten, left) and the events whose time went back on their CPU:
 *   cpu N: read R lost L kernel-read K overrun O entries E backwards B
 *   cpu user SECONDS system SECONDS		(its own, from the start)
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <tracefs.h>

#include "../../parsers/parsers.h"
#include "../../record/record-int.h"
#include "../../lib/lib.h"

struct cpu_count {
	long long entries, overrun;	/* the kernel's stats before the drain; -1 unknown */
	uint64_t read, lost;
	bool lost_unknown;
	uint64_t last_ts, backwards;
};

/* "@name: N" of CPU @cpu's stats in @inst (record's reading of them), or -1. */
static long long stat_of(struct tracefs_instance *inst, int cpu, const char *name)
{
	char *stats = rec_cpu_stats(inst, cpu);
	long long v = stats ? rec_stats_value(stats, name) : -1;

	free(stats);
	return v;
}

/*
 * Read @src's events into @n until a round that starts after @end has none (every event
 * older than @end, and more if any, is read), each one's "CPU SECONDS.MICROSECONDS" into
 * @out (NULL: not written).  0, or -1 with the message printed.
 */
static int drain(struct ts_source *src, struct cpu_count *n, int ncpus, FILE *out,
		 uint64_t end)
{
	struct ts_event ev;
	uint64_t us;
	int r;

	for (int idle = 0; idle < 400; ) {
		r = ts_source_next(src, &ev);
		if (r < 0) {
			fprintf(stderr, "live-drain: %s\n", ts_source_error(src));
			return -1;
		}
		if (!r) {
			if (ts_source_live_done(src) > end)
				return 0;
			idle++;
			usleep(5000);
			continue;
		}
		if (ev.cpu < 0 || ev.cpu >= ncpus)
			continue;
		if (ev.kind == TS_EV_LOST) {
			n[ev.cpu].lost += ev.u.lost.count;
			n[ev.cpu].lost_unknown |= !ev.u.lost.count;
			continue;
		}
		n[ev.cpu].read++;
		n[ev.cpu].backwards += ev.ts < n[ev.cpu].last_ts;
		n[ev.cpu].last_ts = ev.ts;
		if (!out)
			continue;
		/* rounded to the microsecond, as the 'trace' file's ns2usecs() does */
		us = (ev.ts + 500) / 1000;
		fprintf(out, "%d %llu.%06llu\n", ev.cpu, (unsigned long long)(us / 1000000),
			(unsigned long long)(us % 1000000));
	}
	fprintf(stderr, "live-drain: 400 rounds and none began after the end\n");
	return -1;
}

/* @c's events lost: their count, or "unknown" where a mark did not say how many */
static void print_lost(const struct cpu_count *c)
{
	if (c->lost_unknown)
		printf("unknown");
	else
		printf("%llu", (unsigned long long)c->lost);
}

/* --live: an instance as top makes it, of @kb a CPU, read every @ms while @cmd runs */
static int live(double secs, unsigned long kb, unsigned ms, char **cmd)
{
	struct rec_config rc = {
		.who = "live-drain", .prefix = "tlbscope-drain", .buffer_kb = kb,
		.subbuf_kb = 64, .buffer_soft = true, .mono_clock = true,
		.events = REC_EVENTS_LIVE,
	};
	int ncpus = (int)sysconf(_SC_NPROCESSORS_CONF), status, rc_ = 1;
	struct cpu_count *n = xcalloc(ncpus, sizeof(*n));
	struct ts_source *src;
	char err[TS_ERR_LEN];
	struct rec *r;
	struct rusage ru;
	uint64_t until;
	pid_t pid = -1;

	r = rec_open(&rc);
	if (!r)
		goto out;
	src = rec_live_source(r, err);
	if (!src) {
		fprintf(stderr, "live-drain: %s\n", err);
		goto out_rec;
	}
	if (rec_on(r))
		goto out_rec;
	pid = fork();
	if (!pid) {
		int null = open("/dev/null", O_WRONLY);

		setpgid(0, 0);
		if (null >= 0)
			dup2(null, STDOUT_FILENO);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	if (pid < 0) {
		fprintf(stderr, "live-drain: fork: %s\n", strerror(errno));
		goto out_rec;
	}
	setpgid(pid, pid);
	until = mono_ns() + (uint64_t)(secs * 1e9);
	while (mono_ns() < until) {
		if (drain(src, n, ncpus, NULL, 0))
			goto out_kill;
		usleep(ms * 1000);
	}
	kill(-pid, SIGTERM);
	waitpid(pid, &status, 0);
	pid = -1;
	rec_off(r);
	if (drain(src, n, ncpus, NULL, mono_ns()))
		goto out_rec;
	for (int i = 0; i < ncpus; i++) {
		printf("cpu %d: read %llu lost ", i, (unsigned long long)n[i].read);
		print_lost(&n[i]);
		printf(" kernel-read %lld overrun %lld entries %lld backwards %llu\n",
		       stat_of(r->inst, i, "read events"), stat_of(r->inst, i, "overrun"),
		       stat_of(r->inst, i, "entries"), (unsigned long long)n[i].backwards);
	}
	getrusage(RUSAGE_SELF, &ru);
	printf("cpu user %ld.%06ld system %ld.%06ld\n", (long)ru.ru_utime.tv_sec,
	       (long)ru.ru_utime.tv_usec, (long)ru.ru_stime.tv_sec, (long)ru.ru_stime.tv_usec);
	rc_ = 0;
out_kill:
	if (pid > 0) {
		kill(-pid, SIGTERM);
		waitpid(pid, &status, 0);
	}
out_rec:
	rec_free(r);
out:
	free(n);
	return rc_;
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst;
	struct cpu_count *n;
	struct ts_source *src;
	char err[TS_ERR_LEN];
	int ncpus, rc = 1;
	FILE *out;

	if (argc >= 5 && !strcmp(argv[1], "--live")) {
		int dash = 3;

		while (dash < argc && dash < 6 && strcmp(argv[dash], "--"))
			dash++;
		if (dash + 1 < argc && !strcmp(argv[dash], "--"))
			return live(atof(argv[2]), dash > 3 ? strtoul(argv[3], NULL, 10) : 1024,
				    dash > 4 ? (unsigned)atoi(argv[4]) : 10, argv + dash + 1);
	}
	if (argc != 3) {
		fprintf(stderr, "usage: live-drain INSTANCE OUT | "
			"--live SECONDS [KB [MS]] -- COMMAND...\n");
		return 2;
	}
	inst = tracefs_instance_exists(argv[1]) ? tracefs_instance_alloc(NULL, argv[1]) : NULL;
	if (!inst) {
		fprintf(stderr, "live-drain: no tracefs instance %s\n", argv[1]);
		return 1;
	}
	out = fopen(argv[2], "we");
	if (!out) {
		fprintf(stderr, "live-drain: %s: %s\n", argv[2], strerror(errno));
		goto out_inst;
	}
	ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	n = xcalloc(ncpus, sizeof(*n));
	for (int i = 0; i < ncpus; i++) {
		n[i].entries = stat_of(inst, i, "entries");
		n[i].overrun = stat_of(inst, i, "overrun");
	}
	src = ts_source_open_live(inst, err);
	if (!src) {
		fprintf(stderr, "live-drain: %s\n", err);
		goto out_n;
	}
	if (drain(src, n, ncpus, out, mono_ns()))
		goto out_src;
	for (int i = 0; i < ncpus; i++) {
		printf("cpu %d: entries %lld overrun %lld read %llu lost ", i, n[i].entries,
		       n[i].overrun, (unsigned long long)n[i].read);
		print_lost(&n[i]);
		printf("\n");
	}
	rc = 0;
out_src:
	ts_source_close(src);
out_n:
	free(n);
	if (fclose(out) && !rc) {
		fprintf(stderr, "live-drain: %s: %s\n", argv[2], strerror(errno));
		rc = 1;
	}
out_inst:
	tracefs_instance_free(inst);
	return rc;
}
