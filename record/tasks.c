// SPDX-License-Identifier: GPL-2.0-only
/*
 * The task table: when tracing starts, every task of the machine is written into the
 * instance's own ring buffer through its trace_marker, one ftrace:print event per task,
 * "tlbscope-tgid: pid=123 tgid=100 comm=bash" ("kthread=1" for kernel threads), so that a
 * trace.dat (which has no tgid of its own) names the process of every task older than the
 * trace, and every reader (trace-cmd report too) still reads the file.  parsers/ turns the
 * lines back into TS_EV_TGID events.  Nothing outside the instance is written.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record-int.h"

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */
/* ring-buffer bytes of a row besides its text: record header, common fields, ip */
#define ROW_OVERHEAD	24

/* PF_KTHREAD from /proc/@pid/task/@tid/stat (kernels whose status has no "Kthread:"). */
static int stat_kthread(const char *pid, const char *tid)
{
	char path[600], buf[512], *p;
	unsigned long flags;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/stat", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	/* "pid (comm) S ppid pgrp session tty_nr tpgid flags": the comm may hold ") " */
	p = strrchr(buf, ')');
	if (!p || sscanf(p + 1, " %*c %*d %*d %*d %*d %*d %lu", &flags) != 1)
		return -1;
	return !!(flags & PF_KTHREAD);
}

/*
 * One task's row from /proc/@pid/task/@tid/status (Name, Tgid, Kthread) into @line;
 * its length, or 0 when the task is gone or unreadable.
 */
static int task_row(const char *pid, const char *tid, char *line, size_t size)
{
	char path[600], buf[4096], name[64] = "";
	int tgid = -1, kthread = -1, fd;
	ssize_t n;
	int len;

	snprintf(path, sizeof(path), "/proc/%s/task/%s/status", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	for (char *l = buf, *nl; l && *l; l = nl ? nl + 1 : NULL) {
		nl = strchr(l, '\n');
		if (nl)
			*nl = '\0';
		if (!strncmp(l, "Name:\t", 6))
			strlcpy_ts(name, l + 6, sizeof(name));
		else if (!strncmp(l, "Tgid:\t", 6))
			tgid = atoi(l + 6);
		else if (!strncmp(l, "Kthread:\t", 9))
			kthread = atoi(l + 9);
	}
	if (kthread < 0)
		kthread = stat_kthread(pid, tid);
	if (tgid <= 0 || kthread < 0)
		return 0;
	len = snprintf(line, size, "tlbscope-tgid: pid=%s tgid=%d%s comm=%s\n", tid, tgid,
		       kthread ? " kthread=1" : "", name);
	return len > 0 && (size_t)len < size ? len : 0;
}

static bool all_digits(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/*
 * Run on one recorded CPU while writing: a trace_marker write goes to the buffer of the
 * CPU it runs on (one outside tracing_cpumask, --cpu, refuses it), and the pauses below
 * watch that buffer.  The current CPU when it is recorded, else the first recorded CPU
 * the kernel lets us move to (taskset's mask can be widened, a cpuset's not).  Returns
 * the CPU, with the old affinity in @old, or -1 (said) when no recorded CPU is allowed.
 */
static int pin_to_recorded(struct rec *r, cpu_set_t *old)
{
	int here = sched_getcpu();
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(*old), old))
		return -1;
	for (int i = -1; i < r->ncpus && i < CPU_SETSIZE; i++) {
		int c = i < 0 ? here : i;

		if (c < 0 || !rec_cpu_recorded(r, c))
			continue;
		CPU_ZERO(&set);
		CPU_SET(c, &set);
		if (!sched_setaffinity(0, sizeof(set), &set))
			return c;
	}
	rec_warning("%s: this process may run on no recorded CPU; the task table's markers "
		    "will be refused", r->c.who);
	return -1;
}

/* Bytes @cpu's buffer holds that no reader took yet (per_cpu/cpuN/stats); -1 unknown. */
static int64_t unread_bytes(struct rec *r, int cpu)
{
	char *stats = rec_cpu_stats(r->inst, cpu);
	int64_t v = stats ? rec_stats_value(stats, "bytes") : -1;

	free(stats);
	return v;
}

/*
 * Wait, at most 5 s, until the stream's reader (every 100 ms) has left @cpu's buffer less
 * than @limit bytes to take: all rows land in that one buffer at once, and a small -m
 * would otherwise lose them to overwrite.  Whether it had to wait goes to @t.
 */
static void wait_drained(struct rec *r, int cpu, int64_t limit, struct rec_table *t)
{
	const struct timespec step = { 0, 10000000L };
	bool waited = false;

	for (int i = 0; i < 500; i++) {
		int64_t b = unread_bytes(r, cpu);

		if (b < 0 || b < limit || rec_stream_failed(r))
			break;		/* unknown, drained, or no reader left to drain it */
		waited = true;
		nanosleep(&step, NULL);
	}
	t->pauses += waited;
}

/*
 * The kernel's command line as one marker, "tlbscope-cmdline: ...", first in the table:
 * the boot parameters a kernel takes (a lazy-flush kernel's lazytlb.*) are known nowhere
 * else in the trace.  Returns the bytes written, 0 when there was nothing to write.
 */
static size_t cmdline_row(int fd)
{
	char line[1024], cmd[900];
	FILE *f = fopen("/proc/cmdline", "re");
	size_t n = f ? fread(cmd, 1, sizeof(cmd) - 1, f) : 0;
	int len;

	if (f)
		fclose(f);
	while (n && (cmd[n - 1] == '\n' || cmd[n - 1] == ' '))
		n--;
	cmd[n] = '\0';
	if (!n || strchr(cmd, '\n'))
		return 0;
	len = snprintf(line, sizeof(line), "%s %s\n", TS_CMDLINE_MARKER, cmd);
	return len > 0 && write(fd, line, (size_t)len) == len ? (size_t)len : 0;
}

/* The first line of @path, trimmed, into @buf (NUL-separated strings joined by ','); false: none */
static bool first_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n = f ? fread(buf, 1, len - 1, f) : 0;

	if (f)
		fclose(f);
	buf[n] = '\0';
	for (size_t i = 0; i + 1 < n; i++)
		if (!buf[i])
			buf[i] = ',';
	buf[strcspn(buf, "\n")] = '\0';
	n = strlen(buf);
	while (n && (buf[n - 1] == ' ' || buf[n - 1] == ','))
		buf[--n] = '\0';
	return n > 0;
}

/*
 * Whether this machine is a virtual one, as it says of itself: the CPU's hypervisor flag
 * (x86's CPUID bit in /proc/cpuinfo), /sys/hypervisor, the firmware's DMI vendor and
 * product, the device tree's compatible string (riscv and arm: "riscv-virtio", "qemu").
 * Into @why, "vm (what said so)" or "metal (none of those did)".
 */
void rec_machine_kind(char *why, size_t len)
{
	static const char *const names[] = {
		"qemu", "kvm", "vmware", "virtualbox", "xen", "bochs", "virtual machine",
		"amazon ec2", "google compute engine", "parallels", "firecracker", "riscv-virtio",
		"hyper-v", "cloud hypervisor",
	};
	static const char *const files[][2] = {
		{ "/sys/hypervisor/type", "/sys/hypervisor/type" },
		{ "/sys/class/dmi/id/sys_vendor", "DMI vendor" },
		{ "/sys/class/dmi/id/product_name", "DMI product" },
		{ "/proc/device-tree/compatible", "device tree" },
		{ "/proc/device-tree/model", "device tree model" },
	};
	char line[256], *l = NULL;
	size_t cap = 0;
	FILE *f = fopen("/proc/cpuinfo", "re");
	bool flag = false;

	/* the flags line is longer than any fixed buffer: whole lines */
	while (f && !flag && getline(&l, &cap, f) > 0)
		flag = !strncmp(l, "flags", 5) && (strstr(l, " hypervisor ") ||
						   strstr(l, " hypervisor\n"));
	free(l);
	if (f)
		fclose(f);
	if (flag) {
		snprintf(why, len, "vm (the CPU's hypervisor flag in /proc/cpuinfo)");
		return;
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		if (!first_line(files[i][0], line, sizeof(line)))
			continue;
		for (size_t k = 0; k < sizeof(names) / sizeof(names[0]); k++)
			if (i == 0 || strcasestr(line, names[k])) {
				snprintf(why, len, "vm (%s: %.100s)", files[i][1], line);
				return;
			}
	}
	snprintf(why, len, "metal (no hypervisor flag, /sys/hypervisor, DMI or device tree "
		 "names one)");
}

/* "tlbscope-machine: vm (...)" or "metal (...)": tune prices nothing from a VM's timings */
static size_t machine_row(int fd)
{
	char why[200], line[240];
	int len;

	rec_machine_kind(why, sizeof(why));
	len = snprintf(line, sizeof(line), "%s %s\n", TS_MACHINE_MARKER, why);
	return len > 0 && write(fd, line, (size_t)len) == len ? (size_t)len : 0;
}

int rec_task_table(struct rec *r, struct rec_table *t)
{
	uint64_t t0 = mono_ns(), burst = 0, limit;
	char *file, line[160];
	struct dirent *d;
	cpu_set_t old;
	DIR *proc;
	int fd, cpu, err = 0;

	memset(t, 0, sizeof(*t));
	if (!in_init_pid_ns()) {
		rec_warning("%s: in a pid namespace of its own, /proc does not number tasks as the "
			    "trace does: no task table written; processes older than the recording "
			    "will be guessed from pids", r->c.who);
		return -1;
	}
	file = tracefs_instance_get_file(r->inst, "trace_marker");
	fd = file ? open(file, O_WRONLY | O_CLOEXEC) : -1;
	if (fd < 0) {
		rec_warning("%s: cannot open %s: %s; no task table written, processes older than "
			    "the recording will be guessed from pids", r->c.who,
			    file ? file : "trace_marker", strerror(errno));
		tracefs_put_tracing_file(file);
		return -1;
	}
	tracefs_put_tracing_file(file);
	t->bytes += cmdline_row(fd);
	t->bytes += machine_row(fd);
	proc = opendir("/proc");
	if (!proc) {
		rec_warning("%s: /proc: %s; no task table written", r->c.who, strerror(errno));
		close(fd);
		return -1;
	}
	cpu = pin_to_recorded(r, &old);
	limit = r->c.buffer_kb * 1024 / 4;	/* a buffer at most half full */
	while ((d = readdir(proc))) {
		char dir[300];
		struct dirent *e;
		DIR *tasks;

		if (!all_digits(d->d_name))
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/task", d->d_name);
		tasks = opendir(dir);
		if (!tasks)
			continue;	/* gone since readdir */
		while ((e = readdir(tasks))) {
			int len;

			if (!all_digits(e->d_name))
				continue;
			len = task_row(d->d_name, e->d_name, line, sizeof(line));
			if (!len)
				continue;
			if (r->files && cpu >= 0 && burst + (uint64_t)len + ROW_OVERHEAD > limit) {
				wait_drained(r, cpu, (int64_t)limit, t);
				burst = 0;
			}
			if (write(fd, line, (size_t)len) == len) {
				t->rows++;
				t->bytes += (uint64_t)len;
				burst += (uint64_t)len + ROW_OVERHEAD;
			} else {
				t->failed++;
				if (!err)
					err = errno;
			}
		}
		closedir(tasks);
	}
	closedir(proc);
	close(fd);
	if (cpu >= 0)
		sched_setaffinity(0, sizeof(old), &old);
	t->ns = mono_ns() - t0;
	if (t->failed)
		rec_warning("%s: %llu of %llu task-table markers were refused (%s); processes of "
			    "those tasks will be guessed from pids", r->c.who,
			    (unsigned long long)t->failed, (unsigned long long)(t->rows + t->failed),
			    strerror(err));
	return 0;
}
