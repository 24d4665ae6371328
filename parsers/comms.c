// SPDX-License-Identifier: GPL-2.0-only
/*
 * Task names of the live machine by pid (comms.h): a two-way cache in front of
 * /proc/PID/stat and the saved cmdlines.  A pid pushed out of the cache is looked up again,
 * so a third pid in a set costs a read of /proc, never a wrong name.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "../lib/lib.h"
#include "comms.h"

void comms_init(struct comms *c, struct tep_handle *tep, const char *proc)
{
	memset(c->set, 0, sizeof(c->set));
	c->tep = tep;
	c->proc = proc;
	c->proc_reads = 0;
}

/* @pid's slot, made the set's most recent; a new one (pid 0) when it holds none */
static struct comm_slot *slot_of(struct comms *c, int pid)
{
	struct comm_slot *s = c->set[(uint32_t)pid % COMMS_SETS], t;

	if (s[0].pid == pid)
		return &s[0];
	t = s[1].pid == pid ? s[1] : (struct comm_slot){ 0 };
	s[1] = s[0];
	s[0] = t;
	return &s[0];
}

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h */

/*
 * The running user task's name from @c->proc's PID/stat ("pid (comm) state ppid pgrp
 * session tty_nr tpgid flags ..."); false when there is no such task, no /proc, or it is a
 * kernel thread: /proc names those past their comm (a kthread's full name, a workqueue
 * worker's "kworker/1:1H-kblockd"), which no event ever says.
 */
static bool proc_comm(struct comms *c, int pid, char out[TS_COMM_LEN])
{
	char path[64], buf[512], *open_paren, *close_paren, *p, *end;
	uint64_t flags;
	ssize_t n;
	int fd;

	if (!c->proc)
		return false;
	snprintf(path, sizeof(path), "%s/%d/stat", c->proc, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	c->proc_reads++;
	do
		n = read(fd, buf, sizeof(buf) - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	/* the name may hold ") ": it ends at the last ')' */
	open_paren = strchr(buf, '(');
	close_paren = strrchr(buf, ')');
	if (!open_paren || !close_paren || close_paren <= open_paren + 1 ||
	    close_paren - open_paren - 1 >= TS_COMM_LEN)
		return false;
	/* state, ppid, pgrp, session, tty_nr, tpgid, then flags */
	p = close_paren + 1;
	for (int i = 0; i < 6 && p; i++)
		p = strchr(p + 1, ' ');
	if (!p)
		return false;
	end = strchr(p + 1, ' ');
	if (end)
		*end = '\0';
	if (parse_u64(p + 1, 10, &flags) || (flags & PF_KTHREAD))
		return false;
	memcpy(out, open_paren + 1, (size_t)(close_paren - open_paren - 1));
	out[close_paren - open_paren - 1] = '\0';
	return true;
}

const char comms_idle[TS_COMM_LEN] = "<idle>";

const char *comms_resolve(struct comms *c, int pid)
{
	static const char unknown[TS_COMM_LEN] = "<...>";
	struct comm_slot *s;
	const char *comm;

	if (pid == 0)
		return comms_idle;
	if (pid < 0)
		return unknown;
	s = slot_of(c, pid);
	if (s->pid == pid)
		return s->comm;
	s->pid = pid;
	if (proc_comm(c, pid, s->comm))
		return s->comm;
	/* a kernel thread, a task that has gone, or no /proc: what the kernel saved */
	comm = c->tep ? tep_data_comm_from_pid(c->tep, pid) : NULL;
	strlcpy_ts(s->comm, comm ? comm : unknown, TS_COMM_LEN);
	return s->comm;
}

/* comms_learn() of a pid not used last in its set */
void comms_learn_slot(struct comms *c, int pid, const char *comm)
{
	struct comm_slot *s;

	if (pid <= 0 || !comm[0])
		return;
	s = slot_of(c, pid);
	s->pid = pid;
	memcpy(s->comm, comm, TS_COMM_LEN);	/* both TS_COMM_LEN, NUL-terminated */
}
