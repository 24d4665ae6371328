// SPDX-License-Identifier: GPL-2.0-only
/*
 * The ncurses screen of `tlbscope top`: header, the per-CPU table (or the timeline strip
 * of mm switches), the processes behind the flush IPIs and the tuner's panel.  Keys are
 * turned into TOP_KEY_* flags for the loop in cli/cmd-top.c, which decides (htop style).
 */
#include <langinfo.h>
#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

#include <curses.h>

#include "../lib/lib.h"
#include "top-int.h"

enum sort_key { SORT_CPU, SORT_SW, SORT_TX, SORT_RX, SORT_LOCAL, SORT_EVICT, SORT__COUNT };
static const char *const sort_names[SORT__COUNT] = {
	"CPU", "SW/S", "TX/S", "RX/S", "LOCAL/S", "EVICT/S",
};

struct top_view {
	SCREEN *scr;
	FILE *tty;		/* /dev/tty when stdin is the replayed trace, else NULL */
	bool frozen, strip, help, utf8;
	bool dirty;		/* a key changed the layout: draw in full even when frozen */
	int sort;
	char msg[128];		/* one-line notice in the key bar, cleared at the next key */
};

struct top_view *top_view_open(char *why, size_t len)
{
	struct top_view *v;
	const char *cs;
	SCREEN *scr;
	FILE *tty = NULL;

	if (!isatty(STDOUT_FILENO)) {
		snprintf(why, len, "standard output is not a terminal");
		return NULL;
	}
	if (!top_term_usable(why, len))
		return NULL;
	/* keys from the terminal even when stdin is the trace (--replay -) */
	if (!isatty(STDIN_FILENO) && !(tty = fopen("/dev/tty", "re"))) {
		snprintf(why, len, "no terminal to read keys from");
		return NULL;
	}
	setlocale(LC_CTYPE, "");	/* UTF-8 sparklines where the terminal has them */
	cs = nl_langinfo(CODESET);
	scr = newterm(NULL, stdout, tty ? tty : stdin);
	if (!scr) {
		snprintf(why, len, "curses cannot set up TERM=%s", getenv("TERM"));
		if (tty)
			fclose(tty);
		return NULL;
	}
	v = xcalloc(1, sizeof(*v));
	v->scr = scr;
	v->tty = tty;
	v->utf8 = cs && !strcmp(cs, "UTF-8");
	v->sort = SORT_CPU;
	cbreak();	/* Ctrl-C stays a signal: the driver cleans up tracefs on it */
	noecho();
	keypad(stdscr, TRUE);
	curs_set(0);
	if (has_colors()) {
		start_color();
		use_default_colors();
		init_pair(1, COLOR_BLACK, COLOR_CYAN);	/* bars */
		init_pair(2, COLOR_GREEN, -1);		/* sparklines */
		init_pair(3, COLOR_YELLOW, -1);		/* notices */
	}
	return v;
}

void top_view_close(struct top_view *v)
{
	if (!v)
		return;
	curs_set(1);
	endwin();
	delscreen(v->scr);
	if (v->tty)
		fclose(v->tty);
	free(v);
}

bool top_view_frozen(const struct top_view *v)
{
	return v && v->frozen;
}

int top_view_key(struct top_view *v, int timeout_ms)
{
	int ch;

	timeout(timeout_ms);
	ch = getch();
	if (ch == ERR)
		return 0;
	v->msg[0] = '\0';
	v->dirty = true;
	if (v->help && ch != 'q' && ch != KEY_RESIZE) {
		v->help = false;	/* any key leaves the help screen */
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	}
	switch (ch) {
	case 'q':
	case 'Q':
		return TOP_KEY_HANDLED | TOP_KEY_QUIT;
	case 'p':
	case ' ':
		v->frozen = !v->frozen;
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	case 's':
		v->sort = (v->sort + 1) % SORT__COUNT;
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	case 't':
		v->strip = !v->strip;
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	case '+':
	case '=':
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW | TOP_KEY_FASTER;
	case '-':
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW | TOP_KEY_SLOWER;
	case 'h':
	case '?':
		v->help = true;
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	case KEY_RESIZE:
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	case 12:	/* Ctrl-L */
		clearok(curscr, TRUE);
		return TOP_KEY_HANDLED | TOP_KEY_REDRAW;
	default:
		snprintf(v->msg, sizeof(v->msg), "unknown key; h for help");
		return TOP_KEY_REDRAW;
	}
}

/* ---- drawing ---- */

/*
 * Copy S into DST (SIZE bytes), at most WIDTH characters: when S is longer, its middle
 * becomes "..." so that both its start ("replay", "live") and its end (the file name, the
 * instance) stay.
 */
static void elide_middle(char *dst, size_t size, const char *s, int width)
{
	size_t len = strlen(s), head, tail;

	if (width < 8)
		width = 8;
	if (len <= (size_t)width && len < size) {
		memcpy(dst, s, len + 1);
		return;
	}
	if ((size_t)width >= size)
		width = (int)size - 1;
	head = (size_t)(width - 3) / 3;
	tail = (size_t)width - 3 - head;
	snprintf(dst, size, "%.*s...%s", (int)head, s, s + len - tail);
}

static void bar_line(int y, const char *text)
{
	attron(COLOR_PAIR(1) | A_BOLD);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(COLOR_PAIR(1) | A_BOLD);
}

static void draw_header(struct top_view *v, const struct top_model *m, struct timeline *tl,
			const struct top_status *st)
{
	char line[512], source[256], tail[96], speed[32] = "";
	int src = top_ipi_src(tl);
	const char *lead = "tlbscope top - ";

	tail[0] = '\0';
	if (!st->live && st->percent >= 0)
		snprintf(tail, sizeof(tail), " %.1f%%", st->percent);
	snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "%s%s",
		 st->ended ? " END OF TRACE" : "", v->frozen ? "  [FROZEN: p resumes]" : "");
	/* the state at the end of the line stays visible: a long path gives way in its middle */
	elide_middle(source, sizeof(source), st->source,
		     COLS - (int)strlen(lead) - (int)strlen(tail));
	snprintf(line, sizeof(line), "%s%s%s", lead, source, tail);
	bar_line(0, line);
	if (!st->live)
		snprintf(speed, sizeof(speed), "  speed %s", st->speed > 0 ? "" : "max");
	if (!st->live && st->speed > 0)
		snprintf(speed + strlen(speed), sizeof(speed) - strlen(speed), "%gx", st->speed);
	move(1, 0);
	clrtoeol();
	mvprintw(1, 0, "elapsed %.1f s  trace %.3f s  events %llu (%.0f/s)  lost %llu%s  "
		 "sort %s", st->elapsed, m->first_ts ? (m->last_ts - m->first_ts) / 1e9 : 0.0,
		 (unsigned long long)st->events, st->event_rate, (unsigned long long)st->lost, speed,
		 sort_names[v->sort]);
	move(2, 0);
	clrtoeol();
	mvprintw(2, 0, "lazy T=%d Q=%d  flush IPIs from %s", m->T, m->Q,
		 src >= 0 ? timeline_ipi_source_name(src) : "(none seen yet)");
	if (v->msg[0]) {
		attron(COLOR_PAIR(3));
		printw("  %s", v->msg);
		attroff(COLOR_PAIR(3));
	}
}

static double sort_value(const struct top_cpu *c, int key, int cpu)
{
	switch (key) {
	case SORT_SW: return c->r_sw;
	case SORT_TX: return c->r_tx;
	case SORT_RX: return c->r_rx;
	case SORT_LOCAL: return c->r_local;
	case SORT_EVICT: return c->r_evict;
	default: return -cpu;
	}
}

static void spark(struct top_view *v, const struct top_cpu *c, int width)
{
	static const wchar_t blocks[] = L" \u2581\u2582\u2583\u2584\u2585\u2586\u2587\u2588";
	char buf[TOP_SPARK + 1];
	double max = 0;

	if (width > TOP_SPARK)
		width = TOP_SPARK;
	if (width <= 0)
		return;
	for (int k = 0; k < c->nspark; k++)
		if (c->spark[k] > max)
			max = c->spark[k];
	attron(COLOR_PAIR(2));
	if (!v->utf8) {
		top_spark_ascii(c, width, max, buf);
		addstr(buf);
	} else {
		int n = c->nspark < width ? c->nspark : width;

		for (int i = 0; i < width - n; i++)
			addch(' ');
		for (int i = 0; i < n; i++) {
			double x = c->spark[c->nspark - n + i];
			int l = max > 0 ? (int)(x / max * 8 + 0.999) : 0;
			wchar_t w[2] = { blocks[l < 0 ? 0 : l > 8 ? 8 : l], 0 };

			addwstr(w);
		}
	}
	attroff(COLOR_PAIR(2));
}

/* Rows of the CPU table, sorted; returns the next free screen row. */
static int draw_cpus(struct top_view *v, const struct top_model *m, struct timeline *tl, int y,
		     int maxrows)
{
	int ncpu = timeline_cpus(tl) < m->ncpus ? timeline_cpus(tl) : m->ncpus;
	int *order = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(int));
	char line[512];

	for (int i = 0; i < ncpu; i++)
		order[i] = i;
	for (int i = 1; i < ncpu; i++)	/* insertion sort: few CPUs, stable */
		for (int j = i; j > 0 && sort_value(&m->cpu[order[j]], v->sort, order[j]) >
		     sort_value(&m->cpu[order[j - 1]], v->sort, order[j - 1]); j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	snprintf(line, sizeof(line), "%4s %-15s %7s %7s %-10s %8s %7s %7s %8s %6s %6s %7s  %s",
		 "CPU", "TASK", "PID", "PROC", "MM", "SW/S", "TX/S", "RX/S", "LOCAL/S", "LOADED",
		 "QUEUED", "EVICT/S", "IPI RX/S");
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y++, 0, line, COLS);
	attroff(A_REVERSE);
	for (int k = 0; k < ncpu && k < maxrows; k++) {
		int i = order[k];
		const struct top_cpu *c = &m->cpu[i];
		const struct tl_mm *mm = c->mm ? timeline_mm(tl, c->mm) : NULL;
		uint64_t queued;
		int loaded = top_cpu_loaded(m, i, &queued), used;
		char proc[16];

		if (mm && mm->pid >= 0)
			snprintf(proc, sizeof(proc), "%d", mm->pid);
		else
			snprintf(proc, sizeof(proc), "-");
		used = snprintf(line, sizeof(line), "%4d %-15.15s %7d %7s %-10.10s %8.0f %7.0f %7.0f "
				"%8.0f %3d/%-2d %6llu %7.0f  ", i, c->comm[0] ? c->comm : "-",
				c->pid, proc, top_mm_name(tl, c->mm), c->r_sw, c->r_tx, c->r_rx,
				c->r_local, loaded, m->T, (unsigned long long)queued, c->r_evict);
		move(y, 0);
		clrtoeol();
		addnstr(line, COLS);
		if (used < COLS)
			spark(v, c, COLS - used - 1);
		y++;
	}
	free(order);
	return y;
}

/* The strip: each CPU's last mm switches, newest on the right, one letter per mm. */
static int draw_strip(struct top_view *v, const struct top_model *m, struct timeline *tl, int y,
		      int maxrows)
{
	int ncpu = timeline_cpus(tl) < m->ncpus ? timeline_cpus(tl) : m->ncpus;
	int width = COLS - 6 > TOP_STRIP ? TOP_STRIP : COLS - 6;
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint32_t legend[sizeof(letters) - 1];
	int nlegend = 0;

	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvprintw(y++, 0, "CPU  last mm switches, newest right (. kernel thread; letters: legend "
		 "below; * others)");
	attroff(A_REVERSE);
	for (int i = 0; i < ncpu && i < maxrows; i++) {
		const struct top_cpu *c = &m->cpu[i];
		uint64_t n = c->nstrip < (uint64_t)width ? c->nstrip : (uint64_t)width;

		move(y, 0);
		clrtoeol();
		printw("%3d  ", i);
		for (uint64_t k = c->nstrip - n; k < c->nstrip; k++) {
			uint32_t mm = c->strip[k % TOP_STRIP];
			int l = -1;

			if (!mm) {
				addch('.');
				continue;
			}
			for (int j = 0; j < nlegend; j++)
				if (legend[j] == mm)
					l = j;
			if (l < 0 && nlegend < (int)sizeof(legend) / (int)sizeof(legend[0])) {
				l = nlegend;
				legend[nlegend++] = mm;
			}
			addch(l < 0 ? '*' : letters[l]);
		}
		y++;
	}
	move(y, 0);
	clrtoeol();
	for (int j = 0; j < nlegend && getcurx(stdscr) < COLS - 24; j++) {
		const struct tl_mm *t = timeline_mm(tl, legend[j]);

		printw("%c=%s %.10s  ", letters[j], t ? t->name : "?", t ? t->comm : "");
	}
	return y + 1;
}

static int draw_procs(const struct top_model *m, struct timeline *tl, int y, int maxrows)
{
	int src = top_ipi_src(tl);
	uint32_t *ids;
	size_t n = top_mms_by_ipis(m, &ids);
	char line[256];

	snprintf(line, sizeof(line), "%-10s %7s %-15s %9s %10s %9s %9s %9s", "MM", "PID", "COMMAND",
		 "REQUESTS", "STOCK_IPIS", "LAZY_IPIS", "DEFERRED", "OBSERVED");
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y++, 0, line, COLS);
	attroff(A_REVERSE);
	for (size_t k = 0; k < n && (int)k < maxrows; k++) {
		const struct top_mm *x = &m->mm[ids[k]];
		const struct tl_mm *t = timeline_mm(tl, ids[k]);

		snprintf(line, sizeof(line), "%-10.10s %7d %-15.15s %9llu %10llu %9llu %9llu %9llu",
			 t ? t->name : "?", t ? t->pid : -1, t ? t->comm : "?",
			 (unsigned long long)x->requests, (unsigned long long)x->stock_ipis,
			 (unsigned long long)x->lazy_ipis, (unsigned long long)x->deferred,
			 (unsigned long long)(t && src >= 0 ? t->ipis_caused[src] : 0));
		move(y, 0);
		clrtoeol();
		addnstr(line, COLS);
		y++;
	}
	free(ids);
	return y;
}

static void draw_tuner(const struct top_model *m, int y)
{
	struct top_rec r;
	char line[512];

	top_recommend(m, &r);
	bar_line(y++, " Tuner (same models as tlbscope tune, fed as events arrive)");
	move(y, 0);
	clrtoeol();
	if (r.stock_ipis)
		snprintf(line, sizeof(line), "stock_asid %llu flush IPIs, lazy %llu: lazy would have "
			 "saved %llu so far (%.1f %%)", (unsigned long long)r.stock_ipis,
			 (unsigned long long)r.lazy_ipis, (unsigned long long)r.saved,
			 100.0 * r.saved / r.stock_ipis);
	else
		snprintf(line, sizeof(line), "stock_asid %llu flush IPIs, lazy %llu: nothing to "
			 "save so far (n/a)", (unsigned long long)r.stock_ipis,
			 (unsigned long long)r.lazy_ipis);
	mvaddnstr(y++, 0, line, COLS);
	move(y, 0);
	clrtoeol();
	if (r.T && r.settable)
		snprintf(line, sizeof(line), "recommendation (%s): MAX_LOADED_MM %d, "
			 "MAX_TLB_FLUSH_TASK %d (%.3f ms, %s)", m->pf.name, r.T, r.Q, r.cost_ms,
			 r.verdict);
	else if (r.T)
		snprintf(line, sizeof(line), "recommendation (%s): %s (the cheapest lazy point "
			 "T=%d Q=%d, %.3f ms)", m->pf.name, r.verdict, r.T, r.Q, r.cost_ms);
	else
		snprintf(line, sizeof(line), "recommendation: waiting for events");
	mvaddnstr(y++, 0, line, COLS);
	move(y, 0);
	clrtoeol();
	snprintf(line, sizeof(line), "lazy(%d, %d) as shown per CPU: %llu evictions, %llu flushes queued "
		 "instead of an IPI, %llu queue overflows", m->T, m->Q, (unsigned long long)r.point.evictions,
		 (unsigned long long)r.point.deferred, (unsigned long long)r.point.overflows);
	mvaddnstr(y, 0, line, COLS);
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"tlbscope top - keys",
		"",
		"  q          quit (Ctrl-C too)",
		"  p, space   freeze the screen (events are still collected)",
		"  s          sort the CPU table: CPU, SW/S, TX/S, RX/S, LOCAL/S, EVICT/S",
		"  t          CPU table <-> timeline strip of mm switches",
		"  + -        replay faster / slower",
		"  h, ?       this help; any key leaves it",
		"",
		"SW/S switches, TX/S RX/S flush IPIs sent and received, LOCAL/S local flushes",
		"per second of trace time; LOADED mms in the CPU's lazy(T, Q) table out of T,",
		"QUEUED range flushes waiting in it, EVICT/S evictions from a full table.",
		"STOCK_IPIS: IPIs of a process's flushes to every CPU that ever ran it (upstream",
		"RISC-V); LAZY_IPIS: only to CPUs running it; OBSERVED: the kernel's own.",
	};
	int n = sizeof(lines) / sizeof(lines[0]), w = 82, h = n + 2;
	int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;

	if (y0 < 0)
		y0 = 0;
	if (x0 < 0)
		x0 = 0;
	for (int i = 0; i < h && y0 + i < LINES; i++) {
		move(y0 + i, x0);
		for (int k = 0; k < w && x0 + k < COLS; k++)
			addch(' ');
	}
	attron(A_BOLD);
	for (int i = 0; i < n && y0 + 1 + i < LINES; i++)
		mvaddnstr(y0 + 1 + i, x0 + 2, lines[i], COLS - x0 - 2);
	attroff(A_BOLD);
}

void top_view_draw(struct top_view *v, const struct top_model *m, struct timeline *tl,
		   const struct top_status *st)
{
	int y, ncpu = timeline_cpus(tl), rows_left, cpu_rows;

	if (v->frozen && !v->dirty) {
		draw_header(v, m, tl, st);
		refresh();
		return;
	}
	v->dirty = false;
	erase();
	draw_header(v, m, tl, st);
	/* CPU rows first, then at least 3 process rows, then the tuner's 3 lines */
	rows_left = LINES - 4 - 1 - 5 - 2;
	cpu_rows = ncpu < rows_left - 3 ? ncpu : rows_left - 3;
	if (cpu_rows < 1)
		cpu_rows = 1;
	y = v->strip ? draw_strip(v, m, tl, 4, cpu_rows) : draw_cpus(v, m, tl, 4, cpu_rows);
	y++;
	y = draw_procs(m, tl, y, LINES - y - 6);
	draw_tuner(m, LINES - 5 > y ? LINES - 5 : y);
	if (v->help)
		draw_help();
	refresh();
}
