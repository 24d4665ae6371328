// SPDX-License-Identifier: GPL-2.0-only
/*
 * The timeline and the analyses on a thread of their own (report and tune, with more than
 * one thread in effect, -j): the caller's thread reads and decodes the records as ever
 * (the reader's state, libtraceevent's handle and the source's tables stay on it), and
 * hands them over in batches; the model's thread feeds them to the timeline in their order.
 * The output is the same, byte for byte: one thread at a time feeds the model, the other
 * taking over only once every batch handed over has been fed.
 *
 * Kept only while it is faster.  A hand-over moves each event (160 bytes) from one CPU's
 * cache to the other's, and what that costs depends on where the machine puts the two
 * threads: on a virtual machine of 2 CPUs a cache line's round trip between them took
 * 180-190 ns in one hour and 460-6,000 ns in others, and report of a 544 MB recording took
 * 0.57 s with this thread against 0.72 s without it in the first, 1.25-1.49 s and worse in
 * the others (bench/README.md), and a minute later it can be the other way.  So each way
 * is timed as the input is read: TRIAL events by the reader, then the thread's turns of
 * TRIAL events until two in a row are not a tenth faster than that, PERIOD events at most
 * before the reader is timed again.  After the thread lost, the reader feeds BACK_MIN
 * events when the thread had won turns (the machine had a bad moment), else twice as many
 * as the last time, PERIOD at most (it keeps the threads apart).  Each way's first TRIAL
 * events after the other's are not timed: they bring the model's tables into the cache of
 * the CPU that now feeds it.
 *
 * A side that waits spins (a wake-up through the kernel took longer than a batch), the
 * model's thread for SPIN pauses before it sleeps until the next batch.
 */
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "cli.h"

#define BATCH		128		/* events a hand-over carries */
#define SLOTS		16		/* batches handed over and not yet fed, at most */
#define TRIAL		(1u << 15)	/* events each way is timed on */
#define PERIOD		(1u << 22)	/* events fed the faster way between two trials */
#define BACK_MIN	(1u << 18)	/* events fed by the reader after the thread lost, at least */
#define SPIN		(1u << 14)	/* pauses before the model's thread sleeps, or the
					 * reader's yields its CPU */
#define ALTERNATE	1021		/* TLBSCOPE_MODEL_THREAD=alternate: events each way */

struct batch {
	struct ts_event ev[BATCH];
	unsigned n;
};

struct mt {
	struct batch *slot;		/* SLOTS */
	struct timeline *tl;
	tl_emit_fn emit;
	void *ctx;
	bool started;			/* @thread: made at the first hand-over */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	bool closing;			/* under @lock */
	/* each apart from the others' cache lines: the other thread reads it in a loop */
	char pad0[64];
	uint64_t head;			/* batches handed over: the reader's to write */
	char pad1[64];
	uint64_t tail;			/* batches fed: the model thread's to write */
	char pad2[64];
	int parked;			/* the model's thread sleeps on @wake */
	char pad3[64];
};

enum way { WAY_READER, WAY_THREAD };

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield" ::: "memory");
#else
	__asm__ volatile("" ::: "memory");
#endif
}

/* The model's thread: true when batch @t is there, false when none will be. */
static bool batch_wait(struct mt *m, uint64_t t)
{
	bool more;

	for (unsigned i = 0; i < SPIN; i++) {
		if (__atomic_load_n(&m->head, __ATOMIC_ACQUIRE) != t)
			return true;
		cpu_relax();
	}
	/* parked, then head read again: batch_put() stores head, then reads parked */
	pthread_mutex_lock(&m->lock);
	__atomic_store_n(&m->parked, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&m->head, __ATOMIC_SEQ_CST) == t && !m->closing)
		pthread_cond_wait(&m->wake, &m->lock);
	__atomic_store_n(&m->parked, 0, __ATOMIC_RELAXED);
	more = __atomic_load_n(&m->head, __ATOMIC_ACQUIRE) != t;
	pthread_mutex_unlock(&m->lock);
	return more;
}

static void *model_main(void *arg)
{
	struct mt *m = arg;

	for (uint64_t t = 0; batch_wait(m, t); t++) {
		struct batch *b = &m->slot[t % SLOTS];

		for (unsigned i = 0; i < b->n; i++)
			timeline_feed(m->tl, &b->ev[i], m->emit, m->ctx);
		__atomic_store_n(&m->tail, t + 1, __ATOMIC_RELEASE);
	}
	return NULL;
}

static void wake(struct mt *m)
{
	pthread_mutex_lock(&m->lock);
	pthread_cond_signal(&m->wake);
	pthread_mutex_unlock(&m->lock);
}

/* The reader's thread: batch @m->head filled, handed over. */
static void batch_put(struct mt *m)
{
	__atomic_store_n(&m->head, m->head + 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&m->parked, __ATOMIC_SEQ_CST))
		wake(m);
}

/* The reader's thread: until at most @left batches are not fed yet. */
static void fed_wait(struct mt *m, uint64_t left)
{
	unsigned spins = 0;

	while (m->head - __atomic_load_n(&m->tail, __ATOMIC_ACQUIRE) > left) {
		if (++spins < SPIN)
			cpu_relax();
		else
			sched_yield();
	}
}

/*
 * Up to @count events from @next fed by @way: by the reader's thread once the model's has
 * fed every batch handed over, else handed over (and the model's thread may still be
 * feeding them on return).  Returns @next's last result (1 more to come, 0 the end, -1
 * failed).
 */
static int feed(struct mt *m, enum way way, uint64_t count, int (*next)(void *, struct ts_event *),
		void *arg)
{
	uint64_t i = 0;
	int r = 1;

	if (way == WAY_READER) {
		struct ts_event ev;

		fed_wait(m, 0);
		while (i < count && (r = next(arg, &ev)) > 0) {
			timeline_feed(m->tl, &ev, m->emit, m->ctx);
			i++;
		}
		return r;
	}
	if (!m->started && !(m->started = !pthread_create(&m->thread, NULL, model_main, m)))
		return feed(m, WAY_READER, count, next, arg);	/* no thread to be had */
	while (i < count && r > 0) {
		struct batch *b;

		fed_wait(m, SLOTS - 1);
		b = &m->slot[m->head % SLOTS];
		b->n = 0;
		while (b->n < BATCH && i < count && (r = next(arg, &b->ev[b->n])) > 0) {
			b->n++;
			i++;
		}
		if (b->n)
			batch_put(m);
	}
	return r;
}

/* @count events fed by @way (feed()), timed into *@ns */
static int feed_timed(struct mt *m, enum way way, uint64_t count,
		      int (*next)(void *, struct ts_event *), void *arg, uint64_t *ns)
{
	uint64_t t0 = mono_ns();
	int r = feed(m, way, count, next, arg);

	*ns = mono_ns() - t0;
	return r;
}

/* TLBSCOPE_MODEL_THREAD: "always", "never", "alternate" (the tests'), else chosen by time */
enum choice { CHOOSE_TIMED, CHOOSE_ALWAYS, CHOOSE_NEVER, CHOOSE_ALTERNATE };

static enum choice choice_env(void)
{
	const char *v = getenv("TLBSCOPE_MODEL_THREAD");

	if (!v)
		return CHOOSE_TIMED;
	if (!strcmp(v, "always"))
		return CHOOSE_ALWAYS;
	if (!strcmp(v, "never"))
		return CHOOSE_NEVER;
	if (!strcmp(v, "alternate"))
		return CHOOSE_ALTERNATE;
	return CHOOSE_TIMED;
}

int model_thread_run(struct timeline *tl, tl_emit_fn emit, void *ctx,
		     int (*next)(void *arg, struct ts_event *ev), void *arg)
{
	struct mt *m = xcalloc(1, sizeof(*m));
	enum choice choice = choice_env();
	uint64_t t, t_reader = 0, back = BACK_MIN / 2;
	int r;

	m->tl = tl;
	m->emit = emit;
	m->ctx = ctx;
	m->slot = xmalloc(SLOTS * sizeof(*m->slot));
	pthread_mutex_init(&m->lock, NULL);
	pthread_cond_init(&m->wake, NULL);

	switch (choice) {
	case CHOOSE_NEVER:
	case CHOOSE_ALWAYS:
		r = feed(m, choice == CHOOSE_ALWAYS ? WAY_THREAD : WAY_READER, UINT64_MAX, next,
			 arg);
		break;
	case CHOOSE_ALTERNATE:
		for (enum way way = WAY_READER;
		     (r = feed(m, way, ALTERNATE, next, arg)) > 0;
		     way = way == WAY_READER ? WAY_THREAD : WAY_READER)
			;
		break;
	default:
		/*
		 * The model's tables are in the cache of the CPU that fed it last: each way's
		 * first TRIAL events after the other's bring them over, and are not timed.
		 */
		r = feed(m, WAY_READER, TRIAL, next, arg);
		while (r > 0) {
			unsigned turns = 0, slow = 0;

			/* the reader's time now: the machine's pace changes from minute to minute */
			r = feed_timed(m, WAY_READER, TRIAL, next, arg, &t_reader);
			/*
			 * The thread's turns, TRIAL events each (timed as they are handed
			 * over: with the batches in flight bounded, the slower side sets the
			 * pace), while they are a tenth faster than the reader's at least, else
			 * its CPU is not worth it: two slow turns in a row end them (one is
			 * as likely the machine's hiccup), and PERIOD events at most before
			 * the reader is timed again.
			 */
			if (r > 0)
				r = feed(m, WAY_THREAD, TRIAL, next, arg);
			for (uint64_t k = 0; r > 0 && k < PERIOD / TRIAL && slow < 2; k++) {
				r = feed_timed(m, WAY_THREAD, TRIAL, next, arg, &t);
				if (t * 10 >= t_reader * 9) {
					slow++;
				} else {
					slow = 0;
					turns++;
				}
			}
			if (r <= 0)
				break;
			if (slow < 2) {		/* the thread won: the reader's cache warmed again */
				r = feed(m, WAY_READER, TRIAL, next, arg);
				continue;
			}
			/*
			 * The reader's stretch before the thread is tried again: short where
			 * the thread had won turns (the machine had a bad moment), doubled
			 * while it wins none (the machine keeps the threads apart), PERIOD at
			 * most: one trial then costs a few TRIALs in PERIOD.
			 */
			back = turns ? BACK_MIN : back * 2 > PERIOD ? PERIOD : back * 2;
			r = feed(m, WAY_READER, back, next, arg);
		}
		break;
	}
	if (m->started) {
		pthread_mutex_lock(&m->lock);
		m->closing = true;
		pthread_cond_signal(&m->wake);
		pthread_mutex_unlock(&m->lock);
		pthread_join(m->thread, NULL);
	}
	pthread_mutex_destroy(&m->lock);
	pthread_cond_destroy(&m->wake);
	free(m->slot);
	free(m);
	return r;
}
