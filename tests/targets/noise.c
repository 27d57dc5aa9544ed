/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * noise.c - two hot functions whose shares a --diff compares, and a change
 * in one of them (tests/report/run-diff-noise.sh, bench/diff-noise).
 *
 * 40% of the calls go to nz_a, the others to nz_b, in a pseudo-random
 * order (a fixed pattern would alias with the samples), each call the same
 * work: nz_a has about 40% of the CPU time. Built twice: noise-base as it
 * is, and a build with -DNZ_SLOW=N whose nz_a does N% of its work a call,
 * as a build that made it slower would: noise-slow for the tests with
 * N=140 (about 48% of the CPU), bench/diff-noise's with N=120 (44%).
 *
 * Usage: noise [SECONDS [SLOWER_AFTER]]
 *   SECONDS of CPU time (default 2). After SLOWER_AFTER seconds of it,
 *   nz_a does twice its work a call: a change within one recording.
 * At the end it prints its own measure of the time each function took
 * (the thread's CPU clock around each call) and of the whole loop:
 *   noise: nz_a 0.812 nz_b 1.205 loop 2.021
 */
#include "hot.h"

#ifndef NZ_SLOW
#define NZ_SLOW 100 /* nz_a's work in percent of nz_b's, per call */
#endif

uint64_t nz_a(uint64_t x, long work);
uint64_t nz_b(uint64_t x);
volatile uint64_t nz_sink;

HOT uint64_t nz_a(uint64_t x, long work)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS / 400 * work; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t nz_b(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS / 4; i++)
		HOT_STEP(x);
	return x;
}

int main(int argc, char **argv)
{
	double until = hot_seconds(argc, argv, 1, 2.0);
	double after = hot_seconds(argc, argv, 2, 3600.0);
	double start = hot_thread_cpu(), in_a = 0, in_b = 0, now = start;
	uint64_t dice = 88172645463325252ULL, x = 1;

	while (now - start < until) {
		long work = now - start < after ? NZ_SLOW : 2 * NZ_SLOW;
		double t;

		dice ^= dice << 13;
		dice ^= dice >> 7;
		dice ^= dice << 17;
		if (dice % 100 < 40) {
			x = nz_a(x, work);
			t = hot_thread_cpu();
			in_a += t - now;
		} else {
			x = nz_b(x);
			t = hot_thread_cpu();
			in_b += t - now;
		}
		now = t;
	}
	nz_sink = x;
	printf("noise: nz_a %.3f nz_b %.3f loop %.3f\n", in_a, in_b, now - start);
	return 0;
}
