/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.c - a data file's bytes decoded into a profile and validated:
 * every length checked before it is read, every reference in range. No
 * I/O here; see datafile.h for the layout and codec-int.h for the table.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "store/codec-int.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/bytes.h"

struct in {
	uint32_t version; /* the header's */
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
static int load_records(struct in *in, struct profile *p, const struct df_section *sec,
			const unsigned char *d, size_t size, size_t at)
{
	size_t rsize = df_rec_size(sec), n;
	char *arr;

	if (size % rsize)
		return fail(in, "bad %s section at offset %zu: size %zu is not a multiple of %zu",
			    section_name(sec->type), at, size, rsize);
	n = size / rsize;
	arr = xcalloc(n ? n : 1, sec->rec_mem);
	for (size_t i = 0; i < n; i++) {
		char *rec = arr + i * sec->rec_mem;

		for (const struct df_field *f = sec->fields; f->kind != DF_F_END; f++) {
			if (f->kind == DF_F_U64) {
				uint64_t v = get_le64(d);

				memcpy(rec + f->mem, &v, 8);
				d += 8;
				continue;
			}
			if (f->kind != DF_F_ZERO) {
				uint32_t v = get_le32(d);

				memcpy(rec + f->mem, &v, 4);
			}
			d += 4;
		}
	}
	free(df_rec_array(p, sec));
	*(char **)((char *)p + sec->arr) = arr;
	*df_rec_count(p, sec) = n;
	*(size_t *)((char *)p + sec->cap) = n;
	return 0;
}

static int load_section(struct in *in, struct profile *p, uint32_t type, const unsigned char *d,
			size_t size, size_t at)
{
	const struct df_section *sec;

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
			in->start_lines[i] = get_le32(d + 4 * i);
		return 0;
	}
	sec = df_section_of(type);
	/* A later minor addition: skipped. */
	return sec ? load_records(in, p, sec, d, size, at) : 0;
}

/* The file offset of record i of sec. */
static size_t rec_at(const struct in *in, const struct df_section *sec, size_t i)
{
	return in->sec_at[sec->type] + DF_SECTION_HEAD + i * df_rec_size(sec);
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

/* The references other than strings that a section's records hold. */
typedef int check_fn(struct in *in, const struct profile *p, size_t i, size_t at);
static check_fn *const checks[] = {
	[DF_FRAMES] = check_frame,
	[DF_STACKS] = check_stack,
	[DF_STACK_FRAMES] = check_stack_frame,
	[DF_SAMPLES] = check_sample,
	[DF_SEGMENTS] = check_segment,
	[DF_OFFCPU] = check_offcpu,
};

/*
 * Every cross-reference in range, and no stack or inline chain deeper
 * than perfmini writes (a crafted file could make reports run for hours);
 * see the invariants in profile.h.
 */
static int validate(struct in *in, const struct profile *p)
{
	for (size_t k = 0; k < df_nsections; k++) {
		const struct df_section *sec = &df_sections[k];
		check_fn *check = sec->type < ARRAY_SIZE(checks) ? checks[sec->type] : NULL;
		const char *arr = df_rec_array(p, sec);
		size_t n = *df_rec_count(p, sec);

		for (size_t i = 0; i < n; i++) {
			const char *rec = arr + i * sec->rec_mem;
			size_t at = rec_at(in, sec, i);
			int ret;

			for (const struct df_field *f = sec->fields; f->kind != DF_F_END; f++)
				if (f->kind == DF_F_STR && load_u32(rec + f->mem) >= p->str.len)
					return fail(in,
						    "bad %s %zu at offset %zu: string "
						    "offset %u "
						    "outside the string table",
						    sec->name, i, at, load_u32(rec + f->mem));
			if (check && (ret = check(in, p, i, at)))
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

/* The file header: 0, or -EBADMSG with in's message. */
static int read_header(struct in *in, const unsigned char *buf, size_t len)
{
	if (len == 0)
		return fail(in, "empty file");
	if (len < 8 || memcmp(buf, DATAFILE_MAGIC, 8) != 0)
		return fail(in, "not a perfmini data file (bad magic at offset 0)");
	if (len < DF_HEADER_SIZE)
		return fail(in, "truncated at offset %zu: the header needs %d bytes", len,
			    DF_HEADER_SIZE);
	in->version = get_le32(buf + 8);
	if (in->version > DATAFILE_VERSION || in->version == 0)
		return fail(in, "data file version %u is not one this perfmini reads (1 to %d)%s",
			    in->version, DATAFILE_VERSION,
			    in->version > DATAFILE_VERSION ? "; it needs a newer perfmini" : "");
	return 0;
}

/*
 * END, the last section: since version 2 it holds the checksum of
 * everything before it, the section headers included, and nothing
 * follows it.
 */
static int read_end(struct in *in, const unsigned char *buf, size_t len, size_t at, uint64_t size,
		    uLong sum)
{
	if (in->version < 2)
		return 0;
	if (size != DF_END_PAYLOAD || get_le32(buf + at + DF_SECTION_HEAD) != (uint32_t)sum)
		return fail(in, "corrupt file: the checksum at offset %zu does not match", at);
	if (len - at - DF_SECTION_HEAD != size)
		return fail(in, "bad file: %zu bytes after the end at offset %zu",
			    len - at - DF_SECTION_HEAD - (size_t)size,
			    at + DF_SECTION_HEAD + (size_t)size);
	return 0;
}

/* Every section from the header's end to END, into p. */
static int read_sections(struct in *in, struct profile *p, const unsigned char *buf, size_t len)
{
	uint32_t seen = 0;
	size_t summed = 0;
	uLong sum = crc32(0L, Z_NULL, 0);

	for (size_t at = DF_HEADER_SIZE;;) {
		uint32_t type, crc;
		uint64_t size;
		const unsigned char *d = buf + at + DF_SECTION_HEAD;

		if (len - at < DF_SECTION_HEAD)
			return fail(
				in,
				"truncated at offset %zu: section header needs %d bytes, %zu left",
				at, DF_SECTION_HEAD, len - at);
		type = get_le32(buf + at);
		crc = get_le32(buf + at + 4);
		size = get_le64(buf + at + 8);
		if (size > len - at - DF_SECTION_HEAD)
			return fail(
				in,
				"truncated at offset %zu: %s section needs %llu bytes, %zu left",
				at, section_name(type), (unsigned long long)size,
				len - at - DF_SECTION_HEAD);
		if ((uint32_t)crc32_z(crc32(0L, Z_NULL, 0), d, (size_t)size) != crc)
			return fail(in, "corrupt %s section at offset %zu: checksum mismatch",
				    section_name(type), at);
		if (type == DF_END)
			return read_end(in, buf, len, at, size, df_sum_gap(sum, buf, summed, at));
		if (type <= DF_OFFCPU)
			in->sec_at[type] = at;
		if (type < 32) {
			if (seen & (1u << type))
				return fail(in, "bad file: second %s section at offset %zu",
					    section_name(type), at);
			seen |= 1u << type;
		}
		if (load_section(in, p, type, d, (size_t)size, at))
			return -EBADMSG;
		df_sum_section(&sum, &summed, buf, at, crc, (size_t)size);
		at += DF_SECTION_HEAD + (size_t)size;
		at += (8 - at % 8) % 8;
		if (at > len)
			return fail(in, "truncated at offset %zu: section padding missing", len);
	}
}

struct profile *datafile_decode(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	struct in in = {.err = err, .errlen = errlen};
	struct profile *p;

	if (read_header(&in, buf, len))
		return NULL;
	p = profile_new();
	if (read_sections(&in, p, buf, len) || validate(&in, p)) {
		profile_free(p);
		p = NULL;
	}
	free(in.start_lines);
	return p;
}
