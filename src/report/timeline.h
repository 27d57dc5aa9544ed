/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.h - the selected samples of each thread in time order, for the
 * formats that draw a timeline per thread (speedscope, the Firefox
 * Profiler). Which samples count is aggregate.h's business (every filter,
 * --sample-type); this only orders them and gives each its weight.
 *
 * Invariant: every event is of exactly one thread; a thread's events lie
 * together in events, in time order (ties in the file's order, CPU
 * samples before off-CPU spans), and weigh the sum of their weights.
 */
#ifndef PERFMINI_TIMELINE_H
#define PERFMINI_TIMELINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "store/profile.h"

/* One CPU sample, or one off-CPU span (--sample-type off-cpu, wall). */
struct tl_event {
	uint64_t time;	 /* ns since the recording started */
	uint64_t weight; /* ns: a sample's period (cpu-clock), a span's duration */
	uint32_t stack;	 /* profile stack */
	uint32_t thread; /* index into threads */
	uint32_t index;	 /* of the sample or span in the profile */
	bool offcpu;
};

struct tl_thread {
	uint32_t pid, tid;
	uint32_t comm; /* string: its last name, else that of its first event */
	uint32_t pad;
	size_t first, n;   /* events[first .. first + n) */
	uint64_t weight;   /* the sum of its events' weights */
	uint64_t end_time; /* the end of its last event, ns */
};

struct timeline {
	struct tl_thread *threads; /* by pid, then tid */
	size_t nthreads;
	struct tl_event *events;
	size_t nevents;
	uint32_t *frames; /* scratch for timeline_frames */
	size_t frames_cap;
};

/* The events of p that o selects. Never fails; free with timeline_free. */
struct timeline *timeline_new(const struct profile *p, const struct report_opts *o);
void timeline_free(struct timeline *t);

/*
 * The frames of profile stack sid that the kernel filters keep, leaf
 * first, in t's scratch (valid until the next call); their number.
 * (Stacks --kernel-only leaves empty have no event.)
 */
uint32_t timeline_frames(struct timeline *t, const struct profile *p, const struct report_opts *o,
			 uint32_t sid, const uint32_t **frames);

#endif
