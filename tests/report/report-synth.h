/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-synth.h - the synthetic recording the report tests share: built
 * with the profile_* builders, so every count in the goldens can be worked
 * out by hand from report-synth.c.
 */
#ifndef PERFMINI_REPORT_SYNTH_H
#define PERFMINI_REPORT_SYNTH_H

#include "store/profile.h"

/* A new profile (free with profile_free); see report-synth.c for its samples. */
struct profile *synth_profile(void);

/*
 * A wide and deep profile for the flame graph, 12000 samples of thread
 * "wide" (stacks outermost first):
 *   main;hot                              8000
 *   main;dispatch;leaf_0000 .. leaf_0199  10 each (2000)
 *   main;warm                             1990
 *   main;warm;deep_00;...;deep_59         10
 * Each leaf and the deep chain have under 1/1000 of the samples: drawn
 * only when zoomed into dispatch or warm.
 */
struct profile *synth_wide_profile(void);

#endif
