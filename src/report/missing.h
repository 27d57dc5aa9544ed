/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * missing.h - what a profile could not name: per module, the share of
 * its sampled frames without a name or without a source line, and why,
 * from the reasons the data file stores. Shown at the end of a recording
 * and in the top report.
 */
#ifndef PERFMINI_MISSING_H
#define PERFMINI_MISSING_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "store/profile.h"
#include "util/hmap.h"
#include "util/sbuf.h"

/* Per module, how many sampled frames have no name, and no source line. */
struct missing {
	uint32_t module; /* PM_NONE: frames in no known mapping */
	uint64_t frames, unnamed;
	uint64_t named, unplaced; /* frames with a name; of them, without a line */
	uint64_t samples;	  /* samples with a frame of the module and no name */
	uint64_t all_samples;	  /* the profile's samples */
	bool shows;		  /* the unnamed share, said to 0.1%, is not 0.0% */
	bool held;		  /* missing_sum: kept for the stop (report_missing_sum_forget) */
	uint8_t lines;		  /* the module's PM_MODULE_LINES reason, when it had frames */
};

/*
 * Per module of p, its counts (p->nmodules + 1 entries, the last for
 * frames in no known mapping), of which report_missing and
 * report_missing_lines choose; malloc'd.
 */
struct missing *report_missing_count(const struct profile *p);
/*
 * Adds counts add (of a profile with n modules, as report_missing_count
 * gives them) to *sum (of *nsum modules; NULL and 0 at first), grown to
 * n modules if it has fewer: the counts of a recording made of several
 * profiles whose module ids agree (the slices of one recording).
 */
void report_missing_add(struct missing **sum, size_t *nsum, const struct missing *add, size_t n);
/*
 * The same sum kept for the modules with sampled frames alone: a
 * recording of a machine that meets a hundred thousand programs and
 * samples a few of them keeps the counts of those few. Zeroed at first.
 *
 * Of the modules let go whose frames lacked names or lines, the stop
 * says the most lacking by name (their ids held: report_missing_sum_forget)
 * and the others by their number alone (more_names, more_lines): at most
 * MISSING_HELD are held, so that a storm of programs that vanish before
 * they can be read does not keep one module each.
 */
#define MISSING_HELD 16

struct missing_sum {
	struct missing *m; /* the modules with frames, in the order met */
	size_t n, cap;
	struct hmap at;	      /* module id (PM_NONE: no mapping) -> index in m */
	uint64_t all_samples; /* of every profile added */
	bool any;	      /* a profile was added */
	size_t nheld;	      /* entries held */
	/* Modules let go, not held, that the stop's lists would have said. */
	size_t more_names, more_lines;
};
/* Adds counts add, as report_missing_add does. */
void report_missing_sum_add(struct missing_sum *sum, const struct missing *add, size_t n);
/* Adds sum to counts (of a profile with n modules, as report_missing_count gives them). */
void report_missing_sum_into(const struct missing_sum *sum, struct missing *counts, size_t n);
void report_missing_sum_release(struct missing_sum *sum);
/*
 * Module id, let go, to be another module's: returns whether sum keeps
 * nothing of it now. Its counts are dropped when the stop would say
 * nothing of them (no frame lacked a name or a line, or too few), else
 * held under its id, for the stop to say by name, while fewer than
 * MISSING_HELD are, or while it lacks more than the least of those: that
 * one's id is then given in *demoted (else PM_NONE), whose counts are
 * now a number in more_names or more_lines, for its module to be let go
 * too. Otherwise id's counts go the same way.
 */
bool report_missing_sum_forget(struct missing_sum *sum, uint32_t id, uint32_t *demoted);
/*
 * The modules with unnamed sampled frames, those whose share shows first,
 * then most unnamed first; returns the count and a malloc'd array through
 * *out.
 */
size_t report_missing(const struct profile *p, struct missing **out);
/* How many of the n first modules of report_missing's answer m show. */
size_t report_missing_shown(const struct missing *m, size_t n);
/*
 * The modules whose named sampled frames lack source lines for a reason
 * recorded (PM_MODULE_LINES), 5% of them or more, most such frames first;
 * as above.
 */
size_t report_missing_lines(const struct profile *p, struct missing **out);
/*
 * Appends to b the sentence on m: the module's path (its base name with
 * base_name), the share of its frames without a name (or, with lines,
 * of its named frames without a source line), why and what would fix it.
 */
void report_missing_say(const struct profile *p, const struct missing *m, bool lines,
			bool base_name, struct sbuf *b);
/*
 * That sentence, after "perfmini: ", for each module whose unnamed share
 * shows (at most max), then for each with frames without lines.
 */
void report_print_missing(const struct profile *p, FILE *f, size_t max);
/*
 * The same from counts (p->nmodules + 1 entries, as report_missing_count
 * gives), sum's modules said by their number alone added (sum may be NULL).
 */
void report_print_missing_counts(const struct profile *p, const struct missing *counts,
				 const struct missing_sum *sum, FILE *f, size_t max);

#endif
