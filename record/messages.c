// SPDX-License-Identifier: GPL-2.0-only
/*
 * record/'s messages on stderr, as the rest of tlbscope writes them ("tlbscope: ...",
 * "tlbscope: warning: ...").
 */
#include <stdarg.h>
#include <stdio.h>

#include "../lib/lib.h"
#include "record-int.h"

int rec_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(false, fmt, ap);
	va_end(ap);
	return -1;
}

void rec_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(true, fmt, ap);
	va_end(ap);
}
