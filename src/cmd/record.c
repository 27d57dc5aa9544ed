/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - "perfmini record" run: the session (session/session.h)
 * driven from its start to its summary, stopped as stop.h says.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/record.h"
#include "cmd/stop.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/outfile.h"

/* The end of -d, in now_ns's time; 0 before the start or without -d. */
static uint64_t stop_deadline;

/*
 * The outputs' stop hook: a reader that takes nothing holds the recording
 * up only until a signal or -d, and then not for long (outfile.h).
 */
static bool stop_due(void *arg)
{
	(void)arg;
	return stop_requested || stopping || (stop_deadline && now_ns() >= stop_deadline);
}

int record_run(const struct record_opts *o)
{
	struct session *s;
	size_t written = 0;
	bool tty;
	int ret, wake;

	/*
	 * The output exists before anything else is opened, the events above
	 * all: its descriptor is reserved, and a bad output is said at once.
	 */
	stop_install(stop_due);
	s = session_new(o);
	if (!s)
		return 1;
	if ((wake = stop_wake_pipe()) < 0) {
		error("cannot create a pipe: %s", strerror(-wake));
		session_free(s);
		return 1;
	}
	if (session_start(s) < 0) {
		session_stop_command(s);
		session_free(s);
		return 1;
	}
	stop_deadline = session_deadline(s);
	tty = session_status_wanted(s);
	session_run(s, &(struct session_run){&stop_requested, wake, -1, 0, tty});
	stopping = 1;
	if (tty)
		fprintf(stderr, "\r\033[K");
	ret = session_stop(s, &stop_again, &written) < 0 ? 1 : 0;
	if (!o->quiet && ret == 0)
		session_print_summary(s, written);
	/*
	 * A command still running (after -d or a signal) is asked to stop, once
	 * the file is safe.
	 */
	session_stop_command(s);
	if (session_cut_short(s)) {
		/*
		 * The naming thread may still be inside libdw: the process ends
		 * here, with no exit-time teardown running under it.
		 */
		fflush(NULL);
		_exit(ret);
	}
	session_free(s);
	return ret;
}
