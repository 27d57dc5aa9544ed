/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-int.h - between cmd-report.c (the commands that report a data
 * file: report, script, annotate) and report-opts.c (their options, one
 * table the three share); nothing else includes it.
 */
#ifndef PERFMINI_REPORT_INT_H
#define PERFMINI_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "report/report.h"

/* The commands of the shared table, each a bit of its rows' cmds (opts.h). */
enum {
	REPORT_CMD_REPORT = 1 << 0,
	REPORT_CMD_SCRIPT = 1 << 1,   /* "perfmini script": report --script */
	REPORT_CMD_ANNOTATE = 1 << 2, /* "perfmini annotate [FUNCTION]": report --annotate */
};

/* The options: the report's own, and what the command decides with them. */
struct report_cmd {
	const char *name; /* the command: "report", "script", "annotate" */
	struct report_opts o;
	const struct report_format *f; /* NULL: the command's default */
	const char *output;	       /* NULL: the format's default */
	bool force, rows_given, sort_given, per_pid, per_tid, asm_view, source_given;
	bool wakers, type_given, stdio, latency;
	const char **inputs; /* -i */
	size_t ninputs;
	const char **debug_dirs; /* --debug-dir */
	size_t ndebug_dirs;
	bool time_given, since_given, until_given;
	const char *tree_opt; /* the first option that makes a tree (-g, --children...) */
	double level;	      /* --diff-level, in percent */
	bool level_given;
	struct report_series series; /* --series: the files */
	bool series_force;
};

#endif
