/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-spin.c - a process that spends its CPU time in one hot function,
 * built in the layouts the symbolization tests need. The build chooses:
 *   -DSYM_HOT=NAME          the hot function's name (default spin_hot)
 *   -DSYM_SECTION=\"SEC\"   the section it is placed in (a second
 *                           executable segment, with the linker's help)
 *   -DSYM_BIG_RODATA=BYTES  a read-only array of that size, placed before
 *                           the code by the linker
 *
 * Usage: PROG [-w] [SECONDS [NEXT [ARG...]]]
 *   -w       print a ready line and wait for SIGUSR1 before spinning
 *   SECONDS  CPU seconds spent in the hot function (default 1)
 *   NEXT     a program to exec afterwards, with its arguments
 */
#include "sym-hot.h"

#ifndef SYM_HOT
#define SYM_HOT spin_hot
#endif

#ifdef SYM_SECTION
#define SYM_PLACE __attribute__((section(SYM_SECTION)))
#else
#define SYM_PLACE
#endif

#ifdef SYM_BIG_RODATA
/* Initialized, so that it takes room in the file and not in .bss. */
const unsigned char sym_big_rodata[SYM_BIG_RODATA] = {1};
#endif

uint64_t SYM_HOT(uint64_t x);
volatile uint64_t sym_spin_sink;

SYM_HOT_FN SYM_PLACE uint64_t SYM_HOT(uint64_t x)
{
	SYM_FRAME();
	SYM_SPIN(x);
	return x;
}

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
#ifdef SYM_BIG_RODATA
	x += sym_big_rodata[(unsigned)argc % SYM_BIG_RODATA];
#endif
	while (sym_thread_cpu() < secs)
		x = SYM_HOT(x);
	sym_spin_sink = x;
	if (i < argc) {
		execv(argv[i], argv + i);
		fprintf(stderr, "%s: cannot exec %s: %s\n", prog, argv[i], strerror(errno));
		return 2;
	}
	return 0;
}
