// SPDX-License-Identifier: GPL-2.0-only
/*
 * How the text views reach a person (cli.h, "views"): on a terminal through a pager as git
 * does it ($TLBSCOPE_PAGER, else $PAGER, else less with LESS=FRX, so a short text prints
 * and returns), colour only on a terminal (--color, NO_COLOR), and no line past 100
 * columns: a longer line of prose continues on the next, indented under its start.
 *
 * A text view is written to memory first (stdout is swapped for a memory stream, which
 * glibc allows) and shaped line by line at the end; JSON and other data go to the pager
 * as they are.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

#define VIEW_WIDTH	100

struct view_opts cli_view;
unsigned cli_command_flags;

static struct {
	bool text, color;
	FILE *out;		/* the real standard output while a text view is in memory */
	char *buf;
	size_t len;
	pid_t pager;		/* 0: none */
	bool began;
} v;

int view_opt(int key, const char *val)
{
	if (key == OPT_NO_PAGER) {
		cli_view.no_pager = true;
		return 1;
	}
	if (key != OPT_COLOR)
		return 0;
	if (!strcmp(val, "auto"))
		cli_view.color = VIEW_COLOR_AUTO;
	else if (!strcmp(val, "always"))
		cli_view.color = VIEW_COLOR_ALWAYS;
	else if (!strcmp(val, "never"))
		cli_view.color = VIEW_COLOR_NEVER;
	else
		return error("--color: '%s' is not auto, always or never", val), -1;
	return 1;
}

/* The pager's command, NULL for none ("cat" or empty: none, as git has it). */
static const char *pager_command(void)
{
	const char *p = getenv("TLBSCOPE_PAGER");

	if (!p)
		p = getenv("PAGER");
	if (!p)
		p = "less";
	return *p && strcmp(p, "cat") ? p : NULL;
}

/* Standard output becomes a pipe to the pager; nothing changes when it cannot start. */
static void start_pager(void)
{
	const char *cmd = pager_command();
	int fd[2];
	pid_t pid;

	if (!cmd || pipe(fd))
		return;
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		close(fd[0]);
		close(fd[1]);
		return;
	}
	if (!pid) {
		dup2(fd[0], STDIN_FILENO);
		close(fd[0]);
		close(fd[1]);
		setenv("LESS", "FRX", 0);
		setenv("LV", "-c", 0);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fd[1], STDOUT_FILENO);
	close(fd[0]);
	close(fd[1]);
	/* a pager quit early is the reader's choice, not a write error to die of */
	signal(SIGPIPE, SIG_IGN);
	v.pager = pid;
}

void view_begin(bool text)
{
	bool tty = isatty(STDOUT_FILENO);
	const char *term = getenv("TERM");

	if (v.began)
		return;
	v.began = true;
	v.text = text;
	v.color = text && (cli_view.color == VIEW_COLOR_ALWAYS ||
			   (cli_view.color == VIEW_COLOR_AUTO && tty && !getenv("NO_COLOR") &&
			    term && strcmp(term, "dumb")));
	if (tty && !cli_view.no_pager && (cli_command_flags & CMD_PAGER))
		start_pager();
	if (!text)
		return;
	fflush(stdout);
	v.out = stdout;
	stdout = open_memstream(&v.buf, &v.len);
	if (!stdout) {
		stdout = v.out;
		v.text = false;
	}
}

/* Display columns of @s's first @n bytes (UTF-8: continuation bytes take none). */
static size_t columns(const char *s, size_t n)
{
	size_t w = 0;

	for (size_t i = 0; i < n; i++)
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
	return w;
}

/* Bytes of @s (@n long) that fit in @cols columns. */
static size_t fit(const char *s, size_t n, size_t cols)
{
	size_t i = 0, w = 0;

	while (i < n && (w < cols || ((unsigned char)s[i] & 0xc0) == 0x80)) {
		w += ((unsigned char)s[i] & 0xc0) != 0x80;
		i++;
	}
	return i;
}

/* One piece of a line, coloured as its kind asks. */
static void put_piece(FILE *out, const char *s, size_t n, const char *sgr)
{
	const char *bad = "DIFFERENT";
	const char *hit = v.color ? memmem(s, n, bad, strlen(bad)) : NULL;

	if (sgr)
		fputs(sgr, out);
	if (hit) {
		fwrite(s, 1, (size_t)(hit - s), out);
		fprintf(out, "\033[1;31m%s\033[m%s", bad, sgr ? sgr : "");
		n -= (size_t)(hit - s) + strlen(bad);
		s = hit + strlen(bad);
	}
	fwrite(s, 1, n, out);
	if (sgr)
		fputs("\033[m", out);
	fputc('\n', out);
}

/*
 * One line of the text view: past VIEW_WIDTH columns it breaks at the last space that
 * fits, the rest indented 4 past the line's own indent.  Section titles (a line at the
 * margin after a blank one) are bold, warnings yellow, "DIFFERENT" red.
 */
static void put_line(FILE *out, const char *s, size_t n, bool title)
{
	size_t indent = 0, cont;
	const char *sgr = NULL;
	bool first = true;

	while (indent < n && s[indent] == ' ')
		indent++;
	cont = indent + 4 < VIEW_WIDTH / 2 ? indent + 4 : 4;
	if (v.color && title)
		sgr = "\033[1m";
	else if (v.color && n - indent >= 8 && !memcmp(s + indent, "warning:", 8))
		sgr = "\033[33m";
	while (columns(s, n) > (first ? VIEW_WIDTH : VIEW_WIDTH - cont)) {
		size_t room = fit(s, n, first ? VIEW_WIDTH : VIEW_WIDTH - cont), cut = room;
		size_t lo = first ? indent + 8 : 8;

		while (cut > lo && s[cut] != ' ')
			cut--;
		if (cut <= lo)		/* one word longer than a line: left whole */
			break;
		if (!first)
			fprintf(out, "%*s", (int)cont, "");
		put_piece(out, s, cut, sgr);
		while (cut < n && s[cut] == ' ')
			cut++;
		s += cut;
		n -= cut;
		first = false;
	}
	if (!first)
		fprintf(out, "%*s", (int)cont, "");
	put_piece(out, s, n, sgr);
}

int view_end(int status)
{
	if (v.text) {
		FILE *mem = stdout;
		const char *p, *end;
		bool blank = false;

		fclose(mem);
		stdout = v.out;
		p = v.buf;
		end = v.buf + v.len;
		for (int line = 0; p < end; line++) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

			put_line(stdout, p, n, line && blank && n && p[0] != ' ');
			blank = !n;
			p += n + (nl != NULL);
		}
		free(v.buf);
		v.buf = NULL;
		v.text = false;
	}
	if (v.pager && (fflush(stdout) || ferror(stdout)) && errno == EPIPE)
		clearerr(stdout);	/* the reader quit the pager: nothing was lost to them */
	else
		status = finish_stdout(status);
	if (v.pager) {
		/* the pager ends at the pipe's end: only then is the screen its own again */
		close(STDOUT_FILENO);
		while (waitpid(v.pager, NULL, 0) < 0 && errno == EINTR)
			;
		v.pager = 0;
	}
	return status;
}
