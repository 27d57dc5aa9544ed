/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * output.c - the data file as the recording goes: a chunk of what was
 * recorded since the last (output_flush), and with --switch-output a new
 * file at each interval or size, each file complete; see output-int.h.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "session/session-int.h"
#include "store/datafile.h"
#include "symbol/namer.h"
#include "symbol/symbolize.h"
#include "util/alloc.h"
#include "util/clock.h"
#include "util/msg.h"
#include "util/sbuf.h"

/*
 * Sealed files waiting for names, at most: past it the oldest is finished
 * with the names it has (a module whose naming waits long: a slow
 * debuginfod server, a machine too busy to read it).
 */
#define SEALED_MAX 4
/*
 * Once this many wait, their names are owed: the naming thread is no
 * longer rationed (namer_hurry) until fewer wait, rather than leave the
 * oldest to be finished without them.
 */
#define SEALED_HURRY 2

/*
 * --switch-output: the name of a data file started now,
 * OUTPUT.YYYYMMDDhhmmssSSS in local time (as perf names them), made
 * unique should the last one have the same.
 */
static char *slice_name(const struct sess_output *out, const char *output)
{
	struct timespec ts;
	struct tm tm;
	char stamp[32];
	char *name;

	clock_gettime(CLOCK_REALTIME, &ts);
	localtime_r(&ts.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d%H%M%S", &tm);
	name = xasprintf("%s.%s%03ld", output, stamp, ts.tv_nsec / 1000000);
	for (unsigned k = 1; out->nslices && !strcmp(name, out->slices[out->nslices - 1]); k++) {
		free(name);
		name = xasprintf("%s.%s%03ld-%u", output, stamp, ts.tv_nsec / 1000000, k);
	}
	return name;
}

/* The spare descriptors made up to as many files as may be open at once (SEALED_MAX + 2). */
static void spares_fill(struct sess_output *out)
{
	_Static_assert(SEALED_MAX + 2 <= sizeof(out->spare) / sizeof(out->spare[0]),
		       "a spare for every file");
	while (out->nspare < SEALED_MAX + 2) {
		int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return;
		out->spare[out->nspare++] = fd;
	}
}

/* A spare given back, for a file about to be made. */
static void spare_take(struct sess_output *out)
{
	if (out->nspare)
		close(out->spare[--out->nspare]);
}

int output_create(struct sess_output *out, const struct record_opts *o)
{
	bool sliced = o->switch_ns || o->switch_bytes;
	char err[512];

	memset(out, 0, sizeof(*out));
	out->next_name = sliced ? slice_name(out, o->output) : NULL;
	if (datafile_create(&out->out, sliced ? out->next_name : o->output,
			    sliced ? OUTFILE_NEW : 0, err, sizeof(err)) < 0) {
		error("%s", err);
		free(out->next_name);
		out->next_name = NULL;
		return -1;
	}
	/* Each file only the stacks its own records use: a slice holds its own. */
	datafile_own_tables(out->out, 0, 0);
	out->prof = profile_new();
	if (sliced)
		spares_fill(out);
	return 0;
}

/*
 * The records of the file written now. After a seal that failed there is
 * none (the file was let go): the records the stop still applies go
 * nowhere.
 */
void output_add_sample(struct sess_output *out, const struct pm_sample *smp)
{
	if (out->out)
		datafile_add_sample(out->out, smp);
	profile_count_sample(out->prof, smp->stack);
}

void output_add_thread(struct sess_output *out, const struct pm_thread *t)
{
	if (out->out)
		datafile_add_thread(out->out, t);
}

void output_add_span(struct sess_output *out, const struct pm_offcpu *span,
		     const struct pm_wakeup *w)
{
	if (!out->out)
		return;
	datafile_add_offcpu(out->out, span);
	if (w)
		datafile_add_wakeup(out->out, w);
}

/*
 * A file that cannot be written (a full disk) is said once and stops the
 * recording: the file keeps the chunks written before.
 */
int output_flush(struct session *s, bool all_meta)
{
	struct sess_output *out = &s->out;
	char err[512];

	if (out->write_failed)
		return -1;
	naming_add_modules(s);
	if (all_meta)
		meta_write(s);
	else
		meta_progress(s);
	out->last_flush = now_ns();
	if (datafile_flush(out->out, out->prof, err, sizeof(err)) < 0) {
		error("%s", err);
		out->write_failed = true;
		return -1;
	}
	return 0;
}

/*
 * A chunk goes to the file this often (the rounds wait no longer:
 * output_chunk_at), or when this much waits for it. A file not yet under
 * its name gets its first chunk within half that: a recorder killed in
 * its first half second leaves an older file of the name whole, and one
 * killed later a file of its own.
 */
#define CHUNK_NS    1000000000ULL
#define CHUNK_BYTES (1024 * 1024)

static uint64_t chunk_ns(const struct sess_output *out)
{
	return datafile_named(out->out) ? CHUNK_NS : CHUNK_NS / 2;
}

uint64_t output_chunk_at(const struct sess_output *out)
{
	return out->last_flush + chunk_ns(out);
}

bool output_chunk_due(const struct sess_output *out, uint64_t now)
{
	return now - out->last_flush >= chunk_ns(out) || datafile_pending(out->out) >= CHUNK_BYTES;
}

uint64_t output_switch_at(const struct session *s)
{
	return s->o->switch_ns ? s->out.slice_start + s->o->switch_ns : 0;
}

bool output_switch_due(const struct session *s, uint64_t now)
{
	const struct record_opts *o = s->o;
	const struct sess_output *out = &s->out;

	return (o->switch_ns && now - out->slice_start >= o->switch_ns) ||
	       (o->switch_bytes &&
		datafile_written(out->out) + datafile_pending(out->out) >= o->switch_bytes);
}

void output_abandon(struct sess_output *out)
{
	datafile_abandon(&out->out);
}

int output_commit(struct session *s, size_t *written)
{
	char err[512];
	int ret = datafile_commit(&s->out.out, s->out.prof, written, err, sizeof(err));

	if (ret < 0)
		error("%s", err);
	return ret < 0 ? -1 : 0;
}

/*
 * Whether frame i of sealed file sf has its name, or gets none while
 * recording (anonymous memory never has one).
 */
static bool frame_settled(const struct session *s, const struct sealed *sf, size_t i)
{
	const struct pm_frame *f = &sf->prof->frames[i];
	enum module_kind kind;

	if (f->nlines || f->module == PM_NONE || f->module >= s->mods.n)
		return true;
	kind = s->mods.mods[f->module]->kind;
	if (kind != MODULE_FILE && kind != MODULE_VDSO && kind != MODULE_KERNEL &&
	    kind != MODULE_PERFMAP)
		return true;
	return naming_resolved(&s->nm, sf->gen, (uint32_t)i);
}

/* What profile p could not name, into the recording's counts for the summary. */
static void count_missing(struct sess_output *out, const struct profile *p)
{
	struct missing *m = report_missing_count(p);

	report_missing_sum_add(&out->missing, m, p->nmodules);
	free(m);
}

/* Whether a sealed file holds profile p. */
static bool sealed_holds(const struct sess_output *out, const struct profile *p)
{
	for (size_t k = 0; k < out->nsealed; k++)
		if (out->sealed[k].prof == p)
			return true;
	return false;
}

/* The naming thread told whether the sealed files waiting are owed their names now. */
static void hurry_naming(struct session *s)
{
	if (s->nm.namer)
		namer_hurry(s->nm.namer, s->out.nsealed >= SEALED_HURRY);
}

/*
 * Whether the next slice keeps what is known of module id (profile_new_next):
 * not once it was let go for no process mapping it (retire.c), which a
 * machine that runs new programs all the time does thousands of times.
 */
static bool module_kept(uint32_t id, void *arg)
{
	const struct session *s = arg;

	return id >= s->mods.n || !s->mods.mods[id]->retired;
}

/*
 * Sealed file k let go, its profile with it. Of the last slice's, only
 * what the slice after takes names from stays: the named frames of the
 * modules still mapped (in a storm of short-lived programs, about 40% of
 * its frames are of programs gone, and nearly all its segments).
 */
static void drop_slice(struct session *s, size_t k)
{
	struct sess_output *out = &s->out;

	if (out->sealed[k].prof == out->last)
		out->last = profile_carry(out->last, module_kept, s);
	profile_free(out->sealed[k].prof);
	/* A slice removed unfinished (--switch-max-files): its unwinds are not counted. */
	unwind_stats_free(out->sealed[k].unw);
	naming_forget(&s->nm, out->sealed[k].gen);
	memmove(out->sealed + k, out->sealed + k + 1, (--out->nsealed - k) * sizeof(*out->sealed));
	hurry_naming(s);
}

/* A sealed file that could not be finished (its path copied), for output_say_incomplete. */
static void note_incomplete(struct sess_output *out, const char *path)
{
	out->incomplete =
		xrealloc(out->incomplete, (out->nincomplete + 1) * sizeof(*out->incomplete));
	out->incomplete[out->nincomplete++] = xstrdup(path);
}

void output_say_incomplete(const struct sess_output *out)
{
	struct sbuf b = SBUF_INIT;

	if (!out->nincomplete)
		return;
	for (size_t i = 0; i < out->nincomplete; i++)
		sbuf_addf(&b, "%s'%s'", i ? ", " : "", out->incomplete[i]);
	error("could not finish %s: each reads as cut short, up to its last chunk", b.buf);
	sbuf_release(&b);
}

/* Sealed file k finished, and let go; noted when it cannot be. */
static void finish_sealed(struct session *s, size_t k)
{
	struct sess_output *out = &s->out;
	char err[512];
	char *path = xstrdup(datafile_path(out->sealed[k].out));

	meta_slice_finish(s, out->sealed[k].prof, out->sealed[k].unw);
	out->sealed[k].unw = NULL;
	if (datafile_commit_names(&out->sealed[k].out, out->sealed[k].prof, err, sizeof(err)) < 0)
		note_incomplete(out, path);
	free(path);
	count_missing(out, out->sealed[k].prof);
	drop_slice(s, k);
	spares_fill(out);
}

void output_finish_sealed(struct session *s, bool all)
{
	struct sess_output *out = &s->out;

	naming_take(s);
	for (size_t k = 0; k < out->nsealed;) {
		struct sealed *sf = &out->sealed[k];

		while (sf->upto < sf->prof->nframes && frame_settled(s, sf, sf->upto))
			sf->upto++;
		if (all)
			naming_name_sealed(s, sf->prof, sf->gen);
		if (all || sf->upto == sf->prof->nframes)
			finish_sealed(s, k);
		else
			k++;
	}
}

/* A sealed file removed by --switch-max-files: it is not finished. */
static void drop_sealed(struct session *s, const char *path)
{
	struct sess_output *out = &s->out;

	for (size_t k = 0; k < out->nsealed; k++) {
		if (strcmp(datafile_path(out->sealed[k].out), path))
			continue;
		datafile_abandon(&out->sealed[k].out);
		drop_slice(s, k);
		spares_fill(out);
		return;
	}
}

void output_slice_started(struct session *s)
{
	struct sess_output *out = &s->out;
	const struct record_opts *o = s->o;
	char ns[32];

	if (!out->next_name)
		return;
	out->slices = xrealloc(out->slices, (out->nslices + 1) * sizeof(*out->slices));
	out->slices[out->nslices++] = out->next_name;
	out->next_name = NULL;
	out->slice_start = now_ns();
	out->at_start[0] = s->nsamples;
	out->at_start[1] = s->lost;
	out->at_start[2] = s->lost_samples;
	out->at_start[3] = s->bad_records;
	snprintf(ns, sizeof(ns), "%llu",
		 (unsigned long long)(out->slice_start > s->start_ns
					      ? out->slice_start - s->start_ns
					      : 0));
	profile_set_meta(out->prof, "slice-start-ns", ns);
	while (o->switch_max_files && out->nslices > o->switch_max_files) {
		drop_sealed(s, out->slices[0]);
		if (unlink(out->slices[0]) < 0 && errno != ENOENT)
			warning("cannot remove '%s': %s", out->slices[0], strerror(errno));
		free(out->slices[0]);
		memmove(out->slices, out->slices + 1, --out->nslices * sizeof(*out->slices));
	}
}

int output_open_next(struct session *s)
{
	struct sess_output *out = &s->out;
	char err[512];

	out->next_name = slice_name(out, s->o->output);
	spare_take(out);
	if (datafile_create(&out->next, out->next_name, OUTFILE_NEW, err, sizeof(err)) < 0) {
		/* The stop finishes the file written now: it is not lost with the next. */
		error("%s", err);
		free(out->next_name);
		out->next_name = NULL;
		out->failed = true;
		return -1;
	}
	/* Its numbering has room for a slice like this one. */
	datafile_own_tables(out->next, out->prof->nframes, out->prof->nstacks);
	return 0;
}

static bool names_module(const struct profile *p, uint32_t id)
{
	return p && id < p->nmodules && (!profile_module_dropped(p, id) || p->modules[id].path);
}

bool output_names_module(const struct session *s, uint32_t id)
{
	const struct sess_output *out = &s->out;
	bool names = names_module(out->prof, id) || names_module(out->last, id);

	for (size_t i = 0; !names && i < out->nsealed; i++)
		names = names_module(out->sealed[i].prof, id);
	return names;
}

void output_drop_module(struct session *s, uint32_t id)
{
	struct sess_output *out = &s->out;

	if (out->last)
		profile_module_drop(out->last, id);
	for (size_t i = 0; i < out->nsealed; i++)
		profile_module_drop(out->sealed[i].prof, id);
}

bool output_forget_module(struct session *s, uint32_t id, uint32_t *demoted)
{
	return report_missing_sum_forget(&s->out.missing, id, demoted);
}

/*
 * The file written now sealed, or finished at once when no thread names
 * frames while recording: every record of it goes to it now. Its
 * profile, and the next slice's made from it (the modules carried over),
 * so that the recorder holds the stacks, frames and names of the slices
 * not finished yet, not of the whole recording.
 */
struct profile *output_seal(struct session *s, uint32_t gen, struct stack_unwind_stats *unw)
{
	struct sess_output *out = &s->out;
	struct profile *before = out->prof;
	char err[512];
	int ret;

	if (s->nm.namer) {
		ret = datafile_seal(out->out, before, err, sizeof(err));
	} else {
		meta_slice_finish(s, before, unw);
		unw = NULL;
		ret = datafile_commit(&out->out, before, NULL, err, sizeof(err));
	}
	if (ret < 0) {
		unwind_stats_free(unw);
		error("%s", err);
		datafile_abandon(&out->out);
		datafile_abandon(&out->next);
		free(out->next_name);
		out->next_name = NULL;
		out->write_failed = true;
		return NULL;
	}
	if (out->last && !sealed_holds(out, out->last))
		profile_free(out->last);
	out->last = before;
	out->prof = profile_new_next(before, module_kept, s);
	if (s->nm.namer) {
		if (out->nsealed == SEALED_MAX)
			finish_sealed(s, 0);
		out->sealed = xrealloc(out->sealed, (out->nsealed + 1) * sizeof(*out->sealed));
		out->sealed[out->nsealed++] = (struct sealed){out->out, before, gen, 0, unw};
		hurry_naming(s);
	} else {
		count_missing(out, before);
	}
	out->out = out->next;
	out->next = NULL;
	/* Without a naming thread the file before is finished: its descriptor is free again. */
	if (!s->nm.namer)
		spares_fill(out);
	return out->prof;
}

void output_release(struct sess_output *out)
{
	datafile_abandon(&out->out);
	datafile_abandon(&out->next);
	for (size_t i = 0; i < out->nslices; i++)
		free(out->slices[i]);
	free(out->slices);
	while (out->nsealed) {
		struct sealed *sf = &out->sealed[--out->nsealed];

		datafile_abandon(&sf->out);
		if (sf->prof != out->last)
			profile_free(sf->prof);
		unwind_stats_free(sf->unw);
	}
	profile_free(out->last);
	profile_free(out->prof);
	free(out->sealed);
	report_missing_sum_release(&out->missing);
	free(out->next_name);
	for (size_t i = 0; i < out->nincomplete; i++)
		free(out->incomplete[i]);
	free(out->incomplete);
	while (out->nspare)
		close(out->spare[--out->nspare]);
}
