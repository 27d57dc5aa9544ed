/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * timeline.c - the selected samples and off-CPU spans grouped by thread,
 * each thread's in time order; see timeline.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/timeline.h"
#include "util/alloc.h"
#include "util/hmap.h"

struct builder {
	const struct profile *p;
	const struct report_opts *o;
	struct timeline *t;
	size_t events_cap, threads_cap;
	struct hmap thread_of; /* pid << 32 | tid -> index into threads */
	uint32_t *scratch;
	size_t scratch_cap;
};

static void add_event(struct builder *b, const struct pm_sample *s, uint32_t index, bool offcpu)
{
	struct timeline *t = b->t;
	const struct pm_stack *st = &b->p->stacks[s->stack];
	struct hmap_slot *slot;
	struct tl_event *e;
	bool added;

	xgrow(&b->scratch, &b->scratch_cap, st->depth + 1, sizeof(*b->scratch));
	if (aggregate_stack_frames(b->o, b->p, s->stack, b->scratch) < 0)
		return;
	slot = hmap_insert(&b->thread_of, (uint64_t)s->pid << 32 | s->tid, &added);
	if (added) {
		xgrow(&t->threads, &b->threads_cap, t->nthreads + 1, sizeof(*t->threads));
		memset(&t->threads[t->nthreads], 0, sizeof(*t->threads));
		t->threads[t->nthreads].pid = s->pid;
		t->threads[t->nthreads].tid = s->tid;
		t->threads[t->nthreads].comm = s->comm;
		slot->val = t->nthreads++;
	}
	xgrow(&t->events, &b->events_cap, t->nevents + 1, sizeof(*t->events));
	e = &t->events[t->nevents++];
	e->time = s->time;
	e->weight = s->period;
	e->stack = s->stack;
	e->thread = (uint32_t)slot->val;
	e->index = index;
	e->offcpu = offcpu;
}

static int cmp_thread(const void *a, const void *b)
{
	const struct tl_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_event(const void *a, const void *b)
{
	const struct tl_event *x = a, *y = b;

	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->offcpu != y->offcpu)
		return x->offcpu ? 1 : -1;
	return (x->index > y->index) - (x->index < y->index);
}

struct timeline *timeline_new(const struct profile *p, const struct report_opts *o)
{
	struct timeline *t = xcalloc(1, sizeof(*t));
	struct builder b = {.p = p, .o = o, .t = t};
	uint32_t *renumber;

	hmap_init(&b.thread_of);
	for (size_t i = 0; o->sample_type != REPORT_OFF_CPU && i < p->nsamples; i++)
		if (aggregate_selects(o, p, &p->samples[i]))
			add_event(&b, &p->samples[i], (uint32_t)i, false);
	for (size_t i = 0; report_has_spans(o->sample_type) && i < p->noffcpu; i++) {
		struct pm_sample s;

		if (aggregate_selects_offcpu(o, p, &p->offcpu[i], &s))
			add_event(&b, &s, (uint32_t)i, true);
	}
	/* Threads by pid and tid; events renumbered to match, then sorted. */
	renumber = xcalloc(t->nthreads + 1, sizeof(*renumber));
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].first = i; /* its index before sorting */
	if (t->nthreads)
		qsort(t->threads, t->nthreads, sizeof(*t->threads), cmp_thread);
	for (size_t i = 0; i < t->nthreads; i++)
		renumber[t->threads[i].first] = (uint32_t)i;
	for (size_t i = 0; i < t->nevents; i++)
		t->events[i].thread = renumber[t->events[i].thread];
	if (t->nevents)
		qsort(t->events, t->nevents, sizeof(*t->events), cmp_event);
	for (size_t i = 0; i < t->nthreads; i++)
		t->threads[i].n = 0;
	for (size_t i = t->nevents; i-- > 0;) {
		struct tl_event *e = &t->events[i];
		struct tl_thread *th = &t->threads[e->thread];
		uint64_t end = e->time + (e->offcpu ? e->weight : 0);

		th->first = i;
		th->n++;
		th->weight += e->weight;
		if (end > th->end_time)
			th->end_time = end;
	}
	/* A thread's name: the last one recorded for it, as --per-tid gives. */
	for (size_t i = 0; i < p->nthreads; i++) {
		const struct hmap_slot *s = hmap_find(
			&b.thread_of, (uint64_t)p->threads[i].pid << 32 | p->threads[i].tid);

		if (s)
			t->threads[renumber[s->val]].comm = p->threads[i].comm;
	}
	free(renumber);
	free(b.scratch);
	hmap_release(&b.thread_of);
	return t;
}

void timeline_free(struct timeline *t)
{
	if (!t)
		return;
	free(t->threads);
	free(t->events);
	free(t->frames);
	free(t);
}

uint32_t timeline_frames(struct timeline *t, const struct profile *p, const struct report_opts *o,
			 uint32_t sid, const uint32_t **frames)
{
	int n;

	xgrow(&t->frames, &t->frames_cap, p->stacks[sid].depth + 1, sizeof(*t->frames));
	n = aggregate_stack_frames(o, p, sid, t->frames);
	*frames = t->frames;
	return n < 0 ? 0 : (uint32_t)n;
}
