// SPDX-License-Identifier: GPL-2.0-only
/*
 * lib/relay.c: every slot handed over is worked on, once, in the order handed, by one
 * thread other than the caller's; a slot is given back to fill only once its last use is
 * done; relay_free() returns after the last one.  Without a thread, the caller works on the
 * first slot as it hands it over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include <cmocka.h>

#include "../../lib/lib.h"

#define SLOTS	3
#define ITEMS	2000

struct item {
	int seq;		/* the caller's count when it handed the slot over */
	atomic_int busy;	/* being worked on */
};

struct seen {
	pthread_t caller;
	int next;		/* the seq expected next */
	int out_of_order, on_caller, overlapped;
	int worked;
};

static void work(void *ctx, void *slot)
{
	struct seen *s = ctx;
	struct item *it = slot;

	if (pthread_equal(pthread_self(), s->caller))
		s->on_caller++;
	if (it->seq != s->next)
		s->out_of_order++;
	s->next = it->seq + 1;
	atomic_store(&it->busy, 1);
	if (it->seq % 97 == 0)	/* now and then slower than the caller */
		nanosleep(&(struct timespec){ .tv_nsec = 200000 }, NULL);
	atomic_store(&it->busy, 0);
	s->worked++;
}

static void test_order_and_reuse(void **state)
{
	struct item items[SLOTS] = { 0 };
	void *slots[SLOTS];
	struct seen s = { .caller = pthread_self() };
	struct relay *r;

	(void)state;
	for (int i = 0; i < SLOTS; i++)
		slots[i] = &items[i];
	r = relay_new(slots, SLOTS, work, &s, true);
	assert_non_null(r);
	for (int i = 0; i < ITEMS; i++) {
		struct item *it = relay_slot(r);

		/* given back only once the thread is done with it */
		if (atomic_load(&it->busy))
			s.overlapped++;
		it->seq = i;
		relay_put(r);
	}
	relay_free(r);
	assert_int_equal(s.worked, ITEMS);
	assert_int_equal(s.out_of_order, 0);
	assert_int_equal(s.on_caller, 0);
	assert_int_equal(s.overlapped, 0);
}

static void test_nothing_handed(void **state)
{
	struct item items[1] = { 0 };
	void *slots[1] = { &items[0] };
	struct seen s = { .caller = pthread_self() };

	(void)state;
	relay_free(relay_new(slots, 1, work, &s, true));
	relay_free(relay_new(slots, 1, work, &s, false));
	relay_free(NULL);
	assert_int_equal(s.worked, 0);
	assert_null(relay_new(slots, 0, work, &s, true));
}

static void test_no_thread(void **state)
{
	struct item items[SLOTS] = { 0 };
	void *slots[SLOTS];
	struct seen s = { .caller = pthread_self() };
	struct relay *r;

	(void)state;
	for (int i = 0; i < SLOTS; i++)
		slots[i] = &items[i];
	r = relay_new(slots, SLOTS, work, &s, false);
	assert_non_null(r);
	for (int i = 0; i < 10; i++) {
		struct item *it = relay_slot(r);

		assert_ptr_equal(it, &items[0]);
		it->seq = i;
		relay_put(r);
		assert_int_equal(s.worked, i + 1);	/* done as it was handed over */
	}
	relay_free(r);
	assert_int_equal(s.out_of_order, 0);
	assert_int_equal(s.on_caller, 10);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_order_and_reuse),
		cmocka_unit_test(test_nothing_handed),
		cmocka_unit_test(test_no_thread),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
