/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * top.h - "perfmini top" once its options are parsed: a recording (the
 * session, as record runs it) whose last seconds are shown as a table of
 * the hottest functions, refreshed as it goes, on a full screen or as
 * plain snapshots.
 */
#ifndef PERFMINI_CMD_TOP_H
#define PERFMINI_CMD_TOP_H

#include <stdbool.h>

#include "report/report.h"
#include "session/session.h"

struct top_opts {
	struct record_opts rec; /* first: the rows shared with record write it by offset */
	double delay;		/* -d: seconds between refreshes */
	double window;		/* -w: seconds of samples shown (0: the default) */
	bool batch;		/* -b: snapshots on stdout, no screen */
	unsigned iterations;	/* -n: refreshes before it ends, 0: no end */
	unsigned entries;	/* -E: rows of a snapshot (0: all) */
	bool entries_given;
	bool output_given;	 /* -o: the data file is kept */
	struct report_opts view; /* --sort (its keys and order, and the root they make), --lines */
};

/*
 * Runs the view until q, a signal, -n refreshes or the targets' end;
 * returns the exit status.
 */
int top_run(const struct top_opts *o);

#endif
