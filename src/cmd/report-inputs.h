/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-inputs.h - the data files report reads: one, or several (-i
 * more than once, a directory of --switch-output's files) merged into one
 * profile (store's profile_merge).
 */
#ifndef PERFMINI_REPORT_INPUTS_H
#define PERFMINI_REPORT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"
#include "store/profile.h"

/*
 * The recording to report: input (the only -i, or the default) read, or
 * the ninputs files of inputs (each a file or a directory, whose files
 * are taken in the order of their names, those starting with '.' left
 * out) merged; each file cut short said so. In the wall and latency
 * views (type), each file's samples weigh their wall time or latency
 * (wall.h, latency.h) before any merge.
 * NULL after saying why.
 */
struct profile *report_read_inputs(const char *const *inputs, size_t ninputs, const char *input,
				   bool force, enum report_sample_type type);
/* The samples of p weighed as the view weighs them (wall, latency), before any merge. */
void report_weigh(struct profile *p, enum report_sample_type type);
/* The option that chooses a view: "--sample-type=wall", "--latency". */
const char *report_view_option(enum report_sample_type type);
/*
 * Whether p (NULL: none) has off-CPU spans to show, as far as its file
 * says (files written before perfmini said so count as having them). For
 * a --diff base (its file name in base_name), one without says so.
 */
bool report_off_cpu_recorded(const struct profile *p, const char *base_name);
/*
 * One data file read: a file cut short said so, and its samples weighed
 * as the view (type) weighs them (report_weigh). NULL after saying why.
 */
struct profile *report_read_one(const char *path, bool force, enum report_sample_type type);
/*
 * The view of p (read from input) once its file is known: a recording of
 * record --off-cpu-only has no CPU samples, so its view is off-CPU time
 * (*type, when the user gave none: !type_given), and a CPU or wall view
 * (given), or --annotate (annotate), is refused. --latency needs the
 * spans of --off-cpu. Then --annotate needs the CPU view, --off-cpu-state
 * (state_given) an off-CPU or wall view.
 * 0, or the exit status after one line.
 */
int report_check_view(const struct profile *p, const char *input, enum report_sample_type *type,
		      bool type_given, bool state_given, bool annotate);

/*
 * --series: the files of inputs (or input), directories' expanded as
 * above, into s (paths malloc'd: report_series_close; its read reads a
 * file with force, kept in *force_arg), and the first of them read. NULL
 * after saying why: fewer than two files, or the first unreadable.
 */
struct profile *report_series_open(const char *const *inputs, size_t ninputs, const char *input,
				   bool force, struct report_series *s, bool *force_arg);
void report_series_close(struct report_series *s);

#endif
