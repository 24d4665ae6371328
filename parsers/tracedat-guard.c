// SPDX-License-Identifier: GPL-2.0-only
/*
 * libtracecmd's parse of a trace.dat, guarded in this process.  The library trusts what it
 * reads and crashes or hangs on some corrupt files that the structural checks cannot
 * foresee (tracedat-check.c), so by default a child process parses the file first and the
 * reader parses it again once the child lived: on a file with 1600 event formats and 5 MB
 * of kallsyms that second parse was a third of `tlbscope report`'s time.
 *
 * A program that calls ts_tracedat_guard_here() parses once, here: during the library's
 * risky steps a fatal signal, or the alarm that bounds them, re-executes the program as
 * "PROG --tracedat-died FD crash|hang WHAT NAME" (nothing else is safe after a crash in
 * the library: its heap may be broken).  That fresh image finds the event format at fault
 * as the child would have (tracedat_died()) and exits with the same message.  Only for a
 * program whose main() first hands its arguments to ts_tracedat_died_main().
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/lib.h"
#include "format.h"

#define DIED_ARG	"--tracedat-died"	/* internal: the image re-executed after a crash */

static const int guarded[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGALRM };
#define NGUARDED	(sizeof(guarded) / sizeof(guarded[0]))

static struct {
	bool here;			/* ts_tracedat_guard_here() was called */
	char exe[4096];			/* this program ("" unknown) */
	bool armed;
	int fd;
	char fd_arg[16];
	char what[256];			/* the step under way */
	char *argv[7];
	struct sigaction old[NGUARDED];
	stack_t old_stack;
	unsigned int old_alarm;		/* seconds the program's own alarm had left */
	time_t armed_at;
} g;

/* a stack overflow in the library's recursive parser must still reach the handler */
static char alt_stack[64 << 10];

void ts_tracedat_guard_here(void)
{
	/* the path, not /proc/self/exe at the crash: that is valgrind's tool under valgrind */
	ssize_t n = readlink("/proc/self/exe", g.exe, sizeof(g.exe) - 1);

	g.exe[n > 0 && (size_t)n < sizeof(g.exe) - 1 ? n : 0] = '\0';
	g.here = true;
}

bool tracedat_guarded_here(void)
{
	return g.here;
}

static time_t monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void say(const char *s)
{
	if (write(STDERR_FILENO, s, strlen(s)) < 0)
		return;
}

/* Async-signal-safe only: the library's heap may be what broke. */
static void died(int sig)
{
	alarm(0);
	g.argv[3] = sig == SIGALRM ? "hang" : "crash";
	fcntl(g.fd, F_SETFD, 0);	/* the file (opened close-on-exec) is the new image's */
	if (g.exe[0])
		execve(g.exe, g.argv, environ);
	/* no /proc, or no program there any more: the message without the format's name */
	say("tlbscope: ");
	say(g.argv[5]);
	say(": corrupt trace.dat: the tracing libraries ");
	say(g.argv[3]);
	say(" reading ");
	say(g.what);
	say("\n");
	_exit(2);
}

/*
 * tracedat_guard - from here to tracedat_unguard(), a crash or hang of the library in this
 * process ends the run with "corrupt trace.dat: the tracing libraries crash reading WHAT"
 * (naming the event format at fault, if one is).  Called again while guarded, it only
 * says what is read now.  A no-op unless ts_tracedat_guard_here() was called.
 */
void tracedat_guard(struct ts_source *src, const char *fmt, ...)
{
	struct sigaction sa = { .sa_handler = died, .sa_flags = SA_ONSTACK | SA_RESETHAND };
	stack_t st = { .ss_sp = alt_stack, .ss_size = sizeof(alt_stack) };
	struct stat fst;
	va_list ap;

	if (!g.here)
		return;
	va_start(ap, fmt);
	vsnprintf(g.what, sizeof(g.what), fmt, ap);
	va_end(ap);
	if (g.armed)
		return;
	g.fd = src->fd;
	snprintf(g.fd_arg, sizeof(g.fd_arg), "%d", src->fd);
	g.argv[0] = "tlbscope";
	g.argv[1] = DIED_ARG;
	g.argv[2] = g.fd_arg;
	g.argv[3] = "crash";
	g.argv[4] = g.what;
	g.argv[5] = src->display;
	g.argv[6] = NULL;
	sigfillset(&sa.sa_mask);
	sigaltstack(&st, &g.old_stack);
	for (size_t i = 0; i < NGUARDED; i++)
		sigaction(guarded[i], &sa, &g.old[i]);
	/* the child's bound: a minute, plus a second per 8 MiB (a compressed file inflates) */
	g.armed_at = monotonic_s();
	g.old_alarm = alarm(60 + (fstat(src->fd, &fst) ? 0 :
				  (unsigned int)((uint64_t)fst.st_size >> 23)));
	g.armed = true;
}

void tracedat_unguard(void)
{
	time_t spent;

	if (!g.armed)
		return;
	alarm(0);
	for (size_t i = 0; i < NGUARDED; i++)
		sigaction(guarded[i], &g.old[i], NULL);
	sigaltstack(&g.old_stack, NULL);
	/* the program's alarm, less the time spent here (at least a second: it is still due) */
	spent = monotonic_s() - g.armed_at;
	if (g.old_alarm)
		alarm(g.old_alarm > spent ? g.old_alarm - (unsigned int)spent : 1);
	g.armed = false;
}

int ts_tracedat_died_main(int argc, char **argv, char *err)
{
	struct ts_source src = { .fd = -1 };
	sigset_t none;
	char *end;
	long fd;

	if (argc != 6 || strcmp(argv[1], DIED_ARG))
		return 0;
	/* the signal that brought us here is still blocked, as exec left it */
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	errno = 0;
	fd = strtol(argv[2], &end, 10);
	src.display = argv[5];
	/* no file to read again: the formats' child fails and the message names the step */
	if (!errno && !*end && fd >= 0 && fd <= 65535)
		src.fd = (int)fd;
	tracedat_died(&src, src.fd, !strcmp(argv[3], "hang"), argv[4]);
	strlcpy_ts(err, src.err, TS_ERR_LEN);
	return 1;
}
