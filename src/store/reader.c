/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * reader.c - a data file read whole, after the checks that come before
 * parsing: a regular file, its owner, its magic. See datafile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/datafile.h"
#include "util/io.h"

struct profile *datafile_read(const char *path, bool force, char *err, size_t errlen)
{
	struct profile *p = NULL;
	char *buf = NULL, why[256];
	size_t len = 0;
	struct stat st;
	int fd, ret;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "'%s' is not a regular file", path);
		goto out;
	}
	/* Another user's file may have been planted for us to parse: as perf does, ask. */
	if (!force && st.st_uid != geteuid() && st.st_uid != 0) {
		const struct passwd *pw = getpwuid(st.st_uid);

		snprintf(err, errlen,
			 "'%s' belongs to uid %u%s%s%s, not to you: use --force to read it", path,
			 (unsigned)st.st_uid, pw ? " (" : "", pw ? pw->pw_name : "", pw ? ")" : "");
		goto out;
	}
	/* Eight bytes say whether it is a data file at all: before reading the rest. */
	{
		char magic[8];
		ssize_t n;

		do {
			n = pread(fd, magic, sizeof(magic), 0);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			snprintf(err, errlen, "cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n < (ssize_t)sizeof(magic) || memcmp(magic, DATAFILE_MAGIC, 8) != 0) {
			snprintf(err, errlen,
				 "%s: not a perfmini data file (bad magic at offset 0)", path);
			goto out;
		}
	}
	ret = read_whole(fd, &buf, &len);
	if (ret < 0) {
		snprintf(err, errlen, "cannot read '%s': %s", path, strerror(-ret));
		goto out;
	}
	p = datafile_decode((const unsigned char *)buf, len, why, sizeof(why));
	if (!p)
		snprintf(err, errlen, "%s: %s", path, why);
out:
	close(fd);
	free(buf);
	return p;
}
