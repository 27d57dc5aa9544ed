/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-folded.c - the folded stack format that flamegraph.pl and
 * speedscope read: "root;outermost;...;leaf COUNT", one line per distinct
 * stack, sorted so that the output is stable. Stacks that print alike
 * (unresolved frames, or frames that the filters dropped) share a line.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "report/aggregate.h"
#include "util/hmap.h"
#include "report/report.h"
#include "util/util.h"

struct folded_line {
	char *text;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->text, y->text);
}

struct line_key {
	struct folded_line *const *lines;
	const char *text;
};

static bool same_line(uint64_t val, const void *arg)
{
	const struct line_key *k = arg;

	return strcmp((*k->lines)[val].text, k->text) == 0;
}

int fmt_folded(const struct profile *p, const struct report_opts *o, FILE *out)
{
	struct aggregate *a = aggregate_new(p, o, 0);
	struct hmap merged; /* hash of text -> index into lines */
	struct folded_line *lines = NULL;
	size_t nlines = 0, cap = 0;
	struct sbuf b = {0};
	/* Each frame's text, made once: stacks share most of their frames. */
	struct sbuf names = {0};
	uint32_t(*span)[2] = xcalloc(p->nframes ? p->nframes : 1, sizeof(*span)); /* at + 1, len */

	hmap_init(&merged);
	for (size_t i = 0; i < a->nstacks; i++) {
		const struct agg_stack *g = &a->stacks[i];
		struct line_key k = {&lines, NULL};
		struct hmap_slot *m;
		bool added;

		b.len = 0;
		sbuf_add_sanitized(&b, a->roots[g->root]);
		for (uint32_t d = g->depth; d-- > 0;) {
			uint32_t f = a->frames[g->off + d];

			if (!span[f][0]) {
				size_t at = names.len;

				report_frame_names(p, f, &o->names, ";", &names);
				span[f][0] = (uint32_t)at + 1;
				span[f][1] = (uint32_t)(names.len - at);
			}
			sbuf_adds(&b, ";");
			if (span[f][1])
				sbuf_addn(&b, names.buf + span[f][0] - 1, span[f][1]);
		}
		k.text = b.buf;
		m = hmap_intern(&merged, hash_bytes(b.buf, b.len), same_line, &k, &added);
		if (!added) {
			lines[m->val].count += g->count;
			continue;
		}
		xgrow(&lines, &cap, nlines + 1, sizeof(*lines));
		lines[nlines].text = xstrndup(b.buf, b.len);
		lines[nlines].count = g->count;
		m->val = nlines++;
	}
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines; i++) {
		fprintf(out, "%s %llu\n", lines[i].text, (unsigned long long)lines[i].count);
		free(lines[i].text);
	}
	free(lines);
	free(span);
	sbuf_release(&names);
	sbuf_release(&b);
	hmap_release(&merged);
	aggregate_free(a);
	return ferror(out) ? -EIO : 0;
}
