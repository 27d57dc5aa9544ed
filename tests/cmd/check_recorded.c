/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_recorded.c - unit tests of cmd/recorded.c: a recording's debug
 * file found again by build-id, and the build-ids a recording may name
 * that must never reach outside the debug directory.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/recorded.h"
#include "unit-helpers.h"
#include "util/alloc.h"

START_TEST(test_debug_path)
{
	char *p = recorded_debug_path("/d", "2a9b30e975b0b8f47f5a34d276da56aaaa39fc9b");
	char longest[2 * BUILD_ID_MAX + 2];

	ck_assert_str_eq(p, "/d/.build-id/2a/9b30e975b0b8f47f5a34d276da56aaaa39fc9b.debug");
	free(p);
	p = recorded_debug_path("/d", "ab");
	ck_assert_str_eq(p, "/d/.build-id/ab/.debug");
	free(p);
	/* Not hex: a recording's string that would climb out of the directory, or none. */
	ck_assert_ptr_null(recorded_debug_path("/d", "../../etc/shadow"));
	ck_assert_ptr_null(recorded_debug_path("/d", "2a/../../x"));
	ck_assert_ptr_null(recorded_debug_path("/d", "2A9B"));
	ck_assert_ptr_null(recorded_debug_path("/d", "a"));
	ck_assert_ptr_null(recorded_debug_path("/d", ""));
	memset(longest, 'a', sizeof(longest) - 1);
	longest[sizeof(longest) - 1] = '\0';
	ck_assert_ptr_null(recorded_debug_path("/d", longest));
	longest[sizeof(longest) - 2] = '\0';
	p = recorded_debug_path("/d", longest);
	ck_assert_ptr_nonnull(p);
	free(p);
}
END_TEST

/* The build-id of this test's own binary, in hex; false when it has none. */
static bool own_build_id(char hex[2 * BUILD_ID_MAX + 1])
{
	uint8_t id[BUILD_ID_MAX];
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	Elf *e;
	size_t n = 0;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (e) {
		n = elf_read_build_id(e, id);
		elf_end(e);
	}
	close(fd);
	build_id_hex(id, n, hex);
	return n > 0;
}

/* Copies this test's binary to path (the shell's /proc/self is its own). */
static void copy_self(const char *path)
{
	char self[4096], *cmd;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	ck_assert_int_gt(n, 0);
	self[n] = '\0';
	cmd = xasprintf("cp '%s' '%s'", self, path);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
}

START_TEST(test_open_debug)
{
	char dir[] = "/tmp/check_recorded.XXXXXX", hex[2 * BUILD_ID_MAX + 1];
	char *sub, *path, *cmd;
	const char *dirs[2];
	struct module_set mods;
	struct module *m;

	if (!own_build_id(hex))
		return; /* a binary linked without --build-id: nothing to find it by */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	dirs[0] = "/nonexistent-debug-dir";
	dirs[1] = dir;
	sub = xasprintf("%s/.build-id/%.2s", dir, hex);
	cmd = xasprintf("mkdir -p '%s'", sub);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	path = recorded_debug_path(dir, hex);
	module_set_init(&mods);

	/* A FIFO at the path: not opened (nor waited on). */
	ck_assert_int_eq(mkfifo(path, 0600), 0);
	ck_assert_ptr_null(recorded_open_debug(&mods, dirs, 2, hex));
	unlink(path);
	/* Another program's file there (another build-id): not taken. */
	cmd = xasprintf("cp /bin/sh '%s'", path);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	ck_assert_ptr_null(recorded_open_debug(&mods, dirs, 2, hex));
	unlink(path);
	/* The file itself: found in the second directory. */
	copy_self(path);
	m = recorded_open_debug(&mods, dirs, 2, hex);
	ck_assert_ptr_nonnull(m);
	ck_assert_int_ge(m->fd, 0);
	ck_assert_str_eq(m->path, path);
	/* Another build-id: none. */
	hex[0] = hex[0] == 'f' ? '0' : 'f';
	ck_assert_ptr_null(recorded_open_debug(&mods, dirs, 2, hex));

	module_set_release(&mods);
	unlink(path);
	cmd = xasprintf("rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	free(path);
	free(sub);
}
END_TEST

static Suite *recorded_suite(void)
{
	Suite *s = suite_create("recorded");
	TCase *tc = tcase_create("recorded");

	tcase_add_test(tc, test_debug_path);
	tcase_add_test(tc, test_open_debug);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(recorded_suite());
}
