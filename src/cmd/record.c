/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.c - "perfmini record" run: the signals that stop it, and the
 * session (session/session.h) driven from its start to its summary.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cmd/record.h"
#include "session/session.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/outfile.h"

/*
 * The first SIGINT, SIGTERM or SIGHUP stops the recording; a second cuts
 * its naming short, and so does the first once the recording has stopped
 * by itself (the command exited, -d): stopping says it has.
 */
static volatile sig_atomic_t stop_requested, stop_again, stopping;
static int wake_pipe[2] = {-1, -1};

static void on_signal(int sig)
{
	int saved = errno;
	char c = (char)sig;

	if (sig != SIGCHLD) {
		if (stop_requested || stopping)
			stop_again = 1;
		stop_requested = 1;
	}
	if (wake_pipe[1] >= 0 && write(wake_pipe[1], &c, 1) < 0) {
		/* full pipe: a wakeup is already pending */
	}
	errno = saved;
}

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

/*
 * The handlers, first of all: a SIGINT even then stops the recording (a
 * shell script's background job starts with SIGINT ignored, and would
 * lose it). The pipe comes later (open_wake_pipe): the output file is
 * opened before it, so that it has a descriptor whatever the limit.
 */
static void install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL); /* a closed terminal: stop, and keep what was sampled */
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	outfile_set_stop_hook(stop_due, NULL);
}

/* The pipe the handlers write to, which wakes the loop; 0 or -errno. */
static int open_wake_pipe(void)
{
	return pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0 ? -errno : 0;
}

int record_run(const struct record_opts *o)
{
	struct session *s;
	size_t written = 0;
	bool tty;
	int ret;

	/*
	 * The output exists before anything else is opened, the events above
	 * all: its descriptor is reserved, and a bad output is said at once.
	 */
	install_signals();
	s = session_new(o);
	if (!s)
		return 1;
	if ((ret = open_wake_pipe()) < 0) {
		error("cannot create a pipe: %s", strerror(-ret));
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
	session_run(s, &(struct session_run){&stop_requested, wake_pipe[0], -1, 0, tty});
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
