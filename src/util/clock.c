/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.c - clock readings; see clock.h.
 */
#include "config.h"

#include <errno.h>
#include <time.h>

#include "util/clock.h"

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t now_coarse_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int clock_join_by(pthread_t t, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt)
{
	/* Waits of 5 ms at most: a sleep of 5 ms between looks made every join wait for one. */
	for (;;) {
		struct timespec ts;

		if (interrupt && *interrupt)
			return -EINTR;
		if (deadline_ns && now_ns() >= deadline_ns)
			return -ETIMEDOUT;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 5000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		if (pthread_timedjoin_np(t, NULL, &ts) == 0)
			return 0;
	}
}
