/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_jitmap.c - a perf map's lines in force by address and time, on a
 * map this test writes as a runtime would: lines there before the first
 * look in force from the start; a line appended later over part of an
 * earlier one in force only for samples after the look before it was
 * read, the earlier one's parts outside it kept; a line not ended yet
 * not taken; a line too long skipped whole; no line for an address none
 * covers.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elf/perfmap.h"
#include "stack/jitmap.h"
#include "unit-helpers.h"
#include "util/clock.h"

static void append(int fd, const char *s)
{
	ck_assert_int_eq(write(fd, s, strlen(s)), (ssize_t)strlen(s));
}

/* Waits past the time between two looks at the map. */
static void next_look(void)
{
	struct timespec ts = {0, (long)(JITMAP_READ_NS + 1000000)};

	nanosleep(&ts, NULL);
}

START_TEST(test_jitmap_in_time)
{
	char path[] = "/tmp/check_jitmap.XXXXXX";
	int fd = mkstemp(path);
	struct jitmap *j = jitmap_new();
	uint64_t t0, t1, first, second;
	char *longline;

	ck_assert_int_ge(fd, 0);
	unlink(path);
	append(fd, "1000 100 first\n");
	first = 1;
	t0 = now_ns();
	/* Before the first look, from the start of time. */
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1050, 1), first);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1100, t0), 0);
	ck_assert_uint_eq(jitmap_line(j, fd, 0xfff, t0), 0);
	/* A line over the middle of the first, and one not ended. */
	second = strlen("1000 100 first\n") + 1;
	append(fd, "1040 20 second\n1200 10 par");
	next_look();
	t1 = now_ns();
	/* Read now, in force after the look before: not for a sample before it. */
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1050, t0 - 1), first);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1050, t1), second);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x103f, t1), first);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1060, t1), first);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1205, t1), 0);
	/* The line ended; then one longer than any kept, skipped whole, and one after it. */
	longline = malloc(PERFMAP_MAX_LINE + 64);
	memset(longline, 'x', PERFMAP_MAX_LINE + 62);
	memcpy(longline, "1300 10 ", 8);
	longline[PERFMAP_MAX_LINE + 62] = '\n';
	longline[PERFMAP_MAX_LINE + 63] = '\0';
	append(fd, "tial\n");
	append(fd, longline);
	append(fd, "1400 10 after\n");
	free(longline);
	next_look();
	t1 = now_ns();
	ck_assert_uint_ne(jitmap_line(j, fd, 0x1205, t1), 0);
	ck_assert_uint_eq(jitmap_line(j, fd, 0x1305, t1), 0);
	ck_assert_uint_ne(jitmap_line(j, fd, 0x1405, t1), 0);
	jitmap_free(j);
	close(fd);
}
END_TEST

/* Without a map (no descriptor) nothing is in force, and nothing breaks. */
START_TEST(test_jitmap_no_map)
{
	struct jitmap *j = jitmap_new();

	ck_assert_uint_eq(jitmap_line(j, -1, 0x1000, now_ns()), 0);
	jitmap_free(j);
	jitmap_free(NULL);
}
END_TEST

static Suite *jitmap_suite(void)
{
	Suite *s = suite_create("jitmap");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_jitmap_in_time);
	tcase_add_test(tc, test_jitmap_no_map);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(jitmap_suite());
}
