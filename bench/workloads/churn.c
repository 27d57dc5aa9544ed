/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * churn - a busy process that keeps creating short-lived threads.
 *
 * usage: churn [-s SECONDS] [-j BUSY] [-t CHURNERS] [-w MICROSECONDS]
 *
 * For SECONDS of wall time (default 10), BUSY long-lived threads (default
 * 0) run a CPU-bound loop over a few levels of calls, and each of CHURNERS
 * threads (default 1) creates one thread at a time that works for about
 * MICROSECONDS of CPU time (default 200) through the same calls and exits,
 * and joins it. A recorder of this process sees a steady stream of thread
 * creations and exits (their comm, fork and exit records, a new stack
 * mapping now and then) on top of busy CPUs: what makes its per-thread
 * state grow if it keeps any, and what fills its rings fastest.
 * When BENCH_TIMES names a file, a line "WALL THREADS" is appended to it:
 * the wall time of the run and the number of short threads created.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

static double seconds = 10, work_us = 200;
static volatile int stop;
static volatile uint64_t sink;

static double clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

NOINLINE static uint64_t churn_mix(uint64_t x, int n)
{
	for (int i = 0; i < n; i++) {
		x ^= x >> 31;
		x *= 0xbf58476d1ce4e5b9ULL;
		x ^= x >> 27;
	}
	return x;
}

NOINLINE static uint64_t churn_step(uint64_t x)
{
	return churn_mix(x, 500) + churn_mix(x + 1, 250);
}

NOINLINE static uint64_t churn_round(uint64_t x, double cpu_end)
{
	while (clock_s(CLOCK_THREAD_CPUTIME_ID) < cpu_end)
		x = churn_step(x);
	return x;
}

/* A short-lived thread: about work_us of CPU time, then exit. */
static void *short_thread(void *arg)
{
	double end = clock_s(CLOCK_THREAD_CPUTIME_ID) + work_us / 1e6;

	sink += churn_round((uintptr_t)arg, end);
	return NULL;
}

/* A long-lived busy thread, until the run ends. */
static void *busy_thread(void *arg)
{
	uint64_t x = (uintptr_t)arg;

	while (!stop)
		for (int i = 0; i < 100; i++)
			x = churn_step(x);
	sink += x;
	return NULL;
}

/* Creates and joins short threads one at a time until the run ends. */
static void *churner(void *arg)
{
	uintptr_t n = 0;

	(void)arg;
	while (!stop) {
		pthread_t t;

		if (pthread_create(&t, NULL, short_thread, (void *)n) != 0) {
			usleep(1000);
			continue;
		}
		pthread_join(t, NULL);
		n++;
	}
	return (void *)n;
}

int main(int argc, char **argv)
{
	int busy = 0, churners = 1, c;
	pthread_t tid[128];
	unsigned long created = 0;
	const char *times;
	double t0, t1;
	int n = 0, first_churner;

	while ((c = getopt(argc, argv, "s:j:t:w:")) != -1) {
		switch (c) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'j':
			busy = atoi(optarg);
			break;
		case 't':
			churners = atoi(optarg);
			break;
		case 'w':
			work_us = atof(optarg);
			break;
		default:
			fprintf(stderr, "usage: churn [-s SECONDS] [-j BUSY] [-t CHURNERS] "
					"[-w MICROSECONDS]\n");
			return 2;
		}
	}
	if (busy < 0 || busy > 64 || churners < 0 || churners > 64 || seconds <= 0) {
		fprintf(stderr, "churn: -j and -t: 0 to 64; -s: more than 0\n");
		return 2;
	}
	t0 = clock_s(CLOCK_MONOTONIC);
	for (int i = 0; i < busy; i++)
		if (pthread_create(&tid[n], NULL, busy_thread, (void *)(uintptr_t)(i + 1)) == 0)
			n++;
	first_churner = n;
	for (int i = 0; i < churners; i++)
		if (pthread_create(&tid[n], NULL, churner, NULL) == 0)
			n++;
	while (clock_s(CLOCK_MONOTONIC) < t0 + seconds)
		usleep(10000);
	stop = 1;
	for (int i = 0; i < n; i++) {
		void *ret;

		pthread_join(tid[i], &ret);
		if (i >= first_churner)
			created += (unsigned long)(uintptr_t)ret;
	}
	t1 = clock_s(CLOCK_MONOTONIC);
	times = getenv("BENCH_TIMES");
	if (times && *times) {
		FILE *f = fopen(times, "a");

		if (f) {
			fprintf(f, "%.6f %lu\n", t1 - t0, created);
			fclose(f);
		}
	}
	return 0;
}
