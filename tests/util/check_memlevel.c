/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_memlevel.c - the steps taken to keep within a memory budget
 * (util/memlevel.h), driven by hand-made memory readings and times; and
 * the sizes --max-memory takes (parse_size) and says (size_text).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>

#include "unit-helpers.h"
#include "util/memlevel.h"
#include "util/parse.h"

#define MIB (1ULL << 20)
#define SEC 1000000000ULL

/* No budget: always full, whatever the memory; the peak is still kept. */
START_TEST(test_no_budget)
{
	struct memlevel m;

	memlevel_init(&m, 0);
	ck_assert_int_eq(memlevel_update(&m, 10 * MIB, 1 * SEC), MEM_FULL);
	ck_assert_int_eq(memlevel_update(&m, 900 * MIB, 2 * SEC), MEM_FULL);
	ck_assert_uint_eq(m.peak, 900 * MIB);
	ck_assert_uint_eq(m.entered[MEM_NO_LINES], 0);
}
END_TEST

/* Lines go at three quarters at once; names at the budget only a step later. */
START_TEST(test_steps_up)
{
	struct memlevel m;

	memlevel_init(&m, 100 * MIB);
	ck_assert_int_eq(memlevel_update(&m, 74 * MIB, 1 * SEC), MEM_FULL);
	ck_assert_int_eq(memlevel_update(&m, 75 * MIB, 2 * SEC), MEM_NO_LINES);
	/* Past the budget, but lines went just now: their effect is waited for. */
	ck_assert_int_eq(memlevel_update(&m, 120 * MIB, 2 * SEC + SEC / 2), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 99 * MIB, 3 * SEC + SEC / 2), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 100 * MIB, 4 * SEC), MEM_NO_NAMES);
	ck_assert_int_eq(memlevel_update(&m, 400 * MIB, 9 * SEC), MEM_NO_NAMES);
	ck_assert_uint_eq(m.entered[MEM_NO_LINES], 1);
	ck_assert_uint_eq(m.entered[MEM_NO_NAMES], 1);
	ck_assert_uint_eq(m.peak, 400 * MIB);
	ck_assert_uint_eq(m.changed_ns, 4 * SEC);
}
END_TEST

/* A level is left one step at a time, under half the budget, MEM_HOLD_NS after it was taken. */
START_TEST(test_steps_down)
{
	struct memlevel m;
	uint64_t t = 1 * SEC;

	memlevel_init(&m, 100 * MIB);
	ck_assert_int_eq(memlevel_update(&m, 80 * MIB, t), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 101 * MIB, t += MEM_STEP_NS), MEM_NO_NAMES);
	/* Under half, too soon. */
	ck_assert_int_eq(memlevel_update(&m, 10 * MIB, t + MEM_HOLD_NS - 1), MEM_NO_NAMES);
	/* Above half, long after: kept. */
	ck_assert_int_eq(memlevel_update(&m, 50 * MIB, t + 2 * MEM_HOLD_NS), MEM_NO_NAMES);
	ck_assert_int_eq(memlevel_update(&m, 49 * MIB, t += 2 * MEM_HOLD_NS), MEM_NO_LINES);
	/* The next step down waits its own hold. */
	ck_assert_int_eq(memlevel_update(&m, 10 * MIB, t + SEC), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 10 * MIB, t += MEM_HOLD_NS), MEM_FULL);
	ck_assert_int_eq(memlevel_update(&m, 10 * MIB, t + MEM_HOLD_NS), MEM_FULL);
	/* And up again. */
	ck_assert_int_eq(memlevel_update(&m, 90 * MIB, t + MEM_HOLD_NS + 1), MEM_NO_LINES);
	ck_assert_uint_eq(m.entered[MEM_NO_LINES], 3);
	ck_assert_uint_eq(m.entered[MEM_FULL], 1);
}
END_TEST

/* A clock that goes back is taken as standing still: nothing steps down for it. */
START_TEST(test_clock_back)
{
	struct memlevel m;

	memlevel_init(&m, 100 * MIB);
	ck_assert_int_eq(memlevel_update(&m, 80 * MIB, 100 * SEC), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 1 * MIB, 5 * SEC), MEM_NO_LINES);
	ck_assert_int_eq(memlevel_update(&m, 200 * MIB, 5 * SEC), MEM_NO_LINES);
}
END_TEST

/* This process's own memory: a heap block written to is counted. */
START_TEST(test_read_anon)
{
	int fd = -1;
	uint64_t before = memlevel_read_anon(&fd), after;
	size_t n = 64 * MIB;
	/* Written through volatile: the compiler may not leave out a block freed unread. */
	volatile char *p = malloc(n);

	ck_assert_uint_gt(before, 0);
	ck_assert_int_ge(fd, 0);
	for (size_t i = 0; i < n; i += 4096)
		p[i] = 1;
	after = memlevel_read_anon(&fd);
	ck_assert_uint_ge(after, before + n / 2);
	free((void *)p);
	close(fd);
	ck_assert_str_eq(memlevel_name(MEM_NO_NAMES), "no-names");
}
END_TEST

START_TEST(test_parse_size)
{
	uint64_t v;
	char buf[32];

	ck_assert_int_eq(parse_size("0", &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(parse_size("4096", &v), 0);
	ck_assert_uint_eq(v, 4096);
	ck_assert_int_eq(parse_size("512K", &v), 0);
	ck_assert_uint_eq(v, 512 * 1024);
	ck_assert_int_eq(parse_size("64m", &v), 0);
	ck_assert_uint_eq(v, 64 * MIB);
	ck_assert_int_eq(parse_size("2G", &v), 0);
	ck_assert_uint_eq(v, 2048 * MIB);
	/* Refused whole: no number, a sign, a fraction, hex, two units, too large. */
	ck_assert_int_lt(parse_size("", &v), 0);
	ck_assert_int_lt(parse_size("M", &v), 0);
	ck_assert_int_lt(parse_size("-1M", &v), 0);
	ck_assert_int_lt(parse_size("1.5G", &v), 0);
	ck_assert_int_lt(parse_size("0x10M", &v), 0);
	ck_assert_int_lt(parse_size("1MB", &v), 0);
	ck_assert_int_lt(parse_size("1T", &v), 0);
	ck_assert_int_lt(parse_size("2000000000G", &v), 0);
	ck_assert_int_lt(parse_size("99999999999999999999999", &v), 0);
	size_text(812, buf, sizeof(buf));
	ck_assert_str_eq(buf, "812 bytes");
	size_text(37 * 1024 + 5, buf, sizeof(buf));
	ck_assert_str_eq(buf, "37 KiB");
	size_text(256 * MIB, buf, sizeof(buf));
	ck_assert_str_eq(buf, "256 MiB");
}
END_TEST

static Suite *memlevel_suite(void)
{
	Suite *s = suite_create("memlevel");
	TCase *tc = tcase_create("levels");

	tcase_add_test(tc, test_no_budget);
	tcase_add_test(tc, test_steps_up);
	tcase_add_test(tc, test_steps_down);
	tcase_add_test(tc, test_clock_back);
	tcase_add_test(tc, test_read_anon);
	tcase_add_test(tc, test_parse_size);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(memlevel_suite());
}
