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
 * upside down on top of the sleeper. The top form is a table of pairs,
 * the heaviest first: the sleeper's name and stack, the waker's name and
 * stack, each stack innermost first as report_stack_brief shows it,
 * every line cut to the width; the full stacks are the folded form's.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define NO_WAKER   "[waker not recorded]"
#define TTY_ROWS   25 /* rows of the top form on a terminal, without -n */
#define MAX_THREAD 16 /* columns for a thread's name at most (15 bytes in the kernel) */

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
	struct strtab cells; /* the top form's pairs, interned */
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

static void wakers_init(struct wakers *w, const struct profile *p, const struct report_opts *o,
			bool folded)
{
	uint32_t depth = 1;

	memset(w, 0, sizeof(*w));
	w->p = p;
	w->o = o;
	hmap_init(&w->ix);
	for (size_t i = 0; i < p->nstacks; i++)
		depth = p->stacks[i].depth > depth ? p->stacks[i].depth : depth;
	w->frames = xcalloc(depth, sizeof(*w->frames));
	strtab_init(&w->cells);
	if (folded)
		collect(w);
}

static void wakers_release(struct wakers *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].text);
	free(w->v);
	free(w->frames);
	hmap_release(&w->ix);
	strtab_release(&w->cells);
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

	wakers_init(&w, p, o, true);
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

/* A pair of the top form: "SLEEPER\tSTACK\tWAKER\tSTACK", and its sleeping time. */
struct wpair {
	char *text;
	uint64_t ns;
};

/* The width of cell k of text (cells split by tabs). */
static size_t cell_width(const char *text, int k)
{
	size_t w = 0;
	char *cell;

	for (int i = 0; i < k; i++)
		text = strchr(text, '\t') + 1;
	cell = xstrndup(text, strcspn(text, "\t"));
	w = report_text_width(cell);
	free(cell);
	return w;
}

/* The four cells of text, split at its tabs (in place). */
static void split(char *text, char **c)
{
	c[0] = text;
	for (int k = 1; k < 4; k++) {
		c[k] = strchr(c[k - 1], '\t');
		*c[k]++ = '\0';
	}
}

static int by_ns(const void *x, const void *y)
{
	const struct wpair *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->text, b->text);
}

/* Appends thread comm's name and '\t', then stack sid as a cell shows it (kernel filters applied). */
static void add_cells(struct wakers *w, uint32_t comm, uint32_t sid)
{
	int n = aggregate_stack_frames(w->o, w->p, sid, w->frames);

	sbuf_add_printable(&w->b, strtab_get(&w->p->str, comm));
	sbuf_adds(&w->b, "\t");
	report_stack_brief(w->p, &w->o->names, w->frames, n, w->o->kernel_only, " <- ", &w->b);
}

/* The pairs of the top form, by their cells, into a new array (*n of them). */
static struct wpair *collect_pairs(struct wakers *w, size_t *n, uint64_t *total)
{
	const struct profile *p = w->p;
	struct report_opts o = *w->o;
	struct wpair *v = NULL;
	size_t cap = 0;
	struct hmap ix;

	hmap_init(&ix);
	*n = 0;
	*total = 0;
	o.offcpu_state = REPORT_STATE_SLEEPING;
	for (size_t i = 0; i < p->noffcpu; i++) {
		const struct pm_offcpu *x = &p->offcpu[i];
		const struct pm_wakeup *wk;
		uint64_t sleeping, runnable;
		struct pm_sample s;
		struct hmap_slot *slot;
		bool added;

		if (!aggregate_selects_offcpu(&o, p, x, &s))
			continue;
		wk = aggregate_offcpu_split(p, x, &sleeping, &runnable);
		sbuf_reset(&w->b);
		add_cells(w, x->comm, x->stack);
		sbuf_adds(&w->b, "\t");
		if (wk)
			add_cells(w, wk->comm, wk->stack);
		else
			sbuf_adds(&w->b, "\t" NO_WAKER);
		slot = hmap_insert(&ix, strtab_add(&w->cells, w->b.buf), &added);
		if (added) {
			xgrow(&v, &cap, *n + 1, sizeof(*v));
			v[*n] = (struct wpair){xstrdup(w->b.buf), 0};
			slot->val = (*n)++;
		}
		v[slot->val].ns += sleeping;
		*total += sleeping;
	}
	hmap_release(&ix);
	return v;
}

int fmt_wakers_top(const struct report_data *d, FILE *out)
{
	static const char *const heads[] = {"Sleeper", "Sleeping in", "Waker", "Woken from"};
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	size_t want[4], min[4], n, rows;
	uint64_t total;
	struct wakers w;
	struct wpair *v;
	struct sbuf b = SBUF_INIT;
	char *c[4];

	wakers_init(&w, p, o, false);
	v = collect_pairs(&w, &n, &total);
	if (n)
		qsort(v, n, sizeof(*v), by_ns);
	rows = o->rows > 0 ? (size_t)o->rows : o->rows == 0 || !isatty(fileno(out)) ? n : TTY_ROWS;
	rows = rows < n ? rows : n;
	for (int k = 0; k < 4; k++)
		want[k] = min[k] = report_text_width(heads[k]);
	for (size_t i = 0; i < rows; i++)
		for (int k = 0; k < 4; k++) {
			size_t cw = cell_width(v[i].text, k);

			want[k] = cw > want[k] ? cw : want[k];
		}
	/* A thread's name needs no more; the stacks share what is left. */
	for (int k = 0; k < 4; k += 2)
		want[k] = want[k] < MAX_THREAD ? want[k] : MAX_THREAD;
	report_fit_columns(want, min, 4, report_text_columns(o, out, 21));
	sbuf_addf(&b,
		  "Sleeping: %.1f ms in all, by sleeper and waker, the longest first (stacks "
		  "innermost first without the kernel's frames, a library's as the function "
		  "called; --folded and --json have them whole)",
		  (double)total / 1e6);
	report_wrap(out, b.buf, (size_t)report_table_width(o, out), "          ");
	fputc('\n', out);
	fprintf(out, "%10s  %7s  ", "Sleep ms", "Share");
	report_cells(out, heads, want, 4, -1);
	for (size_t i = 0; i < rows; i++) {
		split(v[i].text, c);
		fprintf(out, "%10.1f  %6.1f%%  ", (double)v[i].ns / 1e6,
			total ? 100.0 * (double)v[i].ns / (double)total : 0.0);
		report_cells(out, (const char *const *)c, want, 4, -1);
	}
	if (rows < n)
		fprintf(out, "... %zu more pairs (-n 0 shows them all)\n", n - rows);
	if (!n)
		fputs("No sleep with its wake-up among the spans selected.\n", out);
	for (size_t i = 0; i < n; i++)
		free(v[i].text);
	free(v);
	sbuf_release(&b);
	wakers_release(&w);
	return 0;
}
