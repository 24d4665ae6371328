/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * parsers/ - turn a trace (trace.dat, ftrace text, JSON lines, ...) into one time-ordered
 * stream of small fixed-size normalized events (docs/design.md section 3).  Parsers never print
 * and never exit: they fill a message buffer and return -1.  A new input format is one new
 * file plus one entry in the registry of parsers/source.c.
 */
#ifndef TLBSCOPE_PARSERS_H
#define TLBSCOPE_PARSERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TS_MAX_CPUS	512	/* RISC-V NR_CPUS upper bound; masks are fixed-size bitmaps */
#define TS_COMM_LEN	16	/* TASK_COMM_LEN */
#define TS_ERR_LEN	512

struct ts_cpumask {
	uint64_t bits[TS_MAX_CPUS / 64];
};

static inline void ts_cpumask_set(struct ts_cpumask *m, int cpu)
{
	m->bits[cpu / 64] |= 1ULL << (cpu % 64);
}

static inline bool ts_cpumask_test(const struct ts_cpumask *m, int cpu)
{
	return m->bits[cpu / 64] & (1ULL << (cpu % 64));
}

/* The first CPU of @m at or after @cpu, or TS_MAX_CPUS: a word at a time, a bit scan. */
static inline int ts_cpumask_next(const struct ts_cpumask *m, int cpu)
{
	while (cpu < TS_MAX_CPUS) {
		uint64_t w = m->bits[cpu / 64] >> (cpu % 64);

		if (w)
			return cpu + __builtin_ctzll(w);
		cpu = (cpu | 63) + 1;
	}
	return TS_MAX_CPUS;
}

/* for (each CPU @cpu set in @m, in order) */
#define ts_cpumask_for_each(cpu, m)					\
	for ((cpu) = ts_cpumask_next((m), 0); (cpu) < TS_MAX_CPUS;		\
	     (cpu) = ts_cpumask_next((m), (cpu) + 1))

int ts_cpumask_weight(const struct ts_cpumask *m);
/* A kernel "%*pb" hex mask ("f", "0000000f", "00000001,00000000"); 0 ok, -1 malformed. */
int ts_cpumask_parse_hex(struct ts_cpumask *m, const char *s);
/* A CPU list "0,3-5"; 0 ok, -1 malformed or a CPU past TS_MAX_CPUS. */
int ts_cpumask_parse_list(struct ts_cpumask *m, const char *s);

enum ts_kind {
	TS_EV_SWITCH,
	TS_EV_FORK,	/* sched_process_fork: parent -> child, no clone flags */
	TS_EV_NEWTASK,	/* task_newtask: clone flags, recorded in the parent */
	TS_EV_EXEC,
	/*
	 * a task exits (sched_process_exit) or, from JSON, an mm's last user; or a lazy-flush
	 * kernel's lazy_tlb_exit_mm(mm) kprobe (u.exit.dropped): every CPU's table dropped
	 * that mm now, at the end of its exit_mmap
	 */
	TS_EV_EXIT,
	TS_EV_FLUSH,
	TS_EV_IPI,
	TS_EV_LOAD_MM,	/* switch_mm kprobe (u.load); timeline/ resolves switches with it;
			 * also local_load_tlb_mm (u.load.commit) */
	TS_EV_EVICT,
	TS_EV_FAULT,
	TS_EV_VMALLOC,	/* new vmalloc mapping flushed (flush_cache_vmap kprobe, u.vmalloc) */
	/*
	 * sfence.vma executed at a probed site (u.sfence): a kprobe per site, the event name
	 * saying the cause ("sfence_pte_new"), tlbscope-probes(7) "The sfence.vma account"
	 */
	TS_EV_SFENCE,
	TS_EV_LOST,
	TS_EV_OTHER,	/* any other event: counted by name only */
	TS_EV_MM,	/* metadata: an mm's name, process and how it was identified */
	/*
	 * a task's process as a table in the trace says it (u.task): `tlbscope record`
	 * writes the machine's tasks as "tlbscope-tgid:" trace_marker lines when tracing
	 * starts; binds that pid exactly as a tgid column would (timeline/ applies it)
	 */
	TS_EV_TGID,
	TS_EV__COUNT
};

/* What a FLUSH event is, once the timeline has classified it (docs/design.md section 3). */
enum ts_flush_role {
	TS_FLUSH_REQUEST,	/* a CPU asks for a flush of mm/range (the models replay these) */
	TS_FLUSH_LOCAL,		/* a flush a CPU performed for itself (switch, own request) */
	TS_FLUSH_RECEIVED,	/* a flush performed on behalf of another CPU's request */
	/*
	 * A __ipi_flush_tlb_range_asid kprobe event (src TS_SRC_KPROBE) is decoded as
	 * RECEIVED; timeline/ makes it LOCAL when it is the sender's own call.  Only
	 * REQUEST flushes are replayed by the models.
	 */
};

enum ts_scope {
	TS_SCOPE_RANGE,		/* pages given */
	TS_SCOPE_MM,		/* the whole mm */
	TS_SCOPE_KERNEL,	/* a kernel range, all CPUs */
	TS_SCOPE_ALL,		/* everything, all CPUs */
	/*
	 * Everything (no mm, no ASID) on the CPUs of the request's own kernel target mask
	 * (u.flush.kmask, TS_FF_KMASK set): arch_tlbbatch_flush, i.e. __flush_tlb_range(NULL,
	 * mask, 0, FLUSH_TLB_MAX_SIZE).  Not a full flush of all CPUs: only those in the mask.
	 */
	TS_SCOPE_TARGETS,
};

/* Where a fact came from: the evidence block of `report` is built from these. */
enum ts_evsrc {
	TS_SRC_NONE,
	TS_SRC_TLB_FLUSH,	/* x86 tlb:tlb_flush */
	TS_SRC_CSD_QUEUE,	/* csd:csd_queue_cpu */
	TS_SRC_CSD_ENTRY,	/* csd:csd_function_entry */
	TS_SRC_IPI_CPU,		/* ipi:ipi_send_cpu */
	TS_SRC_IPI_MASK,	/* ipi:ipi_send_cpumask */
	TS_SRC_JSON,		/* given as such by a JSON-lines stream */
	/*
	 * kprobe on the function that makes every request (__flush_tlb_range, flush_tlb_all)
	 * or performs it on a CPU (__ipi_flush_tlb_range_asid): see tlbscope-probes(7)
	 */
	TS_SRC_KPROBE,
	/*
	 * kprobe on a caller of __flush_tlb_range (flush_tlb_mm, _mm_range, _page, _range,
	 * flush_tlb_kernel_range, arch_tlbbatch_flush): a request only when the trace has no
	 * __flush_tlb_range event for it, else evidence (timeline/ turns it into TS_EV_OTHER)
	 */
	TS_SRC_KPROBE_CALLER,
	TS_SRC_SBI,		/* IPI: kprobe on sbi_remote_sfence_vma_asid (SBI remote fence) */
	TS_SRC__COUNT
};

/* Flags of struct ts_event.flags */
#define TS_F_KTHREAD	0x01	/* SWITCH: next task is a kernel thread (JSON "mm":null) */
#define TS_F_MM_GIVEN	0x02	/* mm came with the input (JSON, probes): do not derive it */
#define TS_F_TGID	0x04	/* tgid is from the trace (record-tgid, saved_tgids), not guessed */
#define TS_F_GROUP_DEAD	0x08	/* EXIT: the kernel said the thread group is dead */
#define TS_F_GROUP_KNOWN 0x10	/* EXIT: group_dead field present */
#define TS_F_TLB	0x20	/* IPI: a TLB-flush callback */
#define TS_F_RECV	0x40	/* IPI: seen on the target (csd_function_entry) */
#define TS_F_LOCAL	0x80	/* IPI: the sender's own local call, not an IPI */

/* Flags of u.flush.fflags (kprobe facts, and how timeline/ attributed a request) */
#define TS_FF_KMASK	0x01	/* kmask is the kernel's own target mask (CPUs 0-63 only) */
#define TS_FF_PTR	0x02	/* mm_ptr is the kernel's struct mm_struct * (0 = NULL) */
/* a request's mm is its requesting task's (timeline/, with no pointer in the event) */
#define TS_FF_MM_TASK	0x04

/*
 * Why a kernel executes an sfence.vma (the corpus's classification of each site by its
 * inline chain, tlbscope-probes(7)): the name after "sfence_" in a site probe's event name.
 */
enum ts_sfence_cause {
	TS_SF_PTE_NEW,		/* update_mmu_cache after a new user PTE (Svvptc drops it) */
	TS_SF_PTE_ACCESS,	/* update_mmu_cache after an access/dirty update in handle_pte_fault */
	TS_SF_FLUSH_RANGE,	/* a flush request's range on one CPU (requester or IPI target) */
	TS_SF_FLUSH_ALL,	/* flush_tlb_all on each CPU */
	TS_SF_ASID,		/* ASID rollover or a CPU without ASIDs (context.c) */
	TS_SF_LAZY_EVICT,	/* lazy-flush kernel: an mm evicted from a CPU's table */
	TS_SF_LAZY_DEFERRED,	/* lazy-flush kernel: queued flushes run at switch_mm */
	TS_SF_LAZY_RESET,	/* lazy-flush kernel: a full local flush that reset the table */
	TS_SF_OTHER,		/* any other site: fixmap, text patching, boot */
	TS_SF_UNCLASSIFIED,	/* a site probe whose event name gives no known cause */
	TS_SF__COUNT
};

const char *ts_sfence_cause_name(enum ts_sfence_cause c);
/*
 * The cause an sfence site probe's event name gives ("sfence_pte_new", "my_sfence_other_3"):
 * TS_SF_UNCLASSIFIED for a name with "sfence" and no known cause after it, -1 for a name
 * without "sfence" (not a site probe).
 */
int ts_sfence_cause_of(const char *event);

#define TS_NO_REASON	0xff
#define TS_PAGE_SIZE	4096	/* bytes -> pages of kprobe ranges (RISC-V base pages) */

/*
 * One normalized event.  Fixed size, no pointers: strings that are not task names live in
 * the source's string table (ts_source_str()).  mm ids are 0 for "none / not yet known";
 * ids given by the input (TS_F_MM_GIVEN) index the source's string table for their name.
 */
struct ts_event {
	uint64_t ts;		/* ns, trace clock */
	int32_t cpu;		/* CPU the event was recorded on */
	uint8_t kind;		/* enum ts_kind */
	uint8_t flags;
	uint32_t name;		/* string id of the tracepoint name ("sched_switch") */
	uint32_t probe;		/* kprobe events: string id of the probed function, else 0 */
	int32_t pid;		/* current task when recorded, -1 unknown */
	int32_t tgid;		/* its process, -1 unknown */
	char comm[TS_COMM_LEN];	/* current task's name, may be empty */
	union {
		struct {
			int32_t prev_pid, next_pid;
			int32_t next_tgid;	/* -1 unknown */
			uint32_t mm;		/* next task's mm string id when TS_F_MM_GIVEN */
			/*
			 * with TS_F_KTHREAD: a user task that has left its mm (exiting, after
			 * exit_mm; no switch_mm followed) runs on the borrowed one
			 */
			uint8_t no_mm;
			int64_t prev_state;
			char prev_comm[TS_COMM_LEN], next_comm[TS_COMM_LEN];
		} sw;
		struct {
			int32_t parent_pid, child_pid;
			uint64_t clone_flags;	/* NEWTASK only */
			char child_comm[TS_COMM_LEN];
		} fork;
		struct {
			int32_t pid, old_pid;
			uint32_t filename;	/* string id */
			uint32_t mm;		/* the new mm: given (string id) or, after
						 * timeline/, its mm id */
		} exec;
		struct {
			int32_t pid;		/* the task that exits, -1 none */
			uint32_t mm;		/* after timeline/: the mm this exit ended, 0 none */
			uint32_t mm_given;	/* JSON "exit" of an mm: its name's string id */
			/*
			 * a lazy_tlb_exit_mm kprobe (pid -1): the kernel's struct mm_struct *
			 * that exit_mmap has just taken out of every CPU's lazy table
			 */
			uint8_t dropped;
			uint64_t mm_ptr;
		} exit;
		struct {
			uint32_t mm;		/* string id when TS_F_MM_GIVEN */
			uint8_t scope;		/* enum ts_scope */
			uint8_t src;		/* enum ts_evsrc */
			uint8_t reason;		/* x86 tlb_flush reason, TS_NO_REASON none */
			uint8_t role;		/* enum ts_flush_role, set by timeline/ */
			uint64_t start;
			uint64_t pages;		/* TS_SCOPE_RANGE/KERNEL */
			uint64_t stride;
			uint8_t fflags;		/* TS_FF_* */
			uint64_t mm_ptr;	/* TS_FF_PTR: the mm pointer (kprobes) */
			/*
			 * TS_FF_KMASK: the CPUs the kernel itself targets (first word of the
			 * cpumask __flush_tlb_range gets: mm_cpumask, online mask, batch mask)
			 */
			struct ts_cpumask kmask;
		} flush;
		struct {
			/* LOAD_MM from a switch_mm kprobe (also exec's activate_mm, use_mm) */
			uint64_t prev, next;	/* struct mm_struct * switched from and to */
			uint64_t next_mask;	/* first word of mm_cpumask(next) before the switch */
			uint8_t mask_known;	/* next_mask is the trace's, not unknown */
			uint32_t mm;		/* after timeline/: the mm id of next, 0 none */
			/*
			 * timeline/ (and JSON "initial"): not a switch but the state before
			 * the trace, the mm this CPU had loaded when tracing began (the prev
			 * of its first switch_mm); never counted as a switch
			 */
			uint8_t initial;
			/*
			 * a local_load_tlb_mm kprobe (a lazy-flush kernel): the moment the
			 * CPU's table and mm_cpumask take next; no switch of its own
			 */
			uint8_t commit;
		} load;
		struct {
			uint32_t func;		/* string id of the callback, 0 unknown */
			uint8_t src;		/* enum ts_evsrc */
			int32_t from;		/* RECV: sender CPU, -1 unknown */
			struct ts_cpumask targets;	/* send side */
		} ipi;
		struct {
			uint64_t count;		/* events lost, 0 = unknown number */
		} lost;
		struct {
			uint8_t cause;		/* enum ts_sfence_cause */
			uint32_t count;		/* fences this event stands for (a probe: 1) */
			uint32_t site;		/* string id of the site's function, 0 unknown */
		} sfence;
		struct {
			/*
			 * TS_EV_OTHER of a lazy-flush kernel's lazy_tlb_defer(mm, cpu, decision)
			 * probe (ev->probe names it: other OTHER events keep whatever their
			 * decoding left here) when all three were read (known): the decision for
			 * remote CPU target (0 IPI, 1 queued, 2 flag for a full flush, 3 flag on
			 * queue overflow, 4 absorbed by the flag, tlbscope-probes(7))
			 */
			uint64_t mm_ptr;
			int32_t target;
			uint8_t decision;
			uint8_t known;
		} defer;
		struct {
			uint64_t start;		/* the new mapping, bytes; 0 unknown */
			uint64_t pages;		/* 0 unknown */
		} vmalloc;
		struct {
			uint32_t mm;		/* string id of the mm's name (the input's) */
			int32_t pid;		/* its process, -1 unknown */
			uint8_t how;		/* enum tl_how of timeline/ */
		} mminfo;
		struct {
			int32_t pid;		/* the task the table names (not ev->pid, the
						 * writer of the marker) */
			int32_t tgid;		/* its process; = pid for a kernel thread */
			uint8_t kthread;	/* a kernel thread: no mm of its own */
			char comm[TS_COMM_LEN];	/* its name when the table was written */
		} task;
	} u;
};

struct ts_source;

/* What a format reader knows about its input; strings are borrowed from the source. */
struct ts_source_info {
	const char *format;	/* registry name: "trace.dat", "ftrace-text", ... */
	const char *detail;	/* e.g. "trace.dat v7, buffer tsprobe", may be NULL */
	const char *uname;	/* kernel release line where the input carries it, else NULL */
	/*
	 * the traced kernel's command line where the input carries it (tlbscope record's
	 * "tlbscope-cmdline:" marker), else NULL
	 */
	const char *cmdline;
	/*
	 * where the input was recorded, as tlbscope record saw the machine (its
	 * "tlbscope-machine:" marker): "vm (why)" or "metal (why)", else NULL
	 */
	const char *machine;
	const char *arch;	/* the machine as the input states it apart ("x86_64"), else NULL */
	int cpus;		/* CPUs the input declares (0 = unknown) */
	bool has_tgid;		/* the input carries the tgid of every event's task */
	bool normalized;	/* already resolved by tlbscope: mms named, requests derived */
	/* JSON lines: the format of the input they were made from (their header's), else NULL */
	const char *made_from;
	/*
	 * no event can be settled by a later one, so the timeline keeps no lookahead: no
	 * tgid column, markers, kprobes (mm pointers, switch_mm loads, caller probes) or
	 * lazy-kernel probes (live tracefs: top's tracepoints alone)
	 */
	bool settled;
	/*
	 * Names of the kprobe events the input defines (trace.dat: event formats with a
	 * __probe_ip field), whether or not any was recorded; borrowed from the source.
	 * A kprobe event defined but never recorded is how the riscv NMI drop shows.
	 */
	const char *const *kprobes_defined;
	size_t nkprobes_defined;
	/*
	 * "tlbscope-tgid:" markers that could not be read (each also counted in
	 * ts_source_skipped()); the good ones are TS_EV_TGID events
	 */
	uint64_t tgid_malformed;
	/*
	 * How the same data would be read better (a static string, NULL none): perf script
	 * text made without the fields tlbscope needs names the perf command that has them
	 */
	const char *advice;
};

/* The text a task-table marker starts with (tlbscope-record(1)). */
#define TS_TGID_MARKER	"tlbscope-tgid:"
/* The text of the marker that carries the kernel's command line (tlbscope-record(1)). */
#define TS_CMDLINE_MARKER	"tlbscope-cmdline:"
/* The text of the marker that says whether the recording machine is virtual. */
#define TS_MACHINE_MARKER	"tlbscope-machine:"

/**
 * ts_source_open - open a trace of any supported format, detected from its content
 * @path: file name, or "-" for standard input
 * @err: buffer of TS_ERR_LEN bytes for the message on failure ("file: place: what")
 *
 * Returns a new source to be freed with ts_source_close(), or NULL.
 */
struct ts_source *ts_source_open(const char *path, char *err);
/*
 * ts_source_open_as - the same, its messages naming @name (NULL: as ts_source_open()'s):
 * for a copy of standard input or of a named pipe, the input as the user gave it.
 */
struct ts_source *ts_source_open_as(const char *path, const char *name, char *err);
/*
 * Can @path be read only once: "-" (standard input), or a named pipe or a device (not a
 * regular file)?  A second open of a named pipe waits for a writer that never comes.  A
 * path that does not stat is not (its open says why).
 */
bool ts_input_once(const char *path);
void ts_source_close(struct ts_source *src);

/*
 * ts_tracedat_guard_here - parse a trace.dat's headers once, in this process
 * A program's main() may call it so that the trace.dat reader runs libtracecmd's parse of
 * the headers here instead of first in a child process (which doubles the parse): a crash
 * or hang of the library then re-executes the program (its /proc/self/exe) to name the part
 * of the file at fault.  Such a main() must first pass its arguments to
 * ts_tracedat_died_main(): when it returns 1 the run is that re-execution, and @err (of
 * TS_ERR_LEN bytes) holds the message to print before exiting as for bad input.
 */
void ts_tracedat_guard_here(void);
int ts_tracedat_died_main(int argc, char **argv, char *err);

/**
 * ts_source_next - read the next event in time order
 * Returns 1 and fills @ev, 0 at the end, -1 on bad input (message in ts_source_error()).
 */
int ts_source_next(struct ts_source *src, struct ts_event *ev);
/*
 * ts_source_span - the first and last timestamps (ns) of what is left of @src, which is spent
 * after: from the records alone where the format can (a trace.dat's, without decoding them),
 * else from its events.  1 some, 0 none, -1 bad input (ts_source_error()).
 */
int ts_source_span(struct ts_source *src, uint64_t *first, uint64_t *last);
/*
 * ts_source_only - from the next event on, @src may pass over the records of kinds not in
 * @kinds (a bit per enum ts_kind) without decoding them; its first event and lost events
 * always come.  true when it will (a trace.dat: a type's kind learned from its first
 * record), false when it returns every event still.  For a pass that needs only some
 * kinds and whose conclusion is checked after: the input's checks see only what came.
 * With TS_ONLY_FLUSH_IPIS in @kinds, a cross-call event (csd_queue_cpu, ipi_send_cpu,
 * ipi_send_cpumask, csd_function_entry) may be passed over too when its function is one
 * an earlier record of its event showed not to be a TLB flush: each function's first
 * record of each of those events comes.
 */
#define TS_ONLY_FLUSH_IPIS	(1u << 31)
bool ts_source_only(struct ts_source *src, uint32_t kinds);
const char *ts_source_error(const struct ts_source *src);
const struct ts_source_info *ts_source_info(const struct ts_source *src);
/* Does the input define kprobe event @event (recorded or not; ts_source_info's list)? */
bool ts_source_defines(const struct ts_source *src, const char *event);
/* Malformed records that were skipped (text formats), and where the first one was. */
uint64_t ts_source_skipped(const struct ts_source *src, const char **first_where);

/*
 * What ts_source_next() checks in every event, whatever the reader (parsers/validate.c).
 * An event it returns has: a CPU in 0..TS_MAX_CPUS-1 and below the input's own count where
 * the input states one (info.cpus), its IPI and flush target masks too (a lost event may be
 * of CPU -1, no known CPU, which a loss on a CPU past those becomes: losses are never
 * dropped; an mm's metadata has no CPU); a time not before the last event
 * kept on its CPU (lost events and mm metadata aside); every pid -1 (unknown) or in
 * 0..TS_PID_LIMIT-1; names in valid UTF-8.  What failed a check is counted by class, the
 * first place kept; classes that skip drop the record, the others keep it.
 */
#define TS_PID_LIMIT	(1 << 22)	/* PID_MAX_LIMIT on 64-bit: no pid is this or more */

enum ts_check {
	TS_CHK_PID,		/* a pid outside 0..TS_PID_LIMIT-1: skipped */
	TS_CHK_CPU,		/* a CPU (or a mask's) past the input's count: skipped */
	TS_CHK_TIME,		/* before the last record kept on its CPU: skipped */
	TS_CHK_DUP,		/* an exact repeat of the record before it on its CPU (switch,
				 * fork, newtask, exec, exit: kinds that cannot repeat): skipped */
	TS_CHK_PREV_PID,	/* a switch away from a task other than the one switched to
				 * last on that CPU: kept */
	TS_CHK_PREV_PID_LOSSY,	/* the same on a CPU that had lost events before: expected, kept */
	TS_CHK_UTF8,		/* a name not in UTF-8: its stray bytes escaped as \xNN, kept */
	TS_CHK__COUNT
};

/* Records of class @c met so far, and where the first one was (borrowed; "" none). */
uint64_t ts_source_checked(const struct ts_source *src, enum ts_check c, const char **first);
const char *ts_check_key(enum ts_check c);	/* stable JSON key: "pid_out_of_range" */
const char *ts_check_what(enum ts_check c);	/* for people, after "N records " */
bool ts_check_skips(enum ts_check c);		/* the class drops its records */

/* String table: ids are stable for the source's life; 0 is the empty string. */
const char *ts_source_str(const struct ts_source *src, uint32_t id);
/* @s's id; a string that is not UTF-8 is interned escaped (TS_CHK_UTF8, counted). */
uint32_t ts_source_intern(struct ts_source *src, const char *s);
uint32_t ts_source_str_count(const struct ts_source *src);

struct tracefs_instance;
/**
 * ts_source_open_live - events as they arrive in a tracefs instance (parsers/live.c)
 * @inst: borrowed, must outlive the source; its events enabled, its trace_clock "mono"
 * @err: buffer of TS_ERR_LEN bytes for the message on failure
 *
 * ts_source_next() on it returns 0 when nothing is buffered right now, not at an end:
 * call it again later.  Returns a new source to be freed with ts_source_close() (which
 * closes the instance's trace_pipe_raw files), or NULL.
 */
struct ts_source *ts_source_open_live(struct tracefs_instance *inst, char *err);
/*
 * ts_source_live_done - the timestamp (ns of the instance's clock) up to which a live
 * source has returned every event: once ts_source_next() returned 0, no event older than
 * this is still to come.  0 when not known (not a live source, or nothing read yet).
 */
uint64_t ts_source_live_done(const struct ts_source *src);
/*
 * ts_source_live_fill - of the CPUs of a live source, the largest share of its ring buffer
 * that the last round read (a round: from a ts_source_next() after a 0 to the next 0): how
 * full the fullest buffer had become since the round before.  -1 when not known (not a
 * live source, no round ended yet, the buffers' size unknown).
 */
double ts_source_live_fill(const struct ts_source *src);

/*
 * JSON lines, the normalized stream as `tlbscope events` writes it and the jsonl reader
 * reads it back (parsers/jsonl-write.c; the format's keys in parsers/jsonl-keys.c).  A
 * writer writes whole lines to @out (borrowed) and names strings through @src (borrowed);
 * both must outlive it.  Free it with ts_jsonl_writer_free() (NULL accepted).
 */
struct ts_jsonl_writer;
struct ts_jsonl_writer *ts_jsonl_writer_new(FILE *out, const struct ts_source *src);
void ts_jsonl_writer_free(struct ts_jsonl_writer *w);
/* The first line: the version, the input's CPUs, format, kernel and kprobe events. */
void ts_jsonl_write_header(struct ts_jsonl_writer *w);
/*
 * An mm's "mm" line, before the first event that names it: @name, its process @pid (-1
 * unknown), @comm, and @how it was identified (timeline's enum tl_how); strings borrowed.
 */
void ts_jsonl_write_mm(struct ts_jsonl_writer *w, uint64_t ts, const char *name, int32_t pid,
		       const char *comm, uint8_t how);
/*
 * The line of @ev as the timeline resolved it: @mm the name of the mm it names (switch,
 * exec, exit, flush, load_mm; NULL: null), its "mm" line already written.
 */
void ts_jsonl_write_event(struct ts_jsonl_writer *w, const struct ts_event *ev, const char *mm);

const char *ts_kind_name(enum ts_kind kind);
const char *ts_scope_name(enum ts_scope scope);
const char *ts_evsrc_name(enum ts_evsrc src);
/*
 * The probed function a kprobe event stands for ("switch_mm", "__flush_tlb_range", ...):
 * the function name when tlbscope knows it, else NULL.
 */
const char *ts_kprobe_func(const char *func);

/*
 * Kprobe events as the input has them (parsers/probes.c): the function each probes and
 * which of its fields is each argument of tlbscope-probes(7), and how that was found.
 */
#define TS_PROBE_MAX_ARGS	6
#define TS_PROBE_MAX_FIELDS	32

enum ts_map_how {
	TS_MAP_NONE,		/* not found: unavailable */
	TS_MAP_NAME,		/* the man page's name (exact) */
	TS_MAP_ALIAS,		/* a documented alias (exact) */
	TS_MAP_POSITION,	/* by position and size against the man page (inferred) */
	TS_MAP_FILE,		/* a --probe-map line (as the user says) */
	TS_MAP_SYMBOL,		/* function: the symbol of __probe_ip (exact) */
	TS_MAP_EVENT_NAME,	/* function: the event name holds it ("p_switch_mm_8"; inferred) */
};

struct ts_probe_arg {
	const char *arg;	/* the man page's name ("mask") */
	const char *field;	/* the event's field that holds it, NULL: unavailable */
	uint8_t how;		/* enum ts_map_how */
	bool required;		/* without it the event cannot be used */
	const char *hides;	/* what is unknown without it */
};

struct ts_probe {
	const char *event;	/* the event's name */
	uint32_t name_id;
	const char *func;	/* the probed function of tlbscope-probes(7), NULL unknown */
	uint32_t func_id;	/* its string id in the source, 0 unknown */
	uint8_t func_how;	/* enum ts_map_how */
	int nargs;
	struct ts_probe_arg args[TS_PROBE_MAX_ARGS];
	int nunused;
	const char *unused[TS_PROBE_MAX_ARGS];	/* fields no argument took */
	bool resolved;		/* from a record (its symbol, its fields) */
	bool fields_known;	/* the event's fields were seen (a record, or its format) */
	bool usable;		/* every required argument found */
	uint64_t events;	/* records read */
	uint64_t unusable_events;	/* of them, counted by name only */
};

/* The kprobe events met so far (all of them once the source is read); borrowed. */
const struct ts_probe *ts_source_probes(const struct ts_source *src, size_t *n);
/* Argument @arg of @p, or NULL when its function has none of that name. */
const struct ts_probe_arg *ts_probe_arg(const struct ts_probe *p, const char *arg);
const char *ts_map_how_name(enum ts_map_how how);
/* Exact (a name, the symbol, the user's map) rather than inferred or unavailable. */
bool ts_map_how_exact(enum ts_map_how how);

/**
 * ts_probe_map_load - read a --probe-map file for every source opened after it
 * @path: lines "EVENT = FUNCTION" and "EVENT.FIELD = ARGUMENT" (EVENT may be the function),
 *        '#' comments; see tlbscope-probes(7)
 * @err: buffer of TS_ERR_LEN bytes for "file: line N: what" on failure
 *
 * Returns 0 or -1.  The map lives until ts_probe_map_free().
 */
int ts_probe_map_load(const char *path, char *err);
void ts_probe_map_free(void);

/**
 * ts_jobs_set - how many threads read a trace.dat for every source opened after it (-j)
 * @n: 1 the reader alone (no thread started); N: N - 1 workers read and inflate the
 *     per-CPU sub-buffers while the reader's thread merges and decodes them (the stream is
 *     the same, byte for byte); 0 (the default) the CPUs this process may run on.
 *
 * Only trace.dat files read directly use workers; the library's reader, text, perf and
 * JSON lines are read by one thread whatever is set.  ts_jobs() is the number in effect
 * (export's drawing threads follow it); ts_jobs_readers() the trace.dat workers, none
 * unless set: on a virtual machine of 2 CPUs the hand-over of sub-buffers between threads
 * cost more than the reading it took off the reader's thread (bench/README.md).
 */
void ts_jobs_set(int n);
int ts_jobs(void);
int ts_jobs_readers(void);
/*
 * Threads of ts_jobs() the caller keeps for work of its own (report's and tune's analyses,
 * cli/model-thread.c): the trace.dat workers of sources opened after it are that many fewer.
 */
void ts_jobs_reserve(int n);
/* Is this a TLB-flush cross-call function (flush_tlb_func, __ipi_flush_tlb_range_asid, ...)? */
bool ts_func_is_tlb_flush(const char *func);

#endif
