/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stop.c - the signals that stop a recording command; see stop.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "cmd/stop.h"
#include "util/outfile.h"

volatile sig_atomic_t stop_requested, stop_again, stopping;
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

void stop_install(bool (*due)(void *arg))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	sigaction(SIGCHLD, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	outfile_set_stop_hook(due, NULL);
}

int stop_wake_pipe(void)
{
	if (wake_pipe[0] < 0 && pipe2(wake_pipe, O_CLOEXEC | O_NONBLOCK) < 0)
		return -errno;
	return wake_pipe[0];
}
