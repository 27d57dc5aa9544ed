/* SPDX-License-Identifier: GPL-2.0-or-later */
/* annotate.c's callee, inlined from this other file. */
#ifndef ANNOTATE_MIX_H
#define ANNOTATE_MIX_H

static inline unsigned long an_mix(unsigned long x)
{
	x ^= x >> 7;
	x *= 0x9e3779b97f4a7c15UL;
	return x ^ (x >> 29);
}

#endif
