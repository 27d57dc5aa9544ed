/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fmt-top-header.c - the header of the default report: what was
 * recorded (command, event, duration, samples, losses), how its stacks
 * were unwound, and what could not be named, with what to do about it.
 * Its sentences wrap at spaces to the width given.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/aggregate.h"
#include "report/missing.h"
#include "report/noise.h"
#include "report/report.h"
#include "report/top-int.h"
#include "util/alloc.h"
#include "util/parse.h"
#include "util/sbuf.h"
#include "util/utf8.h"

#define HEADER_INDENT 10
#define MAX_MISSING   3

/* "Label:   value", the value wrapped at spaces to width, continuation indented. */
static void header_line(FILE *out, int width, const char *label, const char *value)
{
	size_t room = width > HEADER_INDENT + 10 ? (size_t)width - HEADER_INDENT : 10;
	const char *s = value;

	fprintf(out, "%-*s", HEADER_INDENT, label);
	for (;;) {
		size_t len = strlen(s), cut = len;

		if (report_text_width(s) > room) {
			/* The last space within room columns, else the first one after. */
			size_t cols = 0, i, last = 0;

			for (i = 0; s[i] && cols <= room; i++) {
				if (((unsigned char)s[i] & 0xc0) != 0x80)
					cols++;
				if (s[i] == ' ' && cols <= room + 1)
					last = i;
			}
			if (!last) {
				const char *sp = strchr(s, ' ');

				last = sp ? (size_t)(sp - s) : len;
			}
			cut = last;
		}
		fwrite(s, 1, cut, out);
		fputc('\n', out);
		s += cut;
		while (*s == ' ')
			s++;
		if (!*s)
			return;
		fprintf(out, "%*s", HEADER_INDENT, "");
	}
}

static const char *meta(const struct profile *p, const char *key)
{
	const char *v = profile_get_meta(p, key);

	return v ? v : "";
}

static void print_missing(const struct profile *p, FILE *out, int width)
{
	struct sbuf b = SBUF_INIT;

	for (int lines = 0; lines < 2; lines++) {
		struct missing *m;
		size_t n = lines ? report_missing_lines(p, &m) : report_missing(p, &m);
		const char *title = lines ? "Lines:" : "Symbols:";

		if (n == 0 && !lines)
			header_line(out, width, title, "every sampled frame has a name");
		else if (!lines && !m[0].shows)
			header_line(
				out, width, title,
				"in every module, under 0.1% of the sampled frames have no name");
		if (!lines)
			n = report_missing_shown(m, n);
		for (size_t i = 0; i < n && i < MAX_MISSING; i++) {
			sbuf_reset(&b);
			report_missing_say(p, &m[i], lines, true, &b);
			header_line(out, width, i ? "" : title, b.buf);
		}
		if (n > MAX_MISSING) {
			sbuf_reset(&b);
			sbuf_addf(&b, "and %zu more modules with frames without %s",
				  n - MAX_MISSING, lines ? "source lines" : "names");
			header_line(out, width, "", b.buf);
		}
		free(m);
	}
	sbuf_release(&b);
}

/*
 * Recordings that unwound stacks (hybrid and DWARF modes): the share of
 * user stacks that reached the entry, how they were found, and where and
 * why the others stopped (the "unwind-cut" meta lines).
 */
static int cmp_cut_line(const void *a, const void *b)
{
	unsigned long long x = strtoull(*(const char *const *)a, NULL, 10);
	unsigned long long y = strtoull(*(const char *const *)b, NULL, 10);

	return x < y ? 1 : x > y ? -1 : 0;
}

/* The starts of the lines of cut, by their leading count, largest first (*lines allocated). */
static size_t sorted_cut_lines(const char *cut, const char ***lines)
{
	size_t n = 0, cap = 0;

	*lines = NULL;
	for (const char *l = cut; *l;) {
		const char *nl = strchr(l, '\n');

		xgrow(lines, &cap, n + 1, sizeof(**lines));
		(*lines)[n++] = l;
		if (!nl)
			break;
		l = nl + 1;
	}
	if (n)
		qsort(*lines, n, sizeof(**lines), cmp_cut_line);
	return n;
}

static void print_unwinding(const struct profile *p, FILE *out, int width)
{
	uint64_t stacks = 0, complete = 0, cfi = 0, spliced = 0, fp = 0;
	const char *mode = meta(p, "call-graph"), *cut = meta(p, "unwind-cut");
	struct sbuf b = SBUF_INIT;
	const char **lines;
	size_t nlines;
	int shown = 0;

	/* A file cut short has no counts: they are settled at the stop. */
	if ((strcmp(mode, "dwarf") != 0 && strcmp(mode, "hybrid") != 0) ||
	    !profile_get_meta(p, "unwind-stacks"))
		return;
	parse_u64(meta(p, "unwind-stacks"), &stacks);
	parse_u64(meta(p, "unwind-complete"), &complete);
	sbuf_addf(&b, "%s unwinding: %llu of %llu user stacks (%.1f%%) reached the entry",
		  strcmp(mode, "dwarf") ? "hybrid" : "DWARF", (unsigned long long)complete,
		  (unsigned long long)stacks,
		  stacks ? 100.0 * (double)complete / (double)stacks : 100.0);
	/* How they were found: recordings before hybrid mode do not say. */
	if (!parse_u64(meta(p, "unwind-by-cfi"), &cfi) &&
	    !parse_u64(meta(p, "unwind-spliced"), &spliced) &&
	    !parse_u64(meta(p, "unwind-fp-only"), &fp) && !strcmp(mode, "hybrid"))
		sbuf_addf(&b,
			  "; %llu by unwind tables alone, %llu spliced onto frame pointers, %llu "
			  "frame pointers only",
			  (unsigned long long)cfi, (unsigned long long)spliced,
			  (unsigned long long)fp);
	header_line(out, width, "Stacks:", b.buf);
	/* "COUNT\tREASON\tMODULE\n" lines, in no order: the most stacks first. */
	nlines = sorted_cut_lines(cut, &lines);
	for (size_t i = 0; i < nlines && shown < MAX_MISSING; i++) {
		const char *nl, *t1, *t2;
		size_t len;

		cut = lines[i];
		nl = strchr(cut, '\n');
		t1 = strchr(cut, '\t');
		len = nl ? (size_t)(nl - cut) : strlen(cut);
		t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		if (t1 && t2 && t2 < cut + len) {
			sbuf_reset(&b);
			sbuf_addn(&b, cut, (size_t)(t1 - cut));
			sbuf_adds(&b, " cut short in ");
			{
				struct sbuf mod = SBUF_INIT;

				sbuf_addn(&mod, t2 + 1, (size_t)(cut + len - t2 - 1));
				sbuf_add_sanitized(&b, report_base_name(mod.buf));
				sbuf_release(&mod);
			}
			sbuf_adds(&b, ": ");
			sbuf_addn(&b, t1 + 1, (size_t)(t2 - t1 - 1));
			header_line(out, width, "", b.buf);
			shown++;
		}
	}
	free(lines);
	sbuf_release(&b);
}

/*
 * Where the recording's spans ended: at their threads' picks (CPU-wide
 * switch records), or at their own switch-in records, later by the
 * switch's cost.
 */
static void add_span_ends(const struct profile *p, struct sbuf *b)
{
	uint64_t spans, picked;

	if (parse_u64(meta(p, "off-cpu-spans"), &spans) ||
	    parse_u64(meta(p, "off-cpu-picked"), &picked) || !spans)
		return;
	sbuf_addf(b, "; %.0f%% of the spans end where their thread was picked to run",
		  100.0 * (double)picked / (double)spans);
	if (picked * 2 < spans)
		sbuf_adds(b, ", the rest at its switch-in, after the switch (no pick recorded: no "
			     "CPU-wide switch events, or a CPU leaving its idle task wrote none)");
}

/*
 * How many wake-ups the kernel sampled: with -p or -t, those of the
 * targets' threads alone where the kernel filtered them, else every
 * wake-up of the machine, each at a cost to the thread that woke.
 */
static void add_wake_samples(const struct profile *p, struct sbuf *b)
{
	const char *filter = meta(p, "wake-filter");
	uint64_t n;

	if (parse_u64(meta(p, "wake-samples"), &n))
		return;
	sbuf_addf(b, "; %llu wake-ups sampled", (unsigned long long)n);
	if (!strcmp(filter, "threads"))
		sbuf_adds(b, ", of the targets' threads alone (a filter in the kernel)");
	else if (*filter)
		sbuf_adds(b, ", every wake-up of the machine at the end (no filter in the kernel: "
			     "too many threads, threads coming and going too fast, or refused)");
}

/* What the recorder gave up to keep within --max-memory, if it had to. */
static void print_memory(const struct profile *p, FILE *out, int width)
{
	struct sbuf b = SBUF_INIT;
	uint64_t peak = 0, budget = 0;
	char h[2][32];

	if (!*meta(p, "memory-budget"))
		return;
	parse_u64(meta(p, "memory-peak"), &peak);
	parse_u64(meta(p, "max-memory"), &budget);
	size_text(peak, h[0], sizeof(h[0]));
	size_text(budget, h[1], sizeof(h[1]));
	sbuf_addf(&b, "peak %s of a %s budget (--max-memory): ", h[0], h[1]);
	sbuf_add_sanitized(&b, meta(p, "memory-budget"));
	sbuf_adds(&b, " (named here from the files found now)");
	header_line(out, width, "Memory:", b.buf);
	sbuf_release(&b);
}

/* The Weight and Off-CPU lines of a view other than the CPU samples'. */
static void print_weight(const struct profile *p, const struct report_opts *o,
			 const struct aggregate *a, FILE *out, int width)
{
	struct sbuf sb = SBUF_INIT, *b = &sb;

	if (o->sample_type == REPORT_LATENCY) {
		sbuf_addf(
			b,
			"%.1f ms of latency (--latency): each sample's period shared among the "
			"threads of its process on a CPU then; Self, Total in ms and their shares; "
			"CPU%%: the share of the samples",
			(double)a->samples / 1e6);
		header_line(out, width, "Weight:", b->buf);
		sbuf_release(b);
		return;
	}
	sbuf_addf(b, "%.1f ms %s (--sample-type); Self and Total in ms", (double)a->samples / 1e6,
		  o->sample_type == REPORT_OFF_CPU ? "off CPU"
						   : "of wall time: CPU periods and off-CPU time");
	header_line(out, width, "Weight:", b->buf);
	sbuf_reset(b);
	if (meta(p, "off-cpu") && !strcmp(meta(p, "off-cpu"), "no"))
		sbuf_adds(b, "not recorded (record --off-cpu): there is no off-CPU time");
	else if (meta(p, "wake-ups") && !strcmp(meta(p, "wake-ups"), "yes"))
		sbuf_addf(b,
			  "%.1f ms sleeping (until woken), %.1f ms runnable (woken or "
			  "preempted, waiting for a CPU); %.1f ms blocked, %.1f ms preempted",
			  (double)a->sleeping_ns / 1e6, (double)a->runnable_ns / 1e6,
			  (double)a->blocked_ns / 1e6, (double)a->preempted_ns / 1e6);
	else
		sbuf_addf(b, "%.1f ms blocked, %.1f ms preempted (switched out while runnable)",
			  (double)a->blocked_ns / 1e6, (double)a->preempted_ns / 1e6);
	add_span_ends(p, b);
	add_wake_samples(p, b);
	header_line(out, width, "Off-CPU:", b->buf);
	sbuf_release(b);
}

void top_print_header(const struct profile *p, const struct report_opts *o,
		      const struct aggregate *a, FILE *out, int width)
{
	const char *freq = profile_get_meta(p, "frequency");
	const char *period = profile_get_meta(p, "period");
	const char *dur = profile_get_meta(p, "duration-ns");
	uint64_t v, lost_s = 0, lost_r = 0;
	struct sbuf b = SBUF_INIT;
	bool spans_only = !strcmp(meta(p, "off-cpu"), "only"); /* no CPU samples */

	sbuf_add_sanitized(&b, meta(p, "command"));
	header_line(out, width, "Command:", b.buf);
	sbuf_reset(&b);
	if (spans_only) {
		sbuf_adds(&b, "none: off-CPU spans only (record --off-cpu-only)");
	} else {
		sbuf_add_sanitized(&b, *meta(p, "event") ? meta(p, "event") : "unknown");
		if (freq)
			sbuf_addf(&b, ", %s samples per second (-F)", freq);
		else if (period)
			sbuf_addf(&b, ", one sample every %s events (-c)", period);
	}
	if (*meta(p, "kernel-excluded")) {
		/* The kernel was not sampled at all, and why. */
		sbuf_adds(&b, "; user code only (");
		sbuf_add_sanitized(&b, meta(p, "kernel-excluded"));
		sbuf_adds(&b, ")");
	}
	header_line(out, width, "Event:", b.buf);
	sbuf_reset(&b);
	if (dur && parse_u64(dur, &v) == 0)
		sbuf_addf(&b, "%.2f s", (double)v / 1e9);
	else
		sbuf_adds(&b, "unknown");
	if (p->cut_at)
		sbuf_addf(&b,
			  "; cut short (the recorder was killed, or is still recording): "
			  "samples up to %.2f s",
			  (double)p->cut_time / 1e9);
	header_line(out, width, "Duration:", b.buf);
	sbuf_reset(&b);
	sbuf_addf(&b, "%zu", spans_only ? p->noffcpu : p->nsamples);
	if (aggregate_filtered(o)) {
		if (o->sample_type == REPORT_CPU)
			sbuf_addf(&b, ", %llu shown (", (unsigned long long)a->samples);
		else
			sbuf_addf(&b, ", %.1f ms shown (", (double)a->samples / 1e6);
		aggregate_describe(o, &b);
		sbuf_adds(&b, ")");
	}
	header_line(out, width, spans_only ? "Spans:" : "Samples:", b.buf);
	if (o->sample_type != REPORT_CPU)
		print_weight(p, o, a, out, width);
	sbuf_reset(&b);
	parse_u64(meta(p, "lost-samples"), &lost_s);
	parse_u64(meta(p, "lost-records"), &lost_r);
	if (lost_s || lost_r)
		sbuf_addf(&b, "%llu record%s (ring buffers full), %llu sample%s",
			  (unsigned long long)lost_r, lost_r == 1 ? "" : "s",
			  (unsigned long long)lost_s, lost_s == 1 ? "" : "s");
	else
		sbuf_adds(&b, "none");
	header_line(out, width, "Lost:", b.buf);
	print_memory(p, out, width);
	if (*meta(p, "names-kept")) {
		sbuf_reset(&b);
		sbuf_add_sanitized(&b, meta(p, "names-kept"));
		sbuf_adds(&b, " frames named from the names kept by earlier recordings of the same "
			      "builds, without reading them again");
		header_line(out, width, "Kept:", b.buf);
	}
	print_unwinding(p, out, width);
	print_missing(p, out, width);
	sbuf_release(&b);
}

void top_print_compared(const struct report_opts *o, const struct aggregate *base,
			const struct top_noise *noise, FILE *out, int width)
{
	const struct profile *b = o->base;
	const char *dur = profile_get_meta(b, "duration-ns");
	struct sbuf s = SBUF_INIT;
	uint64_t v;

	sbuf_add_sanitized(&s, o->base_input ? o->base_input : "the base");
	sbuf_addf(&s, ", %llu samples", (unsigned long long)base->samples);
	if (dur && parse_u64(dur, &v) == 0)
		sbuf_addf(&s, " in %.2f s", (double)v / 1e9);
	if (*meta(b, "command")) {
		sbuf_adds(&s, ": ");
		sbuf_add_sanitized(&s, meta(b, "command"));
	}
	header_line(out, width, "Base:", s.buf);
	sbuf_reset(&s);
	sbuf_addf(&s,
		  "each function's share of its own recording's total, so that recordings "
		  "of different lengths compare; Change is New minus Base, in points; "
		  "functions matched by name%s%s, not by address",
		  o->diff_key & REPORT_KEY_MODULE ? " and module" : "",
		  o->diff_key & REPORT_KEY_THREAD ? " and thread" : "");
	if (o->merge_inline)
		sbuf_adds(&s, "; inlined functions counted in their callers (--merge-inline)");
	header_line(out, width, "Compared:", s.buf);
	sbuf_reset(&s);
	if (noise) {
		sbuf_addf(&s,
			  "half of each change's interval, in points, from the sample counts "
			  "(binomial; at %g%% for the table as a whole, %zu tests that could "
			  "pass); '*' marks %s beyond it: %zu %s marked%s",
			  100 * (o->diff_level > 0 ? o->diff_level : NOISE_LEVEL), noise->family,
			  noise->marks, noise->marked, noise->marked == 1 ? "row" : "rows",
			  o->diff_significant ? ", and shown alone (--diff-significant)" : "");
		header_line(out, width, "Noise:", s.buf);
	}
	sbuf_release(&s);
}
