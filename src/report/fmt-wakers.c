/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-wakers.c - --wakers: who woke the threads that slept.
 *
 * Each off-CPU span that went to sleep weighs its sleeping time (from the
 * switch-out to the wake-up that ended it: aggregate_offcpu_split) and
 * pairs the sleeper's stack with its waker's, as recorded with the span
 * (record --off-cpu, where the kernel let wake-ups be sampled). A sleep
 * whose wake-up was not seen (a waker outside the recording, a lost
 * record) pairs with "[waker not recorded]", so that the sleeping time
 * adds up. Preempted spans never slept: they have no waker.
 *
 * The folded form is offwaketime's: the sleeper's name and stack,
 * outermost first, a "--" frame, then the waker's stack innermost first
 * and the waker's name last, so that flamegraph.pl draws the waker
 * upside down on top of the sleeper. The top form lists the stacks that
 * slept longest, each with its wakers and their shares of its sleep.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define NO_WAKER  "[waker not recorded]"
#define TOP_ROWS  10
#define TOP_WAKER 5

/* A sleeper stack, or a waker of one: its text and nanoseconds. */
struct wentry {
	char *text;
	uint64_t ns;
	size_t parent; /* a waker's sleeper, SIZE_MAX for a sleeper */
};

struct wakers {
	const struct profile *p;
	const struct report_opts *o;
	struct wentry *v;
	size_t n, cap;
	struct hmap ix; /* hash of (parent, text) -> index + 1 */
	uint32_t *frames;
	struct sbuf b;
};

/* What ix's entries are matched with. */
struct entry_key {
	const struct wakers *w;
	size_t parent;
	const char *text;
};

static bool same_entry(uint64_t val, const void *arg)
{
	const struct entry_key *k = arg;
	const struct wentry *e = &k->w->v[val - 1];

	return e->parent == k->parent && !strcmp(e->text, k->text);
}

/* The entry of text under parent, added if new: its index. */
static size_t entry(struct wakers *w, size_t parent, const char *text)
{
	uint64_t key = hash_u64(hash_bytes(text, strlen(text)) ^ parent) | 1;
	struct entry_key k = {w, parent, text};
	struct hmap_slot *s;
	bool added;

	s = hmap_intern(&w->ix, key, same_entry, &k, &added);
	if (!added)
		return s->val - 1;
	xgrow(&w->v, &w->cap, w->n + 1, sizeof(*w->v));
	w->v[w->n] = (struct wentry){xstrdup(text), 0, parent};
	s->val = ++w->n;
	return w->n - 1;
}

/* Appends the frames of stack sid (the kernel filters applied), outermost or innermost first. */
static void add_stack(struct wakers *w, uint32_t sid, bool outer_first)
{
	const struct profile *p = w->p;
	int n = aggregate_stack_frames(w->o, p, sid, w->frames);

	for (int k = 0; k < n; k++) {
		uint32_t f = w->frames[outer_first ? n - 1 - k : k];
		uint32_t levels = report_frame_levels(p, f, &w->o->names);

		for (uint32_t l = 0; l < levels; l++) {
			sbuf_adds(&w->b, ";");
			report_level_name(p, f, outer_first ? l : levels - 1 - l, &w->o->names,
					  &w->b);
		}
	}
}

/* "comm", "comm-PID" or "comm-TID" as the roots are named. */
static void add_root(struct wakers *w, uint32_t comm, uint32_t pid, uint32_t tid)
{
	sbuf_add_sanitized(&w->b, strtab_get(&w->p->str, comm));
	if (w->o->root == REPORT_ROOT_PID)
		sbuf_addf(&w->b, "-%u", pid);
	else if (w->o->root == REPORT_ROOT_TID)
		sbuf_addf(&w->b, "-%u", tid);
}

/* The sleeping time of every span o selects, by sleeper stack, and under it by waker. */
static void collect(struct wakers *w)
{
	const struct profile *p = w->p;
	struct report_opts o = *w->o;

	o.offcpu_state = REPORT_STATE_SLEEPING;
	for (size_t i = 0; i < p->noffcpu; i++) {
		const struct pm_offcpu *x = &p->offcpu[i];
		const struct pm_wakeup *wk;
		uint64_t sleeping, runnable;
		struct pm_sample s;
		size_t sleeper;

		if (!aggregate_selects_offcpu(&o, p, x, &s))
			continue;
		wk = aggregate_offcpu_split(p, x, &sleeping, &runnable);
		sbuf_reset(&w->b);
		add_root(w, x->comm, x->pid, x->tid);
		add_stack(w, x->stack, true);
		sleeper = entry(w, SIZE_MAX, w->b.buf);
		w->v[sleeper].ns += sleeping;
		sbuf_reset(&w->b);
		if (wk) {
			add_stack(w, wk->stack, false);
			sbuf_adds(&w->b, ";");
			add_root(w, wk->comm, wk->pid, wk->tid);
		} else {
			sbuf_adds(&w->b, ";" NO_WAKER);
		}
		w->v[entry(w, sleeper, w->b.buf + 1)].ns += sleeping;
	}
}

static void wakers_init(struct wakers *w, const struct profile *p, const struct report_opts *o)
{
	uint32_t depth = 1;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->o = o;
	hmap_init(&w->ix);
	for (size_t i = 0; i < p->nstacks; i++)
		depth = p->stacks[i].depth > depth ? p->stacks[i].depth : depth;
	w->frames = xcalloc(depth, sizeof(*w->frames));
	collect(w);
}

static void wakers_release(struct wakers *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].text);
	free(w->v);
	free(w->frames);
	hmap_release(&w->ix);
	sbuf_release(&w->b);
}

static int by_text(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

int fmt_wakers_folded(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	struct wakers w;
	char **lines;
	size_t n = 0;

	wakers_init(&w, p, o);
	lines = xcalloc(w.n + 1, sizeof(*lines));
	for (size_t i = 0; i < w.n; i++) {
		const struct wentry *e = &w.v[i];

		if (e->parent == SIZE_MAX || !e->ns)
			continue;
		lines[n++] = xasprintf("%s;--;%s %llu", w.v[e->parent].text, e->text,
				       (unsigned long long)e->ns);
	}
	qsort(lines, n, sizeof(*lines), by_text);
	for (size_t i = 0; i < n; i++) {
		fprintf(out, "%s\n", lines[i]);
		free(lines[i]);
	}
	free(lines);
	wakers_release(&w);
	return 0;
}

static const struct wentry *sort_base;

static int by_ns(const void *x, const void *y)
{
	const struct wentry *a = &sort_base[*(const size_t *)x],
			    *b = &sort_base[*(const size_t *)y];

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* The wakers of sleeper s, most first, as rows under it. */
static void print_wakers(const struct wakers *w, size_t s, const size_t *order, FILE *out)
{
	size_t shown = 0, more = 0;
	uint64_t more_ns = 0;
	struct sbuf b = SBUF_INIT;

	for (size_t k = 0; k < w->n; k++) {
		const struct wentry *e = &w->v[order[k]];

		if (e->parent != s)
			continue;
		if (shown++ >= TOP_WAKER) {
			more++;
			more_ns += e->ns;
			continue;
		}
		fprintf(out, "%10.1f  %6.1f%%    woken by %s\n", (double)e->ns / 1e6,
			w->v[s].ns ? 100.0 * (double)e->ns / (double)w->v[s].ns : 0.0,
			printable(&b, e->text));
	}
	if (more)
		fprintf(out, "%10.1f  %6.1f%%    and %zu more wakers\n", (double)more_ns / 1e6,
			w->v[s].ns ? 100.0 * (double)more_ns / (double)w->v[s].ns : 0.0, more);
	sbuf_release(&b);
}

int fmt_wakers_top(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	struct wakers w;
	size_t *order, rows = 0, limit;
	uint64_t total = 0;
	struct sbuf b = SBUF_INIT;

	wakers_init(&w, p, o);
	order = xcalloc(w.n + 1, sizeof(*order));
	for (size_t i = 0; i < w.n; i++) {
		order[i] = i;
		if (w.v[i].parent == SIZE_MAX)
			total += w.v[i].ns;
	}
	sort_base = w.v;
	qsort(order, w.n, sizeof(*order), by_ns);
	limit = o->rows > 0 ? (size_t)o->rows : o->rows == 0 ? SIZE_MAX : TOP_ROWS;
	fprintf(out,
		"Sleeping: %.1f ms in all, by stack (the sleeper's, outermost first), each "
		"with its wakers (their stacks innermost first, their names last)\n\n",
		(double)total / 1e6);
	fprintf(out, "%10s  %7s    %s\n", "Sleep ms", "Share", "Sleeper / waker");
	for (size_t k = 0; k < w.n && rows < limit; k++) {
		const struct wentry *e = &w.v[order[k]];

		if (e->parent != SIZE_MAX || !e->ns)
			continue;
		fprintf(out, "%s%10.1f  %6.1f%%  %s\n", rows++ ? "\n" : "", (double)e->ns / 1e6,
			total ? 100.0 * (double)e->ns / (double)total : 0.0,
			printable(&b, e->text));
		print_wakers(&w, order[k], order, out);
	}
	if (!rows)
		fputs("No sleep with its wake-up among the spans selected.\n", out);
	free(order);
	sbuf_release(&b);
	wakers_release(&w);
	return 0;
}
