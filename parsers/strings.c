// SPDX-License-Identifier: GPL-2.0-only
/*
 * A source's string table: names interned once (those not in UTF-8 escaped as the input
 * checks say, validate.c) and looked up by id.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lib.h"
#include "format.h"

const char *ts_source_str(const struct ts_source *src, uint32_t id)
{
	const char *s = strtab_get(src->strs, id);

	return s ? s : "";
}

uint32_t ts_source_intern(struct ts_source *src, const char *s)
{
	uint32_t id;
	char *e;

	if (utf8_valid(s))
		return strtab_intern(src->strs, s);
	e = ts_check_escape(src, s);
	id = strtab_intern(src->strs, e);
	free(e);
	return id;
}

uint32_t ts_source_str_count(const struct ts_source *src)
{
	return strtab_count(src->strs);
}

