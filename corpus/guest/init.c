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

void say(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	printf("tlbscope-init: ");
	vprintf(fmt, ap);
	va_end(ap);
	fflush(stdout);
}

void die_off(const char *what)
{
	say("FATAL: %s: %s\n", what, strerror(errno));
	sync();
	reboot(RB_POWER_OFF);
	_exit(1);
}

double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* value of tlbscope.KEY= on the kernel command line, or NULL */
const char *param(const char *key)
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

long iparam(const char *key, long def)
{
	const char *v = param(key);
	return v ? strtol(v, NULL, 0) : def;
}

int write_file(const char *path, const char *s, int append)
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

/*
 * Read @fd to its end into *@buf (*@cap bytes; doubled while less than 64 KiB is free when
 * @grow, else what does not fit is left unread), NUL-terminate it, close @fd; the length.
 */
static size_t read_rest(int fd, char **buf, size_t *cap, int grow)
{
	size_t n = 0;
	for (;;) {
		if (grow && *cap - n < 65536) {
			*cap *= 2;
			*buf = realloc(*buf, *cap);
		}
		ssize_t r = read(fd, *buf + n, *cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	(*buf)[n] = 0;
	return n;
}

/* read a whole file (works for /proc and tracefs files of unknown size) */
char *read_all(const char *path, size_t *len, int nonblock)
{
	int fd = open(path, O_RDONLY | (nonblock ? O_NONBLOCK : 0));
	if (fd < 0)
		return NULL;
	size_t cap = 65536;
	char *buf = malloc(cap);
	*len = read_rest(fd, &buf, &cap, 1);
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

#include "guest.h"

/*
 * The kernel command line as the trace's first event, the line `tlbscope record` writes
 * (tlbscope-record(1)): "tlbscope-cmdline: console=ttyS0 ... lazytlb.max_loaded_mm=12
 * lazytlb.flush_queue=64", so that a lazy run carries its own T and Q.
 */
static void cmdline_marker(void)
{
	char line[sizeof cmdline + 32];
	size_t n = strlen(cmdline);

	while (n && (cmdline[n - 1] == '\n' || cmdline[n - 1] == ' '))
		n--;
	if (!n || memchr(cmdline, '\n', n))
		return;
	snprintf(line, sizeof line, "tlbscope-cmdline: %.*s\n", (int)n, cmdline);
	write_file(TRACING "/trace_marker", line, 0);
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
	if (fd < 0)
		return NULL;
	*len = read_rest(fd, &buf, &cap, 0);
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
		cmdline_marker();
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
