// SPDX-License-Identifier: GPL-2.0-only
/*
 * A recording's tracefs instance, "<prefix>-<pid>": found (or mounted) tracefs, instances
 * left by killed runs removed, the instance created and set up (buffer size, CPUs, clock,
 * record-tgid, events), tracing turned on and off, its lost events counted, and everything
 * removed again by rec_close() -- or by the guard (guard.c) when this process is killed
 * before it could.  See record.h for the invariants.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record-int.h"

/* ---- instances left behind ---- */

/*
 * The pid in an instance name of record ("tlbscope-<pid>") or top ("tlbscope-top-<pid>"),
 * or -1 for any other name (capture.sh's tlbscope-capture-<pid>, other tools' instances).
 */
static long stale_pid(const char *name)
{
	const char *p = NULL;
	char *end;
	long pid;

	if (!strncmp(name, "tlbscope-top-", 13))
		p = name + 13;
	else if (!strncmp(name, "tlbscope-", 9))
		p = name + 9;
	if (!p || *p < '1' || *p > '9')
		return -1;
	pid = strtol(p, &end, 10);
	return *end ? -1 : pid;
}

/*
 * Remove the instances a killed record or top left behind (tlbscope-<pid>,
 * tlbscope-top-<pid>) whose process no longer exists, saying so on stderr as @who.
 */
static void reap_stale(const char *top, const char *who)
{
	char dir[PATH_MAX];
	struct dirent *d;
	DIR *dp;

	snprintf(dir, sizeof(dir), "%s/instances", top);
	dp = opendir(dir);
	while (dp && (d = readdir(dp))) {
		struct tracefs_instance *inst;
		long pid = stale_pid(d->d_name);

		/* only when its process is gone: a live run (ours or another's) keeps its own */
		if (pid <= 0 || pid == (long)getpid() || !kill((pid_t)pid, 0) || errno != ESRCH)
			continue;
		inst = tracefs_instance_alloc(NULL, d->d_name);
		if (!inst)
			continue;
		/*
		 * rmdir alone, tracing left as it is: the kernel refuses (EBUSY) an instance
		 * whose files are open, as they are in a run whose pid we cannot see (another
		 * pid namespace), and that run must not find its tracing turned off
		 */
		if (!tracefs_instance_destroy(inst))
			fprintf(stderr, "tlbscope: %s: removed the tracefs instance %s left by "
				"process %ld, which is gone (killed?)\n", who, d->d_name, pid);
		else if (errno == EBUSY)
			rec_warning("%s: the instance %s is in use though no process %ld exists here "
				    "(another pid namespace?); left as it is", who, d->d_name, pid);
		else
			rec_warning("%s: cannot remove the instance %s left by process %ld, which "
				    "is gone: %s", who, d->d_name, pid, strerror(errno));
		tracefs_instance_free(inst);
	}
	if (dp)
		closedir(dp);
}

/* ---- setting up ---- */

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

/*
 * The tracefs mount, mounted at /sys/kernel/tracing first where it is not (a machine without
 * systemd mounts none; trace-cmd and perf mount it too); NULL printed.
 */
static const char *find_tracefs(const struct rec_config *c)
{
	const char *dir;

	if (!tracefs_mounted()) {
		if (mount("nodev", "/sys/kernel/tracing", "tracefs", 0, NULL)) {
			rec_error("%s: tracefs is not mounted, and mounting it at /sys/kernel/tracing "
				  "failed: %s", c->who, strerror(errno));
			return NULL;
		}
		fprintf(stderr, "tlbscope: %s: tracefs was not mounted; mounted it at "
			"/sys/kernel/tracing\n", c->who);
	}
	dir = tracefs_tracing_dir();
	if (!dir)
		rec_error("%s: cannot find the tracefs mount", c->who);
	return dir;
}

static int count_cpus(struct tracefs_instance *inst)
{
	char *dir = tracefs_instance_get_file(inst, "per_cpu");
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

static int set_cpus(struct rec *r)
{
	char hex[TS_MAX_CPUS / 4 + TS_MAX_CPUS / 32 + 8];

	for (int c = r->ncpus; c < TS_MAX_CPUS; c++)
		if (ts_cpumask_test(&r->cpus, c))
			return rec_error("%s: --cpu: CPU %d does not exist (this machine has %d)",
					 r->c.who, c, r->ncpus);
	cpumask_hex(&r->cpus, r->ncpus, hex, sizeof(hex));
	if (tracefs_instance_file_write(r->inst, "tracing_cpumask", hex) < 0)
		return rec_error("%s: cannot set tracing_cpumask to %s: %s", r->c.who, hex,
				 strerror(errno));
	return 0;
}

static int setup(struct rec *r)
{
	const struct rec_config *c = &r->c;
	struct utsname un;

	tracefs_trace_off(r->inst);	/* a new instance starts with tracing on */
	r->ncpus = count_cpus(r->inst);
	if (r->ncpus <= 0)
		return rec_error("%s: %s: no per_cpu directories", c->who, r->name);
	if (c->mono_clock && tracefs_instance_file_write(r->inst, "trace_clock", "mono") < 0)
		return rec_error("%s: cannot set trace_clock to mono in %s: %s", c->who, r->name,
				 strerror(errno));
	if (tracefs_instance_set_buffer_size(r->inst, c->buffer_kb, -1)) {
		if (!c->buffer_soft)
			return rec_error("%s: cannot set the ring buffer to %lu KiB per CPU: %s",
					 c->who, c->buffer_kb, strerror(errno));
		rec_warning("%s: cannot set the ring buffers to %lu KiB per CPU: %s", c->who,
			    c->buffer_kb, strerror(errno));
	}
	/* an older kernel has no such file: its sub-buffers are pages, as before */
	if (c->subbuf_kb && tracefs_file_exists(r->inst, "buffer_subbuf_size_kb")) {
		char kb[32];

		snprintf(kb, sizeof(kb), "%lu", c->subbuf_kb);
		if (tracefs_instance_file_write(r->inst, "buffer_subbuf_size_kb", kb) < 0)
			rec_warning("%s: cannot set the sub-buffers to %lu KiB: %s", c->who,
				    c->subbuf_kb, strerror(errno));
	}
	if (r->has_cpus && set_cpus(r))
		return -1;
	if (c->tgid && tracefs_option_enable(r->inst, TRACEFS_OPTION_RECORD_TGID))
		rec_warning("%s: cannot set options/record-tgid; processes will be guessed from "
			    "pids", c->who);
	if (uname(&un))
		return rec_error("%s: uname: %s", c->who, strerror(errno));
	if (record_enable_tracepoints(r->inst, c->events, !strcmp(un.machine, "riscv64"), c->who))
		return -1;
	if (c->events == REC_EVENTS_RECORD) {
		record_add_kprobes(r->inst, r->tracing_dir, un.machine, r->kp_added,
				   r->guard_fd);
		record_kprobe_ids(r->inst, r->kp_id);
	}
	return 0;
}

struct rec *rec_open(const struct rec_config *c)
{
	struct rec *r;
	const char *top = find_tracefs(c);

	if (!top)
		return NULL;
	reap_stale(top, c->who);
	r = xcalloc(1, sizeof(*r));
	r->guard_fd = -1;
	r->c = *c;
	for (size_t i = 0; i < RECORD_N_KP; i++)
		r->kp_id[i] = -1;
	r->tracing_dir = top;
	if (c->cpus) {
		r->cpus = *c->cpus;
		r->has_cpus = true;
	}
	r->c.cpus = NULL;
	snprintf(r->name, sizeof(r->name), "%s-%d", c->prefix, (int)getpid());
	if (tracefs_instance_exists(r->name)) {
		rec_error("%s: tracefs instance %s already exists", c->who, r->name);
		free(r);
		return NULL;
	}
	r->guard_fd = rec_guard_start(top, c->who, &r->guard_pid);
	rec_guard_note(r->guard_fd, 'I', r->name);
	r->inst = tracefs_instance_create(r->name);
	if (!r->inst) {
		rec_error("%s: cannot create tracefs instance %s: %s", c->who, r->name,
			  strerror(errno));
		rec_free(r);
		return NULL;
	}
	if (setup(r)) {
		rec_free(r);
		return NULL;
	}
	return r;
}

/* ---- running ---- */

const char *rec_name(const struct rec *r)
{
	return r->name;
}

int rec_ncpus(const struct rec *r)
{
	return r->ncpus;
}

/* Has @r kprobes enabled whose hits are worth reading at on and off? */
static bool rec_has_kprobes(const struct rec *r)
{
	for (size_t i = 0; i < RECORD_N_KP; i++)
		if (r->kp_id[i] >= 0)
			return true;
	return false;
}

int rec_on(struct rec *r)
{
	if (tracefs_trace_on(r->inst))
		return rec_error("%s: cannot turn tracing on in %s: %s", r->c.who, r->name,
				 strerror(errno));
	if (rec_has_kprobes(r)) {
		record_kprobe_hits(r->tracing_dir, r->kp_hits[0]);
		r->kp_hits_taken[0] = true;
	}
	return 0;
}

void rec_off(struct rec *r)
{
	if (!r->inst)
		return;
	tracefs_trace_off(r->inst);
	if (r->kp_hits_taken[0] && !r->kp_hits_taken[1]) {
		record_kprobe_hits(r->tracing_dir, r->kp_hits[1]);
		r->kp_hits_taken[1] = true;
	}
}

char *rec_cpu_stats(struct tracefs_instance *inst, int cpu)
{
	char file[64];

	snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", cpu);
	return tracefs_instance_file_read(inst, file, NULL);
}

int64_t rec_stats_value(const char *stats, const char *key)
{
	size_t n = strlen(key);

	/* at a line's start: "overrun" is not "commit overrun" */
	for (const char *p = stats; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, n) && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10);
	return -1;
}

uint64_t rec_lost(struct rec *r, bool say)
{
	static const struct {
		const char *key, *label;
	} keys[] = { { "overrun", "overrun" }, { "dropped events", "dropped" } };
	uint64_t total = 0;

	for (int i = 0; i < r->ncpus && r->inst; i++) {
		char *stats;

		if (!rec_cpu_recorded(r, i) || !(stats = rec_cpu_stats(r->inst, i)))
			continue;
		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			int64_t v = rec_stats_value(stats, keys[k].key);

			if (v <= 0)
				continue;
			if (say)
				fprintf(stderr, "tlbscope: cpu %d: %llu events lost (%s)\n", i,
					(unsigned long long)v, keys[k].label);
			total += (uint64_t)v;
		}
		free(stats);
	}
	return total;
}

struct ts_source *rec_live_source(struct rec *r, char *err)
{
	if (!r->live)
		r->live = ts_source_open_live(r->inst, err);
	return r->live;
}

/* ---- the trace.dat ---- */

int rec_tracedat_head(struct rec *r, const char *path)
{
	r->out = tracedat_out_open(path, r->inst, r->c.who);
	return r->out ? 0 : -1;
}

int rec_tracedat_finish(struct rec *r)
{
	int ret = tracedat_out_add_cpus(r->out, r->ncpus, r->files);

	if (tracedat_out_close(r->out))
		ret = -1;
	r->out = NULL;
	return ret;
}

/* ---- the end ---- */

#define DESTROY_RETRY_MS	2000	/* how long a removal refused as busy is tried again */

/*
 * tracefs_instance_destroy(), tried again for a while when the kernel refuses it as busy:
 * another process holding one of the instance's files open for a moment (a reader of its
 * settings) would otherwise leave it to the guard.  0, or -1 with errno.
 */
static int destroy_instance(struct tracefs_instance *inst)
{
	struct timespec t = { 0, 20 * 1000000L };

	for (int waited = 0;; waited += 20) {
		if (!tracefs_instance_destroy(inst))
			return 0;
		if (errno != EBUSY || waited >= DESTROY_RETRY_MS)
			return -1;
		nanosleep(&t, NULL);
	}
}

void rec_close(struct rec *r)
{
	if (!r)
		return;
	if (r->inst) {
		tracefs_trace_off(r->inst);
		/* readers and the live source hold trace_pipe_raw files: closed first (EBUSY) */
		rec_stream_close(r);
		ts_source_close(r->live);
		r->live = NULL;
		if (destroy_instance(r->inst))
			rec_warning("%s: cannot remove tracefs instance %s: %s", r->c.who, r->name,
				    strerror(errno));
		tracefs_instance_free(r->inst);
		r->inst = NULL;
	}
	record_remove_kprobes(r->kp_added);
}

void rec_free(struct rec *r)
{
	if (!r)
		return;
	rec_close(r);
	rec_guard_stop(r->guard_fd, r->guard_pid);
	tracedat_out_free(r->out);
	rec_stream_free(r);
	free(r);
}
