// SPDX-License-Identifier: GPL-2.0-only
/*
 * The buffer of an existing tracefs instance into a trace.dat, for
 * tests/fixtures/capture.sh: each CPU's trace_pipe_raw drained (whole sub-buffers, as
 * 'tlbscope record' streams them), then written by record's own writer.  Unlike
 * 'trace-cmd extract -B', it writes nothing outside the instance: not the top level's
 * current_tracer, trace or event filters, not kptr_restrict.  The instance stays.
 *   usage: extract INSTANCE OUT.dat
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../../record/record-int.h"
#include "../../lib/lib.h"

/* One more than the highest per_cpu/cpuN of @inst; -1 when there is none. */
static int count_cpus(struct tracefs_instance *inst)
{
	char *dir = tracefs_instance_get_file(inst, "per_cpu");
	DIR *dp = dir ? opendir(dir) : NULL;
	struct dirent *d;
	int n = -1, cpu;

	tracefs_put_tracing_file(dir);
	while (dp && (d = readdir(dp)))
		if (!strncmp(d->d_name, "cpu", 3) && !parse_int(d->d_name + 3, &cpu) && cpu >= n)
			n = cpu + 1;
	if (dp)
		closedir(dp);
	return n;
}

/* Move what CPU @cpu's ring buffer holds to @path, without waiting.  0 ok. */
static int drain(struct tracefs_instance *inst, int cpu, const char *path)
{
	struct tracefs_cpu *tcpu = tracefs_cpu_open(inst, cpu, true);
	int fd = -1, r = -1, n;
	void *buf = NULL;

	if (!tcpu)
		return rec_error("extract: cpu %d: trace_pipe_raw: %s", cpu, strerror(errno)), -1;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0) {
		rec_error("extract: %s: %s", path, strerror(errno));
		goto out;
	}
	buf = xmalloc(tracefs_cpu_read_size(tcpu));
	while ((n = tracefs_cpu_read(tcpu, buf, true)) > 0 || (n < 0 && errno == EINTR)) {
		if (n > 0 && write(fd, buf, n) != n) {
			rec_error("extract: %s: %s", path, strerror(errno ? errno : ENOSPC));
			goto out;
		}
	}
	if (n < 0 && errno != EAGAIN) {
		rec_error("extract: cpu %d: trace_pipe_raw: %s", cpu, strerror(errno));
		goto out;
	}
	r = 0;
out:
	free(buf);
	if (fd >= 0 && close(fd) && !r) {
		rec_error("extract: %s: %s", path, strerror(errno));
		r = -1;
	}
	tracefs_cpu_close(tcpu);
	return r;
}

int main(int argc, char **argv)
{
	struct tracefs_instance *inst;
	struct tracedat_out *out = NULL;
	char tmp[PATH_MAX], **files;
	int ncpus, r = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: extract INSTANCE OUT.dat\n");
		return 2;
	}
	if (!tracefs_instance_exists(argv[1]))
		return rec_error("extract: no tracefs instance %s", argv[1]), 1;
	inst = tracefs_instance_alloc(NULL, argv[1]);
	ncpus = inst ? count_cpus(inst) : -1;
	if (ncpus <= 0) {
		rec_error("extract: %s: cannot count its CPUs", argv[1]);
		tracefs_instance_free(inst);
		return 1;
	}
	snprintf(tmp, sizeof(tmp), "%s.cpus-XXXXXX", argv[2]);
	if (!mkdtemp(tmp)) {
		rec_error("extract: %s: %s", tmp, strerror(errno));
		tracefs_instance_free(inst);
		return 1;
	}
	files = xcalloc(ncpus, sizeof(*files));
	for (int i = 0; i < ncpus; i++) {
		files[i] = xmalloc(strlen(tmp) + 16);
		snprintf(files[i], strlen(tmp) + 16, "%s/cpu%d", tmp, i);
		if (drain(inst, i, files[i]))
			goto out;
	}
	out = tracedat_out_open(argv[2], inst, "extract");
	if (out && !tracedat_out_add_cpus(out, ncpus, files))
		r = 0;
	if (out && tracedat_out_close(out))
		r = 1;
out:
	for (int i = 0; i < ncpus; i++) {
		if (files[i])
			unlink(files[i]);
		free(files[i]);
	}
	free(files);
	rmdir(tmp);
	tracefs_instance_free(inst);
	return r;
}
