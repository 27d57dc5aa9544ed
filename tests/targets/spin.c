/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * spin.c - a process that spends its CPU time in spin_hot(), built both as
 * a PIE (spin-pie) and as a fixed-address executable (spin-nopie).
 *
 * Usage: spin [SECONDS]   (CPU seconds, default 1)
 */
#include "hot.h"

uint64_t spin_hot(uint64_t x);
volatile uint64_t spin_sink;

HOT uint64_t spin_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	uint64_t x = 1;

	while (hot_thread_cpu() < secs)
		x = spin_hot(x);
	spin_sink = x;
	return 0;
}
