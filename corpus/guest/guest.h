/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The corpus guest's two files: init.c (PID 1: tracing set-up, the archive, main) and
 * workloads.c (the look-alikes of the seeds' benchmarks), which use init.c's helpers.
 */
#ifndef TLBSCOPE_GUEST_H
#define TLBSCOPE_GUEST_H

#include <stddef.h>

/* init.c */
void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void die_off(const char *what) __attribute__((noreturn));
double now(void);
const char *param(const char *key);	/* tlbscope.KEY= of the kernel command line */
long iparam(const char *key, long def);
int write_file(const char *path, const char *s, int append);
char *read_all(const char *path, size_t *len, int nonblock);

/* workloads.c: each writes what it ran and how it went into @info */
extern long check_failures;	/* children whose data check failed (non-zero exit) */
void hackbench_like(char *info, size_t infosz);
void mmapstress_like(char *info, size_t infosz);
void lat_like(char *info, size_t infosz, int mmap_variant);
void forkexec_child(int pages);
void forkexec_mix(char *info, size_t infosz);
void tlbcheck(char *info, size_t infosz);
void mmapstress01(char *info, size_t infosz);

#endif
