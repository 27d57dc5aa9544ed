/*
 * datafile.c - encoding, validating and atomically writing data files;
 * see datafile.h for the layout.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "datafile.h"
#include "util.h"

#define HEADER_SIZE  24
#define SECTION_HEAD 16

/* Record sizes in the file, independent of struct padding. */
#define META_SIZE    8
#define MODULE_SIZE  16
#define FRAME_SIZE   24
#define LINE_SIZE    24
#define STACK_SIZE   8
#define SAMPLE_SIZE  40
#define THREAD_SIZE  16
#define SEGMENT_SIZE 40

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

static void section_end(struct out *o, size_t at)
{
	size_t size = o->len - at - SECTION_HEAD;
	uLong crc = crc32(0L, Z_NULL, 0);
	unsigned char *h;

	crc = crc32_z(crc, o->buf + at + SECTION_HEAD, size);
	h = o->buf + at;
	for (int i = 0; i < 4; i++)
		h[4 + i] = (unsigned char)(crc >> (8 * i));
	for (int i = 0; i < 8; i++)
		h[8 + i] = (unsigned char)((uint64_t)size >> (8 * i));
	sum_section(&o->sum, &o->summed, o->buf, at, (uint32_t)crc, size);
	while (o->len % 8)
		*out_reserve(o, 1) = 0;
}

unsigned char *datafile_encode(const struct profile *p, size_t *len)
{
	struct out o = {.sum = crc32(0L, Z_NULL, 0)};
	size_t s;

	memcpy(out_reserve(&o, 8), DATAFILE_MAGIC, 8);
	put_u32(&o, DATAFILE_VERSION);
	put_u32(&o, 0);
	put_u64(&o, 0);

	s = section_begin(&o, DF_STRINGS);
	memcpy(out_reserve(&o, p->str.len), p->str.buf, p->str.len);
	section_end(&o, s);

	s = section_begin(&o, DF_META);
	for (size_t i = 0; i < p->nmeta; i++) {
		put_u32(&o, p->meta[i].key);
		put_u32(&o, p->meta[i].value);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_MODULES);
	for (size_t i = 0; i < p->nmodules; i++) {
		put_u32(&o, p->modules[i].path);
		put_u32(&o, p->modules[i].build_id);
		put_u32(&o, p->modules[i].flags);
		put_u32(&o, p->modules[i].reason);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_FRAMES);
	for (size_t i = 0; i < p->nframes; i++) {
		put_u32(&o, p->frames[i].module);
		put_u32(&o, p->frames[i].flags);
		put_u64(&o, p->frames[i].addr);
		put_u32(&o, p->frames[i].line0);
		put_u32(&o, p->frames[i].nlines);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_LINES);
	for (size_t i = 0; i < p->nlines; i++) {
		put_u32(&o, p->lines[i].func);
		put_u32(&o, p->lines[i].file);
		put_u32(&o, p->lines[i].line);
		put_u32(&o, p->lines[i].flags);
		put_u64(&o, p->lines[i].symoff);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_STACKS);
	for (size_t i = 0; i < p->nstacks; i++) {
		put_u32(&o, p->stacks[i].off);
		put_u32(&o, p->stacks[i].depth);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_STACK_FRAMES);
	for (size_t i = 0; i < p->nstack_frames; i++)
		put_u32(&o, p->stack_frames[i]);
	section_end(&o, s);

	s = section_begin(&o, DF_SAMPLES);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pm_sample *x = &p->samples[i];

		put_u64(&o, x->time);
		put_u64(&o, x->period);
		put_u32(&o, x->pid);
		put_u32(&o, x->tid);
		put_u32(&o, x->cpu);
		put_u32(&o, x->stack);
		put_u32(&o, x->comm);
		put_u32(&o, 0);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_THREADS);
	for (size_t i = 0; i < p->nthreads; i++) {
		put_u32(&o, p->threads[i].pid);
		put_u32(&o, p->threads[i].tid);
		put_u32(&o, p->threads[i].comm);
		put_u32(&o, 0);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_SEGMENTS);
	for (size_t i = 0; i < p->nsegments; i++) {
		const struct pm_segment *g = &p->segments[i];

		put_u32(&o, g->module);
		put_u32(&o, g->flags);
		put_u64(&o, g->offset);
		put_u64(&o, g->vaddr);
		put_u64(&o, g->filesz);
		put_u64(&o, g->memsz);
	}
	section_end(&o, s);

	s = section_begin(&o, DF_START_LINES);
	for (size_t i = 0; i < p->nlines; i++)
		put_u32(&o, p->lines[i].start_line);
	section_end(&o, s);

	/* Version 2: END holds the checksum of everything before it. */
	s = section_begin(&o, DF_END);
	put_u32(&o, (uint32_t)sum_gap(o.sum, o.buf, o.summed, s));
	put_u32(&o, 0);
	section_end(&o, s);
	*len = o.len;
	return o.buf;
}

/* Decoding. */

struct in {
	const unsigned char *base;
	char *err;
	size_t errlen;
	size_t sec_at[DF_START_LINES + 1]; /* where each known section starts */
	uint32_t *start_lines;		   /* DF_START_LINES, applied after every section */
	size_t nstart_lines;
};

/* The file offset of record i (of recsize bytes) of section type. */
static size_t rec_at(const struct in *in, int type, size_t i, size_t recsize)
{
	return in->sec_at[type] + SECTION_HEAD + i * recsize;
}

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
	static const char *const names[] = {"end",     "strings", "meta",     "modules",
					    "frames",  "lines",	  "stacks",   "stack frames",
					    "samples", "threads", "segments", "start lines"};

	return type < ARRAY_SIZE(names) ? names[type] : "unknown";
}

/* An array section: its payload must be a whole number of records. */
static int array_count(struct in *in, size_t at, uint32_t type, size_t size, size_t recsize,
		       size_t *n)
{
	if (size % recsize)
		return fail(in, "bad %s section at offset %zu: size %zu is not a multiple of %zu",
			    section_name(type), at, size, recsize);
	*n = size / recsize;
	return 0;
}

static int check_str(struct in *in, const struct profile *p, uint32_t off, const char *what,
		     size_t i, size_t at)
{
	if (off >= p->str.len)
		return fail(in,
			    "bad %s %zu at offset %zu: string offset %u outside the string table",
			    what, i, at, off);
	return 0;
}

static int load_section(struct in *in, struct profile *p, uint32_t type, const unsigned char *d,
			size_t size, size_t at)
{
	size_t n = 0;
	int ret;

	switch (type) {
	case DF_STRINGS:
		if (size == 0 || d[0] != '\0' || d[size - 1] != '\0')
			return fail(in, "bad strings section at offset %zu", at);
		p->str.buf = xrealloc(p->str.buf, size);
		memcpy(p->str.buf, d, size);
		p->str.len = p->str.cap = size;
		return 0;
	case DF_META:
		if ((ret = array_count(in, at, type, size, META_SIZE, &n)))
			return ret;
		p->meta = xcalloc(n, sizeof(*p->meta));
		for (size_t i = 0; i < n; i++, d += META_SIZE) {
			p->meta[i].key = get_u32(d);
			p->meta[i].value = get_u32(d + 4);
		}
		p->nmeta = p->meta_cap = n;
		return 0;
	case DF_MODULES:
		if ((ret = array_count(in, at, type, size, MODULE_SIZE, &n)))
			return ret;
		p->modules = xcalloc(n, sizeof(*p->modules));
		for (size_t i = 0; i < n; i++, d += MODULE_SIZE) {
			p->modules[i].path = get_u32(d);
			p->modules[i].build_id = get_u32(d + 4);
			p->modules[i].flags = get_u32(d + 8);
			p->modules[i].reason = get_u32(d + 12);
		}
		p->nmodules = p->modules_cap = n;
		return 0;
	case DF_FRAMES:
		if ((ret = array_count(in, at, type, size, FRAME_SIZE, &n)))
			return ret;
		p->frames = xcalloc(n, sizeof(*p->frames));
		for (size_t i = 0; i < n; i++, d += FRAME_SIZE) {
			p->frames[i].module = get_u32(d);
			p->frames[i].flags = get_u32(d + 4);
			p->frames[i].addr = get_u64(d + 8);
			p->frames[i].line0 = get_u32(d + 16);
			p->frames[i].nlines = get_u32(d + 20);
		}
		p->nframes = p->frames_cap = n;
		return 0;
	case DF_LINES:
		if ((ret = array_count(in, at, type, size, LINE_SIZE, &n)))
			return ret;
		p->lines = xcalloc(n, sizeof(*p->lines));
		for (size_t i = 0; i < n; i++, d += LINE_SIZE) {
			p->lines[i].func = get_u32(d);
			p->lines[i].file = get_u32(d + 4);
			p->lines[i].line = get_u32(d + 8);
			p->lines[i].flags = get_u32(d + 12);
			p->lines[i].symoff = get_u64(d + 16);
		}
		p->nlines = p->lines_cap = n;
		return 0;
	case DF_STACKS:
		if ((ret = array_count(in, at, type, size, STACK_SIZE, &n)))
			return ret;
		p->stacks = xcalloc(n, sizeof(*p->stacks));
		for (size_t i = 0; i < n; i++, d += STACK_SIZE) {
			p->stacks[i].off = get_u32(d);
			p->stacks[i].depth = get_u32(d + 4);
		}
		p->nstacks = p->stacks_cap = n;
		return 0;
	case DF_STACK_FRAMES:
		if ((ret = array_count(in, at, type, size, 4, &n)))
			return ret;
		p->stack_frames = xcalloc(n, sizeof(*p->stack_frames));
		for (size_t i = 0; i < n; i++, d += 4)
			p->stack_frames[i] = get_u32(d);
		p->nstack_frames = p->stack_frames_cap = n;
		return 0;
	case DF_SAMPLES:
		if ((ret = array_count(in, at, type, size, SAMPLE_SIZE, &n)))
			return ret;
		p->samples = xcalloc(n, sizeof(*p->samples));
		for (size_t i = 0; i < n; i++, d += SAMPLE_SIZE) {
			struct pm_sample *s = &p->samples[i];

			s->time = get_u64(d);
			s->period = get_u64(d + 8);
			s->pid = get_u32(d + 16);
			s->tid = get_u32(d + 20);
			s->cpu = get_u32(d + 24);
			s->stack = get_u32(d + 28);
			s->comm = get_u32(d + 32);
		}
		p->nsamples = p->samples_cap = n;
		return 0;
	case DF_THREADS:
		if ((ret = array_count(in, at, type, size, THREAD_SIZE, &n)))
			return ret;
		p->threads = xcalloc(n, sizeof(*p->threads));
		for (size_t i = 0; i < n; i++, d += THREAD_SIZE) {
			p->threads[i].pid = get_u32(d);
			p->threads[i].tid = get_u32(d + 4);
			p->threads[i].comm = get_u32(d + 8);
		}
		p->nthreads = p->threads_cap = n;
		return 0;
	case DF_SEGMENTS:
		if ((ret = array_count(in, at, type, size, SEGMENT_SIZE, &n)))
			return ret;
		p->segments = xcalloc(n, sizeof(*p->segments));
		for (size_t i = 0; i < n; i++, d += SEGMENT_SIZE) {
			struct pm_segment *g = &p->segments[i];

			g->module = get_u32(d);
			g->flags = get_u32(d + 4);
			g->offset = get_u64(d + 8);
			g->vaddr = get_u64(d + 16);
			g->filesz = get_u64(d + 24);
			g->memsz = get_u64(d + 32);
		}
		p->nsegments = p->segments_cap = n;
		return 0;
	case DF_START_LINES:
		if ((ret = array_count(in, at, type, size, 4, &n)))
			return ret;
		/* The lines may come later in the file: kept until they have. */
		in->start_lines = xcalloc(n ? n : 1, sizeof(*in->start_lines));
		for (size_t i = 0; i < n; i++, d += 4)
			in->start_lines[i] = get_u32(d);
		in->nstart_lines = n;
		return 0;
	default:
		return 0; /* a later minor addition: skipped */
	}
}

/* Every cross-reference in range, and no stack or inline chain deeper
 * than perfmini writes (a crafted file could make reports run for hours);
 * see the invariants in profile.h. */
static int validate(struct in *in, const struct profile *p)
{
	int ret;

	for (size_t i = 0; i < p->nmeta; i++) {
		size_t at = rec_at(in, DF_META, i, META_SIZE);

		if ((ret = check_str(in, p, p->meta[i].key, "meta entry", i, at)) ||
		    (ret = check_str(in, p, p->meta[i].value, "meta entry", i, at)))
			return ret;
	}
	for (size_t i = 0; i < p->nmodules; i++) {
		size_t at = rec_at(in, DF_MODULES, i, MODULE_SIZE);

		if ((ret = check_str(in, p, p->modules[i].path, "module", i, at)) ||
		    (ret = check_str(in, p, p->modules[i].build_id, "module", i, at)) ||
		    (ret = check_str(in, p, p->modules[i].reason, "module", i, at)))
			return ret;
	}
	for (size_t i = 0; i < p->nframes; i++) {
		const struct pm_frame *f = &p->frames[i];
		size_t at = rec_at(in, DF_FRAMES, i, FRAME_SIZE);

		if (f->module != PM_NONE && f->module >= p->nmodules)
			return fail(in, "bad frame %zu at offset %zu: module %u of %zu", i, at,
				    f->module, p->nmodules);
		if (f->nlines && (f->line0 >= p->nlines || f->nlines > p->nlines - f->line0 ||
				  f->nlines > DATAFILE_MAX_INLINE))
			return fail(in, "bad frame %zu at offset %zu: lines %u+%u of %zu", i, at,
				    f->line0, f->nlines, p->nlines);
	}
	for (size_t i = 0; i < p->nlines; i++) {
		size_t at = rec_at(in, DF_LINES, i, LINE_SIZE);

		if ((ret = check_str(in, p, p->lines[i].func, "line", i, at)) ||
		    (ret = check_str(in, p, p->lines[i].file, "line", i, at)))
			return ret;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct pm_stack *s = &p->stacks[i];

		if (s->off > p->nstack_frames || s->depth > p->nstack_frames - s->off ||
		    s->depth > DATAFILE_MAX_DEPTH)
			return fail(in, "bad stack %zu at offset %zu: frames %u+%u of %zu", i,
				    rec_at(in, DF_STACKS, i, STACK_SIZE), s->off, s->depth,
				    p->nstack_frames);
	}
	for (size_t i = 0; i < p->nstack_frames; i++)
		if (p->stack_frames[i] >= p->nframes)
			return fail(in, "bad stack frame %zu at offset %zu: frame %u of %zu", i,
				    rec_at(in, DF_STACK_FRAMES, i, 4), p->stack_frames[i],
				    p->nframes);
	for (size_t i = 0; i < p->nsamples; i++) {
		size_t at = rec_at(in, DF_SAMPLES, i, SAMPLE_SIZE);

		if (p->samples[i].stack >= p->nstacks)
			return fail(in, "bad sample %zu at offset %zu: stack %u of %zu", i, at,
				    p->samples[i].stack, p->nstacks);
		if ((ret = check_str(in, p, p->samples[i].comm, "sample", i, at)))
			return ret;
	}
	for (size_t i = 0; i < p->nthreads; i++)
		if ((ret = check_str(in, p, p->threads[i].comm, "thread", i,
				     rec_at(in, DF_THREADS, i, THREAD_SIZE))))
			return ret;
	for (size_t i = 0; i < p->nsegments; i++) {
		const struct pm_segment *g = &p->segments[i];

		if (g->module >= p->nmodules || g->filesz > g->memsz ||
		    g->offset > UINT64_MAX - g->filesz || g->vaddr > UINT64_MAX - g->memsz)
			return fail(in, "bad segment %zu at offset %zu: module %u of %zu", i,
				    rec_at(in, DF_SEGMENTS, i, SEGMENT_SIZE), g->module,
				    p->nmodules);
	}
	if (in->start_lines) {
		if (in->nstart_lines != p->nlines)
			return fail(in,
				    "bad start lines section at offset %zu: %zu entries for %zu "
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
			     "truncated at offset %zu: section header needs %d bytes, %zu left", at,
			     SECTION_HEAD, len - at);
			goto bad;
		}
		type = get_u32(buf + at);
		crc = get_u32(buf + at + 4);
		size = get_u64(buf + at + 8);
		d = buf + at + SECTION_HEAD;
		if (size > len - at - SECTION_HEAD) {
			fail(&in, "truncated at offset %zu: %s section needs %llu bytes, %zu left",
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
				fail(&in, "corrupt file: the checksum at offset %zu does not match",
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
		if (type <= DF_START_LINES)
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

/* The output being written, for the exit handler to remove if we die first. */
static struct datafile_out *pending;

static void remove_pending(void)
{
	if (pending && pending->tmp)
		unlink(pending->tmp);
}

int datafile_create(struct datafile_out *out, const char *path)
{
	static bool registered;

	memset(out, 0, sizeof(*out));
	out->path = xstrdup(path);
	out->tmp = xasprintf("%s.tmp.XXXXXX", path);
	/* mkostemp: O_EXCL and mode 0600, never through a planted link. */
	out->fd = mkostemp(out->tmp, O_CLOEXEC);
	if (out->fd < 0) {
		int err = errno;

		error("cannot create '%s': %s", path, strerror(err));
		free(out->tmp);
		free(out->path);
		out->tmp = out->path = NULL;
		return -err;
	}
	if (!registered) {
		atexit(remove_pending);
		registered = true;
	}
	pending = out;
	return 0;
}

void datafile_abandon(struct datafile_out *out)
{
	if (out->fd >= 0)
		close(out->fd);
	if (out->tmp)
		unlink(out->tmp);
	if (pending == out)
		pending = NULL;
	free(out->tmp);
	free(out->path);
	out->tmp = out->path = NULL;
	out->fd = -1;
}

int datafile_commit(struct datafile_out *out, const struct profile *p, size_t *written)
{
	unsigned char *buf;
	size_t len, done = 0;
	int ret = 0;

	buf = datafile_encode(p, &len);
	while (done < len) {
		ssize_t n = write(out->fd, buf + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			ret = n < 0 ? -errno : -ENOSPC;
			goto fail;
		}
		done += (size_t)n;
	}
	if (fsync(out->fd) < 0 && errno != EINVAL) {
		ret = -errno;
		goto fail;
	}
	ret = close(out->fd) < 0 ? -errno : 0;
	out->fd = -1;
	if (ret < 0)
		goto fail;
	if (rename(out->tmp, out->path) < 0) {
		ret = -errno;
		goto fail;
	}
	if (written)
		*written = len;
	free(out->tmp);
	out->tmp = NULL;
	datafile_abandon(out);
	free(buf);
	return 0;
fail:
	error("cannot write '%s': %s", out->path, strerror(-ret));
	datafile_abandon(out);
	free(buf);
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
	/* One read for a file that does not grow meanwhile; more if it does. */
	if (st.st_size > 0)
		xgrow(&buf, &cap, (size_t)st.st_size + 1, 1);
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
