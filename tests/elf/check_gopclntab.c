/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_gopclntab.c - Go's table of functions on a hand-built table in
 * Go 1.20's layout: functions by address, their names, the bytes each has
 * pushed at an address and where that holds; tables refused (another
 * layout, offsets out of their bytes, entries out of order), and every
 * truncation of the table read without a read outside it (the sanitizer
 * build tells).
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "elf/gopclntab.h"
#include "unit-helpers.h"

#define TEXT	0x401000ULL
#define NAMES	72
#define PCTAB	88
#define FUNCTAB 112
#define FUNCS	(FUNCTAB + 3 * 8)
#define FUNCSZ	44
#define SIZE	(FUNCS + 2 * FUNCSZ)

static void put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v)
{
	memcpy(p, &v, 8);
}

/*
 * main.a at TEXT (0x20 bytes): nothing pushed for 4 bytes, 32 bytes up
 * to 0x14, nothing for 2 bytes (the epilogue), then its table ends; main.b at TEXT + 0x20 (0x20
 * bytes) with no table.
 */
static void build(unsigned char *t)
{
	static const unsigned char pcsp[] = {
		2,  4,	  /* -1 + 1 = 0 for 4 bytes */
		64, 0x10, /* + 32 for 16 bytes */
		63, 2,	  /* - 32 for 2 bytes */
		0,	  /* the end */
	};

	memset(t, 0, SIZE);
	put32(t, 0xfffffff1);
	t[6] = 1;
	t[7] = 8;
	put64(t + 8, 2);
	put64(t + 24, TEXT);
	put64(t + 32, NAMES);
	put64(t + 56, PCTAB);
	put64(t + 64, FUNCTAB);
	memcpy(t + NAMES, "main.a\0main.b", 14);
	memcpy(t + PCTAB + 1, pcsp, sizeof(pcsp));
	/* The functions' table: entry offsets from TEXT, _func offsets from FUNCTAB. */
	put32(t + FUNCTAB, 0);
	put32(t + FUNCTAB + 4, FUNCS - FUNCTAB);
	put32(t + FUNCTAB + 8, 0x20);
	put32(t + FUNCTAB + 12, FUNCS + FUNCSZ - FUNCTAB);
	put32(t + FUNCTAB + 16, 0x40);
	/* _func: entry, name, args, deferreturn, pcsp. */
	put32(t + FUNCS + 4, 0);
	put32(t + FUNCS + 16, 1);
	put32(t + FUNCS + FUNCSZ, 0x20);
	put32(t + FUNCS + FUNCSZ + 4, 7);
}

START_TEST(test_gopclntab_lookup)
{
	unsigned char t[SIZE];
	struct gopcln g;
	uint64_t lo, hi;
	int32_t sp;
	long fn;

	build(t);
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), 0);
	ck_assert_int_eq(gopcln_func(&g, TEXT - 1, &lo, &hi), -ENOENT);
	ck_assert_int_eq(gopcln_func(&g, TEXT + 0x40, &lo, &hi), -ENOENT);
	fn = gopcln_func(&g, TEXT + 0x1f, &lo, &hi);
	ck_assert_int_eq(fn, 0);
	ck_assert_uint_eq(lo, TEXT);
	ck_assert_uint_eq(hi, TEXT + 0x20);
	ck_assert_str_eq(gopcln_name(&g, fn), "main.a");
	ck_assert_int_eq(gopcln_sp(&g, fn, TEXT + 3, &sp, &lo, &hi), 0);
	ck_assert_int_eq(sp, 0);
	ck_assert_uint_eq(lo, TEXT);
	ck_assert_uint_eq(hi, TEXT + 4);
	ck_assert_int_eq(gopcln_sp(&g, fn, TEXT + 4, &sp, &lo, &hi), 0);
	ck_assert_int_eq(sp, 32);
	ck_assert_uint_eq(lo, TEXT + 4);
	ck_assert_uint_eq(hi, TEXT + 0x14);
	ck_assert_int_eq(gopcln_sp(&g, fn, TEXT + 0x15, &sp, &lo, &hi), 0);
	ck_assert_int_eq(sp, 0);
	ck_assert_uint_eq(hi, TEXT + 0x16);
	/* Past the table's end: not covered. */
	ck_assert_int_eq(gopcln_sp(&g, fn, TEXT + 0x16, &sp, &lo, &hi), -ENOENT);
	fn = gopcln_func(&g, TEXT + 0x20, &lo, &hi);
	ck_assert_int_eq(fn, 1);
	ck_assert_str_eq(gopcln_name(&g, fn), "main.b");
	ck_assert_int_eq(gopcln_sp(&g, fn, TEXT + 0x20, &sp, &lo, &hi), -ENOENT);
	/* Without a text address in the header, the one given. */
	put64(t + 24, 0);
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0x500000), 0);
	ck_assert_int_eq(gopcln_func(&g, 0x500000, &lo, &hi), 0);
}
END_TEST

START_TEST(test_gopclntab_symbols)
{
	unsigned char t[SIZE];
	struct gopcln g;
	struct symtab st;
	const struct sym *s;

	build(t);
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), 0);
	symtab_init(&st);
	ck_assert_uint_eq(gopcln_add_symbols(&g, &st, 1), 2);
	symtab_finish(&st);
	s = symtab_lookup(&st, TEXT + 0x30);
	ck_assert_ptr_nonnull(s);
	ck_assert_str_eq(symtab_name(&st, s), "main.b");
	ck_assert_ptr_null(symtab_lookup(&st, TEXT + 0x40));
	symtab_release(&st);
}
END_TEST

START_TEST(test_gopclntab_refused)
{
	unsigned char t[SIZE];
	struct gopcln g;
	uint64_t lo, hi;

	build(t);
	put32(t, 0xfffffffb); /* Go 1.2 to 1.15 */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), -ENOTSUP);
	build(t);
	t[7] = 4; /* 32-bit pointers */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), -ENOTSUP);
	build(t);
	put64(t + 64, SIZE); /* the functions' table out of the bytes */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), -EINVAL);
	build(t);
	put64(t + 8, 1000); /* more functions than fit */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), -EINVAL);
	build(t);
	put32(t + FUNCTAB + 8, 0x50); /* main.b after the end: out of order */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), -EINVAL);
	ck_assert_int_lt(gopcln_func(&g, TEXT + 0x10, &lo, &hi), 0);
	build(t);
	put32(t + FUNCTAB + 12, 0x7ffffff0); /* main.b's _func out of the bytes */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), 0);
	ck_assert_ptr_null(gopcln_name(&g, 1));
}
END_TEST

/*
 * A function's flags, where each layout keeps them: after Go 1.20's
 * startLine, or without it in Go 1.18's; a _func cut before them.
 */
START_TEST(test_gopclntab_flags)
{
	unsigned char t[SIZE];
	struct gopcln g;

	build(t);
	t[FUNCS + FUNCSZ + 41] = GOPCLN_SPWRITE; /* main.b's */
	t[FUNCS + FUNCSZ + 37] = 0x1;		 /* its funcID, in Go 1.20's layout */
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), 0);
	ck_assert_int_eq(gopcln_flags(&g, 0), 0);
	ck_assert_int_eq(gopcln_flags(&g, 1), GOPCLN_SPWRITE);
	ck_assert_int_eq(gopcln_flags(&g, 2), -EINVAL);
	put32(t, 0xfffffff0);
	ck_assert_int_eq(gopcln_init(&g, t, sizeof(t), 0), 0);
	ck_assert_int_eq(gopcln_flags(&g, 1), 0x1);
	/* main.b's _func cut just before Go 1.20's flags. */
	put32(t, 0xfffffff1);
	ck_assert_int_eq(gopcln_init(&g, t, FUNCS + FUNCSZ + 41, 0), 0);
	ck_assert_int_eq(gopcln_flags(&g, 1), -EINVAL);
	ck_assert_int_eq(gopcln_flags(&g, 0), 0);
}
END_TEST

/* Every truncation, in a buffer of its own size: nothing read past it. */
START_TEST(test_gopclntab_truncated)
{
	unsigned char t[SIZE];

	build(t);
	for (size_t len = 0; len <= SIZE; len++) {
		unsigned char *cut = malloc(len ? len : 1);
		struct gopcln g;
		uint64_t lo, hi;
		int32_t sp;

		memcpy(cut, t, len);
		if (gopcln_init(&g, cut, len, 0) == 0) {
			for (uint64_t pc = TEXT; pc < TEXT + 0x40; pc++) {
				long fn = gopcln_func(&g, pc, &lo, &hi);

				if (fn >= 0) {
					gopcln_sp(&g, fn, pc, &sp, &lo, &hi);
					gopcln_name(&g, fn);
					gopcln_flags(&g, fn);
				}
			}
		}
		free(cut);
	}
}
END_TEST

static Suite *gopclntab_suite(void)
{
	Suite *s = suite_create("gopclntab");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_gopclntab_lookup);
	tcase_add_test(tc, test_gopclntab_symbols);
	tcase_add_test(tc, test_gopclntab_refused);
	tcase_add_test(tc, test_gopclntab_flags);
	tcase_add_test(tc, test_gopclntab_truncated);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(gopclntab_suite());
}
