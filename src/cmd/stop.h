/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * stop.h - how a command that records (record, top) is stopped: the first
 * SIGINT, SIGTERM or SIGHUP (a closed terminal) asks it to stop; a second
 * asks again, which cuts the naming of its files short, and so does the
 * first once the recording has stopped by itself (stopping set). Each of
 * them, and SIGCHLD, wakes the loop through a pipe.
 *
 * Invariant: the handlers touch only these flags and the pipe's writing
 * end, which they write without blocking (a full pipe has a wakeup
 * pending already), and keep errno.
 */
#ifndef PERFMINI_CMD_STOP_H
#define PERFMINI_CMD_STOP_H

#include <signal.h>
#include <stdbool.h>

extern volatile sig_atomic_t stop_requested; /* a stop was asked */
extern volatile sig_atomic_t stop_again;     /* asked again, or once stopping */
extern volatile sig_atomic_t stopping;	     /* the command's own: the recording has stopped */

/*
 * The handlers, first of all: a SIGINT even then stops the recording (a
 * shell script's background job starts with SIGINT ignored, and would
 * lose it). SIGPIPE is ignored; due becomes the outputs' stop hook
 * (outfile_set_stop_hook).
 */
void stop_install(bool (*due)(void *arg));
/*
 * The pipe the handlers write to, made now (after the output file, so
 * that it has a descriptor whatever the limit): its reading end, which
 * wakes the loop, or -errno.
 */
int stop_wake_pipe(void);

#endif
