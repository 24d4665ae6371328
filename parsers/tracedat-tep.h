/* SPDX-License-Identifier: GPL-2.0-only */
/* The reader's libtraceevent handle of a trace.dat (tracedat-tep.c). */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_TEP_H
#define TLBSCOPE_PARSERS_TRACEDAT_TEP_H

#include <event-parse.h>

#include "tracedat-data.h"

/*
 * tracedat-tep.c: the reader's libtraceevent handle built from the layout's meta, formats
 * parsed as their records come.  tdc_tep_possible(): the meta has what it takes.
 * tdc_tep_new(): a new handle (tep_free() it), or NULL with the message on @src.
 * tdc_tep_event(): the event of @rec, whose type is @type (-1: read here), its format
 * parsed if it was not.  tdc_tep_load(): the saved command lines, or kallsyms (@syms), into
 * @tep; 0 or -1.
 */
bool tdc_tep_possible(const struct tdc_layout *l);
struct tep_handle *tdc_tep_new(struct ts_source *src, struct tdc_layout *l);
struct tep_event *tdc_tep_event(struct ts_source *src, struct tdc_layout *l,
				struct tep_handle *tep, const struct tep_record *rec, int type);
int tdc_tep_load(struct ts_source *src, int fd, struct tdc_layout *l, struct tep_handle *tep,
		 bool syms);
/*
 * kallsyms as tracedat-tep.c reads them: tdc_ksyms_take() a table of @text (malloc()ed,
 * taken: kept as it is, freed with the table; the last table made is kept, and given again
 * for the same text), NULL when a line's shape is for libtraceevent's own parse (@text is
 * then the caller's still); tdc_ksyms_new() the same of a copy of @text; tdc_ksyms_find()
 * the name of the function that holds *@addr (set to its start), as tep_find_function()
 * gives it after tep_parse_kallsyms(), or NULL; tdc_ksyms_free() after tep_free() of a
 * handle it served.
 */
struct tdc_ksyms *tdc_ksyms_take(char *text);
struct tdc_ksyms *tdc_ksyms_new(const char *text);
const char *tdc_ksyms_find(struct tdc_ksyms *k, unsigned long long *addr);
void tdc_ksyms_free(struct tdc_ksyms *k);
/* The text @t located, read (inflated) into a new NUL-terminated buffer, or NULL (message on @src). */
char *tdc_text_read(struct ts_source *src, int fd, const struct tdc_layout *l,
		    const struct tdc_text *t, const char *what);

#endif
