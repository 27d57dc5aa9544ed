/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top-int.h - between fmt-top.c (the table) and fmt-top-header.c (the
 * header above it), whose header fmt-tree.c prints too; nothing else
 * includes it.
 */
#ifndef PERFMINI_REPORT_TOP_INT_H
#define PERFMINI_REPORT_TOP_INT_H

#include <stddef.h>
#include <stdio.h>

#include "report/aggregate.h"
#include "report/report.h"

/* The header of --top: a "Label:   value" line each, wrapped to width. */
void top_print_header(const struct profile *p, const struct report_opts *o,
		      const struct aggregate *a, FILE *out, int width);

/* The noise bars of a --diff's rows: the tests' family, the rows marked, what a mark is on. */
struct top_noise {
	size_t family, marked;
	const char *marks; /* "a change": --top's; "a row's change": --tree's */
};

/*
 * --diff: what the reported recording is compared with, and how; the
 * noise of the changes (NULL: none, the view weighs time) at o's level.
 */
void top_print_compared(const struct report_opts *o, const struct aggregate *base,
			const struct top_noise *noise, FILE *out, int width);

#endif
