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
 * per name across both, so a function is matched by name (with a key on
 * modules, named "MODULE`FUNCTION"; with one on threads, the stacks have
 * the thread's name as a root frame); the base's locations have no
 * mapping (its addresses are another build's). The functions whose share
 * of CPU samples changed beyond the noise (functab.h) are listed in the
 * comments; --diff-significant keeps only the stacks, in both, that hold
 * one marked on its self share.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "report/functab.h"
#include "report/noise.h"
#include "report/pprof-int.h"
#include "util/alloc.h"
#include "util/sbuf.h"

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
	uint64_t name_id = pprof_str_id(x, name), file_id = pprof_str_id(x, file);
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
	uint64_t name_id = pprof_str_id(x, name);
	const struct name_file *nf = name_file(x, name_id);
	struct hmap_slot *slot;
	struct sbuf f = SBUF_INIT;
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
	sbuf_release(&f);
	return slot->val;
}

static void add_line(struct pprof *x, uint64_t func, uint32_t line)
{
	sbuf_reset(&x->line);
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
	sbuf_reset(&x->scratch);
	pb_uint(&x->scratch, LOCATION_ID, id);
	addr = fr->addr;
	if (fr->module != PM_NONE && !x->no_mappings) {
		uint32_t seg;
		uint64_t mid;

		addr = pprof_frame_address(x, fr, &seg);
		mid = pprof_mapping_id(x, fr->module, seg, addr);
		pb_uint(&x->scratch, LOCATION_MAPPING_ID, mid);
		mp = &x->mappings[mid - 1];
	}
	pb_uint(&x->scratch, LOCATION_ADDRESS, addr);
	if (fr->nlines == 0) {
		sbuf_reset(&x->name);
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

/* The location of a root frame: --per-pid, --per-tid, or a --diff keyed on threads. */
static uint64_t root_location(struct pprof *x, const struct aggregate *a, uint32_t root)
{
	uint64_t id;

	if (x->root_loc[root])
		return x->root_loc[root];
	id = ++x->nlocs;
	x->root_loc[root] = (uint32_t)id;
	sbuf_reset(&x->scratch);
	pb_uint(&x->scratch, LOCATION_ID, id);
	add_line(x, function_id(x, a->roots[root]), 0);
	pb_message(&x->locations, PROFILE_LOCATION, &x->scratch);
	return id;
}

static void add_label(struct pprof *x, const char *key, const char *str, uint64_t num)
{
	sbuf_reset(&x->line);
	pb_uint(&x->line, LABEL_KEY, pprof_str_id(x, key));
	if (str)
		pb_uint(&x->line, LABEL_STR, pprof_str_id(x, str));
	else
		pb_uint(&x->line, LABEL_NUM, num);
	pb_message(&x->sb, SAMPLE_LABEL, &x->line);
}

/*
 * A sample's cgroup path as a label, with the systemd unit and the
 * container id it names, where it does: what a back end splits by.
 */
static void add_cgroup_labels(struct pprof *x, const char *path)
{
	if (!*path)
		return;
	add_label(x, "cgroup", path, 0);
	report_cgroup_unit(path, &x->label);
	if (x->label.len)
		add_label(x, "unit", x->label.buf, 0);
	report_cgroup_container(path, &x->label);
	if (x->label.len)
		add_label(x, "container_id", x->label.buf, 0);
}

static void add_value_type(struct pprof *x, struct sbuf *out, uint32_t field, const char *type,
			   const char *unit)
{
	struct sbuf v = SBUF_INIT;

	pb_uint(&v, VALUE_TYPE_TYPE, pprof_str_id(x, type));
	pb_uint(&v, VALUE_TYPE_UNIT, pprof_str_id(x, unit));
	pb_message(out, field, &v);
	sbuf_release(&v);
}

/* --diff: the functions marked, each a comment, at most this many. */
#define MAX_MARK_COMMENTS 20

/* --diff: the larger self change first, then the name. */
static int cmp_marked(const void *a, const void *b, void *arg)
{
	const struct functab *ft = arg;
	const struct ft_row *x = &ft->rows[*(const uint32_t *)a];
	const struct ft_row *y = &ft->rows[*(const uint32_t *)b];
	double cx = fabs(functab_change(ft, x->self, x->base_self));
	double cy = fabs(functab_change(ft, y->self, y->base_self));

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(functab_str(ft, x->name), functab_str(ft, y->name));
}

/* --diff: a comment per function marked beyond the noise (at most MAX_MARK_COMMENTS). */
static void encode_marks(struct pprof *x, struct sbuf *out)
{
	const struct functab *ft = x->ft;
	uint32_t *order = xcalloc(ft->nrows + 1, sizeof(*order));
	size_t n = 0;

	for (size_t i = 0; i < ft->nrows; i++)
		if (ft->rows[i].self_mark || ft->rows[i].total_mark)
			order[n++] = (uint32_t)i;
	if (n)
		qsort_r(order, n, sizeof(*order), cmp_marked, (void *)ft);
	sbuf_reset(&x->name);
	sbuf_addf(&x->name, "perfmini: %zu function%s changed beyond the noise (%g%%)", n,
		  n == 1 ? "" : "s", 100 * (x->o->diff_level > 0 ? x->o->diff_level : NOISE_LEVEL));
	pb_uint(out, PROFILE_COMMENT, pprof_str_id(x, x->name.buf));
	for (size_t i = 0; i < n && i < MAX_MARK_COMMENTS; i++) {
		const struct ft_row *r = &ft->rows[order[i]];

		sbuf_reset(&x->name);
		sbuf_addf(&x->name, "%s: self %+.1f (noise %.1f), total %+.1f (noise %.1f) points",
			  functab_str(ft, r->name), functab_change(ft, r->self, r->base_self),
			  r->self_noise, functab_change(ft, r->total, r->base_total),
			  r->total_noise);
		pb_uint(out, PROFILE_COMMENT, pprof_str_id(x, x->name.buf));
	}
	free(order);
}

/* The header fields: sample types, period, times, comments. */
static void encode_header(struct pprof *x, const struct aggregate *a, struct sbuf *out)
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
		type = x->o->sample_type == REPORT_OFF_CPU ? "off-cpu"
		       : x->o->sample_type == REPORT_WALL  ? "wall"
							   : "latency";
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
		sbuf_reset(&x->name);
		sbuf_addf(&x->name, "perfmini %s", command);
		pb_uint(out, PROFILE_COMMENT, pprof_str_id(x, x->name.buf));
	}
	if (x->ft)
		encode_marks(x, out);
	pb_uint(out, PROFILE_DEFAULT_SAMPLE_TYPE, pprof_str_id(x, type));
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

/*
 * The samples of a. For the base of a --diff, to is the reported
 * recording's aggregate: the values are normalized to its totals, negated,
 * and labelled as pprof labels a diff base's.
 */
static void encode_samples(struct pprof *x, const struct aggregate *a, const struct aggregate *to,
			   struct sbuf *out)
{
	const struct profile *p = x->p;

	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		uint64_t count = g->count, period = g->period;

		if (x->ft && x->o->diff_significant &&
		    !functab_stack_marked(x->ft, a, g, to != NULL))
			continue;
		sbuf_reset(&x->sb);
		for (uint32_t d = 0; d < g->depth; d++)
			pb_uint(&x->sb, SAMPLE_LOCATION_ID, location_id(x, a->frames[g->off + d]));
		/* A root frame where asked for, and in a --diff keyed on threads. */
		if (x->o->root != REPORT_ROOT_NONE &&
		    (x->o->root != REPORT_ROOT_COMM || x->o->base))
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
		add_cgroup_labels(x, strtab_get(&p->str, g->cgroup));
		if (g->waker)
			add_label(x, "waker", strtab_get(&p->str, g->waker), 0);
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
		   struct sbuf *out)
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
	pprof_encode_mappings(x, out);
	sbuf_addn(out, x->locations.buf, x->locations.len);
	sbuf_addn(out, x->functions.buf, x->functions.len);
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
	return zr == Z_STREAM_END ? 0 : -EIO;
}

int fmt_pprof(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct aggregate *a = d->a, *base = d->base;
	struct pprof x = {
		.p = p, .o = o, .name = SBUF_INIT, .valid = SBUF_INIT, .label = SBUF_INIT};
	struct sbuf msg = SBUF_INIT;
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
	pprof_index_segments(&x);
	x.main_module = pprof_find_main_module(p, a);
	if (base && (x.ft = functab_new(p, o, a, base)) && !x.ft->noise) {
		functab_free(x.ft); /* time compared, not counts: no marks */
		x.ft = NULL;
	}
	encode(&x, a, base, &msg);
	ret = gzip_write((const unsigned char *)msg.buf, msg.len, out);
	sbuf_release(&msg);
	functab_free(x.ft);
	sbuf_release(&x.functions);
	sbuf_release(&x.locations);
	sbuf_release(&x.scratch);
	sbuf_release(&x.line);
	sbuf_release(&x.sb);
	sbuf_release(&x.name);
	sbuf_release(&x.valid);
	sbuf_release(&x.label);
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
	return ret;
}
