/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * outfile.c - output files written safely; see outfile.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util/alloc.h"
#include "util/array.h"
#include "util/outfile.h"
#include "util/parse.h"

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

static int open_stream(struct outfile *o, const char *path)
{
	o->fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (o->fd < 0)
		return -errno;
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

int outfile_open(struct outfile *o, const char *path, mode_t mode, const char **why)
{
	struct stat st, target;
	int fd, ret;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	*why = NULL;
	fd = std_stream(path);
	if (fd >= 0) {
		o->fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		if (o->fd < 0)
			return -errno;
		o->path = xstrdup(path);
		o->own_fd = true;
		return 0;
	}
	if (lstat(path, &st) == 0) {
		/* A link is followed only to a device or a FIFO: a stream, not a file. */
		if (S_ISLNK(st.st_mode) && stat(path, &target) == 0 &&
		    (S_ISCHR(target.st_mode) || S_ISFIFO(target.st_mode)))
			st = target;
		if (S_ISCHR(st.st_mode) || S_ISFIFO(st.st_mode)) {
			ret = open_stream(o, path);
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
