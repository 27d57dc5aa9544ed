/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cpu - a CPU-bound benchmark target with a few levels of calls.
 *
 * usage: cpu [-n ROUNDS | -s SECONDS | -c CPUSECONDS] [-j THREADS]
 *
 * Each thread runs main -> worker -> run_round -> stage_* -> leaf_* in a
 * loop: ROUNDS rounds (a fixed amount of work, for slowdown figures), for
 * SECONDS of wall time, or until it has used CPUSECONDS of CPU time (a
 * cpu-clock recording at F Hz then takes about F * CPUSECONDS samples per
 * thread however busy the machine is: for scaling figures).
 * When BENCH_TIMES names a file, a line "WALL CPU" is appended to it: the
 * wall time of the work itself (from before the threads start to after
 * they are joined) and the process's CPU time over the same span, in
 * seconds, so a benchmark can separate the target's own run time from a
 * recorder's start and stop. The CPU time includes the sampling interrupts
 * that land in the target (on kernels without IRQ time accounting) but
 * not the time it waits for a CPU, which on a busy machine is most of the
 * noise in the wall time.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static long rounds = 200;
static double seconds, cpu_seconds;
static volatile uint64_t sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double now(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

NOINLINE static uint64_t leaf_mix(uint64_t x, int n)
{
	for (int i = 0; i < n; i++) {
		x ^= x >> 33;
		x *= 0xff51afd7ed558ccdULL;
		x ^= x >> 29;
	}
	return x;
}

NOINLINE static double leaf_float(double x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 1.0000001 + 0.5 / (x + 1.0);
	return x;
}

NOINLINE static uint64_t leaf_sort(uint64_t seed)
{
	uint32_t a[64];

	for (int i = 0; i < 64; i++) {
		seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
		a[i] = (uint32_t)(seed >> 33);
	}
	for (int i = 1; i < 64; i++) {
		uint32_t v = a[i];
		int j = i - 1;

		while (j >= 0 && a[j] > v) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = v;
	}
	return a[0] ^ a[63] ^ seed;
}

NOINLINE static uint64_t stage_hash(uint64_t x)
{
	return leaf_mix(x, 2000) + leaf_mix(x + 1, 1000);
}

NOINLINE static uint64_t stage_math(uint64_t x)
{
	return (uint64_t)leaf_float((double)(x & 1023), 1500);
}

NOINLINE static uint64_t stage_sort(uint64_t x)
{
	uint64_t r = 0;

	for (int i = 0; i < 4; i++)
		r += leaf_sort(x + i);
	return r;
}

NOINLINE static uint64_t run_round(uint64_t x)
{
	x = stage_hash(x);
	x += stage_math(x);
	x += stage_sort(x);
	return x;
}

static void *worker(void *arg)
{
	uint64_t x = (uintptr_t)arg + 1;

	if (cpu_seconds > 0) {
		double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + cpu_seconds;

		while (clock_s(CLOCK_THREAD_CPUTIME_ID) < end)
			for (int i = 0; i < 20; i++)
				x = run_round(x);
	} else if (seconds > 0) {
		double end = now() + seconds;

		while (now() < end)
			for (int i = 0; i < 20; i++)
				x = run_round(x);
	} else {
		for (long i = 0; i < rounds; i++)
			for (int k = 0; k < 20; k++)
				x = run_round(x);
	}
	sink += x;
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = 1, c;
	pthread_t tid[64];
	double t0, t1, c0, c1;
	const char *times;

	while ((c = getopt(argc, argv, "n:s:c:j:")) != -1) {
		switch (c) {
		case 'n':
			rounds = atol(optarg);
			break;
		case 's':
			seconds = atof(optarg);
			break;
		case 'c':
			cpu_seconds = atof(optarg);
			break;
		case 'j':
			threads = atoi(optarg);
			break;
		default:
			fprintf(stderr, "usage: cpu [-n ROUNDS | -s SECONDS | -c CPUSECONDS] "
					"[-j THREADS]\n");
			return 2;
		}
	}
	if (threads < 1 || threads > 64)
		threads = 1;
	t0 = now();
	c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	for (int i = 1; i < threads; i++)
		pthread_create(&tid[i], NULL, worker, (void *)(uintptr_t)i);
	worker(NULL);
	for (int i = 1; i < threads; i++)
		pthread_join(tid[i], NULL);
	c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
	t1 = now();
	times = getenv("BENCH_TIMES");
	if (times && *times) {
		FILE *f = fopen(times, "a");

		if (f) {
			fprintf(f, "%.6f %.6f\n", t1 - t0, c1 - c0);
			fclose(f);
		}
	}
	return 0;
}
