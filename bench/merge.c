// SPDX-License-Identifier: GPL-2.0-only
/*
 * The merge of per-CPU streams (parsers/merge.c) against the scan of every CPU's next
 * record that the readers keep up to MERGE_SCAN_CPUS: where the two cross, and what the
 * scan costs on machines of many CPUs, for which no trace exists here.  Each CPU's
 * stream rises by random steps, so the CPUs interleave as busy ones do.  Prints, per CPU
 * count, ns per record picked by each and their ratio (best of ROUNDS); the two must pick
 * the same records (a checksum of the CPUs picked), or it exits 1.
 *   usage: merge
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "../parsers/merge.h"

#define RECORDS	(1 << 21)	/* picked per run */
#define ROUNDS	5

struct head {
	uint64_t ts;
};

static uint64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static uint64_t step(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s % 1000;	/* ns to a CPU's next record; 0 now and then: a tie */
}

/* as tracedat.c's scan: heads[] pointers, NULL drained; returns a checksum of the picks */
static uint64_t run_scan(int n, uint64_t *ns)
{
	struct head *h = calloc(n, sizeof(*h)), **heads = calloc(n, sizeof(*heads));
	uint64_t seed = 42, sum = 0, t0;

	for (int i = 0; i < n; i++) {
		h[i].ts = step(&seed);
		heads[i] = &h[i];
	}
	t0 = now_ns();
	for (int k = 0; k < RECORDS; k++) {
		struct head *rec = NULL;
		int cpu = -1;

		for (int i = 0; i < n; i++) {
			if (heads[i] && (!rec || heads[i]->ts < rec->ts)) {
				rec = heads[i];
				cpu = i;
			}
		}
		sum = sum * 31 + (uint64_t)cpu;
		rec->ts += step(&seed);
	}
	*ns = now_ns() - t0;
	free(h);
	free(heads);
	return sum;
}

static uint64_t run_heap(int n, uint64_t *ns)
{
	struct head *h = calloc(n, sizeof(*h));
	uint64_t seed = 42, sum = 0, t0;
	struct ts_merge m;

	ts_merge_init(&m, n);
	for (int i = 0; i < n; i++) {
		h[i].ts = step(&seed);
		ts_merge_set(&m, i, h[i].ts);
	}
	t0 = now_ns();
	for (int k = 0; k < RECORDS; k++) {
		int cpu = ts_merge_first(&m);

		sum = sum * 31 + (uint64_t)cpu;
		h[cpu].ts += step(&seed);
		ts_merge_set(&m, cpu, h[cpu].ts);
	}
	*ns = now_ns() - t0;
	ts_merge_release(&m);
	free(h);
	return sum;
}

int main(void)
{
	static const int cpus[] = { 2, 4, 8, 12, 16, 24, 32, 64, 128, 256 };

	printf("%5s %12s %12s %10s\n", "CPUs", "scan ns/rec", "heap ns/rec", "heap/scan");
	for (size_t c = 0; c < sizeof(cpus) / sizeof(cpus[0]); c++) {
		uint64_t best_s = UINT64_MAX, best_h = UINT64_MAX, ns, a = 0, b = 0;

		for (int r = 0; r < ROUNDS; r++) {
			a = run_scan(cpus[c], &ns);
			if (ns < best_s)
				best_s = ns;
			b = run_heap(cpus[c], &ns);
			if (ns < best_h)
				best_h = ns;
		}
		if (a != b) {
			fprintf(stderr, "merge: %d CPUs: the heap picked other records than the "
				"scan\n", cpus[c]);
			return 1;
		}
		printf("%5d %12.2f %12.2f %10.2f\n", cpus[c], (double)best_s / RECORDS,
		       (double)best_h / RECORDS, (double)best_h / (double)best_s);
	}
	return 0;
}
