/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-uselib.c - a program linked against a library of sym-lib.c (found
 * through an $ORIGIN run path) that spends its time in the library's hot
 * function, named by the build (-DSYM_LIB_HOT=NAME).
 *
 * Usage: PROG [-w] [SECONDS]   (as sym-spin)
 */
#include "sym-hot.h"

#ifndef SYM_LIB_HOT
#define SYM_LIB_HOT lib_hot
#endif

uint64_t SYM_LIB_HOT(uint64_t x);
volatile uint64_t sym_uselib_sink;

int main(int argc, char **argv)
{
	const char *prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	double secs = 1.0;
	uint64_t x = 1;
	int i = 1;

	if (i < argc && !strcmp(argv[i], "-w")) {
		sym_wait_start(prog);
		i++;
	}
	if (i < argc)
		secs = sym_seconds(prog, argv[i++]);
	while (sym_thread_cpu() < secs)
		x = SYM_LIB_HOT(x);
	sym_uselib_sink = x;
	return 0;
}
