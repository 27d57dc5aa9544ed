/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * codec.c - the data file's section table, and sections encoded into
 * bytes: whole files in memory (datafile_encode) or a chunk at a time
 * through a sink; see codec-int.h. No I/O here.
 */
#include "config.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "store/codec-int.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"

/*
 * Each section's fields in file order, as F(kind, struct, member): the
 * table and the checks of its sizes below are both made from these
 * lists. A DF_F_ZERO field has no member (its name is ignored).
 */
/* clang-format off */
#define META_FIELDS(F)         \
	F(STR, pm_meta, key)   \
	F(STR, pm_meta, value)
#define MODULE_FIELDS(F)            \
	F(STR, pm_module, path)     \
	F(STR, pm_module, build_id) \
	F(U32, pm_module, flags)    \
	F(STR, pm_module, reason)
#define FRAME_FIELDS(F)          \
	F(U32, pm_frame, module) \
	F(U32, pm_frame, flags)  \
	F(U64, pm_frame, addr)   \
	F(U32, pm_frame, line0)  \
	F(U32, pm_frame, nlines)
#define LINE_FIELDS(F)          \
	F(STR, pm_line, func)   \
	F(STR, pm_line, file)   \
	F(U32, pm_line, line)   \
	F(U32, pm_line, flags)  \
	F(U64, pm_line, symoff)
#define STACK_FIELDS(F)         \
	F(U32, pm_stack, off)   \
	F(U32, pm_stack, depth)
#define SAMPLE_FIELDS(F)             \
	F(U64, pm_sample, time)      \
	F(U64, pm_sample, period)    \
	F(U32, pm_sample, pid)       \
	F(U32, pm_sample, tid)       \
	F(U32, pm_sample, cpu)       \
	F(U32, pm_sample, stack)     \
	F(STR, pm_sample, comm)      \
	F(STR, pm_sample, cgroup)
#define THREAD_FIELDS(F)             \
	F(U32, pm_thread, pid)       \
	F(U32, pm_thread, tid)       \
	F(STR, pm_thread, comm)      \
	F(STR, pm_thread, cgroup)
#define SEGMENT_FIELDS(F)          \
	F(U32, pm_segment, module) \
	F(U32, pm_segment, flags)  \
	F(U64, pm_segment, offset) \
	F(U64, pm_segment, vaddr)  \
	F(U64, pm_segment, filesz) \
	F(U64, pm_segment, memsz)
#define OFFCPU_FIELDS(F)            \
	F(U64, pm_offcpu, time)     \
	F(U64, pm_offcpu, duration) \
	F(U32, pm_offcpu, pid)      \
	F(U32, pm_offcpu, tid)      \
	F(U32, pm_offcpu, cpu)      \
	F(U32, pm_offcpu, stack)    \
	F(STR, pm_offcpu, comm)     \
	F(U32, pm_offcpu, flags)
#define WAKEUP_FIELDS(F)            \
	F(U64, pm_wakeup, delay)    \
	F(U32, pm_wakeup, pid)      \
	F(U32, pm_wakeup, tid)      \
	F(U32, pm_wakeup, stack)    \
	F(STR, pm_wakeup, comm)     \
	F(U32, pm_wakeup, flags)    \
	F(ZERO, pm_wakeup, reserved)
/* clang-format on */

/* A field's table entry: its kind, and where it lives in the record's struct. */
#define FIELD(kind, type, member)    {DF_F_##kind, FIELD_MEM_##kind(type, member)},
#define FIELD_MEM_U32(type, member)  offsetof(struct type, member)
#define FIELD_MEM_U64(type, member)  offsetof(struct type, member)
#define FIELD_MEM_STR(type, member)  offsetof(struct type, member)
#define FIELD_MEM_ZERO(type, member) 0
/* Where a section's array lives in a profile. */
#define ARRAY(member)                                                          \
	offsetof(struct profile, member), offsetof(struct profile, n##member), \
		offsetof(struct profile, member##_cap)
#define SECTION(type, name, rec, member, FIELDS)               \
	{                                                      \
		type, name, sizeof(struct rec), ARRAY(member), \
		{                                              \
			FIELDS(FIELD)                          \
		}                                              \
	}

/* In the order a file has them: the strings come first, END last. */
const struct df_section df_sections[] = {
	SECTION(DF_META, "meta entry", pm_meta, meta, META_FIELDS),
	SECTION(DF_MODULES, "module", pm_module, modules, MODULE_FIELDS),
	SECTION(DF_FRAMES, "frame", pm_frame, frames, FRAME_FIELDS),
	SECTION(DF_LINES, "line", pm_line, lines, LINE_FIELDS),
	SECTION(DF_STACKS, "stack", pm_stack, stacks, STACK_FIELDS),
	{DF_STACK_FRAMES, "stack frame", sizeof(uint32_t), ARRAY(stack_frames), {{DF_F_U32, 0}}},
	SECTION(DF_SAMPLES, "sample", pm_sample, samples, SAMPLE_FIELDS),
	SECTION(DF_THREADS, "thread", pm_thread, threads, THREAD_FIELDS),
	SECTION(DF_SEGMENTS, "segment", pm_segment, segments, SEGMENT_FIELDS),
	SECTION(DF_OFFCPU, "off-CPU interval", pm_offcpu, offcpu, OFFCPU_FIELDS),
	SECTION(DF_WAKEUPS, "wake-up", pm_wakeup, wakeups, WAKEUP_FIELDS),
};
const size_t df_nsections = ARRAY_SIZE(df_sections);

/*
 * What the table makes, checked against perfmini-data(5) when compiled:
 * each section's record size, the END that closes the field list (the
 * fields array keeps one entry for it), and each member as wide as its
 * field in the file (the encoder and decoder copy that many bytes).
 */
#define FILE_SIZE(kind, type, member) +FILE_SIZE_##kind
#define FILE_SIZE_U32		      4
#define FILE_SIZE_U64		      8
#define FILE_SIZE_STR		      4
#define FILE_SIZE_ZERO		      4
#define ONE(kind, type, member)	      +1
#define FITS(kind, type, member)      &&FITS_##kind(type, member)
#define FITS_U32(type, member)	      (sizeof(((struct type *)0)->member) == 4)
#define FITS_U64(type, member)	      (sizeof(((struct type *)0)->member) == 8)
#define FITS_STR(type, member)	      (sizeof(((struct type *)0)->member) == 4)
#define FITS_ZERO(type, member)	      1
#define CHECK_SECTION(FIELDS, size)                                                            \
	_Static_assert(0 FIELDS(FILE_SIZE) == (size), #FIELDS ": the documented record size"); \
	_Static_assert(0 FIELDS(ONE) < ARRAY_SIZE(((struct df_section *)0)->fields),           \
		       #FIELDS ": room for END");                                              \
	_Static_assert(1 FIELDS(FITS), #FIELDS ": members as wide as their fields")

CHECK_SECTION(META_FIELDS, DF_META_RECORD);
CHECK_SECTION(MODULE_FIELDS, DF_MODULE_RECORD);
CHECK_SECTION(FRAME_FIELDS, DF_FRAME_RECORD);
CHECK_SECTION(LINE_FIELDS, DF_LINE_RECORD);
CHECK_SECTION(STACK_FIELDS, DF_STACK_RECORD);
CHECK_SECTION(SAMPLE_FIELDS, DF_SAMPLE_RECORD);
CHECK_SECTION(THREAD_FIELDS, DF_THREAD_RECORD);
CHECK_SECTION(SEGMENT_FIELDS, DF_SEGMENT_RECORD);
CHECK_SECTION(OFFCPU_FIELDS, DF_OFFCPU_RECORD);
CHECK_SECTION(WAKEUP_FIELDS, DF_WAKEUP_RECORD);
_Static_assert(sizeof(*((struct profile *)0)->stack_frames) == DF_STACK_FRAME_RECORD,
	       "a stack frame entry is a u32");
_Static_assert(sizeof(((struct pm_line *)0)->start_line) == DF_START_LINE_RECORD,
	       "a start line is a u32");
_Static_assert(sizeof(DATAFILE_MAGIC) - 1 + 4 + 4 + 8 == DF_HEADER_SIZE,
	       "the header: magic, version, flags, reserved");
_Static_assert(4 + 4 + 8 == DF_SECTION_HEAD, "a section header: type, checksum, size");
_Static_assert(DF_HEADER_SIZE % 8 == 0 && DF_SECTION_HEAD % 8 == 0,
	       "sections start 8-byte aligned");
_Static_assert(DF_HEADER_SIZE + DF_SECTION_HEAD + DF_END_PAYLOAD == 48,
	       "the smallest file: the header and END");

size_t df_rec_size(const struct df_section *sec)
{
	size_t n = 0;

	for (const struct df_field *f = sec->fields; f->kind != DF_F_END; f++)
		n += f->kind == DF_F_U64 ? 8 : 4;
	return n;
}

const struct df_section *df_section_of(uint32_t type)
{
	for (size_t i = 0; i < df_nsections; i++)
		if (df_sections[i].type == type)
			return &df_sections[i];
	return NULL;
}

void *df_rec_array(const struct profile *p, const struct df_section *sec)
{
	return *(void *const *)((const char *)p + sec->arr);
}

size_t *df_rec_count(const struct profile *p, const struct df_section *sec)
{
	return (size_t *)(uintptr_t)((const char *)p + sec->n);
}

/* Encoding. */

uLong df_sum_gap(uLong sum, const unsigned char *buf, size_t from, size_t to)
{
	return crc32_z(sum, buf + from, to - from);
}

uLong df_sum_through(struct df_out *o)
{
	o->sum = df_sum_gap(o->sum, o->buf, o->summed, o->len);
	o->summed = o->len;
	return o->sum;
}

void df_sum_section(uLong *sum, size_t *summed, const unsigned char *buf, size_t at, uint32_t crc,
		    size_t size)
{
	*sum = df_sum_gap(*sum, buf, *summed, at + DF_SECTION_HEAD);
	*sum = crc32_combine(*sum, crc, (z_off_t)size);
	*summed = at + DF_SECTION_HEAD + size;
}

static unsigned char *out_reserve(struct df_out *o, size_t n)
{
	unsigned char *p;

	xgrow(&o->buf, &o->cap, o->len + n, 1);
	p = o->buf + o->len;
	o->len += n;
	return p;
}

void df_put_u32(struct df_out *o, uint32_t v)
{
	put_le32(out_reserve(o, 4), v);
}

void df_put_u64(struct df_out *o, uint64_t v)
{
	put_le64(out_reserve(o, 8), v);
}

size_t df_section_begin(struct df_out *o, uint32_t type)
{
	size_t at = o->len;

	df_put_u32(o, type);
	df_put_u32(o, 0);
	df_put_u64(o, 0);
	return at;
}

void df_put_record(struct df_out *o, const struct profile *p, const struct df_section *sec,
		   size_t i)
{
	const char *rec = (const char *)df_rec_array(p, sec) + i * sec->rec_mem;

	for (const struct df_field *f = sec->fields; f->kind != DF_F_END; f++) {
		if (f->kind == DF_F_U64)
			df_put_u64(o, load_u64(rec + f->mem));
		else if (f->kind == DF_F_ZERO)
			df_put_u32(o, 0);
		else
			df_put_u32(o, load_u32(rec + f->mem));
	}
}

void df_put_header(struct df_out *o)
{
	memcpy(out_reserve(o, 8), DATAFILE_MAGIC, 8);
	df_put_u32(o, DATAFILE_VERSION);
	df_put_u32(o, 0);
	df_put_u64(o, 0);
}

/*
 * Closes the section whose header is at offset at: its size, checksum and
 * padding. Its checksum goes into o's running one (df_sum_section), so
 * that the payload is read once.
 */
void df_section_end(struct df_out *o, size_t at)
{
	size_t size = o->len - at - DF_SECTION_HEAD;
	uint32_t crc = (uint32_t)crc32_z(crc32(0L, Z_NULL, 0), o->buf + at + DF_SECTION_HEAD, size);

	put_le32(o->buf + at + 4, crc);
	put_le64(o->buf + at + 8, size);
	df_sum_section(&o->sum, &o->summed, o->buf, at, crc, size);
	while (o->len % 8)
		*out_reserve(o, 1) = 0;
}

/* A RUN section's header and its own: the records' type and first index. */
static size_t run_begin(struct df_out *o, uint32_t type, uint64_t first)
{
	size_t at = df_section_begin(o, DF_RUN);

	df_put_u32(o, type);
	df_put_u32(o, 0);
	df_put_u64(o, first);
	return at;
}

/* sec's records [from, to) of p as a RUN, when there are any. */
static void put_run(struct df_out *o, const struct profile *p, const struct df_section *sec,
		    size_t from, size_t to)
{
	size_t at;

	if (from >= to)
		return;
	at = run_begin(o, sec->type, from);
	for (size_t i = from; i < to; i++)
		df_put_record(o, p, sec, i);
	df_section_end(o, at);
}

/* Records of type already encoded (len bytes), at index first. */
static void put_run_bytes(struct df_out *o, uint32_t type, uint64_t first, const void *buf,
			  size_t len)
{
	size_t at;

	if (len == 0)
		return;
	at = run_begin(o, type, first);
	memcpy(out_reserve(o, len), buf, len);
	df_section_end(o, at);
}

/*
 * Records of type added one by one (pa), then those p holds from
 * *done on: the file's next ones. pa is emptied.
 */
static void put_appended(struct df_out *o, const struct profile *p, uint32_t type,
			 struct df_pending *pa, size_t *done)
{
	const struct df_section *sec = df_section_of(type);
	size_t n = *df_rec_count(p, sec);

	put_run_bytes(o, type, pa->written, pa->recs.buf, pa->recs.len);
	pa->written += pa->recs.len / df_rec_size(sec);
	sbuf_reset(&pa->recs);
	if (*done < n) {
		size_t at = run_begin(o, type, pa->written);

		for (size_t i = *done; i < n; i++)
			df_put_record(o, p, sec, i);
		df_section_end(o, at);
		pa->written += n - *done;
		*done = n;
	}
}

/*
 * FRAME_LINES for the frames the file holds that were named since they
 * were written: their lines are past those the file held.
 */
static void put_frame_lines(struct df_out *o, const struct profile *p, const struct df_mark *done)
{
	size_t at = 0;

	for (size_t i = 0; i < done->frames; i++) {
		const struct pm_frame *f = &p->frames[i];

		if (!f->nlines || f->line0 < done->lines)
			continue;
		if (!at)
			at = df_section_begin(o, DF_FRAME_LINES);
		df_put_u32(o, (uint32_t)i);
		df_put_u32(o, f->line0);
		df_put_u32(o, f->nlines);
		df_put_u32(o, 0);
	}
	if (at)
		df_section_end(o, at);
}

/* The array section of type: p's records [*done, count), then *done moved to the end. */
static void put_new(struct df_out *o, const struct profile *p, uint32_t type, size_t *done)
{
	const struct df_section *sec = df_section_of(type);
	size_t n = *df_rec_count(p, sec);

	put_run(o, p, sec, *done, n);
	*done = n;
}

/* The owners of p's modules from first on, as DF_MODULE_OWNERS, when there are any. */
static void put_owners(struct df_out *o, const struct profile *p, size_t first)
{
	size_t at;

	if (first >= p->nmodules)
		return;
	at = run_begin(o, DF_MODULE_OWNERS, first);
	for (size_t i = first; i < p->nmodules; i++)
		df_put_u32(o, p->modules[i].owner);
	df_section_end(o, at);
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return (x > y) - (x < y);
}

/*
 * The rows of p's modules changed since the last chunk (profile.again),
 * those below first (the others come with the new ones): a run of one
 * row each, with its owner.
 */
static void put_again(struct df_out *o, const struct profile *p, struct datafile_out *w,
		      size_t first)
{
	const struct df_section *sec = df_section_of(DF_MODULES);
	uint32_t *ids;
	size_t n = 0;

	if (w->again_done > p->nagain)
		w->again_done = 0;
	if (w->again_done == p->nagain)
		return;
	ids = xmalloc((p->nagain - w->again_done) * sizeof(*ids));
	for (; w->again_done < p->nagain; w->again_done++)
		if (p->again[w->again_done] < first)
			ids[n++] = p->again[w->again_done];
	qsort(ids, n, sizeof(*ids), cmp_u32);
	/* A run for each span of ids that follow one another (ids are given back in batches). */
	for (size_t i = 0, j; i < n; i = j) {
		size_t at;

		for (j = i + 1; j < n && ids[j] <= ids[j - 1] + 1; j++)
			;
		put_run(o, p, sec, ids[i], (size_t)ids[j - 1] + 1);
		at = run_begin(o, DF_MODULE_OWNERS, ids[i]);
		for (size_t k = ids[i]; k <= ids[j - 1]; k++)
			df_put_u32(o, p->modules[k].owner);
		df_section_end(o, at);
	}
	free(ids);
}

/* Profile frame f as the file numbers it (own_tables), given a number at its first use. */
static uint32_t file_frame(struct datafile_out *w, uint32_t f)
{
	if (f >= w->frame_ids_cap)
		xgrow_zero(&w->frame_ids, &w->frame_ids_cap, (size_t)f + 1, sizeof(*w->frame_ids));
	if (w->frame_ids[f])
		return w->frame_ids[f] - 1;
	if (w->nframe_of == w->frame_of_cap) {
		size_t cap = w->frame_of_cap ? 2 * w->frame_of_cap : 256;

		w->frame_of = xrealloc(w->frame_of, cap * sizeof(*w->frame_of));
		w->frame_line0 = xrealloc(w->frame_line0, cap * sizeof(*w->frame_line0));
		w->frame_nlines = xrealloc(w->frame_nlines, cap * sizeof(*w->frame_nlines));
		w->frame_of_cap = cap;
	}
	w->frame_of[w->nframe_of] = f;
	w->frame_line0[w->nframe_of] = 0;
	w->frame_nlines[w->nframe_of] = 0;
	w->frame_ids[f] = (uint32_t)(w->nframe_of + 1);
	return (uint32_t)w->nframe_of++;
}

/*
 * own_tables: the lines of the file's frames named since they were
 * written (new ones' included), numbered on from the file's, then frame
 * lines for those the file held already; each file frame's line0 and
 * nlines noted for its record.
 */
static void put_own_lines(struct df_out *o, const struct profile *p, struct datafile_out *w)
{
	const struct df_section *sec = df_section_of(DF_LINES);
	struct df_mark *done = &w->done;
	uint32_t *named = NULL;
	size_t nnamed = 0, cap = 0, at = 0, n = done->lines;

	for (size_t i = 0; i < w->nframe_of; i++)
		if (p->frames[w->frame_of[i]].nlines > w->frame_nlines[i]) {
			xgrow(&named, &cap, nnamed + 1, sizeof(*named));
			named[nnamed++] = (uint32_t)i;
		}
	if (!nnamed)
		return;
	at = run_begin(o, DF_START_LINES, done->lines);
	for (size_t j = 0; j < nnamed; j++) {
		const struct pm_frame *f = &p->frames[w->frame_of[named[j]]];

		for (uint32_t k = 0; k < f->nlines; k++)
			df_put_u32(o, p->lines[f->line0 + k].start_line);
	}
	df_section_end(o, at);
	at = run_begin(o, DF_LINES, done->lines);
	for (size_t j = 0; j < nnamed; j++) {
		const struct pm_frame *f = &p->frames[w->frame_of[named[j]]];

		for (uint32_t k = 0; k < f->nlines; k++)
			df_put_record(o, p, sec, f->line0 + k);
	}
	df_section_end(o, at);
	at = 0;
	for (size_t j = 0; j < nnamed; j++) {
		uint32_t i = named[j];

		w->frame_line0[i] = (uint32_t)n;
		w->frame_nlines[i] = p->frames[w->frame_of[i]].nlines;
		n += w->frame_nlines[i];
		if (i >= done->frames)
			continue; /* a new frame: its record says */
		if (!at)
			at = df_section_begin(o, DF_FRAME_LINES);
		df_put_u32(o, i);
		df_put_u32(o, w->frame_line0[i]);
		df_put_u32(o, w->frame_nlines[i]);
		df_put_u32(o, 0);
	}
	if (at)
		df_section_end(o, at);
	done->lines = n;
	free(named);
}

/* own_tables: the frames new to the file, in its numbering, with its lines. */
static void put_own_frames(struct df_out *o, const struct profile *p, struct datafile_out *w)
{
	const struct df_section *sec = df_section_of(DF_FRAMES);
	struct df_mark *done = &w->done;
	size_t at;

	if (done->frames >= w->nframe_of)
		return;
	at = run_begin(o, DF_FRAMES, done->frames);
	for (size_t i = done->frames; i < w->nframe_of; i++) {
		struct pm_frame f = p->frames[w->frame_of[i]];
		const struct profile one = {.frames = &f, .nframes = 1};

		f.line0 = w->frame_line0[i];
		f.nlines = w->frame_nlines[i];
		df_put_record(o, &one, sec, 0);
	}
	df_section_end(o, at);
	done->frames = w->nframe_of;
}

/*
 * own_tables: the stacks the file's records took up since the last
 * chunk, with their frames and lines, all in the file's numbering. A
 * chunk of names only (stacks false) gives lines to the frames the file
 * holds, and nothing more.
 */
static void put_own_tables(struct df_out *o, const struct profile *p, struct datafile_out *w,
			   bool stacks)
{
	struct df_mark *done = &w->done;
	size_t at, off = done->stack_frames;

	/* The new stacks' frames numbered first: their lines go with the others'. */
	for (size_t i = done->stacks; stacks && i < w->nstack_of; i++) {
		const struct pm_stack *st = &p->stacks[w->stack_of[i]];

		for (uint32_t d = 0; d < st->depth; d++)
			file_frame(w, p->stack_frames[st->off + d]);
	}
	put_own_lines(o, p, w);
	if (!stacks)
		return;
	put_own_frames(o, p, w);
	if (done->stacks >= w->nstack_of)
		return;
	at = run_begin(o, DF_STACK_FRAMES, done->stack_frames);
	for (size_t i = done->stacks; i < w->nstack_of; i++) {
		const struct pm_stack *st = &p->stacks[w->stack_of[i]];

		for (uint32_t d = 0; d < st->depth; d++)
			df_put_u32(o, file_frame(w, p->stack_frames[st->off + d]));
	}
	df_section_end(o, at);
	/* A stack record: u32 off, u32 depth (STACK_FIELDS). */
	at = run_begin(o, DF_STACKS, done->stacks);
	for (size_t i = done->stacks; i < w->nstack_of; i++) {
		const struct pm_stack *st = &p->stacks[w->stack_of[i]];

		df_put_u32(o, (uint32_t)off);
		df_put_u32(o, st->depth);
		off += st->depth;
	}
	df_section_end(o, at);
	done->stack_frames = off;
	done->stacks = w->nstack_of;
}

void df_put_chunk(struct df_out *o, const struct profile *p, struct datafile_out *w,
		  enum df_chunk kind)
{
	struct df_mark *done = &w->done;
	size_t at;

	/*
	 * In the order of their references: a chunk cut anywhere before
	 * its SYNC is not read, but each section only names what came
	 * before it.
	 */
	if (done->str < p->str.len) {
		at = run_begin(o, DF_STRINGS, done->str);
		memcpy(out_reserve(o, p->str.len - done->str), p->str.buf + done->str,
		       p->str.len - done->str);
		df_section_end(o, at);
		done->str = p->str.len;
	}
	/*
	 * Meta entries change in place (counts): all of them, each time,
	 * a slice's names too (its own counts of what naming found).
	 */
	put_run(o, p, df_section_of(DF_META), 0, p->nmeta);
	/*
	 * Modules learn their build-ids and reasons at the end; one a
	 * slice carried by number alone may get its path back meanwhile.
	 */
	if (kind != DF_CHUNK_MORE)
		done->modules = 0;
	put_again(o, p, w, done->modules);
	put_owners(o, p, done->modules);
	put_new(o, p, DF_MODULES, &done->modules);
	put_new(o, p, DF_SEGMENTS, &done->segments);
	if (w->own_tables) {
		put_own_tables(o, p, w, kind != DF_CHUNK_NAMES);
	} else {
		if (done->lines < p->nlines) {
			at = run_begin(o, DF_START_LINES, done->lines);
			for (size_t i = done->lines; i < p->nlines; i++)
				df_put_u32(o, p->lines[i].start_line);
			df_section_end(o, at);
			put_run(o, p, df_section_of(DF_LINES), done->lines, p->nlines);
		}
		put_frame_lines(o, p, done);
		done->lines = p->nlines;
	}
	if (kind != DF_CHUNK_NAMES) {
		if (!w->own_tables) {
			put_new(o, p, DF_FRAMES, &done->frames);
			put_new(o, p, DF_STACK_FRAMES, &done->stack_frames);
			put_new(o, p, DF_STACKS, &done->stacks);
		}
		/* SYNC's time: the latest of the records, those the profile holds too. */
		for (size_t i = done->samples; i < p->nsamples; i++)
			if (p->samples[i].time > w->last_time)
				w->last_time = p->samples[i].time;
		for (size_t i = done->offcpu; i < p->noffcpu; i++)
			if (p->offcpu[i].time > w->last_time)
				w->last_time = p->offcpu[i].time;
		put_appended(o, p, DF_SAMPLES, &w->samples, &done->samples);
		put_appended(o, p, DF_THREADS, &w->threads, &done->threads);
		put_appended(o, p, DF_OFFCPU, &w->offcpu, &done->offcpu);
		put_appended(o, p, DF_WAKEUPS, &w->wakeups, &done->wakeups);
	}
	{
		uLong sum = df_sum_through(o);

		at = df_section_begin(o, DF_SYNC);
		df_put_u64(o, w->last_time);
		df_put_u64(o, w->samples.written);
		df_put_u32(o, (uint32_t)sum);
		df_put_u32(o, 0);
		df_section_end(o, at);
	}
}

void df_put_end(struct df_out *o, uLong sum)
{
	size_t at = df_section_begin(o, DF_END);

	df_put_u32(o, (uint32_t)sum);
	df_put_u32(o, 0);
	df_section_end(o, at);
}

/* A file of one chunk: what datafile_write makes of p. */
unsigned char *datafile_encode(const struct profile *p, size_t *len)
{
	struct datafile_out w;
	struct df_out o = {0};

	memset(&w, 0, sizeof(w));
	df_put_header(&o);
	df_put_chunk(&o, p, &w, DF_CHUNK_LAST);
	df_put_end(&o, df_sum_through(&o));
	*len = o.len;
	return o.buf;
}
