/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency.h - what a CPU sample weighs in the latency view (--latency) of
 * a recording with off-CPU spans: its period shared among the threads of
 * its process that were on a CPU at that moment.
 *
 * A thread is on a CPU from its first record to its last (a sample, or a
 * span's switch-out or end) but within its off-CPU spans; the sampled
 * thread is counted whatever its spans say. Code that runs while its
 * process's other threads wait weighs all its time; code that runs on
 * four threads at once a quarter: the weights of a process add up to the
 * wall-clock time during which any of its threads ran (its latency), as
 * the CPU samples add up to its CPU time.
 */
#ifndef PERFMINI_LATENCY_H
#define PERFMINI_LATENCY_H

#include <stdbool.h>

#include "store/profile.h"

/* What latency_walk hands on: a CPU sample, and its process's threads on a CPU then. */
struct latency_at {
	uint32_t sample;   /* index into p->samples */
	uint32_t parallel; /* the threads on a CPU, the sampled one included: >= 1 */
	/*
	 * The off-CPU spans (indexes into p->offcpu) of the process's other
	 * threads at that moment, the threads that waited, nwaiting of them.
	 */
	const uint32_t *waiting;
	uint32_t nwaiting;
};

/*
 * Walks the CPU samples of p in time order per process, handing fn each
 * with its parallelism and, with waiting, its process's waiting threads
 * (else none). A file without spans has every sample alone: parallel 1,
 * no waiting thread.
 */
typedef void (*latency_fn)(const struct latency_at *at, void *arg);
void latency_walk(const struct profile *p, bool waiting, latency_fn fn, void *arg);

/*
 * Sets the period of each CPU sample of p to its latency: its period
 * divided by its parallelism (latency_walk), rounded. A file without
 * spans is left as it is. For one recording's file: a merge of several
 * has times of different starts.
 */
void latency_weigh_samples(struct profile *p);

#endif
