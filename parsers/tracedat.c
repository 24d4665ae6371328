// SPDX-License-Identifier: GPL-2.0-only
/*
 * trace.dat reader: libtracecmd opens the file, libtraceevent decodes every field from the
 * event formats the file carries (no printing and re-parsing of text); the records are
 * read from the sub-buffers directly (tracedat-walk.c: compressed chunks inflated one per
 * CPU at a time; by worker threads with -j, tracedat-jobs.c), unless the file has what
 * only the library's reader does (direct_open()).  The per-CPU record streams are merged
 * by timestamp here, one head record per CPU, so the reader pulls one event at a time and
 * memory stays flat in the trace length.  Sub-buffers that the kernel marked as having
 * missed events become TS_EV_LOST events in front of their first record.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "../lib/lib.h"
#include "tracedat-jobs.h"
#include "tep-fields.h"
#include "merge.h"
#include "tracedat-tep.h"

/*
 * Exported by libtracecmd (1.2 and later) but absent from its public header: the uname
 * line and the kernel ring-buffer statistics that `trace-cmd record/extract` store, and
 * the sub-buffer size of a buffer.
 */
const char *tracecmd_get_uname(struct tracecmd_input *handle);
const char *tracecmd_get_cpustats(struct tracecmd_input *handle);
int tracecmd_page_size(struct tracecmd_input *handle);

#define FN_SLOTS	256	/* TS_ONLY_FLUSH_IPIS: cross-call functions known by address */

struct tracedat {
	struct tracecmd_input *top;	/* the file */
	struct tracecmd_input *in;	/* the buffer read: top or one instance */
	struct tep_handle *tep;
	int ncpus;
	int page_size;			/* sub-buffer size: no record crosses one */
	bool bigendian;			/* the recorded kernel's byte order */
	struct tep_record **heads;	/* next record of each CPU, NULL when drained */
	/*
	 * many CPUs (ts_merge_wanted()): the CPUs that have a head, by its time, made at the
	 * first record (merge_made) and kept by head_next(); else the heads are scanned
	 */
	struct ts_merge merge;
	bool merge_decided, merge_made;
	bool *lost_told;		/* the head's missed-events mark was emitted */
	/*
	 * Read directly (tracedat-walk.c), by this thread (dc) or by workers (pool, -j): for
	 * the files whose records it gives as libtracecmd's tracecmd_read_data() does
	 * (direct_open()); the others go through tracecmd_read_data().  Indexed by CPU
	 * number, as the library's records are: a CPU the buffer does not list has no data.
	 * dc NULL: not read directly.
	 */
	struct tdw_cpu *dc;
	struct tep_record *drec;	/* each CPU's next record, read directly */
	struct tdj_pool *pool;		/* the workers reading the CPUs, NULL: this thread */
	struct tdw_file wf;		/* what reading every CPU of the buffer shares */
	bool own;			/* tep built here (tracedat-tep.c), no libtracecmd handle */
	bool comms_loaded;		/* own: the saved command lines parsed */
	bool late_error;		/* own: kallsyms could not be read (message on src) */
	struct cur zcur;		/* compressed: this thread's inflater */
	struct tdc_layout layout;
	uint64_t nrecords;
	/*
	 * ts_source_only(): the kinds returned (a bit per enum ts_kind), and the kind each
	 * event type decodes to (+ 1, 0 not met yet), learned from its first record; NULL
	 * while every event is returned.  The first event always is (the trace's first time).
	 */
	uint8_t *type_kind;
	uint32_t only;
	bool returned;
	/*
	 * TS_ONLY_FLUSH_IPIS: the cross-call event types and where their function's address
	 * is (learned with their kind), and per type and address whether its records decoded
	 * to a TLB flush (2) or not (1), direct-mapped (a miss is decoded: the answer is the
	 * decoder's)
	 */
	bool flush_ipis_only;
	int ncalls;
	struct { int type, off, size; } calls[4];
	struct { uint64_t addr; uint8_t call, tlb; } fn[FN_SLOTS];
	char buffer_name[64];
	char detail[160];
	const char **kprobes;		/* names of defined kprobe events (borrowed from tep) */
	size_t nkprobes;
	struct tep_field_cache fields;	/* field lookups by (event, name) */
	struct tep_fields fc;		/* the record's fields, bound to tpf at the first */
	struct tp_fields tpf;
	/*
	 * Command names by pid, direct-mapped: the file's saved cmdlines never change, and
	 * libtraceevent's lookup is a binary search per record.
	 */
	struct {
		int32_t pid;		/* 0: empty (pid 0 is "<idle>", never looked up) */
		char comm[TS_COMM_LEN];
	} comms[4096];
};

/* The command name of @pid as the file's cmdlines give it ("<...>" unknown). */
static const char *comm_of(struct ts_source *src, struct tracedat *td, int pid)
{
	typeof(td->comms[0]) *c = &td->comms[(unsigned)pid % 4096];
	const char *comm;

	if (c->pid == pid && pid)
		return c->comm;
	if (td->own && !td->comms_loaded) {
		td->comms_loaded = true;
		if (tdc_tep_load(src, src->fd, &td->layout, td->tep, false))
			td->late_error = true;
	}
	comm = tep_data_comm_from_pid(td->tep, pid);
	c->pid = pid;
	memset(c->comm, 0, TS_COMM_LEN);	/* copied whole per record: no stale bytes */
	strlcpy_ts(c->comm, comm ? comm : "<...>", TS_COMM_LEN);
	return c->comm;
}

static bool tracedat_probe(const char *head, size_t len)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };

	return len >= sizeof(magic) && !memcmp(head, magic, sizeof(magic));
}

static bool buffer_has_data(struct tracecmd_input *in, int ncpus)
{
	for (int cpu = 0; cpu < ncpus; cpu++) {
		struct tep_record *r = tracecmd_read_cpu_first(in, cpu);

		if (r) {
			tracecmd_free_record(r);
			return true;
		}
	}
	return false;
}

/*
 * Every kprobe event the file defines (its format has the __probe_ip field), each known to
 * the source's probe list from its format before any record: its arguments are mapped
 * even when it recorded nothing.
 */
static void list_kprobes(struct ts_source *src, struct tracedat *td)
{
	struct tep_event **evs = tep_list_events(td->tep, TEP_EVENT_SORT_NAME);

	for (size_t i = 0; evs && evs[i]; i++) {
		struct tep_fields fc = { .tep = td->tep, .event = evs[i] };
		struct tp_fields f;

		if (!tep_find_field(evs[i], "__probe_ip"))
			continue;
		td->kprobes = xrealloc(td->kprobes, (td->nkprobes + 1) * sizeof(*td->kprobes));
		td->kprobes[td->nkprobes++] = evs[i]->name;
		tep_fields_bind(&f, &fc, src);
		f.sym = NULL;	/* no record: the symbol of __probe_ip comes with the first */
		f.sym_id = NULL;
		ts_probe_resolve(src, evs[i]->name, f.name_id, &f);
	}
}

/* Sub-buffers read per read(2) and CPU: a 4 KiB read each was a third of the time. */
#define DIRECT_CHUNK	(256u << 10)

/*
 * The next record of CPU @cpu into td->heads[cpu] (NULL: drained), past the current one
 * when @past: from the workers, or read here.  0, or -1 read error.
 */
static int direct_fill(struct ts_source *src, struct tracedat *td, int cpu, bool past)
{
	struct tep_record *rec = &td->drec[cpu];
	int r;

	if (td->pool) {
		r = tdj_pool_next(td->pool, src, cpu, rec);
	} else {
		if (past)
			rb_next(&td->dc[cpu].sb);
		r = tdw_next(src, &td->wf, &td->zcur, &td->dc[cpu], cpu, true);
		if (!r)
			tdw_record(&td->dc[cpu], cpu, rec);
		else if (r > 0)
			rec->data = NULL;
		r = r < 0 ? -1 : 0;
	}
	td->heads[cpu] = !r && rec->data ? rec : NULL;
	return r;
}

/*
 * Read the chosen buffer's sub-buffers directly when the checks' layout allows it: no
 * timestamp the library corrects, every CPU listed once with its data, the sub-buffer
 * size the library's.  Returns 1 direct, 0 not, -1 read error.
 */
static int direct_open(struct ts_source *src, struct tracedat *td)
{
	const struct tdc_buffer *b = NULL;
	uint64_t next;

	if (!td->layout.direct || tep_get_header_timestamp_size(td->tep) != 8 ||
	    td->layout.big != td->bigendian || tep_is_old_format(td->tep) ||
	    getenv("TLBSCOPE_TRACEDAT_LIBRARY"))
		return 0;
	/* the buffer read ("" the top level), if the file names it once */
	for (int i = 0; i < td->layout.nbuf; i++) {
		if (strcmp(td->layout.buf[i].name, td->buffer_name))
			continue;
		if (b)
			return 0;
		b = &td->layout.buf[i];
	}
	if (!b || b->page_size != (uint32_t)td->page_size)
		return 0;
	/* CPUs by number (the checks saw each once), as the library counts them */
	for (int i = 0; i < b->ncpus; i++)
		if (b->cpu[i].cpu >= (uint64_t)td->ncpus)
			return 0;
	td->dc = xcalloc(td->ncpus, sizeof(*td->dc));
	td->drec = xcalloc(td->ncpus, sizeof(*td->drec));
	tdc_cur_init(&td->zcur, src, src->fd, &td->layout);
	td->wf = (struct tdw_file){
		.fd = src->fd, .layout = &td->layout, .buffer = td->buffer_name,
		.page_size = (uint32_t)td->page_size, .big = td->bigendian,
		.compressed = b->compressed,
		.chunk_size = (uint32_t)td->page_size >= DIRECT_CHUNK ? (uint32_t)td->page_size :
			      DIRECT_CHUNK / (uint32_t)td->page_size * (uint32_t)td->page_size,
	};
	next = (uint64_t)td->page_size;
	for (int i = 0; i < td->ncpus; i++)
		tdw_cpu_empty(&td->dc[i]);
	for (int i = 0; i < b->ncpus; i++)
		if (tdw_cpu_init(src, &td->wf, &td->dc[b->cpu[i].cpu], &b->cpu[i], &next))
			return -1;
	/* -j N: N - 1 workers read the CPUs, this thread decodes (none started: it reads too) */
	if (ts_jobs_readers())
		td->pool = tdj_pool_new(src, &td->wf, td->dc, td->ncpus, ts_jobs_readers());
	for (int i = 0; i < td->ncpus; i++)
		if (direct_fill(src, td, i, false))
			return -1;
	return 1;
}

static void direct_release(struct tracedat *td)
{
	tdj_pool_free(td->pool);
	td->pool = NULL;
	for (int cpu = 0; td->dc && cpu < td->ncpus; cpu++)
		tdw_cpu_release(&td->dc[cpu]);
	free(td->dc);
	free(td->drec);
	td->dc = NULL;
	td->drec = NULL;
	tdc_cur_release(&td->zcur);
}

/* tep-fields.c's hooks: an event's format parsed as its first record comes, kallsyms once */
static struct tep_event *own_event(void *ctx, struct tep_record *rec, int type)
{
	struct ts_source *src = ctx;
	struct tracedat *td = src->priv;

	return tdc_tep_event(src, &td->layout, td->tep, rec, type);
}

static void own_syms(void *ctx)
{
	struct ts_source *src = ctx;
	struct tracedat *td = src->priv;

	if (tdc_tep_load(src, src->fd, &td->layout, td->tep, true))
		td->late_error = true;
}

/*
 * Does buffer @name (as the layout has it) have a record on some CPU?  Read directly into
 * td->dc and td->heads.  1 yes, 0 no, -1 error, -2 not readable directly.
 */
static int own_buffer(struct ts_source *src, struct tracedat *td, const char *name)
{
	const struct tdc_buffer *b = NULL;
	int r;

	direct_release(td);
	memset(td->heads, 0, td->ncpus * sizeof(*td->heads));
	strlcpy_ts(td->buffer_name, name, sizeof(td->buffer_name));
	for (int i = 0; i < td->layout.nbuf && !b; i++)
		if (!strcmp(td->layout.buf[i].name, name))
			b = &td->layout.buf[i];
	if (!b)		/* a top level of no CPUs (v7): empty */
		return 0;
	td->page_size = (int)b->page_size;
	r = direct_open(src, td);
	if (r <= 0)
		return r < 0 ? -1 : -2;
	for (int i = 0; i < td->ncpus; i++)
		if (td->heads[i])
			return 1;
	return 0;
}

/*
 * Open the file without libtracecmd: the handle from the checks' meta (tracedat-tep.c),
 * the buffer libtracecmd would choose (the top level unless it is empty and an instance
 * has records, the first such) read directly.  1 done, 0 the file needs libtracecmd, -1
 * error.
 */
static int own_open(struct ts_source *src, struct tracedat *td)
{
	const struct tdc_layout *l = &td->layout;
	bool top = false;
	int r;

	for (int i = 0; i < l->nbuf; i++)
		top |= !l->buf[i].name[0];
	if (!tdc_tep_possible(l) || !l->direct || (!top && (l->version != 7 || !l->nbuf)))
		return 0;
	td->tep = tdc_tep_new(src, &td->layout);
	if (!td->tep)
		return -1;
	td->own = true;
	td->ncpus = l->meta.cpus;
	td->bigendian = l->big;
	td->heads = xcalloc(td->ncpus, sizeof(*td->heads));
	td->lost_told = xcalloc(td->ncpus, sizeof(*td->lost_told));
	r = own_buffer(src, td, "");
	for (int i = 0; r == 0 && i < l->nbuf; i++) {
		/* an instance named twice is the library's to choose */
		for (int j = 0; j < i && l->buf[i].name[0]; j++)
			if (!strcmp(l->buf[j].name, l->buf[i].name))
				r = -2;
		if (l->buf[i].name[0] && r == 0)
			r = own_buffer(src, td, l->buf[i].name);
	}
	if (r == 0)	/* no buffer has records: the top level, as the library leaves it */
		r = own_buffer(src, td, "") == -2 ? -2 : 0;
	if (r == -1)
		return -1;
	if (r == -2) {
		/* back to the library: nothing read, nothing said */
		direct_release(td);
		free(td->heads);
		free(td->lost_told);
		td->heads = NULL;
		td->lost_told = NULL;
		tep_free(td->tep);
		td->tep = NULL;
		td->own = false;
		td->buffer_name[0] = '\0';
		return 0;
	}
	td->fields.lazy_event = own_event;
	td->fields.lazy_syms = own_syms;
	td->fields.lazy_ctx = src;
	src->info.uname = l->meta.uname[0] ? l->meta.uname : NULL;
	return 1;
}

/* The file as libtracecmd opens it, its records read directly if they can be. */
static int library_open(struct ts_source *src, struct tracedat *td)
{
	char path[64];
	int ninst;

	tracedat_guard(src, "the file with libtracecmd (headers, kallsyms, first sub-buffers)");
	if (src->spooled) {
		/* stdin or a FIFO was spooled to an unlinked temporary file */
		snprintf(path, sizeof(path), "/proc/self/fd/%d", src->fd);
		td->top = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	} else {
		td->top = tracecmd_open(src->path, TRACECMD_FL_LOAD_NO_PLUGINS);
	}
	if (!td->top)
		return ts_source_fail(src, "not a readable trace.dat (truncated or corrupt headers)");
	td->tep = tracecmd_get_tep(td->top);
	td->ncpus = tep_get_cpus(td->tep);
	if (td->ncpus <= 0 || td->ncpus > TS_MAX_CPUS)
		return ts_source_fail(src, "header: %d CPUs (supported: 1..%d)", td->ncpus,
				      TS_MAX_CPUS);
	td->in = td->top;
	/* The top-level buffer unless it is empty and an instance has the data. */
	ninst = tracecmd_buffer_instances(td->top);
	/* the library may read past a CPU's first sub-buffer looking for a record */
	if (ninst > 0 && tdc_check_subbuffers(src, src->fd, &td->layout, NULL))
		return -1;
	if (ninst > 0 && !buffer_has_data(td->top, td->ncpus)) {
		for (int i = 0; i < ninst; i++) {
			struct tracecmd_input *b;

			tracedat_guard(src, "buffer instance %d with libtracecmd", i);
			b = tracecmd_buffer_instance_handle(td->top, i);

			if (!b)
				continue;
			if (buffer_has_data(b, td->ncpus)) {
				td->in = b;
				strlcpy_ts(td->buffer_name, tracecmd_buffer_instance_name(td->top, i),
					   sizeof(td->buffer_name));
				break;
			}
			tracecmd_close(b);
		}
	}
	td->page_size = tracecmd_page_size(td->in);
	td->bigendian = tep_is_file_bigendian(td->tep);
	td->heads = xcalloc(td->ncpus, sizeof(*td->heads));
	td->lost_told = xcalloc(td->ncpus, sizeof(*td->lost_told));
	switch (direct_open(src, td)) {
	case -1:
		return -1;
	case 0:
		if (getenv("TLBSCOPE_TRACEDAT_DIRECT") && !getenv("TLBSCOPE_TRACEDAT_LIBRARY"))
			return ts_source_fail(src, "not read directly (TLBSCOPE_TRACEDAT_DIRECT): "
					      "%s needs libtracecmd's reader",
					      td->buffer_name[0] ? "the buffer" : "the top-level buffer");
		/* read by the library: every commit checked before it loads the sub-buffer */
		if (ninst <= 0 && tdc_check_subbuffers(src, src->fd, &td->layout, td->buffer_name))
			return -1;
		for (int cpu = 0; cpu < td->ncpus; cpu++)
			td->heads[cpu] = tracecmd_read_cpu_first(td->in, cpu);
		break;
	}
	src->info.uname = tracecmd_get_uname(td->top);
	return 0;
}

static int open_file(struct ts_source *src)
{
	struct tracedat *td = xcalloc(1, sizeof(*td));
	int r = 0;

	src->priv = td;
	tracecmd_set_loglevel(TEP_LOG_NONE);
	td->layout.defer_pages = true;
	td->layout.meta.want = !getenv("TLBSCOPE_TRACEDAT_LIBRARY");
	if (tracedat_check(src, src->fd, &td->layout, !tracedat_guarded_here()))
		return -1;
	if (td->layout.meta.want)
		r = own_open(src, td);
	if (r < 0 || (!r && library_open(src, td)))
		return -1;
	snprintf(td->detail, sizeof(td->detail), "%s%s", td->buffer_name[0] ? "buffer " : "",
		 td->buffer_name[0] ? td->buffer_name : "top-level buffer");
	src->info.detail = td->detail;
	src->info.cpus = td->ncpus;
	list_kprobes(src, td);
	src->info.kprobes_defined = td->kprobes;
	src->info.nkprobes_defined = td->nkprobes;
	return 0;
}

/* libtracecmd's parse of the headers and first records, guarded (tracedat-guard.c) */
static int tracedat_open(struct ts_source *src)
{
	int r = open_file(src);

	tracedat_unguard();
	return r;
}

/* CPU @cpu's head past its current record (NULL: drained).  0, or -1 read error. */
static int head_next(struct ts_source *src, struct tracedat *td, int cpu)
{
	if (td->dc) {
		if (direct_fill(src, td, cpu, true))
			return -1;
	} else {
		tracecmd_free_record(td->heads[cpu]);
		td->heads[cpu] = tracecmd_read_data(td->in, cpu);
	}
	if (!td->merge_made)
		return 0;
	if (td->heads[cpu])
		ts_merge_set(&td->merge, cpu, td->heads[cpu]->ts);
	else
		ts_merge_drop(&td->merge, cpu);
	return 0;
}

#define TYPES	65536	/* a record's common_type is 16 bits */

/* @off's place in its sub-buffer (page_size > 0): a mask for a power of two, no division */
static inline uint64_t in_subbuf(const struct tracedat *td, uint64_t off)
{
	uint64_t size = (uint64_t)td->page_size;

	return size & (size - 1) ? off % size : off & (size - 1);
}

/*
 * A cross-call event type whose function TS_ONLY_FLUSH_IPIS reads, where the decoder reads
 * it (tp_call_field()): learned from the type's first record.
 */
static void learn_call(struct tracedat *td, struct tep_event *event)
{
	const char *field = tp_call_field(event->name);
	const struct tep_format_field *f;

	if (!field || tep_find_field(event, "__probe_ip"))	/* a kprobe: decoded otherwise */
		return;
	f = tep_find_field(event, field);
	if (f && !(f->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
	    (f->size == 4 || f->size == 8) && f->offset >= 0 &&
	    td->ncalls < (int)(sizeof(td->calls) / sizeof(td->calls[0])))
		td->calls[td->ncalls++] = (typeof(td->calls[0])){ event->id, f->offset, f->size };
}

/*
 * The function address of @rec, of cross-call type @type, into *@addr, and the type's
 * index in calls[] into *@call: its slot in fn[], or -1.
 */
static int call_slot(const struct tracedat *td, const struct tep_record *rec, int type,
		     unsigned long long *addr, int *call)
{
	for (int i = 0; i < td->ncalls; i++) {
		if (td->calls[i].type != type)
			continue;
		if (td->calls[i].off + td->calls[i].size > rec->size)
			return -1;
		tep_load_num((const char *)rec->data + td->calls[i].off, td->calls[i].size,
			     td->bigendian, addr);
		*call = i;
		return (int)((*addr >> 4 ^ *addr >> 12 ^ (unsigned)i * 67) % FN_SLOTS);
	}
	return -1;
}

/* Whether @rec's function is a TLB flush (2), not one (1), or not known yet (0). */
static int call_fn(const struct tracedat *td, const struct tep_record *rec, int type)
{
	unsigned long long addr;
	int call, s = call_slot(td, rec, type, &addr, &call);

	return s >= 0 && td->fn[s].tlb && td->fn[s].addr == addr && td->fn[s].call == call ?
	       td->fn[s].tlb : 0;
}

/*
 * A record passed over: ts_source_only() left its kind out, known by its common_type alone
 * (a type's kind is the one its first record had, when it was decoded; so the type has an
 * event).  Neither the event's lookup nor its format is consulted.
 */
static bool left_out(const struct tracedat *td, const struct tep_record *rec)
{
	const struct tep_field_cache *fc = &td->fields;
	const unsigned char *p = rec->data;
	unsigned type, k;

	if (!td->type_kind || !td->returned || !fc->common_ok ||
	    fc->type_off + fc->type_size > rec->size)
		return false;
	p += fc->type_off;
	switch (fc->type_size) {
	case 1:
		type = p[0];
		break;
	case 2:
		type = fc->common_big ? (unsigned)p[0] << 8 | p[1] : (unsigned)p[1] << 8 | p[0];
		break;
	default:	/* 4: the type is 16 bits */
		type = fc->common_big ? (p[0] | p[1] ? TYPES : (unsigned)p[2] << 8 | p[3]) :
		       (p[2] | p[3] ? TYPES : (unsigned)p[1] << 8 | p[0]);
		break;
	}
	k = type < TYPES ? td->type_kind[type] : 0;
	if (!k)
		return false;
	if (!(td->only >> (k - 1) & 1))
		return true;
	return k == TS_EV_IPI + 1 && td->flush_ipis_only && call_fn(td, rec, (int)type) == 1;
}

enum { PASSED_OVER = 2 };

/* tracedat_next()'s one record: 1 an event, 0 the end, -1 bad input, or PASSED_OVER. */
static int next_record(struct ts_source *src, struct ts_event *ev)
{
	struct tracedat *td = src->priv;
	struct tep_record *rec = NULL;
	struct tep_event *event;
	const char *comm;
	unsigned long long len;
	char why[160];
	int cpu = -1;

	if (!td->merge_decided) {
		td->merge_decided = true;
		if (td->ncpus > 0 && ts_merge_wanted(td->ncpus)) {
			/* the heads as opened; from here on head_next() keeps the heap */
			ts_merge_init(&td->merge, td->ncpus);
			for (int i = 0; i < td->ncpus; i++)
				if (td->heads[i])
					ts_merge_set(&td->merge, i, td->heads[i]->ts);
			td->merge_made = true;
		}
	}
	if (td->merge_made) {
		cpu = ts_merge_first(&td->merge);
		rec = cpu >= 0 ? td->heads[cpu] : NULL;
	} else {
		for (int i = 0; i < td->ncpus; i++) {
			if (td->heads[i] && (!rec || td->heads[i]->ts < rec->ts)) {
				rec = td->heads[i];
				cpu = i;
			}
		}
	}
	if (!rec)
		return 0;
	if (rec->missed_events && !td->lost_told[cpu]) {
		/* -1: the kernel knows events were lost but not how many */
		td->lost_told[cpu] = true;
		td->returned = true;
		ev->ts = rec->ts;
		ev->cpu = cpu;
		ev->tgid = -1;
		ev->kind = TS_EV_LOST;
		ev->pid = -1;
		ev->u.lost.count = rec->missed_events > 0 ? (uint64_t)rec->missed_events : 0;
		return 1;
	}
	td->nrecords++;
	/*
	 * The library takes a record's length from the file: past its sub-buffer, it is not
	 * one.  Its size is an int of the length word's bytes, negative for a huge word: that
	 * is told as the unsigned bytes the word claims, and before the lower bound below.
	 */
	len = (uint32_t)rec->size;
	if (rec->size < 0 || (td->page_size > 0 &&
	    in_subbuf(td, rec->offset) + len > (unsigned)td->page_size)) {
		ts_source_fail(src, "cpu %d, record %llu (offset %llu): %llu bytes run past the "
			       "%d-byte sub-buffer", cpu, (unsigned long long)td->nrecords,
			       rec->offset, len, td->page_size);
		return -1;
	}
	/* common_type, flags, preempt_count, common_pid: read before any format is consulted */
	if (len < 8) {
		ts_source_fail(src, "cpu %d, record %llu (offset %llu): %llu bytes, shorter than "
			       "the common fields", cpu, (unsigned long long)td->nrecords,
			       rec->offset, len);
		return -1;
	}
	/* @ev untouched: tracedat_next() hands the next one in it */
	if (left_out(td, rec)) {
		td->lost_told[cpu] = false;
		return head_next(src, td, cpu) ? -1 : PASSED_OVER;
	}
	event = tep_event_of(&td->fields, td->tep, rec);
	if (!event) {
		ts_source_fail(src, "cpu %d, record %llu (offset %llu): unknown event type", cpu,
			       (unsigned long long)td->nrecords, rec->offset);
		return -1;
	}
	ev->ts = rec->ts;
	ev->cpu = cpu;
	ev->tgid = -1;
	ev->pid = tep_record_pid(&td->fields, td->tep, rec);
	/* comm_of() keeps names NUL-terminated in TS_COMM_LEN bytes */
	comm = ev->pid == 0 ? "<idle>" : comm_of(src, td, ev->pid);
	memcpy(ev->comm, comm, ev->pid == 0 ? sizeof("<idle>") : TS_COMM_LEN);
	if (td->tpf.ctx) {
		tep_fields_rebind(&td->tpf, &td->fc, event, rec);
	} else {
		td->fc = (struct tep_fields){ .tep = td->tep, .cache = &td->fields,
					      .bigendian = td->bigendian, .event = event,
					      .rec = rec };
		tep_fields_bind(&td->tpf, &td->fc, src);
	}
	if (tp_decode(src, event->name, &td->tpf, ev, why, sizeof(why))) {
		ts_source_fail(src, "cpu %d, record %llu (offset %llu): %s", cpu,
			       (unsigned long long)td->nrecords, rec->offset, why);
		return -1;
	}
	if (td->late_error)
		return -1;
	td->lost_told[cpu] = false;
	if (td->type_kind) {
		if ((unsigned)event->id < TYPES && !td->type_kind[event->id]) {
			td->type_kind[event->id] = (uint8_t)(ev->kind + 1);
			if (ev->kind == TS_EV_IPI)
				learn_call(td, event);
		}
		if (td->flush_ipis_only && ev->kind == TS_EV_IPI) {
			unsigned long long addr;
			int call, s = call_slot(td, rec, event->id, &addr, &call);

			if (s >= 0) {
				td->fn[s].addr = addr;
				td->fn[s].call = (uint8_t)call;
				td->fn[s].tlb = ev->flags & TS_F_TLB ? 2 : 1;
			}
		}
		if (td->returned && !(td->only >> ev->kind & 1)) {
			memset(ev, 0, sizeof(*ev));	/* as ts_source_next() hands it */
			return head_next(src, td, cpu) ? -1 : PASSED_OVER;
		}
	}
	td->returned = true;
	return head_next(src, td, cpu) ? -1 : 1;
}

static int tracedat_next(struct ts_source *src, struct ts_event *ev)
{
	int r;

	while ((r = next_record(src, ev)) == PASSED_OVER)
		;
	return r;
}

static bool tracedat_only(struct ts_source *src, uint32_t kinds)
{
	struct tracedat *td = src->priv;

	if (!td->type_kind)
		td->type_kind = xcalloc(TYPES, 1);
	td->flush_ipis_only = kinds & TS_ONLY_FLUSH_IPIS;
	td->only = (kinds & ~TS_ONLY_FLUSH_IPIS) | 1u << TS_EV_LOST;
	return true;
}

/*
 * Each CPU's records walked for their timestamps alone (the first of each is its head):
 * the merge, the formats and the decoding are what reading the events costs.
 */
static int tracedat_span(struct ts_source *src, uint64_t *first, uint64_t *last)
{
	struct tracedat *td = src->priv;
	bool some = false;

	*first = UINT64_MAX;
	*last = 0;
	for (int cpu = 0; cpu < td->ncpus; cpu++) {
		if (!td->heads[cpu])
			continue;
		some = true;
		if (td->heads[cpu]->ts < *first)
			*first = td->heads[cpu]->ts;
		while (td->heads[cpu]) {
			if (td->heads[cpu]->ts > *last)
				*last = td->heads[cpu]->ts;
			if (head_next(src, td, cpu))
				return -1;
		}
	}
	return some;
}

static void tracedat_close(struct ts_source *src)
{
	struct tracedat *td = src->priv;

	if (!td)
		return;
	for (int cpu = 0; td->heads && !td->dc && cpu < td->ncpus; cpu++)
		tracecmd_free_record(td->heads[cpu]);
	direct_release(td);
	if (td->own)
		tep_free(td->tep);
	tdc_ksyms_free(td->layout.meta.ksyms);
	td->layout.meta.ksyms = NULL;
	tdc_layout_release(&td->layout);
	free(td->heads);
	ts_merge_release(&td->merge);
	free(td->lost_told);
	free(td->type_kind);
	free(td->kprobes);
	if (td->top)
		tracedat_guard(src, "the file with libtracecmd (closing it)");
	if (td->in && td->in != td->top)
		tracecmd_close(td->in);
	if (td->top)
		tracecmd_close(td->top);
	tracedat_unguard();
	free(td);
}

const struct ts_format ts_format_tracedat = {
	.name = "trace.dat",
	.probe = tracedat_probe,
	.needs_file = true,
	.open = tracedat_open,
	.next = tracedat_next,
	.span = tracedat_span,
	.only = tracedat_only,
	.close = tracedat_close,
};
