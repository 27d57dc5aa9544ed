/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top-view.h - what 'perfmini top' shows and how its keys change it: the
 * window of samples, the table made of it at each refresh (report/live.h),
 * the row the cursor is on, the callers or callees shown, the zoom, the
 * sort, the pause; drawn as a screen (top-term.h) or printed as a
 * snapshot. top.c runs the recording around it.
 *
 * Invariant: the table drawn is the last one made, of the window as it
 * was then; the profile is read only inside the calls that take it, so a
 * recording's profile may change between them.
 */
#ifndef PERFMINI_CMD_TOP_VIEW_H
#define PERFMINI_CMD_TOP_VIEW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cmd/top-term.h"
#include "cmd/top.h"
#include "report/live.h"
#include "util/sbuf.h"

struct top_view {
	const struct top_opts *o;
	struct term *term; /* the screen, or NULL for snapshots */
	struct live_window win;
	struct live_table *t;  /* the last table made */
	struct report_opts ro; /* the table's options: sort, keys, zoom, --lines */
	struct live_key sel;   /* the cursor's row */
	struct live_key focus; /* whose callers (callees) are shown; name NULL: none */
	struct live_key back;  /* the cursor's row in the table, while a focus is shown */
	bool picked;	       /* the cursor was moved: it stays on its row, else on the first */
	bool back_picked;
	bool callees, paused, help;
	size_t first; /* the first row on the screen */
	size_t page;  /* the rows the screen showed last */
	/* The zoom: a process's or thread's samples only (ro.pids or ro.tids is zoom_id). */
	uint32_t zoom_id;
	bool zoom_thread;
	struct sbuf zoom_name;
	uint64_t heard;	     /* samples heard of, in all */
	uint64_t printed;    /* of them, when the last snapshot was printed */
	uint64_t start;	     /* now_ns() at the recording's start: sample times are from it */
	struct sbuf what;    /* what is recorded, how: the target, the event, the call graphs */
	struct sbuf note;    /* a line for the footer until the next key */
	struct sbuf message; /* the last message the session wrote meanwhile */
};

/* What a key does. */
enum top_action {
	TOP_NOTHING, /* a key of no use here */
	TOP_DRAW,    /* the screen to be drawn again */
	TOP_QUIT,
};

void top_view_init(struct top_view *v, const struct top_opts *o, struct term *term, uint64_t start);
void top_view_release(struct top_view *v);
/* The session's sample hook: each CPU sample into the window, unless paused. */
void top_view_sample(const struct pm_sample *smp, void *arg);
/* The window slid to now (now_ns()), unless paused, and the table made again of it and p. */
void top_view_refresh(struct top_view *v, const struct profile *p, uint64_t now);
/* The screen drawn, of the last table. */
void top_view_draw(struct top_view *v, uint64_t now);
/* key pressed: what it changes (a table made again of p when it must). */
enum top_action top_view_key(struct top_view *v, int key, const struct profile *p, uint64_t now);
/*
 * A snapshot of the last table to out: two lines on what is shown, the
 * table cut to width (0: nothing cut), a blank line. 0, or -errno when
 * out cannot be written.
 */
int top_view_print(struct top_view *v, FILE *out, int width, uint64_t now);

#endif
