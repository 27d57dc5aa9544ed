/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * mix.c - a process whose CPU time is split between two hot functions in
 * a proportion its argument sets, for comparing recordings (--diff).
 *
 * Usage: mix PERCENT [SECONDS [PERCENT SECONDS]...]
 *   PERCENT of the calls (0 to 100) go to mix_a, the others to mix_b,
 *   both called from mix_round, in a pseudo-random order; each call is
 *   the same work. SECONDS of CPU time, default 1. Further pairs are
 *   phases run one after the other (for timelines): "100 0.5 0 0.2"
 *   is half a second in mix_a, then a fifth in mix_b.
 */
#include "hot.h"

uint64_t mix_a(uint64_t x);
uint64_t mix_b(uint64_t x);
uint64_t mix_round(uint64_t x, long percent);
volatile uint64_t mix_sink;

HOT uint64_t mix_a(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS / 4; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t mix_b(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS / 4; i++)
		HOT_STEP(x);
	return x;
}

/*
 * 100 calls, each to mix_a with probability percent/100, else to mix_b.
 * The order is pseudo-random: a fixed pattern of calls, each about a
 * quarter of a sampling period long, would alias with the samples and
 * give either function more than its share.
 */
HOT uint64_t mix_round(uint64_t x, long percent)
{
	static uint64_t dice = 88172645463325252ULL;

	HOT_FRAME();
	for (long i = 0; i < 100; i++) {
		dice ^= dice << 13;
		dice ^= dice >> 7;
		dice ^= dice << 17;
		x = (long)(dice % 100) < percent ? mix_a(x) : mix_b(x);
	}
	return x;
}

int main(int argc, char **argv)
{
	double until = 0;
	uint64_t x = 1;
	char *end;
	long percent;

	if (argc < 2) {
		fprintf(stderr, "usage: %s PERCENT [SECONDS [PERCENT SECONDS]...]\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i += 2) {
		percent = strtol(argv[i], &end, 10);
		if (end == argv[i] || *end || percent < 0 || percent > 100) {
			fprintf(stderr, "%s: bad percentage '%s'\n", argv[0], argv[i]);
			return 2;
		}
		until += hot_seconds(argc, argv, i + 1, 1.0);
		while (hot_thread_cpu() < until)
			x = mix_round(x, percent);
	}
	mix_sink = x;
	return 0;
}
