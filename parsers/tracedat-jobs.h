/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The per-CPU reading of a trace.dat's sub-buffers in worker threads (tracedat-jobs.c):
 * each worker walks its CPUs' sub-buffers (tracedat-walk.c) ahead of the reader into a few
 * batches per CPU, and the reader's thread takes each CPU's records from them in the order
 * it asks, as it would have read them itself: the same records, the same failure at the
 * same record, the same message.
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_JOBS_H
#define TLBSCOPE_PARSERS_TRACEDAT_JOBS_H

#include "tracedat-walk.h"

struct tdj_pool;

/*
 * tdj_pool_new - @nworkers threads (at most one per CPU with data) reading the @ncpus CPUs
 * of @f, each from the state in @cpus[i] (taken: its chunk moves to the pool, the entry is
 * left empty).  @src: whose file name the messages carry.  @f is borrowed and must not
 * change until tdj_pool_free().  NULL, with the message on @src, when no thread starts.
 */
struct tdj_pool *tdj_pool_new(struct ts_source *src, const struct tdw_file *f,
			      struct tdw_cpu *cpus, int ncpus, int nworkers);
/*
 * tdj_pool_next - CPU @cpu's next record into @rec (data borrowed until the next call for
 * @cpu; rec->data NULL: the CPU is drained).  0, or -1 with the message the reader would
 * have given on @src.
 */
int tdj_pool_next(struct tdj_pool *p, struct ts_source *src, int cpu, struct tep_record *rec);
/* Stops the workers wherever they are and frees everything; NULL is fine. */
void tdj_pool_free(struct tdj_pool *p);

#endif
