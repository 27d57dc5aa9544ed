/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * clock.h - the clocks perfmini reads, in nanoseconds.
 */
#ifndef PERFMINI_CLOCK_H
#define PERFMINI_CLOCK_H

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

#endif
