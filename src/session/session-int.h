/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session-int.h - a recording session's state, private to session/: the
 * stages it drives, the counts of what it saw, and its parts, each with
 * a header of its own and written by its own file alone:
 *
 *   ev   events.c   the perf events and their rings  (events-int.h)
 *   th   threads.c  threads and processes, by id      (threads-int.h)
 *   wt   waits.c    off-CPU spans and wake-ups        (waits-int.h)
 *   out  output.c   the data files and their slices   (output-int.h)
 *   nm   naming.c   frames named                      (naming-int.h)
 *   rt   retire.c   modules no process maps, let go   (retire-int.h)
 *
 * session.c owns the rest (the stages, the counts) and drives the loop;
 * meta.c reads everything and writes only the profile's meta entries and
 * what the user reads. Another file may read a part's fields, and call
 * its functions; scripts/check-parts fails CI on a write to a part's
 * field anywhere but in its own file. Only the recording thread touches
 * a session.
 */
#ifndef PERFMINI_SESSION_INT_H
#define PERFMINI_SESSION_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "capture/launch.h"
#include "model/module.h"
#include "model/order.h"
#include "model/proc.h"
#include "session/events-int.h"
#include "session/naming-int.h"
#include "session/output-int.h"
#include "session/retire-int.h"
#include "session/session.h"
#include "session/threads-int.h"
#include "session/waits-int.h"
#include "stack/stack.h"
#include "stack/unwind.h"
#include "util/hmap.h"

/* The loop's pace, kept from one session_run to the next. */
struct loop {
	uint64_t round_ns, round_start; /* the wait between drains, and when the last began */
	uint64_t last_reap, last_status, last_shed;
	uint64_t new_file; /* when a fleeting program's file was last mapped (0: never ran) */
};

struct session {
	const struct record_opts *o;
	struct loop loop;
	bool offline; /* session_new_offline's: no events, nothing started */
	/* The stages it drives. */
	struct launch child; /* with a command */
	struct order q;
	struct module_set mods;
	struct model model;
	struct unwinder *unwinder; /* the hybrid and DWARF modes */
	struct stacker stk;
	struct hmap pending; /* pid -> address-space changes drained, not applied */
	/* What it saw. */
	uint64_t start_ns, end_ns;
	time_t wall_start;
	uint64_t nsamples, lost, lost_samples, bad_records;
	uint64_t lost_tracking;	     /* of lost: those the tracking rings lost */
	char *privileged;	     /* why the command gains privileges at its exec, or NULL */
	session_sample_fn on_sample; /* a live view's hook, or NULL */
	void *on_sample_arg;
	/*
	 * The unwinds of the slices finished, settled (the summary's); the
	 * frames named from kept names that their files counted.
	 */
	struct stack_unwind_stats unw_done;
	uint64_t names_kept_done;
	/* Its parts. */
	struct sess_events ev;
	struct sess_threads th;
	struct sess_waits wt;
	struct sess_output out;
	struct sess_naming nm;
	struct sess_retire rt;
};

/* meta.c: what the recording says of itself, read from every part. */
/*
 * The recording's meta entries, into its profile: all of them at the
 * first chunk and at the stop, only the counts (progress) in between.
 */
void meta_write(struct session *s);
void meta_progress(struct session *s);
/*
 * Slice p finished (--switch-output): its own counts into its meta, of
 * the frames named from kept names since the slice before, and of its
 * unwinds unw (NULL: none), settled against p's frames, then summed into
 * the recording's (and freed).
 */
void meta_slice_finish(struct session *s, struct profile *p, struct stack_unwind_stats *unw);
/* Why the command argv runs gains privileges at its exec, or NULL (allocated). */
char *meta_privileged_command(char *const argv[]);

#endif
