/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * latency.c - the CPU samples' parallelism and latency weights, from the
 * off-CPU spans of their processes' threads; see latency.h.
 *
 * Every sample, span and thread becomes events on its process's time
 * line: a thread comes on at its first record and goes off at its last,
 * goes off at each span's switch-out and comes back at its end. Swept in
 * time order per process, the threads on at a sample's time are its
 * parallelism; the spans open then, its process's waiting threads.
 */
#include "config.h"

#include <stdlib.h>

#include "report/latency.h"
#include "util/alloc.h"

/* What happens at an event; at one time, threads come on, then samples, then go off. */
enum ev_kind { EV_ON, EV_SPAN_END, EV_SAMPLE, EV_SPAN, EV_OFF };

struct ev {
	uint64_t key;	 /* pid << 32 | tid for the first sort; pid << 32 after */
	uint64_t time;	 /* ns from the recording's start */
	uint32_t kind;	 /* enum ev_kind */
	uint32_t index;	 /* the sample or span */
	uint32_t thread; /* the thread's dense index */
	uint32_t pad;
};

static int cmp_ev(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	if (x->time != y->time)
		return x->time < y->time ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return (x->index > y->index) - (x->index < y->index);
}

/* The events of p: samples and spans, then each thread's first and last record. */
static struct ev *collect(const struct profile *p, size_t *n, uint32_t *nthreads)
{
	size_t cap = p->nsamples + 2 * p->noffcpu, k = 0, m;
	struct ev *ev = xcalloc(cap + 1, sizeof(*ev));
	uint32_t threads = 0;

	for (size_t i = 0; i < p->nsamples; i++)
		ev[k++] = (struct ev){(uint64_t)p->samples[i].pid << 32 | p->samples[i].tid,
				      p->samples[i].time,
				      EV_SAMPLE,
				      (uint32_t)i,
				      0,
				      0};
	for (size_t i = 0; i < p->noffcpu; i++) {
		const struct pm_offcpu *x = &p->offcpu[i];
		uint64_t key = (uint64_t)x->pid << 32 | x->tid;

		ev[k++] = (struct ev){key, x->time, EV_SPAN, (uint32_t)i, 0, 0};
		ev[k++] = (struct ev){key, x->time + x->duration, EV_SPAN_END, (uint32_t)i, 0, 0};
	}
	qsort(ev, k, sizeof(*ev), cmp_ev);
	/* Per thread (a run of one key), its dense index and the ends of its life. */
	m = k;
	for (size_t i = 0; i < m;) {
		size_t j = i;

		while (j < m && ev[j].key == ev[i].key)
			ev[j++].thread = threads;
		xgrow(&ev, &cap, k + 2, sizeof(*ev));
		ev[k++] = (struct ev){ev[i].key, ev[i].time, EV_ON, 0, threads, 0};
		ev[k++] = (struct ev){ev[i].key, ev[j - 1].time, EV_OFF, 0, threads, 0};
		threads++;
		i = j;
	}
	for (size_t i = 0; i < k; i++)
		ev[i].key &= ~(uint64_t)UINT32_MAX;
	qsort(ev, k, sizeof(*ev), cmp_ev);
	*n = k;
	*nthreads = threads;
	return ev;
}

/* What the sweep of one process knows: which threads are on, which spans open. */
struct sweep {
	uint8_t *on;	   /* per thread */
	uint32_t *open;	   /* the open spans, in no order */
	uint32_t *open_at; /* per span, its place in open + 1; 0 closed */
	uint32_t nopen, count;
	uint32_t *waiting; /* scratch: the open spans of the others */
	size_t waiting_cap;
};

static void span_open(struct sweep *s, uint32_t span)
{
	s->open[s->nopen] = span;
	s->open_at[span] = ++s->nopen;
}

static void span_close(struct sweep *s, uint32_t span)
{
	uint32_t at = s->open_at[span];

	if (!at)
		return;
	s->open[at - 1] = s->open[--s->nopen];
	s->open_at[s->open[at - 1]] = at;
	s->open_at[span] = 0;
}

/* Thread t's on-state to on, counted in the process. */
static void set_on(struct sweep *s, uint32_t t, bool on)
{
	if (s->on[t] == on)
		return;
	s->on[t] = on;
	if (on)
		s->count++;
	else
		s->count--;
}

void latency_walk(const struct profile *p, bool waiting, latency_fn fn, void *arg)
{
	uint32_t nthreads;
	size_t n;
	struct ev *ev = collect(p, &n, &nthreads);
	struct sweep s = {.on = xcalloc(nthreads + 1, 1),
			  .open = xcalloc(p->noffcpu + 1, sizeof(*s.open)),
			  .open_at = xcalloc(p->noffcpu + 1, sizeof(*s.open_at))};
	uint64_t pid = UINT64_MAX;

	for (size_t i = 0; i < n; i++) {
		const struct ev *e = &ev[i];
		struct latency_at at;

		if (e->key != pid) {
			/* A new process: every thread of the last one ended, every span closed. */
			pid = e->key;
			while (s.nopen)
				span_close(&s, s.open[0]);
			s.count = 0;
		}
		switch (e->kind) {
		case EV_ON:
		case EV_SPAN_END:
			if (e->kind == EV_SPAN_END)
				span_close(&s, e->index);
			set_on(&s, e->thread, true);
			break;
		case EV_SPAN:
			set_on(&s, e->thread, false);
			span_open(&s, e->index);
			break;
		case EV_OFF:
			set_on(&s, e->thread, false);
			break;
		default:
			at.sample = e->index;
			at.parallel = s.count + !s.on[e->thread];
			at.nwaiting = 0;
			xgrow(&s.waiting, &s.waiting_cap, s.nopen + 1, sizeof(*s.waiting));
			for (uint32_t k = 0; waiting && k < s.nopen; k++)
				if (p->offcpu[s.open[k]].tid != p->samples[e->index].tid)
					s.waiting[at.nwaiting++] = s.open[k];
			at.waiting = s.waiting;
			fn(&at, arg);
		}
	}
	free(s.on);
	free(s.open);
	free(s.open_at);
	free(s.waiting);
	free(ev);
}

static void weigh(const struct latency_at *at, void *arg)
{
	struct pm_sample *sm = &((struct profile *)arg)->samples[at->sample];

	sm->period = (sm->period + at->parallel / 2) / at->parallel;
}

void latency_weigh_samples(struct profile *p)
{
	if (!p->noffcpu || !p->nsamples)
		return;
	latency_walk(p, false, weigh, p);
}
