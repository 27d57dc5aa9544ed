/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io.h - writing to file descriptors, whole or not at all as far as the
 * caller can tell; files read whole; unnamed files for data that waits;
 * regular files opened without side effects. Every call returns 0 (or a
 * descriptor, or a count) or -errno, but where it says otherwise.
 */
#ifndef PERFMINI_IO_H
#define PERFMINI_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Writes all of buf to fd, again after a short write or EINTR; 0 or -errno (-ENOSPC for nothing written). */
int write_all(int fd, const void *buf, size_t len);
/* The same at file offset off (pwrite), leaving the file position alone. */
int pwrite_all(int fd, const void *buf, size_t len, uint64_t off);

/*
 * Reads fd from its position to its end into *buf, malloc'd (the caller
 * frees it): *len bytes, then a NUL, so that text may be read as a
 * string. A regular file is read into a buffer of its size; anything
 * else, into one grown as its bytes come. Reads again after a short read
 * or EINTR. Returns 0, or -errno with *buf NULL.
 */
int read_whole(int fd, char **buf, size_t *len);
/*
 * Reads the small file at path (of /proc or /sys, say) into buf: at most
 * size - 1 bytes, then a NUL. Reads again after a short read or EINTR.
 * Returns the count of bytes, or -errno of the open or of a read.
 */
ssize_t read_small(const char *path, char *buf, size_t size);
/*
 * An unnamed file for data that waits: on disk under $TMPDIR, /var/tmp or
 * /tmp (its pages are page cache, not the caller's memory), else in
 * memory (a memfd called name). Gone when the last descriptor closes.
 * Returns the descriptor (close-on-exec), or -errno.
 */
int unnamed_file(const char *name);
struct stat;

/*
 * Opens a regular file for reading without side effects: first as O_PATH
 * (no open of a device, no wait on a FIFO), with the links along path
 * resolved by the kernel as resolve says (openat2's RESOLVE_*: IN_ROOT
 * keeps them inside a target's root) and none at the end; then, if it is
 * a regular file, reopened for reading (O_NONBLOCK, O_NOCTTY). *st gets
 * its status. Returns the descriptor, or -1 with errno set (ENOENT and
 * the like, ELOOP for a link at the end, EINVAL for what is not a
 * regular file).
 */
int open_regular(int dirfd, const char *path, uint64_t resolve, struct stat *st);

/*
 * Whether err (an errno) says that no descriptor is left: to the process
 * (EMFILE) or to the system (ENFILE). An open that failed so says nothing
 * of the file, which may well be there.
 */
bool out_of_descriptors(int err);

#endif
