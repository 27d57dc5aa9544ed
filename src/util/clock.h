/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the clocks perfmini reads, in nanoseconds.
 */
#ifndef PERFMINI_CLOCK_H
#define PERFMINI_CLOCK_H

#include <pthread.h>
#include <signal.h>
#include <stdint.h>

/* Monotonic clock in nanoseconds (the clock perf timestamps use). */
uint64_t now_ns(void);
/*
 * The same clock, cheaper and as of the last tick (a few ms late): for
 * "at most once a second" checks on hot paths; never mixed with now_ns.
 */
uint64_t now_coarse_ns(void);
/* The CPU time the calling thread has used, in nanoseconds; 0 when unknown. */
uint64_t thread_cpu_ns(void);
/*
 * Joins thread t as soon as it ends, looking every 5 ms at deadline_ns
 * (now_ns()'s clock; 0: none) and *interrupt (NULL: none). 0 once joined,
 * -ETIMEDOUT or -EINTR when it was not (t still runs).
 */
int clock_join_by(pthread_t t, uint64_t deadline_ns, const volatile sig_atomic_t *interrupt);

#endif
