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

/* Each field of a record, and where its array lives in a profile. */
#define FIELD(kind, type, member)            \
	{                                    \
		kind, offsetof(type, member) \
	}
#define ARRAY(member)                                                          \
	offsetof(struct profile, member), offsetof(struct profile, n##member), \
		offsetof(struct profile, member##_cap)

/* In the order a file has them: the strings come first, END last. */
const struct df_section df_sections[] = {
	{DF_META,
	 "meta entry",
	 sizeof(struct pm_meta),
	 ARRAY(meta),
	 {FIELD(DF_F_STR, struct pm_meta, key), FIELD(DF_F_STR, struct pm_meta, value)}},
	{DF_MODULES,
	 "module",
	 sizeof(struct pm_module),
	 ARRAY(modules),
	 {FIELD(DF_F_STR, struct pm_module, path), FIELD(DF_F_STR, struct pm_module, build_id),
	  FIELD(DF_F_U32, struct pm_module, flags), FIELD(DF_F_STR, struct pm_module, reason)}},
	{DF_FRAMES,
	 "frame",
	 sizeof(struct pm_frame),
	 ARRAY(frames),
	 {FIELD(DF_F_U32, struct pm_frame, module), FIELD(DF_F_U32, struct pm_frame, flags),
	  FIELD(DF_F_U64, struct pm_frame, addr), FIELD(DF_F_U32, struct pm_frame, line0),
	  FIELD(DF_F_U32, struct pm_frame, nlines)}},
	{DF_LINES,
	 "line",
	 sizeof(struct pm_line),
	 ARRAY(lines),
	 {FIELD(DF_F_STR, struct pm_line, func), FIELD(DF_F_STR, struct pm_line, file),
	  FIELD(DF_F_U32, struct pm_line, line), FIELD(DF_F_U32, struct pm_line, flags),
	  FIELD(DF_F_U64, struct pm_line, symoff)}},
	{DF_STACKS,
	 "stack",
	 sizeof(struct pm_stack),
	 ARRAY(stacks),
	 {FIELD(DF_F_U32, struct pm_stack, off), FIELD(DF_F_U32, struct pm_stack, depth)}},
	{DF_STACK_FRAMES, "stack frame", sizeof(uint32_t), ARRAY(stack_frames), {{DF_F_U32, 0}}},
	{DF_SAMPLES,
	 "sample",
	 sizeof(struct pm_sample),
	 ARRAY(samples),
	 {FIELD(DF_F_U64, struct pm_sample, time),
	  FIELD(DF_F_U64, struct pm_sample, period),
	  FIELD(DF_F_U32, struct pm_sample, pid),
	  FIELD(DF_F_U32, struct pm_sample, tid),
	  FIELD(DF_F_U32, struct pm_sample, cpu),
	  FIELD(DF_F_U32, struct pm_sample, stack),
	  FIELD(DF_F_STR, struct pm_sample, comm),
	  {DF_F_ZERO, 0}}},
	{DF_THREADS,
	 "thread",
	 sizeof(struct pm_thread),
	 ARRAY(threads),
	 {FIELD(DF_F_U32, struct pm_thread, pid),
	  FIELD(DF_F_U32, struct pm_thread, tid),
	  FIELD(DF_F_STR, struct pm_thread, comm),
	  {DF_F_ZERO, 0}}},
	{DF_SEGMENTS,
	 "segment",
	 sizeof(struct pm_segment),
	 ARRAY(segments),
	 {FIELD(DF_F_U32, struct pm_segment, module), FIELD(DF_F_U32, struct pm_segment, flags),
	  FIELD(DF_F_U64, struct pm_segment, offset), FIELD(DF_F_U64, struct pm_segment, vaddr),
	  FIELD(DF_F_U64, struct pm_segment, filesz), FIELD(DF_F_U64, struct pm_segment, memsz)}},
	{DF_OFFCPU,
	 "off-CPU interval",
	 sizeof(struct pm_offcpu),
	 ARRAY(offcpu),
	 {FIELD(DF_F_U64, struct pm_offcpu, time), FIELD(DF_F_U64, struct pm_offcpu, duration),
	  FIELD(DF_F_U32, struct pm_offcpu, pid), FIELD(DF_F_U32, struct pm_offcpu, tid),
	  FIELD(DF_F_U32, struct pm_offcpu, cpu), FIELD(DF_F_U32, struct pm_offcpu, stack),
	  FIELD(DF_F_STR, struct pm_offcpu, comm), FIELD(DF_F_U32, struct pm_offcpu, flags)}},
};
const size_t df_nsections = ARRAY_SIZE(df_sections);

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
	unsigned char rec[64];
	struct df_out o = {.buf = rec, .cap = sizeof(rec)}; /* no record outgrows it */

	df_put_record(&o, p, sec, i);
	df_sink_put(k, rec, o.len);
}

void df_put_rest(struct df_sink *k, const struct profile *p,
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
		if (sec->type == DF_OFFCPU && n == 0)
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
		unsigned char e[8] = {0};
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
	df_put_rest(&k, p, NULL, NULL);
	*len = k.len;
	return k.buf;
}
