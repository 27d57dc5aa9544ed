/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callers.c - one hot function with two callers in a known ratio:
 * callers_from_a() asks callers_hot() for three times the work that
 * callers_from_b() asks for, so that of callers_hot's samples about 75%
 * are under callers_from_a and 25% under callers_from_b; neither caller
 * has samples of its own to speak of. The work of each pair of calls
 * varies (from half to one and a half of HOT_ROUNDS, the ratio kept): a
 * pair that takes as long as a sampling period, every time, would be
 * seen at one point of it only (a pair took 0.98 ms on a machine where
 * -F 999 samples every 1.001 ms), and two samplers would see two
 * different ratios.
 *
 * Usage: callers [SECONDS]   (CPU seconds, default 1)
 */
#include "hot.h"

uint64_t callers_hot(uint64_t x, long rounds);
uint64_t callers_from_a(uint64_t x, long rounds);
uint64_t callers_from_b(uint64_t x, long rounds);
volatile uint64_t callers_sink;

HOT uint64_t callers_hot(uint64_t x, long rounds)
{
	HOT_FRAME();
	for (long i = 0; i < rounds; i++)
		HOT_STEP(x);
	return x;
}

/* Each caller does something after the call: no tail call hides it. */
HOT uint64_t callers_from_a(uint64_t x, long rounds)
{
	return callers_hot(x, 3 * rounds / 4) + 1;
}

HOT uint64_t callers_from_b(uint64_t x, long rounds)
{
	return callers_hot(x, rounds / 4) + 1;
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	uint64_t x = 1, seed = 1;

	while (hot_thread_cpu() < secs) {
		long rounds;

		/* A linear congruential step: rounds in [HOT_ROUNDS / 2, 3 * HOT_ROUNDS / 2). */
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		rounds = HOT_ROUNDS / 2 + (long)((seed >> 33) % HOT_ROUNDS);
		x = callers_from_a(x, rounds);
		x = callers_from_b(x, rounds);
	}
	callers_sink = x;
	return 0;
}
