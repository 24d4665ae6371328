/*
 * tlbscope corpus guest: PID 1 of the RISC-V QEMU guest.
 *
 * Mounts proc/sys/devtmpfs/tracefs, creates the kprobes listed in
 * /etc/tlbscope/kprobe_events (generated on the host with struct offsets
 * derived from the built kernel), enables the tracepoints, runs the workload
 * named on the kernel command line, then dumps the raw per-CPU ring buffers
 * plus everything `trace-cmd restore` needs into a ustar archive written to
 * the raw virtio disk /dev/vda, and powers off.
 *
 * Kernel command line keys (all optional):
 *   tlbscope.workload=hackbench|mmapstress|mmapstress01|pagefault|mmap|forkexec|tlbcheck|boot|none
 *   tlbscope.buf=KB           per-CPU ring buffer size (default 8192)
 *   tlbscope.cpus=N           expected online CPUs (checked, recorded)
 *   tlbscope.aslr=0           randomize_va_space=0 (same addresses on every kernel)
 *   tlbscope.maphint=ADDR     address hint of the pagefault/mmap/mmapstress01 file mappings
 *   hackbench:  tlbscope.rounds=R tlbscope.groups=G tlbscope.fds=F tlbscope.loops=L tlbscope.msg=BYTES
 *   mmapstress: tlbscope.threads=T tlbscope.iters=I tlbscope.pages=P
 *   pagefault:  tlbscope.iters=I tlbscope.pages=P tlbscope.procs=N
 *   mmap:       tlbscope.iters=I tlbscope.pages=P tlbscope.procs=N
 *   forkexec:   tlbscope.procs=N tlbscope.iters=I tlbscope.pages=P
 *   mmapstress01: tlbscope.procs=N tlbscope.gens=G tlbscope.loops=L tlbscope.remap=R tlbscope.pages=P
 *
 * The same binary is exec'd as "/init forkexec-child" by the fork/exec mix.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define TRACING "/sys/kernel/tracing"
#define OUT "/out"

static char cmdline[4096];

static void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("tlbscope-init: ");
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

static void die_off(const char *what)
{
	say("FATAL: %s: %s\n", what, strerror(errno));
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* value of tlbscope.KEY= on the kernel command line, or NULL */
static const char *param(const char *key)
{
	static char val[256];
	char pat[64];
	snprintf(pat, sizeof pat, "tlbscope.%s=", key);
	char *p = cmdline;
	size_t n = strlen(pat);
	while ((p = strstr(p, pat))) {
		if (p == cmdline || p[-1] == ' ') {
			p += n;
			size_t i = 0;
			while (*p && *p != ' ' && *p != '\n' && i < sizeof val - 1)
				val[i++] = *p++;
			val[i] = 0;
			return val;
		}
		p += n;
	}
	return NULL;
}

static long iparam(const char *key, long def)
{
	const char *v = param(key);
	return v ? strtol(v, NULL, 0) : def;
}

static int write_file(const char *path, const char *s, int append)
{
	int fd = open(path, O_WRONLY | (append ? O_APPEND : O_TRUNC));
	if (fd < 0) {
		say("open %s: %s\n", path, strerror(errno));
		return -1;
	}
	ssize_t r = write(fd, s, strlen(s));
	int e = errno;
	close(fd);
	if (r < 0) {
		say("write '%s' to %s: %s\n", s, path, strerror(e));
		return -1;
	}
	return 0;
}

/* read a whole file (works for /proc and tracefs files of unknown size) */
static char *read_all(const char *path, size_t *len, int nonblock)
{
	int fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
	if (fd < 0)
		return NULL;
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (cap - n < 65536) {
			cap *= 2;
			buf = realloc(buf, cap);
		}
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

/* ---------- ustar writer (to the raw virtio disk) ---------- */

static int tar_fd = -1;
static uint64_t tar_bytes;

static void tar_write(const void *p, size_t n)
{
	const char *c = p;
	while (n) {
		ssize_t r = write(tar_fd, c, n);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			die_off("write tar");
		}
		c += r;
		n -= r;
		tar_bytes += r;
	}
}

static void tar_add(const char *name, const char *data, size_t len)
{
	char h[512];
	memset(h, 0, sizeof h);
	if (strlen(name) >= 100) {
		/* split into prefix/name at a '/' */
		const char *slash = strrchr(name, '/');
		size_t pl = slash - name;
		memcpy(h + 345, name, pl);
		strncpy(h, slash + 1, 99);
	} else {
		strcpy(h, name);
	}
	snprintf(h + 100, 8, "%07o", 0644);
	snprintf(h + 108, 8, "%07o", 0);
	snprintf(h + 116, 8, "%07o", 0);
	snprintf(h + 124, 12, "%011llo", (unsigned long long)len);
	snprintf(h + 136, 12, "%011llo", (unsigned long long)time(NULL));
	memset(h + 148, ' ', 8);
	h[156] = '0';
	memcpy(h + 257, "ustar", 6);
	memcpy(h + 263, "00", 2);
	unsigned sum = 0;
	for (int i = 0; i < 512; i++)
		sum += (unsigned char)h[i];
	snprintf(h + 148, 8, "%06o", sum);
	h[155] = ' ';
	tar_write(h, 512);
	tar_write(data, len);
	size_t pad = (512 - len % 512) % 512;
	static const char zero[512];
	tar_write(zero, pad);
}

static void tar_add_file(const char *name, const char *path)
{
	size_t len;
	char *d = read_all(path, &len, 0);
	if (!d) {
		say("skip %s: %s\n", path, strerror(errno));
		return;
	}
	tar_add(name, d, len);
	free(d);
}

static void tar_add_str(const char *name, const char *s)
{
	tar_add(name, s, strlen(s));
}

/* events/<sys>/<event>/format for every event, plus header_page/header_event */
static void tar_add_formats(void)
{
	tar_add_file("tracing/events/header_page", TRACING "/events/header_page");
	tar_add_file("tracing/events/header_event", TRACING "/events/header_event");
	DIR *d = opendir(TRACING "/events");
	struct dirent *s;
	int n = 0;
	while (d && (s = readdir(d))) {
		if (s->d_name[0] == '.' || s->d_type != DT_DIR)
			continue;
		char sp[512];
		snprintf(sp, sizeof sp, TRACING "/events/%s", s->d_name);
		DIR *e = opendir(sp);
		struct dirent *ev;
		while (e && (ev = readdir(e))) {
			if (ev->d_name[0] == '.' || ev->d_type != DT_DIR)
				continue;
			char fp[1024], name[1024];
			snprintf(fp, sizeof fp, "%s/%s/format", sp, ev->d_name);
			snprintf(name, sizeof name, "tracing/events/%s/%s/format", s->d_name, ev->d_name);
			if (access(fp, R_OK) == 0) {
				tar_add_file(name, fp);
				n++;
			}
		}
		if (e)
			closedir(e);
	}
	if (d)
		closedir(d);
	say("archived %d event formats\n", n);
}

/* ---------- tracing setup ---------- */

static const char *tracepoints[] = {
	"sched/sched_switch",
	"sched/sched_process_fork",
	"sched/sched_process_exec",
	"sched/sched_process_exit",
	"task/task_newtask",
	"ipi/ipi_send_cpu",
	"ipi/ipi_send_cpumask",
	"ipi/ipi_raise",
	"ipi/ipi_entry",
	"ipi/ipi_exit",
	"csd/csd_queue_cpu",
	"csd/csd_function_entry",
	"csd/csd_function_exit",
	NULL,
};

static void setup_tracing(void)
{
	char buf[256];
	write_file(TRACING "/tracing_on", "0", 0);
	write_file(TRACING "/trace", "", 0);
	snprintf(buf, sizeof buf, "%ld", iparam("buf", 8192));
	write_file(TRACING "/buffer_size_kb", buf, 0);
	write_file(TRACING "/saved_cmdlines_size", "8192", 0);
	write_file(TRACING "/options/record-tgid", "1", 0);

	/* kprobes: one definition per line, generated on the host */
	size_t len;
	char *defs = read_all("/etc/tlbscope/kprobe_events", &len, 0);
	int nk = 0;
	for (char *line = defs ? strtok(defs, "\n") : NULL; line; line = strtok(NULL, "\n")) {
		if (!*line || *line == '#')
			continue;
		if (write_file(TRACING "/kprobe_events", line, 1) == 0)
			nk++;
		else
			say("kprobe refused: %s\n", line);
	}
	free(defs);
	say("%d kprobes defined\n", nk);
	if (nk)
		write_file(TRACING "/events/tlbscope/enable", "1", 0);

	for (int i = 0; tracepoints[i]; i++) {
		snprintf(buf, sizeof buf, TRACING "/events/%s/enable", tracepoints[i]);
		if (access(buf, W_OK) == 0)
			write_file(buf, "1", 0);
		else
			say("no tracepoint %s\n", tracepoints[i]);
	}
}

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
static long check_failures;

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
static void hackbench_like(char *info, size_t infosz)
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

static void mmapstress_like(char *info, size_t infosz)
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
static void lat_like(char *info, size_t infosz, int mmap_variant)
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
static void forkexec_child(int pages)
{
	long pg = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, pages * pg, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < pages; i++)
		m[i * pg] = 1;
	munmap(m, pages * pg);
	_exit(0);
}

static void forkexec_mix(char *info, size_t infosz)
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

static void tlbcheck(char *info, size_t infosz)
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

static void mmapstress01(char *info, size_t infosz)
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

/* ---------- dump ---------- */

static int online_cpus(char *list, size_t sz)
{
	size_t len;
	char *s = read_all("/sys/devices/system/cpu/online", &len, 0);
	if (!s)
		return -1;
	s[strcspn(s, "\n")] = 0;
	snprintf(list, sz, "%s", s);
	free(s);
	return 0;
}

/* The counter snapshots go into static buffers touched at start-up: reading
 * them must not fault (a fault here is a fence, and a brk/munmap a flush)
 * between the kprobe_profile reads and the tracing_on switches, where a
 * probe hit without an event would read as a dropped event. */
static char sfence_buf[2][32768];
/* the same for kprobe_profile: with the per-site probes it is longer than a
 * page, and seq_file copies a page to user space before it formats the next
 * lines: a fault in that copy would be counted in the later lines */
static char prof_buf[2][131072];
static char *sfence_before, *sfence_after;
static size_t sfence_before_len, sfence_after_len;

static char *read_static(const char *path, char *buf, size_t cap, size_t *len)
{
	int fd = open(path, O_RDONLY);
	size_t n = 0;
	if (fd < 0)
		return NULL;
	for (;;) {
		ssize_t r = read(fd, buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

static void dump(const char *info, const char *pb, size_t pbl, const char *pa, size_t pal)
{
	tar_fd = open("/dev/vda", O_WRONLY);
	if (tar_fd < 0)
		die_off("open /dev/vda");
	tar_add_str("info.txt", info);
	tar_add_file("cmdline", "/proc/cmdline");
	tar_add_file("kallsyms", "/proc/kallsyms");
	tar_add_file("tracing/printk_formats", TRACING "/printk_formats");
	tar_add_file("tracing/saved_cmdlines", TRACING "/saved_cmdlines");
	tar_add_file("tracing/saved_tgids", TRACING "/saved_tgids");
	tar_add_file("tracing/kprobe_events", TRACING "/kprobe_events");
	tar_add_file("tracing/kprobe_profile", TRACING "/kprobe_profile");
	if (pb)
		tar_add("kprobe_profile.before", pb, pbl);
	if (pa)
		tar_add("kprobe_profile.after", pa, pal);
	/* the kernel's own sfence.vma counter (patches-sfence/0001), read right
	 * before tracing_on=1 and right after tracing_on=0 */
	if (sfence_before)
		tar_add("sfence_vma.before", sfence_before, sfence_before_len);
	if (sfence_after)
		tar_add("sfence_vma.after", sfence_after, sfence_after_len);
	tar_add_file("cpuinfo", "/proc/cpuinfo");
	tar_add_file("tracing/trace_clock", TRACING "/trace_clock");
	tar_add_file("tracing/buffer_size_kb", TRACING "/buffer_size_kb");
	tar_add_formats();

	int ncpu = sysconf(_SC_NPROCESSORS_CONF);
	uint64_t total = 0;
	for (int c = 0; c < ncpu; c++) {
		char p[256], n[64];
		snprintf(p, sizeof p, TRACING "/per_cpu/cpu%d/stats", c);
		snprintf(n, sizeof n, "per_cpu/cpu%d/stats", c);
		tar_add_file(n, p);
		snprintf(p, sizeof p, TRACING "/per_cpu/cpu%d/trace_pipe_raw", c);
		snprintf(n, sizeof n, "per_cpu/cpu%d/trace_pipe_raw", c);
		size_t len = 0;
		char *d = read_all(p, &len, 1);
		if (!d) {
			say("cpu%d: no raw buffer: %s\n", c, strerror(errno));
			continue;
		}
		tar_add(n, d, len);
		free(d);
		total += len;
		say("cpu%d: %zu bytes raw\n", c, len);
	}
	size_t klen;
	char *kmsg = read_all("/dev/kmsg", &klen, 1);
	if (kmsg) {
		tar_add("dmesg", kmsg, klen);
		free(kmsg);
	}
	static const char zero[1024];
	tar_write(zero, sizeof zero);
	fsync(tar_fd);
	close(tar_fd);
	say("archive: %llu bytes (%llu raw trace bytes)\n", (unsigned long long)tar_bytes, (unsigned long long)total);
}

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "forkexec-child") == 0)
		forkexec_child(atoi(argv[2]));

	memset(sfence_buf, 0, sizeof sfence_buf);	/* touched now, not in the window */
	memset(prof_buf, 0, sizeof prof_buf);
	/* and the .bss page of the snapshot pointers: its first write (a copy of
	 * the zero page, a flush) must not fall in the window either */
	sfence_before = sfence_after = NULL;
	sfence_before_len = sfence_after_len = 0;
	mkdir("/proc", 0755);
	mkdir("/sys", 0755);
	mkdir("/dev", 0755);
	mkdir("/tmp", 01777);
	mount("proc", "/proc", "proc", 0, NULL);
	mount("sysfs", "/sys", "sysfs", 0, NULL);
	mount("devtmpfs", "/dev", "devtmpfs", 0, NULL);
	mount("tmpfs", "/tmp", "tmpfs", 0, NULL);
	if (mount("tracefs", TRACING, "tracefs", 0, NULL) < 0)
		die_off("mount tracefs");

	size_t len;
	char *c = read_all("/proc/cmdline", &len, 0);
	snprintf(cmdline, sizeof cmdline, "%s", c ? c : "");
	free(c);
	say("hello from PID 1 (%s)\n", cmdline[0] ? "cmdline read" : "no cmdline");

	char cpus[64] = "?";
	online_cpus(cpus, sizeof cpus);
	int online = sysconf(_SC_NPROCESSORS_ONLN);
	long want = iparam("cpus", 0);
	say("CPUs online: %s (%d)\n", cpus, online);

	const char *wl = param("workload");
	if (!wl)
		wl = "none";
	char wlname[64];
	snprintf(wlname, sizeof wlname, "%s", wl);

	char info[2048], winfo[1024] = "";
	/* tlbscope.aslr=0: no address-space randomization, so that a run pair on two
	 * kernels maps at the same addresses (a munmap's flush ranges depend on where
	 * a mapping falls in the page tables) */
	if (iparam("aslr", 1) == 0 && write_file("/proc/sys/kernel/randomize_va_space", "0", 0) == 0)
		say("address-space randomization off\n");
	/* tlbscope.workload=boot: the kernel has traced since boot (bootconfig,
	 * corpus README "Svvptc"); its probes and the sfence counter started at 0 */
	int boot = !strcmp(wlname, "boot");
	size_t pb_len = 0, pa_len;
	char *prof_before = boot ? "" : NULL;
	if (boot) {
		sfence_before = "overflow 0\n";
		sfence_before_len = strlen(sfence_before);
	} else {
		setup_tracing();
		/* kprobe hit counters right before and right after the traced window:
		 * hits minus events recorded = probes dropped (e.g. the NMI drop) */
		prof_before = read_static(TRACING "/kprobe_profile", prof_buf[0], sizeof prof_buf[0], &pb_len);
		sfence_before = read_static("/proc/sfence_vma", sfence_buf[0], sizeof sfence_buf[0], &sfence_before_len);
		write_file(TRACING "/tracing_on", "1", 0);
	}
	double t0 = now();
	if (boot) {
		double up = 0;
		char *u = read_all("/proc/uptime", &len, 0);
		if (u)
			up = atof(u);
		free(u);
		snprintf(winfo, sizeof winfo, "boot to /init: traced from core_initcall_sync (boot-time tracing) to here, %.2f s of uptime", up);
	} else if (want && online != want) {
		snprintf(winfo, sizeof winfo, "CPU bring-up failed: %d online, %ld wanted", online, want);
		say("%s\n", winfo);
	} else if (!strcmp(wlname, "hackbench"))
		hackbench_like(winfo, sizeof winfo);
	else if (!strcmp(wlname, "mmapstress"))
		mmapstress_like(winfo, sizeof winfo);
	else if (!strcmp(wlname, "pagefault"))
		lat_like(winfo, sizeof winfo, 0);
	else if (!strcmp(wlname, "mmap"))
		lat_like(winfo, sizeof winfo, 1);
	else if (!strcmp(wlname, "forkexec"))
		forkexec_mix(winfo, sizeof winfo);
	else if (!strcmp(wlname, "tlbcheck"))
		tlbcheck(winfo, sizeof winfo);
	else if (!strcmp(wlname, "mmapstress01"))
		mmapstress01(winfo, sizeof winfo);
	else
		snprintf(winfo, sizeof winfo, "no workload");
	double t1 = now();
	write_file(TRACING "/tracing_on", "0", 0);
	sfence_after = read_static("/proc/sfence_vma", sfence_buf[1], sizeof sfence_buf[1], &sfence_after_len);
	char *prof_after = read_static(TRACING "/kprobe_profile", prof_buf[1], sizeof prof_buf[1], &pa_len);
	say("workload done in %.3f s\n", t1 - t0);
	{
		size_t l = strlen(winfo);
		snprintf(winfo + l, sizeof winfo - l, "\nData check: %s (%ld failed processes)",
			 check_failures ? "FAILED" : "ok", check_failures);
		say("data check: %s (%ld failed processes)\n", check_failures ? "FAILED" : "ok", check_failures);
	}

	/* the ISA string the kernel reports (Svvptc runs: proof that it saw svvptc) */
	char isa[512] = "?";
	{
		size_t il;
		char *ci = read_all("/proc/cpuinfo", &il, 0);
		char *p = ci ? strstr(ci, "\nisa") : NULL;
		if (p) {
			p = strchr(p, ':');
			if (p) {
				p += 2;
				snprintf(isa, sizeof isa, "%.*s", (int)strcspn(p, "\n"), p);
			}
		}
		free(ci);
	}
	snprintf(info, sizeof info, "workload=%s\nonline=%s\nonline_count=%d\nwanted_cpus=%ld\ntraced_seconds=%.3f\ncpu0_isa=%s\naslr=%s\nsfence_counter=%s\n%s\n",
		 wlname, cpus, online, want, t1 - t0, isa, iparam("aslr", 1) ? "on" : "off", sfence_before ? "/proc/sfence_vma" : "absent", winfo);
	dump(info, prof_before, pb_len, prof_after, pa_len);
	sync();
	say("powering off\n");
	reboot(RB_POWER_OFF);
	return 0;
}
