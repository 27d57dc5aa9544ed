/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * threads.c - starts its threads only when told to, so that a profiler
 * attached to the process before follows threads it did not see at
 * attach. Each of the NTHREADS threads names itself "hot-N" (a COMM
 * record) and spends its CPU time in thread_hot(); main joins them,
 * optionally spends some CPU time in main_hot(), and exits.
 *
 * Usage: threads [SECONDS [MAIN_SECONDS]]
 *   SECONDS       CPU seconds per thread in thread_hot (default 0.5)
 *   MAIN_SECONDS  CPU seconds main then spends in main_hot (default 0),
 *                 after joining the threads
 * Start: see hot_wait_start() (prints a ready line, waits for SIGUSR1).
 */
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>

#include "hot.h"

#define NTHREADS 4

uint64_t thread_hot(uint64_t x);
uint64_t main_hot(uint64_t x);

static double secs;
static volatile uint64_t threads_sink[NTHREADS];

HOT uint64_t thread_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t main_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

static void *worker(void *arg)
{
	long n = (long)(intptr_t)arg;
	char name[16];
	uint64_t x = (uint64_t)n + 1;

	snprintf(name, sizeof(name), "hot-%ld", n);
	prctl(PR_SET_NAME, name, 0, 0, 0);
	while (hot_thread_cpu() < secs)
		x = thread_hot(x);
	threads_sink[n] = x;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[NTHREADS];
	double main_secs, start;
	uint64_t x = 1;
	int err;

	secs = hot_seconds(argc, argv, 1, 0.5);
	main_secs = hot_seconds(argc, argv, 2, 0);
	hot_wait_start("threads");
	for (long i = 0; i < NTHREADS; i++) {
		err = pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i);
		if (err) {
			fprintf(stderr, "threads: pthread_create: %s\n", strerror(err));
			return 2;
		}
	}
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(t[i], NULL);
	start = hot_thread_cpu();
	while (hot_thread_cpu() - start < main_secs)
		x = main_hot(x);
	threads_sink[0] = x;
	return 0;
}
