// SPDX-License-Identifier: GPL-2.0-only
/*
 * perf input: the text of `perf script` (default fields, or -F comm,tid,pid,cpu,time,event,
 * trace with --ns; tracepoints and kprobes, "group:event") and perf.data files, read by
 * running `perf script` with those fields as a child and reading its text.  Each line's
 * columns are split here; the event's fields go to tp_decode() through the ftrace text
 * getters, since perf prints tracepoints with the same printers.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ftrace-fields.h"

#define PROBE_LINES	16
#define PERF_FIELDS	"comm,tid,pid,cpu,time,event,trace"

struct perf {
	uint64_t last_ts;		/* ns of the last event, given to LOST events */
	uint64_t unformatted;		/* events perf printed as [FAILED TO PARSE] */
	char detail[200];
	char uname[128];		/* the header's "os release" */
	char arch[32];			/* the header's "arch" */
	/* perf.data: the `perf script` child whose output is src->fd */
	pid_t child;
	int err_fd;			/* its standard error, an unlinked temporary file */
};

struct perf_hdr {
	uint64_t ts;
	int cpu, pid, tgid;		/* -1 unknown; tgid: no PID column (default fields) */
	bool pid_col;			/* "PID/TID": the process of every event is known */
	bool usec;			/* the time has microseconds only (no --ns) */
	const char *comm;
	size_t comm_len;
	const char *name;		/* the event, its "group:" dropped */
	size_t name_len;
	const char *payload;
};

/*
 * "COMM TID [CPU] SECS.FRAC: GROUP:EVENT: PAYLOAD" or, with -F ...,pid, "COMM PID/TID [CPU]
 * ...": the CPU column is the first " [digits] " followed by a timestamp.  The comm may hold
 * blanks; its task id is the last token before the CPU column.
 */
static int parse_perf_line(const char *s, size_t len, struct perf_hdr *h)
{
	for (const char *b = s; (b = memchr(b, '[', len - (size_t)(b - s))); b++) {
		const char *e = b + 1, *t, *tok, *slash, *ev, *ev_end, *colon, *dot;
		size_t tl;

		if (b == s || !is_blank(b[-1]))
			continue;
		while (isdigit((unsigned char)*e))
			e++;
		if (e == b + 1 || *e != ']' || !is_blank(e[1]))
			continue;
		if (span_int(b + 1, (size_t)(e - b - 1), &h->cpu) || h->cpu >= TS_MAX_CPUS)
			return -1;
		/* the timestamp, "10346.645191:" or with --ns "10346.645191897:" */
		for (t = e + 1; is_blank(*t); t++)
			;
		for (e = t; isdigit((unsigned char)*e) || *e == '.'; e++)
			;
		if (*e != ':' || ftext_parse_ts(t, (size_t)(e - t), &h->ts))
			return -1;
		dot = memchr(t, '.', (size_t)(e - t));
		h->usec = !dot || e - dot - 1 <= 6;
		/* an optional period column, then "group:event:" */
		for (ev = e + 1; is_blank(*ev); ev++)
			;
		for (e = ev; isdigit((unsigned char)*e); e++)
			;
		if (e > ev && is_blank(*e))
			for (ev = e; is_blank(*ev); ev++)
				;
		for (ev_end = ev; *ev_end && !is_blank(*ev_end); ev_end++)
			;
		if (ev_end - ev < 2 || ev_end[-1] != ':')
			return -1;
		colon = memchr(ev, ':', (size_t)(ev_end - 1 - ev));
		h->name = colon ? colon + 1 : ev;
		h->name_len = (size_t)(ev_end - 1 - h->name);
		if (!h->name_len)
			return -1;
		for (h->payload = ev_end; is_blank(*h->payload); h->payload++)
			;
		/* left of the CPU column: "COMM TID" or "COMM PID/TID" */
		tl = rtrim(s, (size_t)(b - s));
		for (tok = s + tl; tok > s && !is_blank(tok[-1]); tok--)
			;
		if (tok == s + tl)
			return -1;
		slash = memchr(tok, '/', (size_t)(s + tl - tok));
		h->tgid = -1;
		h->pid_col = slash != NULL;
		if (slash) {
			if (span_int(tok, (size_t)(slash - tok), &h->tgid) ||
			    span_int(slash + 1, (size_t)(s + tl - slash - 1), &h->pid))
				return -1;
		} else if (span_int(tok, (size_t)(s + tl - tok), &h->pid)) {
			return -1;
		}
		/* perf prints ":-1  -1/-1" for a task it lost track of (exited): unknown */
		if (h->pid < -1 || h->tgid < -1)
			return -1;
		h->comm_len = rtrim(s, (size_t)(tok - s));
		for (h->comm = s; h->comm_len && is_blank(*h->comm); h->comm++, h->comm_len--)
			;
		return 0;
	}
	return -1;
}

/*
 * "... PERF_RECORD_LOST lost 12" (--show-lost-events): the count, 0 unknown; the CPU, -1
 * when there is none or it is past TS_MAX_CPUS (or past 32 bits: not wrapped into a CPU)
 */
static bool parse_lost(const char *s, int *cpu, uint64_t *count)
{
	const char *p = strstr(s, "PERF_RECORD_LOST");
	const char *b = strstr(s, " ["), *e;

	if (!p)
		return false;
	*cpu = -1;
	if (b && b < p) {
		for (e = b + 2; isdigit((unsigned char)*e); e++)
			;
		if (e == b + 2 || span_int(b + 2, (size_t)(e - b - 2), cpu) || *cpu >= TS_MAX_CPUS)
			*cpu = -1;
	}
	*count = 0;
	p = strstr(p, "lost ");
	if (p)
		*count = strtoull(p + 5, NULL, 10);
	return true;
}

/* "# os release : 6.18.44" and "# nrcpus avail : 2" of `perf script --header` */
static void header_line(struct ts_source *src, struct perf *pf, const char *s)
{
	static const char rel[] = "# os release : ", ncpu[] = "# nrcpus avail : ",
			  arch[] = "# arch : ";
	int n;

	if (!strncmp(s, rel, sizeof(rel) - 1) && !src->info.uname) {
		strlcpy_ts(pf->uname, s + sizeof(rel) - 1, sizeof(pf->uname));
		src->info.uname = pf->uname;
	} else if (!strncmp(s, arch, sizeof(arch) - 1) && !src->info.arch) {
		strlcpy_ts(pf->arch, s + sizeof(arch) - 1, sizeof(pf->arch));
		src->info.arch = pf->arch;
	} else if (!strncmp(s, ncpu, sizeof(ncpu) - 1) && !parse_int(s + sizeof(ncpu) - 1, &n) &&
		   n > 0 && n <= TS_MAX_CPUS) {
		src->info.cpus = n;
	}
}

/*
 * The "# ..." header `perf script --header` prints before any event, read at open so that
 * the CPU count, kernel and arch are known before the first event: tune sizes its models by
 * the declared CPUs and sends a kernel-wide flush to every one of them, so a count learnt
 * only later, while reading, made it price 512 CPUs.  @src->buf has the input's first bytes
 * (the probe's); with @more (a perf child's pipe) more is read while the header lasts, up to
 * PERF_HEADER_MAX bytes.  0, or -1 on a read error (ts_source_fail() called).
 */
#define PERF_HEADER_MAX	(1 << 20)
static int read_header(struct ts_source *src, struct perf *pf, bool more)
{
	size_t at = 0;

	for (;;) {
		char *p = src->buf + at, *nl;
		size_t avail = src->buf_len - at;

		nl = avail ? memchr(p, '\n', avail) : NULL;
		if (nl) {
			if (*p != '#')
				return 0;
			*nl = '\0';
			header_line(src, pf, p);
			*nl = '\n';
			at = (size_t)(nl + 1 - src->buf);
			continue;
		}
		if (!more || src->eof || src->buf_len >= PERF_HEADER_MAX)
			return 0;
		/* no line taken yet (line_start 0): the read appends to what is buffered */
		if (ts_source_fill(src))
			return -1;
	}
}

static void set_detail(struct ts_source *src, struct perf *pf)
{
	const char *what = pf->child ? "perf.data through perf script" : "perf script text";

	if (pf->unformatted)
		snprintf(pf->detail, sizeof(pf->detail), "%s; %llu events perf could not print, read from their "
			 "raw fields", what, (unsigned long long)pf->unformatted);
	else
		snprintf(pf->detail, sizeof(pf->detail), "%s", what);
	src->info.detail = pf->detail;
}

/* One line: 1 with @ev filled, 0 for a line that carries no event. */
static int handle_line(struct ts_source *src, struct perf *pf, char *s, struct ts_event *ev)
{
	struct text_fields tf = { .report = true };
	const struct tp_fields f = {
		.ctx = &tf, .num = ftext_num, .str = ftext_str, .sym = ftext_sym,
		.mask = ftext_mask, .list = ftext_list,
	};
	struct perf_hdr h;
	char name[128], why[160] = "";
	uint64_t count;
	int cpu;

	if (s[0] == '#') {
		header_line(src, pf, s);
		return 0;
	}
	if (parse_lost(s, &cpu, &count)) {
		ev->kind = TS_EV_LOST;
		ev->ts = pf->last_ts;
		ev->cpu = cpu;
		ev->pid = ev->tgid = -1;
		ev->u.lost.count = count;
		return 1;
	}
	if (parse_perf_line(s, strlen(s), &h)) {
		ts_source_skip(src, "%s %llu: not a perf script event line", ts_source_line(src),
			       (unsigned long long)src->lineno);
		return 0;
	}
	if (h.name_len >= sizeof(name)) {
		ts_source_skip(src, "%s %llu: event name too long", ts_source_line(src),
			       (unsigned long long)src->lineno);
		return 0;
	}
	memcpy(name, h.name, h.name_len);
	name[h.name_len] = '\0';
	ev->ts = h.ts;
	ev->cpu = h.cpu;
	ev->pid = h.pid;
	ev->tgid = h.tgid;
	if (h.tgid >= 0)
		ev->flags |= TS_F_TGID;
	if (h.pid_col)
		src->info.has_tgid = true;
	/* text of perf script's default fields: what perf.data itself would have given */
	if (!pf->child && !src->info.advice && (!h.pid_col || h.usec))
		src->info.advice = "perf script text without the PID column or nanoseconds: "
				   "processes are guessed and times are microseconds; 'perf script -F "
				   PERF_FIELDS " --ns' gives what the perf.data holds";
	copy_out(h.comm, h.comm_len, ev->comm, TS_COMM_LEN);
	/* an event whose print format perf cannot parse: its raw fields follow */
	if (!strncmp(h.payload, "[FAILED TO PARSE]", 17)) {
		h.payload += 17;
		while (is_blank(*h.payload))
			h.payload++;
		pf->unformatted++;
		set_detail(src, pf);
	}
	tf.event = name;
	tf.payload = h.payload;
	/* perf prints the kernel's format; text converted from trace-cmd may have its plugin's */
	if (!strcmp(name, "sched_switch") && !strstr(h.payload, "prev_pid=")) {
		if (ftext_parse_plugin_switch(h.payload, &tf.sw)) {
			ts_source_skip(src, "%s %llu: sched_switch: cannot read '%.40s'",
				       ts_source_line(src), (unsigned long long)src->lineno,
				       h.payload);
			return 0;
		}
		tf.plugin = true;
	}
	if (tp_decode(src, name, &f, ev, why, sizeof(why))) {
		ts_source_skip(src, "%s %llu: %s", ts_source_line(src),
			       (unsigned long long)src->lineno, why);
		return 0;
	}
	pf->last_ts = ev->ts;
	return 1;
}

/*
 * The last line of the child's standard error: perf warns first ("'trace' not valid for
 * hardware events. Ignoring.") and says why it failed last.  Into @msg, "" when none.
 */
static void last_err_line(struct perf *pf, char *msg, size_t size)
{
	char buf[4096], *end, *start;
	off_t len = lseek(pf->err_fd, 0, SEEK_END);
	ssize_t n;

	msg[0] = '\0';
	if (len <= 0)
		return;
	n = pread(pf->err_fd, buf, sizeof(buf) - 1,
		  len > (off_t)sizeof(buf) - 1 ? len - (off_t)sizeof(buf) + 1 : 0);
	if (n <= 0)
		return;
	buf[n] = '\0';
	for (end = buf + n; end > buf && (end[-1] == '\n' || end[-1] == ' '); end--)
		;
	*end = '\0';
	start = memrchr(buf, '\n', (size_t)(end - buf));
	strlcpy_ts(msg, start ? start + 1 : buf, size);
}

/* The child's exit: 0 when it succeeded, else -1 with its last line of stderr said. */
static int reap_child(struct ts_source *src, struct perf *pf)
{
	char msg[200];
	int status;

	while (waitpid(pf->child, &status, 0) < 0)
		if (errno != EINTR)
			return ts_source_fail(src, "perf script: %s", strerror(errno));
	pf->child = -1;	/* reaped; set_detail() still says perf.data */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	last_err_line(pf, msg, sizeof(msg));
	if (WIFEXITED(status) && WEXITSTATUS(status) == 127)
		return ts_source_fail(src, "a perf.data file needs perf (Debian package linux-perf): "
				      "%s", msg[0] ? msg : "cannot run perf");
	if (WIFEXITED(status)) {
		/* perf's own "(rerun with -v ...)" is about perf, not tlbscope: name the command */
		char *rerun = strstr(msg, " (rerun with -v");

		if (rerun)
			*rerun = '\0';
		return ts_source_fail(src, "perf script failed (exit %d)%s%s%s%s%s",
				      WEXITSTATUS(status), msg[0] ? ": " : "", msg,
				      rerun ? "; 'perf script -v -i " : "", rerun ? src->path : "",
				      rerun ? "' says more" : "");
	}
	return ts_source_fail(src, "perf script died of signal %d", WTERMSIG(status));
}

/* "\tffffffff821facd8 __schedule+0x618 ([kernel.kallsyms])": a frame of perf script -g */
static bool callchain_frame(const char *s)
{
	size_t n = 0;

	while (is_blank(*s))
		s++;
	while (isxdigit((unsigned char)s[n]))
		n++;
	return n >= 4 && (!s[n] || is_blank(s[n]));
}

static int perf_next(struct ts_source *src, struct ts_event *ev)
{
	struct perf *pf = src->priv;

	for (;;) {
		bool failed;
		size_t len;
		char *line = ts_source_getline(src, &len, &failed);

		if (!line) {
			if (failed)
				return -1;
			return pf->child > 0 && reap_child(src, pf) ? -1 : 0;
		}
		if (memchr(line, '\0', len)) {
			ts_source_skip(src, "%s %llu: NUL byte in the text", ts_source_line(src),
				       (unsigned long long)src->lineno);
			continue;
		}
		len = rtrim(line, len);
		line[len] = '\0';
		if (is_blank(*line) && callchain_frame(line))
			continue;
		while (is_blank(*line))
			line++;
		if (!*line)
			continue;
		if (handle_line(src, pf, line, ev))
			return 1;
		memset(ev, 0, sizeof(*ev));
	}
}

/* Event lines making up most of the first lines ('#' header lines aside). */
static bool perf_probe(const char *head, size_t len)
{
	size_t off = 0;
	int events = 0, other = 0;

	while (off < len && events + other < PROBE_LINES) {
		const char *s = head + off, *nl = memchr(s, '\n', len - off);
		size_t l = nl ? (size_t)(nl - s) : len - off;
		char tmp[1024];
		struct perf_hdr h;

		off += l + 1;
		l = rtrim(s, l);
		if (!l || s[0] == '#')
			continue;
		if (memchr(s, '\0', l))
			return false;
		if (l < sizeof(tmp) && is_blank(s[0])) {
			memcpy(tmp, s, l);
			tmp[l] = '\0';
			if (callchain_frame(tmp))
				continue;
		}
		if (l >= sizeof(tmp)) {
			other++;
			continue;
		}
		memcpy(tmp, s, l);
		tmp[l] = '\0';
		if (!parse_perf_line(tmp, l, &h) || strstr(tmp, "PERF_RECORD_LOST"))
			events++;
		else if (nl)	/* a cut last line of the window does not count */
			other++;
	}
	return events > 0 && events > other;
}

static int perf_open(struct ts_source *src)
{
	struct perf *pf = xcalloc(1, sizeof(*pf));

	pf->child = 0;
	pf->err_fd = -1;
	src->priv = pf;
	set_detail(src, pf);
	return read_header(src, pf, false);
}

static void perf_close(struct ts_source *src)
{
	struct perf *pf = src->priv;

	if (!pf)
		return;
	if (pf->child > 0) {
		/* stopped early (bad input): do not leave perf running or a zombie */
		kill(pf->child, SIGTERM);
		while (waitpid(pf->child, NULL, 0) < 0 && errno == EINTR)
			;
	}
	if (pf->err_fd >= 0)
		close(pf->err_fd);
	free(pf);
	src->priv = NULL;
}

const struct ts_format ts_format_perf_text = {
	.name = "perf-script",
	.probe = perf_probe,
	.needs_file = false,
	.open = perf_open,
	.next = perf_next,
	.close = perf_close,
};

/* ---- perf.data: `perf script` as a child ---- */

static bool perfdata_probe(const char *head, size_t len)
{
	return len >= 8 && !memcmp(head, "PERFILE2", 8);
}

static int perfdata_open(struct ts_source *src)
{
	char path[64], errpath[] = "/tmp/tlbscope-perf-XXXXXX";
	const char *in = src->path;
	struct perf *pf;
	int out[2];
	pid_t pid;

	if (perf_open(src))
		return -1;
	pf = src->priv;
	if (src->spooled) {
		snprintf(path, sizeof(path), "/proc/self/fd/%d", src->fd);
		in = path;
		/* the child reads the spooled copy through its inherited descriptor */
		fcntl(src->fd, F_SETFD, 0);
	}
	pf->err_fd = mkstemp(errpath);
	if (pf->err_fd < 0)
		return ts_source_fail(src, "cannot create a temporary file: %s", strerror(errno));
	unlink(errpath);
	if (pipe2(out, O_CLOEXEC))
		return ts_source_fail(src, "pipe: %s", strerror(errno));
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(out[0]);
		close(out[1]);
		return ts_source_fail(src, "fork: %s", strerror(errno));
	}
	if (!pid) {
		char *const argv[] = { "perf", "script", "-i", (char *)in, "-F", PERF_FIELDS, "--ns",
				       "--header", "--show-lost-events", NULL };

		dup2(out[1], 1);
		dup2(pf->err_fd, 2);
		execvp("perf", argv);
		dprintf(2, "perf: %s\n", strerror(errno));
		_exit(127);
	}
	close(out[1]);
	pf->child = pid;
	if (src->fd > 0)
		close(src->fd);
	src->fd = out[0];
	/* the line reader starts over on perf's text (the binary head was only probed) */
	src->buf_len = src->line_start = 0;
	src->eof = false;
	src->lineno = 0;
	set_detail(src, pf);
	return read_header(src, pf, true);
}

const struct ts_format ts_format_perf_data = {
	.name = "perf.data",
	.probe = perfdata_probe,
	.needs_file = true,
	.open = perfdata_open,
	.next = perf_next,
	.close = perf_close,
	/* a place is a line of the text the child prints, not of the binary file */
	.lines = "perf script line",
};
