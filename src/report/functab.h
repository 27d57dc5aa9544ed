/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * functab.h - the function table of a report: a row per function (or, with
 * --sort module, per module; with a thread key, per function and thread),
 * its self and total counts in the recording reported and, with --diff, in
 * the base; what --top prints, and what the marks of a --diff are computed
 * over (noise.h), in every format that shows one.
 *
 * A function is one level of a frame (an inlined level is a function of
 * its own, named with "_[i]"), in one module; with --diff, a name alone
 * unless the key (report.h's diff_key) adds the module, and with the
 * thread in the key, a row per function and thread. Its self count is the
 * weight of the stacks whose innermost level it is; its total count the
 * weight of the stacks in which it appears at all, each stack counted once
 * however often the function recurses in it; a module's counts are the
 * same over the frames in it.
 *
 * Invariant: every level of every frame of the aggregates counted maps to
 * exactly one row; the rows' self counts add up to the aggregate's total.
 */
#ifndef PERFMINI_FUNCTAB_H
#define PERFMINI_FUNCTAB_H

#include <stdbool.h>
#include <stdint.h>

#include "report/aggregate.h"
#include "report/report.h"
#include "store/profile.h"
#include "util/hmap.h"

/* A row of the table. */
struct ft_row {
	uint32_t name, loc; /* strings: the function's name, FILE:LINE with --lines ("" else) */
	uint32_t module;    /* strings: the module's base name, of the first frame counted */
	uint32_t thread;    /* strings: the root's name with a thread key, else "" */
	uint32_t stamp;	    /* the last stack counted in total, + 1 */
	/* --diff: +1 when its self (total) share grew beyond the noise, -1 shrank, else 0 */
	int8_t self_mark, total_mark;
	int16_t pad;
	uint64_t self, total;
	uint64_t base_self, base_total; /* --diff: in the base recording */
	uint64_t self_records;		/* the records (samples, spans) behind self */
	/* --diff: the noise of the changes in share, half an interval, in points (noise.h) */
	double self_noise, total_noise;
};

/* What a side's frames are named as: per frame, its rows' functions. */
struct ft_side {
	const struct profile *p;
	uint32_t *level0;    /* frame -> index into levels + 1; 0 not yet named */
	uint32_t *module_of; /* frame -> its module's base name, once named */
};

struct functab {
	const struct report_opts *o;
	struct strtab str;
	struct ft_row *rows;
	size_t nrows, rows_cap;
	uint64_t samples, base_samples; /* the aggregates' totals */
	bool by_module;			/* --sort module: a row per module, not per function */
	bool no_module;			/* --sort without module: no module column, nor key */
	bool keyed_module;		/* functions of other modules apart (but in a --diff) */
	bool by_thread; /* --diff keyed on threads, --sort comm, pid, tid: a row per thread too */
	/* --diff: the noise's level, and the family its marks are corrected for (noise.h) */
	bool noise; /* the rows have their noise and marks (CPU samples compared) */
	size_t family;
	size_t marked; /* rows marked */

	/* Internal: the functions, and how frames are named. */
	struct ft_func {
		uint32_t name, loc;
	} * funcs;
	size_t nfuncs, funcs_cap;
	struct hmap func_index; /* key string offset -> index into funcs */
	struct hmap row_index;	/* with by_thread: func << 32 | thread -> index into rows */
	uint32_t *levels;	/* per frame, its functions, outermost first */
	size_t nlevels, levels_cap;
	struct ft_side side[2]; /* the recording reported, the base */
	struct sbuf b;
};

/*
 * The table of aggregate a of p and, with --diff, of base (an aggregate of
 * o->base; NULL without). With a diff, each row's noise and mark are
 * computed too (noise.h), at o->diff_level. Free with functab_free.
 */
struct functab *functab_new(const struct profile *p, const struct report_opts *o,
			    const struct aggregate *a, const struct aggregate *base);
void functab_free(struct functab *ft);

/*
 * The row of level (0 outermost) of frame f of the recording reported
 * (base false) or of the base, in the stack whose root is root (a's
 * roots' name, unsanitized; used with by_thread only).
 */
uint32_t functab_row(struct functab *ft, bool base, uint32_t f, uint32_t level, const char *root);

/*
 * Whether the stack g of aggregate a (of the base when base) holds a
 * function marked on its self share: what --diff-significant keeps.
 */
bool functab_stack_marked(struct functab *ft, const struct aggregate *a, const struct agg_stack *g,
			  bool base);

/* --diff: a row's change in share, in percentage points (new minus base). */
double functab_change(const struct functab *ft, uint64_t now, uint64_t before);

/* The name of a row's string. */
static inline const char *functab_str(const struct functab *ft, uint32_t s)
{
	return strtab_get(&ft->str, s);
}

#endif
