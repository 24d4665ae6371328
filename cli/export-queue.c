// SPDX-License-Identifier: GPL-2.0-only
/*
 * export's drawing on a thread of its own (-j 2 or more): the model's draws are copied,
 * their strings with them, into batches of BATCH_DRAWS, and each full batch is rendered
 * by one thread (a relay, lib/relay.c) while the next ones fill, BATCHES at most ahead.
 * The thread renders the batches in their order, so the renderer sees the draws in their
 * order, one thread at a time: its output is the unthreaded one's to the byte.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "export.h"

#define BATCH_DRAWS	8192
#define BATCHES		4

struct batch {
	struct export_draw d[BATCH_DRAWS];
	size_t n;
	char *text;		/* the draws' strings; a draw holds offset + 1 (0: NULL) */
	size_t tn, talloc;
};

struct export_queue {
	struct export_sink to;		/* the renderer */
	struct batch b[BATCHES];
	void *slots[BATCHES];
	struct relay *relay;
	struct batch *filling;
};

static void render(void *ctx, void *slot);

struct export_queue *export_queue_new(struct export_sink to)
{
	struct export_queue *q = xcalloc(1, sizeof(*q));

	q->to = to;
	for (int i = 0; i < BATCHES; i++)
		q->slots[i] = &q->b[i];
	q->relay = relay_new(q->slots, BATCHES, render, q, true);
	q->filling = relay_slot(q->relay);
	return q;
}

/* @s into @b's text, as the offset + 1 a draw keeps in place of the pointer */
static const char *keep(struct batch *b, const char *s)
{
	size_t n, at;

	if (!s)
		return NULL;
	n = strlen(s) + 1;
	at = b->tn;
	ALLOC_GROW(b->text, b->tn + n, b->talloc);
	memcpy(b->text + at, s, n);
	b->tn += n;
	return (const char *)(uintptr_t)(at + 1);
}

static const char *back(struct batch *b, const char *kept)
{
	return kept ? b->text + ((uintptr_t)kept - 1) : NULL;
}

/* Each string of @d replaced by @f(@b, it). */
static void map_strings(struct export_draw *d, struct batch *b,
			const char *(*f)(struct batch *b, const char *s))
{
	switch (d->what) {
	case EXPORT_SLICE:
		d->u.slice.mm = f(b, d->u.slice.mm);
		break;
	case EXPORT_REQUEST:
		d->u.request.mm = f(b, d->u.request.mm);
		d->u.request.scope = f(b, d->u.request.scope);
		d->u.request.event = f(b, d->u.request.event);
		break;
	case EXPORT_IPI:
		d->u.ipi.mm = f(b, d->u.ipi.mm);
		break;
	default:
		break;
	}
}

static void render(void *ctx, void *slot)
{
	struct export_queue *q = ctx;
	struct batch *b = slot;

	for (size_t i = 0; i < b->n; i++) {
		map_strings(&b->d[i], b, back);
		q->to.draw(q->to.ctx, &b->d[i]);
	}
	b->n = 0;
	b->tn = 0;
}

/* The batch being filled to the renderer (the relay's thread, or here when none started). */
static void hand_over(struct export_queue *q)
{
	if (!q->filling->n)
		return;
	relay_put(q->relay);
	q->filling = relay_slot(q->relay);
}

void export_queue_draw(void *ctx, const struct export_draw *d)
{
	struct export_queue *q = ctx;
	struct batch *b = q->filling;
	struct export_draw *k = &b->d[b->n++];

	*k = *d;
	map_strings(k, b, keep);
	if (b->n == BATCH_DRAWS)
		hand_over(q);
}

void export_queue_finish(struct export_queue *q)
{
	if (!q)
		return;
	hand_over(q);
	relay_free(q->relay);
	for (int i = 0; i < BATCHES; i++)
		free(q->b[i].text);
	free(q);
}
