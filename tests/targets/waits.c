/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * waits.c - threads that wait in known functions for a time they measure
 * themselves, for off-CPU profiles: "sleeper" sleeps in sleep_wait(),
 * "reader" blocks on a pipe in pipe_wait() (main writes a byte 20 ms
 * after the reader says it is ready), "locker" blocks on a mutex that "holder" keeps while it sleeps,
 * in mutex_wait(); "spinner" only burns CPU in spin_cpu(). Each waiting
 * thread also burns a little CPU in work_cpu() between its waits.
 *
 * At the end it prints, per waiting function, the nanoseconds its thread
 * measured inside the blocking call, and per thread its life in ns:
 *   wait sleep_wait NS
 *   life sleeper NS
 * Usage: waits [ROUNDS] (default 40 rounds of 20 ms waits)
 */
#include <pthread.h>
#include <string.h>
#include <sys/prctl.h>

#include "hot.h"

#define WAIT_NS 20000000L

uint64_t work_cpu(uint64_t x);
uint64_t spin_cpu(uint64_t x);
void sleep_wait(void);
void pipe_wait(void);
void mutex_wait(void);

static int rounds = 40;
static int pipefd[2], readyfd[2];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile int holder_has_it, locker_done;
static volatile uint64_t sink;
static long long waited[3], lived[4];

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* About 2 ms of CPU. */
HOT uint64_t work_cpu(uint64_t x)
{
	HOT_FRAME();
	for (int k = 0; k < 2; k++)
		for (long i = 0; i < HOT_ROUNDS; i++)
			HOT_STEP(x);
	return x;
}

HOT uint64_t spin_cpu(uint64_t x)
{
	HOT_FRAME();
	for (long i = 0; i < HOT_ROUNDS; i++)
		HOT_STEP(x);
	return x;
}

HOT void sleep_wait(void)
{
	struct timespec ts = {0, WAIT_NS};

	HOT_FRAME();
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

HOT void pipe_wait(void)
{
	char c;

	HOT_FRAME();
	if (read(pipefd[0], &c, 1) != 1)
		exit(2);
}

HOT void mutex_wait(void)
{
	HOT_FRAME();
	pthread_mutex_lock(&lock);
	pthread_mutex_unlock(&lock);
}

static void name(const char *n)
{
	prctl(PR_SET_NAME, n, 0, 0, 0);
}

static void *sleeper(void *arg)
{
	long long born = now();
	uint64_t x = 1;

	(void)arg;
	name("sleeper");
	for (int i = 0; i < rounds; i++) {
		long long t = now();

		sleep_wait();
		waited[0] += now() - t;
		x = work_cpu(x);
	}
	sink += x;
	lived[0] = now() - born;
	return NULL;
}

static void *reader(void *arg)
{
	long long born = now();
	uint64_t x = 2;

	(void)arg;
	name("reader");
	for (int i = 0; i < rounds; i++) {
		long long t;

		/* Main writes 20 ms after this: every read blocks that long. */
		if (write(readyfd[1], "r", 1) != 1)
			exit(2);
		t = now();
		pipe_wait();
		waited[1] += now() - t;
		x = work_cpu(x);
	}
	sink += x;
	lived[1] = now() - born;
	return NULL;
}

static void *holder(void *arg)
{
	struct timespec ts = {0, WAIT_NS};

	(void)arg;
	name("holder");
	while (!locker_done) {
		pthread_mutex_lock(&lock);
		holder_has_it = 1;
		nanosleep(&ts, NULL);
		holder_has_it = 0;
		pthread_mutex_unlock(&lock);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

static void *locker(void *arg)
{
	long long born = now();
	uint64_t x = 3;

	(void)arg;
	name("locker");
	for (int i = 0; i < rounds; i++) {
		long long t;

		while (!holder_has_it)
			sched_yield();
		t = now();
		mutex_wait();
		waited[2] += now() - t;
		x = work_cpu(x);
	}
	sink += x;
	lived[2] = now() - born;
	locker_done = 1;
	return NULL;
}

static void *spinner(void *arg)
{
	long long born = now(), until = born + (long long)rounds * 2 * WAIT_NS;
	uint64_t x = 4;

	(void)arg;
	name("spinner");
	while (now() < until)
		x = spin_cpu(x);
	sink += x;
	lived[3] = now() - born;
	return NULL;
}

int main(int argc, char **argv)
{
	void *(*fn[])(void *) = {sleeper, reader, locker, spinner, holder};
	const char *waits[] = {"sleep_wait", "pipe_wait", "mutex_wait"};
	const char *names[] = {"sleeper", "reader", "locker", "spinner"};
	struct timespec ts = {0, WAIT_NS};
	pthread_t t[5];

	if (argc > 1)
		rounds = atoi(argv[1]);
	if (rounds <= 0 || pipe(pipefd) != 0 || pipe(readyfd) != 0)
		return 2;
	for (int i = 0; i < 5; i++)
		if (pthread_create(&t[i], NULL, fn[i], NULL) != 0)
			return 2;
	for (int i = 0; i < rounds; i++) {
		char c;

		if (read(readyfd[0], &c, 1) != 1)
			return 2;
		nanosleep(&ts, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			return 2;
	}
	for (int i = 0; i < 5; i++)
		pthread_join(t[i], NULL);
	for (int i = 0; i < 3; i++)
		printf("wait %s %lld\n", waits[i], waited[i]);
	for (int i = 0; i < 4; i++)
		printf("life %s %lld\n", names[i], lived[i]);
	return 0;
}
