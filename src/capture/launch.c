/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * launch.c - the recorded command's process; see launch.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture/launch.h"

/* What the recorder catches; the held child must not run its handlers. */
static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGCHLD, SIGPIPE};

/* In the child: its standard streams on /dev/null (what cannot be opened stays). */
static void detach_stdio(void)
{
	int fd = open("/dev/null", O_RDWR);

	if (fd < 0)
		return;
	for (int i = 0; i < 3; i++)
		if (fd != i)
			dup2(fd, i);
	if (fd > 2)
		close(fd);
}

int launch_start(struct launch *l, char *const argv[], bool detached)
{
	sigset_t held, old;
	int go[2], err[2];

	memset(l, 0, sizeof(*l));
	l->go_fd = l->err_fd = -1;
	if (pipe2(go, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(err, O_CLOEXEC) < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		return -e;
	}
	/*
	 * A signal that reaches the child while it is held (Ctrl-C reaches the
	 * whole process group) waits, blocked, for the exec, and so does what it
	 * would to the command: it must not run the recorder's handler in the
	 * child, nor cut short its wait for the go.
	 */
	sigemptyset(&held);
	for (size_t i = 0; i < sizeof(held_signals) / sizeof(held_signals[0]); i++)
		sigaddset(&held, held_signals[i]);
	sigprocmask(SIG_BLOCK, &held, &old);
	l->pid = fork();
	if (l->pid != 0)
		sigprocmask(SIG_SETMASK, &old, NULL);
	if (l->pid < 0) {
		int e = errno;

		close(go[0]);
		close(go[1]);
		close(err[0]);
		close(err[1]);
		return -e;
	}
	if (l->pid == 0) {
		char c;
		ssize_t n;
		int e;

		close(go[1]);
		close(err[0]);
		for (size_t i = 0; i < sizeof(held_signals) / sizeof(held_signals[0]); i++)
			signal(held_signals[i], SIG_DFL);
		do {
			n = read(go[0], &c, 1);
		} while (n < 0 && errno == EINTR);
		if (n != 1)
			_exit(127); /* the recorder gave up */
		if (detached)
			detach_stdio();
		/* A signal held back is delivered here, as if it came just before the exec. */
		sigprocmask(SIG_SETMASK, &old, NULL);
		execvp(argv[0], argv);
		e = errno;
		if (write(err[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(err[1]);
	l->go_fd = go[1];
	l->err_fd = err[0];
	return 0;
}

int launch_release(struct launch *l)
{
	int e = 0;
	ssize_t n;

	if (write(l->go_fd, "g", 1) != 1)
		e = errno ? errno : EIO;
	close(l->go_fd);
	l->go_fd = -1;
	if (e) {
		close(l->err_fd);
		l->err_fd = -1;
		return -e;
	}
	do {
		n = read(l->err_fd, &e, sizeof(e));
	} while (n < 0 && errno == EINTR);
	close(l->err_fd);
	l->err_fd = -1;
	if (n == (ssize_t)sizeof(e)) {
		waitpid(l->pid, &l->status, 0);
		l->exited = true;
		return -e;
	}
	return 0;
}

bool launch_poll(struct launch *l)
{
	if (l->pid > 0 && !l->exited && waitpid(l->pid, &l->status, WNOHANG) == l->pid)
		l->exited = true;
	return l->exited;
}

void launch_stop(struct launch *l)
{
	if (l->pid <= 0 || launch_poll(l))
		return;
	kill(l->pid, SIGTERM);
	for (int i = 0; i < 40 && !launch_poll(l); i++)
		usleep(50000);
}

void launch_abort(struct launch *l)
{
	if (l->pid <= 0 || l->exited)
		return;
	kill(l->pid, SIGKILL);
	waitpid(l->pid, &l->status, 0);
	l->exited = true;
	if (l->go_fd >= 0)
		close(l->go_fd);
	if (l->err_fd >= 0)
		close(l->err_fd);
	l->go_fd = l->err_fd = -1;
}
