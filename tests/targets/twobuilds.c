/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * twobuilds.c - one program for two builds that differ as an -O0 and an
 * -O2 build do (tests/report/run-diff-builds.sh): tb_hot, the hot function,
 * spends about three quarters of its time in tb_step, a static function
 * called from it alone, which -O2 inlines into it and -O0 keeps a
 * function of its own; the rest in its own loop.
 *
 * Usage: twobuilds [SECONDS]   (CPU time, default 1)
 */
#include "hot.h"

uint64_t tb_hot(uint64_t x);
volatile uint64_t tb_sink;

/* Not HOT: -O2 inlines it (a static function called once). */
static uint64_t tb_step(uint64_t x)
{
	for (long i = 0; i < HOT_ROUNDS / 400 * 3; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t tb_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < 100; i++) {
		x = tb_step(x);
		for (long j = 0; j < HOT_ROUNDS / 400; j++)
			HOT_STEP(x);
	}
	return x;
}

int main(int argc, char **argv)
{
	double until = hot_seconds(argc, argv, 1, 1.0);
	uint64_t x = 1;

	while (hot_thread_cpu() < until)
		x = tb_hot(x);
	tb_sink = x;
	return 0;
}
