/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * writer.c - a data file written as a recording goes, a chunk at a time
 * (version 3): unnamed until its first chunk that holds a sample (or its
 * end), then under its name, read at every moment as what its chunks
 * hold. Its state (struct datafile_out, codec-int.h) is made here and
 * ended here; nothing outside store/ sees it. See datafile.h.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "store/codec-int.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"
#include "util/io.h"

int datafile_create(struct datafile_out **outp, const char *path, int flags, char *err,
		    size_t errlen)
{
	struct datafile_out *out = xcalloc(1, sizeof(*out));
	const char *why;
	int ret;

	*outp = NULL;
	sbuf_init(&out->samples.recs);
	sbuf_init(&out->threads.recs);
	sbuf_init(&out->offcpu.recs);
	sbuf_init(&out->wakeups.recs);
	ret = outfile_open(&out->file, path, 0600, flags, &why);
	if (ret < 0) {
		snprintf(err, errlen, "cannot create '%s': %s", path, why ? why : strerror(-ret));
		free(out);
		return ret;
	}
	out->sum = crc32(0L, Z_NULL, 0);
	*outp = out;
	return 0;
}

void datafile_own_tables(struct datafile_out *out, size_t frames, size_t stacks)
{
	out->own_tables = true;
	out->stack_ids = out->frame_ids = NULL;
	out->stack_ids_cap = out->frame_ids_cap = 0;
	if (frames)
		xgrow_zero(&out->frame_ids, &out->frame_ids_cap, frames, sizeof(*out->frame_ids));
	if (stacks)
		xgrow_zero(&out->stack_ids, &out->stack_ids_cap, stacks, sizeof(*out->stack_ids));
}

/* The numbering of own_tables, kept from the seal to the names. */
static void release_own(struct datafile_out *out)
{
	if (!out->own_tables)
		return;
	free(out->stack_ids);
	free(out->frame_ids);
	out->stack_ids = out->frame_ids = NULL;
	out->stack_ids_cap = out->frame_ids_cap = 0;
	free(out->stack_of);
	free(out->frame_of);
	free(out->frame_line0);
	free(out->frame_nlines);
	out->stack_of = out->frame_of = out->frame_line0 = out->frame_nlines = NULL;
	out->own_tables = false;
}

/* Profile stack id as the file numbers it (own_tables), given a number at its first use. */
static uint32_t file_stack(struct datafile_out *out, uint32_t stack)
{
	if (!out->own_tables || stack == PM_NONE)
		return stack;
	if (stack >= out->stack_ids_cap)
		xgrow_zero(&out->stack_ids, &out->stack_ids_cap, (size_t)stack + 1,
			   sizeof(*out->stack_ids));
	if (!out->stack_ids[stack]) {
		xgrow(&out->stack_of, &out->stack_of_cap, out->nstack_of + 1,
		      sizeof(*out->stack_of));
		out->stack_of[out->nstack_of++] = stack;
		out->stack_ids[stack] = (uint32_t)out->nstack_of;
	}
	return out->stack_ids[stack] - 1;
}

/* Room for one more record of size bytes in pa, counted in: the caller writes it. */
static unsigned char *pending_reserve(struct df_pending *pa, size_t size)
{
	size_t at = pa->recs.len;

	sbuf_grow(&pa->recs, size);
	sbuf_setlen(&pa->recs, at + size);
	return (unsigned char *)pa->recs.buf + at;
}

/*
 * A sample record as the samples section's descriptor lays it out,
 * written directly: this runs for every sample taken. check_profile
 * compares it with the descriptor's encoding.
 */
void datafile_add_sample(struct datafile_out *out, const struct pm_sample *smp)
{
	unsigned char *rec = pending_reserve(&out->samples, DF_SAMPLE_RECORD);

	put_le64(rec, smp->time);
	put_le64(rec + 8, smp->period);
	put_le32(rec + 16, smp->pid);
	put_le32(rec + 20, smp->tid);
	put_le32(rec + 24, smp->cpu);
	put_le32(rec + 28, file_stack(out, smp->stack));
	put_le32(rec + 32, smp->comm);
	put_le32(rec + 36, smp->cgroup);
	_Static_assert(36 + 4 == DF_SAMPLE_RECORD, "every byte of the record written");
	if (smp->time > out->last_time)
		out->last_time = smp->time;
}

/* Record 0 of one's section type, to pa. */
static void pending_record(struct df_pending *pa, const struct profile *one, uint32_t type)
{
	const struct df_section *sec = df_section_of(type);
	struct df_out o;

	o = (struct df_out){.buf = pending_reserve(pa, df_rec_size(sec)), .cap = df_rec_size(sec)};
	df_put_record(&o, one, sec, 0);
}

void datafile_add_thread(struct datafile_out *out, const struct pm_thread *t)
{
	const struct profile one = {.threads = (struct pm_thread *)(uintptr_t)t, .nthreads = 1};

	pending_record(&out->threads, &one, DF_THREADS);
}

void datafile_add_offcpu(struct datafile_out *out, const struct pm_offcpu *span)
{
	struct pm_offcpu s = *span;
	const struct profile one = {.offcpu = &s, .noffcpu = 1};

	s.stack = file_stack(out, span->stack);
	pending_record(&out->offcpu, &one, DF_OFFCPU);
	if (s.time > out->last_time)
		out->last_time = s.time;
}

void datafile_add_wakeup(struct datafile_out *out, const struct pm_wakeup *wakeup)
{
	struct pm_wakeup w = *wakeup;
	const struct profile one = {.wakeups = &w, .nwakeups = 1};

	if (w.flags & PM_WAKEUP_SEEN)
		w.stack = file_stack(out, w.stack);
	pending_record(&out->wakeups, &one, DF_WAKEUPS);
}

uint64_t datafile_written(const struct datafile_out *out)
{
	return out->bytes;
}

bool datafile_named(const struct datafile_out *out)
{
	return out->named;
}

const char *datafile_path(const struct datafile_out *out)
{
	return out->file.path;
}

size_t datafile_pending(const struct datafile_out *out)
{
	return out->samples.recs.len + out->threads.recs.len + out->offcpu.recs.len +
	       out->wakeups.recs.len;
}

/* The message for a write error: a full disk said as such. */
static void write_error(const struct datafile_out *out, char *err, size_t errlen)
{
	int e = -out->err;

	if (e == ETIMEDOUT)
		snprintf(err, errlen,
			 "cannot write '%s': its reader took nothing for %d s after the stop",
			 out->file.path, OUTFILE_GRACE_MS / 1000);
	else if ((e == ENOSPC || e == EDQUOT || e == EFBIG) && out->named)
		snprintf(err, errlen, "cannot write '%s': %s; it keeps what was recorded before",
			 out->file.path, strerror(e));
	else if (e == ENOSPC || e == EDQUOT || e == EFBIG)
		snprintf(err, errlen, "cannot write '%s': %s; nothing of it was kept",
			 out->file.path, strerror(e));
	else
		snprintf(err, errlen, "cannot write '%s': %s", out->file.path, strerror(e));
}

/*
 * o's bytes to the file, which gets its name with the first that holds a
 * sample (name: an older file under the name stays until then, so that a
 * recorder killed before its first sample leaves it as it was); 0 or
 * -errno.
 */
static int put(struct datafile_out *out, struct df_out *o, bool name)
{
	if (out->err)
		return out->err;
	out->err = outfile_write(&out->file, o->buf, o->len);
	if (out->err == 0) {
		out->sum = df_sum_through(o);
		out->bytes += o->len;
	} else if (!outfile_is_stream(&out->file)) {
		/*
		 * The part of the chunk written is cut off: the file ends at its
		 * last whole chunk, and the space it took (a full disk) goes to
		 * the other files that still have chunks to finish.
		 */
		if (ftruncate(out->file.fd, (off_t)out->bytes) < 0) {
			/* the reader still stops at the last SYNC */
		}
	}
	if (out->err == 0 && name && !out->named) {
		out->err = outfile_publish(&out->file);
		out->named = out->err == 0;
	}
	return out->err;
}

/*
 * A chunk's buffer up to this size is kept for the next chunk: a new one
 * each time had the kernel clear its pages at every chunk (1 MiB a
 * second at 20,000 samples a second).
 */
#define CHUNK_KEEP (2 * 1024 * 1024)

/* A chunk's buffer, out's kept one if it has one. */
static struct df_out chunk_out(struct datafile_out *out)
{
	struct df_out o = {.buf = out->chunk_buf, .cap = out->chunk_cap, .sum = out->sum};

	out->chunk_buf = NULL;
	out->chunk_cap = 0;
	return o;
}

/* The buffer of a chunk written, kept for the next if it is not large. */
static void chunk_done(struct datafile_out *out, struct df_out *o)
{
	if (o->cap <= CHUNK_KEEP) {
		out->chunk_buf = o->buf;
		out->chunk_cap = o->cap;
	} else {
		free(o->buf);
	}
}

int datafile_flush(struct datafile_out *out, const struct profile *p, char *err, size_t errlen)
{
	struct df_out o = chunk_out(out);

	if (out->err == 0) {
		bool samples = out->samples.recs.len > 0;

		if (out->bytes == 0)
			df_put_header(&o);
		df_put_chunk(&o, p, out, DF_CHUNK_MORE);
		put(out, &o, samples);
	}
	chunk_done(out, &o);
	if (out->err)
		write_error(out, err, errlen);
	return out->err;
}

/* Everything out holds in memory; the counts of records written stay (SYNC says them). */
static void release_pending(struct datafile_out *out)
{
	struct df_pending *all[] = {&out->samples, &out->threads, &out->offcpu, &out->wakeups};

	for (size_t i = 0; i < ARRAY_SIZE(all); i++)
		sbuf_release(&all[i]->recs);
	free(out->chunk_buf);
	out->chunk_buf = NULL;
	out->chunk_cap = 0;
}

void datafile_abandon(struct datafile_out **outp)
{
	struct datafile_out *out = *outp;

	if (!out)
		return;
	release_pending(out);
	release_own(out);
	outfile_abandon(&out->file);
	free(out);
	*outp = NULL;
}

/* The last chunk, of kind, then END; the file closed, and *outp ended. */
static int commit(struct datafile_out **outp, const struct profile *p, enum df_chunk kind,
		  size_t *written, char *err, size_t errlen)
{
	struct datafile_out *out = *outp;
	struct df_out o = chunk_out(out);
	int ret = out->err;

	if (ret == 0) {
		if (out->bytes == 0)
			df_put_header(&o);
		df_put_chunk(&o, p, out, kind);
		df_put_end(&o, df_sum_through(&o));
		ret = put(out, &o, true);
	}
	free(o.buf);
	if (ret < 0) {
		write_error(out, err, errlen);
		datafile_abandon(outp);
		return ret;
	}
	if (written)
		*written = (size_t)out->bytes;
	release_pending(out);
	release_own(out);
	snprintf(err, errlen, "cannot write '%s': ", out->file.path);
	ret = outfile_commit(&out->file);
	if (ret < 0)
		snprintf(err + strlen(err), errlen - strlen(err), "%s", strerror(-ret));
	free(out);
	*outp = NULL;
	return ret;
}

int datafile_commit(struct datafile_out **out, const struct profile *p, size_t *written, char *err,
		    size_t errlen)
{
	return commit(out, p, DF_CHUNK_LAST, written, err, errlen);
}

int datafile_seal(struct datafile_out *out, const struct profile *p, char *err, size_t errlen)
{
	int ret = datafile_flush(out, p, err, errlen);

	release_pending(out);
	return ret;
}

int datafile_commit_names(struct datafile_out **out, const struct profile *p, char *err,
			  size_t errlen)
{
	return commit(out, p, DF_CHUNK_NAMES, NULL, err, errlen);
}

int datafile_write(const struct profile *p, const char *path, size_t *written, char *err,
		   size_t errlen)
{
	struct datafile_out *out;
	int ret = datafile_create(&out, path, 0, err, errlen);

	return ret < 0 ? ret : datafile_commit(&out, p, written, err, errlen);
}
