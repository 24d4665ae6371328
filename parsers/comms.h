/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The names of a live machine's tasks by pid, for events that carry a pid and no name:
 * what the events taught (sched_switch, fork) first, else a running user task's name in
 * /proc, else the kernel's saved cmdlines (exited tasks, kernel threads), else "<...>".
 * The saved cmdlines come last because they keep a name per pid slot until another task
 * overwrites it: once pids have wrapped, a running task's entry can be a long-gone task's.
 */
#ifndef TLBSCOPE_PARSERS_COMMS_H
#define TLBSCOPE_PARSERS_COMMS_H

#include <stdint.h>
#include <string.h>

#include "parsers.h"

struct tep_handle;

#define COMMS_SETS	2048	/* of two ways each, by pid */

struct comm_slot {
	int32_t pid;			/* 0: empty */
	char comm[TS_COMM_LEN];		/* NUL-terminated */
};

struct comms {
	/* [0] the way used last: a set's two pids are both found after a collision */
	struct comm_slot set[COMMS_SETS][2];
	struct tep_handle *tep;		/* borrowed: its saved cmdlines, NULL none */
	const char *proc;		/* borrowed: the procfs mount that numbers tasks as the
					 * kernel's events do, NULL none (another pid namespace) */
	unsigned long proc_reads;	/* /proc/PID/stat files read (tests, bench) */
};

/* @c empty, resolving misses through @proc (NULL: never) and @tep's cmdlines (NULL: none). */
void comms_init(struct comms *c, struct tep_handle *tep, const char *proc);

/* The name of @pid when it is not in @c: looked up as above and kept. */
const char *comms_resolve(struct comms *c, int pid);

extern const char comms_idle[TS_COMM_LEN];	/* pid 0's: "<idle>" */

/* The name of @pid, TS_COMM_LEN readable bytes (NUL-terminated), valid until the next call. */
static inline const char *comms_get(struct comms *c, int pid)
{
	struct comm_slot *s = c->set[(uint32_t)pid % COMMS_SETS];

	if (!pid)
		return comms_idle;	/* the idle task's events: many, and never looked up */
	if (s[0].pid == pid && pid > 0)
		return s[0].comm;
	return comms_resolve(c, pid);
}

void comms_learn_slot(struct comms *c, int pid, const char *comm);

/* @pid is called @comm (TS_COMM_LEN bytes, NUL-terminated), as an event says. */
static inline void comms_learn(struct comms *c, int pid, const char *comm)
{
	struct comm_slot *s = c->set[(uint32_t)pid % COMMS_SETS];

	if (s[0].pid == pid && pid > 0 && comm[0])
		memcpy(s[0].comm, comm, TS_COMM_LEN);	/* a switch's: the set's last used */
	else
		comms_learn_slot(c, pid, comm);
}

#endif
