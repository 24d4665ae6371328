// SPDX-License-Identifier: GPL-2.0-only
/*
 * A trace.dat's CPUs read by worker threads (-j): each worker reads and inflates its CPUs'
 * sub-buffers and walks them (tracedat-walk.c) into batches, one chunk of sub-buffers and
 * the places of its records each, a few batches ahead per CPU; the reader's thread merges
 * the CPUs by timestamp as it always does and decodes each record itself (libtraceevent's
 * handle, the source's strings and probes stay on that one thread, so the stream is the
 * single-threaded reader's to the byte).  A failure is a batch's last word: the reader
 * meets it where it would have failed itself, after the same records.  Memory: at most
 * depth batches per CPU, whatever the trace's length.  Also the number of threads in
 * effect (ts_jobs_set(), -j).
 */
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "tracedat-jobs.h"

static int jobs;	/* ts_jobs_set()'s, 0: as many as this process has CPUs */

void ts_jobs_set(int n)
{
	jobs = n;
}

int ts_jobs(void)
{
	cpu_set_t set;
	long n;

	if (jobs > 0)
		return jobs;
	if (!sched_getaffinity(0, sizeof(set), &set))
		return CPU_COUNT(&set) > 0 ? CPU_COUNT(&set) : 1;
	n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static int reserved;	/* ts_jobs_reserve()'s */

void ts_jobs_reserve(int n)
{
	reserved = n;
}

int ts_jobs_readers(void)
{
	return jobs > 1 + reserved ? jobs - 1 - reserved : 0;
}

#define DEPTH_MAX	3	/* batches per CPU: one being read by the reader, two ahead */

/* A record's place in its batch's chunk: what the reader makes a tep_record of. */
struct tdj_rec {
	uint64_t ts, offset;
	uint32_t at;			/* its payload's offset in the chunk */
	int32_t size, missed;
};

struct tdj_batch {
	char *chunk;			/* one chunk of sub-buffers (tdw_chunk()) */
	size_t chunk_alloc;
	struct tdj_rec *rec;
	size_t nrec, rec_alloc;
	int end;			/* after its records: 0 more, 1 the CPU is done, -1 failed */
};

struct tdj_cpu {
	struct tdw_cpu walk;		/* its worker's alone */
	int worker;			/* -1: no data */
	struct tdj_batch b[DEPTH_MAX];	/* b[produced % depth] is the worker's to fill */
	unsigned produced, released;	/* batches out and given back: under the lock */
	bool finished;			/* the last batch is out (under the lock) */
	char err[TS_ERR_LEN];		/* the failure, written before its batch is out */
	bool have;			/* the reader's: it holds b[released % depth] */
	size_t at;			/* the reader's: its next record there */
};

struct tdj_worker {
	struct tdj_pool *pool;
	int index;
	pthread_t thread;
	pthread_cond_t wake;		/* a batch of one of its CPUs was given back */
	struct ts_source *esrc;		/* its messages, as the reader's source would have them */
	struct cur z;			/* its inflater */
};

struct tdj_pool {
	pthread_mutex_t lock;
	pthread_cond_t ready;		/* a batch is out */
	bool go, stop;
	const struct tdw_file *f;
	unsigned depth;
	int ncpus, nworkers, started;
	struct tdj_cpu *cpu;
	struct tdj_worker *w;
};

/* The next chunk of CPU @cpu's records into @b, unlocked: the slot is the worker's. */
static void batch_fill(struct tdj_worker *w, struct tdj_cpu *k, int cpu, struct tdj_batch *b)
{
	const struct tdw_file *f = w->pool->f;
	struct tdw_cpu *c = &k->walk;
	struct tep_record rec;
	int r;

	b->nrec = 0;
	c->chunk = b->chunk;
	c->chunk_alloc = b->chunk_alloc;
	/* where the reader's own walk stops for a chunk (tdw_next() 2), this one starts */
	r = tdw_chunk(w->esrc, f, &w->z, c, cpu);
	while (r > 0 && !(r = tdw_next(w->esrc, f, &w->z, c, cpu, false))) {
		r = 1;
		tdw_record(c, cpu, &rec);
		ALLOC_GROW(b->rec, b->nrec + 1, b->rec_alloc);
		b->rec[b->nrec++] = (struct tdj_rec){
			.ts = rec.ts, .offset = rec.offset, .size = rec.size,
			.at = (uint32_t)((const char *)rec.data - c->chunk),
			.missed = rec.missed_events,
		};
		rb_next(&c->sb);
	}
	/* r: 2 the chunk is done, 0 the CPU's data (tdw_chunk()), -1 failed */
	b->chunk = c->chunk;
	b->chunk_alloc = c->chunk_alloc;
	c->chunk = NULL;
	c->chunk_alloc = 0;
	b->end = r == 2 ? 0 : r == 0 ? 1 : -1;
	if (r < 0)
		strlcpy_ts(k->err, w->esrc->err, sizeof(k->err));
}

static void *worker_main(void *arg)
{
	struct tdj_worker *w = arg;
	struct tdj_pool *p = w->pool;

	pthread_mutex_lock(&p->lock);
	while (!p->go && !p->stop)
		pthread_cond_wait(&w->wake, &p->lock);
	while (!p->stop) {
		bool busy = false, left = false;

		/* a batch for each of its CPUs with room, in turn */
		for (int cpu = 0; cpu < p->ncpus && !p->stop; cpu++) {
			struct tdj_cpu *k = &p->cpu[cpu];
			struct tdj_batch *b;

			if (k->worker != w->index || k->finished)
				continue;
			left = true;
			if (k->produced - k->released >= p->depth)
				continue;
			b = &k->b[k->produced % p->depth];
			pthread_mutex_unlock(&p->lock);
			batch_fill(w, k, cpu, b);
			pthread_mutex_lock(&p->lock);
			k->produced++;
			k->finished = b->end != 0;
			pthread_cond_signal(&p->ready);
			busy = true;
		}
		if (!left)
			break;
		if (!busy && !p->stop)
			pthread_cond_wait(&w->wake, &p->lock);
	}
	pthread_mutex_unlock(&p->lock);
	return NULL;
}

/* Stop and join the workers started, free what they had. */
static void pool_stop(struct tdj_pool *p)
{
	pthread_mutex_lock(&p->lock);
	p->stop = true;
	for (int i = 0; i < p->started; i++)
		pthread_cond_signal(&p->w[i].wake);
	pthread_mutex_unlock(&p->lock);
	for (int i = 0; i < p->started; i++)
		pthread_join(p->w[i].thread, NULL);
	p->started = 0;
}

static void pool_release(struct tdj_pool *p)
{
	for (int i = 0; i < p->nworkers; i++) {
		pthread_cond_destroy(&p->w[i].wake);
		tdc_cur_release(&p->w[i].z);
		free(p->w[i].esrc);
	}
	for (int cpu = 0; cpu < p->ncpus; cpu++) {
		for (int i = 0; i < DEPTH_MAX; i++) {
			free(p->cpu[cpu].b[i].chunk);
			free(p->cpu[cpu].b[i].rec);
		}
		tdw_cpu_release(&p->cpu[cpu].walk);
	}
	pthread_cond_destroy(&p->ready);
	pthread_mutex_destroy(&p->lock);
	free(p->cpu);
	free(p->w);
	free(p);
}

struct tdj_pool *tdj_pool_new(struct ts_source *src, const struct tdw_file *f,
			      struct tdw_cpu *cpus, int ncpus, int nworkers)
{
	struct tdj_pool *p;
	sigset_t all, old;
	int with_data = 0;

	for (int cpu = 0; cpu < ncpus; cpu++)
		with_data += cpus[cpu].end > cpus[cpu].start;
	if (nworkers > with_data)
		nworkers = with_data;
	if (nworkers < 1)
		return NULL;
	p = xcalloc(1, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->ready, NULL);
	p->f = f;
	p->ncpus = ncpus;
	p->nworkers = nworkers;
	/* a chunk is 256 KiB uncompressed: three per CPU up to 32 CPUs with data, two past */
	p->depth = with_data <= 32 ? DEPTH_MAX : 2;
	p->cpu = xcalloc(ncpus, sizeof(*p->cpu));
	p->w = xcalloc(nworkers, sizeof(*p->w));
	for (int cpu = 0, n = 0; cpu < ncpus; cpu++) {
		p->cpu[cpu].walk = cpus[cpu];
		p->cpu[cpu].worker = cpus[cpu].end > cpus[cpu].start ? n++ % nworkers : -1;
	}
	for (int i = 0; i < nworkers; i++) {
		struct tdj_worker *w = &p->w[i];

		w->pool = p;
		w->index = i;
		pthread_cond_init(&w->wake, NULL);
		w->esrc = xcalloc(1, sizeof(*w->esrc));
		w->esrc->display = src->display;	/* borrowed: outlives the pool */
		w->esrc->fd = src->fd;
		tdc_cur_init(&w->z, w->esrc, f->fd, f->layout);
	}
	/* signals (the guard's alarm, Ctrl-C, a closed pipe) stay the reader's thread's */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	while (p->started < nworkers &&
	       !pthread_create(&p->w[p->started].thread, NULL, worker_main, &p->w[p->started]))
		p->started++;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (p->started < nworkers) {
		/* none has read anything: the states go back, the reader reads alone */
		pool_stop(p);
		for (int cpu = 0; cpu < ncpus; cpu++)
			memset(&p->cpu[cpu].walk, 0, sizeof(p->cpu[cpu].walk));
		pool_release(p);
		return NULL;
	}
	for (int cpu = 0; cpu < ncpus; cpu++)
		tdw_cpu_empty(&cpus[cpu]);	/* the chunk is the pool's now */
	pthread_mutex_lock(&p->lock);
	p->go = true;
	for (int i = 0; i < nworkers; i++)
		pthread_cond_signal(&p->w[i].wake);
	pthread_mutex_unlock(&p->lock);
	return p;
}

int tdj_pool_next(struct tdj_pool *p, struct ts_source *src, int cpu, struct tep_record *rec)
{
	struct tdj_cpu *k = &p->cpu[cpu];

	for (;;) {
		struct tdj_batch *b = &k->b[k->released % p->depth];

		if (k->worker < 0) {
			rec->data = NULL;
			return 0;
		}
		if (k->have) {
			if (k->at < b->nrec) {
				const struct tdj_rec *r = &b->rec[k->at++];

				*rec = (struct tep_record){
					.ts = r->ts, .cpu = cpu, .data = b->chunk + r->at,
					.size = r->size, .offset = r->offset,
					.missed_events = r->missed,
				};
				return 0;
			}
			if (b->end > 0) {
				rec->data = NULL;
				return 0;
			}
			if (b->end < 0) {
				strlcpy_ts(src->err, k->err, sizeof(src->err));
				return -1;
			}
			/* done with it: back to the worker */
			pthread_mutex_lock(&p->lock);
			k->released++;
			pthread_cond_signal(&p->w[k->worker].wake);
			pthread_mutex_unlock(&p->lock);
			k->have = false;
		}
		pthread_mutex_lock(&p->lock);
		while (k->produced == k->released)
			pthread_cond_wait(&p->ready, &p->lock);
		pthread_mutex_unlock(&p->lock);
		k->have = true;
		k->at = 0;
	}
}

void tdj_pool_free(struct tdj_pool *p)
{
	if (!p)
		return;
	pool_stop(p);
	pool_release(p);
}
