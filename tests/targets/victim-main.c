/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * victim-main.c - spends 0.3 CPU seconds in victim_a (libvictim.so's
 * first unit), says it is ready and waits for SIGUSR1, then spends 0.5 s
 * in victim_b (its second unit).
 */
#include "hot.h"

uint64_t victim_a(uint64_t x);
uint64_t victim_b(uint64_t x);
volatile uint64_t victim_sink;

int main(void)
{
	uint64_t x = 1;
	double start;

	while (hot_thread_cpu() < 0.3)
		x = victim_a(x);
	hot_wait_start("victim-main");
	start = hot_thread_cpu();
	while (hot_thread_cpu() < start + 0.5)
		x = victim_b(x);
	victim_sink = x;
	return 0;
}
