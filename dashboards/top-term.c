// SPDX-License-Identifier: GPL-2.0-only
/*
 * The terminal check of the live view, on its own: <term.h> defines the terminfo
 * capabilities as macros ("lines", "columns") that clash with ordinary names elsewhere.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <curses.h>
#include <term.h>

#include "top-int.h"

/*
 * Can curses draw the view on this terminal?  It needs the terminal in the terminfo
 * database and cursor addressing ("cup"): on TERM=dumb or a hardcopy terminal curses
 * would scroll a stream of partial screens instead.
 */
bool top_term_usable(char *why, size_t len)
{
	const char *term = getenv("TERM");
	bool ok;
	char *cup;
	int err = 0;

	if (!term || !*term) {
		snprintf(why, len, "TERM is not set");
		return false;
	}
	if (setupterm(term, STDOUT_FILENO, &err) != OK) {
		snprintf(why, len, err == 0 ? "TERM=%s is not in the terminfo database" :
			 "no terminfo database for TERM=%s", term);
		return false;
	}
	cup = tigetstr("cup");
	ok = cup && cup != (char *)-1 && tigetflag("hc") <= 0;
	del_curterm(cur_term);
	if (!ok)
		snprintf(why, len, "TERM=%s cannot address the cursor (no 'cup' capability)", term);
	return ok;
}
