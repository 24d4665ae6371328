/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * record/ - tracing this machine, for `tlbscope record` and `tlbscope top`.
 *
 * A recording is a tracefs instance of our own, "<prefix>-<pid>", with the tracepoints
 * (and, for record on riscv64, the kprobes of tlbscope-probes(7)) the analyses read.  Its
 * per-CPU ring buffers are either streamed to files and written as a trace.dat
 * (rec_stream_*, rec_tracedat_*), or handed to the live reader (rec_live_source).
 *
 * Invariants:
 * - tracefs is a shared machine resource: the top-level buffer and its settings are never
 *   written; everything added (the instance, kprobes) is removed by rec_close(), which is
 *   safe to call at any point and more than once.  Callers reach it on every exit path:
 *   their signal handlers only set flags, and they ignore SIGPIPE while a recording
 *   exists.
 * - A run killed by SIGKILL has its instance and kprobes removed by its guard, a process of
 *   its own started by rec_open() (record-int.h); an instance left all the same (the guard
 *   killed too) is removed by the next rec_open() once its pid is gone.
 * - Messages go to stderr as "tlbscope: <who>: ...", and every function that fails has
 *   printed why; nothing here exits.
 * - Only this folder calls libtracefs for writing; cli/ calls no tracefs_* function.
 *
 * Files: session.c (the instance: open, on/off, lost events, close), events.c (what is
 * enabled), btf.c (struct offsets for kprobe arguments), stream.c (per-CPU reader threads
 * to files), tracedat-write.c (those files as a trace.dat, without libtracecmd), tasks.c
 * (the task table written through the instance's trace_marker).
 */
#ifndef TLBSCOPE_RECORD_H
#define TLBSCOPE_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "../parsers/parsers.h"

enum rec_events {
	REC_EVENTS_RECORD,	/* every tracepoint the analyses read, and the kprobes */
	REC_EVENTS_LIVE,	/* the tracepoints top's live model reads; no kprobes */
	/* and csd_function_exit: the handler's time, which prices the advice off a VM */
	REC_EVENTS_LIVE_TIMED,
};

struct rec_config {
	const char *who;		/* "record", "top": prefixes messages */
	const char *prefix;		/* the instance is "<prefix>-<pid>" */
	unsigned long buffer_kb;	/* ring buffer per CPU */
	bool buffer_soft;		/* a size refused is a warning, not a failure */
	/*
	 * Sub-buffers of this many KiB where the kernel lets an instance choose
	 * (buffer_subbuf_size_kb, Linux 6.8 and later); 0 or elsewhere: the page size
	 */
	unsigned long subbuf_kb;
	const struct ts_cpumask *cpus;	/* record only these; NULL all */
	bool mono_clock;		/* trace_clock "mono" (the live reader merges against now) */
	bool tgid;			/* options/record-tgid */
	/*
	 * The perf.data into which perf record takes the same events, kprobes included
	 * (record --kprobes-via perf), said where the ring buffer dropped them; NULL none
	 */
	const char *kprobes_perf;
	enum rec_events events;
};

struct rec;

/* A new instance set up as @c says, tracing off; NULL on failure (message printed). */
struct rec *rec_open(const struct rec_config *c);
/* rec_close(), then free @r and the stream's files; NULL is fine. */
void rec_free(struct rec *r);
/* Remove what @r added to tracefs (tracing off first); the stream's files stay. */
void rec_close(struct rec *r);

const char *rec_name(const struct rec *r);	/* the instance's name */
int rec_ncpus(const struct rec *r);		/* CPUs of the machine (per_cpu/cpuN) */
/* Turn tracing on or off in the instance.  0, or -1 with the message printed. */
int rec_on(struct rec *r);
void rec_off(struct rec *r);
/*
 * Events the ring buffers overwrote or dropped (per_cpu/cpuN/stats), over the recorded
 * CPUs; with @say, each CPU's non-zero counts are printed.
 */
uint64_t rec_lost(struct rec *r, bool say);

/* What rec_task_table() wrote. */
struct rec_table {
	uint64_t rows;		/* markers recorded: one per task */
	uint64_t bytes;		/* their text, bytes (each event also has a 16-byte header) */
	uint64_t failed;	/* writes the kernel refused (said on stderr) */
	uint64_t pauses;	/* waits for the stream to drain a small buffer */
	uint64_t ns;		/* time taken */
};

/*
 * The task table (tasks.c): one "tlbscope-tgid: pid=N tgid=N [kthread=1] comm=NAME" line
 * per task of the machine (/proc/PID/task/TID/status) written into @r's own trace_marker,
 * so that the trace names the process of every task older than the recording
 * (tlbscope-record(1)).  Call it with tracing on; once streaming, it waits for the reader
 * whenever the rows written fill a quarter of the writer's CPU buffer.  0, or -1 when no table was written (a
 * pid namespace of our own, no trace_marker); the reason is printed either way.
 */
int rec_task_table(struct rec *r, struct rec_table *t);
/*
 * Whether this machine is a virtual one, as it says of itself (hypervisor flag, DMI,
 * device tree): into @why, "vm (what said so)" or "metal (none of those did)".
 */
void rec_machine_kind(char *why, size_t len);

/*
 * The events as they arrive (parsers/live.c), for top.  The source is owned by @r and
 * closed by rec_close() before the instance is removed.  NULL with @err set on failure.
 */
struct ts_source *rec_live_source(struct rec *r, char *err);

/*
 * Stream every recorded CPU's ring buffer to @dir/cpuN (created; an empty file for a CPU
 * not recorded) by one thread per CPU, every 100 ms.  0, or -1 with the message printed.
 */
int rec_stream_start(struct rec *r, const char *dir);
bool rec_stream_failed(struct rec *r);		/* a reader stopped on an error */
/* Last drain, join the threads, close the files; *@bytes copied.  -1 (printed) on error. */
int rec_stream_stop(struct rec *r, uint64_t *bytes);

/*
 * The `perf record` command line that records the events enabled in @r's instance (its
 * tracepoints and kprobes) on the same CPUs, into @path, with @command as its workload
 * (NULL: until a signal stops it): perf events keep the kprobe events that a kernel's ring
 * buffer refuses (kprobe-drops.c).  @ctl_fd, @ack_fd >= 0: perf's control pipe and its
 * answers (`--control fd:CTL,ACK`; a "ping" is answered "ack" once perf records).  A new
 * NULL-terminated vector; rec_argv_free() frees it.
 */
char **rec_perf_argv(struct rec *r, const char *path, char *const *command, int ctl_fd,
		     int ack_fd);
void rec_argv_free(char **argv);	/* NULL is fine */

/*
 * The trace.dat at @path: rec_tracedat_head() writes the headers (event formats, kallsyms,
 * printk formats, command names), so call it before rec_close() while the events exist;
 * rec_tracedat_finish() then appends the streamed CPU files.  0, or -1 (printed).
 */
int rec_tracedat_head(struct rec *r, const char *path);
int rec_tracedat_finish(struct rec *r);

#endif
