// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trace.dat (version 6, uncompressed, trace-cmd.dat(5)) of a tracefs instance: the
 * headers while its events exist, then each CPU's sub-buffers as trace_pipe_raw gave them.
 * Not libtracecmd's writer: that one sets /proc/sys/kernel/kptr_restrict to 0 while it
 * copies /proc/kallsyms, and a tool working in an instance of its own writes nothing
 * outside it.  Everything here only reads tracefs and /proc.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record-int.h"

/* trace-cmd's option ids (trace-cmd.dat(5)) */
#define OPT_DONE	0
#define OPT_TRACECLOCK	4
#define OPT_UNAME	5

struct tracedat_out {
	int fd;
	char *path;
	const char *cmd;	/* message prefix, borrowed */
	uint32_t page_size;	/* bytes per sub-buffer: each CPU's data is whole ones */
	char *clock;		/* the instance's trace_clock file, or NULL */
	uint64_t off;		/* bytes written so far */
	bool failed;		/* a write failed (reported once) */
};

/* A growable byte buffer. */
struct blob {
	char *data;
	size_t len, alloc;
};

static void blob_add(struct blob *b, const void *p, size_t n)
{
	ALLOC_GROW(b->data, b->len + n, b->alloc);
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

/* Read all of @path (tracefs and /proc files have no size) into @b.  0 ok, -1 errno set. */
static int slurp(const char *path, struct blob *b)
{
	free(b->data);
	b->alloc = 0;
	if (read_file(path, &b->data, &b->len))
		return -1;
	b->alloc = b->len;	/* at least: blob_add() grows it from there */
	return 0;
}

static void out_write(struct tracedat_out *t, const void *buf, size_t len)
{
	const char *p = buf;

	while (len && !t->failed) {
		ssize_t w = write(t->fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rec_error("%s: %s: %s", t->cmd, t->path, w < 0 ? strerror(errno) :
			      strerror(ENOSPC));
			t->failed = true;
			return;
		}
		p += w;
		len -= w;
		t->off += w;
	}
}

/* Numbers in the host's byte order, which the file's endian byte declares. */
static void out_u16(struct tracedat_out *t, uint16_t v) { out_write(t, &v, 2); }
static void out_u32(struct tracedat_out *t, uint32_t v) { out_write(t, &v, 4); }
static void out_u64(struct tracedat_out *t, uint64_t v) { out_write(t, &v, 8); }

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The sorted names of the subdirectories of @dir; *@names is new (free each, then it). */
static int list_dirs(const char *dir, char ***names)
{
	size_t n = 0, alloc = 0;
	struct dirent *d;
	DIR *dp = opendir(dir);

	*names = NULL;
	if (!dp)
		return -1;
	while ((d = readdir(dp))) {
		char path[PATH_MAX];
		struct stat st;

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, d->d_name);
		if (d->d_type != DT_DIR && (d->d_type != DT_UNKNOWN || stat(path, &st) ||
					    !S_ISDIR(st.st_mode)))
			continue;
		ALLOC_GROW(*names, n + 1, alloc);
		(*names)[n++] = xstrdup(d->d_name);
	}
	closedir(dp);
	if (n)
		qsort(*names, n, sizeof(**names), cmp_str);
	return (int)n;
}

static void free_names(char **names, int n)
{
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/*
 * The formats of every event of system @sys as "u64 size, format" records in @b; returns
 * how many (events without a readable format are left out).
 */
static uint32_t system_formats(const char *events, const char *sys, struct blob *b)
{
	char dir[PATH_MAX], path[PATH_MAX + NAME_MAX + 16], **names;
	struct blob f = { 0 };
	uint32_t count = 0;
	int n;

	snprintf(dir, sizeof(dir), "%s/%s", events, sys);
	n = list_dirs(dir, &names);
	for (int i = 0; i < n; i++) {
		uint64_t len;

		snprintf(path, sizeof(path), "%s/%s/format", dir, names[i]);
		if (slurp(path, &f) || !f.len)
			continue;
		len = f.len;
		blob_add(b, &len, 8);
		blob_add(b, f.data, f.len);
		count++;
	}
	free_names(names, n > 0 ? n : 0);
	free(f.data);
	return count;
}

/* "header_page"/"header_event": the name, a u64 size and the file. */
static int write_header_file(struct tracedat_out *t, const char *events, const char *name)
{
	char path[PATH_MAX];
	struct blob b = { 0 };

	snprintf(path, sizeof(path), "%s/%s", events, name);
	if (slurp(path, &b) || !b.len) {
		free(b.data);
		return rec_error("%s: %s: %s", t->cmd, path, b.len ? strerror(errno) : "empty"), -1;
	}
	out_write(t, name, strlen(name) + 1);
	out_u64(t, b.len);
	out_write(t, b.data, b.len);
	free(b.data);
	return 0;
}

/* Every event format: the ftrace ones, then each other system's (as trace-cmd writes). */
static int write_formats(struct tracedat_out *t, const char *events)
{
	struct blob b = { 0 }, all = { 0 };
	char **systems;
	uint32_t nsys = 0, count;
	int n = list_dirs(events, &systems);

	if (n < 0)
		return rec_error("%s: %s: %s", t->cmd, events, strerror(errno)), -1;
	count = system_formats(events, "ftrace", &b);
	out_u32(t, count);
	out_write(t, b.data, b.len);
	for (int i = 0; i < n; i++) {
		if (!strcmp(systems[i], "ftrace"))
			continue;
		b.len = 0;
		count = system_formats(events, systems[i], &b);
		if (!count)
			continue;
		blob_add(&all, systems[i], strlen(systems[i]) + 1);
		blob_add(&all, &count, 4);
		blob_add(&all, b.data, b.len);
		nsys++;
	}
	out_u32(t, nsys);
	out_write(t, all.data, all.len);
	free(all.data);
	free(b.data);
	free_names(systems, n);
	return 0;
}

/* Does any line of /proc/kallsyms have a non-zero address? (kptr_restrict 2 zeroes them) */
static bool kallsyms_has_addresses(const struct blob *b)
{
	for (size_t i = 0; i < b->len;) {
		const char *line = b->data + i, *nl = memchr(line, '\n', b->len - i);

		for (const char *p = line; p < b->data + b->len && *p != ' ' && *p != '\n'; p++)
			if (*p != '0')
				return true;
		if (!nl)
			break;
		i = nl + 1 - b->data;
	}
	return false;
}

/*
 * /proc/kallsyms as this process may read it, kptr_restrict left as it is: with 2, or
 * without CAP_SYSLOG, even root reads zero addresses, useless to resolve a callback, so
 * none are written.
 */
static void write_kallsyms(struct tracedat_out *t)
{
	struct blob b = { 0 }, k = { 0 };

	if (slurp("/proc/kallsyms", &b)) {
		rec_warning("%s: /proc/kallsyms: %s; IPI callbacks stay addresses, flush IPIs are "
			"not told by them", t->cmd, strerror(errno));
		b.len = 0;
	} else if (b.len && !kallsyms_has_addresses(&b)) {
		bool two = !slurp("/proc/sys/kernel/kptr_restrict", &k) && k.len && k.data[0] == '2';

		rec_warning("%s: /proc/kallsyms shows this process no addresses (%s); IPI callbacks "
			"stay addresses, flush IPIs are not told by them", t->cmd,
			two ? "kernel.kptr_restrict is 2" : "it lacks CAP_SYSLOG");
		b.len = 0;
	}
	free(k.data);
	out_u32(t, (uint32_t)b.len);
	out_write(t, b.data, b.len);
	free(b.data);
}

/* A tracefs file that may be missing, after its size (@width bytes); missing = empty. */
static void write_sized_file(struct tracedat_out *t, const char *dir, const char *name,
			     int width)
{
	char path[PATH_MAX];
	struct blob b = { 0 };

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (slurp(path, &b))
		b.len = 0;
	if (width == 4)
		out_u32(t, (uint32_t)b.len);
	else
		out_u64(t, b.len);
	out_write(t, b.data, b.len);
	free(b.data);
}

uint32_t record_subbuf_size(struct tracefs_instance *inst)
{
	char *s = tracefs_instance_file_read(inst, "buffer_subbuf_size_kb", NULL);
	uint64_t kb = 0;

	if (s) {
		s[strcspn(s, "\n")] = '\0';
		if (parse_u64(s, 10, &kb) || kb > 1024)
			kb = 0;
		free(s);
	}
	return kb ? (uint32_t)kb * 1024 : (uint32_t)sysconf(_SC_PAGESIZE);
}

struct tracedat_out *tracedat_out_open(const char *path, struct tracefs_instance *inst,
				       const char *cmd)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *top = tracefs_tracing_dir();
	const uint16_t one = 1;
	struct tracedat_out *t;
	char events[PATH_MAX];
	uint8_t b;

	if (!top) {
		rec_error("%s: cannot find the tracefs mount", cmd);
		return NULL;
	}
	t = xcalloc(1, sizeof(*t));
	t->cmd = cmd;
	t->path = xstrdup(path);
	t->page_size = record_subbuf_size(inst);
	t->clock = tracefs_instance_file_read(inst, "trace_clock", NULL);
	t->fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (t->fd < 0) {
		rec_error("%s: %s: %s", cmd, path, strerror(errno));
		tracedat_out_free(t);
		return NULL;
	}
	out_write(t, magic, sizeof(magic));
	out_write(t, "6", 2);
	b = *(const uint8_t *)&one == 0;	/* 1: big-endian */
	out_write(t, &b, 1);
	b = sizeof(long);
	out_write(t, &b, 1);
	out_u32(t, t->page_size);
	snprintf(events, sizeof(events), "%s/events", top);
	if (write_header_file(t, events, "header_page") ||
	    write_header_file(t, events, "header_event") || write_formats(t, events))
		goto out_free;
	write_kallsyms(t);
	write_sized_file(t, top, "printk_formats", 4);
	write_sized_file(t, top, "saved_cmdlines", 8);
	if (!t->failed)
		return t;
out_free:
	tracedat_out_free(t);
	return NULL;
}

static void write_options(struct tracedat_out *t)
{
	struct utsname un;
	char buf[4 * sizeof(un.sysname)];

	out_write(t, "options  ", 10);
	if (!uname(&un)) {	/* as trace-cmd writes it: no version string */
		int n = snprintf(buf, sizeof(buf), "%s %s %s %s", un.sysname, un.nodename,
				 un.release, un.machine);

		out_u16(t, OPT_UNAME);
		out_u32(t, n + 1);
		out_write(t, buf, n + 1);
	}
	/*
	 * The trace_clock file as trace-cmd record writes it, NUL included; v6 also keeps the
	 * clock after the flyrecord CPU table.  libtracecmd parses this option's text
	 * whatever its size: one of 0 bytes is read from uninitialized memory, and a clock
	 * name it does not know there makes `trace-cmd report` print raw nanoseconds.
	 */
	if (t->clock) {
		out_u16(t, OPT_TRACECLOCK);
		out_u32(t, strlen(t->clock) + 1);
		out_write(t, t->clock, strlen(t->clock) + 1);
	}
	out_u16(t, OPT_DONE);
}

/* Append @fd's @size bytes. */
static int copy_data(struct tracedat_out *t, int fd, const char *file, uint64_t size)
{
	char *buf = xmalloc(1 << 20);
	int r = 0;

	while (size && !t->failed) {
		ssize_t n = read(fd, buf, size < (1 << 20) ? size : (1 << 20));

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rec_error("%s: %s: %s", t->cmd, file, n ? strerror(errno) : "shorter than it was");
			r = -1;
			break;
		}
		out_write(t, buf, n);
		size -= n;
	}
	free(buf);
	return t->failed ? -1 : r;
}

int tracedat_out_add_cpus(struct tracedat_out *t, int ncpus, char *const *files)
{
	uint64_t *size = xcalloc(ncpus, sizeof(*size)), data, pad;
	int *fd = xcalloc(ncpus, sizeof(*fd)), r = -1;
	static const char zeros[4096];

	for (int i = 0; i < ncpus; i++)
		fd[i] = -1;
	for (int i = 0; i < ncpus; i++) {
		struct stat st;

		fd[i] = open(files[i], O_RDONLY | O_CLOEXEC);
		if (fd[i] < 0 || fstat(fd[i], &st)) {
			rec_error("%s: %s: %s", t->cmd, files[i], strerror(errno));
			goto out;
		}
		size[i] = st.st_size;
		if (size[i] % t->page_size) {
			rec_error("%s: %s: %llu bytes, not whole %u-byte sub-buffers", t->cmd, files[i],
			      (unsigned long long)size[i], t->page_size);
			goto out;
		}
	}
	out_u32(t, ncpus);
	write_options(t);
	out_write(t, "flyrecord", 10);
	/* the data starts at the first sub-buffer boundary after the CPU table and clock */
	data = t->off + 16ULL * ncpus + (t->clock ? 8 + strlen(t->clock) : 0);
	data = (data + t->page_size - 1) / t->page_size * t->page_size;
	for (int i = 0; i < ncpus; i++) {
		out_u64(t, data);
		out_u64(t, size[i]);
		data += size[i];
	}
	if (t->clock) {
		out_u64(t, strlen(t->clock));
		out_write(t, t->clock, strlen(t->clock));
	}
	for (pad = (t->page_size - t->off % t->page_size) % t->page_size; pad && !t->failed;) {
		size_t n = pad < sizeof(zeros) ? pad : sizeof(zeros);

		out_write(t, zeros, n);
		pad -= n;
	}
	for (int i = 0; i < ncpus; i++)
		if (copy_data(t, fd[i], files[i], size[i]))
			goto out;
	r = t->failed ? -1 : 0;
out:
	for (int i = 0; i < ncpus; i++)
		if (fd[i] >= 0)
			close(fd[i]);
	free(fd);
	free(size);
	return r;
}

int tracedat_out_close(struct tracedat_out *t)
{
	int r = t->failed ? -1 : 0;

	if (close(t->fd) && !t->failed) {
		rec_error("%s: %s: %s", t->cmd, t->path, strerror(errno));
		r = -1;
	}
	t->fd = -1;
	tracedat_out_free(t);
	return r;
}

void tracedat_out_free(struct tracedat_out *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	free(t->clock);
	free(t->path);
	free(t);
}
