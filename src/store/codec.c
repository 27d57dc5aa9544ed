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
	F(ZERO, pm_sample, reserved)
#define THREAD_FIELDS(F)             \
	F(U32, pm_thread, pid)       \
	F(U32, pm_thread, tid)       \
	F(STR, pm_thread, comm)      \
	F(ZERO, pm_thread, reserved)
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
	_Static_assert((size) <= DF_RECORD_MAX, #FIELDS ": at most DF_RECORD_MAX bytes");      \
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

#define SINK_CHUNK (64 * 1024)

void df_sink_init(struct df_sink *k, df_write_fn write, void *arg, uint64_t pos, uLong sum)
{
	memset(k, 0, sizeof(*k));
	k->write = write;
	k->arg = arg;
	k->pos = pos;
	k->sum = sum;
}

void df_sink_flush(struct df_sink *k)
{
	if (!k->write || k->len == 0)
		return;
	if (k->err == 0)
		k->err = k->write(k->arg, k->buf, k->len, k->pos);
	k->pos += k->len;
	k->len = 0;
}

void df_sink_raw(struct df_sink *k, const void *p, size_t n)
{
	if (n == 0)
		return;
	xgrow(&k->buf, &k->cap, k->len + n, 1);
	memcpy(k->buf + k->len, p, n);
	k->len += n;
	if (k->write && k->len >= SINK_CHUNK)
		df_sink_flush(k);
}

void df_sink_put(struct df_sink *k, const void *p, size_t n)
{
	k->crc = crc32_z(k->crc, p, n);
	df_sink_raw(k, p, n);
}

void df_sink_begin(struct df_sink *k, uint32_t type)
{
	static const unsigned char none[DF_SECTION_HEAD];

	k->head = k->pos + k->len;
	k->type = type;
	k->crc = crc32(0L, Z_NULL, 0);
	df_sink_raw(k, none, sizeof(none));
}

/* Closes the open section: its header put back, its padding, the checksum. */
void df_sink_end(struct df_sink *k)
{
	static const unsigned char zeros[8];
	uint64_t size = k->pos + k->len - k->head - DF_SECTION_HEAD;
	unsigned char h[DF_SECTION_HEAD];
	struct df_out o = {.buf = h, .cap = sizeof(h)};

	df_put_u32(&o, k->type);
	df_put_u32(&o, (uint32_t)k->crc);
	df_put_u64(&o, size);
	if (k->head >= k->pos)
		memcpy(k->buf + (k->head - k->pos), h, sizeof(h));
	else if (k->err == 0)
		k->err = k->write(k->arg, h, sizeof(h), k->head);
	k->sum = crc32_z(k->sum, h, sizeof(h));
	k->sum = crc32_combine(k->sum, k->crc, (z_off_t)size);
	if ((k->pos + k->len) % 8) {
		size_t pad = 8 - (size_t)((k->pos + k->len) % 8);

		k->sum = crc32_z(k->sum, zeros, pad);
		df_sink_raw(k, zeros, pad);
	}
}

void df_sink_record(struct df_sink *k, const struct profile *p, const struct df_section *sec,
		    size_t i)
{
	unsigned char rec[DF_RECORD_MAX];
	struct df_out o = {.buf = rec, .cap = sizeof(rec)}; /* no record outgrows it */

	df_put_record(&o, p, sec, i);
	df_sink_put(k, rec, o.len);
}

void df_put_rest(struct df_sink *k, const struct profile *p, uint64_t offcpu_added,
		 void (*extra)(struct df_sink *k, uint32_t type, void *arg), void *arg)
{
	unsigned char v[4];

	df_sink_begin(k, DF_STRINGS);
	df_sink_put(k, p->str.buf, p->str.len);
	df_sink_end(k);
	for (size_t x = 0; x < df_nsections; x++) {
		const struct df_section *sec = &df_sections[x];
		size_t n = *df_rec_count(p, sec);

		if (sec->type == DF_SAMPLES)
			continue;
		/* Files without off-CPU data stay byte for byte what they were. */
		if (sec->type == DF_OFFCPU && n == 0 && offcpu_added == 0)
			continue;
		df_sink_begin(k, sec->type);
		if (extra)
			extra(k, sec->type, arg);
		for (size_t i = 0; i < n; i++)
			df_sink_record(k, p, sec, i);
		df_sink_end(k);
	}
	/*
	 * A column of the lines kept apart, so that readers from before it
	 * still read the lines section.
	 */
	df_sink_begin(k, DF_START_LINES);
	for (size_t i = 0; i < p->nlines; i++) {
		put_le32(v, p->lines[i].start_line);
		df_sink_put(k, v, sizeof(v));
	}
	df_sink_end(k);
	/* Version 2: END holds the checksum of everything before it. */
	{
		unsigned char e[DF_END_PAYLOAD] = {0};
		uLong sum = k->sum;

		df_sink_begin(k, DF_END);
		put_le32(e, (uint32_t)sum);
		df_sink_put(k, e, sizeof(e));
		df_sink_end(k);
	}
	df_sink_flush(k);
}

/* The samples come first, as datafile_add_sample streams them. */
unsigned char *datafile_encode(const struct profile *p, size_t *len)
{
	const struct df_section *samples = df_section_of(DF_SAMPLES);
	struct df_out h = {0};
	struct df_sink k;

	df_sink_init(&k, NULL, NULL, 0, crc32(0L, Z_NULL, 0));
	df_put_header(&h);
	k.sum = crc32_z(k.sum, h.buf, h.len);
	df_sink_raw(&k, h.buf, h.len);
	free(h.buf);
	df_sink_begin(&k, DF_SAMPLES);
	for (size_t i = 0; i < p->nsamples; i++)
		df_sink_record(&k, p, samples, i);
	df_sink_end(&k);
	df_put_rest(&k, p, 0, NULL, NULL);
	*len = k.len;
	return k.buf;
}
