/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to record/: what session.c asks of events.c (tracepoints and kprobes to
 * enable), btf.c (struct offsets for kprobe arguments) and tracedat-write.c (the file).
 * tests/tools/extract.c uses the trace.dat writer directly.
 */
#ifndef TLBSCOPE_RECORD_INT_H
#define TLBSCOPE_RECORD_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "record.h"

#define RECORD_N_KP	16	/* the kprobes record adds (tlbscope-probes(7)) */
#define RECORD_KP_GROUP	"tlbscope"

/* One CPU's reader while streaming (stream.c) */
struct rec_cpu {
	struct rec *r;
	int cpu;
	int fd;				/* the per-CPU raw file, -1 closed */
	struct tracefs_cpu *tcpu;	/* NULL for a CPU not recorded */
	pthread_t thread;
	bool started;
	int err;			/* errno of a failed read or write; 0 ok */
	uint64_t bytes;
};

struct rec {
	struct rec_config c;		/* c.cpus unused: the mask is copied below */
	bool has_cpus;
	struct ts_cpumask cpus;
	const char *tracing_dir;	/* borrowed from libtracefs */
	struct tracefs_instance *inst;	/* NULL once closed */
	char name[64];
	int ncpus;
	struct tracefs_dynevent *kp_added[RECORD_N_KP];	/* kprobes we created */
	int kp_id[RECORD_N_KP];		/* event ids of those enabled in inst, else -1 */
	uint64_t kp_hits[2][RECORD_N_KP];	/* kprobe_profile at rec_on(), rec_off() */
	bool kp_hits_taken[2];
	uint64_t kp_events[RECORD_N_KP];	/* their events streamed (record_kprobe_check) */
	struct ts_source *live;		/* rec_live_source()'s */
	/* streaming: files[i] is CPU i's file, cpu[i] its reader */
	char **files;
	struct rec_cpu *cpu;
	atomic_int stop;		/* readers: drain what is left and return */
	struct tracedat_out *out;	/* from rec_tracedat_head() to _finish() */
	int guard_fd;			/* to the guard (guard.c), -1 none */
	pid_t guard_pid;
};

/* Is CPU @cpu one that @r records (record -C)? */
static inline bool rec_cpu_recorded(const struct rec *r, int cpu)
{
	return !r->has_cpus || ts_cpumask_test(&r->cpus, cpu);
}
/*
 * session.c: CPU @cpu's per_cpu/cpuN/stats of @inst, a new string (NULL unreadable), and
 * the number of its line "@key: N" ("overrun", "bytes", "read events"), -1 when none.
 */
char *rec_cpu_stats(struct tracefs_instance *inst, int cpu);
int64_t rec_stats_value(const char *stats, const char *key);
/* stream.c: stop the readers if they run and close the ring buffers (rec_close()) */
void rec_stream_close(struct rec *r);
/* stream.c: remove the streamed files and free the readers (rec_free()) */
void rec_stream_free(struct rec *r);

/*
 * guard.c: a process that outlives the caller and, when the caller dies without saying it
 * is done (SIGKILL), removes what it was told of from @tracing_dir (borrowed; as @who in
 * its messages).  Returns the socket to tell it by (-1 without a guard, said), its pid in
 * @pid.  rec_guard_note(): @kind 'I' for the instance @name, 'K' for the kprobe event
 * RECORD_KP_GROUP/@name, told BEFORE it is added.  rec_guard_stop(): all removed; the
 * guard exits without touching anything and is waited for.  fd -1 is fine for both.
 */
int rec_guard_start(const char *tracing_dir, const char *who, pid_t *pid);
void rec_guard_note(int fd, char kind, const char *name);
void rec_guard_stop(int fd, pid_t pid);

/* messages.c: "tlbscope: <msg>" on stderr; returns -1 */
int rec_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "tlbscope: warning: <msg>" on stderr */
void rec_warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* "@NAME" offsets the kprobe arguments use: MM_CPUMASK, VMA_MM, BATCH_MASK, FTD_* */
#define RECORD_N_OFFS	7

/*
 * The offsets of the running kernel, from its BTF: @offs[k] for the k-th @NAME, -1 where
 * the BTF has no such member.  Returns false (all -1) when the kernel has no BTF.
 */
bool record_btf_offsets(long offs[RECORD_N_OFFS]);

/*
 * Expand the "@NAME" offsets in @args with @offs (-1 = unknown).  Arguments needing an
 * unknown offset are dropped and their names appended to @dropped (@dlen bytes).
 * Returns a new string.
 */
char *record_kprobe_args(const char *args, const long *offs, char *dropped, size_t dlen);

/* events.c */
struct tracefs_instance;
struct tracefs_dynevent;
/*
 * Enable in @inst the tracepoints of @set that the kernel has.  For REC_EVENTS_RECORD,
 * each missing one is named on stderr (as @who) with what it hides.  0, or -1 when none
 * exists (nothing to record).
 */
int record_enable_tracepoints(struct tracefs_instance *inst, enum rec_events set, bool riscv,
			      const char *who);
/*
 * On riscv64 (@machine as uname gives it), create and enable in @inst the kprobes the
 * kernel can take (checked in @tracing_dir's available_filter_functions and kallsyms);
 * those created are stored in @added[RECORD_N_KP] for record_remove_kprobes(); each is told
 * to the guard @guard_fd before it is created.
 */
void record_add_kprobes(struct tracefs_instance *inst, const char *tracing_dir,
			const char *machine, struct tracefs_dynevent **added, int guard_fd);
/* Remove the kprobes record_add_kprobes() created; @added entries become NULL. */
void record_remove_kprobes(struct tracefs_dynevent **added);
/* The function (and event name) of the @i-th kprobe, 0 <= @i < RECORD_N_KP; static. */
const char *record_kprobe_fn(size_t i);

/* kprobe-drops.c: whether the kprobes' events reached the ring buffer */
/* Each kprobe's hits so far (@tracing_dir/kprobe_profile); 0 for those it does not list. */
void record_kprobe_hits(const char *tracing_dir, uint64_t hits[RECORD_N_KP]);
/* Each kprobe's event id where it is enabled in @inst, else -1. */
void record_kprobe_ids(struct tracefs_instance *inst, int ids[RECORD_N_KP]);
/*
 * After the stream stopped: count each enabled kprobe's events in r->files against its hits
 * between rec_on() and rec_off(), into r->kp_events; say on stderr what was recorded, and
 * warn when the kernel dropped the events (all of them, or some beyond the window's edges).
 */
void record_kprobe_check(struct rec *r);

/*
 * tracedat-write.c: a trace.dat (version 6) of instance @inst, written without libtracecmd
 * (which sets kptr_restrict while it reads kallsyms).  tracedat_out_open() writes the
 * headers (event formats, kallsyms, printk formats, command names), so call it while the
 * events exist; tracedat_out_add_cpus() appends the CPUs' raw sub-buffers, @files[i]
 * holding CPU i's (an empty file for a CPU not recorded).  Messages are prefixed by @who
 * (borrowed).  tracedat_out_close() frees the handle and returns -1 if any write failed.
 */
struct tracedat_out;
struct tracedat_out *tracedat_out_open(const char *path, struct tracefs_instance *inst,
				       const char *who);
int tracedat_out_add_cpus(struct tracedat_out *t, int ncpus, char *const *files);
int tracedat_out_close(struct tracedat_out *t);
/* The sub-buffer size of @inst (buffer_subbuf_size_kb, Linux 6.8+), else the page size. */
uint32_t record_subbuf_size(struct tracefs_instance *inst);
void tracedat_out_free(struct tracedat_out *t);	/* on error paths; NULL is fine */

#endif
