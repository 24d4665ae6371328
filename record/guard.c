// SPDX-License-Identifier: GPL-2.0-only
/*
 * The guard: a process of its own, forked by rec_open(), that removes the instance and the
 * kprobes a record or top added when that process dies without removing them itself
 * (SIGKILL, the OOM killer, a crash).  Signal handlers cover every other exit; nothing in a
 * process survives SIGKILL, so the guard lives outside it.
 *
 * The owner tells the guard what it is about to add, one line per thing on a socket, before
 * adding it: "I <instance>", "K <kprobe event>"; and "D" once it has removed them itself.
 * End of file without "D" means the owner is gone: the guard removes what it was told of
 * (what no longer exists is skipped, what is in use is retried for a while), says what it
 * removed, and exits.  The guard is in a session of its own (a Ctrl-C or a kill of the
 * terminal's process group does not reach it) and holds no file of its owner's but stderr.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "record-int.h"

#define GUARD_THINGS	(RECORD_N_KP + 1)
#define GUARD_RETRY_S	30	/* how long a removal refused as busy is tried again */

struct guard_thing {
	char kind;		/* 'I' instance, 'K' kprobe */
	char name[128];
};

/* Sleep @ms milliseconds, restarting after signals. */
static void guard_sleep(long ms)
{
	struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&t, &t) && errno == EINTR)
		;
}

/* Remove one thing; 1 removed, 0 not there (someone else removed it), -1 failed (errno). */
static int guard_remove(const char *tracing_dir, const struct guard_thing *t)
{
	char path[PATH_MAX], line[128];
	int fd, n, ret;

	if (t->kind == 'I') {
		snprintf(path, sizeof(path), "%s/instances/%s", tracing_dir, t->name);
		if (!rmdir(path))
			return 1;
		return errno == ENOENT ? 0 : -1;
	}
	snprintf(path, sizeof(path), "%s/kprobe_events", tracing_dir);
	n = snprintf(line, sizeof(line), "-:%s/%s\n", RECORD_KP_GROUP, t->name);
	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ret = write(fd, line, (size_t)n) == n ? 1 : -1;
	if (ret < 0 && errno == ENOENT)
		ret = 0;
	close(fd);
	return ret;
}

/* The owner @owner is gone: remove @things (instance first: it holds the kprobes enabled). */
static void guard_clean(const char *tracing_dir, const char *who, long owner,
			const struct guard_thing *things, int n)
{
	const char *inst = NULL;
	int kprobes = 0;

	for (int i = 0; i < n; i++) {
		int ret;

		for (int waited = 0;; waited += 100) {
			ret = guard_remove(tracing_dir, &things[i]);
			if (ret >= 0 || errno != EBUSY || waited >= GUARD_RETRY_S * 1000)
				break;
			guard_sleep(100);	/* the owner's files are still closing, or perf's */
		}
		if (ret > 0 && things[i].kind == 'I')
			inst = things[i].name;
		else if (ret > 0)
			kprobes++;
		else if (ret < 0)
			fprintf(stderr, "tlbscope: warning: %s: process %ld is gone; cannot remove "
				"its %s%s: %s\n", who, owner,
				things[i].kind == 'I' ? "tracefs instance " : "kprobe " RECORD_KP_GROUP "/",
				things[i].name, strerror(errno));
	}
	if (inst || kprobes)
		fprintf(stderr, "tlbscope: %s: process %ld ended without cleaning up (killed?); "
			"removed its %s%s%s%.0d%s\n", who, owner, inst ? "instance " : "",
			inst ? inst : "", inst && kprobes ? " and " : "", kprobes,
			!kprobes ? "" : kprobes == 1 ? " kprobe (" RECORD_KP_GROUP "/)" :
			" kprobes (" RECORD_KP_GROUP "/)");
}

/* The guard's life: collect the owner's lines until "D" or end of file. */
static void guard_run(int fd, const char *tracing_dir, const char *who, long owner)
{
	struct guard_thing things[GUARD_THINGS];
	char buf[512], line[128];
	size_t llen = 0;
	int n = 0;
	ssize_t got;

	for (;;) {
		got = read(fd, buf, sizeof(buf));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			break;
		for (ssize_t i = 0; i < got; i++) {
			if (buf[i] != '\n') {
				if (llen < sizeof(line) - 1)
					line[llen++] = buf[i];
				continue;
			}
			line[llen] = '\0';
			llen = 0;
			if (line[0] == 'D')
				return;
			if ((line[0] == 'I' || line[0] == 'K') && line[1] == ' ' &&
			    n < GUARD_THINGS) {
				things[n].kind = line[0];
				snprintf(things[n].name, sizeof(things[n].name), "%s", line + 2);
				n++;
			}
		}
	}
	/* the instance (told first) goes first: its enabled kprobes cannot be removed */
	guard_clean(tracing_dir, who, owner, things, n);
}

int rec_guard_start(const char *tracing_dir, const char *who, pid_t *pid)
{
	long owner = (long)getpid();
	int p[2];

	*pid = -1;
	/* a socket, not a pipe: a write to a dead guard fails with EPIPE, without SIGPIPE */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, p)) {
		rec_warning("%s: no guard for a kill (socketpair: %s); a SIGKILL would leave the "
			    "instance behind", who, strerror(errno));
		return -1;
	}
	fflush(stderr);
	*pid = fork();
	if (*pid < 0) {
		rec_warning("%s: no guard for a kill (fork: %s); a SIGKILL would leave the "
			    "instance behind", who, strerror(errno));
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (*pid == 0) {
		int null = open("/dev/null", O_RDWR);

		setsid();
		signal(SIGPIPE, SIG_IGN);
		signal(SIGINT, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		if (null >= 0) {
			dup2(null, 0);
			dup2(null, 1);
		}
		/* nothing of the owner's but stderr: a pipe it writes must see its own EOF */
		close(p[1]);
		if (dup2(p[0], 3) == 3)
			close_range(4, ~0U, 0);
		guard_run(3, tracing_dir, who, owner);
		_exit(0);
	}
	close(p[0]);
	return p[1];
}

void rec_guard_note(int fd, char kind, const char *name)
{
	char line[128];
	int n;

	if (fd < 0)
		return;
	n = snprintf(line, sizeof(line), "%c %s\n", kind, name);
	if (n > 0 && (size_t)n < sizeof(line) && send(fd, line, (size_t)n, MSG_NOSIGNAL) != n)
		rec_warning("the guard is gone (%s): a SIGKILL would leave %s behind",
			    strerror(errno), name);
}

void rec_guard_stop(int fd, pid_t pid)
{
	if (fd < 0)
		return;
	/* a guard that misses the "D" has died: it had nothing left to do anyway */
	(void)!send(fd, "D\n", 2, MSG_NOSIGNAL);
	close(fd);
	while (pid > 0 && waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}
