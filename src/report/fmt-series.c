/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-series.c - --series: a recording's files (record --switch-output's
 * slices, or any files given in order), each compared with the one before
 * it, a line per file: its name, where it starts, its samples, and the
 * functions whose self share of the samples changed beyond the noise since
 * the file before (functab.h, noise.h), the largest change first.
 *
 * Each pair is a --diff of its own: its marks are corrected for its own
 * family of tests, so over many pairs a mark by chance is as likely as in
 * one --diff each time. Two files are held at a time. On a terminal a
 * line is cut to its width; elsewhere never.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/functab.h"
#include "report/noise.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/utf8.h"

/* The columns before the changes: file name, start, samples. */
struct series_layout {
	int width; /* of the line, 0: never cut */
	int name_width;
};

/* A row's change of self share, in points. */
static double row_change(const struct functab *ft, const struct ft_row *r)
{
	return functab_change(ft, r->self, r->base_self);
}

static int cmp_marked(const void *a, const void *b, void *arg)
{
	const struct functab *ft = arg;
	const struct ft_row *x = &ft->rows[*(const uint32_t *)a];
	const struct ft_row *y = &ft->rows[*(const uint32_t *)b];
	double cx = fabs(row_change(ft, x)), cy = fabs(row_change(ft, y));

	if (cx != cy)
		return cx > cy ? -1 : 1;
	return strcmp(functab_str(ft, x->name), functab_str(ft, y->name));
}

/*
 * The changes of cur against prev beyond the noise, into b: "NAME +4.1
 * (1.2)" each, the self share's change in points and its noise (a change
 * of a total share alone follows from its callees'). Returns how many; the
 * samples of cur o selects in *samples.
 */
static size_t changes(const struct profile *cur, const struct profile *prev,
		      const struct report_opts *base_o, struct sbuf *b, uint64_t *samples)
{
	struct report_opts o = *base_o;
	struct aggregate *a, *pa;
	struct functab *ft;
	uint32_t *order;
	size_t n = 0;

	o.base = prev;
	aggregate_diff_key(&o);
	a = aggregate_new(cur, &o, 0);
	*samples = a->samples;
	pa = aggregate_new(prev, &o, 0);
	ft = functab_new(cur, &o, a, pa);
	order = xcalloc(ft->nrows + 1, sizeof(*order));
	for (size_t i = 0; i < ft->nrows; i++)
		if (ft->rows[i].self_mark)
			order[n++] = (uint32_t)i;
	if (n)
		qsort_r(order, n, sizeof(*order), cmp_marked, ft);
	for (size_t i = 0; i < n; i++) {
		const struct ft_row *r = &ft->rows[order[i]];

		sbuf_addf(b, "%s%s %+.1f (%.1f)", i ? ", " : "", functab_str(ft, r->name),
			  row_change(ft, r), r->self_noise);
	}
	free(order);
	functab_free(ft);
	aggregate_free(pa);
	aggregate_free(a);
	return n;
}

/* A file's line: its name, start, samples, then its changes (cut to the width). */
static void print_line(FILE *out, const struct series_layout *l, const char *path,
		       const struct profile *p, uint64_t samples, const char *what)
{
	struct sbuf line = SBUF_INIT, cut = SBUF_INIT;
	uint64_t start = profile_get_meta_u64(p, "slice-start-ns");
	size_t used;

	sbuf_add_printable(&line, report_base_name(path));
	while (report_text_width(line.buf) < (size_t)l->name_width)
		sbuf_adds(&line, " ");
	sbuf_addf(&line, "  %8.1f  %8llu%s", (double)start / 1e9, (unsigned long long)samples,
		  *what ? "  " : "");
	used = report_text_width(line.buf);
	if (l->width > 0 && used + report_text_width(what) > (size_t)l->width)
		report_cut_end(what, (size_t)l->width > used + 3 ? (size_t)l->width - used : 3,
			       &cut);
	else
		sbuf_adds(&cut, what);
	fprintf(out, "%s%s\n", line.buf, cut.buf);
	sbuf_release(&cut);
	sbuf_release(&line);
}

int fmt_series(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct report_series *s = o->series;
	struct series_layout l = {.width = o->columns > 0 ? o->columns
							  : report_terminal_columns(out),
				  .name_width = (int)strlen("File")};
	const struct profile *prev = p;
	struct profile *owned = NULL;
	struct sbuf what = SBUF_INIT;
	size_t shown = 0;
	int ret = 0;

	for (size_t i = 0; i < s->n; i++) {
		int w = (int)report_text_width(report_base_name(s->paths[i]));

		l.name_width = w > l.name_width ? w : l.name_width;
	}
	fprintf(out,
		"%zu files, each against the one before: the functions whose self share changed\n"
		"beyond the noise (%g%%), by the change in points, their noise in parentheses\n\n",
		s->n, 100 * (o->diff_level > 0 ? o->diff_level : NOISE_LEVEL));
	fprintf(out, "%-*s  %8s  %8s  %s\n", l.name_width, "File", "Start s", "Samples",
		"Changed beyond the noise");
	if (!o->diff_significant) {
		struct aggregate *a = aggregate_new(p, o, 0);

		print_line(out, &l, s->paths[0], p, a->samples, "");
		aggregate_free(a);
	}
	for (size_t i = 1; i < s->n; i++) {
		struct profile *cur = s->read(s->arg, s->paths[i]);
		uint64_t samples;
		size_t n;

		if (!cur) {
			ret = -ECANCELED;
			break;
		}
		sbuf_reset(&what);
		n = changes(cur, prev, o, &what, &samples);
		if (n || !o->diff_significant) {
			print_line(out, &l, s->paths[i], cur, samples, what.buf);
			shown++;
		}
		profile_free(owned);
		owned = cur;
		prev = cur;
	}
	if (o->diff_significant && !shown && !ret)
		fputs("No change beyond the noise.\n", out);
	profile_free(owned);
	sbuf_release(&what);
	return ret;
}
