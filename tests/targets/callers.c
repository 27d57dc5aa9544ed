/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * callers.c - one hot function with two callers in a known ratio:
 * callers_from_a() asks callers_hot() for three times the work that
 * callers_from_b() asks for, so that of callers_hot's samples about 75%
 * are under callers_from_a and 25% under callers_from_b; neither caller
 * has samples of its own to speak of.
 *
 * Usage: callers [SECONDS]   (CPU seconds, default 1)
 */
#include "hot.h"

uint64_t callers_hot(uint64_t x, long rounds);
uint64_t callers_from_a(uint64_t x);
uint64_t callers_from_b(uint64_t x);
volatile uint64_t callers_sink;

HOT uint64_t callers_hot(uint64_t x, long rounds)
{
	HOT_FRAME();
	for (long i = 0; i < rounds; i++)
		HOT_STEP(x);
	return x;
}

/* Each caller does something after the call: no tail call hides it. */
HOT uint64_t callers_from_a(uint64_t x)
{
	return callers_hot(x, 3 * HOT_ROUNDS / 4) + 1;
}

HOT uint64_t callers_from_b(uint64_t x)
{
	return callers_hot(x, HOT_ROUNDS / 4) + 1;
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	uint64_t x = 1;

	while (hot_thread_cpu() < secs) {
		x = callers_from_a(x);
		x = callers_from_b(x);
	}
	callers_sink = x;
	return 0;
}
