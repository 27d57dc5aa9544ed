/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fault-threads.c - threads that come and go under a profiler.
 *
 * Usage: fault-threads churn SECONDS
 *          for SECONDS of wall time, starts threads and joins them, four
 *          at a time, each spending about 3 ms of CPU time in churn_hot()
 *          (so that at any moment some threads are starting, some running
 *          and some exiting; and long enough for a per-thread sampling
 *          clock at 999 Hz to fire), until SECONDS of wall time have passed
 *        fault-threads many N SECONDS
 *          starts N threads that sleep, and main spends its time in
 *          many_hot() for SECONDS of wall time
 * Says "fault-threads: ready, pid PID" on standard output once started,
 * and, at the end, "fault-threads: N threads" on standard error.
 */
#include <pthread.h>
#include <string.h>

#include "../targets/hot.h"

uint64_t churn_hot(uint64_t x);
uint64_t many_hot(uint64_t x);
volatile uint64_t fault_threads_sink;

HOT uint64_t churn_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS * 3; i++)
		HOT_STEP(x);
	return x;
}

HOT uint64_t many_hot(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

static void *churn_thread(void *arg)
{
	fault_threads_sink += churn_hot((uint64_t)(uintptr_t)arg);
	return NULL;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	long started = 0;
	double end;

	if (argc == 3 && !strcmp(argv[1], "churn")) {
		end = hot_now() + hot_seconds(argc, argv, 2, 1);
		printf("fault-threads: ready, pid %ld\n", (long)getpid());
		fflush(stdout);
		while (hot_now() < end) {
			pthread_t t[4];
			int n = 0;

			for (int i = 0; i < 4; i++)
				if (pthread_create(&t[n], NULL, churn_thread,
						   (void *)(uintptr_t)started) == 0)
					n++, started++;
			for (int i = 0; i < n; i++)
				pthread_join(t[i], NULL);
		}
	} else if (argc == 4 && !strcmp(argv[1], "many")) {
		long n = strtol(argv[2], NULL, 10);
		uint64_t x = 1;

		end = hot_now() + hot_seconds(argc, argv, 3, 1);
		for (long i = 0; i < n; i++) {
			pthread_t t;

			if (pthread_create(&t, NULL, sleeper, NULL) != 0) {
				perror("fault-threads: pthread_create");
				return 2;
			}
			started++;
		}
		printf("fault-threads: ready, pid %ld\n", (long)getpid());
		fflush(stdout);
		while (hot_now() < end)
			x = many_hot(x);
		fault_threads_sink = x;
	} else {
		fprintf(stderr, "usage: fault-threads churn SECONDS | many N SECONDS\n");
		return 2;
	}
	fprintf(stderr, "fault-threads: %ld threads\n", started);
	return 0;
}
