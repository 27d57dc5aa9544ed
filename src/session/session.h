/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - a recording session: open the events, drain the rings while
 * the targets run, apply records in time order to the process model,
 * normalize each sample's stack, and at the end symbolize and write the
 * data file.
 *
 * Invariant: a sample is normalized against the mappings live at its
 * timestamp, because records from every CPU pass through one queue
 * ordered by time before they are applied.
 */
#ifndef PERFMINI_RECORD_H
#define PERFMINI_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/event.h"

struct record_opts {
	uint32_t *pids; /* -p */
	size_t npids;
	uint32_t *tids; /* -t */
	size_t ntids;
	bool system_wide;    /* -a */
	const char *cpulist; /* -C, NULL for all */
	char **argv;	     /* the command to run, NULL when attaching */
	struct event_opts ev;
	const char *output;
	double duration; /* seconds, 0 for no limit */
	bool quiet;
	unsigned mmap_pages;	 /* data pages per ring, a power of two */
	bool pages_given;	 /* by -m, not the default */
	const char **debug_dirs; /* --debug-dir */
	size_t ndebug_dirs;
	bool no_lines;		 /* --no-lines */
	bool off_cpu;		 /* --off-cpu: off-CPU spans beside the samples */
	bool off_cpu_only;	 /* --off-cpu-only: the spans alone, no CPU samples */
	bool ev_given;		 /* -e, -F or -c given */
	uint64_t off_cpu_min_ns; /* --off-cpu-min: shorter spans are left out */
	double name_timeout;	 /* --name-timeout: seconds the stop may name frames, 0: no limit */
	/*
	 * --switch-output: a new data file (OUTPUT.TIMESTAMP) every
	 * switch_ns, or when the one written reaches switch_bytes; the newest
	 * switch_max_files kept (0: all).
	 */
	uint64_t switch_ns, switch_bytes;
	unsigned switch_max_files;
	int argc_shown; /* for the recorded command line */
	char **argv_shown;
};

/* Runs a whole recording; returns the process exit status. */
int record_run(const struct record_opts *o);

#endif
