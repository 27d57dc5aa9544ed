/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live-draw.c - the live table laid out in lines: the hottest functions
 * (Self%, Total%, then the thread, module, location and function
 * columns), or a function's callers or callees (Share%, Samples, module,
 * location, function); see live.h.
 *
 * Invariant: with a width, no line is wider; names lose their middle
 * (report_cut_name), locations their start, threads and modules their
 * end. Without one nothing is cut: each column is as wide as its widest
 * cell, as the report's --top off a terminal.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "report/live.h"
#include "report/report.h"
#include "util/sbuf.h"

/* A thread's or module's column at most, on a screen; the function's at least. */
#define MAX_TEXT_WIDTH 20
#define MIN_FUNC_WIDTH 24

/* The columns of the rows shown. */
struct cols {
	int numw;	       /* the mark and the number columns, with their spaces */
	int countw;	       /* the Samples column of a focus */
	size_t tw, mw, lw, fw; /* thread, module, location, function; 0: none */
	bool cutting;
};

/* How a cell too wide for its column is cut. */
enum cut { CUT_NAME, CUT_START, CUT_END };

/* Appends s in a column of width (padded when pad), cut as cut says when cutting. */
static void put_cell(struct sbuf *out, const char *s, size_t width, bool cutting, enum cut cut,
		     bool pad)
{
	size_t at = out->len, w;

	if (!cutting)
		sbuf_adds(out, s);
	else if (cut == CUT_NAME)
		report_cut_name(s, width, out);
	else if (cut == CUT_START)
		report_cut_start(s, width, out);
	else
		report_cut_end(s, width, out);
	w = report_text_width(out->buf + at);
	for (; pad && w < width; w++)
		sbuf_adds(out, " ");
}

/* The text columns of a line, after its numbers, then its end. */
static void put_text(struct sbuf *out, const struct cols *c, const char *thread, const char *mod,
		     const char *loc, const char *fn)
{
	if (c->tw) {
		put_cell(out, thread, c->tw, c->cutting, CUT_END, true);
		sbuf_adds(out, "  ");
	}
	if (c->mw) {
		put_cell(out, mod, c->mw, c->cutting, CUT_END, true);
		sbuf_adds(out, "  ");
	}
	if (c->lw) {
		put_cell(out, loc, c->lw, c->cutting, CUT_START, true);
		sbuf_adds(out, "  ");
	}
	/* Last, so that a long name widens nothing. */
	put_cell(out, fn, c->fw, c->cutting, CUT_NAME, false);
	/* No trailing spaces: a short function name after padded columns. */
	while (out->len && out->buf[out->len - 1] == ' ')
		sbuf_truncate(out, out->len - 1);
	sbuf_adds(out, "\n");
}

/* Widens *w to s's width. */
static void widen(size_t *w, const char *s)
{
	size_t n = report_text_width(s);

	if (n > *w)
		*w = n;
}

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

/* The function column's heading. */
static const char *func_head(const struct live_table *t)
{
	return !t->focus ? "Function" : t->callees ? "Callee" : "Caller";
}

/*
 * The columns of rows [first, first + n): each as wide as its widest cell
 * and heading; on a screen (width > 0) the thread and module columns at
 * most MAX_TEXT_WIDTH, the function what is left, and when that is less
 * than MIN_FUNC_WIDTH, the thread, the module, then the location give up
 * columns down to their headings'.
 */
static void layout(const struct live_table *t, const struct live_layout *l, size_t first, size_t n,
		   struct cols *c)
{
	bool fns = !t->by_module;
	int avail, short_of;

	c->tw = t->by_thread ? strlen(t->thread_head) : 0;
	c->mw = t->no_module ? 0 : strlen("Module");
	c->lw = t->lines ? strlen("Location") : 0;
	c->fw = fns ? strlen(func_head(t)) : 0;
	for (size_t i = first; i < first + n; i++) {
		const struct live_row *r = &t->rows[i];

		if (c->tw)
			widen(&c->tw, live_str(t, r->thread));
		if (c->mw)
			widen(&c->mw, live_str(t, r->module));
		if (c->lw)
			widen(&c->lw, live_str(t, r->loc));
		if (c->fw)
			widen(&c->fw, live_str(t, r->name));
	}
	c->cutting = l->width > 0;
	if (!c->cutting)
		return;
	if (c->tw > MAX_TEXT_WIDTH)
		c->tw = MAX_TEXT_WIDTH;
	if (c->mw > MAX_TEXT_WIDTH && fns)
		c->mw = MAX_TEXT_WIDTH;
	avail = l->width - c->numw - (c->tw ? (int)c->tw + 2 : 0);
	if (!fns) {
		/* A module's rows: the module is the last column. */
		c->mw = avail > (int)strlen("Module") ? (size_t)avail : strlen("Module");
		return;
	}
	avail -= (c->mw ? 2 : 0) + (c->lw ? 2 : 0);
	short_of = MIN_FUNC_WIDTH - (avail - (int)c->mw - (int)c->lw);
	if (c->tw) {
		int before = short_of;

		give_up(&c->tw, strlen(t->thread_head), &short_of);
		avail += before - short_of;
	}
	give_up(&c->mw, c->mw ? strlen("Module") : 0, &short_of);
	give_up(&c->lw, c->lw ? strlen("Location") : 0, &short_of);
	avail -= (int)c->mw + (int)c->lw;
	c->fw = avail < 4 ? 4 : (size_t)avail < c->fw ? (size_t)avail : c->fw;
}

/* A share as the table shows it: "45.2%". */
static void share(char *buf, size_t len, uint64_t part, uint64_t whole)
{
	snprintf(buf, len, "%.1f%%", whole ? 100.0 * (double)part / (double)whole : 0.0);
}

/* The focus's line: whose callers (callees) the rows are, cut to the width. */
static void focus_line(const struct live_table *t, const struct live_layout *l, struct sbuf *out)
{
	struct sbuf b = SBUF_INIT;
	char pct[16];

	sbuf_addf(&b, "%s of %s", t->callees ? "Callees" : "Callers",
		  t->focus_found ? live_str(t, t->fname) : "the function");
	if (t->focus_found && *live_str(t, t->fmodule))
		sbuf_addf(&b, " (%s)", live_str(t, t->fmodule));
	if (t->focus_found) {
		share(pct, sizeof(pct), t->ftotal, t->samples);
		sbuf_addf(&b, ": in %llu of %llu samples (%s), %llu its own",
			  (unsigned long long)t->ftotal, (unsigned long long)t->samples, pct,
			  (unsigned long long)t->fself);
	} else {
		sbuf_adds(&b, ": no samples of it now");
	}
	if (l->width > 0)
		report_cut_end(b.buf, (size_t)l->width, out);
	else
		sbuf_addn(out, b.buf, b.len);
	sbuf_adds(out, "\n");
	sbuf_release(&b);
}

size_t live_draw_heading_lines(const struct live_table *t)
{
	return t->focus ? 2 : 1;
}

size_t live_draw(const struct live_table *t, const struct live_layout *l, struct sbuf *out,
		 long *cursor)
{
	size_t first = l->first < t->nrows ? l->first : t->nrows, n = t->nrows - first, lines = 0;
	char c1[24], c2[24];
	struct cols c = {0};

	if (l->rows && n > l->rows)
		n = l->rows;
	*cursor = -1;
	if (t->focus) {
		uint64_t most = n ? t->rows[first].self : 0;

		snprintf(c2, sizeof(c2), "%llu", (unsigned long long)most);
		c.countw =
			strlen(c2) > strlen("Samples") ? (int)strlen(c2) : (int)strlen("Samples");
		c.numw = 1 + 6 + 2 + c.countw + 2;
		focus_line(t, l, out);
		lines++;
	} else {
		c.numw = 1 + 6 + 2 + 6 + 2;
	}
	layout(t, l, first, n, &c);
	if (t->focus)
		sbuf_addf(out, " %6s  %*s  ", "Share", c.countw, "Samples");
	else
		sbuf_addf(out, " %6s  %6s  ", "Self%", "Total%");
	put_text(out, &c, t->thread_head, "Module", "Location", t->by_module ? "" : func_head(t));
	lines++;
	for (size_t i = first; i < first + n; i++) {
		const struct live_row *r = &t->rows[i];
		char mark = l->marks && i == t->selected ? '>' : ' ';

		if (i == t->selected)
			*cursor = (long)lines;
		if (t->focus) {
			share(c1, sizeof(c1), r->self, t->ftotal);
			snprintf(c2, sizeof(c2), "%llu", (unsigned long long)r->self);
			sbuf_addf(out, "%c%6s  %*s  ", mark, c1, c.countw, c2);
		} else {
			share(c1, sizeof(c1), r->self, t->samples);
			share(c2, sizeof(c2), r->total, t->samples);
			sbuf_addf(out, "%c%6s  %6s  ", mark, c1, c2);
		}
		put_text(out, &c, live_str(t, r->thread), live_str(t, r->module),
			 live_str(t, r->loc), live_str(t, r->name));
		lines++;
	}
	return lines;
}
