// SPDX-License-Identifier: GPL-2.0-only
/*
 * A load that makes remote TLB flushes for sure: one thread per CPU, pinned, in one
 * process.  The thread on the first CPU maps a page, writes it and unmaps it, over and
 * over; the others spin in user space, so their CPUs keep running the mm and each munmap()
 * has to flush them (an IPI, or an SBI call on RISC-V).  hackbench alone may not: on an
 * idle x86 machine its processes rarely share an mm across CPUs.
 *   usage: shootdown SECONDS
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static atomic_bool stop;
static atomic_ulong spins;

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *spinner(void *arg)
{
	pin((int)(long)arg);
	while (!atomic_load_explicit(&stop, memory_order_relaxed))
		atomic_fetch_add_explicit(&spins, 1, memory_order_relaxed);
	return NULL;
}

int main(int argc, char **argv)
{
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN), page = sysconf(_SC_PAGESIZE);
	double seconds = argc > 1 ? atof(argv[1]) : 0;
	struct timespec t0, now;
	unsigned long rounds = 0;
	pthread_t *th;

	if (argc != 2 || seconds <= 0) {
		fprintf(stderr, "usage: shootdown SECONDS\n");
		return 2;
	}
	if (ncpu < 1)
		ncpu = 1;
	th = calloc((size_t)ncpu, sizeof(*th));
	if (!th)
		return 1;
	for (long c = 1; c < ncpu; c++)
		if (pthread_create(&th[c], NULL, spinner, (void *)c)) {
			perror("shootdown: pthread_create");
			return 1;
		}
	pin(0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		char *p = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			perror("shootdown: mmap");
			return 1;
		}
		p[0] = 1;
		munmap(p, (size_t)page);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while (now.tv_sec - t0.tv_sec + (now.tv_nsec - t0.tv_nsec) / 1e9 < seconds);
	atomic_store(&stop, true);
	for (long c = 1; c < ncpu; c++)
		pthread_join(th[c], NULL);
	free(th);
	printf("%lu munmaps\n", rounds);
	return 0;
}
