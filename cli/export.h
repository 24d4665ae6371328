/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Internal to tlbscope export: the renderers of export-chrome.c and export-perfetto.c.
 * cmd-export.c runs analysis/'s export model and hands each thing it draws to the chosen
 * format's renderer, which writes its bytes and nothing else.
 */
#ifndef TLBSCOPE_CLI_EXPORT_H
#define TLBSCOPE_CLI_EXPORT_H

#include <stdio.h>

#include "../analysis/export.h"

/* What a renderer writes before the first thing drawn, and how; strings borrowed. */
struct export_header {
	const char *trace;		/* the input as given ("-" for stdin) */
	const char *format;		/* the input's format */
	const char *ipi_source;		/* the flush-IPI evidence counted, NULL none */
	uint64_t first_ts;		/* ns, trace clock: the first event */
	uint64_t base;			/* ns subtracted from every time drawn */
	bool entries;			/* arrows end at handler entries (else at the send) */
	int T, Q;			/* the lazy model's point */
	int ncpus;			/* CPU tracks 0..ncpus-1 */
	bool uncompressed;		/* perfetto: packets as they are, none deflated */
};

/*
 * One output format: begin() writes the header to @out (borrowed until end()) and returns
 * the renderer's state, draw() one thing (an export_sink's draw), end() writes the trailer
 * when the input was read to its end (@complete; else the output stops where it stopped)
 * and frees the state.
 */
struct export_renderer {
	const char *name;
	void *(*begin)(FILE *out, const struct export_header *h);
	void (*draw)(void *state, const struct export_draw *d);
	void (*end)(void *state, bool complete);
	bool binary;			/* refused on a terminal */
};

extern const struct export_renderer export_chrome, export_perfetto;

/*
 * export-queue.c: a sink (export_queue_draw(), with the queue as its context) that hands
 * what is drawn to @to on a thread of its own, in batches; export_queue_finish() after the
 * last draw: everything drawn, the thread joined, the queue freed.
 */
struct export_queue;
struct export_queue *export_queue_new(struct export_sink to);
void export_queue_draw(void *ctx, const struct export_draw *d);
void export_queue_finish(struct export_queue *q);

#endif
