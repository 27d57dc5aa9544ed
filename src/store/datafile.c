/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * datafile.c - encoding, validating and atomically writing data files;
 * see datafile.h for the layout.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "store/datafile.h"
#include "util/util.h"

#define HEADER_SIZE  24
#define SECTION_HEAD 16

/*
 * The array sections, one descriptor each: where the records live in a
 * profile, how each field is laid out in the file, and which references
 * a record holds. Encoding, decoding and validation all walk this table,
 * so that a section is described in one place. A record in the file is
 * its fields, little-endian, in the order listed, with no gaps.
 */
enum field_kind {
	F_END = 0, /* after the last field */
	F_U32,	   /* a number */
	F_U64,	   /* a number */
	F_STR,	   /* u32: an offset into the string table */
	F_ZERO,	   /* u32: reserved, written 0, ignored on reading */
};

struct field {
	enum field_kind kind;
	size_t mem; /* offsetof in the record's struct (none for F_ZERO) */
};

struct in;

struct section {
	uint32_t type;
	const char *name;   /* in messages: "bad frame 3 at offset 120" */
	size_t rec_mem;	    /* sizeof the record's struct */
	size_t arr, n, cap; /* offsetof(struct profile, the array, its count, its capacity) */
	struct field fields[9];
	/* The record's references other than strings; NULL when it has none. */
	int (*check)(struct in *in, const struct profile *p, size_t i, size_t at);
};

static int check_frame(struct in *in, const struct profile *p, size_t i, size_t at);
static int check_stack(struct in *in, const struct profile *p, size_t i, size_t at);
static int check_stack_frame(struct in *in, const struct profile *p, size_t i, size_t at);
static int check_sample(struct in *in, const struct profile *p, size_t i, size_t at);
static int check_segment(struct in *in, const struct profile *p, size_t i, size_t at);
static int check_offcpu(struct in *in, const struct profile *p, size_t i, size_t at);

#define FIELD(kind, type, member)            \
	{                                    \
		kind, offsetof(type, member) \
	}
#define ARRAY(member)                                                          \
	offsetof(struct profile, member), offsetof(struct profile, n##member), \
		offsetof(struct profile, member##_cap)

/* In the order a file has them: the strings come first, END last. */
static const struct section sections[] = {
	{DF_META,
	 "meta entry",
	 sizeof(struct pm_meta),
	 ARRAY(meta),
	 {FIELD(F_STR, struct pm_meta, key), FIELD(F_STR, struct pm_meta, value)},
	 NULL},
	{DF_MODULES,
	 "module",
	 sizeof(struct pm_module),
	 ARRAY(modules),
	 {FIELD(F_STR, struct pm_module, path), FIELD(F_STR, struct pm_module, build_id),
	  FIELD(F_U32, struct pm_module, flags), FIELD(F_STR, struct pm_module, reason)},
	 NULL},
	{DF_FRAMES,
	 "frame",
	 sizeof(struct pm_frame),
	 ARRAY(frames),
	 {FIELD(F_U32, struct pm_frame, module), FIELD(F_U32, struct pm_frame, flags),
	  FIELD(F_U64, struct pm_frame, addr), FIELD(F_U32, struct pm_frame, line0),
	  FIELD(F_U32, struct pm_frame, nlines)},
	 check_frame},
	{DF_LINES,
	 "line",
	 sizeof(struct pm_line),
	 ARRAY(lines),
	 {FIELD(F_STR, struct pm_line, func), FIELD(F_STR, struct pm_line, file),
	  FIELD(F_U32, struct pm_line, line), FIELD(F_U32, struct pm_line, flags),
	  FIELD(F_U64, struct pm_line, symoff)},
	 NULL},
	{DF_STACKS,
	 "stack",
	 sizeof(struct pm_stack),
	 ARRAY(stacks),
	 {FIELD(F_U32, struct pm_stack, off), FIELD(F_U32, struct pm_stack, depth)},
	 check_stack},
	{DF_STACK_FRAMES,
	 "stack frame",
	 sizeof(uint32_t),
	 ARRAY(stack_frames),
	 {{F_U32, 0}},
	 check_stack_frame},
	{DF_SAMPLES,
	 "sample",
	 sizeof(struct pm_sample),
	 ARRAY(samples),
	 {FIELD(F_U64, struct pm_sample, time),
	  FIELD(F_U64, struct pm_sample, period),
	  FIELD(F_U32, struct pm_sample, pid),
	  FIELD(F_U32, struct pm_sample, tid),
	  FIELD(F_U32, struct pm_sample, cpu),
	  FIELD(F_U32, struct pm_sample, stack),
	  FIELD(F_STR, struct pm_sample, comm),
	  {F_ZERO, 0}},
	 check_sample},
	{DF_THREADS,
	 "thread",
	 sizeof(struct pm_thread),
	 ARRAY(threads),
	 {FIELD(F_U32, struct pm_thread, pid),
	  FIELD(F_U32, struct pm_thread, tid),
	  FIELD(F_STR, struct pm_thread, comm),
	  {F_ZERO, 0}},
	 NULL},
	{DF_SEGMENTS,
	 "segment",
	 sizeof(struct pm_segment),
	 ARRAY(segments),
	 {FIELD(F_U32, struct pm_segment, module), FIELD(F_U32, struct pm_segment, flags),
	  FIELD(F_U64, struct pm_segment, offset), FIELD(F_U64, struct pm_segment, vaddr),
	  FIELD(F_U64, struct pm_segment, filesz), FIELD(F_U64, struct pm_segment, memsz)},
	 check_segment},
	{DF_OFFCPU,
	 "off-CPU interval",
	 sizeof(struct pm_offcpu),
	 ARRAY(offcpu),
	 {FIELD(F_U64, struct pm_offcpu, time), FIELD(F_U64, struct pm_offcpu, duration),
	  FIELD(F_U32, struct pm_offcpu, pid), FIELD(F_U32, struct pm_offcpu, tid),
	  FIELD(F_U32, struct pm_offcpu, cpu), FIELD(F_U32, struct pm_offcpu, stack),
	  FIELD(F_STR, struct pm_offcpu, comm), FIELD(F_U32, struct pm_offcpu, flags)},
	 check_offcpu},
};

/* Bytes of one record of sec in the file. */
static size_t rec_size(const struct section *sec)
{
	size_t n = 0;

	for (const struct field *f = sec->fields; f->kind != F_END; f++)
		n += f->kind == F_U64 ? 8 : 4;
	return n;
}

static const struct section *section_of(uint32_t type)
{
	for (size_t i = 0; i < ARRAY_SIZE(sections); i++)
		if (sections[i].type == type)
			return &sections[i];
	return NULL;
}

/* The array of sec in p, and its count. */
static void *rec_array(const struct profile *p, const struct section *sec)
{
	return *(void *const *)((const char *)p + sec->arr);
}

static size_t *rec_count(const struct profile *p, const struct section *sec)
{
	return (size_t *)(uintptr_t)((const char *)p + sec->n);
}

/* Encoding. */

struct out {
	unsigned char *buf;
	size_t len, cap;
	uLong sum; /* checksum of buf[0, summed): END's, built as we go */
	size_t summed;
};

/*
 * The whole-file checksum that END carries is built from the sections'
 * own: the bytes between payloads (the header, section headers, padding)
 * are summed, and each payload's checksum is combined in, so no byte is
 * summed twice when writing or reading.
 */
static uLong sum_gap(uLong sum, const unsigned char *buf, size_t from, size_t to)
{
	return crc32_z(sum, buf + from, to - from);
}

/* Adds the section at offset at, whose payload sums to crc, to *sum. */
static void sum_section(uLong *sum, size_t *summed, const unsigned char *buf, size_t at,
			uint32_t crc, size_t size)
{
	*sum = sum_gap(*sum, buf, *summed, at + SECTION_HEAD);
	*sum = crc32_combine(*sum, crc, (z_off_t)size);
	*summed = at + SECTION_HEAD + size;
}

static unsigned char *out_reserve(struct out *o, size_t n)
{
	unsigned char *p;

	xgrow(&o->buf, &o->cap, o->len + n, 1);
	p = o->buf + o->len;
	o->len += n;
	return p;
}

static void put_u32(struct out *o, uint32_t v)
{
	unsigned char *p = out_reserve(o, 4);

	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void put_u64(struct out *o, uint64_t v)
{
	put_u32(o, (uint32_t)v);
	put_u32(o, (uint32_t)(v >> 32));
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get_u64(const unsigned char *p)
{
	return (uint64_t)get_u32(p) | (uint64_t)get_u32(p + 4) << 32;
}

/* Starts a section; returns the offset of its header for section_end. */
static size_t section_begin(struct out *o, uint32_t type)
{
	size_t at = o->len;

	put_u32(o, type);
	put_u32(o, 0);
	put_u64(o, 0);
	return at;
}

/* Appends record i of sec's array in p. */
static void put_record(struct out *o, const struct profile *p, const struct section *sec, size_t i)
{
	const char *rec = (const char *)rec_array(p, sec) + i * sec->rec_mem;

	for (const struct field *f = sec->fields; f->kind != F_END; f++) {
		if (f->kind == F_U64)
			put_u64(o, load_u64(rec + f->mem));
		else if (f->kind == F_ZERO)
			put_u32(o, 0);
		else
			put_u32(o, load_u32(rec + f->mem));
	}
}

static void put_header(struct out *o)
{
	memcpy(out_reserve(o, 8), DATAFILE_MAGIC, 8);
	put_u32(o, DATAFILE_VERSION);
	put_u32(o, 0);
	put_u64(o, 0);
}

/*
 * Where the sections after the samples go: a file written a chunk at a
 * time (each section's header, once its size and checksum are known,
 * put back over the 16 bytes kept for it), or, without a file, memory
 * holding them all. Writing a recording's end then takes a chunk of
 * memory, not a second copy of everything it holds.
 */
#define SINK_CHUNK (64 * 1024)

struct sink {
	int fd;		    /* -1: everything stays in buf */
	unsigned char *buf; /* bytes not written yet (all of them without fd) */
	size_t len, cap;
	uint64_t pos;  /* the file offset of buf[0] */
	uLong sum;     /* END's checksum of every byte before the open section */
	uint64_t head; /* the open section's header: file offset */
	uint32_t type; /* its type */
	uLong crc;     /* its payload's checksum so far */
	int err;       /* the first write error */
};

static void sink_init(struct sink *k, int fd, uint64_t pos, uLong sum)
{
	memset(k, 0, sizeof(*k));
	k->fd = fd;
	k->pos = pos;
	k->sum = sum;
}

static void sink_flush(struct sink *k)
{
	if (k->fd < 0 || k->len == 0)
		return;
	if (k->err == 0)
		k->err = write_all(k->fd, k->buf, k->len);
	k->pos += k->len;
	k->len = 0;
}

/* Appends bytes outside any payload: they are summed as they are. */
static void sink_raw(struct sink *k, const void *p, size_t n)
{
	if (n == 0)
		return;
	xgrow(&k->buf, &k->cap, k->len + n, 1);
	memcpy(k->buf + k->len, p, n);
	k->len += n;
	if (k->fd >= 0 && k->len >= SINK_CHUNK)
		sink_flush(k);
}

/* Appends payload bytes of the open section. */
static void sink_put(struct sink *k, const void *p, size_t n)
{
	k->crc = crc32_z(k->crc, p, n);
	sink_raw(k, p, n);
}

static void sink_begin(struct sink *k, uint32_t type)
{
	static const unsigned char none[SECTION_HEAD];

	k->head = k->pos + k->len;
	k->type = type;
	k->crc = crc32(0L, Z_NULL, 0);
	sink_raw(k, none, sizeof(none));
}

/* Closes the open section: its header put back, its padding, the checksum. */
static void sink_end(struct sink *k)
{
	static const unsigned char zeros[8];
	uint64_t size = k->pos + k->len - k->head - SECTION_HEAD;
	unsigned char h[SECTION_HEAD];
	struct out o = {.buf = h, .cap = sizeof(h)};

	put_u32(&o, k->type);
	put_u32(&o, (uint32_t)k->crc);
	put_u64(&o, size);
	if (k->head >= k->pos)
		memcpy(k->buf + (k->head - k->pos), h, sizeof(h));
	else if (k->err == 0 && pwrite(k->fd, h, sizeof(h), (off_t)k->head) != (ssize_t)sizeof(h))
		k->err = errno ? -errno : -EIO;
	k->sum = crc32_z(k->sum, h, sizeof(h));
	k->sum = crc32_combine(k->sum, k->crc, (z_off_t)size);
	if ((k->pos + k->len) % 8) {
		size_t pad = 8 - (size_t)((k->pos + k->len) % 8);

		k->sum = crc32_z(k->sum, zeros, pad);
		sink_raw(k, zeros, pad);
	}
}

/* Record i of sec's array in p, as a payload. */
static void sink_record(struct sink *k, const struct profile *p, const struct section *sec,
			size_t i)
{
	unsigned char rec[64];
	struct out o = {.buf = rec, .cap = sizeof(rec)}; /* no record outgrows it */

	put_record(&o, p, sec, i);
	sink_put(k, rec, o.len);
}

/*
 * Everything after the samples: the strings, the other array sections
 * and END. extra, when not NULL, adds records to sections before p's own
 * (datafile_commit's threads written out during the recording).
 */
static void put_rest(struct sink *k, const struct profile *p,
		     void (*extra)(struct sink *k, uint32_t type, void *arg), void *arg)
{
	unsigned char v[4];

	sink_begin(k, DF_STRINGS);
	sink_put(k, p->str.buf, p->str.len);
	sink_end(k);
	for (size_t x = 0; x < ARRAY_SIZE(sections); x++) {
		const struct section *sec = &sections[x];
		size_t n = *rec_count(p, sec);

		if (sec->type == DF_SAMPLES)
			continue;
		/* Files without off-CPU data stay byte for byte what they were. */
		if (sec->type == DF_OFFCPU && n == 0)
			continue;
		sink_begin(k, sec->type);
		if (extra)
			extra(k, sec->type, arg);
		for (size_t i = 0; i < n; i++)
			sink_record(k, p, sec, i);
		sink_end(k);
	}
	/*
	 * A column of the lines kept apart, so that readers from before it
	 * still read the lines section.
	 */
	sink_begin(k, DF_START_LINES);
	for (size_t i = 0; i < p->nlines; i++) {
		for (int b = 0; b < 4; b++)
			v[b] = (unsigned char)(p->lines[i].start_line >> (8 * b));
		sink_put(k, v, sizeof(v));
	}
	sink_end(k);
	/* Version 2: END holds the checksum of everything before it. */
	{
		unsigned char e[8] = {0};
		uLong sum = k->sum;

		sink_begin(k, DF_END);
		for (int b = 0; b < 4; b++)
			e[b] = (unsigned char)(sum >> (8 * b));
		sink_put(k, e, sizeof(e));
		sink_end(k);
	}
	sink_flush(k);
}

/* The samples come first, as datafile_add_sample streams them. */
unsigned char *datafile_encode(const struct profile *p, size_t *len)
{
	const struct section *samples = section_of(DF_SAMPLES);
	struct out h = {0};
	struct sink k;

	sink_init(&k, -1, 0, crc32(0L, Z_NULL, 0));
	put_header(&h);
	k.sum = crc32_z(k.sum, h.buf, h.len);
	sink_raw(&k, h.buf, h.len);
	free(h.buf);
	sink_begin(&k, DF_SAMPLES);
	for (size_t i = 0; i < p->nsamples; i++)
		sink_record(&k, p, samples, i);
	sink_end(&k);
	put_rest(&k, p, NULL, NULL);
	*len = k.len;
	return k.buf;
}

/* Decoding. */

struct in {
	const unsigned char *base;
	char *err;
	size_t errlen;
	size_t sec_at[DF_OFFCPU + 1]; /* where each known section starts */
	uint32_t *start_lines;	      /* DF_START_LINES, applied after every section */
	size_t nstart_lines;
};

static int fail(struct in *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int fail(struct in *in, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(in->err, in->errlen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

static const char *section_name(uint32_t type)
{
	static const char *const names[] = {"end",
					    "strings",
					    "meta",
					    "modules",
					    "frames",
					    "lines",
					    "stacks",
					    "stack frames",
					    "samples",
					    "threads",
					    "segments",
					    "start lines",
					    "off-CPU intervals"};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

/* Reads an array section's payload d of size bytes into p. */
static int load_records(struct in *in, struct profile *p, const struct section *sec,
			const unsigned char *d, size_t size, size_t at)
{
	size_t rsize = rec_size(sec), n;
	char *arr;

	if (size % rsize)
		return fail(in, "bad %s section at offset %zu: size %zu is not a multiple of %zu",
			    section_name(sec->type), at, size, rsize);
	n = size / rsize;
	arr = xcalloc(n ? n : 1, sec->rec_mem);
	for (size_t i = 0; i < n; i++) {
		char *rec = arr + i * sec->rec_mem;

		for (const struct field *f = sec->fields; f->kind != F_END; f++) {
			if (f->kind == F_U64) {
				uint64_t v = get_u64(d);

				memcpy(rec + f->mem, &v, 8);
				d += 8;
				continue;
			}
			if (f->kind != F_ZERO) {
				uint32_t v = get_u32(d);

				memcpy(rec + f->mem, &v, 4);
			}
			d += 4;
		}
	}
	free(rec_array(p, sec));
	*(char **)((char *)p + sec->arr) = arr;
	*rec_count(p, sec) = n;
	*(size_t *)((char *)p + sec->cap) = n;
	return 0;
}

static int load_section(struct in *in, struct profile *p, uint32_t type, const unsigned char *d,
			size_t size, size_t at)
{
	const struct section *sec;

	if (type == DF_STRINGS) {
		if (size == 0 || d[0] != '\0' || d[size - 1] != '\0')
			return fail(in, "bad strings section at offset %zu", at);
		p->str.buf = xrealloc(p->str.buf, size);
		memcpy(p->str.buf, d, size);
		p->str.len = p->str.cap = size;
		return 0;
	}
	if (type == DF_START_LINES) {
		if (size % 4)
			return fail(in,
				    "bad start lines section at offset %zu: size %zu is not a "
				    "multiple of 4",
				    at, size);
		/* The lines may come later in the file: kept until they have. */
		in->nstart_lines = size / 4;
		in->start_lines = xcalloc(in->nstart_lines ? in->nstart_lines : 1, 4);
		for (size_t i = 0; i < in->nstart_lines; i++)
			in->start_lines[i] = get_u32(d + 4 * i);
		return 0;
	}
	sec = section_of(type);
	/* A later minor addition: skipped. */
	return sec ? load_records(in, p, sec, d, size, at) : 0;
}

/* The file offset of record i of sec. */
static size_t rec_at(const struct in *in, const struct section *sec, size_t i)
{
	return in->sec_at[sec->type] + SECTION_HEAD + i * rec_size(sec);
}

static int check_frame(struct in *in, const struct profile *p, size_t i, size_t at)
{
	const struct pm_frame *f = &p->frames[i];

	if (f->module != PM_NONE && f->module >= p->nmodules)
		return fail(in, "bad frame %zu at offset %zu: module %u of %zu", i, at, f->module,
			    p->nmodules);
	if (f->nlines && (f->line0 >= p->nlines || f->nlines > p->nlines - f->line0 ||
			  f->nlines > DATAFILE_MAX_INLINE))
		return fail(in, "bad frame %zu at offset %zu: lines %u+%u of %zu", i, at, f->line0,
			    f->nlines, p->nlines);
	return 0;
}

static int check_stack(struct in *in, const struct profile *p, size_t i, size_t at)
{
	const struct pm_stack *s = &p->stacks[i];

	if (s->off > p->nstack_frames || s->depth > p->nstack_frames - s->off ||
	    s->depth > DATAFILE_MAX_DEPTH)
		return fail(in, "bad stack %zu at offset %zu: frames %u+%u of %zu", i, at, s->off,
			    s->depth, p->nstack_frames);
	return 0;
}

static int check_stack_frame(struct in *in, const struct profile *p, size_t i, size_t at)
{
	if (p->stack_frames[i] >= p->nframes)
		return fail(in, "bad stack frame %zu at offset %zu: frame %u of %zu", i, at,
			    p->stack_frames[i], p->nframes);
	return 0;
}

static int check_sample(struct in *in, const struct profile *p, size_t i, size_t at)
{
	if (p->samples[i].stack >= p->nstacks)
		return fail(in, "bad sample %zu at offset %zu: stack %u of %zu", i, at,
			    p->samples[i].stack, p->nstacks);
	return 0;
}

static int check_offcpu(struct in *in, const struct profile *p, size_t i, size_t at)
{
	const struct pm_offcpu *o = &p->offcpu[i];

	if (o->stack >= p->nstacks)
		return fail(in, "bad off-CPU interval %zu at offset %zu: stack %u of %zu", i, at,
			    o->stack, p->nstacks);
	if (o->flags & ~PM_OFFCPU_PREEMPTED)
		return fail(in, "bad off-CPU interval %zu at offset %zu: unknown flags %#x", i, at,
			    o->flags);
	return 0;
}

static int check_segment(struct in *in, const struct profile *p, size_t i, size_t at)
{
	const struct pm_segment *g = &p->segments[i];

	if (g->module >= p->nmodules || g->filesz > g->memsz ||
	    g->offset > UINT64_MAX - g->filesz || g->vaddr > UINT64_MAX - g->memsz)
		return fail(in, "bad segment %zu at offset %zu: module %u of %zu", i, at, g->module,
			    p->nmodules);
	return 0;
}

/*
 * Every cross-reference in range, and no stack or inline chain deeper
 * than perfmini writes (a crafted file could make reports run for hours);
 * see the invariants in profile.h.
 */
static int validate(struct in *in, const struct profile *p)
{
	for (size_t k = 0; k < ARRAY_SIZE(sections); k++) {
		const struct section *sec = &sections[k];
		const char *arr = rec_array(p, sec);
		size_t n = *rec_count(p, sec);

		for (size_t i = 0; i < n; i++) {
			const char *rec = arr + i * sec->rec_mem;
			size_t at = rec_at(in, sec, i);
			int ret;

			for (const struct field *f = sec->fields; f->kind != F_END; f++)
				if (f->kind == F_STR && load_u32(rec + f->mem) >= p->str.len)
					return fail(in,
						    "bad %s %zu at offset %zu: string "
						    "offset %u "
						    "outside the string table",
						    sec->name, i, at, load_u32(rec + f->mem));
			if (sec->check && (ret = sec->check(in, p, i, at)))
				return ret;
		}
	}
	/*
	 * perfmini gives every stack its own frames and every frame its own
	 * lines; a file whose stacks (or inline chains) share them could make
	 * a report walk far more than the file holds.
	 */
	{
		uint64_t depths = 0, lines = 0;

		for (size_t i = 0; i < p->nstacks; i++)
			depths += p->stacks[i].depth;
		for (size_t i = 0; i < p->nframes; i++)
			lines += p->frames[i].nlines;
		if (depths > p->nstack_frames)
			return fail(in,
				    "bad stacks section at offset %zu: its stacks hold "
				    "%llu frames, "
				    "more than the %zu of the stack frames section",
				    in->sec_at[DF_STACKS], (unsigned long long)depths,
				    p->nstack_frames);
		if (lines > p->nlines)
			return fail(in,
				    "bad frames section at offset %zu: its frames hold "
				    "%llu lines, "
				    "more than the %zu of the lines section",
				    in->sec_at[DF_FRAMES], (unsigned long long)lines, p->nlines);
	}
	if (in->start_lines) {
		if (in->nstart_lines != p->nlines)
			return fail(in,
				    "bad start lines section at offset %zu: %zu entries "
				    "for %zu "
				    "lines",
				    in->sec_at[DF_START_LINES], in->nstart_lines, p->nlines);
		for (size_t i = 0; i < p->nlines; i++)
			p->lines[i].start_line = in->start_lines[i];
	}
	return 0;
}

struct profile *datafile_decode(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	struct in in = {.base = buf, .err = err, .errlen = errlen};
	struct profile *p;
	uint32_t version, seen = 0;
	size_t at, summed = 0;
	uLong sum = crc32(0L, Z_NULL, 0);

	if (len == 0) {
		fail(&in, "empty file");
		return NULL;
	}
	if (len < 8 || memcmp(buf, DATAFILE_MAGIC, 8) != 0) {
		fail(&in, "not a perfmini data file (bad magic at offset 0)");
		return NULL;
	}
	if (len < HEADER_SIZE) {
		fail(&in, "truncated at offset %zu: the header needs %d bytes", len, HEADER_SIZE);
		return NULL;
	}
	version = get_u32(buf + 8);
	if (version > DATAFILE_VERSION || version == 0) {
		fail(&in, "data file version %u is not one this perfmini reads (1 to %d)%s",
		     version, DATAFILE_VERSION,
		     version > DATAFILE_VERSION ? "; it needs a newer perfmini" : "");
		return NULL;
	}
	p = profile_new();
	for (at = HEADER_SIZE;;) {
		uint32_t type, crc;
		uint64_t size;
		const unsigned char *d;

		if (len - at < SECTION_HEAD) {
			fail(&in,
			     "truncated at offset %zu: section header needs %d bytes, %zu "
			     "left",
			     at, SECTION_HEAD, len - at);
			goto bad;
		}
		type = get_u32(buf + at);
		crc = get_u32(buf + at + 4);
		size = get_u64(buf + at + 8);
		d = buf + at + SECTION_HEAD;
		if (size > len - at - SECTION_HEAD) {
			fail(&in,
			     "truncated at offset %zu: %s section needs %llu bytes, %zu "
			     "left",
			     at, section_name(type), (unsigned long long)size,
			     len - at - SECTION_HEAD);
			goto bad;
		}
		if ((uint32_t)crc32_z(crc32(0L, Z_NULL, 0), d, (size_t)size) != crc) {
			fail(&in, "corrupt %s section at offset %zu: checksum mismatch",
			     section_name(type), at);
			goto bad;
		}
		if (type == DF_END) {
			/*
			 * Version 2 closes with a checksum of everything before END,
			 * the section headers included, and nothing after it.
			 */
			if (version >= 2 &&
			    (size != 8 || get_u32(d) != (uint32_t)sum_gap(sum, buf, summed, at))) {
				fail(&in,
				     "corrupt file: the checksum at offset %zu does not "
				     "match",
				     at);
				goto bad;
			}
			if (version >= 2 && len - at - SECTION_HEAD != size) {
				fail(&in, "bad file: %zu bytes after the end at offset %zu",
				     len - at - SECTION_HEAD - (size_t)size,
				     at + SECTION_HEAD + (size_t)size);
				goto bad;
			}
			break;
		}
		if (type <= DF_OFFCPU)
			in.sec_at[type] = at;
		if (type < 32) {
			if (seen & (1u << type)) {
				fail(&in, "bad file: second %s section at offset %zu",
				     section_name(type), at);
				goto bad;
			}
			seen |= 1u << type;
		}
		if (load_section(&in, p, type, d, (size_t)size, at))
			goto bad;
		sum_section(&sum, &summed, buf, at, crc, (size_t)size);
		at += SECTION_HEAD + (size_t)size;
		at += (8 - at % 8) % 8;
		if (at > len) {
			fail(&in, "truncated at offset %zu: section padding missing", len);
			goto bad;
		}
	}
	if (validate(&in, p))
		goto bad;
	free(in.start_lines);
	return p;
bad:
	free(in.start_lines);
	profile_free(p);
	return NULL;
}

/* Streaming samples to the file as they come. */

#define SAMPLE_BUF    (64 * 1024)
#define SAMPLE_RECORD 40 /* rec_size(section_of(DF_SAMPLES)) */

int datafile_create(struct datafile_out *out, const char *path)
{
	struct out o = {0};
	const char *why;
	int ret;

	memset(out, 0, sizeof(*out));
	out->sfd = -1;
	out->tfd = -1;
	ret = outfile_open(&out->file, path, 0600, &why);
	if (ret < 0) {
		error("cannot create '%s': %s", path, why ? why : strerror(-ret));
		return ret;
	}
	out->crc = crc32(0L, Z_NULL, 0);
	out->buf = xmalloc(SAMPLE_BUF);
	/*
	 * A file the samples can go into right away: the header and the
	 * samples section's header first, their size and checksum filled in
	 * at the end. Elsewhere (a pipe, a device) they wait in a spill file.
	 */
	if (!outfile_is_stream(&out->file)) {
		put_header(&o);
		section_begin(&o, DF_SAMPLES);
		ret = write_all(out->file.fd, o.buf, o.len);
		free(o.buf);
		out->sfd = out->file.fd;
	} else {
		out->sfd = unnamed_file("perfmini-spill");
		ret = out->sfd < 0 ? out->sfd : 0;
		out->spill = true;
	}
	if (ret < 0) {
		error("cannot write '%s': %s", path, strerror(-ret));
		datafile_abandon(out);
	}
	return ret;
}

static void flush_samples(struct datafile_out *out)
{
	if (out->blen && out->err == 0)
		out->err = write_all(out->sfd, out->buf, out->blen);
	out->crc = crc32_z(out->crc, out->buf, out->blen);
	out->bytes += out->blen;
	out->blen = 0;
}

static void le32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void le64(unsigned char *p, uint64_t v)
{
	le32(p, (uint32_t)v);
	le32(p + 4, (uint32_t)(v >> 32));
}

/*
 * A sample record as the samples section's descriptor lays it out,
 * written directly: this runs for every sample taken. check_profile
 * compares it with the descriptor's encoding byte for byte.
 */
void datafile_add_sample(struct datafile_out *out, const struct pm_sample *smp)
{
	unsigned char *rec;

	if (out->blen + SAMPLE_RECORD > SAMPLE_BUF)
		flush_samples(out);
	rec = out->buf + out->blen;
	le64(rec, smp->time);
	le64(rec + 8, smp->period);
	le32(rec + 16, smp->pid);
	le32(rec + 20, smp->tid);
	le32(rec + 24, smp->cpu);
	le32(rec + 28, smp->stack);
	le32(rec + 32, smp->comm);
	le32(rec + 36, 0);
	out->blen += SAMPLE_RECORD;
	out->nsamples++;
}

#define THREAD_BUF 4096

static void flush_threads(struct datafile_out *out)
{
	if (out->tlen == 0)
		return;
	if (out->tfd == -1)
		out->tfd = unnamed_file("perfmini-spill");
	if (out->err == 0)
		out->err = out->tfd < 0 ? out->tfd : write_all(out->tfd, out->tbuf, out->tlen);
	out->tbytes += out->tlen;
	out->tlen = 0;
}

void datafile_add_thread(struct datafile_out *out, const struct pm_thread *t)
{
	const struct profile one = {.threads = (struct pm_thread *)(uintptr_t)t, .nthreads = 1};
	const struct section *sec = section_of(DF_THREADS);
	struct out o;

	if (!out->tbuf)
		out->tbuf = xmalloc(THREAD_BUF);
	if (out->tlen + rec_size(sec) > THREAD_BUF)
		flush_threads(out);
	o = (struct out){.buf = out->tbuf + out->tlen, .cap = THREAD_BUF - out->tlen};
	put_record(&o, &one, sec, 0);
	out->tlen += o.len;
}

/* The threads added, first in the threads section. */
static void put_added_threads(struct sink *k, uint32_t type, void *arg)
{
	struct datafile_out *out = arg;
	unsigned char *buf;
	uint64_t left = out->tbytes;

	if (type != DF_THREADS)
		return;
	if (left && out->err == 0 && lseek(out->tfd, 0, SEEK_SET) < 0)
		out->err = -errno;
	buf = xmalloc(THREAD_BUF);
	while (left && out->err == 0) {
		ssize_t n = read(out->tfd, buf, left < THREAD_BUF ? (size_t)left : THREAD_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			out->err = n < 0 ? -errno : -EIO;
			break;
		}
		sink_put(k, buf, (size_t)n);
		left -= (uint64_t)n;
	}
	free(buf);
	sink_put(k, out->tbuf, out->tlen);
}

/* Everything out holds, but the output file itself. */
static void release_spills(struct datafile_out *out)
{
	if (out->spill && out->sfd >= 0)
		close(out->sfd);
	out->sfd = -1;
	if (out->tfd >= 0)
		close(out->tfd);
	out->tfd = -1;
	free(out->buf);
	out->buf = NULL;
	free(out->tbuf);
	out->tbuf = NULL;
}

void datafile_abandon(struct datafile_out *out)
{
	release_spills(out);
	outfile_abandon(&out->file);
}

/* Copies the spilled samples' len bytes to fd. */
static int copy_spill(int from, int to, uint64_t len)
{
	unsigned char *buf;
	int ret = 0;

	if (lseek(from, 0, SEEK_SET) < 0)
		return -errno;
	buf = xmalloc(SAMPLE_BUF);
	while (len && ret == 0) {
		ssize_t n = read(from, buf, len < SAMPLE_BUF ? (size_t)len : SAMPLE_BUF);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -EIO;
			break;
		}
		ret = write_all(to, buf, (size_t)n);
		len -= (uint64_t)n;
	}
	free(buf);
	return ret;
}

int datafile_commit(struct datafile_out *out, const struct profile *p, size_t *written)
{
	struct out head = {.sum = crc32(0L, Z_NULL, 0)};
	struct sink rest;
	char *path = xstrdup(out->file.path);
	uint64_t rest_len;
	int ret;

	/* Samples the profile holds itself go after the streamed ones. */
	for (size_t i = 0; i < p->nsamples; i++)
		datafile_add_sample(out, &p->samples[i]);
	flush_samples(out);
	ret = out->err;
	/*
	 * The header and the samples section's, now that its size and
	 * checksum are known; then the checksum of the file so far, from
	 * which the rest goes on.
	 */
	put_header(&head);
	section_begin(&head, DF_SAMPLES);
	for (int i = 0; i < 4; i++)
		head.buf[HEADER_SIZE + 4 + i] = (unsigned char)(out->crc >> (8 * i));
	for (int i = 0; i < 8; i++)
		head.buf[HEADER_SIZE + 8 + i] = (unsigned char)(out->bytes >> (8 * i));
	sum_section(&head.sum, &head.summed, head.buf, HEADER_SIZE, (uint32_t)out->crc,
		    (size_t)out->bytes);
	if (ret == 0 && !out->spill &&
	    pwrite(out->file.fd, head.buf, head.len, 0) != (ssize_t)head.len)
		ret = errno ? -errno : -EIO;
	/*
	 * The samples are a multiple of 8 bytes: no padding; the rest
	 * follows, written a chunk at a time where the samples went (the
	 * output, or the spill file then copied out whole).
	 */
	sink_init(&rest, out->sfd, out->spill ? out->bytes : head.len + out->bytes, head.sum);
	if (ret == 0) {
		put_rest(&rest, p, put_added_threads, out);
		ret = rest.err ? rest.err : out->err;
	}
	rest_len = rest.pos - (out->spill ? out->bytes : head.len + out->bytes);
	if (ret == 0 && out->spill) {
		ret = write_all(out->file.fd, head.buf, head.len);
		if (ret == 0)
			ret = copy_spill(out->sfd, out->file.fd, out->bytes + rest_len);
	}
	if (ret == 0) {
		release_spills(out);
		ret = outfile_commit(&out->file);
	} else {
		datafile_abandon(out);
	}
	if (ret < 0)
		error("cannot write '%s': %s", path, strerror(-ret));
	else if (written)
		*written = head.len + (size_t)(out->bytes + rest_len);
	free(head.buf);
	free(rest.buf);
	free(path);
	return ret;
}

int datafile_write(const struct profile *p, const char *path, size_t *written)
{
	struct datafile_out out;
	int ret = datafile_create(&out, path);

	return ret < 0 ? ret : datafile_commit(&out, p, written);
}

struct profile *datafile_read(const char *path, bool force)
{
	struct profile *p = NULL;
	unsigned char *buf = NULL;
	size_t len = 0, cap = 0;
	char err[256];
	struct stat st;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		error("cannot open '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("'%s' is not a regular file", path);
		goto out;
	}
	/* Another user's file may have been planted for us to parse: as perf does, ask. */
	if (!force && st.st_uid != geteuid() && st.st_uid != 0) {
		const struct passwd *pw = getpwuid(st.st_uid);

		error("'%s' belongs to uid %u%s%s%s, not to you: use --force to read it", path,
		      (unsigned)st.st_uid, pw ? " (" : "", pw ? pw->pw_name : "", pw ? ")" : "");
		goto out;
	}
	/* Eight bytes say whether it is a data file at all: before reading the rest. */
	{
		char magic[8];
		ssize_t n;

		do {
			n = pread(fd, magic, sizeof(magic), 0);
		} while (n < 0 && errno == EINTR);
		if (n < 0) {
			error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n < (ssize_t)sizeof(magic) || memcmp(magic, DATAFILE_MAGIC, 8) != 0) {
			error("%s: not a perfmini data file (bad magic at offset 0)", path);
			goto out;
		}
	}
	/* One read, into exactly its size, for a file that does not grow meanwhile. */
	if (st.st_size > 0) {
		cap = (size_t)st.st_size + 1;
		buf = xmalloc(cap);
	}
	for (;;) {
		ssize_t n;

		xgrow(&buf, &cap, len + 1, 1);
		n = read(fd, buf + len, cap - len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error("cannot read '%s': %s", path, strerror(errno));
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	p = datafile_decode(buf, len, err, sizeof(err));
	if (!p)
		error("%s: %s", path, err);
out:
	close(fd);
	free(buf);
	return p;
}
