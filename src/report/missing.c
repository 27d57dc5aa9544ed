/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * missing.c - counting a profile's unnamed and unplaced frames by module.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/missing.h"
#include "report/report.h"
#include "store/reasons.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/sbuf.h"
#include "util/utf8.h"

static int cmp_missing(const void *a, const void *b)
{
	const struct missing *x = a, *y = b;

	if (x->shows != y->shows)
		return x->shows ? -1 : 1;
	if (x->unnamed != y->unnamed)
		return x->unnamed > y->unnamed ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

static int cmp_unplaced(const void *a, const void *b)
{
	const struct missing *x = a, *y = b;

	if (x->unplaced != y->unplaced)
		return x->unplaced > y->unplaced ? -1 : 1;
	return x->module < y->module ? -1 : x->module > y->module;
}

/* The function of frame f (its outermost level), "" when it has no name. */
static const char *frame_func(const struct profile *p, const struct pm_frame *f)
{
	if (!f->nlines)
		return "";
	return strtab_get(&p->str, p->lines[f->line0 + f->nlines - 1].func);
}

/*
 * How many frames at the outer end of stack st are startup code that no
 * user compiles, and that has no source lines whoever builds the program:
 * crt1's _start, and the main that rustc generates to call
 * std::rt::lang_start. Their frames without lines are no reason to
 * rebuild anything.
 */
static uint32_t startup_frames(const struct profile *p, const struct pm_stack *st)
{
	static const char *const startup[] = {"_start", "_init", "__libc_start_main",
					      "__libc_start_main_impl", "__libc_start_call_main"};
	uint32_t n = 0;

	for (uint32_t d = st->depth; d-- > 0; n++) {
		const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];
		const char *func = frame_func(p, f), *inner;
		bool known = false;

		for (size_t i = 0; i < ARRAY_SIZE(startup); i++)
			known = known || !strcmp(func, startup[i]);
		if (known)
			continue;
		inner = d ? frame_func(p, &p->frames[p->stack_frames[st->off + d - 1]]) : "";
		if (!strcmp(func, "main") && !strncmp(inner, "std::rt::lang_start", 19))
			continue;
		break;
	}
	return n;
}

struct missing *report_missing_count(const struct profile *p)
{
	struct missing *m = xcalloc(p->nmodules + 1, sizeof(*m));
	uint64_t *weight = profile_stack_weights(p);

	/* Per module, 1 + the last stack whose samples it counted. */
	size_t *counted = xcalloc(p->nmodules + 1, sizeof(*counted));
	uint64_t all = 0;

	for (size_t i = 0; i <= p->nmodules; i++) {
		m[i].module = i < p->nmodules ? (uint32_t)i : PM_NONE;
		m[i].lines = i < p->nmodules ? (uint8_t)PM_MODULE_LINES(p->modules[i].flags) : 0;
	}
	for (size_t i = 0; i < p->nstacks; i++) {
		const struct pm_stack *st = &p->stacks[i];

		uint32_t user_depth = weight[i] ? st->depth - startup_frames(p, st) : 0;

		all += weight[i];
		for (uint32_t d = 0; d < st->depth && weight[i]; d++) {
			const struct pm_frame *f = &p->frames[p->stack_frames[st->off + d]];
			struct missing *x = &m[f->module == PM_NONE ? p->nmodules : f->module];

			x->frames += weight[i];
			if (!f->nlines) {
				x->unnamed += weight[i];
				if (counted[x - m] != i + 1) {
					x->samples += weight[i];
					counted[x - m] = i + 1;
				}
				continue;
			}
			x->named += weight[i];
			if (!p->lines[f->line0].file && d < user_depth)
				x->unplaced += weight[i];
		}
	}
	for (size_t i = 0; i <= p->nmodules; i++)
		m[i].all_samples = all;
	free(counted);
	free(weight);
	return m;
}

/* The counts of b added to a's, but for the module and the samples of all. */
static void add_counts(struct missing *a, const struct missing *b)
{
	a->frames += b->frames;
	a->unnamed += b->unnamed;
	a->named += b->named;
	a->unplaced += b->unplaced;
	a->samples += b->samples;
	if (b->lines)
		a->lines = b->lines;
}

void report_missing_add(struct missing **sum, size_t *nsum, const struct missing *add, size_t n)
{
	struct missing *m = *sum;

	if (!m || *nsum < n) {
		/* The slot of no module moves to the end. */
		struct missing none = m ? m[*nsum] : (struct missing){.module = PM_NONE};
		size_t from = m ? *nsum : 0;

		m = xrealloc(m, (n + 1) * sizeof(*m));
		for (size_t i = from; i < n; i++)
			m[i] = (struct missing){.module = (uint32_t)i,
						.all_samples = none.all_samples};
		m[n] = none;
		*sum = m;
		*nsum = n;
	}
	for (size_t i = 0; i <= n; i++) {
		add_counts(&m[i < n ? i : *nsum], &add[i]);
	}
	/* Every slot counts the samples of all the profiles added. */
	for (size_t i = 0; i <= *nsum; i++)
		m[i].all_samples += add[n].all_samples;
}

void report_missing_sum_add(struct missing_sum *sum, const struct missing *add, size_t n)
{
	for (size_t i = 0; i <= n; i++) {
		uint32_t id = i < n ? (uint32_t)i : PM_NONE;
		struct hmap_slot *slot;
		bool added;

		if (!add[i].frames)
			continue;
		slot = hmap_insert(&sum->at, id, &added);
		if (added) {
			xgrow(&sum->m, &sum->cap, sum->n + 1, sizeof(*sum->m));
			sum->m[sum->n] = (struct missing){.module = id};
			slot->val = sum->n++;
		}
		add_counts(&sum->m[slot->val], &add[i]);
	}
	sum->all_samples += add[n].all_samples;
	sum->any = true;
}

/* Whether the stop would say x by name: its unnamed share shows (select_unnamed). */
static bool says_names(const struct missing *x)
{
	return x->unnamed && x->unnamed * 1000 >= x->frames;
}

/* Whether the stop would say x by name among the modules without lines (select_lines). */
static bool says_lines(const struct missing *x)
{
	return x->unplaced && x->unplaced * 20 >= x->named && x->lines;
}

/* How much the stop has to say of x: what it lacks, of what it would say. */
static uint64_t lack(const struct missing *x)
{
	return (says_names(x) ? x->unnamed : 0) + (says_lines(x) ? x->unplaced : 0);
}

/* Entry at of sum dropped, the last put in its place. */
static void drop_entry(struct missing_sum *sum, size_t at)
{
	hmap_remove(&sum->at, sum->m[at].module, NULL);
	if (at != --sum->n) {
		sum->m[at] = sum->m[sum->n];
		hmap_find(&sum->at, sum->m[at].module)->val = at;
	}
}

/* Entry at of sum dropped, counted in the modules the stop says by their number. */
static void fold_entry(struct missing_sum *sum, size_t at)
{
	sum->more_names += says_names(&sum->m[at]);
	sum->more_lines += says_lines(&sum->m[at]);
	drop_entry(sum, at);
}

bool report_missing_sum_forget(struct missing_sum *sum, uint32_t id, uint32_t *demoted)
{
	struct hmap_slot *slot = hmap_find(&sum->at, id);
	size_t at, least = SIZE_MAX;

	*demoted = PM_NONE;
	if (!slot)
		return true;
	at = (size_t)slot->val;
	if (!lack(&sum->m[at])) {
		drop_entry(sum, at);
		return true;
	}
	if (sum->nheld < MISSING_HELD) {
		sum->m[at].held = true;
		sum->nheld++;
		return false;
	}
	for (size_t i = 0; i < sum->n; i++)
		if (sum->m[i].held &&
		    (least == SIZE_MAX || lack(&sum->m[i]) < lack(&sum->m[least])))
			least = i;
	if (least == SIZE_MAX || lack(&sum->m[at]) <= lack(&sum->m[least])) {
		fold_entry(sum, at);
		return true;
	}
	/* id takes the place of the least: that one's counts become a number. */
	sum->m[at].held = true;
	*demoted = sum->m[least].module;
	fold_entry(sum, least);
	return false;
}

void report_missing_sum_into(const struct missing_sum *sum, struct missing *counts, size_t n)
{
	for (size_t i = 0; i < sum->n; i++) {
		uint32_t id = sum->m[i].module;

		if (id == PM_NONE || id < n)
			add_counts(&counts[id == PM_NONE ? n : id], &sum->m[i]);
	}
	for (size_t i = 0; i <= n; i++)
		counts[i].all_samples += sum->all_samples;
}

void report_missing_sum_release(struct missing_sum *sum)
{
	free(sum->m);
	hmap_release(&sum->at);
	memset(sum, 0, sizeof(*sum));
}

/* The modules of report_missing_lines, from p's counts m (moved to the front). */
static size_t select_lines(const struct profile *p, struct missing *m)
{
	size_t n = 0;

	/*
	 * A few frames without lines are normal (PLT stubs, the C runtime's
	 * startup code): a module is listed from 5% of its named frames.
	 */
	for (size_t i = 0; i < p->nmodules; i++)
		if (says_lines(&m[i]))
			m[n++] = m[i];
	qsort(m, n, sizeof(*m), cmp_unplaced);
	return n;
}

size_t report_missing_lines(const struct profile *p, struct missing **out)
{
	*out = report_missing_count(p);
	return select_lines(p, *out);
}

size_t report_missing_shown(const struct missing *m, size_t n)
{
	size_t k = 0;

	while (k < n && m[k].shows)
		k++;
	return k;
}

/* The modules of report_missing, from p's counts m (moved to the front). */
static size_t select_unnamed(const struct profile *p, struct missing *m)
{
	size_t n = 0;

	for (size_t i = 0; i <= p->nmodules; i++) {
		/* The share said of it shows: 0.1% of its frames, or of the samples. */
		m[i].shows = i < p->nmodules ? says_names(&m[i])
					     : m[i].samples * 1000 >= m[i].all_samples;
		if (m[i].unnamed)
			m[n++] = m[i];
	}
	qsort(m, n, sizeof(*m), cmp_missing);
	return n;
}

size_t report_missing(const struct profile *p, struct missing **out)
{
	*out = report_missing_count(p);
	return select_unnamed(p, *out);
}

void report_missing_say(const struct profile *p, const struct missing *m, bool lines,
			bool base_name, struct sbuf *b)
{
	const struct pm_module *mod = m->module != PM_NONE ? &p->modules[m->module] : NULL;
	const char *name = mod ? strtab_get(&p->str, mod->path) : "[unknown]";
	const char *why, *fix;

	/* Paths come from other processes: shown printable. */
	sbuf_add_printable(b, base_name ? report_base_name(name) : name);
	if (lines) {
		enum module_lines r =
			mod ? (enum module_lines)PM_MODULE_LINES(mod->flags) : LINES_OK;

		sbuf_adds(b, ": ");
		sbuf_add_share(b, m->unplaced, m->named);
		sbuf_addf(b, " of %llu named frames have no source line",
			  (unsigned long long)m->named);
		why = module_lines_text(r);
		fix = module_lines_fix(r);
	} else {
		enum module_reason r =
			mod ? (enum module_reason)PM_MODULE_REASON(mod->flags) : REASON_NO_MAPPING;

		/*
		 * Frames in no mapping never have a name: what matters is how
		 * many samples they touch (a garbage chain can add a hundred).
		 */
		if (mod) {
			sbuf_adds(b, ": ");
			sbuf_add_share(b, m->unnamed, m->frames);
			sbuf_addf(b, " of %llu sampled frames have no name",
				  (unsigned long long)m->frames);
		} else {
			sbuf_addf(b, ": %llu frame%s in %llu of %llu samples (",
				  (unsigned long long)m->unnamed, m->unnamed == 1 ? "" : "s",
				  (unsigned long long)m->samples,
				  (unsigned long long)m->all_samples);
			sbuf_add_share(b, m->samples, m->all_samples);
			sbuf_adds(b, ") have no name");
		}
		why = module_reason_text(r);
		fix = module_reason_fix(r);
	}
	if (*why)
		sbuf_addf(b, ": %s", why);
	if (*why && *fix)
		sbuf_addf(b, "; %s", fix);
}

void report_print_missing(const struct profile *p, FILE *f, size_t max)
{
	struct missing *counts = report_missing_count(p);

	report_print_missing_counts(p, counts, NULL, f, max);
	free(counts);
}

void report_print_missing_counts(const struct profile *p, const struct missing *counts,
				 const struct missing_sum *sum, FILE *f, size_t max)
{
	struct sbuf b = SBUF_INIT;

	for (int lines = 0; lines < 2; lines++) {
		struct missing *m = xmalloc((p->nmodules + 1) * sizeof(*m));
		size_t n, more;

		memcpy(m, counts, (p->nmodules + 1) * sizeof(*m));
		more = sum ? (lines ? sum->more_lines : sum->more_names) : 0;
		n = lines ? select_lines(p, m) : select_unnamed(p, m);
		if (!lines)
			n = report_missing_shown(m, n);
		for (size_t i = 0; i < n && i < max; i++) {
			sbuf_reset(&b);
			report_missing_say(p, &m[i], lines, false, &b);
			fprintf(f, "perfmini: %s\n", b.buf);
		}
		/* Those said by their number: let go, each lacking less than those said. */
		if (n + more > max)
			fprintf(f, "perfmini: and %zu more modules with frames without %s\n",
				n + more - (n < max ? n : max), lines ? "source lines" : "names");
		free(m);
	}
	sbuf_release(&b);
}
