// SPDX-License-Identifier: GPL-2.0-only
/*
 * The libtraceevent handle of a trace.dat, built from what the checks found (struct
 * tdc_meta) instead of by libtracecmd's open, which parses every event format the kernel
 * has and all of kallsyms: on this machine 1,600 formats and 5 MB of symbols, three
 * quarters of `tlbscope report`, for the dozen events a trace holds.  Here the header page,
 * the formats of the tracepoints the decoder knows by name (tp_known()) and of kprobes (the
 * probe list needs them before any record) are parsed at once, every other format when its
 * first record comes, the saved command lines and kallsyms when first asked for; each with
 * libtracecmd's call, so the handle is the one it would build.  Each parse runs under
 * tracedat-guard.c's guard, naming what it parses.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "tracedat-tep.h"

/* Format @i of the meta through libtraceevent, guarded (a format it rejects is its business). */
static void parse_format(struct ts_source *src, struct tdc_meta *m, struct tep_handle *tep,
			 size_t i)
{
	struct tdc_format *f = &m->fmt[i];
	const char *sys = m->arena + f->sys;

	if (f->parsed)
		return;
	f->parsed = true;
	tracedat_guard(src, "the event format of system '%s' at offset %llu", sys,
		       (unsigned long long)f->at);
	tep_parse_event(tep, m->arena + f->text, f->len, sys);
	tracedat_unguard();
}

/*
 * Formats by ID for the lazy parse.  Parsed now: a kprobe's (its arguments are mapped before
 * any record) and a known tracepoint's (a corrupt one is found before any output), one
 * whose ID another shares or that a record's type cannot hold, and all of them when the
 * formats do not say where a record's type is.
 */
static void index_formats(struct ts_source *src, struct tdc_meta *m, struct tep_handle *tep)
{
	int max = -1;

	for (size_t i = 0; i < m->nfmt; i++)
		if (m->fmt[i].id > max && m->fmt[i].id <= 0xffff)
			max = m->fmt[i].id;
	m->nbyid = (size_t)(max + 1);
	m->byid = xmalloc((m->nbyid ? m->nbyid : 1) * sizeof(*m->byid));
	for (size_t i = 0; i < m->nbyid; i++)
		m->byid[i] = -1;
	for (size_t i = 0; i < m->nfmt; i++) {
		int id = m->fmt[i].id;

		if (id < 0 || id > 0xffff || m->type_off < 0) {
			parse_format(src, m, tep, i);
		} else if (m->byid[id] >= 0) {
			parse_format(src, m, tep, (size_t)m->byid[id]);
			parse_format(src, m, tep, i);
		} else {
			m->byid[id] = (int32_t)i;
		}
	}
	for (size_t i = 0; i < m->nfmt; i++)
		if (m->fmt[i].probe || m->fmt[i].known)
			parse_format(src, m, tep, i);
}

bool tdc_tep_possible(const struct tdc_layout *l)
{
	return l->meta.want && l->meta.header_page_len && l->meta.cpus > 0 &&
	       l->meta.cpus <= TS_MAX_CPUS;
}

struct tep_handle *tdc_tep_new(struct ts_source *src, struct tdc_layout *l)
{
	struct tdc_meta *m = &l->meta;
	struct tep_handle *tep = tep_alloc();

	if (!tep) {
		ts_source_fail(src, "out of memory");
		return NULL;
	}
	tep_set_file_bigendian(tep, l->big ? TEP_BIG_ENDIAN : TEP_LITTLE_ENDIAN);
	tep_set_local_bigendian(tep, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? TEP_BIG_ENDIAN :
				TEP_LITTLE_ENDIAN);
	tep_set_long_size(tep, l->lsize);
	tep_set_cpus(tep, m->cpus);
	tracedat_guard(src, "the header_page format");
	tep_parse_header_page(tep, m->header_page, (int)m->header_page_len, l->lsize);
	tracedat_unguard();
	index_formats(src, m, tep);
	return tep;
}

struct tep_event *tdc_tep_event(struct ts_source *src, struct tdc_layout *l,
				struct tep_handle *tep, const struct tep_record *rec, int type)
{
	struct tdc_meta *m = &l->meta;

	if (type < 0) {
		/* the first record: its type where the formats say, before libtraceevent knows */
		uint64_t v = 0;

		if (m->type_off >= 0 && m->type_off + m->type_size <= rec->size) {
			memcpy(&v, (const char *)rec->data + m->type_off, (size_t)m->type_size);
			if (l->big != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__))
				v = m->type_size == 2 ? __builtin_bswap16((uint16_t)v) :
				    m->type_size == 4 ? __builtin_bswap32((uint32_t)v) : v;
			type = (int)v;
		}
	}
	if (type >= 0 && (size_t)type < m->nbyid && m->byid[type] >= 0)
		parse_format(src, m, tep, (size_t)m->byid[type]);
	/* libtraceevent learns where the common fields are from its first event: give it one */
	for (size_t i = 0; !tep_get_events_count(tep) && i < m->nfmt; i++)
		parse_format(src, m, tep, i);
	return type >= 0 ? tep_find_event(tep, type) : NULL;
}

/*
 * kallsyms without tep_parse_kallsyms(): that scans each of its ~170,000 lines with sscanf()
 * and copies each name twice (two thirds of a capture's `report`, for the few functions its
 * records name).  Here the lines are read in place, and tep_find_function() answers through
 * a resolver from the table libtraceevent would build: the functions it keeps (no '$' name,
 * no absolute 'A'/'a' symbol), in the order its list and glibc's stable merge sort leave
 * them (by address; of one address, the last listed first), looked up with its own
 * comparison.  A line of any other shape than "HEX TYPE NAME..." leaves it all to
 * tep_parse_kallsyms(), whose sscanf() reads such lines in its own ways.
 */
struct ksym {
	unsigned long long addr;
	const char *name;	/* in the text: ends at its first blank */
};

/*
 * The text is kept as it was read, none of its names cut in place: it is what the next
 * open compares with.  A name asked for is copied once, NUL-terminated, into @names.  (A
 * table that cut its names, with a copy of the text to compare, touched three times the
 * text's pages: 3,750 page faults for the 5 MB of a capture of this machine's kernel,
 * 11 us each on a virtual machine with shadow page tables.)
 */
struct tdc_ksyms {
	char *text;
	size_t len;
	struct ksym *map;	/* n + 1: a last of address 0, as libtraceevent's */
	size_t n;
	int refs;
	struct u64map names;	/* index in map -> char * of its name, NUL-terminated */
};

/*
 * The table of the last kallsyms read, kept (a reference) for the next open of the same
 * text: export reads its trace twice, and on a capture of a whole kernel the table is most
 * of an open.
 */
static struct tdc_ksyms *last_ksyms;

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* libtraceevent's func_bcmp(): the function that holds the address */
static int ksym_bcmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr == y->addr || (x->addr > y->addr && x->addr < (y + 1)->addr))
		return 0;
	return x->addr < y->addr ? -1 : 1;
}

static bool ksym_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

const char *tdc_ksyms_find(struct tdc_ksyms *k, unsigned long long *addr)
{
	struct ksym key = { .addr = *addr };
	struct ksym *f = k->n ? bsearch(&key, k->map, k->n, sizeof(*k->map), ksym_bcmp) : NULL;
	uint64_t *name;
	bool added;

	if (!f)
		return NULL;
	*addr = f->addr;
	name = u64map_get(&k->names, (uint64_t)(f - k->map), 0, &added);
	if (added) {
		size_t len = 0;
		char *s;

		while (f->name[len] && !ksym_space(f->name[len]))
			len++;
		s = xmalloc(len + 1);
		memcpy(s, f->name, len);
		s[len] = '\0';
		*name = (uint64_t)(uintptr_t)s;
	}
	return (const char *)(uintptr_t)*name;
}

static char *ksym_resolve(void *priv, unsigned long long *addrp, char **modp)
{
	*modp = NULL;
	return (char *)tdc_ksyms_find(priv, addrp);
}

static void ksyms_reverse(struct ksym *a, size_t n)
{
	for (size_t i = 0, j = n ? n - 1 : 0; i < j; i++, j--) {
		struct ksym t = a[i];

		a[i] = a[j];
		a[j] = t;
	}
}

/* Each line of @text into @k; false at a line of another shape. */
static bool ksyms_read(const char *text, struct tdc_ksyms *k)
{
	size_t alloc = 2;	/* a symbol a line at most, and the last entry */
	bool sorted = true;

	for (const char *p = text; (p = strchr(p, '\n')); p++)
		alloc++;
	/* sized once, never grown, and made present at once: 2.7 MB for an x86 kernel */
	k->map = xmalloc(alloc * sizeof(*k->map));
	prefault(k->map, alloc * sizeof(*k->map));

	for (const char *p = text, *eol; *p; p = eol) {
		unsigned long long addr = 0;
		const char *name;
		char type;
		int digits = 0;

		eol = strchr(p, '\n');
		eol = eol ? eol + 1 : p + strlen(p);
		if (*p == '\n')
			continue;	/* strtok_r() passes over empty lines */
		for (; digits < 17; p++, digits++) {
			int v = *p >= '0' && *p <= '9' ? *p - '0' : *p >= 'a' && *p <= 'f' ?
				*p - 'a' + 10 : *p >= 'A' && *p <= 'F' ? *p - 'A' + 10 : -1;

			if (v < 0)
				break;
			addr = addr << 4 | (unsigned)v;
		}
		if (!digits || digits > 16 || p[0] != ' ' || !p[1] || ksym_space(p[1]) ||
		    p[2] != ' ' || !p[3] || ksym_space(p[3]))
			return false;
		type = p[1];
		/* the name ends at its first blank: a module (ignored) after it */
		name = p + 3;
		if (name[0] == '$' || type == 'A' || type == 'a')
			continue;
		sorted &= !k->n || k->map[k->n - 1].addr <= addr;
		k->map[k->n++] = (struct ksym){ .addr = addr, .name = name };
	}
	if (sorted) {
		/* the list's order (last line first), stably sorted: each run of one address reversed */
		for (size_t i = 0, j; i < k->n; i = j) {
			for (j = i + 1; j < k->n && k->map[j].addr == k->map[i].addr; j++)
				;
			ksyms_reverse(k->map + i, j - i);
		}
	} else {
		ksyms_reverse(k->map, k->n);
		qsort(k->map, k->n, sizeof(*k->map), ksym_cmp);
	}
	k->map[k->n] = (struct ksym){ .addr = 0, .name = NULL };
	return true;
}

struct tdc_ksyms *tdc_ksyms_take(char *text)
{
	size_t len = strlen(text);
	struct tdc_ksyms *k;

	if (last_ksyms && len == last_ksyms->len && !memcmp(text, last_ksyms->text, len)) {
		free(text);
		last_ksyms->refs++;
		return last_ksyms;
	}
	k = xcalloc(1, sizeof(*k));
	k->refs = 1;
	k->text = text;
	k->len = len;
	u64map_init(&k->names);
	if (!ksyms_read(k->text, k)) {
		k->text = NULL;		/* the caller's again */
		tdc_ksyms_free(k);
		return NULL;
	}
	tdc_ksyms_free(last_ksyms);
	last_ksyms = k;
	k->refs++;
	return k;
}

struct tdc_ksyms *tdc_ksyms_new(const char *text)
{
	char *copy = xstrdup(text);
	struct tdc_ksyms *k = tdc_ksyms_take(copy);

	if (!k)
		free(copy);
	return k;
}

void tdc_ksyms_free(struct tdc_ksyms *k)
{
	if (!k || --k->refs > 0)
		return;
	for (size_t i = 0; i < k->names.cap; i++)
		if (k->names.used[i])
			free((char *)(uintptr_t)k->names.vals[i]);
	u64map_release(&k->names);
	free(k->text);
	free(k->map);
	free(k);
}

/* kallsyms' @text (taken) into @tep: through tdc_ksyms, or libtraceevent's parse of it. */
static void ksyms_load(struct tdc_meta *m, struct tep_handle *tep, char *text)
{
	struct tdc_ksyms *k = tdc_ksyms_take(text);

	if (!k) {
		tep_parse_kallsyms(tep, text);	/* not taken */
		free(text);
	} else if (!tep_set_function_resolver(tep, ksym_resolve, k)) {
		m->ksyms = k;
	} else {
		tep_parse_kallsyms(tep, k->text);	/* the text as read */
		tdc_ksyms_free(k);
	}
}

int tdc_tep_load(struct ts_source *src, int fd, struct tdc_layout *l, struct tep_handle *tep,
		 bool syms)
{
	const struct tdc_text *t = syms ? &l->meta.kallsyms : &l->meta.cmdlines;
	const char *what = syms ? "kallsyms" : "the saved command lines";
	char *text;

	if (!t->found || (syms && !t->len))
		return 0;
	text = tdc_text_read(src, fd, l, t, what);
	if (!text)
		return -1;
	tracedat_guard(src, "%s", what);
	if (syms) {
		ksyms_load(&l->meta, tep, text);	/* takes it */
	} else {
		tep_parse_saved_cmdlines(tep, text);
		free(text);
	}
	tracedat_unguard();
	return 0;
}

char *tdc_text_read(struct ts_source *src, int fd, const struct tdc_layout *l,
		    const struct tdc_text *t, const char *what)
{
	struct cur c;
	char *buf;

	if (!t->z) {
		buf = xmalloc(t->len + 1);
		prefault(buf, t->len);
		if (pread(fd, buf, t->len, (off_t)t->off) != (ssize_t)t->len) {
			free(buf);
			ts_source_fail(src, "cannot read %s at offset %llu", what,
				       (unsigned long long)t->off);
			return NULL;
		}
		buf[t->len] = '\0';
		return buf;
	}
	tdc_cur_init(&c, src, fd, l);
	c.off = t->off + 16;	/* past the section's header */
	if (tdc_check_zsection(&c, t->zsize, what) || c.out_len < t->pos + t->len) {
		if (!src->err[0])
			ts_source_fail(src, "%s: its section no longer inflates as it did", what);
		tdc_cur_release(&c);
		return NULL;
	}
	/*
	 * The inflated section is the buffer: the text moved to its front, not copied to new
	 * memory (5 MB of kallsyms, 1,250 page faults fewer)
	 */
	buf = c.out;
	memmove(buf, buf + t->pos, t->len);
	buf[t->len] = '\0';	/* out_alloc > the section's size */
	c.out = NULL;
	c.out_alloc = 0;
	tdc_cur_release(&c);
	return buf;
}
