// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: one input file through a reader, the timeline and the models, as
 * `tlbscope tune` runs them.  Built once per format (-DFUZZ_FORMAT="trace.dat",
 * "ftrace-text", "jsonl", "perf-script"): inputs that another reader would take are passed
 * over, so each campaign stays on its own reader.  A crash, hang, leak, sanitizer report or
 * an event that breaks the invariants of the normalized stream (check_event()) is a
 * finding; a clean "bad input" error is not.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tuner/tuner.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=\"trace.dat\" (or ftrace-text, jsonl, perf-script)"
#endif

#define PID_LIMIT	4194304		/* the kernel's PID_MAX_LIMIT, 2^22 */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int thresholds[] = { 1, 2, 6, 12 };
static const int queues[] = { 0, 4, 32 };
static const int replay[][2] = { { 6, 32 }, { 1, 0 } };

/* What check_event() remembers between the events of one input. */
struct stream_state {
	uint64_t index;			/* events returned so far */
	uint64_t last_ts[TS_MAX_CPUS];	/* ns of the last event of each CPU */
	bool seen[TS_MAX_CPUS];
};

static void __attribute__((noreturn, format(printf, 2, 3)))
broken(const struct stream_state *st, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "fuzz: %s reader: event %llu breaks an invariant: ", FUZZ_FORMAT,
		(unsigned long long)st->index);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}

/* Strict UTF-8: no overlong forms, no surrogates, nothing past U+10FFFF. */
static bool utf8_valid(const unsigned char *s, size_t len)
{
	size_t i = 0;

	while (i < len) {
		unsigned char c = s[i];
		uint32_t cp;
		int n;

		if (c < 0x80) {
			i++;
			continue;
		}
		if (c >= 0xc2 && c <= 0xdf)
			n = 1, cp = c & 0x1f;
		else if (c >= 0xe0 && c <= 0xef)
			n = 2, cp = c & 0x0f;
		else if (c >= 0xf0 && c <= 0xf4)
			n = 3, cp = c & 0x07;
		else
			return false;
		if (len - i <= (size_t)n)
			return false;
		for (int k = 1; k <= n; k++) {
			if ((s[i + k] & 0xc0) != 0x80)
				return false;
			cp = cp << 6 | (s[i + k] & 0x3f);
		}
		if ((n == 2 && cp < 0x800) || (n == 3 && cp < 0x10000) || cp > 0x10ffff ||
		    (cp >= 0xd800 && cp <= 0xdfff))
			return false;
		i += n + 1;
	}
	return true;
}

static void check_pid(const struct stream_state *st, const char *what, int32_t pid)
{
	if (pid != -1 && (pid < 0 || pid >= PID_LIMIT))
		broken(st, "%s %d is neither -1 nor in [0, %d)", what, pid, PID_LIMIT);
}

/* A task name array: NUL-terminated within its TS_COMM_LEN bytes, valid UTF-8. */
static void check_comm(const struct stream_state *st, const char *what, const char *comm)
{
	const char *nul = memchr(comm, '\0', TS_COMM_LEN);

	if (!nul)
		broken(st, "%s has no NUL in its %d bytes", what, TS_COMM_LEN);
	if (!utf8_valid((const unsigned char *)comm, (size_t)(nul - comm)))
		broken(st, "%s \"%s\" is not valid UTF-8", what, comm);
}

/* A string id: in the source's table, its string valid UTF-8. */
static void check_str(const struct stream_state *st, const struct ts_source *src,
		      const char *what, uint32_t id)
{
	uint32_t n = ts_source_str_count(src);
	const char *s;

	if (id >= n)
		broken(st, "%s string id %u past the table's %u strings", what, id, n);
	s = ts_source_str(src, id);
	if (!utf8_valid((const unsigned char *)s, strlen(s)))
		broken(st, "%s string %u \"%s\" is not valid UTF-8", what, id, s);
}

/* A CPU mask of @ev that names a CPU at or past @cpus: its first such CPU, or -1. */
static int mask_past(const struct ts_cpumask *m, int cpus)
{
	int c = ts_cpumask_next(m, cpus);

	return c < TS_MAX_CPUS ? c : -1;
}

/*
 * The invariants every event ts_source_next() returns keeps, whatever the input (the
 * stream check of parsers/, parsers.h): a known kind; a CPU in range and below the input's
 * count, its IPI and flush target masks too; per-CPU time that never runs backwards; pids
 * the kernel can have; task names and interned strings in UTF-8.  A reader that takes
 * garbage for a number breaks one of these with exit 0; this makes that a crash.
 */
static void check_event(struct stream_state *st, const struct ts_source *src,
			const struct ts_event *ev)
{
	int cpus = ts_source_info(src)->cpus, c;
	const char *kind = ts_kind_name(ev->kind);

	if (ev->kind >= TS_EV__COUNT)
		broken(st, "kind %u >= TS_EV__COUNT %d", ev->kind, TS_EV__COUNT);
	/* mm metadata has no CPU and no time; a loss may be of no known CPU (-1) */
	if (ev->kind != TS_EV_MM && !(ev->kind == TS_EV_LOST && ev->cpu == -1)) {
		if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
			broken(st, "%s: cpu %d outside [0, %d)", kind, ev->cpu, TS_MAX_CPUS);
		if (cpus > 0 && ev->cpu >= cpus)
			broken(st, "%s: cpu %d >= the input's %d CPUs", kind, ev->cpu, cpus);
	}
	/* a loss takes the time of the records around it: not ordered itself */
	if (ev->kind != TS_EV_MM && ev->kind != TS_EV_LOST) {
		if (st->seen[ev->cpu] && ev->ts < st->last_ts[ev->cpu])
			broken(st, "%s: cpu %d: ts %llu before that cpu's last event's %llu",
			       kind, ev->cpu, (unsigned long long)ev->ts,
			       (unsigned long long)st->last_ts[ev->cpu]);
		st->seen[ev->cpu] = true;
		st->last_ts[ev->cpu] = ev->ts;
	}
	check_pid(st, "pid", ev->pid);
	check_pid(st, "tgid", ev->tgid);
	check_comm(st, "comm", ev->comm);
	check_str(st, src, "name", ev->name);
	check_str(st, src, "probe", ev->probe);
	switch (ev->kind) {
	case TS_EV_SWITCH:
		check_pid(st, "switch prev_pid", ev->u.sw.prev_pid);
		check_pid(st, "switch next_pid", ev->u.sw.next_pid);
		check_pid(st, "switch next_tgid", ev->u.sw.next_tgid);
		check_comm(st, "switch prev_comm", ev->u.sw.prev_comm);
		check_comm(st, "switch next_comm", ev->u.sw.next_comm);
		break;
	case TS_EV_FORK:
	case TS_EV_NEWTASK:
		check_pid(st, "fork parent_pid", ev->u.fork.parent_pid);
		check_pid(st, "fork child_pid", ev->u.fork.child_pid);
		check_comm(st, "fork child_comm", ev->u.fork.child_comm);
		break;
	case TS_EV_EXEC:
		check_pid(st, "exec pid", ev->u.exec.pid);
		check_pid(st, "exec old_pid", ev->u.exec.old_pid);
		check_str(st, src, "exec filename", ev->u.exec.filename);
		break;
	case TS_EV_EXIT:
		check_pid(st, "exit pid", ev->u.exit.pid);
		break;
	case TS_EV_MM:
		check_pid(st, "mm pid", ev->u.mminfo.pid);
		break;
	case TS_EV_TGID:
		check_pid(st, "tgid-table pid", ev->u.task.pid);
		check_pid(st, "tgid-table tgid", ev->u.task.tgid);
		check_comm(st, "tgid-table comm", ev->u.task.comm);
		break;
	case TS_EV_IPI:
		if (ev->u.ipi.from < -1 || ev->u.ipi.from >= (cpus > 0 ? cpus : TS_MAX_CPUS))
			broken(st, "ipi: from cpu %d, the input has %d CPUs (0: unknown)",
			       ev->u.ipi.from, cpus);
		if (cpus > 0 && (c = mask_past(&ev->u.ipi.targets, cpus)) >= 0)
			broken(st, "ipi: target cpu %d >= the input's %d CPUs", c, cpus);
		break;
	case TS_EV_FLUSH:
		if (cpus > 0 && (ev->u.flush.fflags & TS_FF_KMASK) &&
		    (c = mask_past(&ev->u.flush.kmask, cpus)) >= 0)
			broken(st, "flush: kernel target cpu %d >= the input's %d CPUs", c, cpus);
		break;
	default:
		break;
	}
	st->index++;
}

static void run(struct ts_source *src)
{
	struct stream_state st = { 0 };
	struct tuner_opts to = {
		.thresholds = thresholds, .nthresholds = 4, .queues = queues, .nqueues = 3,
		.flush_all_threshold = 64, .tlb_reach_mms = 4, .replay = replay, .nreplay = 2,
	};
	struct timeline *tl = timeline_new(src, NULL);
	struct ts_event ev;
	struct tuner *tu;
	int r;

	to.ncpus = ts_source_info(src)->cpus ? ts_source_info(src)->cpus : 4;
	tu = tuner_new(&to);
	while ((r = ts_source_next(src, &ev)) > 0) {
		check_event(&st, src, &ev);
		timeline_feed(tl, &ev, tuner_feed, tu);
	}
	if (r == 0) {
		timeline_finish(tl, tuner_feed, tu);
		tuner_finish(tu);
	}
	tuner_free(tu);
	timeline_free(tl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[TS_ERR_LEN];
	struct ts_source *src;
	int fd;

	/*
	 * Not a perf.data: its reader runs perf on the file, a child per input that libFuzzer's
	 * signal handlers follow until it execs, and perf's parser is not tlbscope's to fuzz.
	 */
	if (size >= 8 && !memcmp(data, "PERFILE2", 8))
		return 0;
	fd = memfd_create("fuzz", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	src = ts_source_open(path, err);
	if (src) {
		if (!strcmp(ts_source_info(src)->format, FUZZ_FORMAT))
			run(src);
		ts_source_close(src);
	}
	close(fd);
	return 0;
}
