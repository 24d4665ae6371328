// SPDX-License-Identifier: GPL-2.0-only
/*
 * What a recording enables in its instance: the tracepoints the analyses read (top's live
 * set is the subset its model reads) and, for record on riscv64, the kprobes of
 * tlbscope-probes(7) (group "tlbscope") on the flush functions the running kernel has; for
 * each one missing, what the analyses therefore cannot see.  Kprobes it creates are handed
 * back to be removed on every exit path.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record-int.h"

/* Whether top's live model reads a tracepoint too. */
enum tp_live {
	NOT_LIVE,
	LIVE,
	LIVE_TIMED,	/* where the machine's timings price the advice (REC_EVENTS_LIVE_TIMED) */
};

struct tp {
	const char *system, *event;
	enum tp_live live;
	bool optional;		/* say nothing when the kernel lacks it */
	const char *missing;	/* what the analyses cannot see without it */
	const char *live_filter;	/* top's: the records no view reads stay in the kernel */
};

static const struct tp tracepoints[] = {
	{ "sched", "sched_switch", LIVE, false,
	  "which task (and mm) each CPU runs: no timeline at all" },
	{ "sched", "sched_process_fork", LIVE, false,
	  "parent/child links; new processes' mms are guessed" },
	{ "sched", "sched_process_exec", LIVE, false, "exec loading a new mm" },
	{ "sched", "sched_process_exit", LIVE, false, "when a process and its mm end" },
	{ "task", "task_newtask", LIVE, false,
	  "clone flags: threads and processes are told apart by guesses" },
	{ "ipi", "ipi_send_cpu", LIVE, false, "single-target IPIs" },
	{ "ipi", "ipi_send_cpumask", LIVE, false, "multi-target IPIs and their target masks" },
	{ "ipi", "ipi_raise", NOT_LIVE, true, NULL },
	{ "ipi", "ipi_entry", NOT_LIVE, true, NULL },
	{ "ipi", "ipi_exit", NOT_LIVE, true, NULL },
	{ "csd", "csd_queue_cpu", LIVE, false,
	  "which CPU sent each flush IPI to which (sender side)" },
	{ "csd", "csd_function_entry", LIVE, false, "flush IPIs as handled on the target CPU" },
	/* tune's measured handler time alone reads it: live only where timings price */
	{ "csd", "csd_function_exit", LIVE_TIMED, false, "how long a flush IPI handler ran" },
	/*
	 * x86 traces every switch of mm: with 0 pages where the next mm's ASID was up to date
	 * and nothing was flushed, on most switches of a PCID machine.  The views count no
	 * flush for them (timeline/flush.c), so top leaves them in the kernel; a recording
	 * keeps them, as trace-cmd would.
	 */
	{ "tlb", "tlb_flush", LIVE, false, "local TLB flushes and their reasons (x86 tracepoint)",
	  "reason != 0 || pages != 0" },
};

/*
 * The RISC-V flush-function kprobes, as corpus/gen-probes.sh defines them (same group,
 * event and argument names, so both sources read alike).  "@NAME" stands for a struct
 * member offset read from the kernel's BTF: a fetch argument that needs an offset this
 * kernel's BTF does not give is left out (and said so).
 */
struct kp {
	const char *fn;
	const char *args;
	const char *what;	/* what the analyses miss without it */
	bool lazy;		/* a lazy-flush kernel's (patches-lazy/): silent when absent */
};

static const struct kp kprobes[] = {
	{ "switch_mm", "prev=%a0:x64 next=%a1:x64 next_mask=+@MM_CPUMASK(%a1):x64",
	  "the mm pointer each CPU switches to and its cpumask" },
	{ "__flush_tlb_range",
	  "mm=%a0:x64 mask=+0(%a1):x64 start=%a2:x64 size=%a3:x64 stride=%a4:x64",
	  "every flush request with its range and the kernel's target mask" },
	{ "flush_tlb_mm", "mm=%a0:x64 mask=+@MM_CPUMASK(%a0):x64", "full-mm flush requests" },
	{ "flush_tlb_mm_range",
	  "mm=%a0:x64 start=%a1:x64 end=%a2:x64 page_size=%a3:u32 mask=+@MM_CPUMASK(%a0):x64",
	  "range flushes from tlb_flush() (munmap, mprotect)" },
	{ "flush_tlb_page",
	  "vma=%a0:x64 mm=+@VMA_MM(%a0):x64 addr=%a1:x64 mask=+@MM_CPUMASK(+@VMA_MM(%a0)):x64",
	  "single-page flushes (COW, ptep_clear_flush)" },
	{ "flush_tlb_range",
	  "vma=%a0:x64 mm=+@VMA_MM(%a0):x64 start=%a1:x64 end=%a2:x64 "
	  "mask=+@MM_CPUMASK(+@VMA_MM(%a0)):x64",
	  "range flushes on a vma" },
	{ "flush_tlb_kernel_range", "start=%a0:x64 end=%a1:x64", "kernel-range flushes" },
	{ "flush_tlb_all", "", "flush-everything requests" },
	{ "arch_tlbbatch_flush", "batch=%a0:x64 mask=+@BATCH_MASK(%a0):x64",
	  "deferred unmap batches (reclaim, migration)" },
	{ "__ipi_flush_tlb_range_asid",
	  "info=%a0:x64 asid=+@FTD_ASID(%a0):x64 start=+@FTD_START(%a0):x64 "
	  "size=+@FTD_SIZE(%a0):x64 stride=+@FTD_STRIDE(%a0):x64",
	  "flush IPIs as run on each target CPU" },
	{ "sbi_remote_sfence_vma_asid", "mask=+0(%a0):x64 start=%a1:x64 size=%a2:x64 asid=%a3:x64",
	  "remote flushes handed to the SBI firmware (no kernel IPI shows them)" },
	/* a lazy-flush kernel's own (tlbscope-probes(7) "On a lazy-flush kernel") */
	{ "local_load_tlb_mm", "mm=%a0:x64 mask=+@MM_CPUMASK(%a0):x64",
	  "the lazy kernel's table loads", true },
	{ "local_flush_tlb_mm", "mm=%a0:x64 mask=+@MM_CPUMASK(%a0):x64",
	  "the lazy kernel's evictions", true },
	{ "lazy_tlb_defer", "mm=%a0:x64 cpu=%a1:u32 decision=%a2:u32",
	  "the lazy kernel's deferral decisions", true },
	{ "lazy_tlb_reset_local", "", "the lazy kernel's table resets", true },
	{ "lazy_tlb_exit_mm", "mm=%a0:x64", "where the lazy kernel drops an exiting mm", true },
};

#define N_TP (sizeof(tracepoints) / sizeof(tracepoints[0]))
#define N_KP (sizeof(kprobes) / sizeof(kprobes[0]))
_Static_assert(N_KP == RECORD_N_KP, "record.h's count of the kprobes");
#define KP_GROUP RECORD_KP_GROUP

const char *record_kprobe_fn(size_t i)
{
	return kprobes[i].fn;
}

/*
 * @t's filter in the instance's own event directory.  Where the kernel refuses it (fields
 * of another name) every record is read, as without one: the views count the same.
 */
static void set_live_filter(struct tracefs_instance *inst, const struct tp *t)
{
	char path[128];

	snprintf(path, sizeof(path), "events/%s/%s/filter", t->system, t->event);
	tracefs_instance_file_write(inst, path, t->live_filter);
}

int record_enable_tracepoints(struct tracefs_instance *inst, enum rec_events set, bool riscv,
			      const char *who)
{
	bool say = set == REC_EVENTS_RECORD, have_switch = false;
	int enabled = 0;

	for (size_t i = 0; i < N_TP; i++) {
		const struct tp *t = &tracepoints[i];

		if ((set == REC_EVENTS_LIVE && t->live != LIVE) ||
		    (set == REC_EVENTS_LIVE_TIMED && t->live == NOT_LIVE))
			continue;
		if (!tracefs_event_file_exists(inst, t->system, t->event, "enable")) {
			/* tlb_flush is x86's; RISC-V flushes are seen through the kprobes */
			if (say && !t->optional && !(riscv && !strcmp(t->event, "tlb_flush")))
				rec_warning("%s: this kernel has no %s:%s; the analyses will not see %s",
					    who, t->system, t->event, t->missing);
			continue;
		}
		if (set != REC_EVENTS_RECORD && t->live_filter)
			set_live_filter(inst, t);
		if (tracefs_event_enable(inst, t->system, t->event)) {
			rec_warning("%s: cannot enable %s:%s: %s; the analyses will not see %s", who,
				    t->system, t->event, strerror(errno),
				    t->missing ? t->missing : "it");
			continue;
		}
		enabled++;
		have_switch |= !strcmp(t->event, "sched_switch");
	}
	if (!enabled)
		return rec_error("%s: none of the events the analyses need exist on this kernel "
				 "(sched, task, ipi, csd, tlb tracepoints)", who);
	if (!have_switch && say)
		rec_warning("%s: without sched:sched_switch the trace cannot be analyzed per CPU",
			    who);
	return 0;
}

/* Is @fn a traceable function (listed in available_filter_functions)? */
static bool in_file(const char *path, const char *fn, bool kallsyms)
{
	FILE *f = fopen(path, "re");
	char line[512];
	size_t n = strlen(fn);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = line;

		if (kallsyms) {	/* "ffffffff81000000 T name [module]" */
			p = strchr(line, ' ');
			if (!p || !(p[1] == 't' || p[1] == 'T') || p[2] != ' ')
				continue;
			p += 3;
		}
		found = !strncmp(p, fn, n) && (p[n] == '\n' || p[n] == ' ' || p[n] == '\t' ||
					       p[n] == '\0');
	}
	fclose(f);
	return found;
}

/*
 * Is the kprobe "tlbscope/@fn" defined?  @path is the top-level kprobe_events, whose lines
 * read "p:GROUP/EVENT PLACE ARGS" ("r[N]:" for a return probe).  Read here rather than by
 * tracefs_dynevent_get(): libtracefs 1.8.1's frees a list that is not NULL-terminated (a
 * crash) when the event asked is not the first of two or more dynamic events.
 */
static bool kprobe_defined(const char *path, const char *fn)
{
	FILE *f = fopen(path, "re");
	char line[1024];
	size_t glen = strlen(KP_GROUP), n = strlen(fn);
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		const char *p = strchr(line, ':');

		if (!p || (line[0] != 'p' && line[0] != 'r'))
			continue;
		p++;
		found = !strncmp(p, KP_GROUP, glen) && p[glen] == '/' &&
			!strncmp(p + glen + 1, fn, n) &&
			(p[glen + 1 + n] == ' ' || p[glen + 1 + n] == '\n' || !p[glen + 1 + n]);
	}
	fclose(f);
	return found;
}

static void say_kprobes_missing(const char *why, size_t from)
{
	fprintf(stderr, "tlbscope: record: kprobes not added (%s):", why);
	for (size_t i = from; i < N_KP; i++)
		if (!kprobes[i].lazy)
			fprintf(stderr, " %s", kprobes[i].fn);
	fprintf(stderr, "\ntlbscope: record: without them the analyses miss mm pointers, flush "
		"ranges and target masks, flush IPIs as run on each CPU and SBI remote fences\n");
}

/*
 * On riscv64, add a kprobe per flush function this kernel has, in the group "tlbscope",
 * at sym+8 (a probe on the ftrace patch site at +0 is refused), arguments from registers.
 * Every failure is a warning: the tracepoints alone still make a trace.
 */
void record_add_kprobes(struct tracefs_instance *inst, const char *tracing_dir,
			const char *machine, struct tracefs_dynevent **added, int guard_fd)
{
	bool riscv = !strcmp(machine, "riscv64");
	char path[PATH_MAX], defined[PATH_MAX], dropped[512];
	long offs[RECORD_N_OFFS];

	if (!tracefs_file_exists(NULL, "kprobe_events")) {
		char why[256];

		snprintf(why, sizeof(why), "this %s kernel has no kprobe_events: "
			 "CONFIG_KPROBE_EVENTS is off%s", machine,
			 riscv ? "" : "; the probes are on riscv64 flush functions anyway");
		say_kprobes_missing(why, 0);
		return;
	}
	if (!riscv) {
		fprintf(stderr, "tlbscope: record: no kprobes: the flush-function probes are for "
			"riscv64 kernels and this one is %s\n", machine);
		return;
	}
	if (!record_btf_offsets(offs))
		rec_warning("record: no kernel BTF (/sys/kernel/btf/vmlinux): kprobe arguments "
			"that read struct members (cpumasks, vma->vm_mm) are left out");
	snprintf(path, sizeof(path), "%s/available_filter_functions", tracing_dir);
	snprintf(defined, sizeof(defined), "%s/kprobe_events", tracing_dir);
	for (size_t i = 0; i < N_KP; i++) {
		const struct kp *k = &kprobes[i];
		struct tracefs_dynevent *ev;
		char addr[128], *args;
		int off;

		if (in_file(path, k->fn, false)) {
			off = 8;	/* after the 8-byte ftrace patch site */
		} else if (in_file("/proc/kallsyms", k->fn, true)) {
			off = 0;	/* built without ftrace (sbi.c): no patch site */
		} else {
			if (!k->lazy)	/* a stock kernel has none of the lazy ones */
				rec_warning("record: no %s in this kernel (inlined?): no kprobe; the "
					"analyses will not see %s", k->fn, k->what);
			continue;
		}
		if (kprobe_defined(defined, k->fn)) {	/* someone else's: use it, leave it */
			fprintf(stderr, "tlbscope: record: kprobe %s/%s already exists; using it\n",
				KP_GROUP, k->fn);
		} else {
			dropped[0] = '\0';
			args = record_kprobe_args(k->args, offs, dropped, sizeof(dropped));
			if (dropped[0])
				rec_warning("record: %s: no BTF offset for %s; probed without them",
					k->fn, dropped);
			snprintf(addr, sizeof(addr), "%s+%d", k->fn, off);
			rec_guard_note(guard_fd, 'K', k->fn);
			ev = tracefs_kprobe_alloc(KP_GROUP, k->fn, addr, *args ? args : NULL);
			free(args);
			if (!ev || tracefs_dynevent_create(ev)) {
				rec_warning("record: cannot add kprobe %s/%s at %s: %s; the analyses will "
					"not see %s", KP_GROUP, k->fn, addr, strerror(errno), k->what);
				tracefs_dynevent_free(ev);
				continue;
			}
			added[i] = ev;
		}
		if (tracefs_event_enable(inst, KP_GROUP, k->fn))
			rec_warning("record: cannot enable kprobe %s/%s: %s", KP_GROUP, k->fn,
				strerror(errno));
	}
}

/*
 * Not forced: libtracefs's force writes 0 to the event's enable file in every instance and
 * the top level, and a write there expands the top-level ring buffer of a kernel that never
 * used it.  Our instance, where they were enabled, is gone by now; a probe someone else has
 * enabled since (EBUSY) is left, and said so.
 */
void record_remove_kprobes(struct tracefs_dynevent **added)
{
	for (size_t i = 0; i < N_KP; i++) {
		if (!added[i])
			continue;
		if (tracefs_dynevent_destroy(added[i], false))
			rec_warning("record: cannot remove kprobe %s/%s: %s%s", KP_GROUP, kprobes[i].fn,
				strerror(errno), errno == EBUSY ? " (enabled elsewhere); left" : "");
		tracefs_dynevent_free(added[i]);
		added[i] = NULL;
	}
}

/* ---- the same events through perf (record --kprobes-via perf) ---- */

/* Append a copy of @s to the NULL-terminated vector @v of *@n strings. */
static void argv_add(char ***v, size_t *n, size_t *alloc, const char *s)
{
	ALLOC_GROW(*v, *n + 2, *alloc);
	(*v)[(*n)++] = xstrdup(s);
	(*v)[*n] = NULL;
}

static bool enabled_in(struct tracefs_instance *inst, const char *system, const char *event)
{
	char *en = tracefs_event_file_read(inst, system, event, "enable", NULL);
	bool on = en && en[0] == '1';

	free(en);
	return on;
}

char **rec_perf_argv(struct rec *r, const char *path, char *const *command, int ctl_fd,
		     int ack_fd)
{
	size_t n = 0, cap = 0;
	char **v = NULL, buf[TS_MAX_CPUS * 4 + 64];
	size_t pos = 0;

	argv_add(&v, &n, &cap, "perf");
	argv_add(&v, &n, &cap, "record");
	argv_add(&v, &n, &cap, "-q");
	if (r->has_cpus) {
		buf[0] = '\0';
		for (int c = 0; c < r->ncpus && pos < sizeof(buf) - 16; c++)
			if (ts_cpumask_test(&r->cpus, c))
				pos += snprintf(buf + pos, sizeof(buf) - pos, "%s%d", pos ? "," : "",
						c);
		argv_add(&v, &n, &cap, "-C");
		argv_add(&v, &n, &cap, buf);
	} else {
		argv_add(&v, &n, &cap, "-a");
	}
	/* perf's buffers as large as the instance's (it rounds up to a power of two pages) */
	snprintf(buf, sizeof(buf), "%luK", r->c.buffer_kb);
	argv_add(&v, &n, &cap, "-m");
	argv_add(&v, &n, &cap, buf);
	argv_add(&v, &n, &cap, "-o");
	argv_add(&v, &n, &cap, path);
	if (ctl_fd >= 0 && ack_fd >= 0) {
		snprintf(buf, sizeof(buf), "fd:%d,%d", ctl_fd, ack_fd);
		argv_add(&v, &n, &cap, "--control");
		argv_add(&v, &n, &cap, buf);
	}
	for (size_t i = 0; i < N_TP; i++) {
		if (!enabled_in(r->inst, tracepoints[i].system, tracepoints[i].event))
			continue;
		snprintf(buf, sizeof(buf), "%s:%s", tracepoints[i].system, tracepoints[i].event);
		argv_add(&v, &n, &cap, "-e");
		argv_add(&v, &n, &cap, buf);
	}
	for (size_t i = 0; i < N_KP; i++) {
		if (r->kp_id[i] < 0)
			continue;
		snprintf(buf, sizeof(buf), KP_GROUP ":%s", kprobes[i].fn);
		argv_add(&v, &n, &cap, "-e");
		argv_add(&v, &n, &cap, buf);
	}
	if (command) {
		argv_add(&v, &n, &cap, "--");
		for (; *command; command++)
			argv_add(&v, &n, &cap, *command);
	}
	return v;
}

void rec_argv_free(char **argv)
{
	for (char **p = argv; p && *p; p++)
		free(*p);
	free(argv);
}
