/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline.c - a hot loop inlined through two levels, for the source-line
 * and inline-chain tests: work_outer() calls inline_mid() which calls
 * inline_leaf(); both are always inlined, so every sample in the loop is
 * one frame of work_outer() standing for the chain
 * work_outer -> inline_mid -> inline_leaf. The MARK comments name the
 * lines the test expects (the call sites, and the leaf's body).
 */
#include "hot.h"

static volatile uint64_t sink;

static inline __attribute__((always_inline)) uint64_t inline_leaf(uint64_t x, long n)
{
	for (long i = 0; i < n; i++) /* MARK leaf-loop */
		HOT_STEP(x);	     /* MARK leaf-body */
	return x;
}

static inline __attribute__((always_inline)) uint64_t inline_mid(uint64_t x, long n)
{
	x ^= 0x9e3779b97f4a7c15ULL;
	return inline_leaf(x, n) + 1; /* MARK mid-call */
}

HOT uint64_t work_outer(uint64_t x)
{
	HOT_FRAME();
	return inline_mid(x, HOT_ROUNDS) * 3; /* MARK outer-call */
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	struct timespec t0, t;
	uint64_t x = 1;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
	do {
		x = work_outer(x);
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	sink = x;
	return 0;
}
