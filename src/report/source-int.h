/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-int.h - the source files that --annotate (fmt-annotate.c) shows,
 * each read once, found where DWARF named it at the recording (unless the
 * data file is another user's: report_opts.own_sources) or under the
 * --source-dir directories: the recorded path below each, then that path
 * less its leading directories one by one.
 */
#ifndef PERFMINI_REPORT_SOURCE_INT_H
#define PERFMINI_REPORT_SOURCE_INT_H

#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "util/sbuf.h"

struct srcfile {
	char *path;	     /* as named */
	char *text;	     /* NULL: not found (or not readable) */
	const char **starts; /* each line's start, nlines of them */
	size_t nlines;
};

struct srcfiles {
	const struct report_opts *o;
	struct srcfile **files; /* each apart: a file's address stays while others are added */
	size_t nfiles;
	struct sbuf line; /* srcfile_line's text */
};

void srcfiles_init(struct srcfiles *a, const struct report_opts *o);
void srcfiles_release(struct srcfiles *a);
/* The source file named path, read the first time; its text NULL when not found. */
struct srcfile *srcfiles_get(struct srcfiles *a, const char *path);
/*
 * Line n (from 1) of f, tabs expanded to 8 columns, made printable
 * (valid until the next call); "" when f has no such line.
 */
const char *srcfile_line(struct srcfiles *a, struct srcfile *f, uint32_t n);

#endif
