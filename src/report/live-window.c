/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live-window.c - the samples of the last seconds of a recording, which
 * 'perfmini top' shows; see live.h.
 *
 * Invariant: s[head .. head + n) are the samples added and not let go,
 * in the order added (time order: the session applies records so), each
 * no older than now - span_ns once slid. The array grows with the most
 * the window held at once, not with all that was added: once what was
 * let go is as much as what is held, the rest is moved down instead.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/live.h"
#include "util/alloc.h"
#include "util/hmap.h"

void live_window_init(struct live_window *w, uint64_t span_ns)
{
	memset(w, 0, sizeof(*w));
	w->span_ns = span_ns;
}

void live_window_release(struct live_window *w)
{
	free(w->s);
	free(w->threads);
	memset(w, 0, sizeof(*w));
}

void live_window_add(struct live_window *w, const struct pm_sample *smp)
{
	if (w->head && w->head + w->n == w->cap && w->head >= w->n) {
		/* Half of it or more let go: moved down rather than grown. */
		memmove(w->s, w->s + w->head, w->n * sizeof(*w->s));
		w->head = 0;
	}
	xgrow(&w->s, &w->cap, w->head + w->n + 1, sizeof(*w->s));
	w->s[w->head + w->n++] = *smp;
}

void live_window_slide(struct live_window *w, uint64_t now)
{
	uint64_t from = now > w->span_ns ? now - w->span_ns : 0;

	if (now > w->now)
		w->now = now;
	while (w->n && w->s[w->head].time < from) {
		w->head++;
		w->n--;
	}
	if (!w->n)
		w->head = 0;
}

/* The window's threads, each with the name of its latest sample. */
static void last_names(struct live_window *w)
{
	struct hmap seen;
	bool added;

	hmap_init(&seen);
	w->nthreads = 0;
	for (size_t i = w->n; i-- > 0;) {
		const struct pm_sample *s = &w->s[w->head + i];

		hmap_insert(&seen, s->tid, &added);
		if (!added)
			continue;
		xgrow(&w->threads, &w->threads_cap, w->nthreads + 1, sizeof(*w->threads));
		w->threads[w->nthreads++] = (struct pm_thread){s->pid, s->tid, s->comm, s->cgroup};
	}
	hmap_release(&seen);
}

struct profile live_window_view(struct live_window *w, const struct profile *p)
{
	struct profile view = *p;

	last_names(w);
	view.threads = w->threads;
	view.nthreads = w->nthreads;
	view.threads_cap = w->nthreads;
	view.samples = w->n ? w->s + w->head : NULL;
	view.nsamples = w->n;
	view.samples_cap = w->n;
	/* Only CPU samples are shown: no spans, and no counts of samples gone to the file. */
	view.offcpu = NULL;
	view.noffcpu = 0;
	view.wakeups = NULL;
	view.nwakeups = 0;
	return view;
}
