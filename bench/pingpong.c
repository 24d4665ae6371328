// SPDX-License-Identifier: GPL-2.0-only
/*
 * bench/jobs.sh's look at the machine: how long a cache line takes to go from one thread to
 * another and back, the two threads spinning on it (each on a CPU of its own when the
 * machine gives it one).  What a hand-over of report's events to its analyses' thread pays
 * per line (cli/model-thread.c), and on a virtual machine it changes with where the host
 * puts the virtual CPUs: print the median of ROUNDS rounds of TRIPS round trips, in ns
 * ("n/a" with one CPU).
 *   usage: pingpong
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define TRIPS	200000
#define ROUNDS	5

static uint64_t line[8] __attribute__((aligned(64)));

static void *pong(void *arg)
{
	for (uint64_t i = 0; i < (uint64_t)TRIPS * ROUNDS; i++) {
		while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != 2 * i + 1)
			;
		__atomic_store_n(&line[0], 2 * i + 2, __ATOMIC_RELEASE);
	}
	return arg;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	double ns[ROUNDS];
	pthread_t th;
	uint64_t i = 0;

	/* with one CPU each trip would wait for the scheduler: nothing to measure */
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		printf("n/a\n");
		return 0;
	}
	if (pthread_create(&th, NULL, pong, NULL)) {
		fprintf(stderr, "pingpong: no thread\n");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		double t0 = now();

		for (int k = 0; k < TRIPS; k++, i++) {
			__atomic_store_n(&line[0], 2 * i + 1, __ATOMIC_RELEASE);
			while (__atomic_load_n(&line[0], __ATOMIC_ACQUIRE) != 2 * i + 2)
				;
		}
		ns[r] = (now() - t0) / TRIPS * 1e9;
	}
	pthread_join(th, NULL);
	qsort(ns, ROUNDS, sizeof(ns[0]), cmp);
	printf("%.0f\n", ns[ROUNDS / 2]);
	return 0;
}
