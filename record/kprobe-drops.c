// SPDX-License-Identifier: GPL-2.0-only
/*
 * Did the kprobes' events reach the ring buffer?  Each probe's hits while recording
 * (kprobe_profile, read by rec_on() and rec_off()) against its events in the streamed
 * per-CPU files.  A riscv64 kernel without ARCH_HAVE_NMI_SAFE_CMPXCHG (Debian's 6.12) has
 * the ring buffer refuse every write from a kprobe handler: the probes hit, the trace has
 * none of their events, and record says so, naming --kprobes-via perf (perf events are not
 * refused), or, with it, where the evidence went.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../lib/lib.h"
#include "../parsers/ringbuf.h"
#include "record-int.h"

/* Each probe's hits so far, from @tracing_dir/kprobe_profile ("  EVENT HITS MISSES"). */
void record_kprobe_hits(const char *tracing_dir, uint64_t hits[RECORD_N_KP])
{
	char path[PATH_MAX], line[512];
	FILE *f;

	memset(hits, 0, RECORD_N_KP * sizeof(hits[0]));
	snprintf(path, sizeof(path), "%s/kprobe_profile", tracing_dir);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char name[256], *ev;
		unsigned long long h;

		if (sscanf(line, "%255s %llu", name, &h) != 2)
			continue;
		/* newer kernels print the event alone, some "GROUP/EVENT" */
		ev = strchr(name, '/');
		if (ev && strncmp(name, RECORD_KP_GROUP "/", ev + 1 - name))
			continue;
		ev = ev ? ev + 1 : name;
		for (size_t i = 0; i < RECORD_N_KP; i++)
			if (!strcmp(ev, record_kprobe_fn(i)))
				hits[i] += h;
	}
	fclose(f);
}

/* Each probe's event id in @inst where it is enabled there, else -1. */
void record_kprobe_ids(struct tracefs_instance *inst, int ids[RECORD_N_KP])
{
	for (size_t i = 0; i < RECORD_N_KP; i++) {
		const char *fn = record_kprobe_fn(i);
		char *s = NULL, *en = NULL;
		int id;

		ids[i] = -1;
		en = tracefs_event_file_read(inst, RECORD_KP_GROUP, fn, "enable", NULL);
		if (en && en[0] == '1')
			s = tracefs_event_file_read(inst, RECORD_KP_GROUP, fn, "id", NULL);
		if (s) {
			s[strcspn(s, "\n")] = '\0';
			if (!parse_int(s, &id) && id >= 0 && id <= 0xffff)
				ids[i] = id;
		}
		free(s);
		free(en);
	}
}

/* Add to @counts[i] the events of id @ids[i] in the sub-buffers of the file @path. */
static int count_file(const char *path, uint32_t subbuf, const int *ids, uint64_t *counts)
{
	unsigned char *buf = xcalloc(1, subbuf + 8);	/* rb_next() reads 8 bytes past */
	int fd = open(path, O_RDONLY | O_CLOEXEC), ret = 0;

	if (fd < 0) {
		free(buf);
		return -1;
	}
	for (;;) {
		struct rb_subbuf s;
		ssize_t n = read(fd, buf, subbuf);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ret = -1;
		if (n <= 0)
			break;
		if (rb_load(&s, buf, (uint32_t)n, __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__,
			    sizeof(long) == 8))
			continue;
		for (const unsigned char *p; (p = rb_event(&s)); rb_next(&s)) {
			uint16_t type;

			if (rb_event_size(&s) < 2)
				continue;
			memcpy(&type, p, 2);	/* common_type, in the host's order */
			for (size_t i = 0; i < RECORD_N_KP; i++)
				if (ids[i] == type)
					counts[i]++;
		}
	}
	close(fd);
	free(buf);
	return ret;
}

void record_kprobe_check(struct rec *r)
{
	uint64_t counts[RECORD_N_KP] = { 0 }, hits = 0, events = 0;
	uint32_t subbuf;
	char worst[512];
	size_t pos = 0;
	bool any = false;

	for (size_t i = 0; i < RECORD_N_KP; i++)
		any |= r->kp_id[i] >= 0;
	if (!any || !r->kp_hits_taken[0] || !r->kp_hits_taken[1] || !r->files)
		return;
	subbuf = record_subbuf_size(r->inst);
	for (int c = 0; c < r->ncpus; c++)
		if (r->files[c] && count_file(r->files[c], subbuf, r->kp_id, counts))
			rec_warning("%s: %s: cannot count the kprobe events: %s", r->c.who,
				    r->files[c], strerror(errno));
	worst[0] = '\0';
	for (size_t i = 0; i < RECORD_N_KP; i++) {
		uint64_t h;

		if (r->kp_id[i] < 0)
			continue;
		h = r->kp_hits[1][i] - r->kp_hits[0][i];
		hits += h;
		events += counts[i];
		r->kp_events[i] = counts[i];
		/* hits just before tracing went on or after it went off have no event */
		if (h > counts[i] + 16 && pos < sizeof(worst))
			pos += snprintf(worst + pos, sizeof(worst) - pos, "%s%s %llu/%llu",
					pos ? ", " : "", record_kprobe_fn(i),
					(unsigned long long)counts[i], (unsigned long long)h);
	}
	if (!hits)
		return;
	if (!events && r->c.kprobes_perf) {
		fprintf(stderr, "tlbscope: %s: kprobes: the ring buffer has none of their events "
			"(the kernel dropped all %llu hits); perf events took them: the flush "
			"evidence is in %s\n", r->c.who, (unsigned long long)hits,
			r->c.kprobes_perf);
		return;
	}
	if (!events) {
		rec_warning("%s: the kernel dropped every kprobe event: the probes hit %llu times "
			    "while recording (kprobe_profile) and the ring buffer has none of "
			    "their events; a riscv64 kernel without ARCH_HAVE_NMI_SAFE_CMPXCHG "
			    "(Debian's 6.12) refuses ring-buffer writes from kprobe handlers, so "
			    "this trace has no flush evidence from the probes; record "
			    "--kprobes-via perf takes them through perf events into a perf.data "
			    "that report reads", r->c.who, (unsigned long long)hits);
		return;
	}
	fprintf(stderr, "tlbscope: %s: kprobes: %llu hits while recording, %llu events "
		"recorded\n", r->c.who, (unsigned long long)hits, (unsigned long long)events);
	if (worst[0])
		rec_warning("%s: kprobe events missing from the ring buffer (recorded/hits): %s",
			    r->c.who, worst);
}
