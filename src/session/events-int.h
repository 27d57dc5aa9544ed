/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * events-int.h - the session's part that opens the perf events and holds
 * them with their rings (events.c alone writes it): what the kernel
 * allowed, and how the records they write are laid out.
 */
#ifndef PERFMINI_SESSION_EVENTS_INT_H
#define PERFMINI_SESSION_EVENTS_INT_H

#include <stdbool.h>
#include <sys/types.h>

#include "capture/attach.h"
#include "capture/decode.h"
#include "session/session.h"
#include "util/hmap.h"

struct sess_events {
	struct attach att;
	struct decode_layout layout;
	long paranoid;	     /* kernel.perf_event_paranoid when the events were opened */
	bool kernel_dropped; /* the kernel was excluded because paranoid forbade it */
	bool ring_reduced;   /* the locked-memory limit made the rings smaller than asked */
	bool no_switch_wide; /* CPU-wide switch records could not be opened: each target's own */
	/*
	 * --off-cpu: wake-ups sampled (the sched_waking tracepoint);
	 * wake_pid_off is where the woken thread's id lies in a sample's
	 * raw data. wake_err: why the kernel gave none (-errno), 0 when it
	 * did. wake_wide: the wake-up event per CPU, for every thread.
	 */
	bool wakeups;
	bool wake_wide;
	unsigned wake_pid_off;
	int wake_err;
	/*
	 * wake_wide: the targets' threads (wake_tids), whose wake-ups alone
	 * the per-CPU wake-up events pass through a filter in the kernel, so
	 * that the machine's other wake-ups are not sampled: from /proc at
	 * the start, then the tracking records (events_wake_task).
	 * wake_dirty: they changed since the filter was made, at
	 * wake_filtered (ns). wake_filter: 1 the events filter, 0 they pass
	 * every wake-up (before the start, or too many threads for a
	 * filter), -1 the kernel refused a filter: no more are tried.
	 */
	struct hmap wake_tids;
	bool wake_dirty;
	int wake_filter;
	uint64_t wake_filtered;
	/*
	 * Each sample's cgroup is in the sample (PERF_SAMPLE_CGROUP), where
	 * the kernel has it; else each thread's is read from /proc.
	 */
	bool cgroup_sampled;
};

/*
 * The soft limit on open files raised to the hard one; returns the files
 * the modules may keep open: a quarter of it, at most 4,096 unused ones.
 * A module the naming thread reads holds a second descriptor, its copy in
 * libdwfl, until the module is let go: the modules take at most half of
 * the limit, the other half left to the events, outputs and debug files.
 */
size_t events_raise_nofile(void);
/*
 * Opens the events of every target of o (child: the command's pid, or
 * 0), with their rings, disabled (a command's are enabled by its exec,
 * the others all at once by events_enable); -1 once the failure is said
 * to the user. Where kernel.perf_event_paranoid lets a user sample only
 * user code, the kernel is left out, as perf does, and the user told.
 */
int events_open(struct sess_events *ev, const struct record_opts *o, pid_t child);
/* Drains every ring through fn (attach_drain); the records that made no sense. */
size_t events_drain(struct sess_events *ev, ring_record_fn fn, void *arg);
/* How full the fullest tracking ring is, in percent. */
unsigned events_tracking_fill(struct sess_events *ev);
/* The samples the kernel dropped, as the events count them (attach_lost). */
uint64_t events_lost(const struct sess_events *ev);
/* Every event enabled at once (0 or -errno), or disabled. */
int events_enable(struct sess_events *ev);
void events_disable(struct sess_events *ev);
/*
 * wake_wide: from now (the events enabled, at now ns), the per-CPU
 * wake-up events pass the wake-ups of the targets' threads alone.
 */
void events_wake_start(struct sess_events *ev, const struct record_opts *o, uint64_t now);
/* wake_wide: a thread of the targets born (born), or gone. */
void events_wake_task(struct sess_events *ev, uint32_t tid, bool born);
/*
 * The filter made again where its threads changed, at most once in
 * WAKE_REFILTER_NS: a thread's wake-ups in its first moments may be
 * missed.
 */
void events_wake_refilter(struct sess_events *ev, uint64_t now);
/* The layout of records without events (a session's tests). */
void events_offline(struct sess_events *ev, const struct decode_layout *layout);
void events_release(struct sess_events *ev);

#endif
