/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-script.c - the samples one by one, for scripts, as people use perf
 * script: --script writes a line of text per sample, --json a JSON object
 * per line. Both list every sample the filters select, in time order
 * (samples of equal time in the file's order), each with its time, pid,
 * tid, cpu, period, thread name and named frames.
 *
 * --script:  TIME PID TID CPU PERIOD COMM<TAB>FRAME;...;FRAME
 *   frames outermost first and named as in the folded format, so the part
 *   after the tab, prefixed with COMM, is a folded stack;
 * --json:    {"time": ..., ..., "frames": [{...}, ...]}
 *   frames innermost first (where the CPU was comes first, as perf script
 *   prints them), each inlined level an object of its own.
 * The grammar is in perfmini-report(1). A stack is named once and reused
 * for every sample of it.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/sbuf.h"
#include "util/utf8.h"

struct script {
	const struct profile *p;
	const struct report_opts *o;
	bool json;
	uint64_t (*span)[2]; /* stack -> its text: offset + 1 in names, length; 0 none yet */
	struct sbuf names;   /* every named stack, one after the other */
	struct sbuf b;
	uint32_t *frames; /* scratch: a stack's frames after the kernel filters */
	size_t frames_cap;
};

/* The frames of stack sid the kernel filters keep, leaf first; -1 to drop the sample. */
static int kept_frames(struct script *s, uint32_t sid)
{
	xgrow(&s->frames, &s->frames_cap, s->p->stacks[sid].depth + 1, sizeof(*s->frames));
	return aggregate_stack_frames(s->o, s->p, sid, s->frames);
}

/* The JSON object of one level of frame f. */
static void json_level(struct script *s, uint32_t f, uint32_t level, struct sbuf *b)
{
	const struct profile *p = s->p;
	const struct pm_frame *fr = &p->frames[f];
	const struct pm_line *l = report_level_line(p, f, level, &s->o->names);
	struct name_opts plain = {.no_inline = s->o->names.no_inline};

	sbuf_reset(&s->b);
	if (l && *strtab_get(&p->str, l->func))
		sbuf_adds(&s->b, strtab_get(&p->str, l->func));
	else if (l)
		sbuf_adds(&s->b, "[unknown]");
	else
		report_unresolved_name(p, f, &s->b);
	sbuf_adds(b, "{\"name\":");
	sbuf_add_json(b, s->b.buf);
	/* The name as the folded format prints it, annotations and all. */
	sbuf_reset(&s->b);
	report_level_name(p, f, level, &plain, &s->b);
	sbuf_adds(b, ",\"folded\":");
	sbuf_add_json(b, s->b.buf);
	sbuf_adds(b, ",\"module\":");
	if (fr->module == PM_NONE)
		sbuf_adds(b, "null");
	else
		sbuf_add_json(b, strtab_get(&p->str, p->modules[fr->module].path));
	sbuf_addf(b, ",\"addr\":\"0x%" PRIx64 "\"", fr->addr);
	if (l && l->file && *strtab_get(&p->str, l->file)) {
		sbuf_adds(b, ",\"file\":");
		sbuf_add_json(b, strtab_get(&p->str, l->file));
	}
	if (l && l->line)
		sbuf_addf(b, ",\"line\":%u", l->line);
	sbuf_addf(b, ",\"inlined\":%s,\"kernel\":%s}",
		  l && (l->flags & PM_LINE_INLINED) ? "true" : "false",
		  fr->flags & PM_FRAME_KERNEL ? "true" : "false");
}

/* The text of stack sid, made once: the frames part of a line. */
static void stack_text(struct script *s, uint32_t sid, int n, const char **text, size_t *len)
{
	const struct profile *p = s->p;

	if (!s->span[sid][0]) {
		size_t at = s->names.len;

		if (s->json) {
			bool first = true;

			/* Innermost first: the leaf frame's innermost level leads. */
			for (int d = 0; d < n; d++) {
				uint32_t f = s->frames[d];

				for (uint32_t k = report_frame_levels(p, f, &s->o->names);
				     k-- > 0;) {
					if (!first)
						sbuf_adds(&s->names, ",");
					first = false;
					json_level(s, f, k, &s->names);
				}
			}
		} else {
			for (int d = n; d-- > 0;) {
				report_frame_names(p, s->frames[d], &s->o->names, ";", &s->names);
				if (d)
					sbuf_adds(&s->names, ";");
			}
		}
		s->span[sid][0] = at + 1;
		s->span[sid][1] = s->names.len - at;
	}
	*text = s->names.buf + s->span[sid][0] - 1;
	*len = s->span[sid][1];
}

static int cmp_time(const void *a, const void *b, void *arg)
{
	const struct pm_sample *items = arg;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint64_t x = items[i].time, y = items[j].time;

	return x < y ? -1 : x > y ? 1 : (i > j) - (i < j);
}

/* Items in time order: their own order, which recordings keep, else sorted. */
static uint32_t *time_order(const struct pm_sample *items, size_t n)
{
	uint32_t *order = xcalloc(n ? n : 1, sizeof(*order));
	bool sorted = true;

	for (size_t i = 0; i < n; i++) {
		order[i] = (uint32_t)i;
		if (i && items[i].time < items[i - 1].time)
			sorted = false;
	}
	if (!sorted)
		qsort_r(order, n, sizeof(*order), cmp_time, (void *)items);
	return order;
}

/*
 * The lines of the view: the samples (cpu); or the off-CPU spans the
 * filters select, each as a sample whose period is its time in the
 * selected state, in ns (off-cpu), after the samples (wall). Spans from
 * *nspans on, their indexes in p->offcpu in (*span_of)[item - *nspans]
 * (malloc'd, NULL without spans); the samples themselves when there are
 * no spans.
 */
static const struct pm_sample *view_items(const struct profile *p, const struct report_opts *o,
					  size_t *n, size_t *nspans, uint32_t **span_of)
{
	struct pm_sample *items;
	size_t k = 0;

	*span_of = NULL;
	*nspans = *n = o->sample_type == REPORT_OFF_CPU ? 0 : p->nsamples;
	if (!report_has_spans(o->sample_type) || !p->noffcpu)
		return p->samples;
	items = xcalloc(*n + p->noffcpu, sizeof(*items));
	*span_of = xcalloc(p->noffcpu, sizeof(**span_of));
	if (*n)
		memcpy(items, p->samples, *n * sizeof(*items));
	for (size_t i = 0; i < p->noffcpu; i++)
		if (aggregate_selects_offcpu(o, p, &p->offcpu[i], &items[*n + k]))
			(*span_of)[k++] = (uint32_t)i;
	*n += k;
	return items;
}

/*
 * --json, a sleep that a wake-up ended: its sleeping time, and its waker
 * with the waker's whole stack (innermost first, the kernel filters
 * applied), into b.
 */
static void json_waker(struct script *s, const struct pm_offcpu *x, struct sbuf *b)
{
	const struct profile *p = s->p;
	uint64_t sleeping, runnable;
	const struct pm_wakeup *w = aggregate_offcpu_split(p, x, &sleeping, &runnable);
	const char *text;
	size_t len;
	int n;

	if (!w)
		return;
	sbuf_addf(b, ",\"sleeping_ns\":%" PRIu64 ",\"waker\":{\"pid\":%u,\"tid\":%u,\"comm\":",
		  sleeping, w->pid, w->tid);
	sbuf_add_json(b, strtab_get(&p->str, w->comm));
	sbuf_adds(b, ",\"frames\":[");
	if ((n = kept_frames(s, w->stack)) > 0) {
		stack_text(s, w->stack, n, &text, &len);
		sbuf_addn(b, text, len);
	}
	sbuf_adds(b, "]}");
}

static int run(const struct profile *p, const struct report_opts *o, FILE *out, bool json)
{
	struct script s = {.p = p, .o = o, .json = json, .names = SBUF_INIT, .b = SBUF_INIT};
	struct sbuf comm = SBUF_INIT, waker = SBUF_INIT;
	size_t nitems, nspans;
	uint32_t *span_of;
	const struct pm_sample *items = view_items(p, o, &nitems, &nspans, &span_of);
	uint32_t *order = time_order(items, nitems);

	s.span = xcalloc(p->nstacks ? p->nstacks : 1, sizeof(*s.span));
	for (size_t i = 0; i < nitems; i++) {
		const struct pm_sample *x = &items[order[i]];
		bool off_cpu = order[i] >= nspans;
		const char *text;
		size_t len;
		int n;

		if (!off_cpu && !aggregate_selects(o, p, x))
			continue;
		/* First: the waker's stack, named into s.names, would move the line's. */
		sbuf_reset(&waker);
		if (json && off_cpu)
			json_waker(&s, &p->offcpu[span_of[order[i] - nspans]], &waker);
		n = kept_frames(&s, x->stack);
		if (n < 0)
			continue;
		stack_text(&s, x->stack, n, &text, &len);
		sbuf_reset(&comm);
		if (json) {
			sbuf_add_json(&comm, strtab_get(&p->str, x->comm));
			sbuf_adds(&comm, ",\"cgroup\":");
			sbuf_add_json(&comm, strtab_get(&p->str, x->cgroup));
			sbuf_addn(&comm, waker.buf, waker.len);
			fprintf(out,
				"{\"time\":%" PRIu64 ".%09" PRIu64 ",\"time_ns\":%" PRIu64
				",\"pid\":%u,\"tid\":%u,\"cpu\":%u,\"period\":%" PRIu64
				",\"off_cpu\":%s,\"comm\":%s,\"frames\":[",
				x->time / 1000000000, x->time % 1000000000, x->time, x->pid, x->tid,
				x->cpu, x->period, off_cpu ? "true" : "false", comm.buf);
			fwrite(text, 1, len, out);
			fputs("]}\n", out);
		} else {
			sbuf_add_sanitized(&comm, strtab_get(&p->str, x->comm));
			fprintf(out, "%" PRIu64 ".%09" PRIu64 " %u %u %u %" PRIu64 " %s\t",
				x->time / 1000000000, x->time % 1000000000, x->pid, x->tid, x->cpu,
				x->period, comm.buf);
			fwrite(text, 1, len, out);
			fputc('\n', out);
		}
	}
	if (items != p->samples)
		free((void *)items);
	free(span_of);
	free(order);
	free(s.span);
	free(s.frames);
	sbuf_release(&s.names);
	sbuf_release(&s.b);
	sbuf_release(&comm);
	sbuf_release(&waker);
	return 0;
}

int fmt_script(const struct report_data *d, FILE *out)
{
	return run(d->p, d->o, out, false);
}

int fmt_json(const struct report_data *d, FILE *out)
{
	return run(d->p, d->o, out, true);
}
