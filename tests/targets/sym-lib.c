/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-lib.c - the shared libraries of the symbolization tests: one
 * exported hot function, named by the build (-DSYM_LIB_HOT=NAME).
 * libsym-a.so and libsym-b.so are built from it with names of the same
 * length, so that both have the same size and the loader can put the
 * second where the first was.
 */
#include "sym-hot.h"

#ifndef SYM_LIB_HOT
#define SYM_LIB_HOT lib_hot
#endif

uint64_t SYM_LIB_HOT(uint64_t x);

SYM_HOT_FN uint64_t SYM_LIB_HOT(uint64_t x)
{
	SYM_FRAME();
	SYM_SPIN(x);
	return x;
}
