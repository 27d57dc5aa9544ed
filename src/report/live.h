/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * live.h - the live table of 'perfmini top': the samples of the last
 * seconds of a recording (a window that slides with the present), the
 * table of their hottest functions, the callers or callees of one of
 * them, and both laid out in lines as wide as a screen.
 *
 * Everything here reads a profile as a report does (aggregate.h): the
 * recording's own tables (strings, modules, frames, stacks) with the
 * window's samples in place of its own, so that the report's filters,
 * --sort keys and names apply unchanged. A table is made afresh at each
 * refresh and keeps copies of what it shows: the profile it was made
 * from may change (grow, move) once it is made.
 *
 * Invariants: the window holds the samples added whose time lies within
 * its span of the latest time it was slid to, oldest first; a table's
 * self shares add up to at most 100% (all samples have a leaf unless
 * --no-kernel leaves a stack empty), and a row's total is at least its
 * self.
 */
#ifndef PERFMINI_REPORT_LIVE_H
#define PERFMINI_REPORT_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report/report.h"
#include "store/profile.h"
#include "util/sbuf.h"

/* The samples of the last span_ns nanoseconds. */
struct live_window {
	struct pm_sample *s; /* s[head .. head + n), oldest first */
	size_t head, n, cap;
	uint64_t span_ns;
	uint64_t now; /* the latest time slid to, ns since the recording's start */
	/* The view's threads: each one's last name in the window (live_window_view's). */
	struct pm_thread *threads;
	size_t nthreads, threads_cap;
};

void live_window_init(struct live_window *w, uint64_t span_ns);
void live_window_release(struct live_window *w);
/* Adds a sample (its time in ns since the recording's start). */
void live_window_add(struct live_window *w, const struct pm_sample *smp);
/* The window ends at now: the samples of before now - span_ns let go. */
void live_window_slide(struct live_window *w, uint64_t now);
/*
 * p's tables with the window's samples, and a thread record for each
 * thread of them with the name of its latest sample (the report's rows
 * per process and thread take their names from those): a profile to
 * read (aggregate_new, live_table_new) until the next call that changes
 * w or p.
 */
struct profile live_window_view(struct live_window *w, const struct profile *p);

/* The table's rows stand for what live_table_new was asked for. */
#define LIVE_NONE UINT32_MAX

/* A row of the table: a function (per thread with a thread key), or a caller or callee. */
struct live_row {
	uint32_t name;	 /* strings: the function, "" for a module's row */
	uint32_t loc;	 /* strings: FILE:LINE with --lines, else "" */
	uint32_t module; /* strings: the module's base name, "" without the module key */
	uint32_t thread; /* strings: the root's name with a thread key (--sort pid), else "" */
	uint32_t func;	 /* its function, or LIVE_NONE for a caller's "[self]", "[outermost]" */
	uint32_t stamp;	 /* the last stack counted, + 1 */
	uint64_t self, total;
};

/*
 * A row picked in one table, found again in the next by its names: the
 * cursor's row, or the function whose callers are shown. NULL name: none.
 */
struct live_key {
	char *name, *loc, *module, *thread;
};

/* What a table is asked to show besides the hottest functions. */
struct live_query {
	const struct live_key *select; /* the cursor's row (NULL: none) */
	/* NULL: the hottest functions; else the callers of this function (callees if callees) */
	const struct live_key *focus;
	bool callees;
};

struct live_table {
	struct strtab str;
	/*
	 * The hottest functions first (by o->sort); with a focus, its callers
	 * (or callees), most samples first, self and total both their count.
	 */
	struct live_row *rows;
	size_t nrows;
	uint64_t samples;	 /* of the aggregate: what shares are of */
	bool by_module;		 /* --sort module: a row per module */
	bool no_module;		 /* no module column */
	bool by_thread;		 /* a thread column (--sort comm, pid, tid, cgroup) */
	const char *thread_head; /* its heading: Command, Process, Thread or Cgroup */
	bool lines;		 /* a location column (--lines) */
	bool focus;		 /* rows are the focus's callers or callees */
	bool callees;		 /* its callees */
	bool focus_found;	 /* the focus is among the functions (else no rows) */
	uint32_t fname;		 /* the focus's strings, when found */
	uint32_t fmodule;	 /* its module */
	uint64_t fself;		 /* its self samples */
	uint64_t ftotal;	 /* its total: what the rows' shares are of */
	size_t selected;	 /* the row of query->select, SIZE_MAX when none */
	uint32_t sel_pid;	 /* the process most of its samples are of */
	uint32_t sel_tid;	 /* the thread most of them are of */
	uint32_t sel_comm;	 /* strings: that thread's name */
};

/*
 * The table of the samples of p that o selects (o->root as the --sort keys
 * want it, the row keys in o->row_keys), and what q asks for. Free with
 * live_table_free.
 */
struct live_table *live_table_new(const struct profile *p, const struct report_opts *o,
				  const struct live_query *q);
void live_table_free(struct live_table *t);

static inline const char *live_str(const struct live_table *t, uint32_t s)
{
	return strtab_get(&t->str, s);
}

/* k made the key of row i of t (its old strings freed). */
void live_key_set(struct live_key *k, const struct live_table *t, size_t i);
void live_key_clear(struct live_key *k);

/* How a table is laid out. */
struct live_layout {
	int width;    /* the screen's columns; 0: nothing cut, columns as wide as their cells */
	size_t first; /* the first row shown */
	size_t rows;  /* how many rows at most (0: all) */
	bool marks;   /* '>' before the selected row (no colours to show it) */
};

/*
 * Appends the table's lines to out, each ended by '\n': a heading, then
 * the rows from l->first; with a focus, first the line that says whose
 * callers (or callees) they are. Each line fits l->width. Returns the
 * lines appended; *cursor gets the line of the selected row, -1 when not
 * shown.
 */
size_t live_draw(const struct live_table *t, const struct live_layout *l, struct sbuf *out,
		 long *cursor);
/*
 * How many lines live_draw takes before the rows: the heading, and a
 * focus's line.
 */
size_t live_draw_heading_lines(const struct live_table *t);

#endif
