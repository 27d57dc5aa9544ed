/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top-term.h - the terminal of 'perfmini top': a full screen drawn with
 * plain ANSI escape sequences (the alternate screen, cursor positioning,
 * reverse video and bold), keys read raw through termios, its size from
 * TIOCGWINSZ and SIGWINCH.
 *
 * Why not ncurses: the view redraws whole screens of text lines once a
 * second or on a key, and needs six sequences every terminal since the
 * VT100 has (xterm's alternate screen among them) and a dozen keys'
 * sequences; ncurses would add a dependency, its terminfo lookups and
 * its own handling of signals and of the terminal's state, which the
 * view must control on every exit path anyway.
 *
 * Invariant: from term_open to term_close the terminal is in raw mode on
 * the alternate screen; it is given back as it was on every way out of
 * the process: term_close, exit() (an exit handler), a fatal signal
 * (its handler, before the signal's own action), and a stop (Control-Z:
 * given back before the stop, taken again at the continue). While it is
 * open, the process's stderr goes to an unnamed file, shown line by line
 * (term_message) and written to the real stderr at the close.
 */
#ifndef PERFMINI_CMD_TOP_TERM_H
#define PERFMINI_CMD_TOP_TERM_H

#include <stdbool.h>
#include <stddef.h>

#include "util/sbuf.h"

/* Keys besides the bytes they are (letters, digits, space). */
enum term_key {
	KEY_NONE = -1, /* no key waiting */
	KEY_UP = 0x100,
	KEY_DOWN,
	KEY_LEFT,
	KEY_RIGHT,
	KEY_PGUP,
	KEY_PGDN,
	KEY_HOME,
	KEY_END,
	KEY_ENTER,
	KEY_BACK, /* Backspace */
	KEY_ESC,
};

struct term {
	int in, out;	/* the keys' terminal and the screen's */
	int rows, cols; /* the screen's size */
	bool colour;	/* attributes shown (reverse video, bold): not under NO_COLOR */
	int events;	/* epoll: readable on a key or a resize, for session_run */
	int resize[2];	/* the pipe SIGWINCH and a continue write to */
	int err_saved;	/* the process's stderr while it goes to err_file */
	int err_file;
	size_t err_seen; /* of err_file, the bytes shown already */
	unsigned char buf[64];
	size_t nbuf; /* bytes read, not made keys yet */
};

/*
 * The screen on out, the keys from in (both the terminal): raw mode,
 * the alternate screen, stderr caught. 0, or -1 once said.
 */
int term_open(struct term *t, int in, int out);
/* The terminal given back as it was, stderr too, and what was caught written to it. */
void term_close(struct term *t);
/* Whether the screen's size changed (or it was stopped and continued): read again. */
bool term_resized(struct term *t);
/* The next key pressed, KEY_NONE when none is waiting. */
int term_key(struct term *t);
/*
 * A frame: the lines of text (each ended by '\n', at most the screen's
 * width) from the top, the rest of the screen cleared; line cursor in
 * reverse video across the screen, line bold in bold (-1: none).
 */
void term_frame(struct term *t, const char *text, long cursor, long bold);
/* The last line written to stderr since the open, into b; false when none. */
bool term_message(struct term *t, struct sbuf *b);

#endif
