/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-pprof.c - the profile as pprof's profile.proto, gzipped: what
 * "go tool pprof", speedscope and other pprof readers load.
 *
 * One location per frame, its lines the frame's inline chain innermost
 * first (pprof's order: the last line is the function the others are
 * inlined into); one function per name, so that a function whose lines
 * fall in several files (code from headers) stays one function: its file
 * is the one most of its samples' lines are in, its start line the
 * declaration line the recording found.
 *
 * Addresses and mappings are what pprof needs to find the code again in
 * the binary (-disasm, weblist), by its binutils/elfexec rules: where the
 * data file has a module's load segments, a frame's address is its ELF
 * address (file offset through the segment holding it), and its mapping
 * is that segment as the kernel maps it with load bias 0: memory_start
 * and memory_limit the segment's pages, file_offset the page of its
 * p_offset. pprof then finds that program header for the mapping and
 * computes base = start - file_offset + p_offset - p_vaddr = 0, for
 * non-PIE, PIE, lld's and BOLT's layouts alike, and one mapping per
 * executable segment keeps that true where segments differ in
 * p_vaddr - p_offset. Without segments (files of older perfmini, the
 * vdso) the address is the file offset, in a mapping of the file from 0.
 * Kernel and perf-map frames keep their absolute addresses. The main
 * program's mappings come first: pprof names the profile after
 * mapping[0]. Every location has a function (an unresolved one is
 * named "[module+0xOFFSET]"), so pprof never symbolizes it again.
 *
 * With --diff the file is what pprof's -diff_base builds in memory from
 * two profiles: the base's samples follow, their values negated and
 * normalized to the reported recording's totals (one ratio per value, as
 * pprof's -normalize), each labelled pprof::base=true. pprof then shows
 * the difference, with percentages of the base's total. Functions are one
 * per name across both, so a function is matched by name; the base's
 * locations have no mapping (its addresses are another build's).
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdlib.h>
#include <zlib.h>

#include "report/aggregate.h"
#include "util/hmap.h"
#include "report/protobuf.h"
#include "report/report.h"
#include "util/util.h"

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
	FUNCTION_START_LINE = 5,
};

#define PAGE_SIZE 4096

struct mapping {
	uint32_t module;
	uint32_t seg;	 /* index in the profile's segments, PM_NONE: addressed by offset */
	uint64_t lo, hi; /* the addresses of its locations, hi inclusive */
	bool absolute;	 /* kernel or perf map: addresses are not file offsets */
	bool filenames, line_numbers;
};

/* A function name's file: the one with the most samples so far. */
struct name_file {
	uint64_t best_count;
	uint32_t best_file;  /* string table index */
	uint32_t start_line; /* the first non-zero one seen */
};

struct pprof {
	const struct profile *p;
	const struct report_opts *o;
	struct strtab str;    /* interning */
	struct hmap str_ids;  /* offset in str -> string table index */
	uint32_t *str_order;  /* string table index -> offset in str */
	size_t nstr, str_cap; /* entries in the string table */
	struct hmap func_ids; /* name string index -> function id */
	struct pb functions;  /* the encoded Function messages */
	size_t nfuncs;
	uint32_t *loc_of; /* frame -> location id, 0 none yet */
	uint32_t *root_loc;
	struct pb locations;
	size_t nlocs;
	struct hmap mapping_ids; /* module << 32 | seg + 1 (0: none) -> mapping id */
	struct mapping *mappings;
	size_t nmappings, mappings_cap;
	uint32_t *segs_of;   /* module -> index into seg_index of its first segment */
	uint32_t *seg_index; /* segment indexes grouped by module */
	uint32_t main_module;
	struct hmap file_votes; /* name << 32 | file string indexes -> samples */
	struct hmap names;	/* name string index -> index into name_files */
	struct name_file *name_files;
	size_t nname_files, name_files_cap;
	bool no_mappings; /* the base of a --diff: locations without a mapping */
	struct pb scratch, line, sb;
	struct sbuf name;
	struct sbuf valid; /* str_id's scratch */
};

/*
 * The string table index of s, added if new; "" is index 0. Protocol
 * buffers' strings must be UTF-8 (a reader rejects the whole profile for
 * one that is not, such as a thread name the kernel cut inside a
 * character): s is stored as sbuf_add_printable makes it.
 */
static uint64_t str_id(struct pprof *x, const char *s)
{
	uint32_t off;

	x->valid.len = 0;
	sbuf_add_printable(&x->valid, s);
	off = strtab_add(&x->str, x->valid.buf);
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

/* The votes of function name for its file, and its start line; added if new. */
static struct name_file *name_file(struct pprof *x, uint64_t name_id)
{
	bool added;
	struct hmap_slot *slot = hmap_insert(&x->names, name_id, &added);

	if (added) {
		xgrow(&x->name_files, &x->name_files_cap, x->nname_files + 1,
		      sizeof(*x->name_files));
		memset(&x->name_files[x->nname_files], 0, sizeof(*x->name_files));
		slot->val = x->nname_files++;
	}
	return &x->name_files[slot->val];
}

/* count samples of a level of function name are in file, starting at start_line. */
static void vote(struct pprof *x, const char *name, const char *file, uint32_t start_line,
		 uint64_t count)
{
	uint64_t name_id = str_id(x, name), file_id = str_id(x, file);
	struct hmap_slot *slot = hmap_insert(&x->file_votes, name_id << 32 | file_id, NULL);
	struct name_file *nf = name_file(x, name_id);
	const char *best = strtab_get(&x->str, x->str_order[nf->best_file]);

	slot->val += count;
	/* Most samples, then a known file, then the smaller name: the same every time. */
	if (slot->val > nf->best_count ||
	    (slot->val == nf->best_count && file_id != nf->best_file &&
	     (!*best || (*file && strcmp(file, best) < 0)))) {
		nf->best_count = slot->val;
		nf->best_file = (uint32_t)file_id;
	}
	if (!nf->start_line)
		nf->start_line = start_line;
}

static uint64_t function_id(struct pprof *x, const char *name)
{
	uint64_t name_id = str_id(x, name);
	const struct name_file *nf = name_file(x, name_id);
	struct hmap_slot *slot;
	struct pb f = {0};
	bool added;

	slot = hmap_insert(&x->func_ids, name_id, &added);
	if (!added)
		return slot->val;
	slot->val = ++x->nfuncs;
	pb_uint(&f, FUNCTION_ID, slot->val);
	pb_uint(&f, FUNCTION_NAME, name_id);
	/* The profile keeps demangled names only: the same. */
	pb_uint(&f, FUNCTION_SYSTEM_NAME, name_id);
	if (nf->best_file)
		pb_uint(&f, FUNCTION_FILENAME, nf->best_file);
	if (nf->start_line)
		pb_uint(&f, FUNCTION_START_LINE, nf->start_line);
	pb_message(&x->functions, PROFILE_FUNCTION, &f);
	pb_release(&f);
	return slot->val;
}

/* The mapping of module's segment seg (PM_NONE: by offset), holding addr; added if new. */
static uint64_t mapping_id(struct pprof *x, uint32_t module, uint32_t seg, uint64_t addr)
{
	const struct pm_module *m = &x->p->modules[module];
	struct hmap_slot *slot;
	struct mapping *mp;
	bool added;

	slot = hmap_insert(&x->mapping_ids, (uint64_t)module << 32 | (uint32_t)(seg + 1), &added);
	if (added) {
		xgrow(&x->mappings, &x->mappings_cap, x->nmappings + 1, sizeof(*x->mappings));
		mp = &x->mappings[x->nmappings];
		mp->module = module;
		mp->seg = seg;
		mp->lo = mp->hi = addr;
		mp->absolute = m->flags & (PM_MODULE_KERNEL | PM_MODULE_PERFMAP);
		mp->filenames = mp->line_numbers = true;
		slot->val = ++x->nmappings;
	}
	mp = &x->mappings[slot->val - 1];
	if (addr < mp->lo)
		mp->lo = addr;
	if (addr > mp->hi)
		mp->hi = addr;
	return slot->val;
}

/*
 * Where frame f goes: its address and the segment holding it (PM_NONE
 * when the module has no segments, or none holds the offset). An
 * executable segment wins over others that hold the offset.
 */
static uint64_t frame_address(const struct pprof *x, const struct pm_frame *fr, uint32_t *seg)
{
	const struct profile *p = x->p;

	*seg = PM_NONE;
	if (p->modules[fr->module].flags & (PM_MODULE_KERNEL | PM_MODULE_PERFMAP))
		return fr->addr;
	for (uint32_t i = x->segs_of[fr->module]; i < x->segs_of[fr->module + 1]; i++) {
		const struct pm_segment *g = &p->segments[x->seg_index[i]];

		if (fr->addr < g->offset || fr->addr - g->offset >= g->filesz)
			continue;
		if (*seg == PM_NONE || ((g->flags & PF_X) && !(p->segments[*seg].flags & PF_X)))
			*seg = x->seg_index[i];
	}
	if (*seg == PM_NONE)
		return fr->addr;
	return fr->addr - p->segments[*seg].offset + p->segments[*seg].vaddr;
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
	uint64_t id, addr;

	if (x->loc_of[f])
		return x->loc_of[f];
	id = ++x->nlocs;
	x->loc_of[f] = (uint32_t)id;
	x->scratch.len = 0;
	pb_uint(&x->scratch, LOCATION_ID, id);
	addr = fr->addr;
	if (fr->module != PM_NONE && !x->no_mappings) {
		uint32_t seg;
		uint64_t mid;

		addr = frame_address(x, fr, &seg);
		mid = mapping_id(x, fr->module, seg, addr);
		pb_uint(&x->scratch, LOCATION_MAPPING_ID, mid);
		mp = &x->mappings[mid - 1];
	}
	pb_uint(&x->scratch, LOCATION_ADDRESS, addr);
	if (fr->nlines == 0) {
		x->name.len = 0;
		report_unresolved_name(p, f, &x->name);
		add_line(x, function_id(x, x->name.buf), 0);
		if (mp)
			mp->filenames = mp->line_numbers = false;
	}
	/* Innermost first; level 0 is the outermost. */
	for (uint32_t i = fr->nlines ? n : 0; i-- > 0;) {
		const struct pm_line *l = report_level_line(p, f, i, &x->o->names);
		const char *name = strtab_get(&p->str, l->func);
		const char *file = strtab_get(&p->str, l->file);

		add_line(x, function_id(x, *name ? name : "[unknown]"), l->line);
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
	add_line(x, function_id(x, a->roots[root]), 0);
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

/* The header fields: sample types, period, times, comments. */
static void encode_header(struct pprof *x, const struct aggregate *a, struct pb *out)
{
	const struct profile *p = x->p;
	const char *event = profile_get_meta(p, "event");
	const char *command = profile_get_meta(p, "command");
	bool clock = event && (!strcmp(event, "cpu-clock") || !strcmp(event, "task-clock"));
	const char *type = clock ? "cpu" : event && *event ? event : "events";
	const char *unit = clock ? "nanoseconds" : "count";
	uint64_t period = profile_get_meta_u64(p, "period"),
		 freq = profile_get_meta_u64(p, "frequency");

	if (x->o->sample_type != REPORT_CPU) {
		/* Both values are nanoseconds: the view's, and the time the stacks sum to. */
		type = x->o->sample_type == REPORT_OFF_CPU ? "off-cpu" : "wall";
		add_value_type(x, out, PROFILE_SAMPLE_TYPE, type, "nanoseconds");
		add_value_type(x, out, PROFILE_SAMPLE_TYPE, "time", "nanoseconds");
		add_value_type(x, out, PROFILE_PERIOD_TYPE, type, "nanoseconds");
	} else {
		add_value_type(x, out, PROFILE_SAMPLE_TYPE, "samples", "count");
		add_value_type(x, out, PROFILE_SAMPLE_TYPE, type, unit);
		add_value_type(x, out, PROFILE_PERIOD_TYPE, type, unit);
	}
	/* -F: the clocks' period is fixed (1 s / F); other events' varies: the mean. */
	if (!period && freq && clock)
		period = (1000000000 + freq / 2) / freq;
	else if (!period && a->samples)
		period = (a->period + a->samples / 2) / a->samples;
	if (period && x->o->sample_type == REPORT_CPU)
		pb_uint(out, PROFILE_PERIOD, period);
	if (profile_get_meta_u64(p, "start-time"))
		pb_uint(out, PROFILE_TIME_NANOS,
			profile_get_meta_u64(p, "start-time") * 1000000000);
	if (profile_get_meta_u64(p, "duration-ns"))
		pb_uint(out, PROFILE_DURATION_NANOS, profile_get_meta_u64(p, "duration-ns"));
	if (command) {
		x->name.len = 0;
		sbuf_addf(&x->name, "perfmini %s", command);
		pb_uint(out, PROFILE_COMMENT, str_id(x, x->name.buf));
	}
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, str_id(x, type));
}

static void encode_mapping(struct pprof *x, const struct mapping *mp, uint64_t id, struct pb *out)
{
	const struct profile *p = x->p;
	const struct pm_module *m = &p->modules[mp->module];
	const uint64_t page = PAGE_SIZE - 1;
	uint64_t start = 0, limit = (mp->hi + PAGE_SIZE) & ~page, offset = 0;

	if (mp->seg != PM_NONE) {
		/* The segment as the kernel maps it at load bias 0. */
		const struct pm_segment *g = &p->segments[mp->seg];

		start = g->vaddr & ~page;
		limit = (g->vaddr + g->memsz + page) & ~page;
		offset = g->offset & ~page;
	} else if (mp->absolute) {
		start = mp->lo & ~page;
	}
	if (limit <= mp->hi) /* wrapped at the top of the address space */
		limit = UINT64_MAX;
	x->scratch.len = 0;
	pb_uint(&x->scratch, MAPPING_ID, id);
	if (start)
		pb_uint(&x->scratch, MAPPING_MEMORY_START, start);
	pb_uint(&x->scratch, MAPPING_MEMORY_LIMIT, limit);
	pb_uint(&x->scratch, MAPPING_FILE_OFFSET, offset);
	pb_uint(&x->scratch, MAPPING_FILENAME, str_id(x, strtab_get(&p->str, m->path)));
	if (*strtab_get(&p->str, m->build_id))
		pb_uint(&x->scratch, MAPPING_BUILD_ID, str_id(x, strtab_get(&p->str, m->build_id)));
	pb_uint(&x->scratch, MAPPING_HAS_FUNCTIONS, 1);
	pb_uint(&x->scratch, MAPPING_HAS_FILENAMES, mp->filenames);
	pb_uint(&x->scratch, MAPPING_HAS_LINE_NUMBERS, mp->line_numbers);
	pb_uint(&x->scratch, MAPPING_HAS_INLINE_FRAMES, mp->line_numbers);
	pb_message(out, PROFILE_MAPPING, &x->scratch);
}

/* The mappings, the main program's first (its executable ones leading). */
static void encode_mappings(struct pprof *x, struct pb *out)
{
	const struct profile *p = x->p;
	uint32_t mm = x->main_module;

	if (mm != PM_NONE) {
		bool has = false;

		for (size_t i = 0; i < x->nmappings; i++)
			has |= x->mappings[i].module == mm;
		if (!has) {
			/* Not sampled itself: a mapping all the same, so pprof names it. */
			uint32_t seg = PM_NONE;

			for (uint32_t i = x->segs_of[mm]; i < x->segs_of[mm + 1]; i++)
				if (seg == PM_NONE || (p->segments[x->seg_index[i]].flags & PF_X &&
						       !(p->segments[seg].flags & PF_X)))
					seg = x->seg_index[i];
			mapping_id(x, mm, seg, seg == PM_NONE ? 0 : p->segments[seg].vaddr);
		}
	}
	for (int pass = 0; pass < 3; pass++) {
		for (size_t i = 0; i < x->nmappings; i++) {
			const struct mapping *mp = &x->mappings[i];
			bool exec = mp->seg != PM_NONE && (p->segments[mp->seg].flags & PF_X);
			int want = mp->module != mm ? 2 : exec || mp->seg == PM_NONE ? 0 : 1;

			if (want == pass)
				encode_mapping(x, mp, i + 1, out);
		}
	}
}

/* A file a program can be: not the kernel, the vdso, a perf map, anonymous memory. */
static bool is_file_module(const struct profile *p, uint32_t i)
{
	const struct pm_module *m = &p->modules[i];

	return !(m->flags &
		 (PM_MODULE_KERNEL | PM_MODULE_VDSO | PM_MODULE_ANON | PM_MODULE_PERFMAP)) &&
	       strtab_get(&p->str, m->path)[0] == '/';
}

/*
 * The main program, which pprof expects in mapping[0] (it names the
 * profile after it): the command recorded (the word after "--" in the
 * record command line), else the file whose name the most samples' thread
 * names are (the kernel names a thread after its program, cut to 15
 * bytes), else the file that is no shared library (no ".so" in its name)
 * with the most samples, else the file with the most samples. PM_NONE
 * when there is no file.
 */
static uint32_t find_main_module(const struct profile *p, const struct aggregate *a)
{
	const char *cmd = profile_get_meta(p, "command");
	uint64_t *by_comm = xcalloc(p->nmodules + 1, sizeof(*by_comm));
	uint64_t *by_samples = xcalloc(p->nmodules + 1, sizeof(*by_samples));
	uint32_t *stamp = xcalloc(p->nmodules + 1, sizeof(*stamp));
	uint32_t best = PM_NONE;
	char *prog = NULL;

	if (cmd) {
		const char *dd = strstr(cmd, " -- ");

		if (dd) {
			dd += 4;
			prog = xstrndup(dd, strcspn(dd, " "));
		}
	}
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		const char *comm = strtab_get(&p->str, g->comm);

		for (uint32_t d = 0; d < g->depth; d++) {
			uint32_t m = p->frames[a->frames[g->off + d]].module;

			if (m == PM_NONE || stamp[m] == i + 1)
				continue;
			stamp[m] = (uint32_t)i + 1;
			by_samples[m] += g->count;
			if (*comm &&
			    strncmp(report_base_name(strtab_get(&p->str, p->modules[m].path)), comm,
				    15) == 0)
				by_comm[m] += g->count;
		}
	}
	for (int rule = 0; rule < 4 && best == PM_NONE; rule++) {
		uint64_t best_score = 0;

		for (uint32_t m = 0; m < p->nmodules; m++) {
			const char *base =
				report_base_name(strtab_get(&p->str, p->modules[m].path));
			uint64_t score;

			if (!is_file_module(p, m))
				continue;
			if (rule == 0)
				score = prog && strcmp(base, report_base_name(prog)) == 0;
			else if (rule == 1)
				score = by_comm[m];
			else if (rule == 2)
				score = strstr(base, ".so") ? 0 : by_samples[m];
			else
				score = by_samples[m] + 1;
			if (score > best_score) {
				best_score = score;
				best = m;
			}
		}
	}
	free(prog);
	free(by_comm);
	free(by_samples);
	free(stamp);
	return best;
}

/* Groups the segments by module: segs_of[m] .. segs_of[m + 1] in seg_index. */
static void index_segments(struct pprof *x)
{
	const struct profile *p = x->p;

	x->segs_of = xcalloc(p->nmodules + 2, sizeof(*x->segs_of));
	x->seg_index = xcalloc(p->nsegments + 1, sizeof(*x->seg_index));
	for (size_t i = 0; i < p->nsegments; i++)
		x->segs_of[p->segments[i].module + 2]++;
	for (size_t m = 0; m < p->nmodules; m++)
		x->segs_of[m + 2] += x->segs_of[m + 1];
	for (size_t i = 0; i < p->nsegments; i++)
		x->seg_index[x->segs_of[p->segments[i].module + 1]++] = (uint32_t)i;
}

/* Each function name's file: the votes of every level of every sample. */
static void collect_files(struct pprof *x, const struct aggregate *a)
{
	const struct profile *p = x->p;

	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];

		for (uint32_t d = 0; d < g->depth; d++) {
			uint32_t f = a->frames[g->off + d];
			uint32_t n =
				p->frames[f].nlines ? report_frame_levels(p, f, &x->o->names) : 0;

			for (uint32_t k = 0; k < n; k++) {
				const struct pm_line *l = report_level_line(p, f, k, &x->o->names);
				const char *name = strtab_get(&p->str, l->func);

				vote(x, *name ? name : "[unknown]", strtab_get(&p->str, l->file),
				     l->start_line, g->count);
			}
		}
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

/*
 * The samples of a. For the base of a --diff, to is the reported
 * recording's aggregate: the values are normalized to its totals, negated,
 * and labelled as pprof labels a diff base's.
 */
static void encode_samples(struct pprof *x, const struct aggregate *a, const struct aggregate *to,
			   struct pb *out)
{
	const struct profile *p = x->p;

	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		uint64_t count = g->count, period = g->period;

		x->sb.len = 0;
		for (uint32_t d = 0; d < g->depth; d++)
			pb_uint(&x->sb, SAMPLE_LOCATION_ID, location_id(x, a->frames[g->off + d]));
		if (x->o->root != REPORT_ROOT_COMM)
			pb_uint(&x->sb, SAMPLE_LOCATION_ID, root_location(x, a, g->root));
		if (to) {
			/* int64 values: two's complement in the varint. */
			count = -report_normalize(count, to->samples, a->samples);
			period = -report_normalize(period, to->period, a->period);
		}
		pb_uint(&x->sb, SAMPLE_VALUE, count);
		pb_uint(&x->sb, SAMPLE_VALUE, period);
		add_label(x, "pid", NULL, g->pid);
		add_label(x, "tid", NULL, g->tid);
		add_label(x, "thread", strtab_get(&p->str, g->comm), 0);
		if (to)
			add_label(x, "pprof::base", "true", 0);
		pb_message(out, PROFILE_SAMPLE, &x->sb);
	}
}

/* What is per recording in x: the profile, its frames' and roots' locations. */
struct side {
	const struct profile *p;
	uint32_t *loc_of, *root_loc;
	bool no_mappings;
};

static struct side side_swap(struct pprof *x, struct side s)
{
	struct side was = {x->p, x->loc_of, x->root_loc, x->no_mappings};

	x->p = s.p;
	x->loc_of = s.loc_of;
	x->root_loc = s.root_loc;
	x->no_mappings = s.no_mappings;
	return was;
}

/* The whole Profile message into out. */
static void encode(struct pprof *x, const struct aggregate *a, const struct aggregate *base,
		   struct pb *out)
{
	struct side other = {0};

	if (base) {
		other.p = x->o->base;
		other.loc_of = xcalloc(other.p->nframes + 1, sizeof(*other.loc_of));
		other.root_loc = xcalloc(base->nroots + 1, sizeof(*other.root_loc));
		other.no_mappings = true;
	}
	encode_header(x, a, out);
	collect_files(x, a);
	if (base) {
		/* The base's votes too: a function found only there has a file. */
		other = side_swap(x, other);
		collect_files(x, base);
		other = side_swap(x, other);
	}
	encode_samples(x, a, NULL, out);
	if (base) {
		other = side_swap(x, other);
		encode_samples(x, base, a, out);
		other = side_swap(x, other);
	}
	free(other.loc_of);
	free(other.root_loc);
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
	struct aggregate *base = o->base ? aggregate_new(o->base, o, AGG_BY_THREAD) : NULL;
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
	hmap_init(&x.mapping_ids);
	hmap_init(&x.file_votes);
	hmap_init(&x.names);
	index_segments(&x);
	x.main_module = find_main_module(p, a);
	encode(&x, a, base, &msg);
	ret = gzip_write(msg.buf, msg.len, out);
	pb_release(&msg);
	pb_release(&x.functions);
	pb_release(&x.locations);
	pb_release(&x.scratch);
	pb_release(&x.line);
	pb_release(&x.sb);
	sbuf_release(&x.name);
	sbuf_release(&x.valid);
	free(x.str_order);
	free(x.loc_of);
	free(x.root_loc);
	free(x.mappings);
	free(x.segs_of);
	free(x.seg_index);
	free(x.name_files);
	hmap_release(&x.mapping_ids);
	hmap_release(&x.file_votes);
	hmap_release(&x.names);
	hmap_release(&x.str_ids);
	hmap_release(&x.func_ids);
	strtab_release(&x.str);
	if (base)
		aggregate_free(base);
	aggregate_free(a);
	return ret;
}
