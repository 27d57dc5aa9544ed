/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * functab.c - the function table of a report: its rows, counted from the
 * aggregates of the recording reported and of a --diff's base; see
 * functab.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/functab.h"
#include "report/noise.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/*
 * The row of function func in thread (a string), added if new, showing
 * module (a string: the module of the frame it is first met in).
 */
static uint32_t row_of(struct functab *t, uint32_t func, uint32_t thread, uint32_t module)
{
	struct hmap_slot *slot = NULL;
	bool added = true;

	if (t->by_thread)
		slot = hmap_insert(&t->row_index, (uint64_t)func << 32 | thread, &added);
	else if (func < t->nrows)
		return func; /* one row a function, made with it */
	if (added) {
		xgrow(&t->rows, &t->rows_cap, t->nrows + 1, sizeof(*t->rows));
		memset(&t->rows[t->nrows], 0, sizeof(*t->rows));
		t->rows[t->nrows].name = t->funcs[func].name;
		t->rows[t->nrows].module = module;
		t->rows[t->nrows].loc = t->funcs[func].loc;
		t->rows[t->nrows].thread = thread;
		if (slot)
			slot->val = t->nrows;
		t->nrows++;
	}
	return slot ? (uint32_t)slot->val : (uint32_t)t->nrows - 1;
}

/* The base name of frame f's module, in t's strings. */
static uint32_t frame_module(struct functab *t, const struct profile *p, uint32_t f)
{
	const struct pm_frame *fr = &p->frames[f];

	sbuf_reset(&t->b);
	if (t->no_module)
		return strtab_addn(&t->str, "", 0);
	/* A path another user chose: printable, as every name shown. */
	sbuf_add_printable(&t->b, fr->module == PM_NONE
					  ? "[unknown]"
					  : report_base_name(strtab_get(
						    &p->str, p->modules[fr->module].path)));
	return strtab_addn(&t->str, t->b.buf, t->b.len);
}

/* The function of one level of frame f of p, in module (a string), added if new. */
static uint32_t level_fn(struct functab *t, const struct profile *p, uint32_t f, uint32_t level,
			 uint32_t module)
{
	struct name_opts names = t->o->names;
	const struct pm_line *l;
	uint32_t name, loc = 0, key;
	struct hmap_slot *slot;
	bool added;

	names.lines = false;
	names.modules = false; /* the module has a column of its own */
	sbuf_reset(&t->b);
	if (!t->by_module)
		report_level_name(p, f, level, &names, &t->b);
	name = strtab_addn(&t->str, t->b.buf, t->b.len);
	l = report_level_line(p, f, level, &t->o->names);
	if (t->o->names.lines && !t->by_module && l && l->file) {
		const char *file = strtab_get(&p->str, l->file);

		sbuf_reset(&t->b);
		sbuf_add_sanitized(&t->b, t->o->names.full_paths ? file : report_base_name(file));
		sbuf_addf(&t->b, ":%u", l->line);
		loc = strtab_addn(&t->str, t->b.buf, t->b.len);
	}
	/* A row's function: its module in the key but in a --diff not keyed on modules. */
	sbuf_reset(&t->b);
	sbuf_addf(&t->b, "%u,%u,%u", name, t->keyed_module ? module : 0, loc);
	key = strtab_addn(&t->str, t->b.buf, t->b.len);
	slot = hmap_insert(&t->func_index, key, &added);
	if (added) {
		xgrow(&t->funcs, &t->funcs_cap, t->nfuncs + 1, sizeof(*t->funcs));
		t->funcs[t->nfuncs] = (struct ft_func){name, loc};
		slot->val = t->nfuncs++;
		if (!t->by_thread)
			row_of(t, (uint32_t)slot->val, 0, module);
	}
	return (uint32_t)slot->val;
}

/* The functions of frame f of side s, outermost first, through *n. */
static const uint32_t *frame_fns(struct functab *t, struct ft_side *s, uint32_t f, uint32_t *n)
{
	*n = report_frame_levels(s->p, f, &t->o->names);
	if (!s->level0[f]) {
		size_t at = t->nlevels;

		xgrow(&t->levels, &t->levels_cap, t->nlevels + *n, sizeof(*t->levels));
		t->nlevels += *n;
		s->module_of[f] = frame_module(t, s->p, f);
		for (uint32_t i = 0; i < *n; i++)
			t->levels[at + i] = level_fn(t, s->p, f, i, s->module_of[f]);
		s->level0[f] = (uint32_t)at + 1;
	}
	return t->levels + s->level0[f] - 1;
}

double functab_change(const struct functab *t, uint64_t now, uint64_t before)
{
	double n = t->samples ? 100.0 * (double)now / (double)t->samples : 0;
	double b = t->base_samples ? 100.0 * (double)before / (double)t->base_samples : 0;

	return n - b;
}

/* The thread a root names, in t's strings (0, "", without a thread key). */
static uint32_t root_thread(struct functab *t, const char *root)
{
	if (!t->by_thread)
		return 0;
	sbuf_reset(&t->b);
	sbuf_add_printable(&t->b, root);
	return strtab_addn(&t->str, t->b.buf, t->b.len);
}

uint32_t functab_row(struct functab *ft, bool base, uint32_t f, uint32_t level, const char *root)
{
	struct ft_side *s = &ft->side[base];
	uint32_t thread = root_thread(ft, root), n;
	const uint32_t *fns = frame_fns(ft, s, f, &n);

	return row_of(ft, fns[level < n ? level : n - 1], thread, s->module_of[f]);
}

/*
 * Counts self and total (into base_self and base_total for the base of a
 * --diff); a row (function or module) counts once per stack.
 */
static void count(struct functab *t, const struct aggregate *a, bool base)
{
	struct ft_side *s = &t->side[base];

	for (size_t i = 0; i < t->nrows; i++)
		t->rows[i].stamp = 0;
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		uint32_t thread = root_thread(t, a->roots[g->root]);

		for (uint32_t d = 0; d < g->depth; d++) {
			uint32_t n, f = a->frames[g->off + d];
			const uint32_t *fns = frame_fns(t, s, f, &n);

			/* Rows are made as they are met: t->rows moves. */
			if (d == 0) {
				uint32_t row = row_of(t, fns[n - 1], thread, s->module_of[f]);

				*(base ? &t->rows[row].base_self : &t->rows[row].self) += g->count;
				if (!base)
					t->rows[row].self_records += g->records;
			}
			for (uint32_t k = 0; k < n; k++) {
				uint32_t row = row_of(t, fns[k], thread, s->module_of[f]);
				struct ft_row *r = &t->rows[row];

				if (r->stamp == i + 1)
					continue;
				r->stamp = (uint32_t)i + 1;
				*(base ? &r->base_total : &r->total) += g->count;
			}
		}
	}
}

/*
 * --diff of CPU samples: each row's noise, and a mark on a change beyond
 * it, at o->diff_level over the family of the rows' tests (noise.h);
 * weights in nanoseconds are no counts of draws, and get none.
 */
static void mark_rows(struct functab *t)
{
	double level = t->o->diff_level > 0 ? t->o->diff_level : NOISE_LEVEL;
	uint64_t(*k)[4];
	struct noise_test *tests;

	if (t->o->sample_type != REPORT_CPU)
		return;
	k = xcalloc(t->nrows + 1, sizeof(*k));
	tests = xcalloc(2 * t->nrows + 1, sizeof(*tests));
	for (size_t i = 0; i < t->nrows; i++) {
		const struct ft_row *r = &t->rows[i];

		k[i][0] = r->base_self;
		k[i][1] = r->self;
		k[i][2] = r->base_total;
		k[i][3] = r->total;
	}
	t->family = noise_table((const uint64_t(*)[4])k, t->nrows, t->base_samples, t->samples,
				level, tests);
	for (size_t i = 0; i < t->nrows; i++) {
		struct ft_row *r = &t->rows[i];
		const struct noise_test *st = &tests[2 * i], *tt = &tests[2 * i + 1];

		r->self_noise = 100 * st->half;
		r->total_noise = 100 * tt->half;
		r->self_mark = (int8_t)st->beyond;
		r->total_mark = (int8_t)tt->beyond;
		t->marked += r->self_mark || r->total_mark;
	}
	free(tests);
	free(k);
	t->noise = true;
}

static void side_init(struct ft_side *s, const struct profile *p)
{
	s->p = p;
	s->level0 = xcalloc(p->nframes ? p->nframes : 1, sizeof(*s->level0));
	s->module_of = xcalloc(p->nframes ? p->nframes : 1, sizeof(*s->module_of));
}

struct functab *functab_new(const struct profile *p, const struct report_opts *o,
			    const struct aggregate *a, const struct aggregate *base)
{
	struct functab *t = xcalloc(1, sizeof(*t));
	unsigned keys = o->row_keys ? o->row_keys : REPORT_ROW_MODULE | REPORT_ROW_SYMBOL;

	t->o = o;
	t->by_module = !(keys & REPORT_ROW_SYMBOL);
	t->no_module = o->row_keys && !(keys & REPORT_ROW_MODULE);
	t->keyed_module = o->row_keys ? !!(keys & REPORT_ROW_MODULE)
				      : !o->base || (o->diff_key & REPORT_KEY_MODULE);
	t->by_thread = (o->base && o->root != REPORT_ROOT_NONE) ||
		       (keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP));
	t->b = (struct sbuf)SBUF_INIT;
	strtab_init(&t->str);
	hmap_init(&t->func_index);
	hmap_init(&t->row_index);
	side_init(&t->side[0], p);
	t->samples = a->samples;
	count(t, a, false);
	if (base) {
		side_init(&t->side[1], o->base);
		t->base_samples = base->samples;
		count(t, base, true);
		mark_rows(t);
	}
	return t;
}

bool functab_stack_marked(struct functab *ft, const struct aggregate *a, const struct agg_stack *g,
			  bool base)
{
	for (uint32_t d = 0; d < g->depth; d++) {
		uint32_t f = a->frames[g->off + d];
		uint32_t n = report_frame_levels(ft->side[base].p, f, &ft->o->names);

		for (uint32_t k = 0; k < n; k++)
			if (ft->rows[functab_row(ft, base, f, k, a->roots[g->root])].self_mark)
				return true;
	}
	return false;
}

void functab_free(struct functab *ft)
{
	if (!ft)
		return;
	for (int i = 0; i < 2; i++) {
		free(ft->side[i].level0);
		free(ft->side[i].module_of);
	}
	free(ft->rows);
	free(ft->funcs);
	free(ft->levels);
	hmap_release(&ft->func_index);
	hmap_release(&ft->row_index);
	strtab_release(&ft->str);
	sbuf_release(&ft->b);
	free(ft);
}
