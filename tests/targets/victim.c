/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victim.c - a library of two compilation units, built once with
 * -DVICTIM_HOT=victim_a and once with -DVICTIM_HOT=victim_b into
 * libvictim.so, whose debug information lives in a separate file: the
 * program run-safe-truncated.sh cuts short under the recorder.
 */
#include "hot.h"

uint64_t VICTIM_HOT(uint64_t x);

HOT uint64_t VICTIM_HOT(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}
