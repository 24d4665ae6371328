// SPDX-License-Identifier: GPL-2.0-only
/*
 * The registry of input formats, content-based detection, stdin handling and the line
 * reader the text formats share.  Adding a format: one file and one line in formats[].
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "format.h"

/* Order matters: the first format whose probe accepts the content wins. */
static const struct ts_format *const formats[] = {
	&ts_format_tracedat,
	&ts_format_jsonl,
	&ts_format_ftrace_text,
	&ts_format_perf_data,
	&ts_format_perf_text,
};

#define PROBE_LEN	65536
/*
 * The longest line the text formats take: an ftrace line is a few hundred bytes and a JSON
 * line a few KiB; past this the input is not what it claims, and buffering it whole would
 * make memory follow the file.
 */
#define LINE_MAX_LEN	(1 << 20)

int ts_source_fail(struct ts_source *src, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	/* "<file>: <message>", the file name first as every message of tlbscope has it */
	n = strlcpy_ts(src->err, src->display, sizeof(src->err));
	if (n + 2 >= sizeof(src->err))
		return -1;
	memcpy(src->err + n, ": ", 3);
	va_start(ap, fmt);
	vsnprintf(src->err + n + 2, sizeof(src->err) - n - 2, fmt, ap);
	va_end(ap);
	return -1;
}

void ts_source_skip(struct ts_source *src, const char *fmt, ...)
{
	va_list ap;

	if (!src->skipped++) {
		va_start(ap, fmt);
		vsnprintf(src->first_skip, sizeof(src->first_skip), fmt, ap);
		va_end(ap);
	}
}

/* Read more input into the line buffer; 0 ok (maybe eof), -1 read error. */
static int fill(struct ts_source *src)
{
	ssize_t n;

	if (src->line_start) {
		memmove(src->buf, src->buf + src->line_start, src->buf_len - src->line_start);
		src->buf_len -= src->line_start;
		src->line_start = 0;
	}
	ALLOC_GROW(src->buf, src->buf_len + 65536 + 1, src->buf_alloc);
	do
		n = read(src->fd, src->buf + src->buf_len, 65536);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return ts_source_fail(src, "read error: %s", strerror(errno));
	if (!n)
		src->eof = true;
	src->buf_len += n;
	return 0;
}

char *ts_source_getline(struct ts_source *src, size_t *len, bool *failed)
{
	*failed = false;
	for (;;) {
		char *start = src->buf + src->line_start;
		size_t avail = src->buf_len - src->line_start;
		char *nl = avail ? memchr(start, '\n', avail) : NULL;

		if (nl || (src->eof && avail)) {
			size_t l = nl ? (size_t)(nl - start) : avail;

			/* the buffer always has one spare byte past buf_len (see fill()) */
			start[l] = '\0';
			if (l && start[l - 1] == '\r')
				start[--l] = '\0';
			src->line_start += nl ? l + 1 + (start[l] == '\r') : avail;
			if (nl && start + l + 1 <= nl)	/* a stripped \r moved the end */
				src->line_start = (size_t)(nl - src->buf) + 1;
			src->lineno++;
			*len = l;
			return start;
		}
		if (src->eof)
			return NULL;
		if (avail > LINE_MAX_LEN) {
			ts_source_fail(src, "line %llu: longer than %d KiB, not a trace line",
				       (unsigned long long)src->lineno + 1, LINE_MAX_LEN >> 10);
			*failed = true;
			return NULL;
		}
		if (fill(src)) {
			*failed = true;
			return NULL;
		}
	}
}

/*
 * Copy a stream (stdin, a pipe, a FIFO; its first bytes already in src->buf) to an unlinked
 * temporary file that a reader opening a path (libtracecmd) can have as /proc/self/fd/N.
 */
static int spool_input(struct ts_source *src)
{
	char tmpl[] = "/tmp/tlbscope-stdin-XXXXXX";
	int fd = mkstemp(tmpl);
	size_t off = 0;

	if (fd < 0)
		return ts_source_fail(src, "cannot create a temporary file: %s", strerror(errno));
	unlink(tmpl);
	for (;;) {
		while (off < src->buf_len) {
			ssize_t w = write(fd, src->buf + off, src->buf_len - off);

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				close(fd);
				return ts_source_fail(src, "writing a temporary copy of the input: %s",
						      strerror(errno));
			}
			off += w;
		}
		if (src->eof)
			break;
		src->buf_len = off = 0;
		src->line_start = 0;
		if (fill(src)) {
			close(fd);
			return -1;
		}
	}
	if (lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return ts_source_fail(src, "seek in temporary file: %s", strerror(errno));
	}
	src->buf_len = src->line_start = 0;
	src->eof = false;
	if (src->fd > 0)
		close(src->fd);
	src->fd = fd;
	src->spooled = true;
	return 0;
}

/* Not a regular file (a pipe, a FIFO, a character device): it can be read only once. */
static bool is_stream(int fd)
{
	struct stat st;

	return fstat(fd, &st) || !S_ISREG(st.st_mode);
}

struct ts_source *ts_source_open(const char *path, char *err)
{
	struct ts_source *src = xcalloc(1, sizeof(*src));
	const struct ts_format *fmt = NULL;
	bool is_stdin = !strcmp(path, "-");
	size_t i;

	src->path = path;
	src->display = xstrdup(is_stdin ? "<stdin>" : path);
	src->strs = strtab_new();
	src->fd = is_stdin ? 0 : open(path, O_RDONLY | O_CLOEXEC);
	if (src->fd < 0) {
		ts_source_fail(src, "cannot open: %s", strerror(errno));
		goto out_fail;
	}
	/* Fill the probe window: formats are recognized by content only. */
	while (!src->eof && src->buf_len < PROBE_LEN)
		if (fill(src))
			goto out_fail;
	if (!src->buf_len) {
		ts_source_fail(src, "empty input");
		goto out_fail;
	}
	for (i = 0; i < sizeof(formats) / sizeof(formats[0]); i++) {
		if (formats[i]->probe(src->buf, src->buf_len)) {
			fmt = formats[i];
			break;
		}
	}
	if (!fmt) {
		ts_source_fail(src, "unrecognized format (expected trace.dat, ftrace text, "
			       "trace-cmd report text, perf.data, perf script text or tlbscope "
			       "JSON lines)");
		goto out_fail;
	}
	src->fmt = fmt;
	src->info.format = fmt->name;
	if (fmt->needs_file && (is_stdin || is_stream(src->fd)) && spool_input(src))
		goto out_fail;
	if (fmt->open(src))
		goto out_fail;
	return src;

out_fail:
	strlcpy_ts(err, src->err, TS_ERR_LEN);
	ts_source_close(src);	/* the format's close() undoes a partial open() */
	return NULL;
}

void ts_source_close(struct ts_source *src)
{
	if (!src)
		return;
	if (src->fmt && src->fmt->close)
		src->fmt->close(src);
	if (src->fd > 0)
		close(src->fd);
	ts_probe_release_all(src);
	ts_checker_free(src->checker);
	free(src->tpk);
	free(src->tlbfn);
	strtab_free(src->strs);
	free(src->buf);
	free(src->display);
	free(src);
}

int ts_source_next(struct ts_source *src, struct ts_event *ev)
{
	int r;

	do {
		memset(ev, 0, sizeof(*ev));
		r = src->fmt->next(src, ev);
	} while (r > 0 && !ts_check_event(src, ev));
	return r;
}

uint64_t ts_source_checked(const struct ts_source *src, enum ts_check c, const char **first)
{
	if (c >= TS_CHK__COUNT) {
		if (first)
			*first = "";
		return 0;
	}
	if (first)
		*first = src->check_first[c];
	return src->checked[c];
}

const char *ts_source_error(const struct ts_source *src)
{
	return src->err;
}

const struct ts_source_info *ts_source_info(const struct ts_source *src)
{
	return &src->info;
}

bool ts_source_defines(const struct ts_source *src, const char *event)
{
	for (size_t i = 0; i < src->info.nkprobes_defined; i++)
		if (!strcmp(src->info.kprobes_defined[i], event))
			return true;
	return false;
}

uint64_t ts_source_skipped(const struct ts_source *src, const char **first_where)
{
	if (first_where)
		*first_where = src->first_skip;
	return src->skipped;
}

const char *ts_source_str(const struct ts_source *src, uint32_t id)
{
	const char *s = strtab_get(src->strs, id);

	return s ? s : "";
}

uint32_t ts_source_intern(struct ts_source *src, const char *s)
{
	uint32_t id;
	char *e;

	if (utf8_valid(s))
		return strtab_intern(src->strs, s);
	e = ts_check_escape(src, s);
	id = strtab_intern(src->strs, e);
	free(e);
	return id;
}

uint32_t ts_source_str_count(const struct ts_source *src)
{
	return strtab_count(src->strs);
}

/* ---- names and masks ---- */

const char *ts_kind_name(enum ts_kind kind)
{
	static const char *const names[TS_EV__COUNT] = {
		[TS_EV_SWITCH] = "switch", [TS_EV_FORK] = "fork",
		[TS_EV_NEWTASK] = "newtask", [TS_EV_EXEC] = "exec",
		[TS_EV_EXIT] = "exit", [TS_EV_FLUSH] = "flush", [TS_EV_IPI] = "ipi",
		[TS_EV_LOAD_MM] = "load_mm", [TS_EV_EVICT] = "evict",
		[TS_EV_FAULT] = "fault", [TS_EV_VMALLOC] = "vmalloc", [TS_EV_SFENCE] = "sfence",
		[TS_EV_LOST] = "lost", [TS_EV_OTHER] = "other", [TS_EV_MM] = "mm",
		[TS_EV_TGID] = "tgid",
	};

	return kind < TS_EV__COUNT ? names[kind] : "?";
}

static const char *const sfence_causes[TS_SF__COUNT] = {
	[TS_SF_PTE_NEW] = "pte_new", [TS_SF_PTE_ACCESS] = "pte_access",
	[TS_SF_FLUSH_RANGE] = "flush_range", [TS_SF_FLUSH_ALL] = "flush_all",
	[TS_SF_ASID] = "asid", [TS_SF_LAZY_EVICT] = "lazy_evict",
	[TS_SF_LAZY_DEFERRED] = "lazy_deferred", [TS_SF_LAZY_RESET] = "lazy_reset",
	[TS_SF_OTHER] = "other", [TS_SF_UNCLASSIFIED] = "unclassified",
};

const char *ts_sfence_cause_name(enum ts_sfence_cause c)
{
	return c < TS_SF__COUNT ? sfence_causes[c] : "?";
}

int ts_sfence_cause_of(const char *event)
{
	const char *s = strstr(event, "sfence");
	int best = TS_SF_UNCLASSIFIED;
	size_t best_len = 0;

	/* the SBI remote fence probe (sbi_remote_sfence_vma_asid) asks the firmware */
	if (!s || strstr(event, "sbi"))
		return -1;
	s += strlen("sfence");
	/* the longest cause that follows as a word: "_pte_new", "_vma_flush_range_2" */
	for (int c = 0; c < TS_SF_UNCLASSIFIED; c++) {
		size_t l = strlen(sfence_causes[c]);

		for (const char *p = s; (p = strstr(p, sfence_causes[c])); p++) {
			if (p[-1] == '_' && (!p[l] || p[l] == '_') && l > best_len) {
				best = c;
				best_len = l;
			}
		}
	}
	return best;
}

const char *ts_scope_name(enum ts_scope scope)
{
	static const char *const names[] = { "range", "mm", "kernel", "all", "targets" };

	return scope <= TS_SCOPE_TARGETS ? names[scope] : "?";
}

const char *ts_evsrc_name(enum ts_evsrc s)
{
	static const char *const names[TS_SRC__COUNT] = {
		[TS_SRC_NONE] = "none", [TS_SRC_TLB_FLUSH] = "tlb_flush",
		[TS_SRC_CSD_QUEUE] = "csd_queue_cpu", [TS_SRC_CSD_ENTRY] = "csd_function_entry",
		[TS_SRC_IPI_CPU] = "ipi_send_cpu", [TS_SRC_IPI_MASK] = "ipi_send_cpumask",
		[TS_SRC_JSON] = "json", [TS_SRC_KPROBE] = "kprobe",
		[TS_SRC_KPROBE_CALLER] = "kprobe_caller", [TS_SRC_SBI] = "sbi_remote_fence",
	};

	return s < TS_SRC__COUNT ? names[s] : "?";
}

bool ts_func_is_tlb_flush(const char *func)
{
	static const char *const funcs[] = {
		"flush_tlb_func",		/* x86 */
		"__ipi_flush_tlb_range_asid",	/* riscv */
		"__ipi_flush_tlb_all",		/* riscv */
		"ipi_flush_tlb_all",		/* older riscv, arm */
		"ipi_flush_tlb_range",
		"ipi_flush_tlb_page",
		"ipi_flush_tlb_mm",
		"do_flush_tlb_all",		/* x86 flush_tlb_all */
		"do_kernel_range_flush",	/* x86 kernel ranges */
	};

	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(func, funcs[i]))
			return true;
	return false;
}

int ts_cpumask_weight(const struct ts_cpumask *m)
{
	int w = 0;

	for (size_t i = 0; i < TS_MAX_CPUS / 64; i++)
		w += __builtin_popcountll(m->bits[i]);
	return w;
}

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Kernel %*pb: 32-bit hex groups, most significant first, separated by commas. */
static int parse_hexmask(struct ts_cpumask *m, const char *s)
{
	size_t len = strlen(s);
	int bit = 0;

	for (size_t i = len; i-- > 0;) {
		int v;

		if (s[i] == ',')
			continue;
		v = hexval(s[i]);
		if (v < 0)
			return -1;
		for (int b = 0; b < 4; b++, bit++) {
			if (!(v & (1 << b)))
				continue;
			if (bit >= TS_MAX_CPUS)
				return -1;
			ts_cpumask_set(m, bit);
		}
	}
	return 0;
}

/* "0,3-5" */
static int parse_cpulist(struct ts_cpumask *m, const char *s)
{
	while (*s) {
		char *end;
		long a = strtol(s, &end, 10), b = a;

		if (end == s || a < 0 || a >= TS_MAX_CPUS)
			return -1;
		s = end;
		if (*s == '-') {
			b = strtol(++s, &end, 10);
			if (end == s || b < a || b >= TS_MAX_CPUS)
				return -1;
			s = end;
		}
		for (long c = a; c <= b; c++)
			ts_cpumask_set(m, (int)c);
		if (*s == ',')
			s++;
		else if (*s)
			return -1;
	}
	return 0;
}

int ts_cpumask_parse_hex(struct ts_cpumask *m, const char *s)
{
	memset(m, 0, sizeof(*m));
	return *s ? parse_hexmask(m, s) : -1;
}

int ts_cpumask_parse_list(struct ts_cpumask *m, const char *s)
{
	memset(m, 0, sizeof(*m));
	return *s ? parse_cpulist(m, s) : -1;
}
