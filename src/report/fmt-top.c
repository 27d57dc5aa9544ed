/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-top.c - the default report: a header on the recording, then the
 * functions (or, with --sort module, the modules) with the most samples:
 * the rows of the function table (functab.h), and with --diff each one's
 * share in both recordings, the change and its noise (noise.h).
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
#include <unistd.h>

#include "report/aggregate.h"
#include "report/functab.h"
#include "report/report.h"
#include "report/top-int.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define MIN_COLUMNS	 60
#define TTY_ROWS	 25
#define MAX_MODULE_WIDTH 20
#define MIN_FUNC_WIDTH	 24

/* The table being printed. */
struct top {
	struct functab *ft;
	const struct report_opts *o;
	struct sbuf b;
};

static int cmp_u64_desc(uint64_t x, uint64_t y)
{
	return x > y ? -1 : x < y;
}

/* --diff: a row's change in share, in percentage points (new minus base). */
static double change(const struct top *t, uint64_t now, uint64_t before)
{
	return functab_change(t->ft, now, before);
}

static int cmp_double_desc(double x, double y)
{
	return x > y ? -1 : x < y;
}

static int cmp_fn(const void *a, const void *b, void *arg)
{
	const struct top *t = arg;
	const struct ft_row *x = &t->ft->rows[*(const uint32_t *)a];
	const struct ft_row *y = &t->ft->rows[*(const uint32_t *)b];
	const struct strtab *s = &t->ft->str;
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
		const struct ft_row *fn = &t->ft->rows[order[i]];
		size_t w;

		w = report_text_width(functab_str(t->ft, fn->name));
		fw = w > fw ? w : fw;
		w = report_text_width(functab_str(t->ft, fn->loc));
		lw = w > lw ? w : lw;
		w = report_text_width(functab_str(t->ft, fn->module));
		mw = w > mw ? w : mw;
		w = report_text_width(functab_str(t->ft, fn->thread));
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
 * The rows in the order of the table (a malloc'd array), and through *rows
 * how many of them are shown (-n, or a terminal's TTY_ROWS) and *shown how
 * many could be (--diff-significant: those marked).
 */
static uint32_t *sorted_rows(struct top *t, FILE *out, size_t *rows, size_t *shown)
{
	const struct functab *ft = t->ft;
	uint32_t *order = xcalloc(ft->nrows ? ft->nrows : 1, sizeof(*order));
	int n = t->o->rows;

	*shown = 0;
	for (size_t i = 0; i < ft->nrows; i++)
		if (!t->o->diff_significant || ft->rows[i].self_mark || ft->rows[i].total_mark)
			order[(*shown)++] = (uint32_t)i;
	if (*shown)
		qsort_r(order, *shown, sizeof(*order), cmp_fn, t);
	*rows = *shown;
	if (n > 0 && (size_t)n < *rows)
		*rows = (size_t)n;
	else if (n < 0 && isatty(fileno(out)) && *rows > TTY_ROWS)
		*rows = TTY_ROWS;
	return order;
}

/* The line that says how many rows of shown were left out, if any. */
static void print_more(const struct top *t, FILE *out, size_t rows, size_t shown)
{
	if (rows < shown)
		fprintf(out, "... %zu more %s (-n 0 shows them all)\n", shown - rows,
			!t->ft->by_module  ? "functions"
			: t->ft->no_module ? "rows"
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

/* A row's text columns, from the table's strings. */
static void print_row_text(struct top *t, FILE *out, const struct layout *l,
			   const struct ft_row *fn)
{
	const struct functab *ft = t->ft;

	print_text(t, out, l, functab_str(ft, fn->name), functab_str(ft, fn->loc),
		   functab_str(ft, fn->module), functab_str(ft, fn->thread));
}

static void print_table(struct top *t, const struct aggregate *a, FILE *out, int width)
{
	const struct report_opts *o = t->o;
	const struct functab *ft = t->ft;
	uint32_t *order;
	size_t rows, shown;
	struct layout l = {.cw = 5,
			   .lines = o->names.lines && !ft->by_module,
			   .module_rows = ft->by_module,
			   .threads = ft->by_thread,
			   .no_module = ft->no_module,
			   .thread_head = thread_heading(o),
			   .cutting = width > 0};
	char c1[16], c2[16], c3[24], c4[24];
	bool cpu = o->sample_type == REPORT_LATENCY; /* a CPU% column beside the latency */

	order = sorted_rows(t, out, &rows, &shown);

	weight(o, a->samples, c3, sizeof(c3));
	if ((int)strlen(c3) > l.cw)
		l.cw = (int)strlen(c3);
	if (o->sample_type != REPORT_CPU && l.cw < 8)
		l.cw = 8; /* "Total ms" */
	l.numw = 6 + 2 + 6 + 2 + (cpu ? 6 + 2 : 0) + l.cw + 2 + l.cw + 2;
	layout_columns(t, order, rows, width, &l);
	fprintf(out, "%6s  %6s  ", "Self%", "Total%");
	if (cpu)
		fprintf(out, "%6s  ", "CPU%");
	fprintf(out, "%*s  %*s  ", l.cw, o->sample_type == REPORT_CPU ? "Self" : "Self ms", l.cw,
		o->sample_type == REPORT_CPU ? "Total" : "Total ms");
	print_text(t, out, &l, "Function", "Location", "Module", l.thread_head);
	for (size_t i = 0; i < rows; i++) {
		const struct ft_row *fn = &ft->rows[order[i]];
		double n = (double)a->samples;

		snprintf(c1, sizeof(c1), "%.1f%%", 100.0 * (double)fn->self / n);
		snprintf(c2, sizeof(c2), "%.1f%%", 100.0 * (double)fn->total / n);
		fprintf(out, "%6s  %6s  ", c1, c2);
		if (cpu) {
			snprintf(c1, sizeof(c1), "%.1f%%",
				 a->records ? 100.0 * (double)fn->self_records / (double)a->records
					    : 0.0);
			fprintf(out, "%6s  ", c1);
		}
		weight(o, fn->self, c3, sizeof(c3));
		weight(o, fn->total, c4, sizeof(c4));
		fprintf(out, "%*s  %*s  ", l.cw, c3, l.cw, c4);
		print_row_text(t, out, &l, fn);
	}
	print_more(t, out, rows, shown);
	free(order);
}

/*
 * --diff: "+1.2", "-0.4", or "0.0" for no change at this precision, then
 * '*' when the change is beyond its noise (mark), else a space.
 */
static void points(double v, int mark, bool noise, char *buf, size_t len)
{
	char num[16];

	snprintf(num, sizeof(num), "%+.1f", v);
	if (strcmp(num, "+0.0") == 0 || strcmp(num, "-0.0") == 0)
		snprintf(num, sizeof(num), "0.0");
	snprintf(buf, len, noise ? "%6s%c" : "%s", num, mark ? '*' : ' ');
}

/* --diff: the four columns of a share (self or total) of row fn. */
static void print_shares(const struct top *t, FILE *out, uint64_t before, uint64_t now,
			 double noise, int mark)
{
	const struct functab *ft = t->ft;
	double bs = ft->base_samples ? (double)ft->base_samples : 1;
	double ns = ft->samples ? (double)ft->samples : 1;
	char c[16];

	fprintf(out, "%7.1f  %7.1f  ", 100.0 * (double)before / bs, 100.0 * (double)now / ns);
	points(change(t, now, before), mark, ft->noise, c, sizeof(c));
	fprintf(out, "%7s  ", c);
	if (ft->noise)
		fprintf(out, "%7.1f  ", noise);
}

/*
 * --diff: each row's self and total share in the base and in the
 * recording reported, the change in points and, for CPU samples, its
 * noise (half the interval: a change beyond it is marked '*'), largest
 * changes first.
 */
static void print_diff_table(struct top *t, FILE *out, int width)
{
	const struct report_opts *o = t->o;
	const struct functab *ft = t->ft;
	int cols = ft->noise ? 4 : 3;
	uint32_t *order;
	size_t rows, shown;
	/* Six or eight columns of 7, each followed by two spaces. */
	struct layout l = {.numw = 2 * cols * 9,
			   .lines = o->names.lines && !ft->by_module,
			   .module_rows = ft->by_module,
			   .threads = ft->by_thread,
			   .thread_head = "Thread",
			   .cutting = width > 0};

	order = sorted_rows(t, out, &rows, &shown);
	layout_columns(t, order, rows, width, &l);
	if (ft->noise) {
		fputs("------------- Self % -------------  ------------- Total % ------------\n",
		      out);
		fprintf(out, "%7s  %7s  %7s  %7s  %7s  %7s  %7s  %7s  ", "Base", "New", "Change",
			"Noise", "Base", "New", "Change", "Noise");
	} else {
		fputs("------- Self % --------   ------- Total % -------\n", out);
		fprintf(out, "%7s  %7s  %7s  %7s  %7s  %7s  ", "Base", "New", "Change", "Base",
			"New", "Change");
	}
	print_text(t, out, &l, "Function", "Location", "Module", "Thread");
	for (size_t i = 0; i < rows; i++) {
		const struct ft_row *fn = &ft->rows[order[i]];

		print_shares(t, out, fn->base_self, fn->self, fn->self_noise, fn->self_mark);
		print_shares(t, out, fn->base_total, fn->total, fn->total_noise, fn->total_mark);
		print_row_text(t, out, &l, fn);
	}
	if (o->diff_significant && !shown)
		fputs("No change beyond the noise.\n", out);
	print_more(t, out, rows, shown);
	free(order);
}

int fmt_top(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct aggregate *a = d->a, *base = d->base;
	struct top t = {.ft = functab_new(p, o, a, base), .o = o, .b = SBUF_INIT};
	/* The table's width, 0 for no cutting; the header wraps in any case. */
	int width = o->columns > 0 ? o->columns : report_terminal_columns(out);
	int hwidth;

	if (width > 0 && width < MIN_COLUMNS)
		width = MIN_COLUMNS;
	hwidth = width > 0			      ? width
		 : report_env_columns() < MIN_COLUMNS ? MIN_COLUMNS
						      : report_env_columns();
	top_print_header(p, o, a, out, hwidth);
	if (base)
		top_print_compared(
			o, base,
			t.ft->noise ? &(struct top_noise){t.ft->family, t.ft->marked, "a change"}
				    : NULL,
			out, hwidth);
	fputc('\n', out);
	if (a->samples == 0 && (!base || base->samples == 0))
		fputs("No samples.\n", out);
	else if (base)
		print_diff_table(&t, out, width);
	else
		print_table(&t, a, out, width);
	functab_free(t.ft);
	sbuf_release(&t.b);
	return 0;
}
