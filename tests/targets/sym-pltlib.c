/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sym-pltlib.c - libsym-plt.so, the library sym-plt calls through its
 * PLT: two functions so small that much of a call's time is spent in the
 * PLT entry that leads to it.
 */
#include <stdint.h>

uint64_t plt_tiny(uint64_t x);
uint64_t plt_tiny_got(uint64_t x);

uint64_t plt_tiny(uint64_t x)
{
	return x * 3 + 1;
}

uint64_t plt_tiny_got(uint64_t x)
{
	return x * 5 + 1;
}
