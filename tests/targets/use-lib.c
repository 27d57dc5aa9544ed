/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * use-lib.c - a program linked against libhot.so (found through an
 * $ORIGIN run path) that spends its time in lib_hot().
 *
 * Usage: use-lib [SECONDS]   (CPU seconds, default 1)
 */
#include "hot.h"

uint64_t lib_hot(uint64_t x);
volatile uint64_t use_lib_sink;

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);
	uint64_t x = 1;

	while (hot_thread_cpu() < secs)
		x = lib_hot(x);
	use_lib_sink = x;
	return 0;
}
