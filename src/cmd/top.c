/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top.c - "perfmini top" run: a recording (the session, driven as record
 * drives it, with the signals that stop it) whose samples go to the view
 * (top-view.h) as they are applied; between the session's rounds, at each
 * refresh and at each key, the view is made again and drawn on the screen
 * (top-term.h) or printed as a snapshot.
 *
 * Invariant: the screen is given back before anything else is said and
 * before the process ends, however it ends (top-term.h says how); the
 * data file is kept only with -o: otherwise the recording goes to
 * /dev/null and its stop names nothing.
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cmd/stop.h"
#include "cmd/top-term.h"
#include "cmd/top-view.h"
#include "cmd/top.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/outfile.h"

/* Set from the start: a stop without -o names nothing (the file is /dev/null). */
static const volatile sig_atomic_t no_naming = 1;
/* The outputs' stop hook: a FIFO's reader holds the view up only until it stops. */
static bool stop_due(void *arg)
{
	(void)arg;
	return stop_requested || stopping;
}

/* The width of snapshots: the terminal's when stdout is one, else none (nothing cut). */
static int stdout_width(void)
{
	struct winsize ws;

	if (!isatty(1))
		return 0;
	return ioctl(1, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0 ? ws.ws_col : 80;
}

/* What the view's loop keeps: the session, the view, the screen, the refreshes. */
struct top_run {
	const struct top_opts *o;
	struct session *s;
	int wake; /* the stop's pipe (stop_wake_pipe) */
	struct top_view v;
	struct term term;
	bool screen;	 /* a full screen; else snapshots */
	uint64_t next;	 /* the next refresh, in now_ns's time */
	unsigned done;	 /* refreshes made */
	bool out_failed; /* stdout could not be written: the view ends */
	bool out_error;	 /* and not for a reader gone (EPIPE): said, exit 1 */
};

/* A snapshot on stdout; one that cannot be written ends the view. */
static void print(struct top_run *r, uint64_t now)
{
	int ret = top_view_print(&r->v, stdout, stdout_width(), now);

	if (ret >= 0)
		return;
	/* A reader gone (top -b | head) ends the view quietly. */
	if (ret != -EPIPE)
		error("cannot write the snapshot: %s", strerror(-ret));
	r->out_error = ret != -EPIPE;
	r->out_failed = true;
}

/* A refresh: the table made again, drawn or printed. Whether -n refreshes are done. */
static bool refresh(struct top_run *r)
{
	uint64_t now = now_ns(), delay = (uint64_t)(r->o->delay * 1e9);

	top_view_refresh(&r->v, session_profile(r->s), now);
	if (r->screen)
		top_view_draw(&r->v, now);
	else
		print(r, now);
	/* Refreshes missed (a machine too busy) are skipped, not made up for. */
	while (r->next <= now)
		r->next += delay;
	return r->o->iterations && ++r->done >= r->o->iterations;
}

/* The keys pressed, and a resize: whether to quit. */
static bool keys(struct top_run *r)
{
	bool draw = term_resized(&r->term);
	int key;

	while ((key = term_key(&r->term)) != KEY_NONE) {
		enum top_action a = top_view_key(&r->v, key, session_profile(r->s), now_ns());

		if (a == TOP_QUIT)
			return true;
		draw |= a == TOP_DRAW;
	}
	if (draw && r->v.t)
		top_view_draw(&r->v, now_ns());
	return false;
}

/* The session run between refreshes until q, a signal, -n, the targets' end. */
static void loop(struct top_run *r)
{
	bool more = true;

	r->next = now_ns() + (uint64_t)(r->o->delay * 1e9);
	/* The screen at once, empty: its first samples come with the first refresh. */
	if (r->screen) {
		top_view_refresh(&r->v, session_profile(r->s), now_ns());
		top_view_draw(&r->v, now_ns());
	}
	while (more && !r->out_failed) {
		struct session_run run = {&stop_requested, r->wake, r->screen ? r->term.events : -1,
					  r->next, false};

		more = session_run(r->s, &run);
		if (r->screen && keys(r))
			break;
		if (now_ns() >= r->next && refresh(r))
			break;
	}
	/* Snapshots: what came since the last one, said once more at the end. */
	if (!r->screen && !r->out_failed && r->v.heard > r->v.printed &&
	    !(r->o->iterations && r->done >= r->o->iterations)) {
		uint64_t now = now_ns();

		top_view_refresh(&r->v, session_profile(r->s), now);
		print(r, now);
	}
}

/* The recording stopped, its data file kept (-o) or let go; the exit status, ret's or 1. */
static int finish(struct top_run *r, int ret)
{
	size_t written = 0;

	stopping = 1;
	if (session_stop(r->s, r->o->output_given ? &stop_again : &no_naming, &written) < 0)
		ret = 1;
	if (r->o->output_given && ret == 0)
		session_print_summary(r->s, written);
	session_stop_command(r->s);
	if (session_cut_short(r->s)) {
		/* The naming thread may still be inside libdw: no teardown under it. */
		fflush(NULL);
		_exit(ret);
	}
	return ret;
}

int top_run(const struct top_opts *o)
{
	struct top_run r = {.o = o, .screen = !o->batch};
	int ret;

	stop_install(stop_due);
	r.s = session_new(&o->rec);
	if (!r.s)
		return 1;
	if ((r.wake = stop_wake_pipe()) < 0) {
		error("cannot create a pipe: %s", strerror(-r.wake));
		session_free(r.s);
		return 1;
	}
	if (session_start(r.s) < 0) {
		session_stop_command(r.s);
		session_free(r.s);
		return 1;
	}
	top_view_init(&r.v, o, r.screen ? &r.term : NULL, now_ns());
	session_on_sample(r.s, top_view_sample, &r.v);
	if (r.screen && term_open(&r.term, 0, 1) < 0) {
		ret = 1;
		stop_requested = 1;
	} else {
		loop(&r);
		if (r.screen)
			term_close(&r.term);
		ret = r.out_error;
	}
	ret = finish(&r, ret);
	top_view_release(&r.v);
	session_free(r.s);
	return ret;
}
