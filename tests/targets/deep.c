/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * deep.c - call chains in code built without frame pointers, for the
 * DWARF unwinding tests: main -> deep_a -> deep_b -> deep_c -> deep_leaf
 * in the executable, main -> lib_deep_a -> lib_deep_b -> lib_deep_leaf in
 * libdeep.so, and main -> qsort (libc) -> deep_cmp -> deep_leaf through a
 * comparator. Built -O2 -fomit-frame-pointer: frame-pointer call chains
 * cannot follow any of them.
 */
#include "hot.h"

uint64_t lib_deep_a(uint64_t x); /* libdeep.so */

static volatile uint64_t sink;

/* Each level does work after its call, so that no call is a tail call. */
HOT uint64_t deep_leaf(uint64_t x)
{
	for (long i = 0; i < HOT_ROUNDS / 8; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t deep_c(uint64_t x)
{
	return deep_leaf(x) * 3 + 1;
}

HOT uint64_t deep_b(uint64_t x)
{
	return deep_c(x ^ 5) * 7 + 1;
}

HOT uint64_t deep_a(uint64_t x)
{
	return deep_b(x + 1) * 11 + 1;
}

static HOT int deep_cmp(const void *a, const void *b)
{
	uint64_t x = deep_leaf(*(const uint32_t *)a) & 1, y = *(const uint32_t *)b & 1;

	sink += x;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	uint32_t v[16];
	uint64_t x = 1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		x = deep_a(x) + 1;
		x = lib_deep_a(x) + 1;
		for (unsigned i = 0; i < 16; i++)
			v[i] = (uint32_t)(x >> i);
		qsort(v, 4, sizeof(v[0]), deep_cmp);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	sink = x;
	return 0;
}
