/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_outfile.c - output files: a new name or a regular file written
 * beside it and renamed into place only when complete, the old file left
 * whole by an abandoned write, a symbolic link replaced and its target
 * untouched, a character device written directly, a directory refused,
 * a FIFO replaced under OUTFILE_NEW, a reader that reads nothing waited
 * for only until the stop and its grace.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "unit-helpers.h"
#include "util/alloc.h"
#include "util/io.h"
#include "util/outfile.h"

static char *tmpdir(void)
{
	char *d = xstrdup("/tmp/check_outfile.XXXXXX");

	ck_assert_ptr_nonnull(mkdtemp(d));
	return d;
}

/* How many entries dir holds, . and .. aside. */
static int entries(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

static char *contents(const char *path)
{
	char buf[256];
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	return xstrdup(buf);
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

static void cleanup(char *dir)
{
	char *cmd = xasprintf("rm -rf '%s'", dir);

	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(dir);
}

/* A new name: nothing there until the commit, then the file, mode 0600. */
START_TEST(test_new_name)
{
	char *dir = tmpdir(), *path = xasprintf("%s/out", dir), *got;
	struct outfile o;
	const char *why = NULL;
	struct stat st;

	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), 0);
	ck_assert(!outfile_is_stream(&o));
	ck_assert_int_eq(access(path, F_OK), -1);
	/* The file has no name yet (or, without O_TMPFILE, a temporary one). */
	ck_assert_int_eq(entries(dir), o.unnamed ? 0 : 1);
	ck_assert_int_eq(write_all(o.fd, "new\n", 4), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	got = contents(path);
	ck_assert_str_eq(got, "new\n");
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	free(got);
	free(path);
	cleanup(dir);
}
END_TEST

/*
 * Published: the file under its name before it is complete, replacing
 * the old one; written in place after, kept when abandoned, and no
 * other name left in the directory.
 */
START_TEST(test_publish)
{
	char *dir = tmpdir(), *path = xasprintf("%s/out", dir), *got;
	struct outfile o;
	const char *why = NULL;

	put(path, "old\n");
	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), 0);
	ck_assert_int_eq(write_all(o.fd, "part", 4), 0);
	got = contents(path);
	ck_assert_str_eq(got, "old\n");
	free(got);
	ck_assert_int_eq(outfile_publish(&o), 0);
	ck_assert(!outfile_is_stream(&o));
	got = contents(path);
	ck_assert_str_eq(got, "part");
	free(got);
	ck_assert_int_eq(write_all(o.fd, " more", 5), 0);
	outfile_abandon(&o);
	got = contents(path);
	ck_assert_str_eq(got, "part more");
	free(got);
	ck_assert_int_eq(entries(dir), 1);
	/* Published and committed: the same file, complete. */
	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), 0);
	ck_assert_int_eq(outfile_publish(&o), 0);
	ck_assert_int_eq(write_all(o.fd, "whole", 5), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	got = contents(path);
	ck_assert_str_eq(got, "whole");
	free(got);
	ck_assert_int_eq(entries(dir), 1);
	free(path);
	cleanup(dir);
}
END_TEST

/* An existing file stays whole when the write is abandoned, replaced when committed. */
START_TEST(test_replace)
{
	char *dir = tmpdir(), *path = xasprintf("%s/out", dir), *got;
	struct outfile o;
	const char *why = NULL;

	put(path, "old\n");
	ck_assert_int_eq(outfile_open(&o, path, 0644, 0, &why), 0);
	ck_assert_int_eq(write_all(o.fd, "half", 4), 0);
	got = contents(path);
	ck_assert_str_eq(got, "old\n");
	free(got);
	outfile_abandon(&o);
	got = contents(path);
	ck_assert_str_eq(got, "old\n");
	free(got);
	ck_assert_int_eq(entries(dir), 1);

	ck_assert_int_eq(outfile_open(&o, path, 0644, 0, &why), 0);
	ck_assert_int_eq(write_all(o.fd, "whole\n", 6), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	got = contents(path);
	ck_assert_str_eq(got, "whole\n");
	free(got);
	ck_assert_int_eq(entries(dir), 1);
	free(path);
	cleanup(dir);
}
END_TEST

/* A symbolic link is replaced by the file; what it pointed at is untouched. */
START_TEST(test_symlink)
{
	char *dir = tmpdir(), *path = xasprintf("%s/out", dir);
	char *target = xasprintf("%s/target", dir), *got;
	struct outfile o;
	const char *why = NULL;
	struct stat st;

	put(target, "keep\n");
	ck_assert_int_eq(symlink(target, path), 0);
	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), 0);
	ck_assert_int_eq(write_all(o.fd, "mine\n", 5), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	got = contents(path);
	ck_assert_str_eq(got, "mine\n");
	free(got);
	got = contents(target);
	ck_assert_str_eq(got, "keep\n");
	free(got);
	free(target);
	free(path);
	cleanup(dir);
}
END_TEST

/* A character device is written directly; a directory is refused, saying why. */
START_TEST(test_device_and_directory)
{
	char *dir = tmpdir();
	struct outfile o;
	const char *why = NULL;

	ck_assert_int_eq(outfile_open(&o, "/dev/null", 0600, 0, &why), 0);
	ck_assert(outfile_is_stream(&o));
	ck_assert_int_eq(write_all(o.fd, "gone", 4), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);

	why = NULL;
	ck_assert_int_lt(outfile_open(&o, dir, 0600, 0, &why), 0);
	ck_assert_ptr_nonnull(why);
	ck_assert_int_eq(entries(dir), 0);
	cleanup(dir);
}
END_TEST

/* OUTFILE_NEW: a FIFO under the name is replaced by the file, never opened. */
START_TEST(test_new_over_fifo)
{
	char *dir = tmpdir(), *path = xasprintf("%s/slice", dir), *got;
	struct outfile o;
	const char *why = NULL;
	struct stat st;

	ck_assert_int_eq(mkfifo(path, 0666), 0);
	/* Without a reader, opening the FIFO for writing would block. */
	ck_assert_int_eq(outfile_open(&o, path, 0600, OUTFILE_NEW, &why), 0);
	ck_assert(!outfile_is_stream(&o));
	ck_assert_int_eq(outfile_write(&o, "slice", 5), 0);
	ck_assert_int_eq(outfile_commit(&o), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_mode & 0777, 0600);
	got = contents(path);
	ck_assert_str_eq(got, "slice");
	free(got);
	ck_assert_int_eq(entries(dir), 1);
	free(path);
	cleanup(dir);
}
END_TEST

static bool stop_now(void *arg)
{
	return *(bool *)arg;
}

/*
 * A reader that opens the FIFO and takes nothing: writes wait while the
 * hook says go on (the pipe fills), and give up with -ETIMEDOUT within
 * the grace once it says stop.
 */
START_TEST(test_stuck_reader)
{
	char *dir = tmpdir(), *path = xasprintf("%s/fifo", dir);
	static char buf[1 << 20];
	bool stop = false;
	struct outfile o;
	const char *why = NULL;
	int rfd;

	ck_assert_int_eq(mkfifo(path, 0600), 0);
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	ck_assert_int_ge(rfd, 0);
	outfile_set_stop_hook(stop_now, &stop);
	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), 0);
	ck_assert(outfile_is_stream(&o));
	ck_assert_int_eq(outfile_write(&o, "head", 4), 0);
	stop = true;
	/* More than a pipe holds: only the grace is waited. */
	ck_assert_int_eq(outfile_write(&o, buf, sizeof(buf)), -ETIMEDOUT);
	ck_assert_uint_ge(o.waited, OUTFILE_GRACE_MS * 1000000ULL);
	ck_assert_uint_lt(o.waited, (OUTFILE_GRACE_MS + 2000) * 1000000ULL);
	/* The grace is spent: a later write gives up at once. */
	ck_assert_int_eq(outfile_write(&o, buf, sizeof(buf)), -ETIMEDOUT);
	outfile_abandon(&o);
	outfile_set_stop_hook(NULL, NULL);
	close(rfd);
	free(path);
	cleanup(dir);
}
END_TEST

/* A FIFO nobody reads: the open waits only until the hook says stop. */
START_TEST(test_fifo_no_reader)
{
	char *dir = tmpdir(), *path = xasprintf("%s/fifo", dir);
	bool stop = true;
	struct outfile o;
	const char *why = NULL;

	ck_assert_int_eq(mkfifo(path, 0600), 0);
	outfile_set_stop_hook(stop_now, &stop);
	ck_assert_int_eq(outfile_open(&o, path, 0600, 0, &why), -ENXIO);
	ck_assert_ptr_nonnull(why);
	outfile_set_stop_hook(NULL, NULL);
	free(path);
	cleanup(dir);
}
END_TEST

static Suite *outfile_suite(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_test(tc, test_new_name);
	tcase_add_test(tc, test_publish);
	tcase_add_test(tc, test_replace);
	tcase_add_test(tc, test_symlink);
	tcase_add_test(tc, test_device_and_directory);
	tcase_add_test(tc, test_new_over_fifo);
	tcase_add_test(tc, test_stuck_reader);
	tcase_add_test(tc, test_fifo_no_reader);
	tcase_set_timeout(tc, 30);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(outfile_suite());
}
