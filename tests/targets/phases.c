/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * phases.c - a serial phase and a parallel phase, whose CPU and latency
 * views rank their functions the other way round when the workers run at
 * once (tests/report/run-latency.sh).
 *
 * Usage: phases [SERIAL [PARALLEL [THREADS]]]
 *   ph_serial runs SERIAL seconds of CPU time (default 0.65) on the main
 *   thread alone, while THREADS workers (default 2), already started,
 *   wait on a condition variable in ph_wait; then each worker runs
 *   ph_parallel for PARALLEL seconds of its CPU time (default 0.35), the
 *   main thread waiting for them in pthread_join. With as many CPUs as
 *   workers, ph_parallel takes THREADS times PARALLEL of CPU time but
 *   PARALLEL of wall time: more CPU than ph_serial, less wall time.
 *
 * At the end it prints its own measure of each phase, in seconds: the
 * wall time from the phase's start to its end, the CPU time its threads
 * spent in it, the time during which any of them ran (its latency) and
 * the sum of the time each ran:
 *   phases: serial wall 0.602 cpu 0.650 ran 0.650 busy 0.650 parallel wall 0.353 cpu 0.700 ran 0.351 busy 0.700
 * For that, each thread notes every 10 us or so of its work the 100 us
 * slot of the wall clock it is in: ran counts the slots any of a phase's
 * threads noted, busy each thread's. busy / ran is how many ran at once
 * on average; on a machine too busy to run the workers at once, 1, and
 * the views agree. (On a virtual machine whose host takes its CPUs away
 * for a while, the thread's CPU clock counts that time, the slots do
 * not: compare the ratio.)
 */
#include <pthread.h>
#include <stdbool.h>
#include <string.h>

#include "hot.h"

#define SLOT_NS	 100000 /* the clock's slots */
#define NSLOTS	 600000 /* 60 s of them */
#define MAX_JOBS 16	/* the main thread and the workers */
#define CHUNK	 (HOT_ROUNDS / 100)

uint64_t ph_serial(double seconds);
uint64_t ph_parallel(double seconds, int job);
void ph_wait(void);
volatile uint64_t ph_sink;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go = PTHREAD_COND_INITIALIZER;
static bool started;
static double parallel_seconds, parallel_cpu;
static uint64_t t_zero;
static unsigned char ran[MAX_JOBS][NSLOTS / 8]; /* per job, the slots it ran in */

static uint64_t wall_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* Job job runs now. */
static void note(int job)
{
	uint64_t slot = (wall_ns() - t_zero) / SLOT_NS;

	if (slot < NSLOTS)
		ran[job][slot / 8] |= (unsigned char)(1u << (slot % 8));
}

/*
 * Runs until the calling thread has used seconds more of CPU time, as job:
 * a macro, so that the samples are the calling function's own.
 */
#define BURN(seconds, job, x)                                 \
	do {                                                  \
		double until_ = hot_thread_cpu() + (seconds); \
                                                              \
		while (hot_thread_cpu() < until_) {           \
			for (long i_ = 0; i_ < CHUNK; i_++)   \
				HOT_STEP(x);                  \
			note(job);                            \
		}                                             \
	} while (0)

HOT uint64_t ph_serial(double seconds)
{
	uint64_t x = 1;

	HOT_FRAME();
	BURN(seconds, 0, x);
	return x;
}

HOT uint64_t ph_parallel(double seconds, int job)
{
	uint64_t x = 2;

	HOT_FRAME();
	BURN(seconds, job, x);
	return x;
}

/* Waits for the parallel phase to start. */
HOT void ph_wait(void)
{
	HOT_FRAME();
	pthread_mutex_lock(&lock);
	while (!started)
		pthread_cond_wait(&go, &lock);
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	int job = (int)(intptr_t)arg;
	double cpu;

	ph_wait();
	cpu = hot_thread_cpu();
	ph_sink += ph_parallel(parallel_seconds, job);
	cpu = hot_thread_cpu() - cpu;
	pthread_mutex_lock(&lock);
	parallel_cpu += cpu;
	pthread_mutex_unlock(&lock);
	return NULL;
}

/*
 * The time in which any of jobs [first, last] ran, in seconds; the sum of
 * the time each ran in *busy.
 */
static double ran_seconds(int first, int last, double *busy)
{
	uint64_t n = 0, each = 0;

	for (size_t i = 0; i < NSLOTS / 8; i++) {
		unsigned char any = 0;

		for (int j = first; j <= last; j++) {
			any |= ran[j][i];
			each += (uint64_t)__builtin_popcount(ran[j][i]);
		}
		n += (uint64_t)__builtin_popcount(any);
	}
	*busy = (double)each * SLOT_NS / 1e9;
	return (double)n * SLOT_NS / 1e9;
}

int main(int argc, char **argv)
{
	double serial = hot_seconds(argc, argv, 1, 0.65), cpu, s_ran, s_busy, p_ran, p_busy;
	int threads = argc > 3 ? atoi(argv[3]) : 2;
	pthread_t tids[MAX_JOBS];
	uint64_t t1, t2;

	parallel_seconds = hot_seconds(argc, argv, 2, 0.35);
	if (threads < 1 || threads >= MAX_JOBS) {
		fprintf(stderr, "%s: THREADS from 1 to %d\n", argv[0], MAX_JOBS - 1);
		return 2;
	}
	for (int i = 0; i < threads; i++)
		if (pthread_create(&tids[i], NULL, worker, (void *)(intptr_t)(i + 1)) != 0) {
			perror("pthread_create");
			return 2;
		}
	t_zero = wall_ns();
	cpu = hot_thread_cpu();
	ph_sink += ph_serial(serial);
	cpu = hot_thread_cpu() - cpu;
	t1 = wall_ns();
	pthread_mutex_lock(&lock);
	started = true;
	pthread_cond_broadcast(&go);
	pthread_mutex_unlock(&lock);
	for (int i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	t2 = wall_ns();
	s_ran = ran_seconds(0, 0, &s_busy);
	p_ran = ran_seconds(1, threads, &p_busy);
	printf("phases: serial wall %.3f cpu %.3f ran %.3f busy %.3f parallel wall %.3f cpu %.3f "
	       "ran "
	       "%.3f busy %.3f\n",
	       (double)(t1 - t_zero) / 1e9, cpu, s_ran, s_busy, (double)(t2 - t1) / 1e9,
	       parallel_cpu, p_ran, p_busy);
	return 0;
}
