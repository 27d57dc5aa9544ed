/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libdeep.c - a call chain inside a shared library built without frame
 * pointers; see deep.c.
 */
#include "hot.h"

HOT uint64_t lib_deep_leaf(uint64_t x)
{
	for (long i = 0; i < HOT_ROUNDS / 8; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t lib_deep_b(uint64_t x)
{
	return lib_deep_leaf(x + 3) * 5 + 1;
}

HOT uint64_t lib_deep_a(uint64_t x)
{
	return lib_deep_b(x ^ 9) * 13 + 1;
}
