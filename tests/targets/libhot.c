/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libhot.c - libhot.so, a shared library whose lib_hot() the program
 * use-lib spends its time in: frames in a library mapped at load time.
 */
#include "hot.h"

uint64_t lib_hot(uint64_t x);

HOT uint64_t lib_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}
