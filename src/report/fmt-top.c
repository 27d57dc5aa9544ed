/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-top.c - the default report: a header on the recording, then the
 * functions (or, with --sort module, the modules) with the most samples.
 *
 * A function is one level of a frame (an inlined level is a function of
 * its own, named with "_[i]"), in one module; with --diff, a name alone
 * unless the key (report.h's diff_key) adds the module, and with the
 * thread in the key, a row per function and thread. Its self count is
 * the number of samples whose innermost level it is; its total count the
 * number of samples in which it appears at all, each sample counted once
 * however often the function recurses in it; a module's counts are the
 * same over the frames in it.
 *
 * On a terminal the table fits its width: names lose their middle
 * (report_cut_name), locations their start, modules their end, never
 * wrapped. Anywhere else (a file, a pipe) nothing is cut: each column is
 * as wide as its widest cell. The header is fmt-top-header.c's.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "report/aggregate.h"
#include "report/missing.h"
#include "report/report.h"
#include "report/top-int.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define DEFAULT_COLUMNS	 100
#define MIN_COLUMNS	 60
#define TTY_ROWS	 25
#define MAX_MODULE_WIDTH 20
#define MIN_FUNC_WIDTH	 24

/* A function as its rows show it (its module, when not in its key, is each row's own). */
struct top_func {
	uint32_t name; /* strings: the level's name; with --sort module, "" */
	uint32_t loc;  /* strings: FILE:LINE with --lines, else "" */
};

/* A row of the table: a function (or module), and with a thread key, a thread. */
struct top_fn {
	uint32_t name, loc; /* its function's */
	uint32_t module;    /* strings: the module's base name, of the first frame counted */
	uint32_t thread;    /* strings: the root's name with a thread key, else "" */
	uint32_t stamp;	    /* the last stack counted in total, + 1 */
	uint32_t pad;
	uint64_t self, total;
	uint64_t base_self, base_total; /* --diff: in the base recording */
};

struct top {
	const struct profile *p;
	const struct report_opts *o;
	struct strtab str;
	struct top_func *funcs;
	size_t nfuncs, funcs_cap;
	struct hmap func_index; /* key string offset -> index into funcs */
	struct top_fn *fns;	/* the rows */
	size_t nfns, fns_cap;
	struct hmap row_index; /* with by_thread: func << 32 | thread -> index into fns */
	uint32_t *levels;      /* per frame, its functions, outermost first */
	size_t nlevels, levels_cap;
	uint32_t *level0;    /* frame -> index into levels + 1; 0 not yet named */
	uint32_t *module_of; /* frame -> its module's base name, once named */
	bool by_module;	     /* --sort module: a row per module, not per function */
	bool no_module;	     /* --sort without module: no module column, nor key */
	bool keyed_module;   /* functions of other modules apart (but in a --diff) */
	bool by_thread; /* --diff keyed on threads, --sort comm, pid, tid: a row per thread too */
	uint64_t samples, base_samples; /* the totals (--diff: of both recordings) */
	struct sbuf b;
};

/* The terminal's width, or 0 when out is not a terminal. */
static int terminal_columns(FILE *out)
{
	struct winsize ws;

	if (!isatty(fileno(out)))
		return 0;
	if (ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		return ws.ws_col;
	return DEFAULT_COLUMNS;
}

/* Where the header wraps off a terminal: COLUMNS, else 100. */
static int env_columns(void)
{
	const char *env;
	uint64_t v;

	env = getenv("COLUMNS");
	if (env && parse_u64(env, &v) == 0 && v > 0 && v < 100000)
		return (int)v;
	return DEFAULT_COLUMNS;
}

/*
 * The row of function func in thread (a string), added if new, showing
 * module (a string: the module of the frame it is first met in).
 */
static uint32_t row_of(struct top *t, uint32_t func, uint32_t thread, uint32_t module)
{
	struct hmap_slot *slot = NULL;
	bool added = true;

	if (t->by_thread)
		slot = hmap_insert(&t->row_index, (uint64_t)func << 32 | thread, &added);
	else if (func < t->nfns)
		return func; /* one row a function, made with it */
	if (added) {
		xgrow(&t->fns, &t->fns_cap, t->nfns + 1, sizeof(*t->fns));
		memset(&t->fns[t->nfns], 0, sizeof(*t->fns));
		t->fns[t->nfns].name = t->funcs[func].name;
		t->fns[t->nfns].module = module;
		t->fns[t->nfns].loc = t->funcs[func].loc;
		t->fns[t->nfns].thread = thread;
		if (slot)
			slot->val = t->nfns;
		t->nfns++;
	}
	return slot ? (uint32_t)slot->val : (uint32_t)t->nfns - 1;
}

/* The base name of frame f's module, in t's strings. */
static uint32_t frame_module(struct top *t, uint32_t f)
{
	const struct profile *p = t->p;
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

/* The function of one level of frame f, in module (a string), added if new. */
static uint32_t level_fn(struct top *t, uint32_t f, uint32_t level, uint32_t module)
{
	const struct profile *p = t->p;
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
		t->funcs[t->nfuncs] = (struct top_func){name, loc};
		slot->val = t->nfuncs++;
		if (!t->by_thread)
			row_of(t, (uint32_t)slot->val, 0, module);
	}
	return (uint32_t)slot->val;
}

/* The functions of frame f, outermost first, through *n. */
static const uint32_t *frame_fns(struct top *t, uint32_t f, uint32_t *n)
{
	*n = report_frame_levels(t->p, f, &t->o->names);
	if (!t->level0[f]) {
		size_t at = t->nlevels;

		xgrow(&t->levels, &t->levels_cap, t->nlevels + *n, sizeof(*t->levels));
		t->nlevels += *n;
		t->module_of[f] = frame_module(t, f);
		for (uint32_t i = 0; i < *n; i++)
			t->levels[at + i] = level_fn(t, f, i, t->module_of[f]);
		t->level0[f] = (uint32_t)at + 1;
	}
	return t->levels + t->level0[f] - 1;
}

/*
 * Counts self and total (into base_self and base_total for the base of a
 * --diff); a row (function or module) counts once per stack.
 */
static void count(struct top *t, const struct aggregate *a, bool base)
{
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		uint32_t thread = 0;

		if (t->by_thread) {
			sbuf_reset(&t->b);
			sbuf_add_printable(&t->b, a->roots[g->root]);
			thread = strtab_addn(&t->str, t->b.buf, t->b.len);
		}
		for (uint32_t d = 0; d < g->depth; d++) {
			uint32_t n, f = a->frames[g->off + d];
			const uint32_t *fns = frame_fns(t, f, &n);

			/* Rows are made as they are met: t->fns moves. */
			if (d == 0) {
				uint32_t row = row_of(t, fns[n - 1], thread, t->module_of[f]);

				*(base ? &t->fns[row].base_self : &t->fns[row].self) += g->count;
			}
			for (uint32_t k = 0; k < n; k++) {
				uint32_t row = row_of(t, fns[k], thread, t->module_of[f]);
				struct top_fn *fn = &t->fns[row];

				if (fn->stamp == i + 1)
					continue;
				fn->stamp = (uint32_t)i + 1;
				*(base ? &fn->base_total : &fn->total) += g->count;
			}
		}
	}
}

/*
 * The base of a --diff counted into the same rows: its frames are named
 * anew (the frame caches are per recording), rows matched by their key.
 */
static void count_base(struct top *t, const struct aggregate *base)
{
	const struct profile *p = t->p;

	t->p = t->o->base;
	free(t->level0);
	free(t->module_of);
	t->level0 = xcalloc(t->p->nframes ? t->p->nframes : 1, sizeof(*t->level0));
	t->module_of = xcalloc(t->p->nframes ? t->p->nframes : 1, sizeof(*t->module_of));
	t->nlevels = 0;
	for (size_t i = 0; i < t->nfns; i++)
		t->fns[i].stamp = 0;
	count(t, base, true);
	t->p = p;
}

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

/* --diff: a row's change in share, in percentage points (new minus base). */
static double change(const struct top *t, uint64_t now, uint64_t before)
{
	double n = t->samples ? 100.0 * (double)now / (double)t->samples : 0;
	double b = t->base_samples ? 100.0 * (double)before / (double)t->base_samples : 0;

	return n - b;
}

static int cmp_double_desc(double x, double y)
{
	return x > y ? -1 : x < y;
}

static int cmp_fn(const void *a, const void *b, void *arg)
{
	const struct top *t = arg;
	const struct top_fn *x = &t->fns[*(const uint32_t *)a];
	const struct top_fn *y = &t->fns[*(const uint32_t *)b];
	const struct strtab *s = &t->str;
	int c;

	if (t->o->base) {
		/* The largest changes first, growth or shrinkage alike. */
		bool tot = t->o->sort == REPORT_SORT_TOTAL;
		double cx = change(t, tot ? x->total : x->self, tot ? x->base_total : x->base_self);
		double cy = change(t, tot ? y->total : y->self, tot ? y->base_total : y->base_self);

		if ((c = cmp_double_desc(fabs(cx), fabs(cy))) || (c = cmp_double_desc(cx, cy)))
			return c;
	}
	if (t->o->sort == REPORT_SORT_TOTAL) {
		if ((c = cmp_u64_desc(x->total, y->total)) || (c = cmp_u64_desc(x->self, y->self)))
			return c;
	} else {
		if ((c = cmp_u64_desc(x->self, y->self)) || (c = cmp_u64_desc(x->total, y->total)))
			return c;
	}
	if ((c = strcmp(strtab_get(s, x->name), strtab_get(s, y->name))) ||
	    (c = strcmp(strtab_get(s, x->loc), strtab_get(s, y->loc))) ||
	    (c = strcmp(strtab_get(s, x->thread), strtab_get(s, y->thread))))
		return c;
	return strcmp(strtab_get(s, x->module), strtab_get(s, y->module));
}

/* A count as the table shows it: samples, or nanoseconds as milliseconds. */
static void weight(const struct report_opts *o, uint64_t v, char *buf, size_t len)
{
	if (o->sample_type == REPORT_CPU)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%.1f", (double)v / 1e6);
}

/* How a cell too wide for its column is cut (on a terminal only). */
enum cut { CUT_NAME, CUT_START, CUT_END };

/* Prints s in a column of width (padded when pad), cut as cut says when cutting. */
static void put_cell(struct top *t, FILE *out, const char *s, size_t width, bool cutting,
		     enum cut cut, bool pad)
{
	size_t w;

	sbuf_reset(&t->b);
	if (!cutting)
		sbuf_adds(&t->b, s);
	else if (cut == CUT_NAME)
		report_cut_name(s, width, &t->b);
	else if (cut == CUT_START)
		report_cut_start(s, width, &t->b);
	else
		report_cut_end(s, width, &t->b);
	fputs(t->b.buf, out);
	w = report_text_width(t->b.buf);
	if (pad && w < width)
		fprintf(out, "%*s", (int)(width - w), "");
}

struct layout {
	int numw;	       /* the number columns with their separators */
	int cw;		       /* the count columns */
	size_t fw, lw, mw, tw; /* function, location, module, thread */
	bool lines, module_rows, threads, cutting;
	bool no_module;		 /* no module column (--sort without module) */
	const char *thread_head; /* the thread column's heading */
};

/* The text columns of a row, after its numbers; thread only with l->threads. */
static void print_text(struct top *t, FILE *out, const struct layout *l, const char *fn,
		       const char *loc, const char *mod, const char *thread)
{
	bool fns = !l->module_rows, mods = !l->no_module;

	if (l->threads) {
		put_cell(t, out, thread, l->tw, l->cutting, CUT_END, mods || fns);
		if (mods || fns)
			fputs("  ", out);
	}
	if (mods) {
		put_cell(t, out, mod, l->mw, l->cutting, CUT_END, fns);
		if (fns)
			fputs("  ", out);
	}
	if (fns) {
		if (l->lines) {
			put_cell(t, out, loc, l->lw, l->cutting, CUT_START, true);
			fputs("  ", out);
		}
		/* Last, so that a long name widens nothing. */
		put_cell(t, out, fn, l->fw, l->cutting, CUT_NAME, false);
	}
	fputc('\n', out);
}

static void print_row(struct top *t, FILE *out, const struct layout *l, const char *c1,
		      const char *c2, const char *c3, const char *c4, const char *fn,
		      const char *loc, const char *mod, const char *thread)
{
	fprintf(out, "%6s  %6s  %*s  %*s  ", c1, c2, l->cw, c3, l->cw, c4);
	print_text(t, out, l, fn, loc, mod, thread);
}

/*
 * The column widths: Thread (a --diff keyed on threads), Module, Location
 * (with --lines), then Function, last. Off a terminal (width 0) each
 * column is as wide as its widest cell. On one, the thread and module
 * columns take at most MAX_MODULE_WIDTH each and the location what it
 * needs, and the function what is left; when that is under
 * MIN_FUNC_WIDTH, the thread, the module, then the location, give up
 * columns down to their headings' widths.
 */
/* Narrows a column of width *w down to min at most, while *short_of > 0. */
static void give_up(size_t *w, size_t min, int *short_of)
{
	size_t give;

	if (*short_of <= 0 || *w <= min)
		return;
	give = *w - min < (size_t)*short_of ? *w - min : (size_t)*short_of;
	*w -= give;
	*short_of -= (int)give;
}

static void layout_columns(struct top *t, const uint32_t *order, size_t rows, int width,
			   struct layout *l)
{
	size_t fw = strlen("Function"), lw = strlen("Location"), mw = strlen("Module");
	size_t tw = strlen(l->thread_head);
	int avail, short_of;

	for (size_t i = 0; i < rows; i++) {
		const struct top_fn *fn = &t->fns[order[i]];
		size_t w;

		w = report_text_width(strtab_get(&t->str, fn->name));
		fw = w > fw ? w : fw;
		w = report_text_width(strtab_get(&t->str, fn->loc));
		lw = w > lw ? w : lw;
		w = report_text_width(strtab_get(&t->str, fn->module));
		mw = w > mw ? w : mw;
		w = report_text_width(strtab_get(&t->str, fn->thread));
		tw = w > tw ? w : tw;
	}
	l->fw = fw;
	l->lw = l->lines ? lw : 0;
	l->mw = l->no_module ? 0 : mw;
	l->tw = l->threads ? tw : 0;
	if (!l->cutting)
		return;
	if (l->mw > MAX_MODULE_WIDTH)
		l->mw = MAX_MODULE_WIDTH;
	if (l->tw > MAX_MODULE_WIDTH)
		l->tw = MAX_MODULE_WIDTH;
	/* The number columns, then each text column, each followed by two spaces. */
	avail = width - l->numw - (l->threads ? (int)l->tw + 2 : 0);
	if (l->module_rows) {
		l->mw = avail > (int)strlen("Module") ? (size_t)avail : strlen("Module");
		return;
	}
	avail -= (l->no_module ? 0 : 2) + (l->lines ? 2 : 0);
	short_of = MIN_FUNC_WIDTH - (avail - (int)l->mw - (int)l->lw);
	if (l->threads) {
		int before = short_of;

		give_up(&l->tw, strlen(l->thread_head), &short_of);
		avail += before - short_of;
	}
	give_up(&l->mw, strlen("Module"), &short_of);
	if (l->lines)
		give_up(&l->lw, strlen("Location"), &short_of);
	avail -= (int)l->mw + (int)l->lw;
	/* The function needs no more than its widest name. */
	l->fw = avail < 4 ? 4 : (size_t)avail < fw ? (size_t)avail : fw;
}

/*
 * The rows in the order of the table (a malloc'd array of t->nfns), and
 * through *rows how many of them are shown (-n, or a terminal's TTY_ROWS).
 */
static uint32_t *sorted_rows(struct top *t, FILE *out, size_t *rows)
{
	uint32_t *order = xcalloc(t->nfns ? t->nfns : 1, sizeof(*order));
	int n = t->o->rows;

	for (size_t i = 0; i < t->nfns; i++)
		order[i] = (uint32_t)i;
	if (t->nfns)
		qsort_r(order, t->nfns, sizeof(*order), cmp_fn, t);
	*rows = t->nfns;
	if (n > 0 && (size_t)n < *rows)
		*rows = (size_t)n;
	else if (n < 0 && isatty(fileno(out)) && *rows > TTY_ROWS)
		*rows = TTY_ROWS;
	return order;
}

/* The line that says how many rows were left out, if any. */
static void print_more(const struct top *t, FILE *out, size_t rows)
{
	if (rows < t->nfns)
		fprintf(out, "... %zu more %s (-n 0 shows them all)\n", t->nfns - rows,
			!t->by_module  ? "functions"
			: t->no_module ? "rows"
				       : "modules");
}

/* The thread column's heading, for the finest of --sort's thread keys. */
static const char *thread_heading(const struct report_opts *o)
{
	if (o->row_keys & REPORT_ROW_CGROUP)
		return "Cgroup";
	if (o->row_keys & REPORT_ROW_TID)
		return "Thread";
	if (o->row_keys & REPORT_ROW_PID)
		return "Process";
	return "Command";
}

static void print_table(struct top *t, const struct aggregate *a, FILE *out, int width)
{
	const struct report_opts *o = t->o;
	uint32_t *order;
	size_t rows;
	struct layout l = {.cw = 5,
			   .lines = o->names.lines && !t->by_module,
			   .module_rows = t->by_module,
			   .threads = t->by_thread,
			   .no_module = t->no_module,
			   .thread_head = thread_heading(o),
			   .cutting = width > 0};
	char c1[16], c2[16], c3[24], c4[24];

	order = sorted_rows(t, out, &rows);

	weight(o, a->samples, c3, sizeof(c3));
	if ((int)strlen(c3) > l.cw)
		l.cw = (int)strlen(c3);
	if (o->sample_type != REPORT_CPU && l.cw < 8)
		l.cw = 8; /* "Total ms" */
	l.numw = 6 + 2 + 6 + 2 + l.cw + 2 + l.cw + 2;
	layout_columns(t, order, rows, width, &l);
	print_row(t, out, &l, "Self%", "Total%", o->sample_type == REPORT_CPU ? "Self" : "Self ms",
		  o->sample_type == REPORT_CPU ? "Total" : "Total ms", "Function", "Location",
		  "Module", l.thread_head);
	for (size_t i = 0; i < rows; i++) {
		const struct top_fn *fn = &t->fns[order[i]];
		double n = (double)a->samples;

		snprintf(c1, sizeof(c1), "%.1f%%", 100.0 * (double)fn->self / n);
		snprintf(c2, sizeof(c2), "%.1f%%", 100.0 * (double)fn->total / n);
		weight(o, fn->self, c3, sizeof(c3));
		weight(o, fn->total, c4, sizeof(c4));
		print_row(t, out, &l, c1, c2, c3, c4, strtab_get(&t->str, fn->name),
			  strtab_get(&t->str, fn->loc), strtab_get(&t->str, fn->module),
			  strtab_get(&t->str, fn->thread));
	}
	print_more(t, out, rows);
	free(order);
}

/* --diff: "+1.2", "-0.4", or "0.0" for no change at this precision. */
static void points(double v, char *buf, size_t len)
{
	snprintf(buf, len, "%+.1f", v);
	if (strcmp(buf, "+0.0") == 0 || strcmp(buf, "-0.0") == 0)
		snprintf(buf, len, "0.0");
}

/*
 * --diff: each row's self and total share in the base and in the
 * recording reported, and the change in points, largest changes first.
 */
static void print_diff_table(struct top *t, FILE *out, int width)
{
	const struct report_opts *o = t->o;
	uint32_t *order;
	size_t rows;
	/* Six columns of 7, each followed by two spaces. */
	struct layout l = {.numw = 6 * 9,
			   .lines = o->names.lines && !t->by_module,
			   .module_rows = t->by_module,
			   .threads = t->by_thread,
			   .thread_head = "Thread",
			   .cutting = width > 0};
	char c[6][16];

	order = sorted_rows(t, out, &rows);
	layout_columns(t, order, rows, width, &l);
	fputs("------- Self % --------   ------- Total % -------\n", out);
	fprintf(out, "%7s  %7s  %7s  %7s  %7s  %7s  ", "Base", "New", "Change", "Base", "New",
		"Change");
	print_text(t, out, &l, "Function", "Location", "Module", "Thread");
	for (size_t i = 0; i < rows; i++) {
		const struct top_fn *fn = &t->fns[order[i]];
		double bs = t->base_samples ? (double)t->base_samples : 1;
		double ns = t->samples ? (double)t->samples : 1;

		snprintf(c[0], sizeof(c[0]), "%.1f", 100.0 * (double)fn->base_self / bs);
		snprintf(c[1], sizeof(c[1]), "%.1f", 100.0 * (double)fn->self / ns);
		points(change(t, fn->self, fn->base_self), c[2], sizeof(c[2]));
		snprintf(c[3], sizeof(c[3]), "%.1f", 100.0 * (double)fn->base_total / bs);
		snprintf(c[4], sizeof(c[4]), "%.1f", 100.0 * (double)fn->total / ns);
		points(change(t, fn->total, fn->base_total), c[5], sizeof(c[5]));
		fprintf(out, "%7s  %7s  %7s  %7s  %7s  %7s  ", c[0], c[1], c[2], c[3], c[4], c[5]);
		print_text(t, out, &l, strtab_get(&t->str, fn->name), strtab_get(&t->str, fn->loc),
			   strtab_get(&t->str, fn->module), strtab_get(&t->str, fn->thread));
	}
	print_more(t, out, rows);
	free(order);
}

int fmt_top(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct aggregate *a = d->a, *base = d->base;
	unsigned keys = o->row_keys ? o->row_keys : REPORT_ROW_MODULE | REPORT_ROW_SYMBOL;
	struct top t = {.p = p,
			.o = o,
			.by_module = !(keys & REPORT_ROW_SYMBOL),
			.no_module = o->row_keys && !(keys & REPORT_ROW_MODULE),
			.keyed_module = o->row_keys ? !!(keys & REPORT_ROW_MODULE)
						    : !o->base || (o->diff_key & REPORT_KEY_MODULE),
			.by_thread = (o->base && o->root != REPORT_ROOT_NONE) ||
				     (keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP)),
			.b = SBUF_INIT};
	/* The table's width, 0 for no cutting; the header wraps in any case. */
	int width = o->columns > 0 ? o->columns : terminal_columns(out);

	if (width > 0 && width < MIN_COLUMNS)
		width = MIN_COLUMNS;
	strtab_init(&t.str);
	hmap_init(&t.func_index);
	hmap_init(&t.row_index);
	t.level0 = xcalloc(p->nframes, sizeof(*t.level0));
	t.module_of = xcalloc(p->nframes, sizeof(*t.module_of));
	int hwidth = width > 0 ? width : env_columns() < MIN_COLUMNS ? MIN_COLUMNS : env_columns();

	top_print_header(p, o, a, out, hwidth);
	if (base)
		top_print_compared(o, base, out, hwidth);
	fputc('\n', out);
	t.samples = a->samples;
	count(&t, a, false);
	if (base) {
		t.base_samples = base->samples;
		count_base(&t, base);
	}
	if (a->samples == 0 && (!base || base->samples == 0))
		fputs("No samples.\n", out);
	else if (base)
		print_diff_table(&t, out, width);
	else
		print_table(&t, a, out, width);
	free(t.fns);
	free(t.funcs);
	free(t.levels);
	free(t.level0);
	free(t.module_of);
	hmap_release(&t.func_index);
	hmap_release(&t.row_index);
	strtab_release(&t.str);
	sbuf_release(&t.b);
	return 0;
}
