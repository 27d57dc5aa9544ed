/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * recorder-int.h - a recording session's state, shared by the files of
 * cmd/ that make it up and by nothing else: record.c (the loop, the
 * records applied, the stop), record-open.c (the events opened, and
 * why not), record-name.c (the frames named) and record-meta.c (what
 * the data file and the user are told of the recording). Only the
 * recording thread touches it.
 */
#ifndef PERFMINI_RECORDER_INT_H
#define PERFMINI_RECORDER_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "capture/attach.h"
#include "capture/decode.h"
#include "capture/launch.h"
#include "cmd/record.h"
#include "model/cgroup.h"
#include "model/offcpu.h"
#include "model/order.h"
#include "model/proc.h"
#include "stack/stack.h"
#include "stack/unwind.h"
#include "store/datafile.h"
#include "report/missing.h"
#include "symbol/namer.h"
#include "symbol/symbolize.h"

/* Which frames of a profile the naming thread resolved: a byte per frame id. */
struct resolved {
	uint8_t *b;
	size_t n;
};

/*
 * --switch-output: a file sealed, with the profile of its slice (whose
 * frame ids the naming thread knows by gen), until its frames are named:
 * those below upto have their names, or get none while recording.
 */
struct sealed {
	struct datafile_out out;
	struct profile *prof;
	uint32_t gen;
	struct resolved res;
	size_t upto;
};

struct recorder {
	const struct record_opts *o;
	struct decode_layout layout;
	struct attach att;
	struct launch child; /* with a command */
	struct order q;
	struct module_set mods;
	struct model model;
	/*
	 * What is recorded goes into prof, and with --switch-output into a
	 * new one for each slice: its frame ids are of generation gen for
	 * the naming thread, and res says which of them it resolved.
	 */
	struct profile *prof;
	uint32_t gen;
	struct resolved res;
	/*
	 * --switch-output: the profile of the slice before (owned here unless
	 * a sealed file still holds it), whose names a frame met again takes.
	 */
	struct profile *last;
	struct unwinder *unwinder; /* DWARF mode */
	struct stacker stk;
	struct symbolizer syms; /* the naming thread's until the stop */
	struct namer *namer;	/* NULL: frames are named at the stop */
	size_t unnamed_cut;	/* frames left unnamed because naming was cut short */
	const char *cut_why;	/* and why, or NULL */
	struct datafile_out out;
	uint64_t last_flush; /* when the last chunk went to the file */
	bool write_failed;   /* the file could not be written: said, and stopped */
	bool failed;	     /* something said stopped the recording: exit 1 */
	char **incomplete;   /* sealed files that could not be finished, to be named */
	size_t nincomplete;
	struct hmap sampled_tids; /* tid -> pid, of the living threads sampled */
	size_t nprocs;		  /* processes sampled (or waited), as the model knew them */
	size_t nthreads;	  /* threads sampled (or waited, --off-cpu), living or not */
	uint64_t start_ns, end_ns;
	time_t wall_start;
	uint64_t nsamples, lost, lost_samples, bad_records;
	uint64_t nspans;      /* off-CPU spans written */
	long paranoid;	      /* kernel.perf_event_paranoid when the events were opened */
	bool kernel_dropped;  /* the kernel was excluded because paranoid forbade it */
	char *privileged;     /* why the command gains privileges at its exec, or NULL */
	bool ring_reduced;    /* the locked-memory limit made the rings smaller than asked */
	bool no_switch_wide;  /* CPU-wide switch records could not be opened: each target's own */
	struct hmap pending;  /* pid -> address-space changes drained, not applied */
	struct offcpu offcpu; /* --off-cpu: switches paired into spans */
	/*
	 * --off-cpu: wake-ups sampled (the sched_waking tracepoint), each
	 * span written with its wake-up; wake_pid_off is where the woken
	 * thread's id lies in a sample's raw data. wake_err: why the kernel
	 * gave none (-errno), 0 when it did.
	 */
	bool wakeups;
	bool wake_wide; /* the wake-up event per CPU, for every thread (attach.h) */
	unsigned wake_pid_off;
	int wake_err;
	/*
	 * Each sample's cgroup: its id in the sample (PERF_SAMPLE_CGROUP)
	 * when the kernel has it (cgroup_sampled), else each thread's read
	 * from /proc when first sampled.
	 */
	struct cgroups cgroups;
	bool cgroup_sampled;
	/*
	 * --switch-output: when the data file written now was started, and
	 * the names of the files written, oldest first (those removed by
	 * --switch-max-files gone from the list).
	 */
	uint64_t slice_start;
	char **slices;
	size_t nslices;
	/*
	 * --switch-output: files sealed (every record in them) but waiting
	 * for the names of their frames, oldest first: each is finished, and
	 * its profile let go, once every frame of it has its name or gets
	 * none while recording. What the slices finished could not name, per
	 * module, for the summary (missing_sum, of nmissing_sum modules).
	 */
	struct sealed *sealed;
	size_t nsealed;
	struct missing *missing_sum;
	size_t nmissing_sum;
};

/*
 * Opens the events of every target, with their rings, disabled (a
 * command's are enabled by its exec, the others by record_run all at
 * once); -1 once the failure is said to the user. Where
 * kernel.perf_event_paranoid lets a user sample only user code, the
 * kernel is left out, as perf does, and the user told.
 */
int recorder_open_events(struct recorder *r);

/* The hook for each new frame (record-name.c); arg is the recorder. */
void recorder_on_new_frame(void *arg, struct module *m, uint32_t frame, uint64_t addr);
/*
 * The frames the naming thread resolved since the last call: their lines
 * into the profile they are of (the slice's, sealed or not).
 */
void recorder_take_named(struct recorder *r);
/* Whether frame f of profile res is of was resolved by the naming thread. */
bool recorder_resolved(const struct resolved *res, uint32_t f);
/*
 * At the stop, names every frame: the naming thread finishes what it
 * has, and the JIT frames (their perf maps now complete), within
 * --name-timeout or until *interrupt (a signal during the stop).
 */
void recorder_name_frames(struct recorder *r, const volatile sig_atomic_t *interrupt);
/*
 * The JIT frames of sealed file s to the naming thread, now that their
 * slice is over: it reads the perf maps again for them.
 */
void recorder_name_jit(struct recorder *r, struct sealed *s);
/*
 * At the stop, after recorder_name_frames: the frames of sealed file s
 * the naming thread did not resolve (JIT frames) named, unless naming
 * was cut short, and its modules' facts set.
 */
void recorder_name_sealed(struct recorder *r, struct sealed *s);
/* Whether named frame f (arg: the recorder) is where a stack starts. */
bool recorder_entry_frame(uint32_t f, void *arg);

/*
 * The recording's meta entries, into its profile: all of them at the
 * first chunk and at the stop, only the counts (progress) in between.
 */
void recorder_write_meta(struct recorder *r);
void recorder_progress_meta(struct recorder *r);
/*
 * The live status line goes to standard error when it is a terminal that
 * no target writes to: a command inherits that terminal (its output would
 * end up glued to the line), and so may an attached process.
 */
bool recorder_status_wanted(const struct recorder *r);
void recorder_status_line(const struct recorder *r, uint64_t now);
/* The summary on stderr: samples, file, what has no name, unwinding, losses. */
void recorder_print_summary(const struct recorder *r, size_t written);

/* Why the command argv runs gains privileges at its exec, or NULL (allocated). */
char *recorder_privileged_command(char *const argv[]);

/*
 * What was recorded since the last chunk, to the file (all_meta: every
 * meta entry, else the counts); -1 once a write failure is said.
 */
int recorder_flush(struct recorder *r, bool all_meta);
/* The threads sampled and still alive, to the file. */
void recorder_add_threads(struct recorder *r);

/* record-threads.c: threads, and their time off the CPU. */
/* Notes id as sampled (with other); returns whether it is new. */
bool recorder_note_sampled(struct hmap *h, uint32_t id, uint32_t other);
/*
 * Counts process pid as sampled, once while the model knows it: a
 * process whose pid another takes later is another (no table of every
 * pid ever sampled grows with the recording).
 */
void recorder_note_process(struct recorder *r, uint32_t pid);
/* The string id of t's name, kept in t until the name changes. */
uint32_t recorder_comm_id(struct recorder *r, struct thread *t);
/* The string id of the path of t's cgroup as sample s gives it ("" unknown). */
uint32_t recorder_cgroup_id(struct recorder *r, struct thread *t, const struct rec_sample *s);
/* Thread t to the file, with its last name. */
void recorder_write_thread(struct recorder *r, struct thread *t);
void recorder_add_thread(struct recorder *r, uint32_t pid, uint32_t tid);
/* Thread tid of pid exited: it is written down if sampled, and forgotten later. */
void recorder_thread_exited(struct recorder *r, uint32_t pid, uint32_t tid, uint64_t time);
/* --off-cpu: a context-switch sample (the stack a thread is switched out at). */
void recorder_apply_switch(struct recorder *r, const struct rec_sample *s, uint16_t misc,
			   const void *ahead);
/*
 * --off-cpu: a switch record of thread sid->tid. A CPU-wide one's
 * switch-out also names the thread picked next (offcpu_picked).
 */
void recorder_apply_switch_record(struct recorder *r, const struct sample_id *sid,
				  const struct rec_switch *sw);
/* --off-cpu: a wake-up sample (sched_waking, in the waker's context). */
void recorder_apply_wake(struct recorder *r, const struct rec_sample *s, uint16_t misc,
			 const void *ahead);
/* The offcpu pairing's emit: a span (with its wake-up) to the file. */
void recorder_keep_offcpu(const struct offcpu_span *s, void *arg);

/* record-write.c: --switch-output (and recorder_flush above). */
/* The name of a data file started now: OUTPUT.YYYYMMDDhhmmssSSS (malloc'd). */
char *recorder_slice_name(const struct recorder *r);
/* A data file started under name (kept); the oldest removed past --switch-max-files. */
void recorder_slice_started(struct recorder *r, char *name);
/* The slices' names, the sealed files (abandoned: a recording that failed) and their profiles let go. */
void recorder_release_slices(struct recorder *r);
/* Whether the file written now is due to be closed (--switch-output's SPEC). */
bool recorder_switch_due(const struct recorder *r, uint64_t now);
/*
 * Seals the file written now and goes on in the next; -1 once a failure
 * is said.
 */
int recorder_switch(struct recorder *r);
/*
 * Takes what the naming thread resolved into the profile (as
 * recorder_take_named), then finishes the sealed files whose frames are
 * named by now, every one with all (once naming is over); a file that
 * cannot be finished is noted (recorder_note_incomplete).
 */
void recorder_finish_sealed(struct recorder *r, bool all);
/*
 * One line naming every file noted, when there are any: each reads as
 * cut short, up to its last chunk.
 */
void recorder_say_incomplete(const struct recorder *r);

#endif
