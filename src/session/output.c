/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-write.c - the data file as the recording goes: a chunk of what
 * was recorded since the last (recorder_flush), and with --switch-output
 * a new file at each interval or size, each file complete; see
 * recorder-int.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/recorder-int.h"
#include "store/datafile.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/sbuf.h"

/*
 * What was recorded since the last chunk, to the file: the modules met
 * (their names; build-ids and reasons come at the end), the counts. A
 * file that cannot be written (a full disk) is said once and stops the
 * recording: the file keeps the chunks written before. -1 then.
 */
int recorder_flush(struct recorder *r, bool all_meta)
{
	char err[512];

	if (r->write_failed)
		return -1;
	symbolize_modules(r->prof, &r->syms, false);
	if (all_meta)
		recorder_write_meta(r);
	else
		recorder_progress_meta(r);
	r->last_flush = now_ns();
	if (datafile_flush(&r->out, r->prof, err, sizeof(err)) < 0) {
		error("%s", err);
		r->write_failed = true;
		return -1;
	}
	return 0;
}

/*
 * Sealed files waiting for names, at most: past it the oldest is finished
 * with the names it has (a module whose naming waits long: a slow
 * debuginfod server, a machine too busy to read it).
 */
#define SEALED_MAX 4

/*
 * Whether frame i of sealed file s has its name, or gets none while
 * recording (anonymous memory never has one).
 */
static bool frame_settled(const struct recorder *r, const struct sealed *s, size_t i)
{
	const struct pm_frame *f = &s->prof->frames[i];
	enum module_kind kind;

	if (f->nlines || f->module == PM_NONE || f->module >= r->mods.n)
		return true;
	kind = r->mods.mods[f->module]->kind;
	if (kind != MODULE_FILE && kind != MODULE_VDSO && kind != MODULE_KERNEL &&
	    kind != MODULE_PERFMAP)
		return true;
	return recorder_resolved(&s->res, (uint32_t)i);
}

/* What profile p could not name, into the recording's counts for the summary. */
static void count_missing(struct recorder *r, const struct profile *p)
{
	struct missing *m = report_missing_count(p);

	report_missing_add(&r->missing_sum, &r->nmissing_sum, m, p->nmodules);
	free(m);
}

/* Whether a sealed file holds profile p. */
static bool sealed_holds(const struct recorder *r, const struct profile *p)
{
	for (size_t k = 0; k < r->nsealed; k++)
		if (r->sealed[k].prof == p)
			return true;
	return false;
}

/* Sealed file k let go, its profile with it unless it is the last slice's. */
static void drop_slice(struct recorder *r, size_t k)
{
	if (r->sealed[k].prof != r->last)
		profile_free(r->sealed[k].prof);
	free(r->sealed[k].res.b);
	memmove(r->sealed + k, r->sealed + k + 1, (--r->nsealed - k) * sizeof(*r->sealed));
}

/* A sealed file that could not be finished (its path copied), for recorder_say_incomplete. */
static void note_incomplete(struct recorder *r, const char *path)
{
	r->incomplete = xrealloc(r->incomplete, (r->nincomplete + 1) * sizeof(*r->incomplete));
	r->incomplete[r->nincomplete++] = xstrdup(path);
}

void recorder_say_incomplete(const struct recorder *r)
{
	struct sbuf b = SBUF_INIT;

	if (!r->nincomplete)
		return;
	for (size_t i = 0; i < r->nincomplete; i++)
		sbuf_addf(&b, "%s'%s'", i ? ", " : "", r->incomplete[i]);
	error("could not finish %s: each reads as cut short, up to its last chunk", b.buf);
	sbuf_release(&b);
}

/* Sealed file k finished, and let go; noted when it cannot be. */
static void finish_sealed(struct recorder *r, size_t k)
{
	char err[512];
	char *path = xstrdup(r->sealed[k].out.file.path);

	if (datafile_commit_names(&r->sealed[k].out, r->sealed[k].prof, err, sizeof(err)) < 0)
		note_incomplete(r, path);
	free(path);
	count_missing(r, r->sealed[k].prof);
	drop_slice(r, k);
}

void recorder_finish_sealed(struct recorder *r, bool all)
{
	recorder_take_named(r);
	for (size_t k = 0; k < r->nsealed;) {
		struct sealed *s = &r->sealed[k];

		while (s->upto < s->prof->nframes && frame_settled(r, s, s->upto))
			s->upto++;
		if (all)
			recorder_name_sealed(r, s);
		if (all || s->upto == s->prof->nframes)
			finish_sealed(r, k);
		else
			k++;
	}
}

/* A sealed file removed by --switch-max-files: it is not finished. */
static void drop_sealed(struct recorder *r, const char *path)
{
	for (size_t k = 0; k < r->nsealed; k++) {
		if (strcmp(r->sealed[k].out.file.path, path))
			continue;
		datafile_abandon(&r->sealed[k].out);
		drop_slice(r, k);
		return;
	}
}

/*
 * --switch-output: the name of a data file started now,
 * OUTPUT.YYYYMMDDhhmmssSSS in local time (as perf names them), made
 * unique should the last one have the same.
 */
char *recorder_slice_name(const struct recorder *r)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	char *name;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	name = xasprintf("%s.%s%03ld", r->o->output, stamp, ts.tv_nsec / 1000000);
	for (unsigned k = 1; r->nslices && !strcmp(name, r->slices[r->nslices - 1]); k++) {
		free(name);
		name = xasprintf("%s.%s%03ld-%u", r->o->output, stamp, ts.tv_nsec / 1000000, k);
	}
	return name;
}

/* A data file started: its name kept; the oldest removed past --switch-max-files. */
void recorder_slice_started(struct recorder *r, char *name)
{
	char ns[32];

	r->slices = xrealloc(r->slices, (r->nslices + 1) * sizeof(*r->slices));
	r->slices[r->nslices++] = name;
	r->slice_start = now_ns();
	snprintf(ns, sizeof(ns), "%llu",
		 (unsigned long long)(r->slice_start > r->start_ns ? r->slice_start - r->start_ns
								   : 0));
	profile_set_meta(r->prof, "slice-start-ns", ns);
	while (r->o->switch_max_files && r->nslices > r->o->switch_max_files) {
		drop_sealed(r, r->slices[0]);
		if (unlink(r->slices[0]) < 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", r->slices[0], strerror(errno));
		free(r->slices[0]);
		memmove(r->slices, r->slices + 1, --r->nslices * sizeof(*r->slices));
	}
}

/* The profile of the slice before, while what refers to it moves to the next. */
struct carry {
	struct recorder *r;
	const struct profile *from;
};

/* An id an open off-CPU span holds, moved to the next slice's profile. */
static void carry_span_id(uint32_t *id, bool is_stack, void *arg)
{
	struct carry *c = arg;

	*id = is_stack ? stacker_carry_stack(&c->r->stk, c->from, *id)
		       : strtab_add(&c->r->prof->str, strtab_get(&c->from->str, *id));
}

/* The string ids a thread keeps, moved to the next slice's profile. */
static void carry_thread_ids(struct thread *t, void *arg)
{
	struct carry *c = arg;

	t->comm_id = 0; /* made again from its name when next needed */
	if (t->cgroup_known && t->cgroup_path)
		t->cgroup_path =
			strtab_add(&c->r->prof->str, strtab_get(&c->from->str, t->cgroup_path));
}

/*
 * The next slice gets a profile of its own (the modules carried over), so
 * that the recorder holds the stacks, frames and names of the slices not
 * finished yet, not of the whole recording: what still refers to the one
 * before (the spans of threads off the CPU now, the threads' names, the
 * unwinds judged at the stop) moves to it, frames named anew. Returns the
 * profile before, with its resolved frames in *res.
 */
static struct profile *next_profile(struct recorder *r, struct resolved *res)
{
	struct profile *before = r->prof;
	struct carry c = {r, before};

	if (r->last && !sealed_holds(r, r->last))
		profile_free(r->last);
	r->last = before;
	*res = r->res;
	r->res = (struct resolved){0};
	r->prof = profile_new_next(before);
	r->gen++;
	stacker_switch_profile(&r->stk, r->prof);
	offcpu_each_open(&r->offcpu, carry_span_id, &c);
	model_each_thread(&r->model, carry_thread_ids, &c);
	return before;
}

/*
 * --switch-output: every record of the file written now goes to it, and
 * the recording goes on in a new one, self-contained, from a profile of
 * its own (next_profile). The file left is finished (the names of its
 * frames, END) once they are named (recorder_finish_sealed), at once
 * when no thread names them while recording. -1 (said) when either
 * cannot be written.
 */
int recorder_switch(struct recorder *r)
{
	struct datafile_out next;
	char *name = recorder_slice_name(r), err[512];
	struct profile *before;
	struct resolved res;
	int ret;

	if (datafile_create(&next, name, OUTFILE_NEW, err, sizeof(err)) < 0) {
		/* The stop finishes the file written now: it is not lost with the next. */
		error("%s", err);
		free(name);
		r->failed = true;
		return -1;
	}
	datafile_own_tables(&next);
	/* The modules met since the last chunk, which new frames refer to. */
	symbolize_modules(r->prof, &r->syms, false);
	recorder_take_named(r);
	recorder_add_threads(r);
	recorder_write_meta(r);
	if (r->namer)
		ret = datafile_seal(&r->out, r->prof, err, sizeof(err));
	else
		ret = datafile_commit(&r->out, r->prof, NULL, err, sizeof(err));
	if (ret < 0) {
		error("%s", err);
		datafile_abandon(&r->out);
		datafile_abandon(&next);
		free(name);
		r->write_failed = true;
		return -1;
	}
	before = next_profile(r, &res);
	if (r->namer) {
		if (r->nsealed == SEALED_MAX)
			finish_sealed(r, 0);
		r->sealed = xrealloc(r->sealed, (r->nsealed + 1) * sizeof(*r->sealed));
		r->sealed[r->nsealed++] = (struct sealed){r->out, before, r->gen - 1, res, 0};
		recorder_name_jit(r, &r->sealed[r->nsealed - 1]);
	} else {
		count_missing(r, before);
		free(res.b);
	}
	r->out = next;
	recorder_slice_started(r, name);
	return recorder_flush(r, true);
}

/* Whether the file written now is to be closed and the next one started. */
bool recorder_switch_due(const struct recorder *r, uint64_t now)
{
	const struct record_opts *o = r->o;

	return (o->switch_ns && now - r->slice_start >= o->switch_ns) ||
	       (o->switch_bytes && r->out.bytes + datafile_pending(&r->out) >= o->switch_bytes);
}

void recorder_release_slices(struct recorder *r)
{
	for (size_t i = 0; i < r->nslices; i++)
		free(r->slices[i]);
	free(r->slices);
	while (r->nsealed) {
		datafile_abandon(&r->sealed[r->nsealed - 1].out);
		drop_slice(r, r->nsealed - 1);
	}
	profile_free(r->last);
	free(r->sealed);
	free(r->missing_sum);
	for (size_t i = 0; i < r->nincomplete; i++)
		free(r->incomplete[i]);
	free(r->incomplete);
}
