/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wall.h - what a CPU sample weighs in the wall view (--sample-type=wall)
 * of a recording with off-CPU spans.
 *
 * A sample's period is CPU time as its event's clock counted it; the spans
 * are the thread's time off the CPU between its switch records. The two
 * clocks start and stop at different points of a context switch (the
 * kernel's own work for the perf events falls on one or the other), so a
 * thread that switches tens of thousands of times a second has samples
 * and spans that overlap, and its wall time would exceed its life. Where
 * the spans say how long the thread was on the CPU between two of its
 * samples, that time is the later sample's weight.
 */
#ifndef PERFMINI_WALL_H
#define PERFMINI_WALL_H

#include "store/profile.h"

/*
 * Sets the period of each CPU sample of p to its weight in the wall view:
 * the time its thread was on the CPU since its previous sample, by the
 * thread's spans (time since the sample less the spans between). Where
 * spans may be missing (records lost, --off-cpu-min), a sample weighs at
 * most its period. A thread's first sample weighs its period, or less
 * where a span ended closer before it. A file without spans is left as
 * it is. For one recording's file: a merge of several has times of
 * different starts.
 */
void wall_weigh_samples(struct profile *p);

#endif
