/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pingpong.c - two threads passing a byte back and forth through two
 * pipes, ROUNDS times: each round switches each thread out once, so an
 * off-CPU recording gets two spans a round, as many as the rounds say
 * whatever the machine's speed. The main thread (the pinger, playing in
 * pp_rounds) first sleeps DELAY_MS (default 0: time to attach to it);
 * the other thread is named "ponger". At the end the pinger prints, over
 * its rounds alone, their time and the kernel's own counters for it
 * (/proc/self/task/TID/schedstat):
 *   pinger TID ELAPSED_NS RUN_NS DELAY_NS
 * (the time the rounds took, its time on the CPU, its time runnable
 * waiting for it).
 * Usage: pingpong ROUNDS [DELAY_MS]
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int ping[2], pong[2];
static long rounds;

/* The other side: answers each byte. */
static void *ponger(void *arg)
{
	char c;

	(void)arg;
	for (long i = 0; i < rounds; i++)
		if (read(ping[0], &c, 1) != 1 || write(pong[1], &c, 1) != 1)
			exit(2);
	return NULL;
}

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull + (unsigned long long)ts.tv_nsec;
}

/* The kernel's time on the CPU and runnable of this thread, ns. */
static void schedstat(unsigned long long *run, unsigned long long *delay)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", (long)syscall(SYS_gettid));
	f = fopen(path, "r");
	if (!f || fscanf(f, "%llu %llu", run, delay) != 2)
		exit(2);
	fclose(f);
}

static int __attribute__((noinline)) pp_rounds(void)
{
	char c = 'x';

	for (long i = 0; i < rounds; i++)
		if (write(ping[1], &c, 1) != 1 || read(pong[0], &c, 1) != 1)
			return 2;
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long t0, run0, delay0, run, delay;
	long delay_ms = argc > 2 ? atol(argv[2]) : 0;
	pthread_t t;

	rounds = argc > 1 ? atol(argv[1]) : 10000;
	if (rounds <= 0 || delay_ms < 0 || pipe(ping) != 0 || pipe(pong) != 0 ||
	    pthread_create(&t, NULL, ponger, NULL) != 0) {
		fprintf(stderr, "usage: pingpong ROUNDS [DELAY_MS]\n");
		return 2;
	}
	pthread_setname_np(t, "ponger");
	if (delay_ms)
		usleep((useconds_t)delay_ms * 1000);
	schedstat(&run0, &delay0);
	t0 = now_ns();
	if (pp_rounds())
		return 2;
	schedstat(&run, &delay);
	printf("pinger %ld %llu %llu %llu\n", (long)syscall(SYS_gettid), now_ns() - t0, run - run0,
	       delay - delay0);
	pthread_join(t, NULL);
	return 0;
}
