// SPDX-License-Identifier: GPL-2.0-only
/*
 * The structure of a trace.dat, checked before any library sees it.  libtracecmd trusts the
 * file: a CPU count of 0 or 10^9, a sub-buffer size of 3, an options chain that points past
 * the end or a CPU's data that does, and it crashes or allocates what the number says.  This
 * walks the headers of versions 6 and 7 (trace-cmd.dat(5), trace-cmd.dat.v7(5)) with every
 * count and offset bounded by the file's size (tracedat-cur.c's reads), and names the part
 * that is wrong; the data they point at is tracedat-data.c's, the content of the sections of
 * header formats, event formats, kallsyms and the like tracedat-sections.c's.  On the way
 * it notes what a reader needs (struct tdc_layout).  The text only the libraries can
 * parse they parse first in a child process, which may die without harm; or, in a program
 * that asked for it, in its own process under tracedat-guard.c's guard.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "../lib/lib.h"
#include "tracedat-cur.h"
#include "tracedat-data.h"
#include "tracedat-sections.h"

#define MAX_OPTION_SECTIONS	64	/* a chain longer than this loops */


static int check_cpus(struct cur *c, uint64_t cpus, const char *where)
{
	if (cpus == 0 || cpus > TS_MAX_CPUS)
		return tdc_bad(c, "%s: %llu CPUs (supported: 1..%d)", where,
			   (unsigned long long)cpus, TS_MAX_CPUS);
	return 0;
}

/* Sub-buffer ("page") sizes: the kernel's are powers of two from 4 KiB up (buffer_subbuf_size_kb). */
static int check_page_size(struct cur *c, uint64_t ps, const char *where)
{
	if (ps < 4096 || ps > (1u << 24) || (ps & (ps - 1)))
		return tdc_bad(c, "%s: sub-buffer size %llu is not a power of two in 4 KiB..16 MiB",
			   where, (unsigned long long)ps);
	return 0;
}

/* v6: the per-CPU table "offset, size" of a flyrecord at the cursor. */
static int check_flyrecord_v6(struct cur *c, const char *buffer, uint64_t cpus)
{
	for (uint64_t i = 0; i < cpus; i++) {
		uint64_t off, size;

		if (tdc_num(c, 8, &off, "flyrecord CPU table") || tdc_num(c, 8, &size, "flyrecord CPU table") ||
		    tdc_check_cpu_data(c, buffer, i, off, size, c->page_size, false))
			return -1;
	}
	return 0;
}

/* v6: a data section ("flyrecord" and its CPU table, or "latency") at the cursor. */
static int check_data_v6(struct cur *c, const char *buffer, uint64_t cpus)
{
	char kind[10];

	if (tdc_get(c, kind, sizeof(kind), "data section"))
		return -1;
	if (!memcmp(kind, "latency  ", 10))
		return 0;
	if (memcmp(kind, "flyrecord", 10))
		return tdc_bad(c, "buffer '%s': no flyrecord or latency section at offset %llu", buffer,
			   (unsigned long long)c->off - 10);
	return check_flyrecord_v6(c, buffer, cpus);
}

/*
 * v7 option BUFFER at @at, up to @end: data section offset, name, clock, sub-buffer size,
 * CPUs and their data.  libtracecmd refuses a CPU listed twice, half set up.
 */
static int check_buffer_v7(struct cur *c, uint64_t at, uint64_t end, bool compressed)
{
	uint64_t seen[TS_MAX_CPUS / 64] = { 0 };
	char name[64], where[64];
	uint64_t off, ps, cpus, sid, flags;
	struct cur z = *c;

	snprintf(where, sizeof(where), "option BUFFER at offset %llu", (unsigned long long)at);
	if (tdc_num(c, 8, &off, where) || tdc_cstr(c, name, sizeof(name), where) ||
	    tdc_cstr(c, NULL, 0, where) || tdc_num(c, 4, &ps, where) || tdc_num(c, 4, &cpus, where))
		return -1;
	if (!tdc_inside(c, off, 16))
		return tdc_bad(c, "buffer '%s': data section at offset %llu is past the end of the file",
			   name, (unsigned long long)off);
	/* libtracecmd goes by this flag for the CPUs' data, the checks by the file's compression */
	z.off = off;
	if (tdc_num(&z, 2, &sid, "data section") || tdc_num(&z, 2, &flags, "data section"))
		return -1;
	if (sid != OPT_BUFFER || !(flags & SEC_FL_COMPRESS) != !compressed)
		return tdc_bad(c, "buffer '%s': data section at offset %llu: section %llu, flags %llu "
			   "(expected section %d, %s)", name, (unsigned long long)off,
			   (unsigned long long)sid, (unsigned long long)flags, OPT_BUFFER,
			   compressed ? "compressed" : "not compressed");
	/* 0 CPUs: an empty buffer (the top level of an extracted instance) */
	if (check_page_size(c, ps, where) || (cpus && check_cpus(c, cpus, where)))
		return -1;
	if (cpus * 20 > end - c->off)
		return tdc_bad(c, "%s: buffer '%s': %llu CPUs do not fit in it", where, name,
			   (unsigned long long)cpus);
	for (uint64_t i = 0; i < cpus; i++) {
		uint64_t entry = c->off, cpu, doff, dsize;

		if (tdc_num(c, 4, &cpu, where) || tdc_num(c, 8, &doff, where) ||
		    tdc_num(c, 8, &dsize, where))
			return -1;
		if (cpu >= TS_MAX_CPUS || (seen[cpu / 64] & (1ull << (cpu % 64))))
			return tdc_bad(c, "%s: buffer '%s': the entry at offset %llu is CPU %llu "
				   "(supported: 0..%d, each once)", where, name,
				   (unsigned long long)entry, (unsigned long long)cpu, TS_MAX_CPUS - 1);
		seen[cpu / 64] |= 1ull << (cpu % 64);
		if (tdc_check_cpu_data(c, name, cpu, doff, dsize, (uint32_t)ps, compressed))
			return -1;
	}
	return 0;
}

/* An event format of @len bytes at the cursor (v6), skipped over. */
static int format_at(struct cur *c, const char *sys, uint64_t len)
{
	uint64_t at = c->off;

	if (!tdc_wants_formats(c))
		return tdc_skip(c, len, "event format");
	if (len > MAX_FORMAT)
		return tdc_bad(c, "event format of system '%s' at offset %llu: %llu bytes", sys,
			   (unsigned long long)at, (unsigned long long)len);
	ALLOC_GROW(c->in, len + 1, c->in_alloc);
	if (tdc_get(c, c->in, len, "event format"))
		return -1;
	return tdc_format_text(c, sys, c->in, len, at);
}

#define MAX_V6_BUFFERS	64

/* v6: instance buffers, checked once the options have said how many CPUs there are */
struct v6_buffers {
	uint64_t off[MAX_V6_BUFFERS];
	char name[MAX_V6_BUFFERS][64];
	int n;
};

/* The bytes option @id takes at least, of those checked here (0: any). */
static uint64_t too_short(uint64_t id, int version)
{
	if (id == OPT_CPUCOUNT)
		return 4;
	if (id == OPT_BUFFER && version == 6)
		return 9;
	if (version == 7 && ((id >= OPT_STRINGS && id <= OPT_CMDLINES) || id == OPT_BUFFER_TEXT))
		return 8;
	return 0;
}

/*
 * The options of one section (v7, up to @end) or the options block (v6, up to option 0).
 * v7: *@next gets the next options section's offset (0: none).  v6: CPUCOUNT updates
 * *@cpus and BUFFER options are collected in @bufs.
 */
static int check_options(struct cur *c, uint64_t end, uint64_t *cpus, struct v6_buffers *bufs,
			 uint64_t *next)
{
	*next = 0;
	for (;;) {
		uint64_t id, size, start;

		if (tdc_num(c, 2, &id, "option"))
			return -1;
		if (c->version == 6 && id == OPT_DONE)
			return 0;
		if (tdc_num(c, 4, &size, "option"))
			return -1;
		start = c->off;
		if (size > end - start || c->off > end)
			return tdc_bad(c, "option %llu at offset %llu: %llu bytes run past its section",
				   (unsigned long long)id, (unsigned long long)start - 6,
				   (unsigned long long)size);
		if (id == OPT_DONE) {	/* v7: the offset of the next options section */
			if (size < 8 || tdc_num(c, 8, next, "option DONE"))
				return tdc_bad(c, "option DONE at offset %llu: malformed",
					   (unsigned long long)start - 6);
			return 0;
		}
		if (c->layout && (id == OPT_DATE || id == OPT_OFFSET || id == OPT_TIME_SHIFT ||
				  id == OPT_GUEST || id == OPT_TSC2NSEC))
			c->layout->direct = false;	/* timestamps the library corrects */
		if (size < too_short(id, c->version))
			return tdc_bad(c, "option %llu at offset %llu: %llu bytes, too short",
				   (unsigned long long)id, (unsigned long long)start - 6,
				   (unsigned long long)size);
		if (id == OPT_CPUCOUNT) {
			char where[64];
			uint64_t n;

			snprintf(where, sizeof(where), "option CPUCOUNT at offset %llu",
				 (unsigned long long)start - 6);
			if (tdc_num(c, 4, &n, where) || check_cpus(c, n, where))
				return -1;
			if (c->layout)	/* the library takes the last */
				c->layout->meta.cpus = (int)n;
			if (cpus && n > *cpus)
				*cpus = n;
		} else if (id == OPT_UNAME && c->layout) {
			char *u = c->layout->meta.uname;
			size_t n = size < sizeof(c->layout->meta.uname) - 1 ? (size_t)size :
				   sizeof(c->layout->meta.uname) - 1;

			if (tdc_get(c, u, n, "option UNAME"))
				return -1;
			u[n] = '\0';
		} else if (id == OPT_BUFFER && c->version == 6) {
			if (bufs->n == MAX_V6_BUFFERS)
				return tdc_bad(c, "more than %d buffer instances", MAX_V6_BUFFERS);
			if (tdc_num(c, 8, &bufs->off[bufs->n], "option BUFFER") ||
			    tdc_cstr(c, bufs->name[bufs->n], sizeof(bufs->name[0]), "option BUFFER"))
				return tdc_bad(c, "option BUFFER at offset %llu: malformed",
					   (unsigned long long)start - 6);
			bufs->n++;
		} else if (id == OPT_BUFFER) {
			if (check_buffer_v7(c, start - 6, start + size, c->compressed))
				return -1;
		} else if (c->version == 7 && id >= OPT_STRINGS && id <= OPT_CMDLINES) {
			if (tdc_check_section_ref(c, (uint16_t)id))
				return -1;
		} else if (c->version == 7 && id == OPT_BUFFER_TEXT) {
			uint64_t off;

			if (tdc_num(c, 8, &off, "option BUFFER_TEXT"))
				return -1;
			if (!tdc_inside(c, off, 16))
				return tdc_bad(c, "option BUFFER_TEXT: data at offset %llu is past the end "
					   "of the file", (unsigned long long)off);
		}
		c->off = start + size;
	}
}

/* Do the @n bytes at the cursor differ from @lit?  The cursor does not move. */
static bool differs_at(struct cur *c, const char *lit, size_t n)
{
	char buf[16];

	return n > sizeof(buf) || tdc_pread(c, buf, n, c->off) != (ssize_t)n ||
	       memcmp(buf, lit, n);
}

static int check_v6(struct cur *c)
{
	struct v6_buffers bufs = { .n = 0 };
	char name[16], sys[64], where[64];
	uint64_t n, count, cpus, next;

	for (int i = 0; i < 2; i++) {
		static const char *const names[] = { "header_page", "header_event" };

		if (tdc_cstr(c, name, sizeof(name), names[i]) || strcmp(name, names[i]))
			return tdc_bad(c, "no %s section at offset %llu", names[i],
				   (unsigned long long)c->off);
		if (tdc_num(c, 8, &n, names[i]))
			return -1;
		if (i == 0 && n < MAX_STRING) {
			char text[MAX_STRING];

			if (tdc_get(c, text, n, names[i]) || tdc_check_header_page(c, names[i], text, n))
				return -1;
		} else if (i == 0) {
			return tdc_bad(c, "header_page: %llu bytes, not a format", (unsigned long long)n);
		} else if (tdc_skip(c, n, names[i])) {
			return -1;
		}
	}
	if (tdc_num(c, 4, &count, "ftrace formats"))
		return -1;
	for (uint64_t i = 0; i < count; i++)
		if (tdc_num(c, 8, &n, "ftrace format") || format_at(c, "ftrace", n))
			return -1;
	if (tdc_num(c, 4, &count, "event systems"))
		return -1;
	for (uint64_t i = 0; i < count; i++) {
		uint64_t events;

		if (tdc_cstr(c, sys, sizeof(sys), "event system name") ||
		    tdc_num(c, 4, &events, "event system"))
			return -1;
		for (uint64_t e = 0; e < events; e++)
			if (tdc_num(c, 8, &n, "event format") || format_at(c, sys, n))
				return -1;
	}
	if (tdc_num(c, 4, &n, "kallsyms"))
		return -1;
	if (c->layout)
		tdc_text_note(&c->layout->meta.kallsyms, false, c->off, 0, 0, n);
	if (tdc_skip(c, n, "kallsyms") || tdc_num(c, 4, &n, "trace_printk formats"))
		return -1;
	snprintf(where, sizeof(where), "trace_printk formats at offset %llu",
		 (unsigned long long)c->off);
	if (n > MAX_BLOCK)
		return tdc_bad(c, "%s: %llu bytes", where, (unsigned long long)n);
	ALLOC_GROW(c->in, n + 1, c->in_alloc);
	if (tdc_get(c, c->in, n, "trace_printk formats") || tdc_check_printk(c, where, c->in, n) ||
	    tdc_num(c, 8, &n, "saved command lines"))
		return -1;
	if (c->layout)
		tdc_text_note(&c->layout->meta.cmdlines, false, c->off, 0, 0, n);
	if (tdc_skip(c, n, "saved command lines") ||
	    tdc_num(c, 4, &cpus, "CPU count") || check_cpus(c, cpus, "header"))
		return -1;
	if (c->layout)
		c->layout->meta.cpus = (int)cpus;
	if (c->off <= c->size - 10 && !differs_at(c, "options  ", 10)) {
		c->off += 10;
		if (check_options(c, c->size, &cpus, &bufs, &next))
			return -1;
	}
	if (check_data_v6(c, "", cpus))
		return -1;
	for (int i = 0; i < bufs.n; i++) {
		c->off = bufs.off[i];
		if (check_data_v6(c, bufs.name[i], cpus))
			return -1;
	}
	return 0;
}

static int check_v7(struct cur *c)
{
	uint64_t at = c->off, first, next;
	char algo[32];
	int sections = 0;

	if (tdc_cstr(c, algo, sizeof(algo), "compression name") ||
	    tdc_cstr(c, NULL, 0, "compression version") ||
	    tdc_num(c, 8, &next, "first options offset"))
		return -1;
	first = next;
	if (!strcmp(algo, "zstd"))
		c->algo = Z_ZSTD;
	else if (!strcmp(algo, "zlib"))
		c->algo = Z_ZLIB;
	else if (strcmp(algo, "none"))
		return tdc_bad(c, "compression '%s' at offset %llu is not supported (zstd, zlib or "
			   "none)", algo, (unsigned long long)at);
	c->compressed = c->algo != Z_NONE;
	if (c->layout)
		c->layout->algo = c->algo;
	while (next) {
		uint64_t id, flags, desc, size;

		if (++sections > MAX_OPTION_SECTIONS)
			return tdc_bad(c, "more than %d options sections (a loop?)", MAX_OPTION_SECTIONS);
		c->off = next;
		if (tdc_num(c, 2, &id, "options section") || tdc_num(c, 2, &flags, "options section") ||
		    tdc_num(c, 4, &desc, "options section") || tdc_num(c, 8, &size, "options section"))
			return -1;
		if (id != OPT_DONE)
			return tdc_bad(c, "offset %llu: section %llu where options were expected",
				   (unsigned long long)next, (unsigned long long)id);
		if (!tdc_inside(c, c->off, size))
			return tdc_bad(c, "options section at offset %llu: %llu bytes run past the end "
				   "of the file", (unsigned long long)next, (unsigned long long)size);
		if (flags & SEC_FL_COMPRESS) {	/* its options are the library's to read */
			if (c->layout)
				c->layout->direct = false;
			return tdc_check_zsection(c, size, "options section");
		}
		if (check_options(c, c->off + size, NULL, NULL, &next))
			return -1;
	}
	/* without it libtracecmd crashes in its cleanup */
	if (!c->header_info)
		return tdc_bad(c, "no option HEADER_INFO in the options sections from offset %llu",
			   (unsigned long long)first);
	return 0;
}

/*
 * The structure of the file, bounded by its size; 0 or -1 with the message on @src.
 * @layout (may be NULL) gets where the ring-buffer data lies.
 */
static int check_file_in(struct ts_source *src, int fd, struct tep_handle *tep, int note_fd,
			 struct tdc_layout *layout, struct cur_win *win)
{
	struct cur c = { .src = src, .fd = fd, .version = 0, .tep = tep, .note_fd = note_fd,
			 .layout = layout, .win = win };
	char magic[10], ver[8], where[64];
	uint8_t endian, lsize;
	uint64_t ps;
	struct stat st;
	int ret;

	if (fstat(fd, &st))
		return ts_source_fail(src, "cannot stat: %s", strerror(errno));
	c.size = (uint64_t)st.st_size;
	if (tdc_get(&c, magic, sizeof(magic), "magic") || tdc_cstr(&c, ver, sizeof(ver), "version"))
		return -1;
	if (strcmp(ver, "6") && strcmp(ver, "7"))
		return ts_source_fail(src, "trace.dat version '%s' at offset 10 is not supported "
				      "(6 and 7 are)", tdc_printable(ver));
	c.version = ver[0] - '0';
	if (tdc_get(&c, &endian, 1, "endianness") || tdc_get(&c, &lsize, 1, "long size"))
		return -1;
	if (endian > 1 || (lsize != 4 && lsize != 8))
		return tdc_bad(&c, "header at offset %llu: endianness %u and long size %u (expected "
			   "0/1 and 4/8)", (unsigned long long)c.off - 2, endian, lsize);
	c.big = endian;
	c.lsize = lsize;
	if (layout) {
		layout->meta.type_off = -1;
		layout->direct = true;
		layout->version = c.version;
		layout->big = endian;
		layout->lsize = lsize;
		layout->size = c.size;
	}
	snprintf(where, sizeof(where), "header at offset %llu", (unsigned long long)c.off);
	if (tdc_num(&c, 4, &ps, "page size") || check_page_size(&c, ps, where))
		return -1;
	c.page_size = (uint32_t)ps;
	ret = c.version == 6 ? check_v6(&c) : check_v7(&c);
	ZSTD_freeDCtx(c.zstd);
	free(c.in);
	free(c.out);
	return ret;
}

/* The file's headers read through a window of it (struct cur_win) */
static int check_file(struct ts_source *src, int fd, struct tep_handle *tep, int note_fd,
		      struct tdc_layout *layout)
{
	struct cur_win win = { .buf = xmalloc(CUR_WIN_SIZE) };
	int ret = check_file_in(src, fd, tep, note_fd, layout, &win);

	free(win.buf);
	return ret;
}

/*
 * The libraries' own complaints go nowhere, but in a fuzzing build: there they carry
 * libFuzzer's report of what the child met (its malloc limit writes an oom- finding from
 * the child, whose report was lost with them).
 */
static void quiet_stderr(void)
{
#ifndef TLBSCOPE_FUZZING
	int null = open("/dev/null", O_WRONLY);

	if (null >= 0)
		dup2(null, STDERR_FILENO);
#endif
}

/*
 * In a child process, once the parent has checked the structure, what only the libraries
 * can parse: with @formats, every event format through libtraceevent one at a time (to
 * name the one they die on); else libtracecmd's own open of the file and the first record
 * of each CPU.  Their parsers trust the text and numbers they read (a malformed print
 * format is a NULL dereference in libtraceevent 1.7), and no check short of theirs can say
 * what they will choke on; a child that dies costs this run nothing.  It reports on
 * @note_fd: "A<what>" before each risky step, then "E<message>" or "O".
 */
static void __attribute__((noreturn)) check_in_child(struct ts_source *src, int fd, int note_fd,
						     bool formats)
{
	static const int deadly[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
	struct tep_handle *tep = formats ? tep_alloc() : NULL;
	struct cur c = { .note_fd = note_fd };
	struct tracecmd_input *h;
	char path[64];
	ssize_t w;

	struct stat st;

	/*
	 * Die quietly by the signal (no sanitizer or fuzzer handler), and within a minute
	 * plus a second per 8 MiB: libtracecmd inflates every CPU's data when it opens a
	 * compressed file, so a good file of gigabytes takes its time.
	 */
	for (size_t i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
		signal(deadly[i], SIG_DFL);
	alarm(60 + (fstat(fd, &st) ? 0 : (unsigned int)((uint64_t)st.st_size >> 23)));
	quiet_stderr();
	if (formats) {
		if (!tep || check_file(src, fd, tep, note_fd, NULL)) {
			char msg[TS_ERR_LEN + 2];
			int n = snprintf(msg, sizeof(msg), "E%s\n",
					 tep ? src->err : "out of memory");

			w = write(note_fd, msg, n < (int)sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
			_exit(w < 0);
		}
		w = write(note_fd, "O\n", 2);
		_exit(w != 2);
	}
	tdc_note(&c, "the file with libtracecmd (headers, kallsyms, first sub-buffers)");
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	tracecmd_set_loglevel(TEP_LOG_NONE);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (h) {
		int nb = tracecmd_buffer_instances(h);

		for (int cpu = 0; cpu < tep_get_cpus(tracecmd_get_tep(h)); cpu++)
			tracecmd_free_record(tracecmd_read_cpu_first(h, cpu));
		for (int i = 0; i < nb; i++) {
			struct tracecmd_input *b;

			tdc_note(&c, "buffer instance %d with libtracecmd", i);
			b = tracecmd_buffer_instance_handle(h, i);
			for (int cpu = 0; b && cpu < tep_get_cpus(tracecmd_get_tep(b)); cpu++)
				tracecmd_free_record(tracecmd_read_cpu_first(b, cpu));
			if (b)
				tracecmd_close(b);
		}
		tracecmd_close(h);
	}
	w = write(note_fd, "O\n", 2);
	_exit(w != 2);
}

/*
 * Run check_in_child() and wait for it.  Returns 0 when it ended well, 1 when it reported
 * bad input (message on @src), 2 when it died (what it was reading in @last, "" if
 * unknown; @hung when it was the minute's alarm).
 */
static int run_child(struct ts_source *src, int fd, bool formats, char *last, size_t len,
		     bool *hung)
{
	char buf[4096];
	size_t have = 0;
	int pipefd[2], status = 0;
	pid_t pid, w;

	last[0] = '\0';
	*hung = false;
	if (pipe(pipefd))
		return ts_source_fail(src, "cannot create a pipe: %s", strerror(errno)), 1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return ts_source_fail(src, "cannot fork: %s", strerror(errno)), 1;
	}
	if (!pid) {
		close(pipefd[0]);
		check_in_child(src, fd, pipefd[1], formats);
	}
	close(pipefd[1]);
	/* keep the last complete line: what the child was doing, or how it ended */
	for (;;) {
		ssize_t n = read(pipefd[0], buf + have, sizeof(buf) - 1 - have);
		char *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = '\0';
		while ((nl = strchr(buf, '\n'))) {
			*nl = '\0';
			strlcpy_ts(last, buf, len);
			have -= (size_t)(nl + 1 - buf);
			memmove(buf, nl + 1, have + 1);
		}
		if (have == sizeof(buf) - 1)
			have = 0;	/* no line is this long: drop it */
	}
	close(pipefd[0]);
	while ((w = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	/* w < 0: SIGCHLD ignored (inherited), the child reaped itself; its last line tells */
	if (last[0] == 'O' && (w < 0 || (WIFEXITED(status) && !WEXITSTATUS(status))))
		return 0;
	if (last[0] == 'E') {
		strlcpy_ts(src->err, last + 1, sizeof(src->err));
		return 1;
	}
	*hung = w > 0 && WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM;
	if (last[0] == 'A')
		memmove(last, last + 1, strlen(last));
	else
		last[0] = '\0';
	return 2;
}

/*
 * tracedat_died - the message for a file the tracing libraries died on (@hung: by the
 * alarm) while reading @last ("" unknown): a child that parses the event formats one by
 * one names the format at fault, if a format it is.  Returns -1.
 */
int tracedat_died(struct ts_source *src, int fd, bool hung, const char *last)
{
	char where[TS_ERR_LEN + 2];
	bool hung2;

	if (run_child(src, fd, true, where, sizeof(where), &hung2) == 2 && where[0])
		last = where;
	return ts_source_fail(src, "corrupt trace.dat: the tracing libraries %s reading %s",
			      hung ? "hang" : "crash", last[0] ? last : "its headers");
}

/*
 * tracedat_check - is the trace.dat open as @fd safe to hand to libtracecmd?
 * The structure is checked here; with @libraries, what only the libraries can parse too,
 * in a child process (check_in_child()): libtracecmd's open first, and only when that
 * dies a second child that parses the event formats one by one, to name the one at fault.
 * Returns 0, or -1 with the message (naming the part of the file) set on @src.
 */
int tracedat_check(struct ts_source *src, int fd, struct tdc_layout *layout, bool libraries)
{
	char last[TS_ERR_LEN + 2];
	bool hung;
	int r;

	if (check_file(src, fd, NULL, -1, layout))
		return -1;
	if (!libraries)
		return 0;
	r = run_child(src, fd, false, last, sizeof(last), &hung);
	if (r < 2)
		return -r;
	return tracedat_died(src, fd, hung, last);
}
