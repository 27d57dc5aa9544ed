/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * io.c - whole writes and unnamed files; see io.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

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

int unnamed_file(const char *name)
{
	const char *dirs[] = {getenv("TMPDIR"), "/var/tmp", "/tmp"};
	int fd;

	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++)
		if (dirs[i] && *dirs[i] &&
		    (fd = open(dirs[i], O_TMPFILE | O_RDWR | O_EXCL | O_CLOEXEC, 0600)) >= 0)
			return fd;
	fd = memfd_create(name, MFD_CLOEXEC);
	return fd < 0 ? -errno : fd;
}
