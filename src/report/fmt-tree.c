/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-tree.c - --tree: the hottest functions, each with the tree of its
 * callees (caller order, -g caller) or of its callers (callee order, -g
 * callee), drawn as perf report --stdio draws its call graphs.
 *
 * A row is a function (one level of a frame: an inlined level is a
 * function of its own) keyed as --top keys its rows: by module and name,
 * or by what --sort says; without symbol among the keys, a row is a group
 * of whole stacks (by their leaf's module, with module) and its tree is
 * drawn from their leaf (callers) or their root (callees). Its self count
 * is the samples whose innermost level it is, its total (--children) the
 * samples in which it appears, each counted once however deep it recurses.
 *
 * Under a row, with --children, each sample in which the function appears
 * adds its path from the function's innermost appearance out to the root
 * (callers) or from its outermost appearance in to the leaf (callees);
 * with --no-children only the samples whose leaf it is, and their path
 * to the root. A node's count is the samples whose path goes through it;
 * every share is of all the samples reported, as perf's are. Branches
 * under the threshold are folded into one line that says how much they
 * hold. With --diff each share is followed by its change from the base
 * recording, in points of the share; with CPU samples, a row's change is
 * marked '*' beyond its noise (noise.h), tested as --top tests its rows
 * (self and total shares, the family of both), the branches unmarked.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/noise.h"
#include "report/report.h"
#include "report/top-int.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/sbuf.h"

#define HEADER_WIDTH 100
#define INDENT	     12 /* where a row's graph starts, as in perf */
#define BRANCH	     11 /* the width of "|--12.34%--" that a branch's names align after */

/* A level of a stack as the tree sees it. */
struct tree_level {
	uint32_t name;	/* strings: the function's name as shown */
	uint32_t entry; /* its row */
};

/* A row: a function, or with --sort keys a function and what they add. */
struct tree_entry {
	uint32_t name, module, thread; /* strings; module, thread "" when not in the key */
	uint32_t stamp;		       /* the last stack counted in total, + 1 */
	int mark; /* --diff: +1 its shown share grew beyond the noise, -1 shrank, else 0 */
	uint64_t self, total, base_self, base_total;
};

/* A node of a row's tree. */
struct tree_node {
	uint32_t name; /* strings */
	uint32_t kids; /* the first child + 1, 0 for none */
	uint32_t next; /* the next sibling + 1 */
	uint32_t pad;
	uint64_t count, base;
};

/* One recording's stacks, as levels outermost first. */
struct tree_side {
	const struct aggregate *a;
	struct tree_level *levels;
	size_t nlevels, cap;
	size_t *off; /* per stack: its first level in levels; off[nstacks] the end */
	/*
	 * Each frame's levels, named once (stacks share most of their frames):
	 * per frame of the recording, its first in framed + 1, 0 until met;
	 * an entry of UINT32_MAX is made per stack (a thread key).
	 */
	uint32_t *frame_at;
	struct tree_level *framed;
	size_t nframed, fcap;
};

struct tree {
	const struct report_opts *o;
	unsigned keys; /* enum report_row_key, the default made explicit */
	bool callers;  /* callee order: the tree of each row's callers */
	struct strtab str;
	struct hmap entry_index; /* key text's offset in str -> entry */
	struct tree_entry *entries;
	size_t nentries, ecap;
	struct tree_side now, was;
	struct tree_node *nodes;
	size_t nnodes, ncap;
	struct hmap kid_index; /* parent << 32 | name -> node */
	uint64_t total, base_total;
	/* --diff of CPU samples: the rows' noise bars (noise.h); noisy false: none, time weighed */
	bool noisy;
	struct top_noise noise;
	struct sbuf b, key;
};

/* The row whose key is module, thread and name (made when new). */
static uint32_t entry_of(struct tree *t, uint32_t name, uint32_t module, uint32_t thread)
{
	struct hmap_slot *s;
	bool added;

	sbuf_reset(&t->key);
	sbuf_addf(&t->key, "%s\x1f%s\x1f%s", strtab_get(&t->str, thread),
		  strtab_get(&t->str, module), strtab_get(&t->str, name));
	s = hmap_insert(&t->entry_index, strtab_add(&t->str, t->key.buf), &added);
	if (added) {
		xgrow(&t->entries, &t->ecap, t->nentries + 1, sizeof(*t->entries));
		t->entries[t->nentries] =
			(struct tree_entry){.name = name, .module = module, .thread = thread};
		s->val = t->nentries++;
	}
	return (uint32_t)s->val;
}

static uint32_t add_string(struct tree *t, const struct sbuf *b)
{
	return strtab_add(&t->str, b->len ? b->buf : "");
}

/* The base name of module as a row's Module column shows it. */
static uint32_t module_string(struct tree *t, const struct profile *p, uint32_t module)
{
	sbuf_reset(&t->b);
	report_module_name(p, module, &t->b);
	return add_string(t, &t->b);
}

/*
 * The levels of frame f of side's recording p, named when first met: its
 * first in side->framed. Their entries are the rows of a function in its
 * module, or UINT32_MAX where the row also has a thread or none.
 */
static size_t frame_levels(struct tree *t, struct tree_side *side, const struct profile *p,
			   uint32_t f)
{
	uint32_t n = report_frame_levels(p, f, &t->o->names), module = 0;
	bool own_entry = (t->keys & REPORT_ROW_SYMBOL) &&
			 !(t->keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP));

	if (side->frame_at[f])
		return side->frame_at[f] - 1;
	if (t->keys & REPORT_ROW_MODULE)
		module = module_string(t, p, p->frames[f].module);
	side->frame_at[f] = (uint32_t)side->nframed + 1;
	xgrow(&side->framed, &side->fcap, side->nframed + n, sizeof(*side->framed));
	for (uint32_t l = 0; l < n; l++) {
		struct tree_level *v = &side->framed[side->nframed++];

		sbuf_reset(&t->b);
		report_level_name(p, f, l, &t->o->names, &t->b);
		v->name = add_string(t, &t->b);
		v->entry = own_entry ? entry_of(t, v->name, module, 0) : UINT32_MAX;
	}
	return side->frame_at[f] - 1;
}

/* Appends stack g of side's recording p as levels, outermost first. */
static void add_stack(struct tree *t, struct tree_side *side, const struct profile *p,
		      const struct agg_stack *g)
{
	const struct aggregate *a = side->a;
	bool by_symbol = t->keys & REPORT_ROW_SYMBOL, by_module = t->keys & REPORT_ROW_MODULE;
	uint32_t thread = 0, group = 0;
	size_t first = side->nlevels;

	if (t->keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP))
		thread = strtab_add(&t->str, a->roots[g->root]);
	for (uint32_t d = g->depth; d-- > 0;) {
		uint32_t f = a->frames[g->off + d];
		size_t at = frame_levels(t, side, p, f);
		uint32_t n = report_frame_levels(p, f, &t->o->names);
		uint32_t module = 0;

		xgrow(&side->levels, &side->cap, side->nlevels + n, sizeof(*side->levels));
		for (uint32_t l = 0; l < n; l++) {
			struct tree_level *v = &side->levels[side->nlevels++];

			*v = side->framed[at + l];
			if (v->entry != UINT32_MAX || !by_symbol)
				continue;
			/* A thread key: the row is the function's in this stack's thread. */
			if (by_module && !module)
				module = module_string(t, p, p->frames[f].module);
			v->entry = entry_of(t, v->name, module, thread);
		}
	}
	if (by_symbol || first == side->nlevels)
		return;
	/* A group of whole stacks (by the leaf's module): all its levels are the row's. */
	if (by_module)
		group = module_string(t, p, p->frames[a->frames[g->off]].module);
	group = entry_of(t, 0, group, thread);
	for (size_t i = first; i < side->nlevels; i++)
		side->levels[i].entry = group;
}

/* Levels of every stack of side, and the rows' self and total counts. */
static void add_side(struct tree *t, struct tree_side *side, const struct profile *p, bool base)
{
	const struct aggregate *a = side->a;

	side->off = xcalloc(a->nstacks + 1, sizeof(*side->off));
	side->frame_at = xcalloc(p->nframes ? p->nframes : 1, sizeof(*side->frame_at));
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		size_t first = side->nlevels;
		struct tree_entry *e;

		side->off[i] = first;
		add_stack(t, side, p, g);
		if (first == side->nlevels)
			continue;
		e = &t->entries[side->levels[side->nlevels - 1].entry];
		*(base ? &e->base_self : &e->self) += g->count;
		for (size_t l = first; l < side->nlevels; l++) {
			e = &t->entries[side->levels[l].entry];
			if (e->stamp == i + 1)
				continue;
			e->stamp = (uint32_t)i + 1;
			*(base ? &e->base_total : &e->total) += g->count;
		}
	}
	side->off[a->nstacks] = side->nlevels;
	for (size_t i = 0; i < t->nentries; i++)
		t->entries[i].stamp = 0;
}

/* The child of node parent named name (made when new). */
static uint32_t kid_of(struct tree *t, uint32_t parent, uint32_t name)
{
	struct hmap_slot *s;
	bool added;

	s = hmap_insert(&t->kid_index, (uint64_t)parent << 32 | name, &added);
	if (added) {
		xgrow(&t->nodes, &t->ncap, t->nnodes + 1, sizeof(*t->nodes));
		t->nodes[t->nnodes] =
			(struct tree_node){.name = name, .next = t->nodes[parent].kids};
		t->nodes[parent].kids = (uint32_t)t->nnodes + 1;
		s->val = t->nnodes++;
	}
	return (uint32_t)s->val;
}

/*
 * Where row e is in the n levels lv, the path's start: with --no-children
 * the leaf, when it is e's; else e's innermost level (callers) or its
 * outermost (callees). -1 when the stack does not count for e.
 */
static long path_start(const struct tree *t, const struct tree_level *lv, size_t n, uint32_t e)
{
	if (t->o->tree_self)
		return lv[n - 1].entry == e ? (long)n - 1 : -1;
	if (t->callers) {
		for (size_t i = n; i-- > 0;)
			if (lv[i].entry == e)
				return (long)i;
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		if (lv[i].entry == e)
			return (long)i;
	return -1;
}

/*
 * Whether node 0 of a row's tree only holds its paths' first nodes: with
 * --no-children and caller order (paths from the root in to the
 * function), and for a group of whole stacks (from their leaf or root).
 */
static bool virtual_root(const struct tree *t)
{
	return (t->o->tree_self && !t->callers) || !(t->keys & REPORT_ROW_SYMBOL);
}

/*
 * Adds the paths of side's stacks that count for row e to its tree, whose
 * node 0 is e: callers outward to the root, callees inward to the leaf.
 * With a virtual root (see above), the path's first level is a child of
 * node 0, and with --no-children and caller order the path runs from the
 * root in to e.
 */
static void grow_tree(struct tree *t, const struct tree_side *side, uint32_t e, bool base)
{
	bool from_root = t->o->tree_self && !t->callers;
	bool group = !(t->keys & REPORT_ROW_SYMBOL);

	for (size_t i = 0; i < side->a->nstacks; i++) {
		const struct tree_level *lv = side->levels + side->off[i];
		size_t n = side->off[i + 1] - side->off[i];
		uint64_t count = side->a->stacks[i].count;
		uint32_t node = 0;
		long at = n ? path_start(t, lv, n, e) : -1, j, end, step;

		if (at < 0)
			continue;
		*(base ? &t->nodes[0].base : &t->nodes[0].count) += count;
		step = t->callers ? -1 : 1;
		j = from_root ? 0 : group ? at : at + step;
		end = from_root ? at + 1 : t->callers ? -1 : (long)n;
		for (; j != end; j += step) {
			node = kid_of(t, node, lv[j].name);
			*(base ? &t->nodes[node].base : &t->nodes[node].count) += count;
		}
	}
}

/* v as a share of total, in percent; 0 when total is. */
static double share(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}

/* Appends node k's share ("74.40%") and, with --diff, its change ("74.40% +2.10"). */
static void add_share(const struct tree *t, const struct tree_node *k, struct sbuf *b)
{
	double now = share(k->count, t->total);

	sbuf_addf(b, "%.2f%%", now);
	if (t->o->base)
		sbuf_addf(b, " %+.2f", now - share(k->base, t->base_total));
}

static const struct tree_node *sort_nodes;

/* Children by count, most first, then by base count, then by name (stable output). */
static int by_count(const void *x, const void *y)
{
	const struct tree_node *a = &sort_nodes[*(const uint32_t *)x],
			       *b = &sort_nodes[*(const uint32_t *)y];

	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	if (a->base != b->base)
		return a->base > b->base ? -1 : 1;
	return a->name < b->name ? -1 : a->name > b->name;
}

/* Whether node k is drawn: its share (or, with --diff, its base's) reaches the threshold. */
static bool drawn(const struct tree *t, const struct tree_node *k)
{
	double limit = t->o->tree_threshold;

	return (k->count && share(k->count, t->total) >= limit) ||
	       (t->o->base && k->base && share(k->base, t->base_total) >= limit);
}

/*
 * Draws the children of node under prefix (the columns of the branches
 * above), as perf does: a node with one child that holds all of it
 * continues in the same column; otherwise each child drawn is a branch
 * "|--SHARE--NAME", the last one " --", and those under the threshold
 * are folded into one last branch that says what they hold.
 */
static void draw_kids(struct tree *t, uint32_t node, struct sbuf *prefix, FILE *out)
{
	const struct tree_node *parent = &t->nodes[node];
	size_t nkids = 0, shown = 0, len = prefix->len;
	struct tree_node folded = {0}; /* the branches under the threshold, together */
	unsigned nfolded = 0;
	uint32_t *kids = NULL, *k;

	for (uint32_t c = parent->kids; c; c = t->nodes[c - 1].next)
		nkids++;
	if (!nkids)
		return;
	kids = xcalloc(nkids, sizeof(*kids));
	k = kids;
	for (uint32_t c = parent->kids; c; c = t->nodes[c - 1].next)
		*k++ = c - 1;
	sort_nodes = t->nodes;
	qsort(kids, nkids, sizeof(*kids), by_count);
	for (size_t i = 0; i < nkids; i++) {
		const struct tree_node *c = &t->nodes[kids[i]];

		if (drawn(t, c)) {
			kids[shown++] = kids[i];
		} else {
			folded.count += c->count;
			folded.base += c->base;
			nfolded++;
		}
	}
	if (shown == 1 && !nfolded && t->nodes[kids[0]].count == parent->count &&
	    t->nodes[kids[0]].base == parent->base) {
		fprintf(out, "%s%s\n", prefix->buf, strtab_get(&t->str, t->nodes[kids[0]].name));
		draw_kids(t, kids[0], prefix, out);
		free(kids);
		return;
	}
	for (size_t i = 0; i < shown; i++) {
		bool last = i + 1 == shown && !nfolded;
		const struct tree_node *c = &t->nodes[kids[i]];

		sbuf_reset(&t->b);
		add_share(t, c, &t->b);
		fprintf(out, "%s|\n%s%s--%s--%s\n", prefix->buf, prefix->buf, last ? " " : "|",
			t->b.buf, strtab_get(&t->str, c->name));
		sbuf_addf(prefix, "%-*s", BRANCH, last ? "" : "|");
		draw_kids(t, kids[i], prefix, out);
		sbuf_truncate(prefix, len);
	}
	if (nfolded) {
		sbuf_reset(&t->b);
		add_share(t, &folded, &t->b);
		fprintf(out, "%s|\n%s --%s--[%u more, each under %g%%]\n", prefix->buf, prefix->buf,
			t->b.buf, nfolded, t->o->tree_threshold);
	}
	free(kids);
}

/* Row e's tree, drawn under its line. */
static void draw_tree(struct tree *t, uint32_t e, FILE *out)
{
	struct sbuf prefix = SBUF_INIT;
	uint32_t root;

	t->nnodes = 0;
	hmap_release(&t->kid_index);
	hmap_init(&t->kid_index);
	xgrow(&t->nodes, &t->ncap, 1, sizeof(*t->nodes));
	t->nodes[t->nnodes++] = (struct tree_node){.name = t->entries[e].name};
	grow_tree(t, &t->now, e, false);
	if (t->o->base)
		grow_tree(t, &t->was, e, true);
	sbuf_addf(&prefix, "%*s", INDENT, "");
	root = 0;
	if (virtual_root(t)) {
		/* Node 0 only holds the first nodes, drawn as its branches, unless one holds all. */
		uint32_t k = t->nodes[0].kids;

		root = k && !t->nodes[k - 1].next && t->nodes[k - 1].count == t->nodes[0].count &&
				       t->nodes[k - 1].base == t->nodes[0].base
			       ? k - 1
			       : UINT32_MAX;
	}
	if (root == UINT32_MAX) {
		draw_kids(t, 0, &prefix, out); /* each branch under its own "|" */
	} else {
		fprintf(out, "%s|\n%s---%s\n", prefix.buf, prefix.buf,
			strtab_get(&t->str, t->nodes[root].name));
		sbuf_adds(&prefix, "   ");
		draw_kids(t, root, &prefix, out);
	}
	fputc('\n', out);
	sbuf_release(&prefix);
}

/* The value a row is ordered and limited by: total with --children, else self. */
static uint64_t row_value(const struct tree *t, const struct tree_entry *e, bool base)
{
	bool by_total = !t->o->tree_self && t->o->sort == REPORT_SORT_TOTAL;

	if (base)
		return by_total ? e->base_total : e->base_self;
	return by_total ? e->total : e->self;
}

static const struct tree *sort_tree;

static int by_value(const void *x, const void *y)
{
	const struct tree_entry *a = &sort_tree->entries[*(const uint32_t *)x],
				*b = &sort_tree->entries[*(const uint32_t *)y];
	uint64_t va = row_value(sort_tree, a, false), vb = row_value(sort_tree, b, false);

	if (va != vb)
		return va > vb ? -1 : 1;
	if (a->total != b->total)
		return a->total > b->total ? -1 : 1;
	va = row_value(sort_tree, a, true);
	vb = row_value(sort_tree, b, true);
	if (va != vb)
		return va > vb ? -1 : 1;
	return strcmp(strtab_get(&sort_tree->str, a->name), strtab_get(&sort_tree->str, b->name));
}

/*
 * --diff of CPU samples: each row's mark, on the share it shows (Children,
 * or Self with --no-children or --sort self), from the tests of both its
 * shares over the family of all rows', as --top's (functab.c).
 */
static void mark_entries(struct tree *t)
{
	bool by_total = !t->o->tree_self && t->o->sort == REPORT_SORT_TOTAL;
	uint64_t(*k)[4] = xcalloc(t->nentries + 1, sizeof(*k));
	struct noise_test *tests = xcalloc(2 * t->nentries + 1, sizeof(*tests));

	for (size_t i = 0; i < t->nentries; i++) {
		const struct tree_entry *e = &t->entries[i];

		k[i][0] = e->base_self;
		k[i][1] = e->self;
		k[i][2] = e->base_total;
		k[i][3] = e->total;
	}
	t->noise = (struct top_noise){.marks = "a row's change"};
	t->noise.family = noise_table((const uint64_t(*)[4])k, t->nentries, t->base_total, t->total,
				      t->o->diff_level > 0 ? t->o->diff_level : NOISE_LEVEL, tests);
	for (size_t i = 0; i < t->nentries; i++) {
		t->entries[i].mark = tests[2 * i + by_total].beyond;
		t->noise.marked += t->entries[i].mark != 0;
	}
	t->noisy = true;
	free(tests);
	free(k);
}

/*
 * Whether row e is shown: it has samples, and --percent-limit's share in
 * either recording; with --diff-significant, a mark.
 */
static bool shown(const struct tree *t, const struct tree_entry *e)
{
	double now = share(row_value(t, e, false), t->total);
	double was = share(row_value(t, e, true), t->base_total);

	if (!row_value(t, e, false) && !row_value(t, e, true))
		return false;
	if (t->o->diff_significant && !e->mark)
		return false;
	return now >= t->o->percent_limit || (t->o->base && was >= t->o->percent_limit);
}

/* Writes line b (made by the two below), without the spaces that end it. */
static void put_line(struct sbuf *b, FILE *out)
{
	while (b->len && b->buf[b->len - 1] == ' ')
		sbuf_truncate(b, b->len - 1);
	fprintf(out, "%s\n", b->len ? b->buf : "");
}

/* The rows' heading, the text columns' widths given (0: no such column). */
static void print_heading(struct tree *t, int thread_w, int module_w, FILE *out)
{
	const char *thread = (t->keys & REPORT_ROW_CGROUP) ? "Cgroup"
			     : (t->keys & REPORT_ROW_TID)  ? "Thread"
			     : (t->keys & REPORT_ROW_PID)  ? "Process"
							   : "Command";

	sbuf_reset(&t->b);
	if (!t->o->tree_self)
		sbuf_addf(&t->b, "%9s  ", "Children");
	sbuf_addf(&t->b, "%9s  ", "Self");
	if (t->o->base)
		sbuf_addf(&t->b, "%7s%s  ", "Change", t->noisy ? " " : "");
	if (thread_w)
		sbuf_addf(&t->b, "%-*s  ", thread_w, thread);
	if (module_w)
		sbuf_addf(&t->b, "%-*s  ", module_w, "Module");
	if (t->keys & REPORT_ROW_SYMBOL)
		sbuf_adds(&t->b, "Function");
	put_line(&t->b, out);
	fputc('\n', out);
}

/* Row e's line: its shares, its change with --diff, its key's text. */
static void print_row(struct tree *t, const struct tree_entry *e, int thread_w, int module_w,
		      FILE *out)
{
	sbuf_reset(&t->b);
	if (!t->o->tree_self)
		sbuf_addf(&t->b, "%8.2f%%  ", share(e->total, t->total));
	sbuf_addf(&t->b, "%8.2f%%  ", share(e->self, t->total));
	if (t->o->base)
		sbuf_addf(&t->b, "%+7.2f%s  ",
			  share(row_value(t, e, false), t->total) -
				  share(row_value(t, e, true), t->base_total),
			  !t->noisy ? ""
			  : e->mark ? "*"
				    : " ");
	if (thread_w)
		sbuf_addf(&t->b, "%-*s  ", thread_w, strtab_get(&t->str, e->thread));
	if (module_w)
		sbuf_addf(&t->b, "%-*s  ", module_w, strtab_get(&t->str, e->module));
	sbuf_adds(&t->b, strtab_get(&t->str, e->name));
	put_line(&t->b, out);
}

/* The rows shown, in order, into *rows: their number. */
static size_t pick_rows(struct tree *t, uint32_t **rows)
{
	size_t n = 0, limit = t->o->rows > 0 ? (size_t)t->o->rows : SIZE_MAX;

	*rows = xcalloc(t->nentries + 1, sizeof(**rows));
	for (size_t i = 0; i < t->nentries; i++)
		if (shown(t, &t->entries[i]))
			(*rows)[n++] = (uint32_t)i;
	sort_tree = t;
	qsort(*rows, n, sizeof(**rows), by_value);
	return n < limit ? n : limit;
}

int fmt_tree(const struct report_data *d, FILE *out)
{
	const struct report_opts *o = d->o;
	struct tree t = {.o = o, .b = SBUF_INIT, .key = SBUF_INIT};
	int thread_w = 0, module_w = 0;
	uint32_t *rows;
	size_t n;

	t.keys = o->row_keys ? o->row_keys : REPORT_ROW_MODULE | REPORT_ROW_SYMBOL;
	/* As --top's rows: a --diff matches by name, and by what --diff-key adds. */
	if (o->base && !o->row_keys && !(o->diff_key & REPORT_KEY_MODULE))
		t.keys &= ~(unsigned)REPORT_ROW_MODULE;
	if (o->base && !o->row_keys && o->root != REPORT_ROOT_NONE)
		t.keys |= REPORT_ROW_COMM;
	t.callers = o->tree_order == REPORT_TREE_CALLEE ||
		    (o->tree_order == REPORT_TREE_DEFAULT && o->tree_self);
	strtab_init(&t.str);
	hmap_init(&t.entry_index);
	hmap_init(&t.kid_index);
	t.now.a = d->a;
	t.total = d->a->samples;
	add_side(&t, &t.now, d->p, false);
	if (d->base) {
		t.was.a = d->base;
		t.base_total = d->base->samples;
		add_side(&t, &t.was, o->base, true);
		if (o->sample_type == REPORT_CPU)
			mark_entries(&t);
	}
	top_print_header(d->p, o, d->a, out, HEADER_WIDTH);
	if (d->base)
		top_print_compared(o, d->base, t.noisy ? &t.noise : NULL, out, HEADER_WIDTH);
	fprintf(out, "Tree:     each function's %s, shares of all %s%s\n\n",
		t.callers ? "callers (-g callee)" : "callees (-g caller)",
		o->sample_type == REPORT_CPU	   ? "samples"
		: o->sample_type == REPORT_LATENCY ? "latency"
						   : "time",
		o->base ? "; with the change from the base, in points" : "");
	n = pick_rows(&t, &rows);
	for (size_t i = 0; i < n; i++) {
		const struct tree_entry *e = &t.entries[rows[i]];
		int w = (int)report_text_width(strtab_get(&t.str, e->thread));

		thread_w = w > thread_w ? w : thread_w;
		w = (int)report_text_width(strtab_get(&t.str, e->module));
		module_w = w > module_w ? w : module_w;
	}
	if (t.keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP))
		thread_w = thread_w > 7 ? thread_w : 7; /* "Process", "Command" */
	if (t.keys & REPORT_ROW_MODULE)
		module_w = module_w > 6 ? module_w : 6; /* "Module" */
	if (!n && o->diff_significant && d->base && (d->a->samples || d->base->samples))
		fputs("No change beyond the noise.\n", out);
	else if (!n)
		fputs("No samples.\n", out);
	else
		print_heading(&t, thread_w, module_w, out);
	for (size_t i = 0; i < n; i++) {
		print_row(&t, &t.entries[rows[i]], thread_w, module_w, out);
		draw_tree(&t, rows[i], out);
	}
	free(rows);
	free(t.entries);
	free(t.nodes);
	for (int i = 0; i < 2; i++) {
		struct tree_side *side = i ? &t.was : &t.now;

		free(side->levels);
		free(side->off);
		free(side->frame_at);
		free(side->framed);
	}
	hmap_release(&t.entry_index);
	hmap_release(&t.kid_index);
	strtab_release(&t.str);
	sbuf_release(&t.b);
	sbuf_release(&t.key);
	return 0;
}
