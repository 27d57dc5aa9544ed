/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.h - writing an output file without destroying what its name
 * points at.
 *
 * What the name is decides how it is written:
 *   - a new name, or a regular file (or a symbolic link, which is never
 *     followed: it is replaced, its target untouched): a file beside it
 *     without a name (O_TMPFILE; where the file system has none, a
 *     temporary name), given the name when complete (or when published:
 *     a file written in place from then on), so that a reader never sees
 *     half a file and a failure leaves the old file as it was;
 *   - "-", /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N: that
 *     very descriptor, as the shell opened it (a pipe, a terminal, a file
 *     opened for appending);
 *   - a character device or a FIFO, or a symbolic link to one (/dev/null,
 *     a named pipe a reader waits on): opened and written directly, never
 *     replaced, but only when it is ours or the directory's owner's, or
 *     the directory is one that nobody else may write to: another user's
 *     FIFO planted in /tmp is not a place to pour a recording into;
 *   - anything else (a directory, a socket, a block device, another user's
 *     file in a sticky directory that could not be replaced): refused when
 *     opened, before any work is done.
 *
 * With OUTFILE_NEW the name always gets a new regular file, whatever is
 * there (a --switch-output slice, whose name can be guessed in advance):
 * nothing already under the name is ever opened.
 *
 * A stream never holds the caller past its stop: a FIFO is opened without
 * waiting for its reader (the open is tried again until one comes or the
 * stop hook says to stop), and outfile_write waits for a reader that does
 * not read only until then, and OUTFILE_GRACE_MS more in all after it.
 *
 * Invariant: until outfile_commit or outfile_abandon, a temporary file is
 * removed by an exit handler and by the handlers of fatal signals (those
 * still at their default action), so none is left behind by a failure, a
 * crash or a hangup.
 */
#ifndef PERFMINI_OUTFILE_H
#define PERFMINI_OUTFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct outfile {
	char *path; /* as given */
	char *tmp;  /* the temporary name, or NULL */
	int fd;
	bool own_fd;	 /* fd is ours to close (not a dup of a standard stream) */
	bool unnamed;	 /* fd is a file without a name yet (O_TMPFILE) */
	bool published;	 /* fd is the file under path now */
	bool waits;	 /* a stream: writes wait for its reader (outfile_write) */
	uint64_t waited; /* nanoseconds outfile_write waited after the stop */
};

/* outfile_open's flags. */
enum {
	OUTFILE_NEW = 1, /* a new regular file under the name, whatever is there */
};

/* What a stream's writes may still wait, in all, once the stop hook says stop. */
#define OUTFILE_GRACE_MS 5000

/*
 * The hook that says the command is stopping (a signal, its duration
 * over): a stream's waits for its reader end then, or OUTFILE_GRACE_MS
 * later. Without one they wait as long as the reader makes them.
 */
void outfile_set_stop_hook(bool (*stopping)(void *arg), void *arg);

/*
 * Opens the output path for writing; a new file gets mode (less the
 * umask unless mode is 0600); flags: OUTFILE_NEW or 0. Returns 0, or
 * -errno with *why set to a sentence for the user when errno alone would
 * mislead ("is a directory").
 */
int outfile_open(struct outfile *o, const char *path, mode_t mode, int flags, const char **why);
/*
 * Writes all of buf: to a file as write_all does; to a stream a piece at
 * a time as its reader takes them, giving up with -ETIMEDOUT when the stop
 * hook has said stop and the reader took nothing for OUTFILE_GRACE_MS
 * (counted over every write after the stop). 0 or -errno.
 */
int outfile_write(struct outfile *o, const void *buf, size_t len);
/*
 * Completes it: flushes a regular file to disk and renames it into place.
 * Returns 0 or -errno; either way o is released.
 */
int outfile_commit(struct outfile *o);
/*
 * Gives the file its name now, before it is complete: from then on it is
 * written in place, and a failure or a kill leaves it as written. Does
 * nothing for a stream. Returns 0 or -errno.
 */
int outfile_publish(struct outfile *o);
/* Removes the temporary file, if any (not one published), and releases o. */
void outfile_abandon(struct outfile *o);
/* Whether the output is written directly (a stream, never renamed). */
static inline bool outfile_is_stream(const struct outfile *o)
{
	return o->tmp == NULL && !o->unnamed && !o->published;
}

#endif
