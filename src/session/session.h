/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * session.h - a recording session, the engine of 'perfmini record': open
 * the events, drain the rings while the targets run, apply the records in
 * time order to the process model, make each sample's stack, name frames
 * while recording, and write the data file (in slices with
 * --switch-output); at the stop, name the rest and finish the files.
 *
 * Invariant: a sample is normalized against the mappings live at its
 * timestamp, because records from every CPU pass through one queue
 * ordered by time before they are applied.
 *
 * The session speaks to the user through util/msg.h (one line for what
 * stops it, warnings for what it lacks) and prints the summary it is
 * asked for; cmd/ parses the options, handles the signals and calls, in
 * order: session_new, session_start, session_run, session_stop, then
 * session_print_summary and session_free. Only the recording thread
 * calls these; the session's naming thread is its own.
 */
#ifndef PERFMINI_SESSION_H
#define PERFMINI_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture/decode.h"
#include "capture/event.h"
#include "store/profile.h"

struct record_opts {
	uint32_t *pids; /* -p */
	size_t npids;
	uint32_t *tids; /* -t */
	size_t ntids;
	bool system_wide;    /* -a */
	const char *cpulist; /* -C, NULL for all */
	char **argv;	     /* the command to run, NULL when attaching */
	/* its standard input and output /dev/null: a full-screen view (top) owns the terminal */
	bool command_detached;
	/*
	 * A live view (top) shows the profile while it is recorded: the
	 * kernel's symbols are read before the sampling starts, as for -a,
	 * and the naming thread has a live view's ration (namer_start).
	 */
	bool live_view;
	struct event_opts ev;
	const char *output;
	double duration; /* seconds, 0 for no limit */
	bool quiet;
	unsigned mmap_pages;	 /* data pages per ring, a power of two */
	bool pages_given;	 /* by -m, not the default */
	const char **debug_dirs; /* --debug-dir */
	size_t ndebug_dirs;
	bool no_lines;		 /* --no-lines */
	uint64_t max_memory;	 /* --max-memory: bytes, 0 for no budget (util/memlevel.h) */
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

struct session;

/*
 * A session of o (which must outlive it), its output created first of
 * all, so that a bad output is said before anything runs and has its
 * descriptor whatever the limit. NULL after saying why.
 */
struct session *session_new(const struct record_opts *o);
/*
 * Starts what is to be recorded: the command (stopped before its exec),
 * the events, the clock; then lets the command run. 0, or -1 once said.
 */
int session_start(struct session *s);
/* How session_run runs, and when it returns. */
struct session_run {
	const volatile sig_atomic_t *stop; /* set (by a signal): the recording stops */
	/*
	 * Polled with the rings (-1: none): a byte written to wake_fd's
	 * other end (a signal handler's) wakes the loop, and is read empty
	 * here; input_fd readable (a key pressed) returns to the caller,
	 * unread.
	 */
	int wake_fd, input_fd;
	uint64_t until; /* now_ns() time to return at, for a caller that draws (0: none) */
	bool status;	/* the status line, four times a second (session_status_wanted) */
};

/*
 * Drains and applies until *stop, -d, the targets' end, or an output
 * that cannot be written: then false, the recording over; or, true,
 * until run->until or run->input_fd, to be called again.
 */
bool session_run(struct session *s, const struct session_run *run);
/*
 * A live view's hook (perfmini top): fn hears of every CPU sample as it
 * is applied, as it goes to the file (its stack an id of the profile
 * session_profile gives), on the recording thread.
 */
typedef void (*session_sample_fn)(const struct pm_sample *smp, void *arg);
void session_on_sample(struct session *s, session_sample_fn fn, void *arg);
/*
 * The profile the recording goes into now: its strings, modules (every
 * one its frames refer to), frames with the names found so far, stacks.
 * Read-only, until the next call of the session's.
 */
const struct profile *session_profile(struct session *s);
/* When -d ends the recording, in now_ns's time; 0 without -d (or before the start). */
uint64_t session_deadline(const struct session *s);
/*
 * The stop: the events disabled, every record applied, frames named (a
 * set *interrupt cuts the naming short), the files finished; *written
 * gets the last file's size. 0, or -1 once said (the exit status is
 * then 1).
 */
int session_stop(struct session *s, const volatile sig_atomic_t *interrupt, size_t *written);
/* The status line on stderr, when session_status_wanted. */
bool session_status_wanted(const struct session *s);
void session_status_line(const struct session *s);
/* The summary on stderr: samples, file, what has no name, unwinding, losses. */
void session_print_summary(const struct session *s, size_t written);
/*
 * Whether naming was cut short at the stop: the naming thread may still
 * be inside libdw, so the process must end without tearing the session
 * down (session_free must not be called).
 */
bool session_cut_short(const struct session *s);
/* Asks a command still running to stop (after -d or a signal), once the file is safe. */
void session_stop_command(struct session *s);
void session_free(struct session *s);

/*
 * For the engine's tests: a session of o that opens no events and starts
 * nothing, its output created as session_new does, fed whole perf records
 * (their layout as the events would have made them) by session_feed;
 * session_stop then writes the file. The model is not live: nothing is
 * read from /proc.
 */
struct session *session_new_offline(const struct record_opts *o,
				    const struct decode_layout *layout);
void session_feed(struct session *s, const void *rec, size_t len);

#endif
