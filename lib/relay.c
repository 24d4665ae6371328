// SPDX-License-Identifier: GPL-2.0-only
/*
 * A relay: one thread, started once, that does the same work on buffers handed to it, in
 * the order they were handed, while the caller fills the next ones.  The caller owns the
 * buffers (its slots); a slot is given back to be filled again once the thread is done with
 * it, so the slots bound what waits.  Where a thread per buffer (pthread_create() and
 * pthread_join() each time) cost about 55 us on a virtual machine, a hand-over here is a
 * mutex and a wake-up, and only when one side waits for the other.  Without a thread (none
 * asked for, or none started) the caller does the work as it hands a buffer over, always
 * in the first one.
 */
#include <pthread.h>
#include <stdlib.h>

#include "lib.h"

struct relay {
	void **slots;
	unsigned nslots;
	void (*work)(void *ctx, void *slot);
	void *ctx;
	bool threaded;			/* else the work is done in relay_put() */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t handed;		/* a slot was handed over, or the relay closes */
	pthread_cond_t freed;		/* the thread is done with a slot */
	uint64_t put, done;		/* slots handed over, slots the thread is done with */
	bool closing;
};

static void *relay_main(void *arg)
{
	struct relay *r = arg;

	pthread_mutex_lock(&r->lock);
	for (;;) {
		while (r->done == r->put && !r->closing)
			pthread_cond_wait(&r->handed, &r->lock);
		if (r->done == r->put)
			break;
		pthread_mutex_unlock(&r->lock);
		r->work(r->ctx, r->slots[r->done % r->nslots]);
		pthread_mutex_lock(&r->lock);
		r->done++;
		pthread_cond_signal(&r->freed);
	}
	pthread_mutex_unlock(&r->lock);
	return NULL;
}

struct relay *relay_new(void **slots, unsigned nslots, void (*work)(void *ctx, void *slot),
			void *ctx, bool thread)
{
	struct relay *r;

	if (nslots < 1)
		return NULL;
	r = xcalloc(1, sizeof(*r));
	r->slots = slots;
	r->nslots = nslots;
	r->work = work;
	r->ctx = ctx;
	pthread_mutex_init(&r->lock, NULL);
	pthread_cond_init(&r->handed, NULL);
	pthread_cond_init(&r->freed, NULL);
	r->threaded = thread && !pthread_create(&r->thread, NULL, relay_main, r);
	return r;
}

void *relay_slot(struct relay *r)
{
	void *slot;

	if (!r->threaded)
		return r->slots[0];
	pthread_mutex_lock(&r->lock);
	while (r->put - r->done >= r->nslots)
		pthread_cond_wait(&r->freed, &r->lock);
	slot = r->slots[r->put % r->nslots];
	pthread_mutex_unlock(&r->lock);
	return slot;
}

void relay_put(struct relay *r)
{
	if (!r->threaded) {
		r->work(r->ctx, r->slots[0]);
		return;
	}
	pthread_mutex_lock(&r->lock);
	r->put++;
	pthread_cond_signal(&r->handed);
	pthread_mutex_unlock(&r->lock);
}

void relay_free(struct relay *r)
{
	if (!r)
		return;
	if (r->threaded) {
		pthread_mutex_lock(&r->lock);
		r->closing = true;
		pthread_cond_signal(&r->handed);
		pthread_mutex_unlock(&r->lock);
		pthread_join(r->thread, NULL);
	}
	pthread_cond_destroy(&r->freed);
	pthread_cond_destroy(&r->handed);
	pthread_mutex_destroy(&r->lock);
	free(r);
}
