/*
 * fmt-folded.c - the folded stack format that flamegraph.pl and
 * speedscope read: "comm;outermost;...;leaf COUNT", one line per distinct
 * stack, sorted so that the output is stable.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>

#include "hmap.h"
#include "report.h"
#include "util.h"

struct folded_line {
	char *text;
	uint64_t count;
};

static int cmp_line(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	return strcmp(x->text, y->text);
}

int fmt_folded(const struct profile *p, const struct report_opts *o, FILE *out)
{
	struct hmap counts; /* (comm << 32 | stack) + 1 -> samples */
	struct hmap merged; /* hash of text -> index into lines */
	struct folded_line *lines = NULL;
	size_t nlines = 0, cap = 0;
	struct sbuf b = {0};

	hmap_init(&counts);
	hmap_init(&merged);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pm_sample *s = &p->samples[i];

		hmap_insert(&counts, ((uint64_t)s->comm << 32 | s->stack) + 1, NULL)->val++;
	}
	for (size_t i = 0; i < counts.cap; i++) {
		const struct hmap_slot *slot = &counts.slots[i];
		uint32_t comm, stack;
		const struct pm_stack *st;
		uint64_t key;
		struct hmap_slot *m;
		bool added;

		if (!slot->key)
			continue;
		comm = (uint32_t)((slot->key - 1) >> 32);
		stack = (uint32_t)(slot->key - 1);
		st = &p->stacks[stack];
		b.len = 0;
		sbuf_add_sanitized(&b, strtab_get(&p->str, comm));
		for (uint32_t d = st->depth; d-- > 0;) {
			uint32_t f = p->stack_frames[st->off + d];

			if (o->no_kernel && (p->frames[f].flags & PM_FRAME_KERNEL))
				continue;
			sbuf_adds(&b, ";");
			report_frame_names(p, f, &o->names, ";", &b);
		}
		/* Different stacks can print alike (unresolved, or kernel dropped). */
		for (key = hash_bytes(b.buf, b.len) | 1;; key = hash_u64(key) | 1) {
			m = hmap_insert(&merged, key, &added);
			if (added || strcmp(lines[m->val].text, b.buf) == 0)
				break;
		}
		if (!added) {
			lines[m->val].count += slot->val;
			continue;
		}
		xgrow(&lines, &cap, nlines + 1, sizeof(*lines));
		lines[nlines].text = xstrndup(b.buf, b.len);
		lines[nlines].count = slot->val;
		m->val = nlines++;
	}
	if (nlines)
		qsort(lines, nlines, sizeof(*lines), cmp_line);
	for (size_t i = 0; i < nlines; i++) {
		fprintf(out, "%s %llu\n", lines[i].text, (unsigned long long)lines[i].count);
		free(lines[i].text);
	}
	free(lines);
	sbuf_release(&b);
	hmap_release(&counts);
	hmap_release(&merged);
	return ferror(out) ? -EIO : 0;
}
