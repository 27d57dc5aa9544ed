/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * zcache.c - expanded copies kept between runs; see zcache.h.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbol/zcache.h"
#include "util/alloc.h"

#define SUFFIX ".x"

static int cache_dir = -1;

/* Makes each missing directory of path (0700), then opens the last. */
static int open_made(const char *path)
{
	char *p = xstrdup(path);
	int fd;

	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			break;
		*s = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST) {
		free(p);
		return -1;
	}
	fd = open(p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	free(p);
	return fd;
}

static void open_cache(void)
{
	const char *dir = getenv("PERFMINI_CACHE_DIR"), *base;
	char *path = NULL;
	struct stat st;
	int fd;

	if (dir) {
		if (!*dir)
			return; /* turned off */
		path = xstrdup(dir);
	} else if ((base = getenv("XDG_CACHE_HOME")) && *base == '/') {
		path = xasprintf("%s/perfmini/expanded", base);
	} else if ((base = getenv("HOME")) && *base == '/') {
		path = xasprintf("%s/.cache/perfmini/expanded", base);
	} else {
		return;
	}
	fd = open_made(path);
	free(path);
	if (fd < 0)
		return;
	/* Another user's directory, or one others may write to, could hold anything. */
	if (fstat(fd, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022)) {
		close(fd);
		return;
	}
	cache_dir = fd;
}

int zcache_dir(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;

	pthread_once(&once, open_cache);
	return cache_dir;
}

/* The copy's name: the source's identity, which any change to it changes. */
static void name_of(const struct stat *src, char *buf, size_t n)
{
	snprintf(buf, n, "%llx-%llx-%llx-%llx.%09ld" SUFFIX, (unsigned long long)src->st_dev,
		 (unsigned long long)src->st_ino, (unsigned long long)src->st_size,
		 (unsigned long long)src->st_ctim.tv_sec, (long)src->st_ctim.tv_nsec);
}

int zcache_find(const struct stat *src, uint64_t size)
{
	char name[128];
	struct stat st;
	int dir = zcache_dir(), fd;

	if (dir < 0)
		return -1;
	name_of(src, name, sizeof(name));
	fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 022) || (uint64_t)st.st_size != size) {
		/* Not a copy this run would have made: it goes, so that one can take its name. */
		if (S_ISREG(st.st_mode))
			unlinkat(dir, name, 0);
		close(fd);
		return -1;
	}
	futimens(fd, NULL); /* used now: the last to go */
	return fd;
}

int zcache_new(void)
{
	int dir = zcache_dir();

	return dir < 0 ? -1 : openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
}

struct entry {
	char *name;
	uint64_t bytes;
	struct timespec used;
};

static int older_first(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->used.tv_sec != y->used.tv_sec)
		return x->used.tv_sec < y->used.tv_sec ? -1 : 1;
	return (x->used.tv_nsec > y->used.tv_nsec) - (x->used.tv_nsec < y->used.tv_nsec);
}

void zcache_trim(int dir, uint64_t max_bytes)
{
	zcache_trim_files(dir, SUFFIX, max_bytes);
}

void zcache_trim_files(int dir, const char *suffix, uint64_t max_bytes)
{
	struct entry *e = NULL;
	size_t n = 0, cap = 0;
	uint64_t total = 0;
	struct dirent *d;
	int fd = openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* its own offset */
	DIR *ds = fd >= 0 ? fdopendir(fd) : NULL;

	if (!ds) {
		if (fd >= 0)
			close(fd);
		return;
	}
	while ((d = readdir(ds))) {
		size_t len = strlen(d->d_name);
		struct stat st;

		if (len <= strlen(suffix) || strcmp(d->d_name + len - strlen(suffix), suffix) ||
		    fstatat(dir, d->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		xgrow(&e, &cap, n + 1, sizeof(*e));
		e[n++] = (struct entry){xstrdup(d->d_name), (uint64_t)st.st_blocks * 512,
					st.st_mtim};
		total += (uint64_t)st.st_blocks * 512;
	}
	closedir(ds);
	if (n)
		qsort(e, n, sizeof(*e), older_first);
	for (size_t i = 0; i < n; i++) {
		if (total > max_bytes && unlinkat(dir, e[i].name, 0) == 0)
			total -= e[i].bytes;
		free(e[i].name);
	}
	free(e);
}

void zcache_keep(int fd, const struct stat *src)
{
	char name[128], proc[64];
	int dir = zcache_dir();

	if (dir < 0)
		return;
	name_of(src, name, sizeof(name));
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	/*
	 * On disk before it has a name: a crash must not leave a named copy
	 * whose blocks were never written. Another run may have kept the
	 * same copy meanwhile: then this one goes with fd.
	 */
	if (fdatasync(fd) == 0 && linkat(AT_FDCWD, proc, dir, name, AT_SYMLINK_FOLLOW) == 0)
		zcache_trim(dir, ZCACHE_BYTES);
}
