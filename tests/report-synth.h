/*
 * report-synth.h - the synthetic recording the report tests share: built
 * with the profile_* builders, so every count in the goldens can be worked
 * out by hand from report-synth.c.
 */
#ifndef PERFMINI_REPORT_SYNTH_H
#define PERFMINI_REPORT_SYNTH_H

#include "profile.h"

/* A new profile (free with profile_free); see report-synth.c for its samples. */
struct profile *synth_profile(void);

#endif
