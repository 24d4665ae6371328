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
	int sort;
	char msg[128];		/* one-line notice in the key bar, cleared at the next key */
	struct top_frame frame;	/* what is shown: kept as it is while frozen */
	bool have_frame;
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
	top_frame_release(&v->frame);
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

/* ---- drawing: from v->frame only ---- */

static void bar_line(int y, const char *text)
{
	attron(COLOR_PAIR(1) | A_BOLD);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(COLOR_PAIR(1) | A_BOLD);
}

/* A line of the reverse-video table header, or the dim marker of what it hides. */
static void table_line(int y, const char *text, bool marker)
{
	if (y >= LINES)
		return;
	move(y, 0);
	clrtoeol();
	if (marker) {
		int len = (int)strlen(text);

		/* right-aligned above the table's right end, where its columns went */
		attron(COLOR_PAIR(3));
		mvaddnstr(y, len < COLS ? COLS - len : 0, text, COLS);
		attroff(COLOR_PAIR(3));
		return;
	}
	attron(A_REVERSE);
	mvhline(y, 0, ' ', COLS);
	mvaddnstr(y, 0, text, COLS);
	attroff(A_REVERSE);
}

/*
 * Fields of the status line, joined by two spaces; on a short screen the least needed
 * go first (rank as in top_cols_fit()), so that none is cut.
 */
struct field {
	char text[96];
	int rank;
};

static void fields_line(int y, struct field *fl, int n)
{
	char line[512];
	size_t at;

	for (int rank = TOP_COL_RANK_MAX; rank >= 0; rank--) {
		int len = 0, k = 0;

		for (int i = 0; i < n; i++)
			if (fl[i].text[0])
				len += (k++ ? 2 : 0) + (int)strlen(fl[i].text);
		if (len <= COLS || rank == 0)
			break;
		for (int i = 0; i < n; i++)
			if (fl[i].rank == rank)
				fl[i].text[0] = '\0';
	}
	at = 0;
	line[0] = '\0';
	for (int i = 0; i < n; i++)
		if (fl[i].text[0] && at < sizeof(line))
			at += snprintf(line + at, sizeof(line) - at, "%s%s", at ? "  " : "",
				       fl[i].text);
	move(y, 0);
	clrtoeol();
	mvaddnstr(y, 0, line, COLS);
}

static void draw_header(struct top_view *v)
{
	const struct top_frame *f = &v->frame;
	const struct top_status *st = &f->st;
	char line[512], source[256], tail[96];
	const char *lead = "tlbscope top - ";
	struct field fl[6] = { { "", 3 }, { "", 0 }, { "", 1 }, { "", 0 }, { "", 2 }, { "", 2 } };
	int x;

	tail[0] = '\0';
	if (!st->live && st->percent >= 0)
		snprintf(tail, sizeof(tail), " %.1f%%", st->percent);
	snprintf(tail + strlen(tail), sizeof(tail) - strlen(tail), "%s%s",
		 st->ended ? " END OF TRACE" : "",
		 v->frozen ? (COLS >= 60 ? "  [FROZEN: p resumes]" : "  [FROZEN]") : "");
	/* the state at the end of the line stays visible: a long path gives way in its middle */
	top_elide_middle(source, sizeof(source), st->source,
			 COLS - (int)strlen(lead) - (int)strlen(tail));
	snprintf(line, sizeof(line), "%s%s%s", lead, source, tail);
	bar_line(0, line);

	snprintf(fl[0].text, sizeof(fl[0].text), "elapsed %.1f s", st->elapsed);
	snprintf(fl[1].text, sizeof(fl[1].text), "trace %s", f->trace_time);
	snprintf(fl[2].text, sizeof(fl[2].text), "events %llu (%s)",
		 (unsigned long long)st->events, f->event_rate);
	snprintf(fl[3].text, sizeof(fl[3].text), "lost %llu", (unsigned long long)st->lost);
	if (!st->live && st->speed > 0)
		snprintf(fl[4].text, sizeof(fl[4].text), "speed %gx", st->speed);
	else if (!st->live)
		snprintf(fl[4].text, sizeof(fl[4].text), "speed max");
	snprintf(fl[5].text, sizeof(fl[5].text), "sort %s", sort_names[v->sort]);
	fields_line(1, fl, 6);

	move(2, 0);
	clrtoeol();
	snprintf(line, sizeof(line), "lazy T=%d Q=%d  flush IPIs from %s", f->T, f->Q,
		 f->ipi_src ? f->ipi_src : "(none seen yet)");
	mvaddnstr(2, 0, line, COLS);
	x = getcurx(stdscr);
	if (v->msg[0] && x + 2 < COLS) {
		attron(COLOR_PAIR(3));
		addnstr("  ", COLS - x);
		addnstr(v->msg, COLS - x - 2);
		attroff(COLOR_PAIR(3));
	} else if (x + 10 < COLS) {
		mvaddstr(2, COLS - 6, "h help");
	}
}

static double sort_value(const struct top_frame_cpu *fc, int key)
{
	switch (key) {
	case SORT_SW: return fc->c.r_sw;
	case SORT_TX: return fc->c.r_tx;
	case SORT_RX: return fc->c.r_rx;
	case SORT_LOCAL: return fc->c.r_local;
	case SORT_EVICT: return fc->c.r_evict;
	default: return -fc->cpu;
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

/* The CPU table's columns at this width (also named by the help screen). */
static void cpu_fit(struct top_fit *fit)
{
	top_cols_fit(top_cpu_cols_screen, TC__COUNT, COLS, fit);
}

/* Rows of the CPU table, sorted, under its marker line @y - 1; returns the next free row. */
static int draw_cpus(struct top_view *v, int y, int maxrows)
{
	const struct top_frame *f = &v->frame;
	const struct top_col *cols = top_cpu_cols_screen;
	int ncpu = f->ncpu;
	int *order = xcalloc(ncpu > 0 ? ncpu : 1, sizeof(int));
	struct top_fit fit;
	char line[512];

	for (int i = 0; i < ncpu; i++)
		order[i] = i;
	for (int i = 1; i < ncpu; i++)	/* insertion sort: few CPUs, stable */
		for (int j = i; j > 0 && sort_value(&f->cpu[order[j]], v->sort) >
		     sort_value(&f->cpu[order[j - 1]], v->sort); j--) {
			int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	cpu_fit(&fit);
	if (top_cols_marker(cols, &fit, "wider terminal", line, sizeof(line)))
		table_line(y - 1, line, true);
	top_cols_line(cols, &fit, NULL, line, sizeof(line));
	table_line(y++, line, false);
	for (int k = 0; k < ncpu && k < maxrows; k++) {
		const struct top_frame_cpu *fc = &f->cpu[order[k]];
		const char *cells[TC__COUNT];
		size_t at;

		for (int i = 0; i < TC__COUNT; i++)
			cells[i] = fc->cell[i];
		at = top_cols_line(cols, &fit, cells, line, sizeof(line));
		move(y, 0);
		clrtoeol();
		addnstr(line, COLS);
		if (fit.w[TC_HIST] && (int)at < COLS)
			spark(v, &fc->c, fit.w[TC_HIST] < COLS - (int)at ? fit.w[TC_HIST] :
			      COLS - (int)at);
		y++;
	}
	if (!ncpu && y < LINES) {
		mvaddnstr(y++, 0, "(no CPU has an event yet)", COLS);
	}
	free(order);
	return y;
}

/* The strip: each CPU's last mm switches, newest on the right, one letter per mm. */
static int draw_strip(struct top_view *v, struct timeline *tl, int y, int maxrows)
{
	const struct top_frame *f = &v->frame;
	int width = COLS - 6 > TOP_STRIP ? TOP_STRIP : COLS - 6;
	static const char letters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
	uint32_t legend[sizeof(letters) - 1];
	int nlegend = 0;

	table_line(y++, COLS >= 86 ? "CPU  last mm switches, newest right (. kernel thread; "
		   "letters: legend below; * others)" : "CPU  last mm switches, newest right "
		   "(. kernel thread)", false);
	for (int i = 0; i < f->ncpu && i < maxrows; i++) {
		const struct top_cpu *c = &f->cpu[i].c;
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
	/* the names are looked up now: an mm's name changes only at an exec */
	for (int j = 0; j < nlegend; j++) {
		const struct tl_mm *t = timeline_mm(tl, legend[j]);
		char item[64];

		snprintf(item, sizeof(item), "%c=%s %.10s  ", letters[j], t ? t->name : "?",
			 t ? t->comm : "");
		if (getcurx(stdscr) + (int)strlen(item) > COLS)
			break;
		addstr(item);
	}
	return y + 1;
}

static int draw_procs(struct top_view *v, int y, int maxrows)
{
	const struct top_frame *f = &v->frame;
	const struct top_col *cols = top_proc_cols;
	struct top_fit fit;
	char line[512];

	top_cols_fit(cols, TP__COUNT, COLS, &fit);
	if (top_cols_marker(cols, &fit, "wider terminal", line, sizeof(line)))
		table_line(y - 1, line, true);
	top_cols_line(cols, &fit, NULL, line, sizeof(line));
	table_line(y++, line, false);
	for (int k = 0; k < f->nproc && k < maxrows; k++) {
		const char *cells[TP__COUNT];

		for (int i = 0; i < TP__COUNT; i++)
			cells[i] = f->proc[k][i];
		top_cols_line(cols, &fit, cells, line, sizeof(line));
		move(y, 0);
		clrtoeol();
		addnstr(line, COLS);
		y++;
	}
	if (!f->nproc && f->rec.requests_unknown && maxrows > 0) {
		move(y, 0);
		clrtoeol();
		addnstr("n/a: no flush request is known (Tuner: why)", COLS);
		y++;
	}
	return y;
}

/* @full, or @brief when @full is wider than the screen. */
static void sentence(int y, const char *full, const char *brief)
{
	move(y, 0);
	clrtoeol();
	mvaddnstr(y, 0, (int)strlen(full) <= COLS ? full : brief, COLS);
}

static void draw_tuner(struct top_view *v, int y)
{
	const struct top_frame *f = &v->frame;
	const struct top_rec *r = &f->rec;
	char full[512], brief[256];

	bar_line(y++, COLS >= 60 ? " Tuner (same models as tlbscope tune, fed as events arrive)" :
		 " Tuner");
	if (r->requests_unknown) {
		snprintf(full, sizeof(full), "flush requests unknown: %s", r->requests_unknown);
		sentence(y++, full, "flush requests unknown");
		snprintf(full, sizeof(full), "recommendation (%s): %s (no flush request known)",
			 f->pf_name, r->verdict);
		snprintf(brief, sizeof(brief), "recommended: %s", r->verdict);
		sentence(y++, full, brief);
		snprintf(full, sizeof(full), "lazy(%d, %d) as shown per CPU: %llu evictions; flushes "
			 "queued and queue overflows unknown", f->T, f->Q,
			 (unsigned long long)r->point.evictions);
		snprintf(brief, sizeof(brief), "lazy(%d, %d): %llu evictions, queued unknown",
			 f->T, f->Q, (unsigned long long)r->point.evictions);
		sentence(y, full, brief);
		return;
	}
	if (r->stock_ipis) {
		snprintf(full, sizeof(full), "stock_asid %llu flush IPIs, lazy %llu: lazy would "
			 "have saved %llu so far (%.1f %%)", (unsigned long long)r->stock_ipis,
			 (unsigned long long)r->lazy_ipis, (unsigned long long)r->saved,
			 100.0 * r->saved / r->stock_ipis);
		snprintf(brief, sizeof(brief), "IPIs stock %llu, lazy %llu: saved %llu (%.1f %%)",
			 (unsigned long long)r->stock_ipis, (unsigned long long)r->lazy_ipis,
			 (unsigned long long)r->saved, 100.0 * r->saved / r->stock_ipis);
	} else {
		snprintf(full, sizeof(full), "stock_asid %llu flush IPIs, lazy %llu: nothing to "
			 "save so far (n/a)", (unsigned long long)r->stock_ipis,
			 (unsigned long long)r->lazy_ipis);
		snprintf(brief, sizeof(brief), "IPIs stock %llu, lazy %llu: saved n/a",
			 (unsigned long long)r->stock_ipis, (unsigned long long)r->lazy_ipis);
	}
	sentence(y++, full, brief);
	if (r->T && r->settable) {
		snprintf(full, sizeof(full), "recommendation (%s): MAX_LOADED_MM %d, "
			 "MAX_TLB_FLUSH_TASK %d (%s; cost %.3f ms, stock %.3f ms)", f->pf_name,
			 r->T, r->Q, r->verdict, r->cost_ms, r->stock_ms);
		snprintf(brief, sizeof(brief), "recommended: T=%d Q=%d (%s; %.3f ms, stock %.3f)",
			 r->T, r->Q, r->verdict, r->cost_ms, r->stock_ms);
	} else if (r->T) {
		snprintf(full, sizeof(full), "recommendation (%s): %s%s%s (the cheapest lazy point "
			 "T=%d Q=%d: cost %.3f ms, stock %.3f ms)", f->pf_name, r->verdict,
			 r->arch ? " to " : "", r->arch ? r->arch : "", r->T, r->Q, r->cost_ms,
			 r->stock_ms);
		/* why not outweighs the what-if: "not-applicable to x86_64" keeps its arch */
		if (r->arch)
			snprintf(brief, sizeof(brief), "recommended: %s to %s (cheapest T=%d Q=%d "
				 "%.3f ms)", r->verdict, r->arch, r->T, r->Q, r->cost_ms);
		else
			snprintf(brief, sizeof(brief), "recommended: %s (cheapest T=%d Q=%d %.3f "
				 "ms, stock %.3f)", r->verdict, r->T, r->Q, r->cost_ms, r->stock_ms);
	} else {
		snprintf(full, sizeof(full), "recommendation: waiting for events");
		snprintf(brief, sizeof(brief), "waiting for events");
	}
	sentence(y++, full, brief);
	snprintf(full, sizeof(full), "lazy(%d, %d) as shown per CPU: %llu evictions, %llu flushes "
		 "queued instead of an IPI, %llu queue overflows", f->T, f->Q,
		 (unsigned long long)r->point.evictions, (unsigned long long)r->point.deferred,
		 (unsigned long long)r->point.overflows);
	snprintf(brief, sizeof(brief), "lazy(%d, %d): %llu evictions, %llu queued, %llu overflows",
		 f->T, f->Q, (unsigned long long)r->point.evictions,
		 (unsigned long long)r->point.deferred, (unsigned long long)r->point.overflows);
	sentence(y, full, brief);
}

static void draw_help(void)
{
	static const char *const lines[] = {
		"tlbscope top - keys",
		"",
		"  q          quit (Ctrl-C too)",
		"  p, space   freeze the whole screen (events are still collected)",
		"  s          sort the CPU table: CPU, SW/S, TX/S, RX/S, LOCAL/S, EVICT/S",
		"  t          CPU table <-> timeline strip of mm switches",
		"  + -        replay faster / slower",
		"  h, ?       this help; any key leaves it",
		"",
		"SW/S switches, TX/S RX/S flush IPIs sent and received, LOCAL/S local",
		"flushes, per second of trace time; LOADED mms in the CPU's lazy(T, Q)",
		"table out of T, QUEUED range flushes waiting in it, EVICT/S evictions",
		"from a full table.  STOCK_IPIS: IPIs of a process's flushes to every",
		"CPU that ever ran it (upstream RISC-V); LAZY_IPIS: only to CPUs running",
		"it; OBSERVED: the kernel's own.  A narrow screen hides columns, least",
		"needed first (MM, PROC, TASK shortened, PID, IPI RX/S, LOCAL/S, ...);",
		"the line above a table names those hidden.",
	};
	int n = sizeof(lines) / sizeof(lines[0]), w = 76, h = n + 2;
	int y0, x0;

	if (w > COLS)
		w = COLS;
	y0 = (LINES - h) / 2;
	x0 = (COLS - w) / 2;
	if (y0 < 0)
		y0 = 0;
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
	int y, rows_left, cpu_rows;

	/* frozen: the frame of the moment of the freeze, header included */
	if (!v->frozen || !v->have_frame) {
		top_frame_fill(&v->frame, m, tl, st);
		v->have_frame = true;
	}
	erase();
	draw_header(v);
	/* CPU rows first, then at least 3 process rows, then the tuner's 4 lines */
	rows_left = LINES - 4 - 1 - 5 - 2;
	cpu_rows = v->frame.ncpu < rows_left - 3 ? v->frame.ncpu : rows_left - 3;
	if (cpu_rows < 1)
		cpu_rows = 1;
	y = v->strip ? draw_strip(v, tl, 4, cpu_rows) : draw_cpus(v, 4, cpu_rows);
	y++;
	y = draw_procs(v, y, LINES - y - 5);
	draw_tuner(v, LINES - 4 > y ? LINES - 4 : y);
	if (v->help)
		draw_help();
	refresh();
}
