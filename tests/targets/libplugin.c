/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libplugin.c - libplugin.so, the library that dlopen-late loads only
 * after a profiler has attached; it spends its time in plugin_hot().
 */
#include "hot.h"

uint64_t plugin_hot(uint64_t x);

HOT uint64_t plugin_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}
