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
	unsigned wake_flags_off; /* the trace entry's flags (UINT_MAX: none) */
	int wake_err;
	/*
	 * switch_tp: the CPU-wide switch event is the sched_switch
	 * tracepoint, sampled, filtered to the switches from and to the
	 * targets' threads (not a dummy's switch records of every thread);
	 * the targets' events keep their own records. sw_*_off: where the
	 * outgoing thread's id and state (sw_state_size bytes) and the picked
	 * thread's id lie in a sample's raw data. no_switch_tp: it could not
	 * be opened, the dummy stands for it.
	 */
	bool switch_tp, no_switch_tp;
	unsigned sw_prev_off, sw_state_off, sw_state_size, sw_next_off;
	uint64_t sw_id; /* the tracepoint's */
	/*
	 * wake_wide or switch_tp (filtering): the targets' threads (tids),
	 * whose wake-ups and switches alone the per-CPU events pass through
	 * filters in the kernel, so that the machine's others write nothing:
	 * from /proc at the start, then the tracking records
	 * (events_filter_task). filter_dirty: they changed since the filters
	 * were made. filter_due: when the filters could be made again were
	 * they made at the pace allowed (REFILTER_NS), the start of a burst
	 * (events_refilter). churn: the threads changed faster than that,
	 * the filters are off until they have not since calm_since for a
	 * while. filter: 1 the events filter, 0 they pass every event (before
	 * the start, too many threads for a filter, or churn), -1 the kernel
	 * refused a filter: no more are tried.
	 */
	bool filtering;
	struct hmap tids;
	bool filter_dirty, churn;
	int filter;
	uint64_t filter_due, calm_since;
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
 * filtering: from now (the events enabled, at now ns), the per-CPU
 * wake-up and switch events pass the targets' threads' alone (child: the
 * command's pid, or 0).
 */
void events_filter_start(struct sess_events *ev, const struct record_opts *o, pid_t child,
			 uint64_t now);
/* filtering: a thread of the targets born (born), or gone. */
void events_filter_task(struct sess_events *ev, uint32_t tid, bool born);
/*
 * The filters made again where their threads changed, at most once in
 * REFILTER_NS after a burst of a few: a thread's wake-ups and switches in
 * its first moments may be missed.
 */
void events_refilter(struct sess_events *ev, uint64_t now);
/* filtering: whether tid is a thread of the targets. */
bool events_is_target(const struct sess_events *ev, uint32_t tid);
/* The layout of records without events (a session's tests). */
void events_offline(struct sess_events *ev, const struct decode_layout *layout);
void events_release(struct sess_events *ev);

#endif
