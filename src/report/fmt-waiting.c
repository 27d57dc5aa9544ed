/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-waiting.c - --latency --wakers: what the other threads of a process
 * were blocked on while its latency was spent.
 *
 * Each CPU sample the filters select weighs its latency (latency.h: its
 * period shared among its process's threads on a CPU then). The threads
 * of its process asleep at that moment (in an off-CPU span that went to
 * sleep, before the wake-up that ended it) share that weight equally,
 * each on the stack it went to sleep at; a sample of a process none of
 * whose other threads slept then weighs under "[no thread waiting]". So
 * the weights add up to the latency, and the heaviest rows are where the
 * program ran alone while its other threads waited.
 *
 * The folded form: the running thread's name and stack, outermost first,
 * a "--" frame, then the waiting thread's stack innermost first and its
 * name last, as --wakers folds a sleeper and its waker. The top form: a
 * row per running function (the innermost level of the sample's stack,
 * kernel frames left out), waiting thread and waiting stack (innermost
 * first, kernel frames left out), the heaviest first, cut to the width.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report/aggregate.h"
#include "report/latency.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/hash.h"
#include "util/hmap.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define NONE_WAITING "[no thread waiting]"
#define TTY_ROWS     25
#define MAX_NAME     24 /* columns for the running function at most */
#define MAX_THREAD   16 /* and for a thread's name (15 bytes in the kernel) */

/* A row: its text (folded: the line's stack; top: cells split by '\t') and weight. */
struct wrow {
	char *text;
	double ns;
};

struct waiting {
	const struct profile *p;
	const struct report_opts *o;
	bool folded;
	struct wrow *v;
	size_t n, cap;
	struct hmap ix; /* hash of text -> index + 1 */
	double total;
	uint32_t *frames;
	size_t frames_cap;
	struct sbuf run, b;
};

struct row_key {
	const struct waiting *w;
	const char *text;
};

static bool same_row(uint64_t val, const void *arg)
{
	const struct row_key *k = arg;

	return !strcmp(k->w->v[val - 1].text, k->text);
}

/* Adds ns to the row of text. */
static void add(struct waiting *w, const char *text, double ns)
{
	struct row_key k = {w, text};
	struct hmap_slot *s;
	bool added;

	s = hmap_intern(&w->ix, hash_bytes(text, strlen(text)) | 1, same_row, &k, &added);
	if (added) {
		xgrow(&w->v, &w->cap, w->n + 1, sizeof(*w->v));
		w->v[w->n] = (struct wrow){xstrdup(text), 0};
		s->val = ++w->n;
	}
	w->v[s->val - 1].ns += ns;
}

/* The frames of stack sid the kernel filters keep, into w->frames; -1: none kept. */
static int frames_of(struct waiting *w, uint32_t sid)
{
	xgrow(&w->frames, &w->frames_cap, w->p->stacks[sid].depth + 1, sizeof(*w->frames));
	return aggregate_stack_frames(w->o, w->p, sid, w->frames);
}

/* "comm", "comm-PID" or "comm-TID" as the roots are named. */
static void add_root(struct waiting *w, uint32_t comm, uint32_t pid, uint32_t tid, struct sbuf *b)
{
	sbuf_add_sanitized(b, strtab_get(&w->p->str, comm));
	if (w->o->root == REPORT_ROOT_PID)
		sbuf_addf(b, "-%u", pid);
	else if (w->o->root == REPORT_ROOT_TID)
		sbuf_addf(b, "-%u", tid);
}

/* The running side of sample s: its stack (folded) or its innermost function (top). */
static bool running(struct waiting *w, const struct pm_sample *s)
{
	int n = frames_of(w, s->stack);
	size_t at;

	if (n < 0)
		return false;
	sbuf_reset(&w->run);
	if (w->folded) {
		add_root(w, s->comm, s->pid, s->tid, &w->run);
		sbuf_adds(&w->run, ";");
		report_stack_text(w->p, &w->o->names, w->frames, n, true, false, ";", &w->run);
		sbuf_adds(&w->run, ";--;");
		return true;
	}
	report_stack_text(w->p, &w->o->names, w->frames, n, false, !w->o->kernel_only, "\t",
			  &w->run);
	at = strcspn(w->run.buf, "\t");
	sbuf_truncate(&w->run, at); /* the empty string may be read-only */
	if (!at)
		sbuf_adds(&w->run, "[no frames]");
	sbuf_adds(&w->run, "\t");
	return true;
}

/* Adds ns to the row of the running side and waiting span x (NULL: none waiting). */
static void add_waiter(struct waiting *w, const struct pm_offcpu *x, double ns)
{
	int n;

	sbuf_reset(&w->b);
	sbuf_addn(&w->b, w->run.buf, w->run.len);
	if (!x) {
		sbuf_adds(&w->b, w->folded ? NONE_WAITING : NONE_WAITING "\t");
	} else if (w->folded) {
		if ((n = frames_of(w, x->stack)) > 0) {
			report_stack_text(w->p, &w->o->names, w->frames, n, false, false, ";",
					  &w->b);
			sbuf_adds(&w->b, ";");
		}
		add_root(w, x->comm, x->pid, x->tid, &w->b);
	} else {
		sbuf_add_printable(&w->b, strtab_get(&w->p->str, x->comm));
		sbuf_adds(&w->b, "\t");
		n = frames_of(w, x->stack);
		report_stack_brief(w->p, &w->o->names, w->frames, n, w->o->kernel_only, " <- ",
				   &w->b);
	}
	add(w, w->b.buf, ns);
}

/* Whether span x slept at time t: switched out to sleep, not yet woken. */
static bool asleep(const struct profile *p, const struct pm_offcpu *x, uint64_t t)
{
	uint64_t sleeping, runnable;

	if (x->flags & PM_OFFCPU_PREEMPTED)
		return false;
	aggregate_offcpu_split(p, x, &sleeping, &runnable);
	return x->time <= t && t < x->time + sleeping;
}

static void at_sample(const struct latency_at *at, void *arg)
{
	struct waiting *w = arg;
	const struct pm_sample *s = &w->p->samples[at->sample];
	double ns = (double)s->period;
	uint32_t k = 0;

	if (!aggregate_selects(w->o, w->p, s) || !running(w, s))
		return;
	w->total += ns;
	for (uint32_t i = 0; i < at->nwaiting; i++)
		k += asleep(w->p, &w->p->offcpu[at->waiting[i]], s->time);
	if (!k) {
		add_waiter(w, NULL, ns);
		return;
	}
	for (uint32_t i = 0; i < at->nwaiting; i++)
		if (asleep(w->p, &w->p->offcpu[at->waiting[i]], s->time))
			add_waiter(w, &w->p->offcpu[at->waiting[i]], ns / k);
}

static void waiting_init(struct waiting *w, const struct profile *p, const struct report_opts *o,
			 bool folded)
{
	memset(w, 0, sizeof(*w));
	w->p = p;
	w->o = o;
	w->folded = folded;
	hmap_init(&w->ix);
	latency_walk(p, true, at_sample, w);
}

static void waiting_release(struct waiting *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i].text);
	free(w->v);
	free(w->frames);
	hmap_release(&w->ix);
	sbuf_release(&w->run);
	sbuf_release(&w->b);
}

static int by_text(const void *x, const void *y)
{
	return strcmp(((const struct wrow *)x)->text, ((const struct wrow *)y)->text);
}

static int by_ns(const void *x, const void *y)
{
	const struct wrow *a = x, *b = y;

	if (a->ns != b->ns)
		return a->ns > b->ns ? -1 : 1;
	return strcmp(a->text, b->text);
}

int fmt_waiting_folded(const struct report_data *d, FILE *out)
{
	struct waiting w;

	waiting_init(&w, d->p, d->o, true);
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), by_text);
	for (size_t i = 0; i < w.n; i++)
		if (w.v[i].ns >= 0.5)
			fprintf(out, "%s %.0f\n", w.v[i].text, w.v[i].ns);
	waiting_release(&w);
	return 0;
}

/* Row r's three text cells, split at its tabs (in place). */
static void cells(struct wrow *r, char **c)
{
	c[0] = r->text;
	c[1] = strchr(c[0], '\t');
	*c[1]++ = '\0';
	c[2] = strchr(c[1], '\t');
	*c[2]++ = '\0';
}

int fmt_waiting_top(const struct report_data *d, FILE *out)
{
	const struct profile *p = d->p;
	const struct report_opts *o = d->o;
	static const char *const heads[] = {"Running", "Waiting thread", "Waiting in"};
	size_t want[3], min[3], rows;
	struct waiting w;
	struct sbuf b = SBUF_INIT;
	char *c[3];

	waiting_init(&w, p, o, false);
	if (w.n)
		qsort(w.v, w.n, sizeof(*w.v), by_ns);
	rows = o->rows > 0			      ? (size_t)o->rows
	       : o->rows == 0 || !isatty(fileno(out)) ? w.n
						      : TTY_ROWS;
	rows = rows < w.n ? rows : w.n;
	for (int i = 0; i < 3; i++)
		want[i] = min[i] = report_text_width(heads[i]);
	for (size_t i = 0; i < rows; i++) {
		char *text = xstrdup(w.v[i].text);

		cells(&(struct wrow){text, 0}, c);
		for (int k = 0; k < 3; k++)
			if (report_text_width(c[k]) > want[k])
				want[k] = report_text_width(c[k]);
		free(text);
	}
	/* A function and a thread's name need no more; the stack takes what is left. */
	want[0] = want[0] < MAX_NAME ? want[0] : MAX_NAME;
	want[1] = want[1] < MAX_THREAD ? want[1] : MAX_THREAD;
	report_fit_columns(want, min, 3, report_text_columns(o, out, 21));
	sbuf_addf(&b,
		  "Latency: %.1f ms in all, by the function running (kernel frames left out) and "
		  "what each other thread of its process was asleep in meanwhile, with its share "
		  "of each sample's latency (stacks innermost first; --folded has them whole)",
		  w.total / 1e6);
	report_wrap(out, b.buf, (size_t)report_table_width(o, out), "         ");
	fputc('\n', out);
	fprintf(out, "%10s  %7s  ", "Latency ms", "Share");
	report_cells(out, heads, want, 3, -1);
	for (size_t i = 0; i < rows; i++) {
		cells(&w.v[i], c);
		fprintf(out, "%10.1f  %6.1f%%  ", w.v[i].ns / 1e6,
			w.total > 0 ? 100 * w.v[i].ns / w.total : 0.0);
		report_cells(out, (const char *const *)c, want, 3, 0);
	}
	if (rows < w.n)
		fprintf(out, "... %zu more rows (-n 0 shows them all)\n", w.n - rows);
	if (!w.n)
		fputs("No samples.\n", out);
	sbuf_release(&b);
	waiting_release(&w);
	return 0;
}
