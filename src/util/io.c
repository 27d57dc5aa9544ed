/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io.c - whole writes and reads, unnamed files and regular files opened
 * safely; see io.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/array.h"
#include "util/io.h"

int write_all(int fd, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int pwrite_all(int fd, const void *buf, size_t len, uint64_t off)
{
	const unsigned char *p = buf;

	while (len) {
		ssize_t n = pwrite(fd, p, len, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -ENOSPC;
		p += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

/* Reads fd into the room bytes at buf until they are full or its end; the count or -errno. */
static ssize_t read_full(int fd, char *buf, size_t room)
{
	size_t n = 0;

	while (n < room) {
		ssize_t got = read(fd, buf + n, room - n);

		if (got < 0 && errno == EINTR)
			continue;
		if (got < 0)
			return -errno;
		if (got == 0)
			break;
		n += (size_t)got;
	}
	return (ssize_t)n;
}

int read_whole(int fd, char **buf, size_t *len)
{
	size_t n = 0, cap = 0;
	struct stat st;
	char *b = NULL;

	/* A byte more than its size: the read that finds the end needs room. */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		cap = (size_t)st.st_size + 2;
		b = xmalloc(cap);
	}
	for (;;) {
		size_t room;
		ssize_t got;

		xgrow(&b, &cap, n + 2, 1); /* a byte to read and the NUL */
		room = cap - n - 1;
		got = read_full(fd, b + n, room);
		if (got < 0) {
			free(b);
			*buf = NULL;
			return (int)got;
		}
		n += (size_t)got;
		if ((size_t)got < room)
			break; /* the end */
	}
	b[n] = '\0';
	*buf = b;
	*len = n;
	return 0;
}

ssize_t read_small(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = size ? read_full(fd, buf, size - 1) : 0;
	close(fd);
	if (n >= 0 && size)
		buf[n] = '\0';
	return n;
}

/* The places of unnamed files, in the order they are tried. */
static void unnamed_dirs(const char *dirs[3])
{
	dirs[0] = getenv("TMPDIR");
	dirs[1] = "/var/tmp";
	dirs[2] = "/tmp";
}

int unnamed_file(const char *name)
{
	const char *dirs[3];
	int fd;

	unnamed_dirs(dirs);
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (dirs[i] && *dirs[i] &&
		    (fd = open(dirs[i], O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			return fd;
	fd = memfd_create(name, MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int open_regular(int dirfd, const char *path, uint64_t resolve, struct stat *st)
{
	struct open_how how = {.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC, .resolve = resolve};
	char proc[64];
	int pfd, fd;

	pfd = (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
	if (pfd < 0 && errno == ENOSYS && !(resolve & (RESOLVE_IN_ROOT | RESOLVE_BENEATH)))
		pfd = openat(dirfd, path, O_PATH | O_NOFOLLOW | O_CLOEXEC); /* before Linux 5.6 */
	if (pfd < 0)
		return -1;
	if (fstat(pfd, st) < 0 || !S_ISREG(st->st_mode)) {
		int err = errno;

		if (fstat(pfd, st) == 0)
			err = EINVAL; /* not a regular file */
		close(pfd);
		errno = err;
		return -1;
	}
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", pfd);
	fd = open(proc, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		int err = errno;

		close(pfd);
		errno = err;
		return -1;
	}
	close(pfd);
	return fd;
}

bool out_of_descriptors(int err)
{
	return err == EMFILE || err == ENFILE;
}
