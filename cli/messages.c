// SPDX-License-Identifier: GPL-2.0-only
/*
 * Messages of every command on standard error ("tlbscope: ...", "tlbscope: warning:
 * ..."), and the check that standard output took everything written to it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "cli.h"

int error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(false, fmt, ap);
	va_end(ap);
	return EXIT_BAD;
}

void warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vmessage(true, fmt, ap);
	va_end(ap);
}

int finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		error("write error on standard output: %s", strerror(errno ? errno : EIO));
		return EXIT_BAD;
	}
	return status;
}

int cli_need_root(const char *cmd, const char *unless)
{
	if (geteuid() == 0)
		return EXIT_OK;
	return error("%s: needs root (tracefs)%s%s", cmd, unless ? "; " : "", unless ? unless : "");
}
