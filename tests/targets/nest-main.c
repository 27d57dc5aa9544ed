/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * nest-main.c - spends its CPU time in nest_hot(), whose debug
 * information is hostile (tests/hostile/dwarf-nest-gen.c).
 *
 * Usage: nest-hot [SECONDS]   (CPU seconds, default 0.5)
 */
#include "hot.h"

void nest_hot(long n);

int main(int argc, char **argv)
{
	double secs = argc > 1 ? strtod(argv[1], NULL) : 0.5;

	while (hot_thread_cpu() < secs)
		nest_hot(1000000);
	return 0;
}
