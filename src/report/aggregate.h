/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * aggregate.h - which samples a report counts, and how they group: the one
 * place where the report filters (--pid, --tid, --comm, --time,
 * --no-kernel, --kernel-only), --merge-inline, the root frames (--per-pid,
 * --per-tid) and the key that matches a --diff's two recordings
 * (--diff-key) are applied. Every format reads its samples from here.
 *
 * Invariant: each selected sample is counted in exactly one stack of the
 * aggregate; two stacks never have the same root, frames (and, with
 * AGG_BY_THREAD, thread); samples, period are the sums over the stacks.
 */
#ifndef PERFMINI_AGGREGATE_H
#define PERFMINI_AGGREGATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "store/profile.h"
#include "util/sbuf.h"

/* Samples with identical stacks and root grouped. */
struct agg_stack {
	uint32_t root;	     /* index into roots */
	uint32_t off, depth; /* frames[off .. off + depth), leaf first */
	uint32_t pid, tid;   /* with AGG_BY_THREAD; else those of a sample */
	uint32_t comm;	     /* with AGG_BY_THREAD: the sample's thread name */
	uint32_t cgroup;     /* with AGG_BY_CGROUP: its cgroup's path; else a sample's */
	uint32_t waker;	     /* with AGG_BY_WAKER: its off-CPU spans' waker's name, 0 none */
	uint32_t pad;
	uint64_t count;	  /* samples, or what they weigh (nanoseconds, in a view of time) */
	uint64_t period;  /* the sum of their periods */
	uint64_t records; /* the samples and spans counted, whatever they weigh */
};

struct aggregate {
	char **roots; /* root frame names, as recorded (not sanitized) */
	size_t nroots;
	struct agg_stack *stacks; /* in the order of their first sample */
	size_t nstacks;
	uint32_t *frames; /* profile frame ids, after the kernel filter */
	size_t nframes;
	uint64_t samples, period; /* totals over the stacks */
	uint64_t records;	  /* the same of records */
	/* Of the off-CPU spans counted, the nanoseconds blocked and preempted. */
	uint64_t blocked_ns, preempted_ns;
	/* The same time, sleeping and runnable (see enum report_offcpu_state). */
	uint64_t sleeping_ns, runnable_ns;
};

enum agg_flags {
	/* Keep samples of different threads (pid, tid, name) apart. */
	AGG_BY_THREAD = 1 << 0,
	/* Keep samples of different cgroups apart. */
	AGG_BY_CGROUP = 1 << 1,
	/* Keep off-CPU spans woken by differently named threads apart (and from the rest). */
	AGG_BY_WAKER = 1 << 2,
};

/* Groups the samples of p that o selects. Never fails; free with aggregate_free. */
struct aggregate *aggregate_new(const struct profile *p, const struct report_opts *o,
				unsigned flags);
void aggregate_free(struct aggregate *a);

/*
 * Of off-CPU span x of p, the nanoseconds sleeping and runnable (see enum
 * report_offcpu_state); its wake-up, or NULL when none was seen.
 */
const struct pm_wakeup *aggregate_offcpu_split(const struct profile *p, const struct pm_offcpu *x,
					       uint64_t *sleeping, uint64_t *runnable);
/* Whether o selects sample s (every filter but the kernel ones). */
bool aggregate_selects(const struct report_opts *o, const struct profile *p,
		       const struct pm_sample *s);
/*
 * The frames of stack sid that the kernel filters of o keep, leaf first,
 * into frames (room for the stack's depth): their number, or -1 when
 * --kernel-only leaves none and the sample is dropped. With --merge-inline
 * (o->inlined), a frame whose call the compiler inlined elsewhere is left
 * out: it counts as its caller.
 */
int aggregate_stack_frames(const struct report_opts *o, const struct profile *p, uint32_t sid,
			   uint32_t *frames);
/*
 * Off-CPU span x (one of p's) as a sample whose period is its nanoseconds
 * in the state o selects (--off-cpu-state: the whole span, or its
 * sleeping or runnable part), into s; whether o selects it (that part is
 * not empty, and what aggregate_selects checks).
 */
bool aggregate_selects_offcpu(const struct report_opts *o, const struct profile *p,
			      const struct pm_offcpu *x, struct pm_sample *s);
/* Whether any filter of o is set. */
bool aggregate_filtered(const struct report_opts *o);
/* Appends the filters of o as options would give them: "--pid 1,2 --time 1.5,". */
void aggregate_describe(const struct report_opts *o, struct sbuf *b);

/*
 * Option parsing, for cmd-report.c and the tests; each returns 0 or
 * -EINVAL, leaving o as it was.
 *   ids:  "1,2,3" (parse_id_list's, 0 to UINT32_MAX), appended to *ids, each once
 *   comm: "a,b", appended to o->comms (names with ',' cannot be given)
 */
int aggregate_parse_ids(const char *s, uint32_t **ids, size_t *n);
int aggregate_parse_comms(const char *s, struct report_opts *o);
/*   cgroups: "PATH,PATH", appended to o->cgroups; each a path from the root, "/..." */
int aggregate_parse_cgroups(const char *s, struct report_opts *o);
/* Whether cgroup path (a sample's) is one of o->cgroups or lies below one. */
bool aggregate_cgroup_listed(const struct report_opts *o, const char *path);
/*
 * The time window, as each of its options gives it (enum
 * report_window_opt): "START,END" in seconds from the start of the
 * recording, either side may be empty ("1.5," "2,3" ",0.25"), into
 * has_start, start_ns, has_end, end_ns; or one bound as a wall-clock time
 * (@EPOCH, YYYY-MM-DD HH:MM[:SS], HH:MM[:SS] today), which
 * aggregate_place_window places in the recording.
 */
int aggregate_parse_window(const char *s, enum report_window_opt which, struct report_opts *o);
/*
 * The wall-clock bounds of o (--since, --until) made offsets from p's
 * start (its start-time, to the second); a bound before the start is 0.
 * 0 (also when there are none), or -ENOENT when p has no start time.
 */
int aggregate_place_window(struct report_opts *o, const struct profile *p);
/*
 * diff-key: "module", "thread" or both, comma-separated, into o->diff_key
 * (enum report_diff_key; any other word is -EINVAL)
 */
int aggregate_parse_diff_key(const char *s, struct report_opts *o);
/*
 * sort: "self" or "total" (o->sort), or perf report's keys, comma-
 * separated: comm, pid, tid, cgroup, module (or dso), symbol (or sym), into
 * o->row_keys (enum report_row_key)
 */
int aggregate_parse_sort(const char *s, struct report_opts *o);

/*
 * Makes what --diff's key and --merge-inline say of o, once p (the
 * recording reported) and o->base (NULL without --diff) are read; every
 * report with either goes through it before its format. A --diff whose
 * key leaves the thread out has no root frame (REPORT_ROOT_NONE), so that
 * two programs' stacks match whatever their threads are called; one keyed
 * on modules names frames "MODULE`FUNCTION"; --merge-inline names no
 * inlined level (no_inline) and drops the frames of calls that either
 * recording inlines (aggregate_stack_frames).
 */
void aggregate_prepare(struct report_opts *o, const struct profile *p);
/*
 * What --diff's key makes of o alone (aggregate_prepare's first part): the
 * root frame and the frames' names, for o->base (NULL: none) as it is.
 */
void aggregate_diff_key(struct report_opts *o);
/* Frees what the parsers and aggregate_prepare allocated in o. */
void aggregate_opts_release(struct report_opts *o);

#endif
