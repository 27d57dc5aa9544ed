/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-folded.c - the folded stack format that flamegraph.pl and
 * speedscope read: "root;outermost;...;leaf COUNT", one line per distinct
 * stack, sorted so that the output is stable. Stacks that print alike
 * (unresolved frames, or frames that the filters dropped) share a line.
 *
 * With --diff, each line has two counts, "STACK BASE NEW" (the form that
 * difffolded.pl writes and flamegraph.pl reads), stacks matched by their
 * text: BASE is the base recording's count normalized to the reported
 * one's total, and a stack found in one recording only has 0 in the other.
 * The text is the key (aggregate_prepare): without the thread in it a
 * stack has no root frame, and "[no frames]" stands for a stack the
 * filters left empty; with the module, frames read "MODULE`FUNCTION".
 * A function whose share of CPU samples changed beyond the noise
 * (functab.h, noise.h) is marked in every frame of it, "_[+]" grew and
 * "_[-]" shrank, before the annotations flamegraph.pl colours by
 * ("step_[+]_[i]"); --diff-significant keeps only the stacks holding a
 * function marked on its self share.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/functab.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct folded_line {
	char *text;
	uint64_t count, base;
};

static int cmp_line(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->text, y->text);
}

/* The text of line val of the lines ctx points at (they move as they grow). */
static const char *line_text(uint64_t val, const void *ctx, size_t *len)
{
	const struct folded_line *lines = *(struct folded_line *const *)ctx;

	*len = strlen(lines[val].text);
	return lines[val].text;
}

struct folded {
	struct hmap merged; /* hash of text -> index into lines */
	struct folded_line *lines;
	size_t nlines, cap;
	struct sbuf b;
	struct sbuf level; /* a level's name, for its mark */
};

/*
 * Appends the names of frame f's levels, each followed by its function's
 * mark in ft (a --diff's: "_[+]" grew, "_[-]" shrank beyond the noise),
 * before its annotations: "step_[+]_[i]".
 */
static void add_marked(struct folded *fo, struct functab *ft, bool base, uint32_t f,
		       const char *root, struct sbuf *b)
{
	const struct profile *p = ft->side[base].p;
	uint32_t n = report_frame_levels(p, f, &ft->o->names);

	for (uint32_t k = 0; k < n; k++) {
		const struct ft_row *r = &ft->rows[functab_row(ft, base, f, k, root)];
		int mark = r->self_mark ? r->self_mark : r->total_mark;
		size_t end;

		sbuf_reset(&fo->level);
		report_level_name(p, f, k, &ft->o->names, &fo->level);
		end = fo->level.len;
		while (end >= 4 && (!strncmp(fo->level.buf + end - 4, "_[i]", 4) ||
				    !strncmp(fo->level.buf + end - 4, "_[k]", 4)))
			end -= 4;
		if (k)
			sbuf_adds(b, ";");
		sbuf_addn(b, fo->level.buf, end);
		if (mark)
			sbuf_adds(b, mark > 0 ? "_[+]" : "_[-]");
		sbuf_adds(b, fo->level.buf + end);
	}
}

/*
 * Adds the stacks of a to f's lines: their counts, or with base their base
 * counts. With ft (a --diff's table), frames carry their functions' marks,
 * and with --diff-significant only the stacks holding a function marked
 * on its self share are kept.
 */
static void add_stacks(struct folded *fo, const struct profile *p, const struct report_opts *o,
		       const struct aggregate *a, bool base, struct functab *ft)
{
	struct folded_line *lines = fo->lines;
	size_t nlines = fo->nlines, cap = fo->cap;
	struct sbuf b = fo->b;
	/* Each frame's text, made once: stacks share most of their frames. */
	struct sbuf names = SBUF_INIT;
	uint32_t(*span)[2] = xcalloc(p->nframes ? p->nframes : 1, sizeof(*span)); /* at + 1, len */

	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		struct hmap_slot *m;
		bool added, first = o->root == REPORT_ROOT_NONE;

		if (ft && o->diff_significant && !functab_stack_marked(ft, a, g, base))
			continue;
		sbuf_reset(&b);
		if (o->root != REPORT_ROOT_NONE)
			sbuf_add_sanitized(&b, a->roots[g->root]);
		else if (!g->depth)
			sbuf_adds(&b, "[no frames]");
		for (uint32_t d = g->depth; d-- > 0;) {
			uint32_t f = a->frames[g->off + d];

			/* With a thread key a function's mark is its thread's: no cache. */
			if (ft && ft->by_thread) {
				if (!first)
					sbuf_adds(&b, ";");
				first = false;
				add_marked(fo, ft, base, f, a->roots[g->root], &b);
				continue;
			}
			if (!span[f][0]) {
				size_t at = names.len;

				if (ft)
					add_marked(fo, ft, base, f, a->roots[g->root], &names);
				else
					report_frame_names(p, f, &o->names, ";", &names);
				span[f][0] = (uint32_t)at + 1;
				span[f][1] = (uint32_t)(names.len - at);
			}
			if (!first)
				sbuf_adds(&b, ";");
			first = false;
			if (span[f][1])
				sbuf_addn(&b, names.buf + span[f][0] - 1, span[f][1]);
		}
		m = hmap_intern_str(&fo->merged, b.buf, b.len, line_text, &lines, &added);
		if (added) {
			xgrow(&lines, &cap, nlines + 1, sizeof(*lines));
			lines[nlines].text = xstrndup(b.buf, b.len);
			lines[nlines].count = lines[nlines].base = 0;
			m->val = nlines++;
		}
		*(base ? &lines[m->val].base : &lines[m->val].count) += g->count;
	}
	free(span);
	sbuf_release(&names);
	fo->lines = lines;
	fo->nlines = nlines;
	fo->cap = cap;
	fo->b = b;
}

int fmt_folded(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	const struct aggregate *a = d->a, *base = d->base;
	struct functab *ft = base ? functab_new(p, o, a, base) : NULL;
	struct folded fo = {.b = SBUF_INIT, .level = SBUF_INIT};

	hmap_init(&fo.merged);
	if (ft && !ft->noise) {
		functab_free(ft); /* time compared, not counts: no marks */
		ft = NULL;
	}
	add_stacks(&fo, p, o, a, false, ft);
	if (base)
		add_stacks(&fo, o->base, o, base, true, ft);
	if (fo.nlines)
		qsort(fo.lines, fo.nlines, sizeof(*fo.lines), cmp_line);
	for (size_t i = 0; i < fo.nlines; i++) {
		const struct folded_line *l = &fo.lines[i];
		uint64_t was = base ? report_normalize(l->base, a->samples, base->samples) : 0;

		/* A base stack too rare for the reported total still counts 1: it was there. */
		if (base && l->base && !was)
			was = 1;
		if (base && (was || l->count))
			fprintf(out, "%s %llu %llu\n", l->text, (unsigned long long)was,
				(unsigned long long)l->count);
		else if (!base)
			fprintf(out, "%s %llu\n", l->text, (unsigned long long)l->count);
		free(fo.lines[i].text);
	}
	free(fo.lines);
	functab_free(ft);
	sbuf_release(&fo.b);
	sbuf_release(&fo.level);
	hmap_release(&fo.merged);
	return 0;
}
