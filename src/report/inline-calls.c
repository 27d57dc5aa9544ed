/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * inline-calls.c - the calls a compiler inlined, found in the frames'
 * inline chains; see inline-calls.h.
 */
#include "config.h"

#include <stdlib.h>

#include "report/inline-calls.h"
#include "util/alloc.h"
#include "util/hmap.h"

/* What is per recording: for each frame, the names it may pair by. */
struct side {
	const struct profile *p;
	uint32_t *callee; /* frame -> its real function, where a callee of a pair; else PM_NONE */
	uint32_t *caller; /* frame -> its innermost level, where a caller of a pair; else PM_NONE */
};

struct inline_calls {
	struct strtab names;	      /* the function names, interned: a name's id its offset */
	struct hmap pairs;	      /* callee id << 32 | caller id -> 1 */
	struct hmap callees, callers; /* name id -> 1, for the names in some pair */
	struct side sides[2];	      /* p, then the base */
};

/* The id of line i's function in c, PM_NONE for a line without a name. */
static uint32_t name_id(struct inline_calls *c, const struct profile *p, uint32_t i)
{
	uint32_t id = strtab_add(&c->names, strtab_get(&p->str, p->lines[i].func));

	return id ? id : PM_NONE;
}

/* Adds the pairs of p's inline chains: each inlined level and the level it is inlined into. */
static void collect(struct inline_calls *c, const struct profile *p)
{
	for (size_t f = 0; f < p->nframes; f++) {
		const struct pm_frame *fr = &p->frames[f];

		/* Lines are innermost first: line k is inlined into line k + 1. */
		for (uint32_t k = 0; k + 1 < fr->nlines; k++) {
			uint32_t i = fr->line0 + k;
			uint32_t callee, caller;

			if (!(p->lines[i].flags & PM_LINE_INLINED))
				continue;
			callee = name_id(c, p, i);
			caller = name_id(c, p, i + 1);
			if (callee == PM_NONE || caller == PM_NONE)
				continue;
			hmap_insert(&c->pairs, (uint64_t)callee << 32 | caller, NULL)->val = 1;
			hmap_insert(&c->callees, callee, NULL)->val = 1;
			hmap_insert(&c->callers, caller, NULL)->val = 1;
		}
	}
}

/* The id of line i's function where set holds it, else PM_NONE. */
static uint32_t listed(struct inline_calls *c, const struct hmap *set, const struct profile *p,
		       uint32_t i)
{
	uint32_t id = name_id(c, p, i);

	return id != PM_NONE && hmap_find(set, id) ? id : PM_NONE;
}

/* Fills side s of p: the names each frame may pair by. */
static void mark(struct inline_calls *c, struct side *s, const struct profile *p)
{
	size_t n = p->nframes ? p->nframes : 1;

	s->p = p;
	s->callee = xcalloc(n, sizeof(*s->callee));
	s->caller = xcalloc(n, sizeof(*s->caller));
	for (size_t f = 0; f < p->nframes; f++) {
		const struct pm_frame *fr = &p->frames[f];

		s->callee[f] = s->caller[f] = PM_NONE;
		/* Kernel code inlines nothing a recording knows of. */
		if (!fr->nlines || (fr->flags & PM_FRAME_KERNEL))
			continue;
		s->callee[f] = listed(c, &c->callees, p, fr->line0 + fr->nlines - 1);
		s->caller[f] = listed(c, &c->callers, p, fr->line0);
	}
}

struct inline_calls *inline_calls_new(const struct profile *p, const struct profile *base)
{
	struct inline_calls *c = xcalloc(1, sizeof(*c));

	strtab_init(&c->names);
	hmap_init(&c->pairs);
	hmap_init(&c->callees);
	hmap_init(&c->callers);
	collect(c, p);
	if (base)
		collect(c, base);
	/* Without a pair nothing merges: no side to look up. */
	if (!c->pairs.count)
		return c;
	mark(c, &c->sides[0], p);
	if (base)
		mark(c, &c->sides[1], base);
	return c;
}

void inline_calls_free(struct inline_calls *c)
{
	if (!c)
		return;
	for (int i = 0; i < 2; i++) {
		free(c->sides[i].callee);
		free(c->sides[i].caller);
	}
	strtab_release(&c->names);
	hmap_release(&c->pairs);
	hmap_release(&c->callees);
	hmap_release(&c->callers);
	free(c);
}

bool inline_calls_merges(const struct inline_calls *c, const struct profile *p, uint32_t callee,
			 uint32_t caller)
{
	const struct side *s = NULL;
	uint32_t a, b;

	for (int i = 0; i < 2; i++)
		if (c->sides[i].p == p && p)
			s = &c->sides[i];
	if (!s || callee >= p->nframes || caller >= p->nframes)
		return false;
	a = s->callee[callee];
	b = s->caller[caller];
	return a != PM_NONE && b != PM_NONE && hmap_find(&c->pairs, (uint64_t)a << 32 | b);
}

size_t inline_calls_count(const struct inline_calls *c)
{
	return c->pairs.count;
}
