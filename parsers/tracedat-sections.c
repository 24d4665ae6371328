// SPDX-License-Identifier: GPL-2.0-only
/*
 * The content of a trace.dat's header sections, checked before libtracecmd sees it: the
 * header_page format and the trace_printk formats (v6 and v7), and in v7 each section an
 * option points at (trace-cmd.dat.v7(5)), inflated first when compressed, walked with every
 * count and size bounded by the bytes left in it.  libtracecmd allocates what each number
 * says before it reads, and reads an uncompressed section past its end.  The event formats
 * in them go to the child's libtraceevent, or into the layout's meta for the reader.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "tracedat-sections.h"

/*
 * The header_page format, as the kernel prints it:
 *	"\tfield: u64 timestamp;\toffset:0;\tsize:8;\tsigned:0;" then commit, overwrite, data.
 * libtracecmd reads sub-buffers only with an 8-byte timestamp and fails half set up
 * otherwise; libtraceevent's parser gives up at the first stray character.  So each line
 * must be a field in that exact shape (a stray byte in a type name, and libtracecmd fails
 * half set up and crashes in its cleanup), and timestamp and commit must be where readers of
 * sub-buffers (kbuffer) put them whatever the text says, commit a long of the file's header.
 * @where names the text in the messages.
 */
int tdc_check_header_page(struct cur *c, const char *where, const char *text, uint64_t len)
{
	char buf[1024], *line, *eol;
	bool ts = false, commit = false;

	if (len >= sizeof(buf))
		return tdc_bad(c, "%s: %llu bytes, not a format", where, (unsigned long long)len);
	memcpy(buf, text, len);
	buf[len] = '\0';
	for (line = buf; *line; line = eol ? eol + 1 : line + strlen(line)) {
		char type[32], name[32], tail[2], shape[128];
		unsigned off, size, sign;
		int n;

		eol = strchr(line, '\n');
		if (eol)
			*eol = '\0';
		if (!*line)
			continue;
		n = sscanf(line, "\tfield: %31[A-Za-z0-9_] %31[A-Za-z0-9_]; offset:%u; size:%u; "
			   "signed:%u;%1s", type, name, &off, &size, &sign, tail);
		/* older kernels print no "signed" */
		if (n == 5)
			snprintf(shape, sizeof(shape),
				 "\tfield: %s %s;\toffset:%u;\tsize:%u;\tsigned:%u;", type, name,
				 off, size, sign);
		else if (n == 4)
			snprintf(shape, sizeof(shape), "\tfield: %s %s;\toffset:%u;\tsize:%u;",
				 type, name, off, size);
		if ((n != 5 && n != 4) || strcmp(line, shape))
			return tdc_bad(c, "%s: not a field: '%.60s'", where, line);
		if (!strcmp(name, "timestamp"))
			ts = off == 0 && size == 8;
		if (!strcmp(name, "commit"))
			commit = off == 8 && size == (unsigned)c->lsize;
	}
	if (!ts || !commit)
		return tdc_bad(c, "%s: no %s field where sub-buffers have it", where,
			   ts ? "commit" : "8-byte timestamp");
	if (c->layout) {	/* shorter than sizeof(buf), itself no bigger than this */
		memcpy(c->layout->meta.header_page, text, len);
		c->layout->meta.header_page_len = len;
	}
	return 0;
}

/*
 * trace_printk formats, @len bytes at @text: lines "ADDRESS : FORMAT".  libtraceevent takes
 * a line's format one byte past its first ':' (after any leading ones): past the end of its
 * buffer when the last line has none or ends there.  @where names the text.
 */
int tdc_check_printk(struct cur *c, const char *where, const char *text, uint64_t len)
{
	const char *end = text + strnlen(text, len);	/* the library stops at a NUL */
	uint64_t n = 0;

	for (const char *p = text, *eol; p < end; p = eol + 1) {
		const char *colon;

		eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		n++;
		if (eol == p)
			continue;
		while (p < eol && *p == ':')
			p++;
		colon = memchr(p, ':', (size_t)(eol - p));
		if (!colon || colon + 1 == eol)
			return tdc_bad(c, "%s: line %llu is not 'address : format'", where,
				   (unsigned long long)n);
	}
	return 0;
}

/* the v7 sections an option points at, by option id, as the messages name them */
static const char *const section_names[] = {
	[OPT_STRINGS] = "strings", [OPT_HEADER_INFO] = "header info",
	[OPT_FTRACE_EVENTS] = "ftrace events", [OPT_EVENT_FORMATS] = "event formats",
	[OPT_KALLSYMS] = "kallsyms", [OPT_PRINTK] = "printk formats", [OPT_CMDLINES] = "cmdlines",
};

/*
 * A v7 section's content, walked: inflated in memory when the section is compressed, else
 * read where it lies in the file.  libtracecmd allocates what each count and size in it says
 * before it reads (a format of 2^52 bytes), and reads an uncompressed section past its end,
 * so each is bounded here by the bytes left in the section.
 */
struct sect {
	struct cur *c;
	unsigned int id;
	uint64_t off;		/* the section's header in the file, for the messages */
	const char *mem;	/* the inflated content (borrowed); NULL: in the file at @start */
	uint64_t zsize;		/* compressed: the section's bytes after its header */
	uint64_t start;
	uint64_t len, pos;	/* the content's bytes; the walk's place in them */
};

static int sect_bad(struct sect *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* "section 18 (event formats) at offset 12303: " and the message */
static int sect_bad(struct sect *s, const char *fmt, ...)
{
	char msg[TS_ERR_LEN - 128];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return tdc_bad(s->c, "section %u (%s) at offset %llu: %s", s->id, section_names[s->id],
		       (unsigned long long)s->off, msg);
}

static uint64_t sect_left(const struct sect *s)
{
	return s->len - s->pos;
}

/* The @n bytes at the walk's place into @buf (NULL: passed over); @what names them. */
static int sect_get(struct sect *s, void *buf, uint64_t n, const char *what)
{
	if (n > sect_left(s))
		return sect_bad(s, "%s at byte %llu: %llu bytes, past its end (%llu bytes)", what,
				(unsigned long long)s->pos, (unsigned long long)n,
				(unsigned long long)s->len);
	if (buf && s->mem)
		memcpy(buf, s->mem + s->pos, n);
	else if (buf && tdc_pread(s->c, buf, n, s->start + s->pos) != (ssize_t)n)
		return ts_source_fail(s->c->src, "read error at offset %llu",
				      (unsigned long long)(s->start + s->pos));
	s->pos += n;
	return 0;
}

/* A little- or big-endian number of @bytes (4, 8) at the walk's place. */
static int sect_num(struct sect *s, int bytes, uint64_t *v, const char *what)
{
	uint64_t raw = 0;

	if (sect_get(s, &raw, bytes, what))
		return -1;
	*v = tdc_swap(s->c, raw, bytes);
	return 0;
}

/* A NUL-terminated string at the walk's place, at most MAX_STRING bytes; copied to @buf. */
static int sect_str(struct sect *s, char *buf, size_t len, const char *what)
{
	char tmp[MAX_STRING];
	size_t n = sect_left(s) < sizeof(tmp) ? (size_t)sect_left(s) : sizeof(tmp);
	const char *p = s->mem ? s->mem + s->pos : tmp;
	const char *nul;

	if (!s->mem && n && tdc_pread(s->c, tmp, n, s->start + s->pos) != (ssize_t)n)
		return ts_source_fail(s->c->src, "read error at offset %llu",
				      (unsigned long long)(s->start + s->pos));
	nul = n ? memchr(p, '\0', n) : NULL;
	if (!nul)
		return sect_bad(s, "%s at byte %llu: no terminated string", what,
				(unsigned long long)s->pos);
	strlcpy_ts(buf, p, len);
	s->pos += (uint64_t)(nul - p) + 1;
	return 0;
}

/* An event format of @len bytes at the walk's place: passed over, or to tdc_format_text(). */
static int sect_format(struct sect *s, const char *sys, uint64_t len)
{
	struct cur *c = s->c;
	/* where the child says it is: the format's offset, or its compressed section's */
	uint64_t at = s->mem ? s->off : s->start + s->pos;
	const char *text;

	if (!tdc_wants_formats(c))
		return sect_get(s, NULL, len, "event format");
	if (s->mem) {
		text = s->mem + s->pos;
	} else {
		ALLOC_GROW(c->in, len + 1, c->in_alloc);
		text = c->in;
	}
	if (sect_get(s, s->mem ? NULL : c->in, len, "event format"))
		return -1;
	return tdc_format_text(c, sys, text, len, at);
}

/*
 * v7 FTRACE_EVENTS (a count, then formats: each an 8-byte size and its text) or
 * EVENT_FORMATS (a count of systems, each a name, a count and formats as those).
 */
static int check_formats(struct sect *s, bool systems)
{
	uint64_t nsys = 1;
	char sys[64] = "ftrace";

	if (systems && sect_num(s, 4, &nsys, "the count of systems"))
		return -1;
	/* a system takes a name's NUL and a 4-byte count at least */
	if (nsys > sect_left(s) / 5)
		return sect_bad(s, "%llu systems claimed in %llu bytes", (unsigned long long)nsys,
				(unsigned long long)sect_left(s));
	for (uint64_t i = 0; i < nsys; i++) {
		uint64_t count;

		if ((systems && sect_str(s, sys, sizeof(sys), "a system's name")) ||
		    sect_num(s, 4, &count, "a count of formats"))
			return -1;
		/* a format takes its 8-byte size at least */
		if (count > sect_left(s) / 8)
			return sect_bad(s, "system '%s' claims %llu formats in %llu bytes", sys,
					(unsigned long long)count, (unsigned long long)sect_left(s));
		for (uint64_t e = 0; e < count; e++) {
			uint64_t n;

			if (sect_num(s, 8, &n, "a format's size"))
				return -1;
			if (n > sect_left(s))
				return sect_bad(s, "system '%s', format %llu: %llu bytes, past the "
						"section's end (%llu bytes left)", sys,
						(unsigned long long)e, (unsigned long long)n,
						(unsigned long long)sect_left(s));
			if (n > MAX_FORMAT)
				return sect_bad(s, "system '%s', format %llu: %llu bytes, not a format",
						sys, (unsigned long long)e, (unsigned long long)n);
			if (sect_format(s, sys, n))
				return -1;
		}
	}
	return 0;
}

/* v7 HEADER_INFO: "header_page", its 8-byte size and format, then the same of header_event. */
static int check_header_info(struct sect *s)
{
	char name[13], text[1024], where[64];
	uint64_t n;

	snprintf(where, sizeof(where), "section %u (%s) at offset %llu: header_page", s->id,
		 section_names[s->id], (unsigned long long)s->off);
	if (sect_get(s, name, 12, "header_page"))
		return -1;
	if (memcmp(name, "header_page", 12))
		return sect_bad(s, "no header_page");
	if (sect_num(s, 8, &n, "header_page's size"))
		return -1;
	if (n >= sizeof(text))
		return sect_bad(s, "header_page: %llu bytes, not a format", (unsigned long long)n);
	if (sect_get(s, text, n, "header_page") || tdc_check_header_page(s->c, where, text, n))
		return -1;
	if (sect_get(s, name, 13, "header_event"))
		return -1;
	if (memcmp(name, "header_event", 13))
		return sect_bad(s, "no header_event at byte %llu", (unsigned long long)s->pos - 13);
	if (sect_num(s, 8, &n, "header_event's size"))
		return -1;
	if (n > sect_left(s))
		return sect_bad(s, "header_event: %llu bytes, past the section's end (%llu bytes left)",
				(unsigned long long)n, (unsigned long long)sect_left(s));
	return 0;
}

/*
 * v7 KALLSYMS, PRINTK (a 4-byte size) or CMDLINES (an 8-byte one), then that many bytes;
 * PRINTK's to check_printk().
 */
static int check_sized(struct sect *s, int bytes)
{
	struct cur *c = s->c;
	const char *text;
	char where[64];
	uint64_t n;

	if (sect_num(s, bytes, &n, "its size"))
		return -1;
	if (n > sect_left(s))
		return sect_bad(s, "%llu bytes, past the section's end (%llu bytes left)",
				(unsigned long long)n, (unsigned long long)sect_left(s));
	if (c->layout && s->id != OPT_PRINTK)
		tdc_text_note(s->id == OPT_KALLSYMS ? &c->layout->meta.kallsyms :
			      &c->layout->meta.cmdlines, s->mem, s->mem ? s->off : s->start + s->pos,
			      s->zsize, s->pos, n);
	if (s->id != OPT_PRINTK)
		return 0;
	if (s->mem) {
		text = s->mem + s->pos;
	} else {
		if (n > MAX_BLOCK)
			return sect_bad(s, "%llu bytes of trace_printk formats", (unsigned long long)n);
		ALLOC_GROW(c->in, n + 1, c->in_alloc);
		if (sect_get(s, c->in, n, "trace_printk formats"))
			return -1;
		text = c->in;
	}
	snprintf(where, sizeof(where), "section %u (%s) at offset %llu", s->id,
		 section_names[s->id], (unsigned long long)s->off);
	return tdc_check_printk(c, where, text, n);
}

/* v7 options that give a section's offset: the section inside the file, its content walked. */
int tdc_check_section_ref(struct cur *c, uint16_t id)
{
	struct sect s = { .c = c, .id = id };
	uint64_t sid, flags, desc, back;
	int ret = 0;

	if (tdc_num(c, 8, &s.off, "option"))
		return -1;
	back = c->off;
	c->off = s.off;
	if (tdc_num(c, 2, &sid, "section") || tdc_num(c, 2, &flags, "section") ||
	    tdc_num(c, 4, &desc, "section") || tdc_num(c, 8, &s.len, "section"))
		return tdc_bad(c, "option %u: section at offset %llu is past the end of the file", id,
			   (unsigned long long)s.off);
	if (sid != id)
		return tdc_bad(c, "option %u: the section at offset %llu is a section %llu", id,
			   (unsigned long long)s.off, (unsigned long long)sid);
	if (!tdc_inside(c, c->off, s.len))
		return sect_bad(&s, "%llu bytes run past the end of the file",
				(unsigned long long)s.len);
	if (flags & SEC_FL_COMPRESS) {
		char what[48];

		snprintf(what, sizeof(what), "section %u (%s)", id, section_names[id]);
		s.zsize = s.len;
		if (tdc_check_zsection(c, s.len, what))
			return -1;
		s.mem = c->out;
		s.len = c->out_len;
	} else {
		s.start = c->off;
	}
	switch (id) {
	case OPT_HEADER_INFO:
		c->header_info = true;
		ret = check_header_info(&s);
		break;
	case OPT_FTRACE_EVENTS:
	case OPT_EVENT_FORMATS:
		ret = check_formats(&s, id == OPT_EVENT_FORMATS);
		break;
	case OPT_KALLSYMS:
	case OPT_PRINTK:
		ret = check_sized(&s, 4);
		break;
	case OPT_CMDLINES:
		ret = check_sized(&s, 8);
		break;
	}
	c->off = back;
	return ret;
}

/*
 * Event formats: the text only libtraceevent parses (in the child), or noted for a reader
 * that builds its own handle (struct tdc_meta, tracedat-tep.c).
 */
bool tdc_wants_formats(const struct cur *c)
{
	return c->tep || (c->layout && c->layout->meta.want);
}

/* The number after @key at the start of a line of @text (@len bytes), or -1. */
static long line_num(const char *text, uint64_t len, const char *key)
{
	size_t klen = strlen(key);
	const char *p = text, *end = text + len;

	for (; p && p + klen < end; p = memchr(p, '\n', (size_t)(end - p)), p = p ? p + 1 : NULL) {
		char num[16];
		size_t n = 0;

		if (memcmp(p, key, klen))
			continue;
		for (p += klen; p < end && *p == ' '; p++)
			;
		while (p < end && n < sizeof(num) - 1 && *p >= '0' && *p <= '9')
			num[n++] = *p++;
		num[n] = '\0';
		return n ? strtol(num, NULL, 10) : -1;
	}
	return -1;
}

/* Where common_type is in a record, from a format's line for it; false if it has none. */
static bool common_type_of(const char *text, uint64_t len, int *off, int *size)
{
	static const char key[] = " common_type;";
	const char *end = text + len, *p = text;
	long o, z;

	while (p < end && (p = memchr(p, ' ', (size_t)(end - p)))) {
		if ((size_t)(end - p) >= sizeof(key) - 1 && !memcmp(p, key, sizeof(key) - 1)) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			uint64_t n = (uint64_t)((eol ? eol : end) - p);
			char line[128];

			if (n >= sizeof(line))
				return false;
			memcpy(line, p, n);
			line[n] = '\0';
			if (sscanf(line, " common_type;\toffset:%ld;\tsize:%ld;", &o, &z) != 2 ||
			    o < 0 || o > 64 || (z != 1 && z != 2 && z != 4))
				return false;
			*off = (int)o;
			*size = (int)z;
			return true;
		}
		p++;
	}
	return false;
}

/* The event name of a format's first line "name: NAME" into @buf ("" none). */
static void format_name(const char *text, uint64_t len, char *buf, size_t size)
{
	const char *eol = memchr(text, '\n', (size_t)len);
	size_t n = (size_t)((eol ? eol : text + len) - text);

	buf[0] = '\0';
	if (n < 6 || memcmp(text, "name: ", 6) || n - 6 >= size)
		return;
	memcpy(buf, text + 6, n - 6);
	buf[n - 6] = '\0';
}

/* A format noted in the meta: its text kept, its ID, name, whether a kprobe's. */
static void meta_format(struct tdc_meta *m, const char *sys, const char *text, uint64_t len,
			uint64_t off)
{
	size_t slen = strlen(sys) + 1, nlen;
	struct tdc_format *f;
	char name[128];

	format_name(text, len, name, sizeof(name));
	nlen = strlen(name) + 1;
	ALLOC_GROW(m->fmt, m->nfmt + 1, m->fmt_alloc);
	f = &m->fmt[m->nfmt++];
	ALLOC_GROW(m->arena, m->arena_len + slen + nlen + len + 1, m->arena_alloc);
	f->sys = m->arena_len;
	memcpy(m->arena + m->arena_len, sys, slen);
	f->name = m->arena_len + slen;
	memcpy(m->arena + f->name, name, nlen);
	f->text = f->name + nlen;
	memcpy(m->arena + f->text, text, len);
	m->arena[f->text + len] = '\0';
	m->arena_len += slen + nlen + len + 1;
	f->known = tp_known(name);
	f->len = len;
	f->at = off;
	f->id = (int)line_num(text, len, "ID:");
	f->probe = memmem(text, len, "__probe_ip", 10) != NULL;
	f->parsed = false;
	if (m->type_off < 0 && !common_type_of(text, len, &m->type_off, &m->type_size))
		m->type_off = -1;
}

/*
 * An event format of @len bytes of system @sys in @text: parsed by libtraceevent in the
 * child, or noted in the layout's meta.
 */
int tdc_format_text(struct cur *c, const char *sys, const char *text, uint64_t len, uint64_t off)
{
	if (c->layout && c->layout->meta.want)
		meta_format(&c->layout->meta, sys, text, len, off);
	if (!c->tep)
		return 0;
	tdc_note(c, "the event format of system '%s' at offset %llu", sys, (unsigned long long)off);
	/* a format libtraceevent rejects is its business; one it dies on is ours */
	tep_parse_event(c->tep, text, len, sys);
	return 0;
}

void tdc_text_note(struct tdc_text *t, bool z, uint64_t off, uint64_t zsize, uint64_t pos,
		   uint64_t len)
{
	*t = (struct tdc_text){ .found = true, .z = z, .off = off, .zsize = zsize, .pos = pos,
				.len = len };
}
