// SPDX-License-Identifier: GPL-2.0-only
/*
 * Unit costs the trace itself shows: the remote flush handler
 * (csd_function_entry -> csd_function_exit of a flush callback on its target), the
 * requester's own call of it, and the IPI's delivery (csd_queue_cpu on the sender -> the
 * target's csd_function_entry of that callback).  Kept as log-scale histograms, so memory
 * does not grow with the trace; a figure with enough samples replaces the platform's.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "../lib/lib.h"
#include "tuner-int.h"

#define SUB		16	/* buckets per octave: a quantile is within 4.4 % */
#define NBUCKETS	(48 * SUB)	/* up to 2^48 ns */
#define PENDING		64	/* IPIs queued to one CPU and not yet entered */

enum measured { M_REMOTE, M_LOCAL, M_DELIVERY, M__COUNT };

/*
 * What each measurement is, and the figure it prices where the trace's timings are the
 * hardware's (PF__COUNT: shown only).  The delivery (queue -> handler entry) is latency,
 * not CPU time; the requester's own callback is the same range flush the targets run.
 */
static const struct {
	enum platform_fig fig;
	const char *name;
	const char *how;
	const char *unpriced;	/* why it prices nothing of its own */
} measured[M__COUNT] = {
	[M_REMOTE] = { PF_REMOTE_FLUSH, "remote flush handler", "csd_function_entry -> "
		       "csd_function_exit of the flush callback on its target", NULL },
	[M_LOCAL] = { PF__COUNT, "requester's own flush", "csd_function_entry -> "
		      "csd_function_exit of the flush callback the requester runs itself",
		      "the same range flush the targets run, priced by theirs" },
	[M_DELIVERY] = { PF__COUNT, "IPI delivery latency", "csd_queue_cpu on the sender -> "
			 "csd_function_entry of the flush callback on the target",
			 "latency, not CPU time" },
};

struct cpu_state {
	uint64_t entry_ts;	/* a flush callback entered and not yet exited, 0 none */
	bool entry_local;
	uint64_t queued[PENDING];	/* csd_queue_cpu times of flush IPIs to this CPU */
	int from[PENDING];		/* and their senders */
	int head, len;
};

struct tuner_measure {
	uint64_t hist[M__COUNT][NBUCKETS];
	uint64_t n[M__COUNT];
	uint64_t ts_gcd;	/* of every event's time: the clock's tick (ns), 0 none seen */
	struct cpu_state cpu[TS_MAX_CPUS];
};

struct tuner_measure *tuner_measure_new(void)
{
	return xcalloc(1, sizeof(struct tuner_measure));
}

void tuner_measure_free(struct tuner_measure *m)
{
	free(m);
}

static void add(struct tuner_measure *m, enum measured k, uint64_t ns)
{
	int b = ns ? (int)(log2((double)ns) * SUB) : 0;

	if (b >= NBUCKETS)
		b = NBUCKETS - 1;
	m->hist[k][b]++;
	m->n[k]++;
}

/* The value at quantile @q (0..1): the geometric middle of its bucket. */
static double quantile(const struct tuner_measure *m, enum measured k, double q)
{
	uint64_t want = (uint64_t)(q * (m->n[k] - 1)), seen = 0;

	for (int b = 0; b < NBUCKETS; b++) {
		seen += m->hist[k][b];
		if (seen > want)
			return exp2((b + 0.5) / SUB);
	}
	return 0;
}

/* gcd(0, b) = b: the tick of no timestamp yet is unknown */
static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t r = a % b;

		a = b;
		b = r;
	}
	return a;
}

void tuner_measure_feed(struct tuner_measure *m, const struct ts_event *ev, const char *name)
{
	struct cpu_state *c;

	if (ev->cpu < 0 || ev->cpu >= TS_MAX_CPUS)
		return;
	if (m->ts_gcd != 1 && ev->ts)
		m->ts_gcd = gcd(m->ts_gcd, ev->ts);
	c = &m->cpu[ev->cpu];
	if (ev->kind == TS_EV_IPI && (ev->flags & TS_F_TLB) && ev->u.ipi.src == TS_SRC_CSD_QUEUE &&
	    !(ev->flags & (TS_F_RECV | TS_F_LOCAL))) {
		/* one event per target; the target's entries come in the order they were queued */
		int t;

		ts_cpumask_for_each(t, &ev->u.ipi.targets) {
			struct cpu_state *tc = &m->cpu[t];

			if (t == ev->cpu)
				continue;
			if (tc->len == PENDING) {	/* entries unseen: forget the oldest */
				tc->head = (tc->head + 1) % PENDING;
				tc->len--;
			}
			tc->from[(tc->head + tc->len) % PENDING] = ev->cpu;
			tc->queued[(tc->head + tc->len++) % PENDING] = ev->ts;
		}
		return;
	}
	if (ev->kind == TS_EV_IPI && (ev->flags & TS_F_TLB) && ev->u.ipi.src == TS_SRC_CSD_ENTRY) {
		c->entry_ts = ev->ts;
		c->entry_local = ev->flags & TS_F_LOCAL;
		if (!c->entry_local && c->len) {
			uint64_t q = c->queued[c->head];
			int from = c->from[c->head];

			c->head = (c->head + 1) % PENDING;
			c->len--;
			/* a sender that differs: queue events are missing (x86 traces only some) */
			if (from == ev->u.ipi.from && ev->ts >= q)
				add(m, M_DELIVERY, ev->ts - q);
		}
		return;
	}
	if (ev->kind == TS_EV_OTHER && c->entry_ts && name && !strcmp(name, "csd_function_exit")) {
		if (ev->ts >= c->entry_ts)
			add(m, c->entry_local ? M_LOCAL : M_REMOTE, ev->ts - c->entry_ts);
		c->entry_ts = 0;
	}
}

uint64_t tuner_measure_tick(const struct tuner_measure *m)
{
	return m->ts_gcd;
}

void tuner_measure_apply(const struct tuner_measure *m, struct platform *p, bool use)
{
	p->nseen = 0;
	for (int k = 0; k < M__COUNT; k++) {
		enum platform_fig f = measured[k].fig;
		struct pf_seen *seen;

		if (m->n[k] < TUNER_MIN_SAMPLES)
			continue;
		seen = &p->seen[p->nseen++];
		seen->name = measured[k].name;
		seen->how = measured[k].how;
		seen->unpriced = measured[k].unpriced;
		seen->fig = f;
		seen->samples = m->n[k];
		seen->median = round(quantile(m, k, 0.5));
		seen->p25 = round(quantile(m, k, 0.25));
		seen->p75 = round(quantile(m, k, 0.75));
		seen->used = use && f < PF__COUNT && p->origin[f] != PF_FROM_USER;
		if (!seen->used)
			continue;
		p->v[f] = seen->median;
		p->origin[f] = PF_FROM_TRACE;
		p->samples[f] = m->n[k];
		p->p25[f] = seen->p25;
		p->p75[f] = seen->p75;
		snprintf(p->source[f], sizeof(p->source[f]), "median of %s", measured[k].how);
	}
}

int tuner_machine_parse(const char *s)
{
	static const char *const names[] = { "auto", "vm", "metal" };

	for (int i = 0; i < (int)(sizeof(names) / sizeof(names[0])); i++)
		if (!strcmp(s, names[i]))
			return i;
	return -1;
}

void tuner_host_detect(const struct tuner_measure *m, const char *uname, const char *machine,
		       enum tuner_machine given, struct tuner_host *h)
{
	const char *vms[] = { "qemu", "kvm", "hypervisor", "xen", "vmware" };
	double delivery = m->n[M_DELIVERY] >= TUNER_MIN_SAMPLES ?
			  quantile(m, M_DELIVERY, 0.5) : 0;

	memset(h, 0, sizeof(*h));
	if (given != TUNER_MACHINE_AUTO) {
		h->vm = given == TUNER_MACHINE_VM;
		h->user = true;
		snprintf(h->how, sizeof(h->how), "--machine %s", h->vm ? "vm" : "metal");
		return;
	}
	if (machine && !strncmp(machine, "vm (", 4)) {
		/* "vm (what said so)" */
		int n = (int)strlen(machine + 4) - (machine[strlen(machine) - 1] == ')');

		h->vm = true;
		snprintf(h->how, sizeof(h->how), "tlbscope record saw %.*s", n > 120 ? 120 : n,
			 machine + 4);
		return;
	}
	for (size_t i = 0; uname && i < sizeof(vms) / sizeof(vms[0]); i++)
		if (strcasestr(uname, vms[i])) {
			h->vm = true;
			snprintf(h->how, sizeof(h->how), "the kernel string names %s", vms[i]);
			return;
		}
	if (m->ts_gcd == 100) {
		/* sched_clock counts the timer: every time a multiple of 100 ns, not of 200 */
		h->vm = true;
		snprintf(h->how, sizeof(h->how), "timestamps tick at 100 ns, QEMU virt's timebase");
		return;
	}
	if (delivery > TUNER_VM_DELIVERY_NS) {
		h->vm = true;
		snprintf(h->how, sizeof(h->how), "flush IPIs took a median %.0f us from queue to "
			 "handler: vCPUs scheduled by a host, not an interrupt controller",
			 delivery / 1000);
		return;
	}
	snprintf(h->how, sizeof(h->how), "no sign of a virtual machine in the trace (kernel "
		 "string, timer tick, IPI delivery%s)", machine ? ", tlbscope record's look" : "");
}

const char *platform_origin_name(enum pf_origin o)
{
	static const char *const names[] = { "platform", "user", "trace" };

	return o <= PF_FROM_TRACE ? names[o] : "?";
}

static const char *const mnames[M__COUNT] = { "remote_flush", "local_flush", "delivery" };

void tuner_measure_merge(struct tuner_measure *dst, const struct tuner_measure *src, uint64_t w)
{
	for (int k = 0; k < M__COUNT; k++) {
		for (int b = 0; b < NBUCKETS; b++)
			dst->hist[k][b] += src->hist[k][b] * w;
		dst->n[k] += src->n[k] * w;
	}
	/* the sum's tick: the coarsest that divides every input's (gcd) */
	dst->ts_gcd = gcd(dst->ts_gcd, src->ts_gcd);
}

json_t *tuner_measure_json(const struct tuner_measure *m)
{
	json_t *j = json_object();

	for (int k = 0; k < M__COUNT; k++) {
		json_t *a = json_array();

		/* [bucket, count] of the buckets that are not empty */
		for (int b = 0; b < NBUCKETS; b++)
			if (m->hist[k][b])
				json_array_append_new(a, json_pack("[i,I]", b,
							  (json_int_t)m->hist[k][b]));
		json_object_set_new(j, mnames[k], a);
	}
	json_object_set_new(j, "ts_gcd", json_integer((json_int_t)m->ts_gcd));
	return j;
}

int tuner_measure_load(struct tuner_measure *m, json_t *j)
{
	memset(m->hist, 0, sizeof(m->hist));
	memset(m->n, 0, sizeof(m->n));
	m->ts_gcd = (uint64_t)json_integer_value(json_object_get(j, "ts_gcd"));
	for (int k = 0; k < M__COUNT; k++) {
		json_t *a = json_object_get(j, mnames[k]), *v;
		size_t i;

		if (!json_is_array(a))
			return -1;
		json_array_foreach(a, i, v) {
			json_int_t b, c;

			if (json_unpack(v, "[I,I]", &b, &c) || b < 0 || b >= NBUCKETS || c < 0)
				return -1;
			m->hist[k][b] += (uint64_t)c;
			m->n[k] += (uint64_t)c;
		}
	}
	return 0;
}
