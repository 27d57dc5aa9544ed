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

/* A version 3 RUN: records [first, first + n) of its type, at file offset at. */
struct run {
	size_t first, n, at;
};

/*
 * A column of u32s beside the records of a section (DF_START_LINES,
 * DF_MODULE_OWNERS), kept until every section is read: its records may
 * come later in the file.
 */
struct column {
	uint32_t *v;
	size_t n, cap;
};

#define DF_LAST_TYPE DF_MODULE_OWNERS

struct in {
	uint32_t version; /* the header's */
	char *err;
	size_t errlen;
	size_t sec_at[DF_LAST_TYPE + 1];    /* where each known section starts (the last RUN) */
	struct run *runs[DF_LAST_TYPE + 1]; /* version 3: every RUN of each type, in file order */
	size_t nruns[DF_LAST_TYPE + 1], runs_cap[DF_LAST_TYPE + 1];
	struct column start_lines, owners;
	uint64_t sync_time;		   /* the last SYNC's */
	uint64_t last_time;		   /* the latest sample or span time read so far */
	size_t timed_samples, timed_spans; /* the records last_time has seen */
	size_t cut;			   /* version 3 cut short: where the file breaks off */
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
					    "off-CPU intervals",
					    "run",
					    "frame lines",
					    "sync",
					    "wake-ups",
					    "module owners"};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

/*
 * Reads an array section's payload d of size bytes into p, as its records
 * from index first on (0 for a whole section, which replaces the array).
 */
static int load_records(struct in *in, struct profile *p, const struct df_section *sec,
			size_t first, const unsigned char *d, size_t size, size_t at)
{
	size_t rsize = df_rec_size(sec), n, *count = df_rec_count(p, sec);
	size_t *cap = (size_t *)((char *)p + sec->cap);
	char **arrp = (char **)((char *)p + sec->arr), *arr;

	if (size % rsize)
		return fail(in, "bad %s section at offset %zu: size %zu is not a multiple of %zu",
			    section_name(sec->type), at, size, rsize);
	n = size / rsize;
	if (first > *count)
		return fail(in, "bad run at offset %zu: %s from %zu of %zu", at, sec->name, first,
			    *count);
	if (n == 0)
		return 0;
	if (first + n > *cap) {
		size_t want = first + n > 2 * *cap ? first + n : 2 * *cap;

		*arrp = xrealloc(*arrp, (want ? want : 1) * sec->rec_mem);
		*cap = want;
	}
	if (first + n > *count)
		*count = first + n;
	arr = *arrp + first * sec->rec_mem;
	memset(arr, 0, n * sec->rec_mem);
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
	return 0;
}

/* A column's u32s of section type from index first on (0 for a whole section). */
static int load_column(struct in *in, uint32_t type, size_t first, const unsigned char *d,
		       size_t size, size_t at)
{
	struct column *c = type == DF_START_LINES ? &in->start_lines : &in->owners;
	size_t n = size / 4;

	if (size % 4)
		return fail(in, "bad %s section at offset %zu: size %zu is not a multiple of 4",
			    section_name(type), at, size);
	if (first > c->n)
		return fail(in, "bad run at offset %zu: %s from %zu of %zu", at, section_name(type),
			    first, c->n);
	xgrow(&c->v, &c->cap, first + n, sizeof(*c->v));
	for (size_t i = 0; i < n; i++)
		c->v[first + i] = get_le32(d + 4 * i);
	if (first + n > c->n)
		c->n = first + n;
	in->sec_at[type] = at;
	return 0;
}

/* Strings from offset first on: the table so far, extended. */
static int load_strings(struct in *in, struct profile *p, size_t first, const unsigned char *d,
			size_t size, size_t at)
{
	size_t have = first ? p->str.len : 0;

	if (size == 0 || d[size - 1] != '\0' || first != have || (first == 0 && d[0] != '\0'))
		return fail(in, "bad strings section at offset %zu", at);
	xgrow(&p->str.buf, &p->str.cap, first + size, 1);
	memcpy(p->str.buf + first, d, size);
	p->str.len = first + size;
	return 0;
}

/* Version 3's RUN: records of a type from an index on. */
static int load_run(struct in *in, struct profile *p, const unsigned char *d, size_t size,
		    size_t at)
{
	const struct df_section *sec;
	uint32_t type;
	uint64_t first;

	if (size < DF_RUN_HEAD)
		return fail(in, "bad run at offset %zu: %zu bytes", at, size);
	type = get_le32(d);
	first = get_le64(d + 8);
	d += DF_RUN_HEAD;
	size -= DF_RUN_HEAD;
	if (first > SIZE_MAX / 2)
		return fail(in, "bad run at offset %zu: first index %llu", at,
			    (unsigned long long)first);
	if (type == DF_STRINGS)
		return load_strings(in, p, (size_t)first, d, size, at);
	if (type == DF_START_LINES || type == DF_MODULE_OWNERS)
		return load_column(in, type, (size_t)first, d, size, at);
	sec = df_section_of(type);
	if (!sec)
		return 0; /* a later addition: skipped */
	if (load_records(in, p, sec, (size_t)first, d, size, at))
		return -EBADMSG;
	xgrow(&in->runs[type], &in->runs_cap[type], in->nruns[type] + 1, sizeof(struct run));
	in->runs[type][in->nruns[type]++] =
		(struct run){(size_t)first, size / df_rec_size(sec), at};
	in->sec_at[type] = at;
	return 0;
}

/* Lines given to frames written before they were named. */
static int load_frame_lines(struct in *in, struct profile *p, const unsigned char *d, size_t size,
			    size_t at)
{
	if (size % DF_FRAME_LINES_RECORD)
		return fail(in, "bad frame lines section at offset %zu: size %zu", at, size);
	for (size_t i = 0; i < size / DF_FRAME_LINES_RECORD; i++, d += DF_FRAME_LINES_RECORD) {
		uint32_t f = get_le32(d);

		if (f >= p->nframes)
			return fail(in, "bad frame lines %zu at offset %zu: frame %u of %zu", i, at,
				    f, p->nframes);
		p->frames[f].line0 = get_le32(d + 4);
		p->frames[f].nlines = get_le32(d + 8);
	}
	in->sec_at[DF_FRAMES] = at;
	return 0;
}

static int load_section(struct in *in, struct profile *p, uint32_t type, const unsigned char *d,
			size_t size, size_t at)
{
	const struct df_section *sec;

	if (in->version >= 3 && type == DF_RUN)
		return load_run(in, p, d, size, at);
	if (in->version >= 3 && type == DF_FRAME_LINES)
		return load_frame_lines(in, p, d, size, at);
	if (type == DF_STRINGS)
		return load_strings(in, p, 0, d, size, at);
	if (type == DF_START_LINES) {
		in->start_lines.n = 0;
		return load_column(in, type, 0, d, size, at);
	}
	sec = df_section_of(type);
	if (sec)
		*df_rec_count(p, sec) = 0; /* a whole section: the array anew */
	/* A later minor addition: skipped. */
	return sec ? load_records(in, p, sec, 0, d, size, at) : 0;
}

/*
 * The file offset of record i of sec, for messages: in a version 3 file,
 * in the last RUN that wrote it.
 */
static size_t rec_at(const struct in *in, const struct df_section *sec, size_t i)
{
	for (size_t k = in->nruns[sec->type]; k-- > 0;) {
		const struct run *r = &in->runs[sec->type][k];

		if (i >= r->first && i - r->first < r->n)
			return r->at + DF_SECTION_HEAD + DF_RUN_HEAD +
			       (i - r->first) * df_rec_size(sec);
	}
	return in->sec_at[sec->type] + DF_SECTION_HEAD + i * df_rec_size(sec);
}

static int check_frame(struct in *in, const struct profile *p, size_t i,
		       const struct df_section *sec)
{
	const struct pm_frame *f = &p->frames[i];

	if (f->module != PM_NONE && f->module >= p->nmodules)
		return fail(in, "bad frame %zu at offset %zu: module %u of %zu", i,
			    rec_at(in, sec, i), f->module, p->nmodules);
	if (f->nlines && (f->line0 >= p->nlines || f->nlines > p->nlines - f->line0 ||
			  f->nlines > DATAFILE_MAX_INLINE))
		return fail(in, "bad frame %zu at offset %zu: lines %u+%u of %zu", i,
			    rec_at(in, sec, i), f->line0, f->nlines, p->nlines);
	return 0;
}

static int check_stack(struct in *in, const struct profile *p, size_t i,
		       const struct df_section *sec)
{
	const struct pm_stack *s = &p->stacks[i];

	if (s->off > p->nstack_frames || s->depth > p->nstack_frames - s->off ||
	    s->depth > DATAFILE_MAX_DEPTH)
		return fail(in, "bad stack %zu at offset %zu: frames %u+%u of %zu", i,
			    rec_at(in, sec, i), s->off, s->depth, p->nstack_frames);
	return 0;
}

static int check_stack_frame(struct in *in, const struct profile *p, size_t i,
			     const struct df_section *sec)
{
	if (p->stack_frames[i] >= p->nframes)
		return fail(in, "bad stack frame %zu at offset %zu: frame %u of %zu", i,
			    rec_at(in, sec, i), p->stack_frames[i], p->nframes);
	return 0;
}

static int check_sample(struct in *in, const struct profile *p, size_t i,
			const struct df_section *sec)
{
	if (p->samples[i].stack >= p->nstacks)
		return fail(in, "bad sample %zu at offset %zu: stack %u of %zu", i,
			    rec_at(in, sec, i), p->samples[i].stack, p->nstacks);
	return 0;
}

static int check_offcpu(struct in *in, const struct profile *p, size_t i,
			const struct df_section *sec)
{
	const struct pm_offcpu *o = &p->offcpu[i];

	if (o->stack >= p->nstacks)
		return fail(in, "bad off-CPU interval %zu at offset %zu: stack %u of %zu", i,
			    rec_at(in, sec, i), o->stack, p->nstacks);
	if (o->flags & ~PM_OFFCPU_PREEMPTED)
		return fail(in, "bad off-CPU interval %zu at offset %zu: unknown flags %#x", i,
			    rec_at(in, sec, i), o->flags);
	return 0;
}

static int check_wakeup(struct in *in, const struct profile *p, size_t i,
			const struct df_section *sec)
{
	const struct pm_wakeup *w = &p->wakeups[i];

	if (w->flags & ~PM_WAKEUP_SEEN)
		return fail(in, "bad wake-up %zu at offset %zu: unknown flags %#x", i,
			    rec_at(in, sec, i), w->flags);
	if ((w->flags & PM_WAKEUP_SEEN) && w->stack >= p->nstacks)
		return fail(in, "bad wake-up %zu at offset %zu: stack %u of %zu", i,
			    rec_at(in, sec, i), w->stack, p->nstacks);
	if (i < p->noffcpu && w->delay > p->offcpu[i].duration)
		return fail(in, "bad wake-up %zu at offset %zu: %llu ns into a span of %llu", i,
			    rec_at(in, sec, i), (unsigned long long)w->delay,
			    (unsigned long long)p->offcpu[i].duration);
	return 0;
}

static int check_segment(struct in *in, const struct profile *p, size_t i,
			 const struct df_section *sec)
{
	const struct pm_segment *g = &p->segments[i];

	if (g->module >= p->nmodules || g->filesz > g->memsz ||
	    g->offset > UINT64_MAX - g->filesz || g->vaddr > UINT64_MAX - g->memsz)
		return fail(in, "bad segment %zu at offset %zu: module %u of %zu", i,
			    rec_at(in, sec, i), g->module, p->nmodules);
	return 0;
}

/* The references other than strings that a section's records hold. */
typedef int check_fn(struct in *in, const struct profile *p, size_t i,
		     const struct df_section *sec);
static check_fn *const checks[] = {
	[DF_FRAMES] = check_frame,
	[DF_STACKS] = check_stack,
	[DF_STACK_FRAMES] = check_stack_frame,
	[DF_SAMPLES] = check_sample,
	[DF_SEGMENTS] = check_segment,
	[DF_OFFCPU] = check_offcpu,
	[DF_WAKEUPS] = check_wakeup,
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
			int ret;

			for (const struct df_field *f = sec->fields; f->kind != DF_F_END; f++)
				if (f->kind == DF_F_STR && load_u32(rec + f->mem) >= p->str.len)
					return fail(in,
						    "bad %s %zu at offset %zu: string "
						    "offset %u "
						    "outside the string table",
						    sec->name, i, rec_at(in, sec, i),
						    load_u32(rec + f->mem));
			if (check && (ret = check(in, p, i, sec)))
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
	/* Wake-ups go with the off-CPU spans, one each, or are absent. */
	if (p->nwakeups && p->nwakeups != p->noffcpu)
		return fail(
			in,
			"bad wake-ups section at offset %zu: %zu wake-ups for %zu off-CPU spans",
			in->sec_at[DF_WAKEUPS], p->nwakeups, p->noffcpu);
	if (in->start_lines.v) {
		if (in->start_lines.n != p->nlines)
			return fail(
				in,
				"bad start lines section at offset %zu: %zu entries for %zu lines",
				in->sec_at[DF_START_LINES], in->start_lines.n, p->nlines);
		for (size_t i = 0; i < p->nlines; i++)
			p->lines[i].start_line = in->start_lines.v[i];
	}
	/* A file written before owners were: none known (never root's by default). */
	if (in->owners.v && in->owners.n != p->nmodules)
		return fail(in,
			    "bad module owners section at offset %zu: %zu entries for %zu modules",
			    in->sec_at[DF_MODULE_OWNERS], in->owners.n, p->nmodules);
	for (size_t i = 0; i < p->nmodules; i++)
		p->modules[i].owner = in->owners.v ? in->owners.v[i] : PM_OWNER_UNKNOWN;
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

/*
 * A chunk's end: its SYNC holds the checksum of everything before it, so
 * that a file cut short is checked as a whole one is, headers included;
 * and the count of samples so far and the latest time of a sample or a
 * span, both checked against the records (0: an older writer that did
 * not say, in whole files and in the last chunk of a sealed slice).
 */
static int read_sync(struct in *in, const struct profile *p, const unsigned char *d, size_t size,
		     size_t at, uLong sum)
{
	uint64_t t, n;

	if (size < DF_SYNC_PAYLOAD)
		return fail(in, "bad sync section at offset %zu: %zu bytes", at, size);
	if (get_le32(d + 16) != (uint32_t)sum)
		return fail(in, "corrupt file: the checksum at offset %zu does not match", at);
	t = get_le64(d);
	n = get_le64(d + 8);
	for (; in->timed_samples < p->nsamples; in->timed_samples++)
		if (p->samples[in->timed_samples].time > in->last_time)
			in->last_time = p->samples[in->timed_samples].time;
	for (; in->timed_spans < p->noffcpu; in->timed_spans++)
		if (p->offcpu[in->timed_spans].time > in->last_time)
			in->last_time = p->offcpu[in->timed_spans].time;
	if (n && n != p->nsamples)
		return fail(in, "bad sync section at offset %zu: it counts %llu samples, not %zu",
			    at, (unsigned long long)n, p->nsamples);
	if (t && t != in->last_time)
		return fail(in, "bad sync section at offset %zu: time %llu ns, not %llu", at,
			    (unsigned long long)t, (unsigned long long)in->last_time);
	in->sync_time = t;
	return 0;
}

/*
 * Version 3: where the sections to read end. A whole file is read to its
 * END; one cut short (the recorder killed, or still writing) ends in the
 * middle of a section or without END, and is read to its last SYNC, the
 * end of its last complete chunk: *cut gets the offset the file breaks
 * off at, 0 for a whole file.
 */
static size_t read_limit(const unsigned char *buf, size_t len, size_t *cut)
{
	size_t last_sync = DF_HEADER_SIZE, at = DF_HEADER_SIZE;

	for (;;) {
		uint32_t type;
		uint64_t size;

		if (len - at < DF_SECTION_HEAD)
			break;
		type = get_le32(buf + at);
		size = get_le64(buf + at + 8);
		if (size > len - at - DF_SECTION_HEAD)
			break;
		if (type == DF_END) {
			*cut = 0;
			return len;
		}
		at += DF_SECTION_HEAD + (size_t)size;
		at += (8 - at % 8) % 8;
		if (at > len)
			break;
		if (type == DF_SYNC)
			last_sync = at;
	}
	*cut = at < len ? at : len;
	return last_sync;
}

/* Every section from the header's end to END (or limit, cut short), into p. */
static int read_sections(struct in *in, struct profile *p, const unsigned char *buf, size_t len,
			 size_t limit)
{
	uint32_t seen = 0;
	size_t summed = 0;
	uLong sum = crc32(0L, Z_NULL, 0);

	for (size_t at = DF_HEADER_SIZE;;) {
		uint32_t type, crc;
		uint64_t size;
		const unsigned char *d = buf + at + DF_SECTION_HEAD;

		if (at == limit && in->cut)
			return 0; /* cut short: its complete chunks read */
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
		if (in->version >= 3 && type == DF_SYNC &&
		    read_sync(in, p, d, (size_t)size, at, df_sum_gap(sum, buf, summed, at)))
			return -EBADMSG;
		if (type <= DF_LAST_TYPE)
			in->sec_at[type] = at;
		/* Version 3 repeats its RUN, FRAME_LINES and SYNC sections. */
		if (type < 32 && !(in->version >= 3 && type >= DF_RUN && type <= DF_SYNC)) {
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

/*
 * Whether buf's last bytes are an end section, its payload's CRC right:
 * a file the walk through its sections could not follow to them was
 * damaged, not cut short by a recorder killed.
 */
static bool ends_whole(const unsigned char *buf, size_t len)
{
	size_t at;

	if (len < DF_HEADER_SIZE + DF_SECTION_HEAD + DF_END_PAYLOAD)
		return false;
	at = len - DF_SECTION_HEAD - DF_END_PAYLOAD;
	return at % 8 == 0 && get_le32(buf + at) == DF_END &&
	       get_le64(buf + at + 8) == DF_END_PAYLOAD &&
	       get_le32(buf + at + 4) == (uint32_t)crc32_z(crc32(0L, Z_NULL, 0),
							   buf + at + DF_SECTION_HEAD,
							   DF_END_PAYLOAD);
}

struct profile *datafile_decode(const unsigned char *buf, size_t len, char *err, size_t errlen)
{
	struct in in = {.err = err, .errlen = errlen};
	struct profile *p;

	size_t limit = len;

	if (read_header(&in, buf, len))
		return NULL;
	if (in.version >= 3) {
		limit = read_limit(buf, len, &in.cut);
		if (in.cut && ends_whole(buf, len)) {
			fail(&in,
			     "damaged at offset %zu: a section's size leads past the file, which "
			     "ends with its end section: it was written whole, not cut short",
			     in.cut);
			return NULL;
		}
		if (in.cut && limit == DF_HEADER_SIZE) {
			fail(&in, "truncated at offset %zu: cut short before its first chunk ended",
			     in.cut);
			return NULL;
		}
	}
	p = profile_new();
	if (read_sections(&in, p, buf, len, limit) || validate(&in, p)) {
		profile_free(p);
		p = NULL;
	} else if (in.cut) {
		p->cut_at = in.cut;
		p->cut_time = in.sync_time;
	}
	free(in.start_lines.v);
	free(in.owners.v);
	for (size_t t = 0; t <= DF_LAST_TYPE; t++)
		free(in.runs[t]);
	return p;
}
