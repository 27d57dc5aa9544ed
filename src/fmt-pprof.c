/*
 * fmt-pprof.c - the profile as pprof's profile.proto, gzipped: what
 * "go tool pprof", speedscope and other pprof readers load.
 *
 * One mapping per module, one location per frame, its lines the frame's
 * inline chain innermost first (pprof's order: the last line is the
 * function the others are inlined into), one function per distinct
 * (name, file). Addresses are perfmini's: for a module's frames the file
 * offset, so each file's mapping starts at 0 with file offset 0 (mappings
 * overlap; every location names its mapping); kernel and perf-map frames
 * keep their absolute addresses. Every location has a function (an
 * unresolved one is named "[module+0xOFFSET]"), so pprof never tries to
 * symbolize these addresses again.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "aggregate.h"
#include "hmap.h"
#include "protobuf.h"
#include "report.h"
#include "util.h"

/* profile.proto field numbers. */
enum {
	PROFILE_SAMPLE_TYPE = 1,
	PROFILE_SAMPLE = 2,
	PROFILE_MAPPING = 3,
	PROFILE_LOCATION = 4,
	PROFILE_FUNCTION = 5,
	PROFILE_STRING_TABLE = 6,
	PROFILE_TIME_NANOS = 9,
	PROFILE_DURATION_NANOS = 10,
	PROFILE_PERIOD_TYPE = 11,
	PROFILE_PERIOD = 12,
	PROFILE_COMMENT = 13,
	PROFILE_DEFAULT_SAMPLE_TYPE = 14,

	VALUE_TYPE_TYPE = 1,
	VALUE_TYPE_UNIT = 2,

	SAMPLE_LOCATION_ID = 1,
	SAMPLE_VALUE = 2,
	SAMPLE_LABEL = 3,

	LABEL_KEY = 1,
	LABEL_STR = 2,
	LABEL_NUM = 3,

	MAPPING_ID = 1,
	MAPPING_MEMORY_START = 2,
	MAPPING_MEMORY_LIMIT = 3,
	MAPPING_FILE_OFFSET = 4,
	MAPPING_FILENAME = 5,
	MAPPING_BUILD_ID = 6,
	MAPPING_HAS_FUNCTIONS = 7,
	MAPPING_HAS_FILENAMES = 8,
	MAPPING_HAS_LINE_NUMBERS = 9,
	MAPPING_HAS_INLINE_FRAMES = 10,

	LOCATION_ID = 1,
	LOCATION_MAPPING_ID = 2,
	LOCATION_ADDRESS = 3,
	LOCATION_LINE = 4,

	LINE_FUNCTION_ID = 1,
	LINE_LINE = 2,

	FUNCTION_ID = 1,
	FUNCTION_NAME = 2,
	FUNCTION_SYSTEM_NAME = 3,
	FUNCTION_FILENAME = 4,
};

#define PAGE_SIZE 4096

struct mapping {
	uint32_t module;
	uint64_t lo, hi; /* the addresses of its locations, hi inclusive */
	bool absolute;	 /* kernel or perf map: addresses are not file offsets */
	bool filenames, line_numbers;
};

struct pprof {
	const struct profile *p;
	const struct report_opts *o;
	struct strtab str;    /* interning */
	struct hmap str_ids;  /* offset in str -> string table index */
	uint32_t *str_order;  /* string table index -> offset in str */
	size_t nstr, str_cap; /* entries in the string table */
	struct hmap func_ids; /* (name << 32 | file) + 1 string indexes -> function id */
	struct pb functions;  /* the encoded Function messages */
	size_t nfuncs;
	uint32_t *loc_of; /* frame -> location id, 0 none yet */
	uint32_t *root_loc;
	struct pb locations;
	size_t nlocs;
	uint32_t *mapping_of; /* module -> mapping id, 0 none yet */
	struct mapping *mappings;
	size_t nmappings, mappings_cap;
	struct pb scratch, line, sb;
	struct sbuf name;
};

/* The string table index of s, added if new; "" is index 0. */
static uint64_t str_id(struct pprof *x, const char *s)
{
	uint32_t off = strtab_add(&x->str, s);
	struct hmap_slot *slot;
	bool added;

	if (off == 0)
		return 0;
	slot = hmap_insert(&x->str_ids, off, &added);
	if (added) {
		xgrow(&x->str_order, &x->str_cap, x->nstr + 1, sizeof(*x->str_order));
		x->str_order[x->nstr] = off;
		slot->val = x->nstr++;
	}
	return slot->val;
}

static uint64_t function_id(struct pprof *x, const char *name, const char *file)
{
	uint64_t name_id = str_id(x, name), file_id = str_id(x, file);
	struct hmap_slot *slot;
	struct pb f = {0};
	bool added;

	slot = hmap_insert(&x->func_ids, (name_id << 32 | file_id) + 1, &added);
	if (!added)
		return slot->val;
	slot->val = ++x->nfuncs;
	pb_uint(&f, FUNCTION_ID, slot->val);
	pb_uint(&f, FUNCTION_NAME, name_id);
	/* The profile keeps demangled names only: the same. */
	pb_uint(&f, FUNCTION_SYSTEM_NAME, name_id);
	if (file_id)
		pb_uint(&f, FUNCTION_FILENAME, file_id);
	pb_message(&x->functions, PROFILE_FUNCTION, &f);
	pb_release(&f);
	return slot->val;
}

static uint64_t mapping_id(struct pprof *x, uint32_t module, uint64_t addr)
{
	const struct pm_module *m = &x->p->modules[module];
	struct mapping *mp;

	if (!x->mapping_of[module]) {
		xgrow(&x->mappings, &x->mappings_cap, x->nmappings + 1, sizeof(*x->mappings));
		mp = &x->mappings[x->nmappings];
		mp->module = module;
		mp->lo = mp->hi = addr;
		mp->absolute = m->flags & (PM_MODULE_KERNEL | PM_MODULE_PERFMAP);
		mp->filenames = mp->line_numbers = true;
		x->mapping_of[module] = (uint32_t)++x->nmappings;
	}
	mp = &x->mappings[x->mapping_of[module] - 1];
	if (addr < mp->lo)
		mp->lo = addr;
	if (addr > mp->hi)
		mp->hi = addr;
	return x->mapping_of[module];
}

static void add_line(struct pprof *x, uint64_t func, uint32_t line)
{
	x->line.len = 0;
	pb_uint(&x->line, LINE_FUNCTION_ID, func);
	if (line)
		pb_uint(&x->line, LINE_LINE, line);
	pb_message(&x->scratch, LOCATION_LINE, &x->line);
}

static uint64_t location_id(struct pprof *x, uint32_t f)
{
	const struct profile *p = x->p;
	const struct pm_frame *fr = &p->frames[f];
	uint32_t n = report_frame_levels(p, f, &x->o->names);
	struct mapping *mp = NULL;
	uint64_t id;

	if (x->loc_of[f])
		return x->loc_of[f];
	id = ++x->nlocs;
	x->loc_of[f] = (uint32_t)id;
	x->scratch.len = 0;
	pb_uint(&x->scratch, LOCATION_ID, id);
	if (fr->module != PM_NONE) {
		pb_uint(&x->scratch, LOCATION_MAPPING_ID, mapping_id(x, fr->module, fr->addr));
		mp = &x->mappings[x->mapping_of[fr->module] - 1];
	}
	pb_uint(&x->scratch, LOCATION_ADDRESS, fr->addr);
	if (fr->nlines == 0) {
		x->name.len = 0;
		report_unresolved_name(p, f, &x->name);
		add_line(x, function_id(x, x->name.buf, ""), 0);
		if (mp)
			mp->filenames = mp->line_numbers = false;
	}
	/* Innermost first; level 0 is the outermost. */
	for (uint32_t i = fr->nlines ? n : 0; i-- > 0;) {
		const struct pm_line *l = report_level_line(p, f, i, &x->o->names);
		const char *name = strtab_get(&p->str, l->func);
		const char *file = strtab_get(&p->str, l->file);

		add_line(x, function_id(x, *name ? name : "[unknown]", file), l->line);
		if (mp && !*file)
			mp->filenames = false;
		if (mp && !l->line)
			mp->line_numbers = false;
	}
	pb_message(&x->locations, PROFILE_LOCATION, &x->scratch);
	return id;
}

/* The location of a --per-pid or --per-tid root frame. */
static uint64_t root_location(struct pprof *x, const struct aggregate *a, uint32_t root)
{
	uint64_t id;

	if (x->root_loc[root])
		return x->root_loc[root];
	id = ++x->nlocs;
	x->root_loc[root] = (uint32_t)id;
	x->scratch.len = 0;
	pb_uint(&x->scratch, LOCATION_ID, id);
	add_line(x, function_id(x, a->roots[root], ""), 0);
	pb_message(&x->locations, PROFILE_LOCATION, &x->scratch);
	return id;
}

static void add_label(struct pprof *x, const char *key, const char *str, uint64_t num)
{
	x->line.len = 0;
	pb_uint(&x->line, LABEL_KEY, str_id(x, key));
	if (str)
		pb_uint(&x->line, LABEL_STR, str_id(x, str));
	else
		pb_uint(&x->line, LABEL_NUM, num);
	pb_message(&x->sb, SAMPLE_LABEL, &x->line);
}

static void add_value_type(struct pprof *x, struct pb *out, uint32_t field, const char *type,
			   const char *unit)
{
	struct pb v = {0};

	pb_uint(&v, VALUE_TYPE_TYPE, str_id(x, type));
	pb_uint(&v, VALUE_TYPE_UNIT, str_id(x, unit));
	pb_message(out, field, &v);
	pb_release(&v);
}

static uint64_t meta_u64(const struct profile *p, const char *key)
{
	const char *v = profile_get_meta(p, key);
	uint64_t n = 0;

	if (v && parse_u64(v, &n) < 0)
		n = 0;
	return n;
}

/* The header fields: sample types, period, times, comments. */
static void encode_header(struct pprof *x, const struct aggregate *a, struct pb *out)
{
	const struct profile *p = x->p;
	const char *event = profile_get_meta(p, "event");
	const char *command = profile_get_meta(p, "command");
	bool clock = event && (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock"));
	const char *type = clock ? "cpu" : event && *event ? event : "events";
	const char *unit = clock ? "nanoseconds" : "count";
	uint64_t period = meta_u64(p, "period"), freq = meta_u64(p, "frequency");

	add_value_type(x, out, PROFILE_SAMPLE_TYPE, "samples", "count");
	add_value_type(x, out, PROFILE_SAMPLE_TYPE, type, unit);
	add_value_type(x, out, PROFILE_PERIOD_TYPE, type, unit);
	/* -F: the clocks' period is fixed (1 s / F); other events' varies: the mean. */
	if (!period && freq && clock)
		period = (1000000000 + freq / 2) / freq;
	else if (!period && a->samples)
		period = (a->period + a->samples / 2) / a->samples;
	if (period)
		pb_uint(out, PROFILE_PERIOD, period);
	if (meta_u64(p, "start-time"))
		pb_uint(out, PROFILE_TIME_NANOS, meta_u64(p, "start-time") * 1000000000);
	if (meta_u64(p, "duration-ns"))
		pb_uint(out, PROFILE_DURATION_NANOS, meta_u64(p, "duration-ns"));
	if (command) {
		x->name.len = 0;
		sbuf_addf(&x->name, "perfmini %s", command);
		pb_uint(out, PROFILE_COMMENT, str_id(x, x->name.buf));
	}
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(x, type));
}

static void encode_mappings(struct pprof *x, struct pb *out)
{
	const struct profile *p = x->p;

	for (size_t i = 0; i < x->nmappings; i++) {
		const struct mapping *mp = &x->mappings[i];
		const struct pm_module *m = &p->modules[mp->module];
		uint64_t start = 0, limit = (mp->hi + PAGE_SIZE) & ~(uint64_t)(PAGE_SIZE - 1);

		if (mp->absolute)
			start = mp->lo & ~(uint64_t)(PAGE_SIZE - 1);
		if (limit <= mp->hi) /* wrapped at the top of the address space */
			limit = UINT64_MAX;
		x->scratch.len = 0;
		pb_uint(&x->scratch, MAPPING_ID, i + 1);
		if (start)
			pb_uint(&x->scratch, MAPPING_MEMORY_START, start);
		pb_uint(&x->scratch, MAPPING_MEMORY_LIMIT, limit);
		pb_uint(&x->scratch, MAPPING_FILE_OFFSET, 0);
		pb_uint(&x->scratch, MAPPING_FILENAME, str_id(x, strtab_get(&p->str, m->path)));
		if (*strtab_get(&p->str, m->build_id))
			pb_uint(&x->scratch, MAPPING_BUILD_ID,
				str_id(x, strtab_get(&p->str, m->build_id)));
		pb_uint(&x->scratch, MAPPING_HAS_FUNCTIONS, 1);
		pb_uint(&x->scratch, MAPPING_HAS_FILENAMES, mp->filenames);
		pb_uint(&x->scratch, MAPPING_HAS_LINE_NUMBERS, mp->line_numbers);
		pb_uint(&x->scratch, MAPPING_HAS_INLINE_FRAMES, mp->line_numbers);
		pb_message(out, PROFILE_MAPPING, &x->scratch);
	}
}

/* Appends the fields already encoded in m. */
static void append(struct pb *out, const struct pb *m)
{
	if (!m->len)
		return;
	xgrow(&out->buf, &out->cap, out->len + m->len, 1);
	memcpy(out->buf + out->len, m->buf, m->len);
	out->len += m->len;
}

/* The whole Profile message into out. */
static void encode(struct pprof *x, const struct aggregate *a, struct pb *out)
{
	const struct profile *p = x->p;

	encode_header(x, a, out);
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];

		x->sb.len = 0;
		for (uint32_t d = 0; d < g->depth; d++)
			pb_uint(&x->sb, SAMPLE_LOCATION_ID, location_id(x, a->frames[g->off + d]));
		if (x->o->root != REPORT_ROOT_COMM)
			pb_uint(&x->sb, SAMPLE_LOCATION_ID, root_location(x, a, g->root));
		pb_uint(&x->sb, SAMPLE_VALUE, g->count);
		pb_uint(&x->sb, SAMPLE_VALUE, g->period);
		add_label(x, "pid", NULL, g->pid);
		add_label(x, "tid", NULL, g->tid);
		add_label(x, "thread", strtab_get(&p->str, g->comm), 0);
		pb_message(out, PROFILE_SAMPLE, &x->sb);
	}
	encode_mappings(x, out);
	append(out, &x->locations);
	append(out, &x->functions);
	for (size_t i = 0; i < x->nstr; i++)
		pb_string(out, PROFILE_STRING_TABLE, strtab_get(&x->str, x->str_order[i]));
}

/* buf gzipped into out. */
static int gzip_write(const unsigned char *buf, size_t len, FILE *out)
{
	unsigned char chunk[65536];
	z_stream z;
	int zr = Z_OK;

	memset(&z, 0, sizeof(z));
	/* 16 + MAX_WBITS: a gzip header and trailer around the deflate stream. */
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + MAX_WBITS, 8,
			 Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)buf;
	while (zr != Z_STREAM_END) {
		size_t left = len - (size_t)(z.next_in - buf);
		/* avail_in is a uInt: feed a large buffer in pieces. */
		uInt piece = left > (1u << 30) ? 1u << 30 : (uInt)left;

		if (z.avail_in == 0)
			z.avail_in = piece;
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		zr = deflate(&z, left - z.avail_in == 0 ? Z_FINISH : Z_NO_FLUSH);
		if (zr == Z_STREAM_ERROR)
			break;
		fwrite(chunk, 1, sizeof(chunk) - z.avail_out, out);
	}
	deflateEnd(&z);
	if (zr != Z_STREAM_END)
		return -EIO;
	return ferror(out) ? -EIO : 0;
}

int fmt_pprof(const struct profile *p, const struct report_opts *o, FILE *out)
{
	struct aggregate *a = aggregate_new(p, o, AGG_BY_THREAD);
	struct pprof x = {.p = p, .o = o};
	struct pb msg = {0};
	int ret;

	strtab_init(&x.str);
	hmap_init(&x.str_ids);
	hmap_init(&x.func_ids);
	xgrow(&x.str_order, &x.str_cap, 1, sizeof(*x.str_order));
	x.str_order[x.nstr++] = 0;
	x.loc_of = xcalloc(p->nframes, sizeof(*x.loc_of));
	x.root_loc = xcalloc(a->nroots, sizeof(*x.root_loc));
	x.mapping_of = xcalloc(p->nmodules, sizeof(*x.mapping_of));
	encode(&x, a, &msg);
	ret = gzip_write(msg.buf, msg.len, out);
	pb_release(&msg);
	pb_release(&x.functions);
	pb_release(&x.locations);
	pb_release(&x.scratch);
	pb_release(&x.line);
	pb_release(&x.sb);
	sbuf_release(&x.name);
	free(x.str_order);
	free(x.loc_of);
	free(x.root_loc);
	free(x.mapping_of);
	free(x.mappings);
	hmap_release(&x.str_ids);
	hmap_release(&x.func_ids);
	strtab_release(&x.str);
	aggregate_free(a);
	return ret;
}
