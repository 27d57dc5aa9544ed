/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live-table.c - the table 'perfmini top' shows: the hottest functions of
 * the samples a report's options select, or the callers or callees of one
 * function; see live.h.
 *
 * A function is one level of a frame (an inlined level is a function of
 * its own, named with "_[i]") in one module, as in the report's --top: a
 * row per function, per function and thread with a thread key, per module
 * with --sort module. Its self count is the samples whose innermost level
 * it is, its total count the samples in which it appears at all, each
 * counted once however often it recurses. A caller of function F is the
 * function one level out from F in a stack (the next frame's innermost
 * level, or the level that inlined it), a callee one level in; each is
 * counted once per stack, its share of F's total.
 *
 * Invariant: every level of every frame counted maps to exactly one
 * function, and every function (with its thread) to one row.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/live.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/utf8.h"

/* A function: what a row is of, without its thread. */
struct live_func {
	uint32_t name, loc, module; /* strings of the table */
};

struct builder {
	const struct profile *p;
	const struct report_opts *o;
	const struct aggregate *a;
	struct live_table *t;
	bool keyed_module; /* functions of other modules apart */
	struct live_func *funcs;
	size_t nfuncs, funcs_cap, rows_cap;
	struct hmap func_index; /* key string -> index into funcs */
	struct hmap row_index;	/* func << 32 | thread -> index into rows */
	uint32_t *levels;	/* per frame, its functions, outermost first */
	size_t nlevels, levels_cap;
	uint32_t *level0;    /* frame -> index into levels + 1; 0: not met yet */
	uint32_t *nlevel;    /* frame -> how many */
	uint32_t *module_of; /* frame -> its module's base name, once met */
	uint32_t *seq;	     /* a stack's functions, leaf first */
	size_t seq_cap;
	struct sbuf b;
};

/* The base name of frame f's module, printable, in the table's strings. */
static uint32_t frame_module(struct builder *b, uint32_t f)
{
	const struct pm_frame *fr = &b->p->frames[f];

	if (b->t->no_module)
		return 0;
	sbuf_reset(&b->b);
	/* A module the profile does not hold (yet) is not read past its table. */
	sbuf_add_printable(&b->b, fr->module == PM_NONE || fr->module >= b->p->nmodules
					  ? "[unknown]"
					  : report_base_name(strtab_get(
						    &b->p->str, b->p->modules[fr->module].path)));
	return strtab_addn(&b->t->str, b->b.buf, b->b.len);
}

/* The function of name, loc and module (strings), added if new. */
static uint32_t func_of(struct builder *b, uint32_t name, uint32_t loc, uint32_t module)
{
	struct hmap_slot *slot;
	bool added;
	uint32_t key;

	sbuf_reset(&b->b);
	sbuf_addf(&b->b, "%u,%u,%u", name, loc, b->keyed_module ? module : 0);
	key = strtab_addn(&b->t->str, b->b.buf, b->b.len);
	slot = hmap_insert(&b->func_index, key, &added);
	if (added) {
		xgrow(&b->funcs, &b->funcs_cap, b->nfuncs + 1, sizeof(*b->funcs));
		b->funcs[b->nfuncs] = (struct live_func){name, loc, module};
		slot->val = b->nfuncs++;
	}
	return (uint32_t)slot->val;
}

/* The function of one level of frame f, in module (a string). */
static uint32_t level_func(struct builder *b, uint32_t f, uint32_t level, uint32_t module)
{
	const struct name_opts *names = &b->o->names;
	struct name_opts bare = *names;
	const struct pm_line *l;
	uint32_t name, loc = 0;

	bare.lines = false;
	bare.modules = false; /* the module has a column of its own */
	sbuf_reset(&b->b);
	if (!b->t->by_module)
		report_level_name(b->p, f, level, &bare, &b->b);
	name = strtab_addn(&b->t->str, b->b.buf, b->b.len);
	l = report_level_line(b->p, f, level, names);
	if (names->lines && !b->t->by_module && l && l->file) {
		const char *file = strtab_get(&b->p->str, l->file);

		sbuf_reset(&b->b);
		sbuf_add_sanitized(&b->b, names->full_paths ? file : report_base_name(file));
		sbuf_addf(&b->b, ":%u", l->line);
		loc = strtab_addn(&b->t->str, b->b.buf, b->b.len);
	}
	return func_of(b, name, loc, module);
}

/* The functions of frame f, outermost level first, through *n. */
static const uint32_t *frame_funcs(struct builder *b, uint32_t f, uint32_t *n)
{
	if (!b->level0[f]) {
		size_t at = b->nlevels;
		uint32_t k = report_frame_levels(b->p, f, &b->o->names);

		xgrow(&b->levels, &b->levels_cap, b->nlevels + k, sizeof(*b->levels));
		b->nlevels += k;
		b->module_of[f] = frame_module(b, f);
		for (uint32_t i = 0; i < k; i++)
			b->levels[at + i] = level_func(b, f, i, b->module_of[f]);
		b->level0[f] = (uint32_t)at + 1;
		b->nlevel[f] = k;
	}
	*n = b->nlevel[f];
	return b->levels + b->level0[f] - 1;
}

/* Stack g's functions, innermost first, into b->seq; their number. */
static size_t stack_seq(struct builder *b, const struct agg_stack *g)
{
	size_t len = 0;

	for (uint32_t d = 0; d < g->depth; d++) {
		uint32_t n, f = b->a->frames[g->off + d];
		const uint32_t *fns = frame_funcs(b, f, &n);

		xgrow(&b->seq, &b->seq_cap, len + n, sizeof(*b->seq));
		for (uint32_t k = n; k-- > 0;)
			b->seq[len++] = fns[k];
	}
	return len;
}

/* The row of func (LIVE_NONE: a pseudo-row named name) in thread, added if new. */
static uint32_t row_of(struct builder *b, uint32_t func, uint32_t thread, const char *name)
{
	struct live_table *t = b->t;
	struct hmap_slot *slot;
	struct live_row *r;
	bool added;

	slot = hmap_insert(&b->row_index, (uint64_t)func << 32 | thread, &added);
	if (!added)
		return (uint32_t)slot->val;
	xgrow(&t->rows, &b->rows_cap, t->nrows + 1, sizeof(*t->rows));
	r = &t->rows[t->nrows];
	memset(r, 0, sizeof(*r));
	r->func = func;
	r->thread = thread;
	if (func != LIVE_NONE) {
		r->name = b->funcs[func].name;
		r->loc = b->funcs[func].loc;
		r->module = b->funcs[func].module;
	} else {
		r->name = strtab_add(&t->str, name);
	}
	slot->val = t->nrows++;
	return (uint32_t)slot->val;
}

/* The thread column's string of stack g: its root's name, with a thread key. */
static uint32_t stack_thread(struct builder *b, const struct agg_stack *g)
{
	if (!b->t->by_thread || b->t->focus)
		return 0;
	sbuf_reset(&b->b);
	sbuf_add_printable(&b->b, b->a->roots[g->root]);
	return strtab_addn(&b->t->str, b->b.buf, b->b.len);
}

/* The hottest functions: self and total of each row. */
static void count_rows(struct builder *b)
{
	struct live_table *t = b->t;

	for (size_t i = 0; i < b->a->nstacks; i++) {
		const struct agg_stack *g = &b->a->stacks[i];
		uint32_t thread = stack_thread(b, g);
		size_t len = stack_seq(b, g);

		for (size_t k = 0; k < len; k++) {
			uint32_t i_row = row_of(b, b->seq[k], thread, NULL);
			struct live_row *r = &t->rows[i_row]; /* row_of may move rows */

			if (k == 0)
				r->self += g->count;
			if (r->stamp != i + 1) {
				r->stamp = (uint32_t)i + 1;
				r->total += g->count;
			}
		}
	}
}

/* The callers (or callees) of function f, each once a stack, and f's own counts. */
static void count_links(struct builder *b, uint32_t f)
{
	struct live_table *t = b->t;
	const char *none = t->callees ? "[self]" : "[outermost]";

	for (size_t i = 0; i < b->a->nstacks; i++) {
		const struct agg_stack *g = &b->a->stacks[i];
		size_t len = stack_seq(b, g);
		bool seen = false;

		for (size_t k = 0; k < len; k++) {
			uint32_t link;
			struct live_row *r;

			if (b->seq[k] != f)
				continue;
			if (!seen)
				t->ftotal += g->count;
			seen = true;
			if (k == 0)
				t->fself += g->count;
			if (t->callees)
				link = k > 0 ? b->seq[k - 1] : LIVE_NONE;
			else
				link = k + 1 < len ? b->seq[k + 1] : LIVE_NONE;
			link = row_of(b, link, 0, none);
			r = &t->rows[link]; /* row_of may move rows */
			if (r->stamp != i + 1) {
				r->stamp = (uint32_t)i + 1;
				r->self += g->count;
				r->total += g->count;
			}
		}
	}
}

/* Whether string s of t is k (NULL as ""). */
static bool same_str(const struct live_table *t, uint32_t s, const char *k)
{
	return !strcmp(live_str(t, s), k ? k : "");
}

/* The function of key k (its thread left out), LIVE_NONE when it has no samples here. */
static uint32_t find_func(struct builder *b, const struct live_key *k)
{
	for (size_t i = 0; i < b->nfuncs; i++) {
		const struct live_func *f = &b->funcs[i];

		if (same_str(b->t, f->name, k->name) && same_str(b->t, f->loc, k->loc) &&
		    same_str(b->t, f->module, k->module))
			return (uint32_t)i;
	}
	return LIVE_NONE;
}

/*
 * The row of key k, SIZE_MAX when none. Its module and thread count where
 * both the key and the table have them: the cursor stays on its function
 * when the --sort keys change.
 */
static size_t find_row(const struct live_table *t, const struct live_key *k)
{
	bool module = !t->no_module && k->module && *k->module;
	bool thread = t->by_thread && k->thread && *k->thread;

	for (size_t i = 0; i < t->nrows; i++) {
		const struct live_row *r = &t->rows[i];

		if (same_str(t, r->name, k->name) && same_str(t, r->loc, k->loc) &&
		    (!module || same_str(t, r->module, k->module)) &&
		    (!thread || same_str(t, r->thread, k->thread)))
			return i;
	}
	return SIZE_MAX;
}

/*
 * The thread and process most samples of the selected row are of: the
 * stacks in which its function appears (in its thread, with a thread key).
 */
static void selected_threads(struct builder *b)
{
	struct live_table *t = b->t;
	const struct live_row *r = &t->rows[t->selected];
	struct hmap by_tid, by_pid;
	uint64_t best_tid = 0, best_pid = 0;

	if (r->func == LIVE_NONE)
		return;
	hmap_init(&by_tid);
	hmap_init(&by_pid);
	for (size_t i = 0; i < b->a->nstacks; i++) {
		const struct agg_stack *g = &b->a->stacks[i];
		size_t len = stack_seq(b, g), k;
		struct hmap_slot *s;
		bool added;

		if (!t->focus && t->by_thread && stack_thread(b, g) != r->thread)
			continue;
		for (k = 0; k < len && b->seq[k] != r->func; k++)
			;
		if (k == len)
			continue;
		s = hmap_insert(&by_tid, g->tid, &added);
		s->val += g->count;
		if (s->val > best_tid) {
			best_tid = s->val;
			t->sel_tid = g->tid;
			t->sel_comm = g->comm;
		}
		s = hmap_insert(&by_pid, g->pid, &added);
		s->val += g->count;
		if (s->val > best_pid) {
			best_pid = s->val;
			t->sel_pid = g->pid;
		}
	}
	/* The thread's name, copied: the profile's strings may move. */
	sbuf_reset(&b->b);
	sbuf_add_printable(&b->b, strtab_get(&b->p->str, t->sel_comm));
	t->sel_comm = strtab_addn(&t->str, b->b.buf, b->b.len);
	hmap_release(&by_tid);
	hmap_release(&by_pid);
}

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

/* The table's order: by self or total (o->sort), then by the names. */
static int cmp_rows(const void *x, const void *y, void *arg)
{
	const struct builder *b = arg;
	const struct live_row *r = x, *s = y;
	const struct strtab *str = &b->t->str;
	bool total = b->o->sort == REPORT_SORT_TOTAL && !b->t->focus;
	int c;

	if ((c = cmp_u64_desc(total ? r->total : r->self, total ? s->total : s->self)) ||
	    (c = cmp_u64_desc(r->total, s->total)) ||
	    (c = strcmp(strtab_get(str, r->name), strtab_get(str, s->name))) ||
	    (c = strcmp(strtab_get(str, r->loc), strtab_get(str, s->loc))) ||
	    (c = strcmp(strtab_get(str, r->thread), strtab_get(str, s->thread))))
		return c;
	return strcmp(strtab_get(str, r->module), strtab_get(str, s->module));
}

/* The table's options from o: which rows, which columns. */
static void table_shape(struct builder *b, const struct live_query *q)
{
	const struct report_opts *o = b->o;
	struct live_table *t = b->t;
	unsigned keys = o->row_keys ? o->row_keys : REPORT_ROW_MODULE | REPORT_ROW_SYMBOL;

	/* A focus is a function: its callers are functions, in modules as the table's. */
	t->by_module = !(keys & REPORT_ROW_SYMBOL) && !q->focus;
	t->no_module = !(keys & REPORT_ROW_MODULE);
	t->by_thread = (keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP)) && !q->focus;
	t->thread_head = keys & REPORT_ROW_CGROUP ? "Cgroup"
			 : keys & REPORT_ROW_TID  ? "Thread"
			 : keys & REPORT_ROW_PID  ? "Process"
						  : "Command";
	t->lines = o->names.lines && !t->by_module;
	t->focus = q->focus != NULL;
	t->callees = q->focus && q->callees;
	b->keyed_module = !t->no_module;
}

static void builder_release(struct builder *b)
{
	free(b->funcs);
	free(b->levels);
	free(b->level0);
	free(b->nlevel);
	free(b->module_of);
	free(b->seq);
	hmap_release(&b->func_index);
	hmap_release(&b->row_index);
	sbuf_release(&b->b);
}

struct live_table *live_table_new(const struct profile *p, const struct report_opts *o,
				  const struct live_query *q)
{
	struct live_table *t = xcalloc(1, sizeof(*t));
	struct aggregate *a = aggregate_new(p, o, AGG_BY_THREAD);
	struct builder b = {.p = p, .o = o, .a = a, .t = t, .b = SBUF_INIT};
	size_t nframes = p->nframes ? p->nframes : 1;

	strtab_init(&t->str);
	hmap_init(&b.func_index);
	hmap_init(&b.row_index);
	b.level0 = xcalloc(nframes, sizeof(*b.level0));
	b.nlevel = xcalloc(nframes, sizeof(*b.nlevel));
	b.module_of = xcalloc(nframes, sizeof(*b.module_of));
	table_shape(&b, q);
	t->samples = a->samples;
	t->selected = SIZE_MAX;
	if (q->focus) {
		uint32_t f;

		/* Every function met first, so that the focus's key finds its own. */
		for (size_t i = 0; i < a->nstacks; i++)
			stack_seq(&b, &a->stacks[i]);
		f = find_func(&b, q->focus);
		t->focus_found = f != LIVE_NONE;
		if (t->focus_found) {
			t->fname = b.funcs[f].name;
			t->fmodule = b.funcs[f].module;
			count_links(&b, f);
		}
	} else {
		count_rows(&b);
	}
	if (t->nrows)
		qsort_r(t->rows, t->nrows, sizeof(*t->rows), cmp_rows, &b);
	if (q->select && q->select->name)
		t->selected = find_row(t, q->select);
	if (t->selected != SIZE_MAX)
		selected_threads(&b);
	builder_release(&b);
	aggregate_free(a);
	return t;
}

void live_table_free(struct live_table *t)
{
	if (!t)
		return;
	strtab_release(&t->str);
	free(t->rows);
	free(t);
}

void live_key_set(struct live_key *k, const struct live_table *t, size_t i)
{
	const struct live_row *r = &t->rows[i];

	live_key_clear(k);
	k->name = xstrdup(live_str(t, r->name));
	k->loc = xstrdup(live_str(t, r->loc));
	k->module = xstrdup(live_str(t, r->module));
	k->thread = xstrdup(live_str(t, r->thread));
}

void live_key_clear(struct live_key *k)
{
	free(k->name);
	free(k->loc);
	free(k->module);
	free(k->thread);
	memset(k, 0, sizeof(*k));
}
