/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A target for record --off-cpu's wake-ups (run-wakers.sh): a sleeper
 * thread waits on a condition variable that a waker thread signals from
 * wk_signal_here after spinning 4 ms; a spinner competes for the one CPU
 * all three are pinned to, so that the sleeper, once woken, waits to run.
 * Each round the sleeper spins 1 ms. At its end the sleeper prints, from
 * the kernel's own counters (/proc/self/task/TID/schedstat) and its clock:
 *   sleeper TID LIFE_NS RUN_NS DELAY_NS
 * (its life from its first instruction to that moment, its time on the
 * CPU, its time runnable waiting for it).
 *
 * usage: wakers ROUNDS
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int ticket, rounds, stop;
static volatile unsigned long sink;

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

static void __attribute__((noinline)) wk_spin(unsigned long long ns)
{
	unsigned long long end = now_ns() + ns;

	while (now_ns() < end)
		sink++;
}

static void __attribute__((noinline)) wk_signal_here(void)
{
	pthread_mutex_lock(&mu);
	ticket++;
	pthread_cond_signal(&cv);
	pthread_mutex_unlock(&mu);
}

static void __attribute__((noinline)) wk_wait(int want)
{
	pthread_mutex_lock(&mu);
	while (ticket < want)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
}

static void *sleeper(void *arg)
{
	unsigned long long born = now_ns(), run = 0, delay = 0;
	char path[64];
	FILE *f;

	for (int i = 1; i <= rounds; i++) {
		wk_wait(i);
		wk_spin(1000000);
	}
	snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", &run, &delay) != 2)
		exit(2);
	fclose(f);
	printf("sleeper %ld %llu %llu %llu\n", (long)syscall(SYS_gettid), now_ns() - born, run,
	       delay);
	fflush(stdout);
	return arg;
}

static void *waker(void *arg)
{
	for (int i = 0; i < rounds; i++) {
		wk_spin(4000000);
		wk_signal_here();
	}
	return arg;
}

static void *spinner(void *arg)
{
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED))
		wk_spin(500000);
	return arg;
}

int main(int argc, char **argv)
{
	pthread_t s, w, p;
	cpu_set_t one;

	rounds = argc > 1 ? atoi(argv[1]) : 100;
	CPU_ZERO(&one);
	CPU_SET(sched_getcpu() >= 0 ? sched_getcpu() : 0, &one);
	if (sched_setaffinity(0, sizeof(one), &one) < 0)
		return 1;
	pthread_create(&p, NULL, spinner, NULL);
	pthread_create(&s, NULL, sleeper, NULL);
	pthread_create(&w, NULL, waker, NULL);
	pthread_join(w, NULL);
	pthread_join(s, NULL);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	pthread_join(p, NULL);
	return 0;
}
