/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * wall.c - the CPU samples' weights of the wall view; see wall.h.
 */
#include "config.h"

#include <stdlib.h>

#include "report/wall.h"
#include "util/alloc.h"

/* A sample or a span, to be put in thread and time order. */
struct wall_event {
	uint64_t thread; /* pid << 32 | tid */
	uint64_t time;
	uint32_t index; /* into samples, or offcpu */
	bool span;
};

static int cmp_event(const void *a, const void *b)
{
	const struct wall_event *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->span != y->span)
		return x->span ? 1 : -1;
	return (x->index > y->index) - (x->index < y->index);
}

/* What a thread's walk has seen so far. */
struct wall_walk {
	uint64_t thread;
	bool have_sample;   /* since the walk of the thread began */
	uint64_t last;	    /* the last sample's time */
	uint64_t off;	    /* span time since then */
	bool have_span_end; /* a span ended since the last sample (or before the first) */
	uint64_t span_end;  /* the latest */
};

/* Sample s's weight, given w: the thread's time on the CPU since its previous sample. */
static uint64_t weigh(const struct wall_walk *w, const struct pm_sample *s, bool trim_only)
{
	uint64_t on;

	if (!w->have_sample) {
		/* Before the first sample nothing says when the thread ran but a span's end. */
		if (w->have_span_end && w->span_end <= s->time && s->time - w->span_end < s->period)
			return s->time - w->span_end;
		return s->period;
	}
	on = s->time - w->last > w->off ? s->time - w->last - w->off : 0;
	return trim_only && on > s->period ? s->period : on;
}

void wall_weigh_samples(struct profile *p)
{
	size_t n = p->nsamples + p->noffcpu, k = 0;
	bool trim_only = profile_get_meta_u64(p, "lost-records") ||
			 profile_get_meta_u64(p, "off-cpu-min-ns");
	struct wall_walk w = {.thread = UINT64_MAX};
	struct wall_event *ev;

	if (!p->noffcpu || !p->nsamples)
		return;
	ev = xcalloc(n, sizeof(*ev));
	for (size_t i = 0; i < p->nsamples; i++, k++)
		ev[k] = (struct wall_event){(uint64_t)p->samples[i].pid << 32 | p->samples[i].tid,
					    p->samples[i].time, (uint32_t)i, false};
	for (size_t i = 0; i < p->noffcpu; i++, k++)
		ev[k] = (struct wall_event){(uint64_t)p->offcpu[i].pid << 32 | p->offcpu[i].tid,
					    p->offcpu[i].time, (uint32_t)i, true};
	qsort(ev, n, sizeof(*ev), cmp_event);
	for (size_t i = 0; i < n; i++) {
		if (ev[i].thread != w.thread)
			w = (struct wall_walk){.thread = ev[i].thread};
		if (ev[i].span) {
			const struct pm_offcpu *x = &p->offcpu[ev[i].index];

			w.off += x->duration;
			w.have_span_end = true;
			w.span_end = x->time + x->duration;
			continue;
		}
		struct pm_sample *s = &p->samples[ev[i].index];

		s->period = weigh(&w, s, trim_only);
		w.have_sample = true;
		w.last = s->time;
		w.off = 0;
		w.have_span_end = false;
	}
	free(ev);
}
