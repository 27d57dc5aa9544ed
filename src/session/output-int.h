/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output-int.h - the session's part that writes its data files (output.c
 * alone writes it): the file written now, a chunk at a time, and with
 * --switch-output the slices: each a file of its own, made from a
 * profile of its own, sealed when its slice ends and finished once its
 * frames are named.
 */
#ifndef PERFMINI_SESSION_OUTPUT_INT_H
#define PERFMINI_SESSION_OUTPUT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/missing.h"
#include "session/session.h"
#include "store/datafile.h"
#include "store/profile.h"

struct session;

/*
 * --switch-output: a file sealed, with the profile of its slice (whose
 * frame ids the naming thread knows by gen), until its frames are named:
 * those below upto have their names, or get none while recording.
 */
struct sealed {
	struct datafile_out *out;
	struct profile *prof;
	uint32_t gen;
	size_t upto;
	/* Its unwinds (DWARF and hybrid modes, else NULL), settled once its frames have names. */
	struct stack_unwind_stats *unw;
};

struct sess_output {
	struct datafile_out *out;  /* the file written now */
	struct datafile_out *next; /* --switch-output: the next, made before the switch */
	char *next_name;
	/*
	 * What is recorded goes into prof, and with --switch-output into a
	 * new one for each slice; last is the profile of the slice before
	 * (owned here unless a sealed file still holds it), whose names a
	 * frame met again takes.
	 */
	struct profile *prof;
	struct profile *last;
	uint64_t last_flush;  /* when the last chunk went to the file */
	bool write_failed;    /* the file could not be written: said, and stopped */
	bool failed;	      /* something said stopped the recording: exit 1 */
	uint64_t slice_start; /* when the file written now was started */
	/*
	 * The session's counts when it was started (samples, lost records,
	 * lost samples, bad records): each slice's meta entries give its
	 * own, so that a merge of slices adds them up right.
	 */
	uint64_t at_start[4];
	char **slices; /* the files' names, oldest first (those removed gone) */
	size_t nslices;
	/*
	 * Files sealed (every record in them) but waiting for the names of
	 * their frames, oldest first: each is finished, and its profile let
	 * go, once every frame of it has its name or gets none while
	 * recording. What the slices finished could not name, per module
	 * sampled, for the summary.
	 */
	struct sealed *sealed;
	size_t nsealed;
	struct missing_sum missing;
	char **incomplete; /* sealed files that could not be finished, to be named */
	size_t nincomplete;
	/*
	 * Descriptors held for the files to come (of /dev/null): one is
	 * closed before each file is made, and made again once one is
	 * closed, so that a rotation never fails for lack of descriptors
	 * however many the modules and the naming thread hold.
	 */
	int spare[8];
	size_t nspare;
};

/*
 * Records to the file written now, with its next chunk: a sample, a
 * thread, an off-CPU span with its wake-up (NULL: none are recorded).
 */
void output_add_sample(struct sess_output *out, const struct pm_sample *smp);
void output_add_thread(struct sess_output *out, const struct pm_thread *t);
void output_add_span(struct sess_output *out, const struct pm_offcpu *span,
		     const struct pm_wakeup *w);

/* The first file (o's output, or its first slice's name); -1 once said. */
int output_create(struct sess_output *out, const struct record_opts *o);
void output_release(struct sess_output *out);
/*
 * What was recorded since the last chunk, to the file (all_meta: every
 * meta entry, else the counts); -1 once a write failure is said.
 */
int output_flush(struct session *s, bool all_meta);
/*
 * Whether a chunk is due: CHUNK_NS since the last (half that while the
 * file is not under its name), or CHUNK_BYTES waiting.
 */
bool output_chunk_due(const struct sess_output *out, uint64_t now);
/* When the next chunk is due by time (now_ns's clock). */
uint64_t output_chunk_at(const struct sess_output *out);
/* Whether the file written now is due to be closed (--switch-output's SPEC). */
bool output_switch_due(const struct session *s, uint64_t now);
/* When it is due by time (--switch-output=TIME), 0 when never. */
uint64_t output_switch_at(const struct session *s);
/* The file written now let go (a recording that failed): it stays as its chunks left it. */
void output_abandon(struct sess_output *out);
/* The last chunk and END; *written its size. 0, or -1 once said. */
int output_commit(struct session *s, size_t *written);
/*
 * --switch-output, first step: the next file made (under the next
 * slice's name), nothing else changed yet. 0, or -1 once said (the file
 * written now goes on, to be finished at the stop).
 */
int output_open_next(struct session *s);
/*
 * Second step, once the records of the slice are in its profile: the file
 * written now sealed (or finished, with no naming thread), the profile
 * in which the recording goes on made and returned, the one before left
 * to the sealed file (of naming generation gen), with its unwinds unw
 * (allocated, or NULL: see meta_slice_finish), settled when it is
 * finished. NULL once a failure is said.
 */
struct profile *output_seal(struct session *s, uint32_t gen, struct stack_unwind_stats *unw);
/*
 * Whether a profile the recorder still holds (the slice's now, the one
 * before, those waiting for names) names module id: has its row, and
 * not as one let go without a path (profile_new_next's).
 */
bool output_names_module(const struct session *s, uint32_t id);
/*
 * Module id, none of whose frames any profile holds, let go in the
 * profiles of the slices before (profile_module_drop): its id is to be
 * another module's, whose facts must not reach their rows.
 */
void output_drop_module(struct session *s, uint32_t id);
/*
 * Module id's counts of frames without names or lines let go, for its id
 * to be another's; false (kept) when it had such frames to be said by
 * name at the stop. *demoted: a module kept so before whose counts are
 * now said by their number alone, to be let go too (else PM_NONE); see
 * report_missing_sum_forget.
 */
bool output_forget_module(struct session *s, uint32_t id, uint32_t *demoted);
/* Last step: the next file takes the records from now on. */
void output_slice_started(struct session *s);
/*
 * Finishes the sealed files whose frames are named by now, every one
 * with all (once naming is over); a file that cannot be finished is
 * noted, for output_say_incomplete.
 */
void output_finish_sealed(struct session *s, bool all);
/* One line naming every sealed file that could not be finished, when there are any. */
void output_say_incomplete(const struct sess_output *out);

#endif
