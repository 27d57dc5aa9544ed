/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * launch.h - the command a recording runs: forked first, held until its
 * events exist (they are enabled by its exec), then let go.
 *
 * Invariant: the child execs only after launch_release, so no instruction
 * of the command runs unobserved; an exec that fails is reported to the
 * parent through a pipe, never mistaken for the command's own exit. While
 * held, the child blocks the signals the recorder catches (with their
 * default actions): one sent to it then takes effect at the exec.
 */
#ifndef PERFMINI_LAUNCH_H
#define PERFMINI_LAUNCH_H

#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int go_fd;  /* written to let the child exec */
	int err_fd; /* the child's exec errno, or EOF once it exec'd */
	int status; /* wait status, once exited */
	bool exited;
};

/*
 * Forks the child for argv, held; detached, its standard input, output
 * and error are /dev/null from its exec on. Returns 0 or -errno.
 */
int launch_start(struct launch *l, char *const argv[], bool detached);
/*
 * Lets the child exec. Returns 0, or -errno from the exec (the child is
 * then reaped) or from writing to it.
 */
int launch_release(struct launch *l);
/* Reaps the child if it has exited; returns l->exited. */
bool launch_poll(struct launch *l);
/*
 * Asks a child still running to stop (SIGTERM), and waits up to two
 * seconds for it; one that ignores SIGTERM is left running.
 */
void launch_stop(struct launch *l);
/* Kills and reaps a child that never exec'd. */
void launch_abort(struct launch *l);

#endif
