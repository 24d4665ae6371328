// SPDX-License-Identifier: GPL-2.0-only
/*
 * Streaming a recording to disk: one thread per recorded CPU copies what its ring buffer
 * holds (trace_pipe_raw, whole sub-buffers) to the CPU's file every 100 ms, so the buffer
 * only has to hold 100 ms of events and long runs lose nothing to overwrite.  A failed
 * read or write (a full disk) stops every reader; the caller sees it through
 * rec_stream_failed() and rec_stream_stop().  Signals are blocked in the readers: they
 * reach the thread that handles them.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "record-int.h"

/* Write all of @len or fail with errno set (ENOSPC for a full disk). */
static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		if (w == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += w;
		len -= w;
	}
	return 0;
}

/* Move everything readable now from the CPU's ring buffer to its file; -1 on error. */
static int reader_drain(struct rec_cpu *c, void *buf)
{
	for (;;) {
		int n = tracefs_cpu_read(c->tcpu, buf, true);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n < 0) {
			c->err = errno;
			return -1;
		}
		if (n == 0)
			return 0;
		if (write_all(c->fd, buf, n)) {
			c->err = errno;
			return -1;
		}
		c->bytes += n;
	}
}

static void *reader_main(void *arg)
{
	struct rec_cpu *c = arg;
	void *buf = xmalloc(tracefs_cpu_read_size(c->tcpu));
	struct timespec tick = { 0, 100000000L };

	for (;;) {
		bool last = atomic_load(&c->r->stop);

		if (reader_drain(c, buf)) {
			atomic_store(&c->r->stop, 1);
			break;
		}
		if (last)
			break;
		nanosleep(&tick, NULL);
	}
	free(buf);
	return NULL;
}

static int open_files(struct rec *r, const char *dir)
{
	r->files = xcalloc(r->ncpus, sizeof(*r->files));
	r->cpu = xcalloc(r->ncpus, sizeof(*r->cpu));
	for (int i = 0; i < r->ncpus; i++)
		r->cpu[i].fd = -1;
	for (int i = 0; i < r->ncpus; i++) {
		struct rec_cpu *c = &r->cpu[i];
		size_t len = strlen(dir) + 16;

		c->r = r;
		c->cpu = i;
		r->files[i] = xmalloc(len);
		snprintf(r->files[i], len, "%s/cpu%d", dir, i);
		c->fd = open(r->files[i], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (c->fd < 0)
			return rec_error("%s: %s: %s", r->c.who, r->files[i], strerror(errno));
		if (!rec_cpu_recorded(r, i))
			continue;	/* an empty file keeps the CPU numbering */
		c->tcpu = tracefs_cpu_open(r->inst, i, true);
		if (!c->tcpu)
			return rec_error("%s: cannot open cpu %d's trace_pipe_raw: %s", r->c.who, i,
					 strerror(errno));
	}
	return 0;
}

int rec_stream_start(struct rec *r, const char *dir)
{
	sigset_t all, old;
	int ret = 0;

	if (open_files(r, dir))
		return -1;
	/* signals go to the caller's thread only */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (int i = 0; i < r->ncpus; i++) {
		struct rec_cpu *c = &r->cpu[i];

		if (!c->tcpu)
			continue;
		if (pthread_create(&c->thread, NULL, reader_main, c)) {
			ret = rec_error("%s: cannot start a reader thread for cpu %d", r->c.who, i);
			break;
		}
		c->started = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return ret;
}

bool rec_stream_failed(struct rec *r)
{
	return atomic_load(&r->stop);
}

/* Last drain, join the threads, close the files; -1 (printed) on a reader's error. */
static int stream_join(struct rec *r, uint64_t *bytes)
{
	int ret = 0;

	*bytes = 0;
	atomic_store(&r->stop, 1);
	for (int i = 0; i < r->ncpus && r->cpu; i++) {
		struct rec_cpu *c = &r->cpu[i];

		if (c->started) {
			pthread_join(c->thread, NULL);
			c->started = false;
		}
		if (c->fd >= 0 && close(c->fd) && !c->err)
			c->err = errno;
		c->fd = -1;
		if (c->err) {
			rec_error("%s: %s: cpu %d's data: %s", r->c.who, r->files[i], i,
				  strerror(c->err));
			ret = -1;
		}
		*bytes += c->bytes;
	}
	return ret;
}

int rec_stream_stop(struct rec *r, uint64_t *bytes)
{
	int ret = stream_join(r, bytes);

	if (!ret)	/* the files are whole now: did the kprobes' events reach them? */
		record_kprobe_check(r);
	return ret;
}

void rec_stream_close(struct rec *r)
{
	uint64_t bytes;

	if (!r->cpu)
		return;
	for (int i = 0; i < r->ncpus; i++)
		if (r->cpu[i].started) {
			stream_join(r, &bytes);
			break;
		}
	for (int i = 0; i < r->ncpus; i++) {
		tracefs_cpu_close(r->cpu[i].tcpu);
		r->cpu[i].tcpu = NULL;
	}
}

void rec_stream_free(struct rec *r)
{
	for (int i = 0; i < r->ncpus && r->files; i++) {
		if (r->cpu && r->cpu[i].fd >= 0)
			close(r->cpu[i].fd);
		if (r->files[i])
			unlink(r->files[i]);
		free(r->files[i]);
	}
	free(r->files);
	free(r->cpu);
	r->files = NULL;
	r->cpu = NULL;
}
