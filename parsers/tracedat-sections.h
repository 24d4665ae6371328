/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The content of a trace.dat's header sections (tracedat-sections.c): 0, or -1 with the
 * message on the source; @where names the text.
 */
#ifndef TLBSCOPE_PARSERS_TRACEDAT_SECTIONS_H
#define TLBSCOPE_PARSERS_TRACEDAT_SECTIONS_H

#include "tracedat-data.h"

int tdc_check_header_page(struct cur *c, const char *where, const char *text, uint64_t len);
int tdc_check_printk(struct cur *c, const char *where, const char *text, uint64_t len);
/* v7: the section whose offset the option @id at the cursor gives (the cursor passes it) */
int tdc_check_section_ref(struct cur *c, uint16_t id);
/*
 * An event format of @len bytes at @off (for the messages): parsed in the child, noted in the
 * layout's meta when it wants it, else passed.
 */
int tdc_format_text(struct cur *c, const char *sys, const char *text, uint64_t len, uint64_t off);
/* Does the caller want the text of formats (the child's parse, or the layout's meta)? */
bool tdc_wants_formats(const struct cur *c);
/* Where the text of kallsyms or cmdlines (@t) is: see struct tdc_text. */
void tdc_text_note(struct tdc_text *t, bool z, uint64_t off, uint64_t zsize, uint64_t pos,
		   uint64_t len);

#endif
