// SPDX-License-Identifier: GPL-2.0-only
/*
 * libFuzzer harness: one input file through a reader, the timeline and the models, as
 * `tlbscope tune` runs them.  Built once per format (-DFUZZ_FORMAT="trace.dat",
 * "ftrace-text", "jsonl"): inputs that another reader would take are passed over, so each
 * campaign stays on its own reader.  A crash, hang, leak or sanitizer report is a finding;
 * a clean "bad input" error is not.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../tuner/tuner.h"

#ifndef FUZZ_FORMAT
#error "build with -DFUZZ_FORMAT=\"trace.dat\" (or ftrace-text, jsonl)"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const int thresholds[] = { 1, 2, 6, 12 };
static const int queues[] = { 0, 4, 32 };
static const int replay[][2] = { { 6, 32 }, { 1, 0 } };

static void run(struct ts_source *src)
{
	struct tuner_opts to = {
		.thresholds = thresholds, .nthresholds = 4, .queues = queues, .nqueues = 3,
		.flush_all_threshold = 64, .tlb_reach_mms = 4, .replay = replay, .nreplay = 2,
	};
	struct timeline *tl = timeline_new(src, NULL);
	struct ts_event ev;
	struct tuner *tu;
	int r;

	to.ncpus = ts_source_info(src)->cpus ? ts_source_info(src)->cpus : 4;
	tu = tuner_new(&to);
	while ((r = ts_source_next(src, &ev)) > 0)
		timeline_feed(tl, &ev, tuner_feed, tu);
	if (r == 0) {
		timeline_finish(tl, tuner_feed, tu);
		tuner_finish(tu);
	}
	tuner_free(tu);
	timeline_free(tl);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64], err[TS_ERR_LEN];
	struct ts_source *src;
	int fd = memfd_create("fuzz", MFD_CLOEXEC);

	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	src = ts_source_open(path, err);
	if (src) {
		if (!strcmp(ts_source_info(src)->format, FUZZ_FORMAT))
			run(src);
		ts_source_close(src);
	}
	close(fd);
	return 0;
}
