// SPDX-License-Identifier: GPL-2.0-only
/*
 * Live input: events as they arrive in a tracefs instance's per-CPU ring buffers, read
 * from trace_pipe_raw without blocking (the full sub-buffers spliced into a pipe and read
 * out of it many at a time, the one being written read by libtracefs), walked in place
 * (ringbuf.h) and decoded field by field as the trace.dat reader does.  The instance must
 * use the "mono" trace clock: the CPUs are merged by timestamp up to a watermark just
 * behind CLOCK_MONOTONIC, so an event is handed on only once no CPU can still produce an
 * earlier one.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <tracefs.h>

#include "../lib/lib.h"
#include "comms.h"
#include "format.h"
#include "merge.h"
#include "tep-fields.h"
#include "ringbuf.h"

/* How far behind "now" the merge stays: an event is committed well within this (ns). */
#define LIVE_LAG_NS	2000000ULL

/*
 * The full sub-buffers a splice moves at most: a system call costs 1.2 us on a virtual
 * machine measured (bench/README.md), against some 90 events of a 4 KiB sub-buffer.
 * Spliced only where this is 4 sub-buffers or more (larger ones are read one by one).
 */
#define LIVE_BATCH_BYTES	65536

struct live_cpu {
	struct tracefs_cpu *tcpu;
	int fd;				/* its trace_pipe_raw, -1 none (offline) */
	struct rb_subbuf sb;		/* the sub-buffer being walked (ringbuf.h) */
	/*
	 * its bytes: a batch of full sub-buffers spliced, or the one read, and 8 more;
	 * batch_at is where the next sub-buffer of the batch starts, batch_len its end
	 */
	unsigned char *page;
	size_t batch_at, batch_len;
	/*
	 * the last sub-buffer read was half full or more, or a splice moved some: splice
	 * first (an idle CPU is read as before, one system call a round)
	 */
	bool busy;
	const void *head;		/* next record in the page, NULL none */
	unsigned long long ts;		/* its timestamp, ns of the mono clock */
	bool drained;			/* nothing more to read in this round */
	uint64_t round_bytes;		/* read in this round */
	/* the page's missed-events mark, not yet emitted: 0 none, -1 a number not stored */
	int lost_pending;
};

struct live {
	struct tracefs_instance *inst;	/* borrowed */
	struct tep_handle *tep;
	int ncpus;
	bool long8;			/* the kernel's long (the commit word) is 8 bytes */
	struct live_cpu *cpu;
	int subbuf;			/* the sub-buffers' size */
	size_t batch;			/* bytes a splice moves at most; 0: no splicing */
	int pipe[2];			/* the splices' pipe, shared (drained at once); -1 none */
	bool in_round;
	/*
	 * many CPUs (ts_merge_wanted()): the CPUs that have a next record, by its time, kept
	 * as each is read; else the CPUs are scanned at each event
	 */
	bool merge_kept;
	struct ts_merge merge;
	bool refresh_all;		/* a round starts: every CPU to be read */
	int refresh;			/* the CPU whose record went last, -1 none */
	uint64_t buffer_bytes;		/* each CPU's ring buffer, 0 unknown */
	double fill;			/* ts_source_live_fill(): the last round's, -1 none */
	uint64_t watermark;
	uint64_t done;			/* every event up to this returned: the last round's mark */
	struct comms comms;		/* the names of the events' pids */
	struct tep_field_cache fields;	/* field lookups by (event, name) */
	/* the record decoded: only ts, cpu, data and size are set, the rest stays zero */
	struct tep_record rec;
	struct tep_fields fc;		/* the record's fields, bound to tpf at the first */
	struct tp_fields tpf;
	char detail[128];
	uint64_t nrecords;
};

/* ---- reading ---- */

/*
 * Text symbols of the running kernel, so that csd/ipi callbacks are named.  Parsed by
 * hand: sscanf() over the ~100k lines cost more than reading them.
 */
static void load_kallsyms(struct tep_handle *tep)
{
	FILE *f = fopen("/proc/kallsyms", "re");
	char line[512];

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *end, *name, *mod = NULL, *p;
		unsigned long long addr = strtoull(line, &end, 16);

		/* "ffffffff81000000 T name\t[module]\n" */
		if (end == line || end[0] != ' ' || (end[1] != 't' && end[1] != 'T') ||
		    end[2] != ' ' || !addr)
			continue;
		name = end + 3;
		p = name + strcspn(name, "\t\n");
		if (*p == '\t' && p[1] == '[') {
			mod = p + 2;
			mod[strcspn(mod, "]")] = '\0';
		}
		*p = '\0';
		tep_register_function(tep, name, addr, mod);
	}
	fclose(f);
}

/*
 * The full sub-buffers of @c's ring buffer, as many as l->batch holds, spliced into the
 * pipe and read out of it into c->page: their bytes, 0 when none is full (then the one
 * being written is read), -1 with errno when the pipe did not give them back.  A kernel
 * or file that cannot splice stops the splicing (errno EINVAL and the like): reading goes
 * on a sub-buffer at a time.
 */
static ssize_t splice_batch(struct live *l, struct live_cpu *c)
{
	ssize_t n, got = 0;

	do
		n = splice(c->fd, NULL, l->pipe[1], NULL, l->batch, SPLICE_F_NONBLOCK);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		if (n < 0 && errno != EAGAIN)
			l->batch = 0;	/* never again: read() says what reading can */
		return 0;
	}
	/* the pipe is empty before each splice: all of it comes back at once */
	while (got < n) {
		ssize_t r = read(l->pipe[0], c->page + got, (size_t)(n - got));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (!r || errno == EAGAIN)
				errno = EIO;	/* what was spliced is not all there */
			return -1;
		}
		got += r;
	}
	return n;
}

/* Next page of @c's ring buffer, walked; 0 ok (maybe drained), -1 read error. */
static int refill(struct ts_source *src, struct live *l, int cpu)
{
	struct live_cpu *c = &l->cpu[cpu];

	while (!c->head && !c->drained) {
		ssize_t r;
		size_t len;

		if (c->batch_at < c->batch_len) {
			/* the next sub-buffer of the batch spliced */
			len = c->batch_len - c->batch_at;
			if (len > (size_t)l->subbuf)
				len = (size_t)l->subbuf;
			if (rb_load(&c->sb, c->page + c->batch_at, (uint32_t)len,
				    tep_is_bigendian(), l->long8))
				return ts_source_fail(src, "cpu %d: malformed ring-buffer page (its "
						      "commit runs past the %d bytes of a "
						      "sub-buffer)", cpu, l->subbuf);
			c->batch_at += len;
		} else {
			c->batch_at = c->batch_len = 0;
			r = l->batch && c->busy ? splice_batch(l, c) : 0;
			if (r > 0) {
				c->batch_len = (size_t)r;
				c->round_bytes += (uint64_t)r;
				continue;
			}
			if (r < 0)
				return ts_source_fail(src, "cpu %d: reading the sub-buffers spliced "
						      "from trace_pipe_raw: %s", cpu, strerror(errno));
			r = tracefs_cpu_read(c->tcpu, c->page, true);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0) {
				c->drained = true;
				if (r < 0 && errno != EAGAIN)
					return ts_source_fail(src, "cpu %d: reading trace_pipe_raw: "
							      "%s", cpu, strerror(errno));
				return 0;
			}
			if (rb_load(&c->sb, c->page, (uint32_t)r, tep_is_bigendian(), l->long8))
				return ts_source_fail(src, "cpu %d: malformed ring-buffer page (its "
						      "commit runs past the %zd bytes read)", cpu, r);
			c->round_bytes += c->sb.size;	/* its events: the page may be partial */
			c->busy = c->sb.size >= (uint32_t)l->subbuf / 2;
		}
		if (rb_missed(&c->sb))
			c->lost_pending = rb_missed(&c->sb);
		c->head = rb_event(&c->sb);
		c->ts = c->sb.ts;
	}
	return 0;
}

/* refill() @cpu, and put it in the merge where its next record is (or take it out) */
static int refresh(struct ts_source *src, struct live *l, int cpu)
{
	struct live_cpu *c = &l->cpu[cpu];

	if (refill(src, l, cpu))
		return -1;
	if (c->head)
		ts_merge_set(&l->merge, cpu, c->ts);
	else
		ts_merge_drop(&l->merge, cpu);
	return 0;
}

static int live_next(struct ts_source *src, struct ts_event *ev)
{
	struct live *l = src->priv;
	struct tep_record *rec = &l->rec;
	struct tep_event *event;
	struct live_cpu *c;
	char why[160];
	int best = -1;

	if (!l->in_round) {
		/* a round: everything up to "now", merged; CPUs read again next round */
		l->watermark = mono_ns() - LIVE_LAG_NS;
		for (int i = 0; i < l->ncpus; i++) {
			l->cpu[i].drained = !l->cpu[i].tcpu;
			l->cpu[i].round_bytes = 0;
		}
		l->in_round = true;
		l->refresh_all = true;
	}
	if (l->merge_kept) {
		/*
		 * Every CPU is read at a round's start; after that only the one whose record
		 * went last can need more (the others have their next record or are drained).
		 */
		if (l->refresh_all) {
			for (int i = 0; i < l->ncpus; i++)
				if (refresh(src, l, i))
					return -1;
			l->refresh_all = false;
		} else if (l->refresh >= 0 && refresh(src, l, l->refresh)) {
			return -1;
		}
		best = ts_merge_first(&l->merge);
		if (best >= 0 && l->cpu[best].ts > l->watermark)
			best = -1;	/* the earliest left is too recent: the next round's */
	} else {
		for (int i = 0; i < l->ncpus; i++) {
			c = &l->cpu[i];
			/* a CPU with its next record, or drained, needs no call */
			if (!c->head && !c->drained && refill(src, l, i))
				return -1;
			if (c->head && c->ts <= l->watermark &&
			    (best < 0 || c->ts < l->cpu[best].ts))
				best = i;
		}
	}
	if (best < 0) {
		uint64_t most = 0;

		for (int i = 0; i < l->ncpus; i++)
			if (l->cpu[i].round_bytes > most)
				most = l->cpu[i].round_bytes;
		l->fill = l->buffer_bytes ? (double)most / (double)l->buffer_bytes : -1;
		l->in_round = false;
		l->done = l->watermark;
		return 0;	/* nothing more now: not the end */
	}
	c = &l->cpu[best];
	l->refresh = best;
	ev->ts = c->ts;
	ev->cpu = best;
	ev->tgid = -1;
	if (c->lost_pending) {
		ev->kind = TS_EV_LOST;
		ev->pid = -1;
		ev->u.lost.count = c->lost_pending > 0 ? (uint64_t)c->lost_pending : 0;
		c->lost_pending = 0;
		return 1;
	}
	rec->ts = c->ts;
	rec->cpu = best;
	rec->data = (void *)c->head;
	rec->size = rb_event_size(&c->sb);
	l->nrecords++;
	event = tep_event_of(&l->fields, l->tep, rec);
	if (event) {
		ev->pid = tep_record_pid(&l->fields, l->tep, rec);
		memcpy(ev->comm, comms_get(&l->comms, ev->pid), TS_COMM_LEN);
		/* the recorded kernel is the running one: the host's byte order */
		if (l->tpf.ctx) {
			tep_fields_rebind(&l->tpf, &l->fc, event, rec);
		} else {
			l->fc = (struct tep_fields){ .tep = l->tep, .cache = &l->fields,
						     .bigendian = tep_is_bigendian(),
						     .event = event, .rec = rec };
			tep_fields_bind(&l->tpf, &l->fc, src);
		}
		if (tp_decode(src, event->name, &l->tpf, ev, why, sizeof(why))) {
			ts_source_fail(src, "cpu %d, record %llu: %s", best,
				       (unsigned long long)l->nrecords, why);
			return -1;
		}
		if (ev->kind == TS_EV_SWITCH) {
			comms_learn(&l->comms, ev->u.sw.prev_pid, ev->u.sw.prev_comm);
			comms_learn(&l->comms, ev->u.sw.next_pid, ev->u.sw.next_comm);
		} else if (ev->kind == TS_EV_FORK || ev->kind == TS_EV_NEWTASK) {
			comms_learn(&l->comms, ev->u.fork.child_pid, ev->u.fork.child_comm);
		}
	} else {
		/* an event type enabled after we loaded the formats: counted, not decoded */
		ev->kind = TS_EV_OTHER;
		ev->pid = -1;
		ev->name = ts_source_intern(src, "unknown");
	}
	rb_next(&c->sb);
	c->head = rb_event(&c->sb);
	c->ts = c->sb.ts;
	return 1;
}

static void live_close(struct ts_source *src)
{
	struct live *l = src->priv;

	if (!l)
		return;
	for (int i = 0; l->cpu && i < l->ncpus; i++) {
		if (l->cpu[i].tcpu)
			tracefs_cpu_free_fd(l->cpu[i].tcpu);
		if (l->cpu[i].fd >= 0)
			close(l->cpu[i].fd);
		free(l->cpu[i].page);
	}
	free(l->cpu);
	ts_merge_release(&l->merge);
	for (int i = 0; i < 2; i++)
		if (l->pipe[i] >= 0)
			close(l->pipe[i]);
	tep_free(l->tep);
	free(l);
}

/* This machine's kernel command line, as a recording's marker carries it, or NULL. */
static const char *this_cmdline(struct ts_source *src)
{
	char cmd[900];
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;

	if (f)
		fclose(f);
	while (n && (cmd[n - 1] == '\n' || cmd[n - 1] == ' '))
		n--;
	cmd[n] = '\0';
	return n ? ts_source_str(src, ts_source_intern(src, cmd)) : NULL;
}

/*
 * The formats of @systems' events and the ring buffer's page header, parsed into a new tep;
 * NULL with errno.  Not tracefs_local_events_system(): that also reads /proc/kallsyms (with
 * sscanf() on each line, before load_kallsyms() reads it again) and printk_formats, which
 * made top's start take 75-100 s on an emulated riscv64 machine.
 */
static struct tep_handle *live_formats(const char *const *systems)
{
	const char *top = tracefs_tracing_dir();
	struct tep_handle *tep;
	char path[PATH_MAX], *buf;
	size_t len;

	if (!top) {
		errno = ENOENT;
		return NULL;
	}
	tep = tep_alloc();
	if (!tep)
		return NULL;
	snprintf(path, sizeof(path), "%s/events/header_page", top);
	if (read_file(path, &buf, &len)) {
		tep_free(tep);
		return NULL;
	}
	tep_parse_header_page(tep, buf, len, sizeof(long));
	free(buf);
	for (const char *const *sys = systems; *sys; sys++) {
		struct dirent *d;
		DIR *dp;

		snprintf(path, sizeof(path), "%s/events/%s", top, *sys);
		dp = opendir(path);
		while (dp && (d = readdir(dp))) {
			if (d->d_name[0] == '.' || (d->d_type != DT_DIR && d->d_type != DT_UNKNOWN))
				continue;
			snprintf(path, sizeof(path), "%s/events/%s/%s/format", top, *sys,
				 d->d_name);
			/* a format that does not parse leaves that one event unknown, as before */
			if (!read_file(path, &buf, &len)) {
				tep_parse_event(tep, buf, len, *sys);
				free(buf);
			}
		}
		if (dp)
			closedir(dp);
	}
	return tep;
}

static int live_open(struct ts_source *src)
{
	static const char *const systems[] = { "sched", "task", "ipi", "csd", "tlb", NULL };
	struct live *l = src->priv;
	int opened = 0, subbuf = getpagesize(), lsize;
	long long kb;

	l->tep = live_formats(systems);
	if (!l->tep)
		return ts_source_fail(src, "cannot read the event formats from tracefs: %s",
				      strerror(errno));
	tracefs_load_cmdlines(NULL, l->tep);
	comms_init(&l->comms, l->tep, in_init_pid_ns() ? "/proc" : NULL);
	load_kallsyms(l->tep);
	l->ncpus = sysconf(_SC_NPROCESSORS_CONF);
	if (l->ncpus <= 0 || l->ncpus > TS_MAX_CPUS)
		return ts_source_fail(src, "%d CPUs (supported: 1..%d)", l->ncpus, TS_MAX_CPUS);
	lsize = tep_get_header_page_size(l->tep);	/* the commit word's: a long */
	if (tep_is_old_format(l->tep) || (lsize != 4 && lsize != 8))
		return ts_source_fail(src, "a ring-buffer page format this reader does not know");
	l->long8 = lsize == 8;
	l->cpu = xcalloc(l->ncpus, sizeof(*l->cpu));
	l->merge_kept = ts_merge_wanted(l->ncpus);
	if (l->merge_kept)
		ts_merge_init(&l->merge, l->ncpus);
	l->refresh = -1;
	for (int i = 0; i < l->ncpus; i++)
		l->cpu[i].fd = -1;
	/*
	 * the instance's sub-buffer size where the kernel lets it choose (libtracefs 1.6
	 * reads a page at a time whatever it is): a read takes one whole sub-buffer
	 */
	if (tracefs_file_exists(l->inst, "buffer_subbuf_size_kb") &&
	    !tracefs_instance_file_read_number(l->inst, "buffer_subbuf_size_kb", &kb) &&
	    kb >= 1 && kb <= 4096)
		subbuf = (int)kb * 1024;
	l->subbuf = subbuf;
	/* each CPU's ring buffer, as the instance has it (the kernel may have given less) */
	if (!tracefs_instance_file_read_number(l->inst, "buffer_size_kb", &kb) && kb > 0)
		l->buffer_bytes = (uint64_t)kb * 1024;
	/* the splices' pipe, where a batch holds 4 sub-buffers or more */
	if (LIVE_BATCH_BYTES / subbuf >= 4 && !pipe2(l->pipe, O_CLOEXEC | O_NONBLOCK)) {
		l->batch = LIVE_BATCH_BYTES;
		/* 16 slots by default, a sub-buffer each: room for the batch; more never hurts */
		fcntl(l->pipe[1], F_SETPIPE_SZ, LIVE_BATCH_BYTES);
	}
	for (int i = 0; i < l->ncpus; i++) {
		struct live_cpu *c = &l->cpu[i];
		char name[64];
		char *path;

		snprintf(name, sizeof(name), "per_cpu/cpu%d/trace_pipe_raw", i);
		path = tracefs_instance_get_file(l->inst, name);
		c->fd = path ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
		tracefs_put_tracing_file(path);
		if (c->fd < 0)
			continue;	/* offline CPU */
		c->tcpu = tracefs_cpu_alloc_fd(c->fd, subbuf, true);
		if (!c->tcpu)
			return ts_source_fail(src, "cpu %d: cannot read trace_pipe_raw: %s", i,
					      strerror(errno));
		/* the walk reads up to 8 bytes past the page's events */
		c->page = xcalloc(1, (l->batch > (size_t)subbuf ? l->batch : (size_t)subbuf) + 8);
		opened++;
	}
	if (!opened)
		return ts_source_fail(src, "cannot open any CPU's trace_pipe_raw: %s",
				      strerror(errno));
	snprintf(l->detail, sizeof(l->detail), "instance %s", tracefs_instance_get_name(l->inst));
	src->info.detail = l->detail;
	src->info.cpus = l->ncpus;
	/*
	 * the formats of top's tracepoint systems alone: no tgid column, no markers (ftrace
	 * print), no kprobes; any other event is "unknown", never decoded
	 */
	src->info.settled = true;
	src->info.cmdline = this_cmdline(src);
	return 0;
}

static bool live_probe(const char *head, size_t len)
{
	return false;	/* never recognized from content: opened by ts_source_open_live() */
}

static const struct ts_format ts_format_live = {
	.name = "live",
	.probe = live_probe,
	.open = live_open,
	.next = live_next,
	.endless = true,
	.close = live_close,
};

uint64_t ts_source_live_done(const struct ts_source *src)
{
	return src && src->fmt == &ts_format_live ? ((const struct live *)src->priv)->done : 0;
}

double ts_source_live_fill(const struct ts_source *src)
{
	return src && src->fmt == &ts_format_live ? ((const struct live *)src->priv)->fill : -1;
}

struct ts_source *ts_source_open_live(struct tracefs_instance *inst, char *err)
{
	struct ts_source *src = xcalloc(1, sizeof(*src));
	struct live *l = xcalloc(1, sizeof(*l));

	src->path = "live";
	src->display = xstrdup(tracefs_instance_get_name(inst) ?
			       tracefs_instance_get_name(inst) : "live");
	src->strs = strtab_new();
	src->fd = -1;
	src->fmt = &ts_format_live;
	src->info.format = ts_format_live.name;
	src->priv = l;
	l->inst = inst;
	l->pipe[0] = l->pipe[1] = -1;
	l->fill = -1;
	if (live_open(src)) {
		strlcpy_ts(err, src->err, TS_ERR_LEN);
		ts_source_close(src);
		return NULL;
	}
	return src;
}
