/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * source-int.h - the source files that --annotate (fmt-annotate.c) shows,
 * each read once, found where DWARF named it at the recording or under
 * the --source-dir directories: the recorded path below each, then that
 * path less its leading directories one by one, never outside the
 * directory (no "..", no link that leads out).
 *
 * A path as recorded is read only when the module whose debug
 * information names it may be trusted with it (srcfiles_may_read): a
 * user's program may name /etc/shadow (#line), and root's report must
 * not print it. Files of the kernel's file systems (/proc, /sys) are
 * never read.
 */
#ifndef PERFMINI_REPORT_SOURCE_INT_H
#define PERFMINI_REPORT_SOURCE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "util/sbuf.h"

struct srcfile {
	char *path;	     /* as named */
	bool by_path;	     /* looked for at path itself, not only under --source-dir */
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
/*
 * Whether the files named by the debug information of a module of owner
 * (pm_module.owner) may be read where they are: the data file is ours
 * (report_opts.own_sources), and the module's file was ours or root's.
 */
bool srcfiles_may_read(const struct srcfiles *a, uint32_t owner);
/*
 * The source file named path, read the first time (by_path: at path
 * itself first, as srcfiles_may_read allows); its text NULL when not
 * found.
 */
struct srcfile *srcfiles_get(struct srcfiles *a, const char *path, bool by_path);
/*
 * Line n (from 1) of f, tabs expanded to 8 columns, made printable
 * (valid until the next call); "" when f has no such line.
 */
const char *srcfile_line(struct srcfiles *a, struct srcfile *f, uint32_t n);

#endif
