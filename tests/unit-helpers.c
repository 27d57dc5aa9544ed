/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-helpers.c - shared plumbing of the unit tests; see unit-helpers.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "unit-helpers.h"

int unit_run(Suite *s)
{
	SRunner *sr = srunner_create(s);
	int failed;

	/*
	 * No cache kept between runs (expanded copies, names by build-id)
	 * unless a test makes its own: a run must not name from another's.
	 */
	setenv("PERFMINI_CACHE_DIR", "", 0);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

FILE *unit_text_stream(const char *s)
{
	FILE *f = fmemopen((void *)s, strlen(s), "r");

	ck_assert_ptr_nonnull(f);
	return f;
}

void *unit_exact_copy(const void *p, size_t n)
{
	/* malloc(0) may return NULL; one byte keeps the pointer valid. */
	void *q = malloc(n ? n : 1);

	ck_assert_ptr_nonnull(q);
	if (n)
		memcpy(q, p, n);
	return q;
}

uint64_t unit_rand(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*state = x;
	return x * 0x2545f4914f6cdd1dULL;
}
