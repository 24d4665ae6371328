/*
 * tlbscope corpus guest: the workloads, look-alikes of the benchmarks of the lazy-flush and
 * Svvptc series (hackbench, LTP mmapstress01, lmbench lat_pagefault / lat_mmap), a fork/exec
 * mix and the lazy kernel's correctness check; run by init.c's main as the kernel command
 * line's tlbscope.workload= says.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guest.h"

/* ---------- workloads (look-alikes of the seeds' benchmarks) ---------- */

static void xwrite(int fd, const void *b, size_t n)
{
	while (n) {
		ssize_t r = write(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(2);
		b = (const char *)b + r;
		n -= r;
	}
}

static void xread(int fd, void *b, size_t n)
{
	while (n) {
		ssize_t r = read(fd, b, n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			_exit(3);
		b = (char *)b + r;
		n -= r;
	}
}

/* data-check failures seen by the workloads (children: non-zero exit) */
long check_failures;

static void reap(int n)
{
	int st;
	pid_t p;
	while (n-- > 0 && (p = wait(&st)) > 0)
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			check_failures++;
			if (WIFEXITED(st))
				say("child %d: exit status %d\n", (int)p, WEXITSTATUS(st));
			else
				say("child %d: killed by signal %d\n", (int)p, WIFSIGNALED(st) ? WTERMSIG(st) : -1);
		}
}

/*
 * hackbench-like: G groups, each of F receiver and F sender processes
 * (fork); every sender sends L messages of MSG bytes to every receiver of its
 * group over pipes (one pipe per receiver, as hackbench -pipe).
 */
static void hackbench_round(int G, int F, int L, int M, double *secs, int *procs)
{
	int start_pipe[2], ready[2];
	pipe(start_pipe);
	pipe(ready);
	int nproc = 0;
	for (int g = 0; g < G; g++) {
		int fds[64][2];
		for (int r = 0; r < F; r++) {
			if (pipe(fds[r]) < 0)
				die_off("pipe");
		}
		for (int r = 0; r < F; r++) {
			pid_t p = fork();
			if (p == 0) {
				char b[4096];
				char c = 1;
				xwrite(ready[1], &c, 1);
				xread(start_pipe[0], &c, 1);
				int bad = 0;
				for (long i = 0; i < (long)F * L; i++) {
					xread(fds[r][0], b, M);
					for (int k = 0; k < M; k++)
						bad |= b[k] != 's';
				}
				_exit(bad ? 4 : 0);
			}
			nproc++;
		}
		for (int s = 0; s < F; s++) {
			pid_t p = fork();
			if (p == 0) {
				char b[4096];
				char c = 1;
				memset(b, 's', sizeof b);
				xwrite(ready[1], &c, 1);
				xread(start_pipe[0], &c, 1);
				for (int i = 0; i < L; i++)
					for (int r = 0; r < F; r++)
						xwrite(fds[r][1], b, M);
				_exit(0);
			}
			nproc++;
		}
		for (int r = 0; r < F; r++) {
			close(fds[r][0]);
			close(fds[r][1]);
		}
	}
	char c;
	for (int i = 0; i < nproc; i++)
		xread(ready[0], &c, 1);
	double t0 = now();
	char *go = calloc(nproc, 1);
	xwrite(start_pipe[1], go, nproc);
	reap(nproc);
	*secs += now() - t0;
	*procs += nproc;
	free(go);
	close(start_pipe[0]);
	close(start_pipe[1]);
	close(ready[0]);
	close(ready[1]);
}

/* R rounds of hackbench (as running the benchmark R times in a row) */
void hackbench_like(char *info, size_t infosz)
{
	int G = iparam("groups", 4), F = iparam("fds", 10), L = iparam("loops", 50);
	int M = iparam("msg", 100), R = iparam("rounds", 1);
	if (F > 64)
		F = 64;
	snprintf(info, infosz, "hackbench-like: rounds=%d groups=%d fds=%d loops=%d msg=%d (processes, pipes)", R, G, F, L, M);
	say("%s\n", info);
	double secs = 0;
	int procs = 0;
	for (int r = 0; r < R; r++)
		hackbench_round(G, F, L, M, &secs, &procs);
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s in the message phases (%d processes in all)", secs, procs);
}

/*
 * mmapstress-like: T threads of one process; each iteration maps P anonymous
 * pages, touches them, mprotects them read-only and back, and unmaps them.
 */
static int ms_iters, ms_pages;

static long ms_bad;

static void *mmapstress_thread(void *arg)
{
	long pg = sysconf(_SC_PAGESIZE);
	long tid = (long)arg;
	for (int i = 0; i < ms_iters; i++) {
		size_t len = (size_t)ms_pages * pg;
		char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			die_off("mmap");
		/* pattern of this thread and iteration: a stale translation to
		 * another mapping's (freed, reused) page shows as a mismatch */
		char pat = (char)(tid * 31 + i * 7 + 1);
		for (size_t o = 0; o < len; o += pg)
			m[o] = (char)(pat + o / pg);
		mprotect(m, len, PROT_READ);
		volatile char sum = 0;
		int bad = 0;
		for (size_t o = 0; o < len; o += pg) {
			sum += m[o];
			bad |= m[o] != (char)(pat + o / pg);
		}
		mprotect(m, len, PROT_READ | PROT_WRITE);
		bad |= m[len - pg] != (char)(pat + (len - pg) / pg);
		m[0] = sum;
		munmap(m, len);
		if (bad)
			__atomic_add_fetch(&ms_bad, 1, __ATOMIC_RELAXED);
		if ((i & 7) == 7)
			sched_yield();
	}
	(void)arg;
	return NULL;
}

void mmapstress_like(char *info, size_t infosz)
{
	int T = iparam("threads", 8);
	ms_iters = iparam("iters", 200);
	ms_pages = iparam("pages", 16);
	snprintf(info, infosz, "mmapstress-like: threads=%d iters=%d pages=%d (mmap, touch, mprotect RO/RW, munmap)", T, ms_iters, ms_pages);
	say("%s\n", info);
	double t0 = now();
	pid_t p = fork();
	if (p == 0) {
		pthread_t th[256];
		for (int i = 0; i < T; i++)
			pthread_create(&th[i], NULL, mmapstress_thread, (void *)(long)i);
		for (int i = 0; i < T; i++)
			pthread_join(th[i], NULL);
		if (ms_bad)
			say("mmapstress: %ld data mismatches\n", ms_bad);
		_exit(ms_bad ? 4 : 0);
	}
	reap(1);
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s", now() - t0);
}

/* tlbscope.maphint=ADDR: the address hint of the lat_* and mmapstress01 file
 * mappings (no MAP_FIXED). A 2 MB-aligned hint keeps a mapping of up to 2 MB
 * inside one page-table page, so that a munmap is one flush range on every
 * kernel (without it the split of the range between two PTE pages, hence the
 * number of per-page fences, depends on where the mapping happens to fall). */
static void *map_hint(void)
{
	return (void *)(uintptr_t)iparam("maphint", 0);
}

/* a P-page file in tmpfs for the lat_* look-alikes */
static int make_file(const char *path, long pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		die_off("create file");
	char *b = malloc(pg);
	memset(b, 'x', pg);
	for (long i = 0; i < pages; i++)
		xwrite(fd, b, pg);
	free(b);
	return fd;
}

/*
 * lat_pagefault-like: N processes each map a P-page tmpfs file and take a
 * read fault on every page (lmbench touches with a stride), then unmap; I times.
 * lat_mmap-like: the same, but map/touch/unmap is the measured unit, every
 * 16th page touched (lmbench lat_mmap touches each 16 KB).
 */
void lat_like(char *info, size_t infosz, int mmap_variant)
{
	int N = iparam("procs", 2), I = iparam("iters", 50), P = iparam("pages", 256);
	long pg = sysconf(_SC_PAGESIZE);
	int step = mmap_variant ? 4 : 1;
	snprintf(info, infosz, "%s: procs=%d iters=%d pages=%d%s (tmpfs file, MAP_SHARED, %s)",
		 mmap_variant ? "lat_mmap-like" : "lat_pagefault-like", N, I, P, map_hint() ? " maphint" : "",
		 mmap_variant ? "touch every 4th page" : "read-fault every page");
	say("%s\n", info);
	double t0 = now();
	for (int n = 0; n < N; n++) {
		if (fork() == 0) {
			char path[64];
			snprintf(path, sizeof path, "/tmp/lat.%d", n);
			int fd = make_file(path, P);
			volatile char sum = 0;
			for (int i = 0; i < I; i++) {
				char *m = mmap(map_hint(), P * pg, PROT_READ | (mmap_variant ? PROT_WRITE : 0), MAP_SHARED, fd, 0);
				if (m == MAP_FAILED)
					die_off("mmap file");
				for (long p = 0; p < P; p += step)
					sum += m[p * pg];
				if (mmap_variant)
					m[0] = sum;
				munmap(m, P * pg);
			}
			close(fd);
			unlink(path);
			_exit(0);
		}
	}
	reap(N);
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s", now() - t0);
}

/*
 * fork/exec mix: N workers; each iteration forks a child that either execs
 * /init as "forkexec-child" (which touches P pages and exits) or, every other
 * time, touches P pages of a copy-on-write buffer and exits without exec.
 */
void forkexec_child(int pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < pages; i++)
		m[i * pg] = 1;
	munmap(m, pages * pg);
	_exit(0);
}

void forkexec_mix(char *info, size_t infosz)
{
	int N = iparam("procs", 4), I = iparam("iters", 30), P = iparam("pages", 32);
	long pg = sysconf(_SC_PAGESIZE);
	snprintf(info, infosz, "fork/exec mix: procs=%d iters=%d pages=%d (fork+exec and fork+COW children)", N, I, P);
	say("%s\n", info);
	double t0 = now();
	for (int n = 0; n < N; n++) {
		if (fork() == 0) {
			char *buf = malloc(P * pg);
			memset(buf, 1, P * pg);
			for (int i = 0; i < I; i++) {
				pid_t c = fork();
				if (c == 0) {
					if (i & 1) {
						for (long p = 0; p < P; p++)
							buf[p * pg] = 2;
						_exit(0);
					}
					char pa[16];
					snprintf(pa, sizeof pa, "%d", P);
					execl("/init", "/init", "forkexec-child", pa, (char *)NULL);
					_exit(127);
				}
				int st;
				waitpid(c, &st, 0);
				buf[(i % P) * pg] = 3; /* COW break in the parent */
			}
			_exit(0);
		}
	}
	reap(N);
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s", now() - t0);
}

/*
 * tlbcheck: a stale-TLB detector. P processes of T threads. In each process
 * thread 0 remaps a region of N pages at the same address (mmap MAP_FIXED:
 * the old pages are unmapped, flushed and freed) and fills every page with
 * (generation << 32 | page index), under a sequence counter (odd while
 * remapping). The other threads read all pages between two equal even
 * sequence values and check every word: a translation left stale by a
 * missed or late flush reads the old (freed, maybe reused) page: mismatch.
 * More threads than CPUs, so threads are switched out and back (deferred
 * flushes at switch_mm) as well as running (IPIs).
 */
struct tc_proc {
	char *base;
	long pages;
	int iters;
	volatile unsigned long seq;
	volatile int done;
	volatile int started;
	long bad, checks;
};

static void tlbcheck_verify(struct tc_proc *tp, unsigned long s1, const uint64_t *v)
{
	for (long p = 0; p < tp->pages; p++)
		if (v[p] != ((uint64_t)(s1 / 2) << 32 | (uint64_t)p))
			__atomic_add_fetch(&tp->bad, 1, __ATOMIC_RELAXED);
	__atomic_add_fetch(&tp->checks, 1, __ATOMIC_RELAXED);
}

static void *tlbcheck_reader(void *arg)
{
	struct tc_proc *tp = arg;
	long pg = sysconf(_SC_PAGESIZE);
	unsigned long n = 0;
	__atomic_add_fetch(&tp->started, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&tp->done, __ATOMIC_ACQUIRE)) {
		unsigned long s1 = __atomic_load_n(&tp->seq, __ATOMIC_ACQUIRE);
		if (s1 & 1) {
			sched_yield();
			continue;
		}
		uint64_t v[64];
		for (long p = 0; p < tp->pages; p++)
			v[p] = *(volatile uint64_t *)(tp->base + p * pg + (p * 8 % pg));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		unsigned long s2 = __atomic_load_n(&tp->seq, __ATOMIC_RELAXED);
		if (s1 != s2)
			continue;
		tlbcheck_verify(tp, s1, v);
		if ((++n & 3) == 0)
			sched_yield();
	}
	{	/* and once more on the final, stable generation */
		uint64_t v[64];
		unsigned long s1 = __atomic_load_n(&tp->seq, __ATOMIC_ACQUIRE);
		for (long p = 0; p < tp->pages; p++)
			v[p] = *(volatile uint64_t *)(tp->base + p * pg + (p * 8 % pg));
		tlbcheck_verify(tp, s1, v);
	}
	return NULL;
}

static void tlbcheck_proc(int T, int I, long N)
{
	long pg = sysconf(_SC_PAGESIZE);
	static struct tc_proc tp;
	tp.pages = N;
	tp.iters = I;
	tp.base = mmap(NULL, N * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (tp.base == MAP_FAILED)
		_exit(5);
	for (long p = 0; p < N; p++)
		*(uint64_t *)(tp.base + p * pg + (p * 8 % pg)) = (uint64_t)p; /* generation 0 */
	pthread_t th[64];
	for (int t = 1; t < T; t++)
		pthread_create(&th[t], NULL, tlbcheck_reader, &tp);
	while (__atomic_load_n(&tp.started, __ATOMIC_ACQUIRE) < T - 1)
		sched_yield();
	for (int g = 1; g <= I; g++) {
		__atomic_store_n(&tp.seq, 2 * g - 1, __ATOMIC_RELEASE);
		char *m = mmap(tp.base, N * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (m != tp.base)
			_exit(5);
		for (long p = 0; p < N; p++)
			*(uint64_t *)(m + p * pg + (p * 8 % pg)) = (uint64_t)g << 32 | (uint64_t)p;
		if (g & 1) { /* and a protection change on the live pages */
			mprotect(m, N * pg, PROT_READ);
			mprotect(m, N * pg, PROT_READ | PROT_WRITE);
		}
		__atomic_store_n(&tp.seq, 2 * g, __ATOMIC_RELEASE);
		sched_yield();
	}
	__atomic_store_n(&tp.done, 1, __ATOMIC_RELEASE);
	for (int t = 1; t < T; t++)
		pthread_join(th[t], NULL);
	say("tlbcheck pid %d: %ld mismatches in %ld checks\n", getpid(), tp.bad, tp.checks);
	_exit(tp.bad ? 4 : 0);
}

void tlbcheck(char *info, size_t infosz)
{
	int P = iparam("procs", 8), T = iparam("threads", 3), I = iparam("iters", 300);
	long N = iparam("pages", 8);
	if (T > 64)
		T = 64;
	if (T < 2)
		T = 2;
	if (N > 64)
		N = 64;
	snprintf(info, infosz, "tlbcheck: procs=%d threads=%d iters=%d pages=%ld (remap at a fixed address under a seqcount, readers verify every page)", P, T, I, N);
	say("%s\n", info);
	double t0 = now();
	for (int n = 0; n < P; n++)
		if (fork() == 0)
			tlbcheck_proc(T, I, N);
	reap(P);
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s", now() - t0);
}

/*
 * mmapstress01: the shape of LTP's mmapstress01 (testcases/kernel/mem/
 * mmapstress/mmapstress01.c), written for this guest. N slots of processes
 * (N > CPUs) share one MAP_SHARED mapping of a P-page tmpfs file. The child
 * of slot k maps the whole file, then L times picks a random page and writes
 * the byte (k + 1) at offset k of that page, reads it back and compares; every
 * R accesses it unmaps the file and maps it again (fresh faults, a range flush
 * at each munmap). When a child exits the parent forks the next one of that
 * slot, G children per slot in all. At the end the parent reads the file:
 * in every page the byte at offset k must be 0 (never written) or k + 1, all
 * the other bytes 0.
 */
static int ms01_child(int fd, int k, int gen, long P, int L, int R)
{
	long pg = sysconf(_SC_PAGESIZE);
	unsigned int seed = 0x9e3779b9u * (unsigned)(k + 1) + 7919u * (unsigned)gen;
	char *m = mmap(map_hint(), P * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 5;
	int bad = 0;
	for (int i = 0; i < L; i++) {
		if (R && i && i % R == 0) {
			munmap(m, P * pg);
			m = mmap(map_hint(), P * pg, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
			if (m == MAP_FAILED)
				return 5;
		}
		long r = rand_r(&seed) % P;
		volatile char *b = m + r * pg + k;
		*b = (char)(k + 1);
		bad |= *b != (char)(k + 1);
		bad |= m[r * pg + pg - 1] != 0; /* nobody writes the last byte */
	}
	munmap(m, P * pg);
	return bad ? 4 : 0;
}

void mmapstress01(char *info, size_t infosz)
{
	int N = iparam("procs", 10), G = iparam("gens", 3), L = iparam("loops", 300), R = iparam("remap", 100);
	long P = iparam("pages", 64);
	long pg = sysconf(_SC_PAGESIZE);
	if (N > 255)
		N = 255;
	snprintf(info, infosz, "mmapstress01 (LTP shape): procs=%d gens=%d loops=%d remap=%d pages=%ld maphint=%p "
		 "(one MAP_SHARED tmpfs file; random page writes of each slot's byte, munmap/mmap every %d accesses; "
		 "a slot's child that exits is replaced, %d children in all)", N, G, L, R, P, map_hint(), R, N * G);
	say("%s\n", info);
	int fd = open("/tmp/mmapstress01.out", O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, P * pg) < 0)
		die_off("mmapstress01 file");
	double t0 = now();
	pid_t slot[256];
	int gen[256];
	for (int k = 0; k < N; k++) {
		gen[k] = 0;
		slot[k] = fork();
		if (slot[k] == 0)
			_exit(ms01_child(fd, k, 0, P, L, R));
	}
	int running = N;
	while (running > 0) {
		int st;
		pid_t p = wait(&st);
		if (p < 0)
			break;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			check_failures++;
			say("mmapstress01 child %d: status 0x%x\n", (int)p, st);
		}
		int k;
		for (k = 0; k < N && slot[k] != p; k++)
			;
		if (k == N)
			continue;
		if (++gen[k] < G) {
			slot[k] = fork();
			if (slot[k] == 0)
				_exit(ms01_child(fd, k, gen[k], P, L, R));
		} else {
			slot[k] = -1;
			running--;
		}
	}
	double t1 = now();
	/* the parent's check of the file contents */
	char *buf = malloc(pg);
	long written = 0, badbytes = 0;
	for (long r = 0; r < P; r++) {
		if (pread(fd, buf, pg, r * pg) != pg)
			die_off("mmapstress01 read back");
		for (long o = 0; o < pg; o++) {
			char c = buf[o];
			if (o < N && c == (char)(o + 1))
				written++;
			else if (c != 0)
				badbytes++;
		}
	}
	free(buf);
	close(fd);
	unlink("/tmp/mmapstress01.out");
	if (badbytes)
		check_failures++;
	size_t l = strlen(info);
	snprintf(info + l, infosz - l, "\nTime: %.3f s\nFile check: %s (%ld slot bytes written, %ld wrong bytes in %ld pages)",
		 t1 - t0, badbytes ? "FAILED" : "ok", written, badbytes, P);
	say("mmapstress01 file check: %s (%ld written, %ld wrong)\n", badbytes ? "FAILED" : "ok", written, badbytes);
}

