/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.c - output files written safely; see outfile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/array.h"
#include "util/clock.h"
#include "util/io.h"
#include "util/outfile.h"
#include "util/parse.h"

/* How often a stream's waits look at the stop hook, in milliseconds. */
#define STREAM_POLL_MS 50

static bool (*stop_hook)(void *arg);
static void *stop_arg;

void outfile_set_stop_hook(bool (*stopping)(void *arg), void *arg)
{
	stop_hook = stopping;
	stop_arg = arg;
}

static bool stopping(void)
{
	return stop_hook && stop_hook(stop_arg);
}

/*
 * The temporary files not yet committed, for the exit and signal
 * handlers. A fixed table: a command has one or two outputs at a time, and
 * a signal handler cannot walk a list that is being changed.
 */
#define MAX_PENDING 8
static char *volatile pending[MAX_PENDING];
static pid_t owner; /* a forked child that has not exec'd yet leaves them be */

static void remove_pending(void)
{
	if (getpid() != owner)
		return;
	for (int i = 0; i < MAX_PENDING; i++)
		if (pending[i])
			unlink(pending[i]);
}

static void on_fatal(int sig)
{
	remove_pending();
	/* SA_RESETHAND made the action the default again. */
	raise(sig);
}

/* Once: the exit handler, and the fatal signals nobody else handles. */
static void install_cleanup(void)
{
	static const int fatal[] = {SIGHUP, SIGINT,  SIGTERM, SIGQUIT, SIGSEGV,
				    SIGBUS, SIGABRT, SIGFPE,  SIGILL};
	static bool done;
	struct sigaction sa, old;

	if (done)
		return;
	done = true;
	owner = getpid();
	atexit(remove_pending);
	/* A file grown past RLIMIT_FSIZE: let write() fail with EFBIG instead. */
	signal(SIGXFSZ, SIG_IGN);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_fatal;
	sa.sa_flags = SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < ARRAY_SIZE(fatal); i++)
		if (sigaction(fatal[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
			sigaction(fatal[i], &sa, NULL);
}

static void set_pending(const char *tmp, bool on)
{
	for (int i = 0; i < MAX_PENDING; i++) {
		if (on && !pending[i]) {
			pending[i] = (char *)(uintptr_t)tmp;
			return;
		}
		if (!on && pending[i] == tmp) {
			pending[i] = NULL;
			return;
		}
	}
}

/* The descriptor a name stands for: "-", /dev/stdout, /dev/fd/N, ...; -1 if none. */
static int std_stream(const char *path)
{
	static const char *const prefixes[] = {"/dev/fd/", "/proc/self/fd/"};
	uint64_t n;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t len = strlen(prefixes[i]);

		if (!strncmp(path, prefixes[i], len) && parse_u64(path + len, &n) == 0 &&
		    n <= 1024 * 1024)
			return (int)n;
	}
	return -1;
}

/*
 * Whether the entry st of path may be replaced by a rename: in a sticky
 * directory only its owner, the directory's owner or root may.
 */
static bool may_replace(const char *path, const struct stat *st)
{
	char *copy = xstrdup(path);
	struct stat dir;
	bool ok = true;
	uid_t me = geteuid();

	if (me != 0 && st->st_uid != me && stat(dirname(copy), &dir) == 0 &&
	    (dir.st_mode & S_ISVTX) && dir.st_uid != me)
		ok = false;
	free(copy);
	return ok;
}

/*
 * Whether the entry st of path may have been put there by someone else:
 * it is neither ours nor the directory's owner's, in a directory that
 * others may write to (sticky, or writable by its group or by all), as
 * the kernel's protected_fifos and protected_symlinks judge.
 */
static bool planted(const char *path, const struct stat *st)
{
	char *copy = xstrdup(path);
	struct stat dir;
	bool ret = false;

	if (st->st_uid != geteuid() && stat(dirname(copy), &dir) == 0 && st->st_uid != dir.st_uid &&
	    (dir.st_mode & (S_ISVTX | S_IWGRP | S_IWOTH)))
		ret = true;
	free(copy);
	return ret;
}

/*
 * A FIFO or a device, opened without waiting: a FIFO with no reader yet
 * is tried again until one opens it or the stop hook says stop (ENXIO).
 */
static int open_stream(struct outfile *o, const char *path)
{
	for (;;) {
		o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
		if (o->fd >= 0)
			break;
		if (errno != ENXIO || stopping())
			return -errno;
		poll(NULL, 0, STREAM_POLL_MS / 5);
	}
	o->waits = true;
	return 0;
}

/* The directory path is in, as a new string. */
static char *dir_of(const char *path)
{
	char *copy = xstrdup(path), *dir = xstrdup(dirname(copy));

	free(copy);
	return dir;
}

/*
 * A file without a name in path's directory (O_TMPFILE), so that nothing
 * is left behind whatever ends the process; -errno where the file system
 * has none.
 */
static int open_unnamed(struct outfile *o, const char *path, mode_t mode)
{
#ifdef O_TMPFILE
	char *dir = dir_of(path);

	o->fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
	free(dir);
	if (o->fd < 0)
		return -errno;
	if (mode != 0600 && fchmod(o->fd, mode) < 0) {
		int err = errno;

		close(o->fd);
		o->fd = -1;
		return -err;
	}
	o->unnamed = true;
	return 0;
#else
	(void)o, (void)path, (void)mode;
	return -EOPNOTSUPP;
#endif
}

static int open_temporary(struct outfile *o, const char *path, mode_t mode)
{
	int ret;

	/* Also for an unnamed file: a file too big fails its write (SIGXFSZ ignored). */
	install_cleanup();
	ret = open_unnamed(o, path, mode);

	/* No O_TMPFILE here (an old kernel, some network file systems): a name. */
	if (ret != -EOPNOTSUPP && ret != -EISDIR && ret != -EINVAL)
		return ret;
	o->tmp = xasprintf("%s.tmp.XXXXXX", path);
	/* mkostemp: O_EXCL and mode 0600, never through a planted link. */
	o->fd = mkostemp(o->tmp, O_CLOEXEC);
	if (o->fd < 0 || (mode != 0600 && fchmod(o->fd, mode) < 0)) {
		int err = errno;

		if (o->fd >= 0) {
			close(o->fd);
			unlink(o->tmp);
		}
		free(o->tmp);
		o->tmp = NULL;
		o->fd = -1;
		return -err;
	}
	install_cleanup();
	set_pending(o->tmp, true);
	return 0;
}

/*
 * Links the unnamed file fd under path, replacing what is there: linked
 * straight to a new name, else to a fresh name beside it renamed over the
 * old file (the kernel links an unnamed file only to a name not taken).
 */
static int link_unnamed(int fd, const char *path)
{
	char proc[64], *tmp;
	int ret = 0;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if (linkat(AT_FDCWD, proc, AT_FDCWD, path, AT_SYMLINK_FOLLOW) == 0)
		return 0;
	if (errno != EEXIST)
		return -errno;
	for (int tries = 0;; tries++) {
		char name[8];

		for (int i = 0; i < 6; i++)
			name[i] = "abcdefghijklmnopqrstuvwxyz0123456789"[rand() % 36];
		name[6] = '\0';
		tmp = xasprintf("%s.tmp.%s", path, name);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
			break;
		ret = -errno;
		free(tmp);
		if (ret != -EEXIST || tries == 100)
			return ret;
	}
	ret = rename(tmp, path) < 0 ? -errno : 0;
	if (ret < 0)
		unlink(tmp);
	free(tmp);
	return ret;
}

int outfile_publish(struct outfile *o)
{
	int ret = 0;

	if (o->published || (!o->unnamed && !o->tmp))
		return 0;
	if (o->unnamed) {
		ret = link_unnamed(o->fd, o->path);
	} else if (rename(o->tmp, o->path) < 0) {
		ret = -errno;
	} else {
		set_pending(o->tmp, false);
		free(o->tmp);
		o->tmp = NULL;
	}
	if (ret == 0) {
		o->unnamed = false;
		o->published = true;
	}
	return ret;
}

/*
 * Whether the link at path (entry st) leads to a device or a FIFO, *target
 * then its status: a stream, not a file to replace.
 */
static bool link_to_stream(const char *path, const struct stat *st, struct stat *target)
{
	return S_ISLNK(st->st_mode) && stat(path, target) == 0 &&
	       (S_ISCHR(target->st_mode) || S_ISFIFO(target->st_mode));
}

/*
 * Whether the stream at path (entry st, target its end when a link) may
 * be written: neither the link nor what it leads to was put there by
 * someone else. *why says why not.
 */
static bool stream_allowed(const char *path, const struct stat *st, const struct stat *target,
			   const char **why)
{
	char *real;
	bool ok;

	*why = "it is another user's FIFO or device in a directory others may write to: "
	       "give a name of your own";
	if (planted(path, st))
		return false;
	if (!S_ISLNK(st->st_mode))
		return true;
	real = realpath(path, NULL);
	ok = real && !planted(real, target);
	free(real);
	return ok;
}

/* A standard stream's descriptor fd as o's own; its writes wait unless it is a file. */
static int open_std(struct outfile *o, int fd)
{
	struct stat st;

	o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (o->fd < 0)
		return -errno;
	o->waits = fstat(o->fd, &st) < 0 || !S_ISREG(st.st_mode);
	return 0;
}

int outfile_open(struct outfile *o, const char *path, mode_t mode, int flags, const char **why)
{
	struct stat st, target;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	*why = NULL;
	fd = std_stream(path);
	if (fd >= 0 && !(flags & OUTFILE_NEW)) {
		ret = open_std(o, fd);
		goto out;
	}
	if (flags & OUTFILE_NEW) {
		/* Whatever is under the name is replaced, never opened. */
	} else if (lstat(path, &st) == 0) {
		const struct stat *node = link_to_stream(path, &st, &target) ? &target : &st;

		if (S_ISCHR(node->st_mode) || S_ISFIFO(node->st_mode)) {
			if (!stream_allowed(path, &st, &target, why))
				return -EPERM;
			ret = open_stream(o, path);
			if (ret == -ENXIO)
				*why = "no reader opened the FIFO before the stop";
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			*why = "it is a directory: give a file name";
			return -EISDIR;
		}
		if (S_ISSOCK(st.st_mode) || S_ISBLK(st.st_mode)) {
			*why = S_ISSOCK(st.st_mode) ? "it is a socket" : "it is a block device";
			return -EINVAL;
		}
		if (!may_replace(path, &st)) {
			*why = "it belongs to another user in a sticky directory, where only its "
			       "owner may replace it";
			return -EPERM;
		}
	} else if (errno != ENOENT) {
		return -errno;
	}
	ret = open_temporary(o, path, mode);
out:
	if (ret < 0)
		return ret;
	o->path = xstrdup(path);
	o->own_fd = true;
	return 0;
}

void outfile_abandon(struct outfile *o)
{
	if (o->fd >= 0 && o->own_fd)
		close(o->fd);
	if (o->tmp) {
		unlink(o->tmp);
		set_pending(o->tmp, false);
	}
	free(o->tmp);
	free(o->path);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/*
 * Waits until fd takes bytes, or the time left after the stop is spent;
 * 0, or -ETIMEDOUT (a reader that takes nothing) or -errno.
 */
static int wait_reader(struct outfile *o)
{
	struct pollfd p = {.fd = o->fd, .events = POLLOUT};
	bool stop = stopping();
	uint64_t t0 = stop ? now_ns() : 0;
	int n;

	if (stop && o->waited >= OUTFILE_GRACE_MS * 1000000ULL)
		return -ETIMEDOUT;
	n = poll(&p, 1, STREAM_POLL_MS);
	if (stop)
		o->waited += now_ns() - t0;
	if (n < 0 && errno != EINTR)
		return -errno;
	return 0;
}

int outfile_write(struct outfile *o, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	if (!o->waits)
		return write_all(o->fd, buf, len);
	/*
	 * A piece at a time, each no larger than what a pipe that polls
	 * writable takes at once, so that a blocking descriptor (a shell's
	 * pipe, left as it is) never blocks either.
	 */
	while (len) {
		ssize_t n = write(o->fd, p, len < PIPE_BUF ? len : PIPE_BUF);
		int ret;

		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n == 0)
			return -ENOSPC;
		if (errno != EAGAIN && errno != EINTR)
			return -errno;
		if ((ret = wait_reader(o)) < 0)
			return ret;
	}
	return 0;
}

int outfile_commit(struct outfile *o)
{
	bool file = o->tmp || o->unnamed || o->published;
	int ret = 0;

	if (file && fsync(o->fd) < 0)
		ret = -errno;
	if (ret == 0)
		ret = outfile_publish(o);
	if (close(o->fd) < 0 && ret == 0 && errno != EINTR)
		ret = -errno;
	o->fd = -1;
	outfile_abandon(o);
	return ret;
}
