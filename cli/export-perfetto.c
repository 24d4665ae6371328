// SPDX-License-Identifier: GPL-2.0-only
/*
 * export --format perfetto: the export model's drawing as Perfetto's protobuf trace, encoded
 * here by hand.  A Trace is a run of TracePackets (field 1) on one packet sequence: a
 * TrackDescriptor per track (CPUs under one parent, two counter tracks), then one packet
 * per TrackEvent: a slice's begin and end, instants for requests, IPIs and flow ends (an
 * IPI carries its flow id, the target's instant terminates it), counter values.  Names,
 * categories, annotation names and string values are interned: a string's first use in
 * the sequence carries it with an id, later ones the id alone.  The tables are cleared
 * (and the sequence says so) when they grow past INTERN_MAX, so memory stays flat.
 * Unless --uncompressed, packets go out in chunks of CHUNK_MAX bytes, each deflated (zlib's
 * format, by libdeflate) into one packet's compressed_packets, as Perfetto's own tracing
 * service writes them; with -j 2 or more one thread (a relay, lib/relay.c) deflates and
 * writes the chunks in their order while the next ones fill, CHUNKS at most.
 */
#include <stdlib.h>
#include <string.h>

#include <libdeflate.h>

#include "../lib/lib.h"
#include "../parsers/parsers.h"
#include "export.h"

/* wire types */
enum { WT_VARINT = 0, WT_FIXED64 = 1, WT_LEN = 2 };

/* field numbers of the messages written */
enum {
	TRACE_PACKET = 1,
	/* TracePacket */
	PKT_TIMESTAMP = 8, PKT_SEQUENCE_ID = 10, PKT_TRACK_EVENT = 11, PKT_INTERNED = 12,
	PKT_SEQUENCE_FLAGS = 13, PKT_COMPRESSED = 50, PKT_TRACK_DESCRIPTOR = 60,
	/* TrackDescriptor */
	TD_UUID = 1, TD_NAME = 2, TD_PARENT = 5, TD_COUNTER = 8, TD_CHILD_ORDERING = 11,
	TD_SIBLING_RANK = 12, TD_DESCRIPTION = 14,
	/* CounterDescriptor */
	CD_UNIT_NAME = 6,
	/* TrackEvent */
	TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10,
	TE_TRACK_UUID = 11, TE_DOUBLE_VALUE = 44, TE_FLOW_IDS = 47, TE_TERMINATING_FLOWS = 48,
	/* DebugAnnotation */
	DA_NAME_IID = 1, DA_INT = 4, DA_STRING = 6, DA_STRING_IID = 17,
	/* InternedData, and the fields of each of its entries */
	IN_CATEGORIES = 1, IN_NAMES = 2, IN_ANNOTATION_NAMES = 3, IN_STRING_VALUES = 29,
	ENTRY_IID = 1, ENTRY_NAME = 2,
};

enum { SEQ_INCREMENTAL_STATE_CLEARED = 1, SEQ_NEEDS_INCREMENTAL_STATE = 2 };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
enum { ORDER_EXPLICIT = 3 };

#define SEQUENCE_ID	1
#define INTERN_MAX	16384		/* strings of all tables together before a clear */
/* packets deflated together: a reader wants each compressed packet under 512 KiB */
#define CHUNK_MAX	(256 * 1024)
/*
 * libdeflate's level 1: zlib's own level 1 took a third of an 812 MB recording's export
 * (its CPU time); libdeflate's is 4 times as fast on the same chunks, and a twentieth
 * smaller (bench/README.md, 2026-12-03)
 */
#define DEFLATE_LEVEL	1

/* track uuids, unique in the trace and small (a byte for CPUs 0..126): CPU n's is n + 1 */
#define UUID_CPU	1ULL
#define UUID_ROOT	(UUID_CPU + TS_MAX_CPUS)
#define UUID_IPIS	(UUID_ROOT + 1)
#define UUID_DEFERRALS	(UUID_ROOT + 2)

/* A growable byte buffer a message is encoded into. */
struct pb {
	uint8_t *b;
	size_t n, alloc;
};

/* the interned tables: a string's iid is its strtab id (1..; "" is never interned) */
enum { TAB_CATEGORIES, TAB_NAMES, TAB_ANNOTATION_NAMES, TAB_STRING_VALUES, NTABS };
static const int tab_field[NTABS] = {
	IN_CATEGORIES, IN_NAMES, IN_ANNOTATION_NAMES, IN_STRING_VALUES
};

/* chunks filled and not yet deflated and written, at most (with a thread) */
#define CHUNKS		4

/* What deflates and writes the chunks: one thread at a time (the relay's, else the caller). */
struct deflation {
	FILE *out;
	uint8_t *zbuf;			/* a chunk deflated */
	size_t zalloc;
	struct libdeflate_compressor *zc;
};

/* names drawn again and again, with their iid in the tables' current generation */
#define LIT_CACHE	32		/* string literals, by address */
#define TASK_CACHE	4096		/* slice names "comm pid", by pid */
#define STR_CACHE	1024		/* string values (mm names...), by their text */
#define STR_CACHE_LEN	48		/* longer ones are not kept */

struct perfetto {
	FILE *out;
	struct pb pkt, ev;		/* the packet being built, its event */
	struct pb interned[NTABS];	/* strings the event interned first, per table */
	bool deflate;
	struct pb *chunk;		/* packets, framed as a Trace, waiting to be deflated */
	struct pb chunks[CHUNKS];	/* @chunk is one; the others @relay's thread's */
	void *slots[CHUNKS];
	struct relay *relay;		/* deflates on a thread with -j 2 or more, else here */
	struct deflation z;
	struct strtab *tab[NTABS];
	uint32_t strings;		/* in all tables */
	uint32_t gen;			/* tables' generation: cleared this many times + 1 */
	struct { const char *s; int t; uint32_t gen; uint64_t iid; } lit[LIT_CACHE];
	struct {
		int32_t pid;
		uint32_t gen;
		uint64_t iid;
		char comm[TS_COMM_LEN];
	} task[TASK_CACHE];
	struct {
		uint32_t gen;		/* 0: empty */
		uint64_t iid;
		char text[STR_CACHE_LEN];
	} str[STR_CACHE];
	uint8_t described[TS_MAX_CPUS];	/* CPU tracks whose descriptor is written */
};

static void pb_grow(struct pb *p, size_t more)
{
	ALLOC_GROW(p->b, p->n + more, p->alloc);
}

static inline void pb_room(struct pb *p, size_t more)
{
	if (p->alloc - p->n < more)
		pb_grow(p, more);
}

static inline void pb_varint(struct pb *p, uint64_t v)
{
	pb_room(p, 10);
	if (v < 0x80) {
		p->b[p->n++] = (uint8_t)v;
		return;
	}
	while (v >= 0x80) {
		p->b[p->n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	p->b[p->n++] = (uint8_t)v;
}

static void pb_uint(struct pb *p, int field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3 | WT_VARINT);
	pb_varint(p, v);
}

/* int32/int64: a negative value is its 64-bit two's complement (ten bytes) */
static void pb_int(struct pb *p, int field, int64_t v)
{
	pb_uint(p, field, (uint64_t)v);
}

static void pb_fixed64(struct pb *p, int field, uint64_t v)
{
	pb_varint(p, (uint64_t)field << 3 | WT_FIXED64);
	pb_room(p, 8);
	for (int i = 0; i < 8; i++)
		p->b[p->n++] = (uint8_t)(v >> (8 * i));
}

static void pb_double(struct pb *p, int field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	pb_fixed64(p, field, v);
}

static void pb_bytes(struct pb *p, int field, const void *data, size_t len)
{
	pb_varint(p, (uint64_t)field << 3 | WT_LEN);
	pb_varint(p, len);
	if (!len)
		return;
	pb_room(p, len);
	memcpy(p->b + p->n, data, len);
	p->n += len;
}

static void pb_str(struct pb *p, int field, const char *s)
{
	pb_bytes(p, field, s, strlen(s));
}

/*
 * A nested message: pb_open() writes its tag and one byte for its length, pb_close() the
 * length, moving the content when the length takes more than a byte.
 */
static size_t pb_open(struct pb *p, int field)
{
	pb_varint(p, (uint64_t)field << 3 | WT_LEN);
	pb_room(p, 1);
	return p->n++;
}

static void pb_close(struct pb *p, size_t at)
{
	size_t len = p->n - at - 1, k = 1;
	uint8_t v[10];

	for (uint64_t x = len; x >= 0x80; x >>= 7)
		k++;
	if (k > 1) {
		pb_room(p, k - 1);
		memmove(p->b + at + k, p->b + at + 1, len);
		p->n += k - 1;
	}
	for (size_t i = 0, x = len; i < k; i++, x >>= 7)
		v[i] = (uint8_t)((x & 0x7f) | (i + 1 < k ? 0x80 : 0));
	memcpy(p->b + at, v, k);
}

/* The head of a packet of @len bytes to the output, as a field of the Trace */
static void trace_packet_head(FILE *out, size_t len)
{
	uint8_t head[11];
	size_t n = 0;

	head[n++] = TRACE_PACKET << 3 | WT_LEN;
	for (uint64_t x = len; ; x >>= 7) {
		head[n++] = (uint8_t)((x & 0x7f) | (x >= 0x80 ? 0x80 : 0));
		if (x < 0x80)
			break;
	}
	fwrite(head, 1, n, out);
}

/* @len bytes of a packet to the output, as a field of the Trace */
static void trace_packet(FILE *out, const void *b, size_t len)
{
	trace_packet_head(out, len);
	fwrite(b, 1, len, out);
}

/* @v as a varint at @b, unchecked (room for 10 bytes); its length */
static inline size_t vput(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		b[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	b[n++] = (uint8_t)v;
	return n;
}

/*
 * Chunk @slot's packets as one packet holding them deflated (zlib's format, as Perfetto
 * reads it).  A chunk that would not deflate into the bound of CHUNK_MAX bytes (a single
 * packet past that size) goes out as it is.
 */
static void deflate_write(void *ctx, void *slot)
{
	struct deflation *z = ctx;
	struct pb *in = slot;
	uint8_t head[12];	/* the field's key and length: two varints */
	size_t n, len = libdeflate_zlib_compress(z->zc, in->b, in->n, z->zbuf, z->zalloc);

	if (!len) {
		fwrite(in->b, 1, in->n, z->out);
	} else {
		n = vput(head, (uint64_t)PKT_COMPRESSED << 3 | WT_LEN);
		n += vput(head + n, len);
		trace_packet_head(z->out, n + len);
		fwrite(head, 1, n, z->out);
		fwrite(z->zbuf, 1, len, z->out);
	}
	in->n = 0;
}

/* The chunk being filled to the output: deflated by the relay. */
static void chunk_flush(struct perfetto *f)
{
	if (!f->chunk || !f->chunk->n)	/* none: not deflating */
		return;
	relay_put(f->relay);
	f->chunk = relay_slot(f->relay);
}

/* The packet built in @f->pkt to the output, or to the chunk being filled. */
static void packet_write(struct perfetto *f)
{
	struct pb *p = &f->pkt;

	if (!f->deflate) {
		trace_packet(f->out, p->b, p->n);
	} else {
		if (f->chunk->n + p->n + 11 > CHUNK_MAX)
			chunk_flush(f);
		pb_bytes(f->chunk, TRACE_PACKET, p->b, p->n);
	}
	p->n = 0;
}

/* Forget every interned string; the next packet tells the reader to do the same. */
static void intern_clear(struct perfetto *f)
{
	for (int t = 0; t < NTABS; t++) {
		strtab_free(f->tab[t]);
		f->tab[t] = strtab_new();
	}
	f->strings = 0;
	f->gen++;
	pb_uint(&f->pkt, PKT_SEQUENCE_ID, SEQUENCE_ID);
	pb_uint(&f->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	packet_write(f);
}

/* @s's iid in table @t, its entry added to the packet's interned data when new; 0 for "". */
static uint64_t intern(struct perfetto *f, int t, const char *s)
{
	uint32_t before = strtab_count(f->tab[t]);
	uint32_t id = strtab_intern(f->tab[t], s);
	size_t at;

	if (strtab_count(f->tab[t]) != before) {
		f->strings++;
		at = pb_open(&f->interned[t], tab_field[t]);
		pb_uint(&f->interned[t], ENTRY_IID, id);
		pb_str(&f->interned[t], ENTRY_NAME, s);
		pb_close(&f->interned[t], at);
	}
	return id;
}

/* intern() of the string literal @s: its iid kept by its address. */
static uint64_t intern_lit(struct perfetto *f, int t, const char *s)
{
	unsigned k = (unsigned)((uintptr_t)s >> 3) % LIT_CACHE;

	if (f->lit[k].s != s || f->lit[k].t != t || f->lit[k].gen != f->gen) {
		f->lit[k].s = s;
		f->lit[k].t = t;
		f->lit[k].gen = f->gen;
		f->lit[k].iid = intern(f, t, s);
	}
	return f->lit[k].iid;
}

/*
 * intern() of a string value: its iid kept by its text's hash (through export's queue a
 * value is a copy, at another address each time), used again while the text is the same.
 */
static uint64_t intern_value(struct perfetto *f, const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	size_t n = 0;
	unsigned k;

	for (; s[n] && n < STR_CACHE_LEN; n++)
		h = (h ^ (unsigned char)s[n]) * 16777619u;
	if (n >= STR_CACHE_LEN)
		return intern(f, TAB_STRING_VALUES, s);
	k = h % STR_CACHE;
	if (f->str[k].gen == f->gen && !memcmp(f->str[k].text, s, n + 1))
		return f->str[k].iid;
	f->str[k].gen = f->gen;
	memcpy(f->str[k].text, s, n + 1);
	f->str[k].iid = intern(f, TAB_STRING_VALUES, s);
	return f->str[k].iid;
}

/* @v in decimal at @b (no NUL); its length */
static size_t put_int(char *b, int32_t v)
{
	char t[12];
	uint32_t u = v < 0 ? -(uint32_t)v : (uint32_t)v;
	size_t n = 0, k = 0;

	do
		t[n++] = (char)('0' + u % 10);
	while (u /= 10);
	if (v < 0)
		b[k++] = '-';
	while (n)
		b[k++] = t[--n];
	return k;
}

/* The iid of a task's slice name, "comm pid" (the comm's first TS_COMM_LEN - 1 bytes). */
static uint64_t intern_task(struct perfetto *f, const char *comm, int32_t pid)
{
	unsigned k = (uint32_t)pid % TASK_CACHE;
	char name[TS_COMM_LEN + 16];
	size_t n = strnlen(comm, TS_COMM_LEN - 1);

	if (f->task[k].gen == f->gen && f->task[k].pid == pid &&
	    !strncmp(f->task[k].comm, comm, TS_COMM_LEN))
		return f->task[k].iid;
	memcpy(name, comm, n);
	name[n++] = ' ';
	n += put_int(name + n, pid);
	name[n] = 0;
	f->task[k].pid = pid;
	f->task[k].gen = f->gen;
	strncpy(f->task[k].comm, comm, TS_COMM_LEN);
	f->task[k].iid = intern(f, TAB_NAMES, name);
	return f->task[k].iid;
}

/* A track's descriptor; the root's (@description not NULL) is the sequence's first packet. */
static void track_descriptor(struct perfetto *f, uint64_t uuid, const char *name,
			     const char *description)
{
	size_t at;

	pb_uint(&f->pkt, PKT_SEQUENCE_ID, SEQUENCE_ID);
	if (description)
		pb_uint(&f->pkt, PKT_SEQUENCE_FLAGS, SEQ_INCREMENTAL_STATE_CLEARED);
	at = pb_open(&f->pkt, PKT_TRACK_DESCRIPTOR);
	pb_uint(&f->pkt, TD_UUID, uuid);
	pb_str(&f->pkt, TD_NAME, name);
	if (description)
		pb_str(&f->pkt, TD_DESCRIPTION, description);
	if (uuid == UUID_ROOT) {
		pb_uint(&f->pkt, TD_CHILD_ORDERING, ORDER_EXPLICIT);
	} else {
		pb_uint(&f->pkt, TD_PARENT, UUID_ROOT);
		/* counters above the CPUs, CPUs in their order */
		pb_int(&f->pkt, TD_SIBLING_RANK, uuid < UUID_ROOT ? (int64_t)(uuid - UUID_CPU) :
		       (int64_t)UUID_ROOT - (int64_t)uuid);
	}
	if (uuid == UUID_IPIS || uuid == UUID_DEFERRALS) {
		size_t c = pb_open(&f->pkt, TD_COUNTER);

		pb_str(&f->pkt, CD_UNIT_NAME, "/s");
		pb_close(&f->pkt, c);
	}
	pb_close(&f->pkt, at);
	packet_write(f);
}

static void describe_cpu(struct perfetto *f, int cpu)
{
	char name[32];

	if (cpu < 0 || cpu >= TS_MAX_CPUS || f->described[cpu])
		return;
	f->described[cpu] = 1;
	snprintf(name, sizeof(name), "CPU %d", cpu);
	track_descriptor(f, UUID_CPU + (uint64_t)cpu, name, NULL);
}

/* What the Chrome JSON's otherData says, as a sentence: the root track's description. */
static char *describe_trace(const struct export_header *h)
{
	static const char fmt[] = "tlbscope export of %s (%s): flush IPIs of %s, arrows ending "
		"%s; the lazy model's deferrals at T=%d Q=%d; the first event at %llu ns of the "
		"trace clock, times %s";
	char rel[64], *s;
	int n;

	if (h->base)
		snprintf(rel, sizeof(rel), "after it (%llu ns subtracted)",
			 (unsigned long long)h->base);
	else
		snprintf(rel, sizeof(rel), "of the trace clock");
	n = snprintf(NULL, 0, fmt, h->trace, h->format, h->ipi_source ? h->ipi_source :
		     "no evidence", h->entries ? "at handler entries" : "at the send", h->T, h->Q,
		     (unsigned long long)h->first_ts, rel);
	s = xmalloc((size_t)n + 1);
	snprintf(s, (size_t)n + 1, fmt, h->trace, h->format, h->ipi_source ? h->ipi_source :
		 "no evidence", h->entries ? "at handler entries" : "at the send", h->T, h->Q,
		 (unsigned long long)h->first_ts, rel);
	return s;
}

static void *perfetto_begin(FILE *out, const struct export_header *h)
{
	struct perfetto *f = xcalloc(1, sizeof(*f));
	char *about = describe_trace(h);

	f->out = out;
	f->gen = 1;
	f->deflate = !h->uncompressed;
	if (f->deflate) {
		f->z.out = out;
		f->z.zc = libdeflate_alloc_compressor(DEFLATE_LEVEL);
		if (!f->z.zc) {		/* as xmalloc() fails: the level is a valid one */
			fputs("tlbscope: out of memory allocating a compressor\n", stderr);
			abort();
		}
		f->z.zalloc = libdeflate_zlib_compress_bound(f->z.zc, CHUNK_MAX);
		f->z.zbuf = xmalloc(f->z.zalloc);
		for (int i = 0; i < CHUNKS; i++)
			f->slots[i] = &f->chunks[i];
		f->relay = relay_new(f->slots, CHUNKS, deflate_write, &f->z, ts_jobs() > 1);
		f->chunk = relay_slot(f->relay);
	}
	for (int t = 0; t < NTABS; t++)
		f->tab[t] = strtab_new();
	track_descriptor(f, UUID_ROOT, "CPUs", about);
	free(about);
	track_descriptor(f, UUID_IPIS, "flush IPIs/s", NULL);
	track_descriptor(f, UUID_DEFERRALS, "lazy deferrals/s", NULL);
	for (int c = 0; c < h->ncpus; c++)
		describe_cpu(f, c);
	return f;
}

/* Annotations of an event: a name (a literal) and an int, or a string (NULL: unknown, "n/a"). */
static void annotate_int(struct perfetto *f, const char *name, int64_t v)
{
	size_t at = pb_open(&f->ev, TE_ANNOTATIONS);

	pb_uint(&f->ev, DA_NAME_IID, intern_lit(f, TAB_ANNOTATION_NAMES, name));
	pb_int(&f->ev, DA_INT, v);
	pb_close(&f->ev, at);
}

static void annotate_str(struct perfetto *f, const char *name, const char *s)
{
	size_t at = pb_open(&f->ev, TE_ANNOTATIONS);
	uint64_t iid;

	pb_uint(&f->ev, DA_NAME_IID, intern_lit(f, TAB_ANNOTATION_NAMES, name));
	iid = s && *s ? intern_value(f, s) : 0;
	if (iid)
		pb_uint(&f->ev, DA_STRING_IID, iid);
	else
		pb_str(&f->ev, DA_STRING, s ? s : "n/a");
	pb_close(&f->ev, at);
}

/* The start of a TrackEvent in @f->ev: its type, track, category and name (literals). */
static void event_start(struct perfetto *f, int type, uint64_t track, const char *cat,
			const char *name)
{
	if (f->strings >= INTERN_MAX)
		intern_clear(f);
	pb_uint(&f->ev, TE_TYPE, type);
	pb_uint(&f->ev, TE_TRACK_UUID, track);
	if (cat)
		pb_uint(&f->ev, TE_CATEGORY_IIDS, intern_lit(f, TAB_CATEGORIES, cat));
	if (name)
		pb_uint(&f->ev, TE_NAME_IID, intern_lit(f, TAB_NAMES, name));
}

static inline size_t vlen(uint64_t v)
{
	size_t n = 1;

	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

/*
 * The packet of the event in @f->ev at @ts, with the strings it interned first; @interned:
 * the event refers to interned strings (the packet says it needs the sequence's state).
 * Encoded in one go where it goes: the chunk (its size known first, to flush the chunk
 * before it when it would not fit) or the packet buffer written out.
 */
static void event_write(struct perfetto *f, uint64_t ts, bool interned)
{
	size_t in = 0, size;
	struct pb *p;
	uint8_t *b;

	for (int t = 0; t < NTABS; t++)
		in += f->interned[t].n;
	size = 1 + vlen(ts) + 2 + (interned ? 2 : 0) + (in ? 1 + vlen(in) + in : 0) +
	       1 + vlen(f->ev.n) + f->ev.n;
	if (f->deflate) {
		if (f->chunk->n + size + 11 > CHUNK_MAX)
			chunk_flush(f);
		p = f->chunk;
		pb_room(p, 11 + size);
		p->b[p->n++] = TRACE_PACKET << 3 | WT_LEN;
		p->n += vput(p->b + p->n, size);
	} else {
		p = &f->pkt;
		pb_room(p, size);
	}
	b = p->b + p->n;
	*b++ = PKT_TIMESTAMP << 3 | WT_VARINT;
	b += vput(b, ts);
	*b++ = PKT_SEQUENCE_ID << 3 | WT_VARINT;
	*b++ = SEQUENCE_ID;
	if (interned) {
		*b++ = PKT_SEQUENCE_FLAGS << 3 | WT_VARINT;
		*b++ = SEQ_NEEDS_INCREMENTAL_STATE;
	}
	if (in) {
		*b++ = PKT_INTERNED << 3 | WT_LEN;
		b += vput(b, in);
		for (int t = 0; t < NTABS; t++) {
			if (!f->interned[t].n)
				continue;
			memcpy(b, f->interned[t].b, f->interned[t].n);
			b += f->interned[t].n;
			f->interned[t].n = 0;
		}
	}
	*b++ = PKT_TRACK_EVENT << 3 | WT_LEN;
	b += vput(b, f->ev.n);
	memcpy(b, f->ev.b, f->ev.n);
	p->n += size;
	f->ev.n = 0;
	if (!f->deflate) {
		trace_packet(f->out, p->b, p->n);
		p->n = 0;
	}
}

static void draw_slice(struct perfetto *f, const struct export_draw *d)
{
	uint64_t track = UUID_CPU + (uint64_t)d->cpu;

	if (d->u.slice.idle) {
		event_start(f, TYPE_SLICE_BEGIN, track, "idle", "idle");
	} else {
		event_start(f, TYPE_SLICE_BEGIN, track, "sched", NULL);
		pb_uint(&f->ev, TE_NAME_IID, intern_task(f, d->u.slice.comm, d->u.slice.pid));
		annotate_int(f, "pid", d->u.slice.pid);
		if (d->u.slice.tgid >= 0)
			annotate_int(f, "tgid", d->u.slice.tgid);
		else
			annotate_str(f, "tgid", NULL);
		annotate_str(f, "mm", d->u.slice.mm);
	}
	event_write(f, d->ts, true);
	event_start(f, TYPE_SLICE_END, track, NULL, NULL);
	event_write(f, d->u.slice.end, false);
}

static void draw_request(struct perfetto *f, const struct export_draw *d)
{
	event_start(f, TYPE_INSTANT, UUID_CPU + (uint64_t)d->cpu, "flush", "flush request");
	annotate_str(f, "mm", d->u.request.mm);
	annotate_str(f, "scope", d->u.request.scope);
	if (d->u.request.pages)
		annotate_int(f, "pages", (int64_t)d->u.request.pages);
	annotate_str(f, "event", d->u.request.event);
	event_write(f, d->ts, true);
}

static void draw_ipi(struct perfetto *f, const struct export_draw *d)
{
	event_start(f, TYPE_INSTANT, UUID_CPU + (uint64_t)d->cpu, "ipi", "flush IPI");
	if (d->u.ipi.from >= 0)
		annotate_int(f, "from", d->u.ipi.from);
	else
		annotate_str(f, "from", NULL);
	annotate_int(f, "to", d->u.ipi.to);
	annotate_str(f, "mm", d->u.ipi.mm);
	if (d->u.ipi.flow)
		pb_fixed64(&f->ev, TE_FLOW_IDS, d->u.ipi.flow);
	event_write(f, d->ts, true);
}

static void perfetto_draw(void *state, const struct export_draw *d)
{
	struct perfetto *f = state;

	describe_cpu(f, d->cpu);
	switch (d->what) {
	case EXPORT_SLICE:
		draw_slice(f, d);
		break;
	case EXPORT_REQUEST:
		draw_request(f, d);
		break;
	case EXPORT_IPI:
		draw_ipi(f, d);
		break;
	case EXPORT_FLOW_END:
		/* an instant on the target's track, where the arrow ends */
		event_start(f, TYPE_INSTANT, UUID_CPU + (uint64_t)d->cpu, "ipi",
			    d->u.flow_end.at_entry ? "flush handler" : "flush IPI target");
		pb_fixed64(&f->ev, TE_TERMINATING_FLOWS, d->u.flow_end.id);
		event_write(f, d->ts, true);
		break;
	case EXPORT_COUNTER:
		event_start(f, TYPE_COUNTER, d->u.counter.which == EXPORT_IPIS_PER_S ? UUID_IPIS :
			    UUID_DEFERRALS, NULL, NULL);
		pb_double(&f->ev, TE_DOUBLE_VALUE, d->u.counter.per_s);
		event_write(f, d->ts, false);
		break;
	}
}

static void perfetto_end(void *state, bool complete)
{
	struct perfetto *f = state;

	chunk_flush(f);		/* what was drawn, also of an input that failed midway */
	relay_free(f->relay);
	for (int i = 0; i < CHUNKS; i++)
		free(f->chunks[i].b);
	free(f->z.zbuf);
	if (f->z.zc)
		libdeflate_free_compressor(f->z.zc);
	free(f->pkt.b);
	free(f->ev.b);
	for (int t = 0; t < NTABS; t++) {
		free(f->interned[t].b);
		strtab_free(f->tab[t]);
	}
	free(f);
}

const struct export_renderer export_perfetto = {
	.name = "perfetto", .begin = perfetto_begin, .draw = perfetto_draw, .end = perfetto_end,
	.binary = true,
};
