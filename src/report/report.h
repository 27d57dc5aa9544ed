/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report.h - what every report format shares: how a frame is named, the
 * options of a report, and the formats themselves.
 *
 * Frame names never contain ';' or control characters (they would break
 * the folded format); annotations come last: "_[i]" on inlined levels,
 * "_[k]" on kernel frames. Which samples a report counts, and how they
 * group, is aggregate.h's business: every format goes through it.
 */
#ifndef PERFMINI_REPORT_H
#define PERFMINI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "store/profile.h"
#include "util/sbuf.h"

/* How frames are named. */
struct name_opts {
	bool lines;	 /* FUNCTION:FILE:LINE */
	bool full_paths; /* FILE as recorded, not its base name */
	bool no_inline;	 /* only the real function of each frame */
	/*
	 * "MODULE`FUNCTION" (MODULE the base name): a --diff keyed on modules,
	 * whose stacks are matched by their names.
	 */
	bool modules;
};

/*
 * Appends the names of frame f, outermost inlined level first, each level
 * followed by sep except the last. An unresolved frame reads
 * "[module+0xOFFSET]" (module by base name, OFFSET its file offset, or
 * the address for kernel frames), "[anon]" in anonymous executable
 * memory (JIT code a perf map does not name) and "[unknown]" in no known
 * mapping: names that do not change from one run to the next.
 */
void report_frame_names(const struct profile *p, uint32_t f, const struct name_opts *o,
			const char *sep, struct sbuf *b);

/*
 * The levels frame f is named as: 1 for an unresolved frame or under
 * no_inline, else its lines. Level 0 is the outermost (the real function),
 * the last one the innermost inlined callee.
 */
uint32_t report_frame_levels(const struct profile *p, uint32_t f, const struct name_opts *o);
/* Appends the name of one level, as report_frame_names prints it. */
void report_level_name(const struct profile *p, uint32_t f, uint32_t level,
		       const struct name_opts *o, struct sbuf *b);
/* The line of one level; NULL for an unresolved frame. */
const struct pm_line *report_level_line(const struct profile *p, uint32_t f, uint32_t level,
					const struct name_opts *o);
/*
 * Appends the base name of module (PM_NONE: "[unknown]"), made safe for a
 * frame name, as a --diff keyed on modules prefixes it: "MODULE`FUNCTION".
 */
void report_module_name(const struct profile *p, uint32_t module, struct sbuf *b);
/*
 * Appends the levels of frames[0, n) of p (leaf first, as a stack holds
 * them), each named as report_level_name names it, separated by sep,
 * outermost first or innermost first; with user_only, kernel frames left
 * out. Nothing for n <= 0.
 */
void report_stack_text(const struct profile *p, const struct name_opts *o, const uint32_t *frames,
		       int n, bool outer_first, bool user_only, const char *sep, struct sbuf *b);
/*
 * Appends a stack for a table's cell, innermost first, as a reader takes
 * it in: without kernel frames (unless kernel), and where its innermost
 * frames are a shared library's (a file named *.so or *.so.N, or the
 * vDSO) called from code further out, that run of them as its outermost
 * function alone, the one the program called: "pthread_cond_wait <-
 * ph_wait <- worker", not the library's internals first.
 */
void report_stack_brief(const struct profile *p, const struct name_opts *o, const uint32_t *frames,
			int n, bool kernel, const char *sep, struct sbuf *b);
/* Appends frame f's unresolved name (see above), without annotations. */
void report_unresolved_name(const struct profile *p, uint32_t f, struct sbuf *b);
/* The base name of a path (the part after the last '/'). */
const char *report_base_name(const char *path);

/*
 * What a cgroup's path says of where a sample ran, into b (emptied first;
 * left empty when the path says nothing): its systemd unit, the deepest
 * component named *.service or *.scope ("redis-server.service"); its
 * container's id, the deepest component that is, or ends in "-" then,
 * 64 hexadecimal digits, less a ".scope" ("docker-ID.scope", "/docker/ID",
 * "cri-containerd-ID.scope").
 */
void report_cgroup_unit(const char *path, struct sbuf *b);
void report_cgroup_container(const char *path, struct sbuf *b);

/* The width of a terminal where it cannot be asked, and where COLUMNS does not say. */
#define REPORT_COLUMNS 100

/* The width of terminal out, REPORT_COLUMNS when it does not say; 0 when out is none. */
int report_terminal_columns(FILE *out);
/* The width text off a terminal wraps at: COLUMNS, else REPORT_COLUMNS. */
int report_env_columns(void);

/*
 * The widths of n text columns that share width columns (two spaces
 * between each): w[i] starts as column i's widest cell; while they do
 * not fit, the column with the most to give gives a column, down to
 * min[i] (its heading's width).
 */
void report_fit_columns(size_t *w, const size_t *min, size_t n, size_t width);

/*
 * Writes text wrapped at spaces to width columns, the lines after the
 * first starting with indent, and a newline. A word wider than the width
 * stays whole.
 */
void report_wrap(FILE *out, const char *text, size_t width, const char *indent);

/*
 * Writes a row of n text cells of widths w (report_fit_columns'), each cut
 * to its width at its end, or for column name_col (-1: none) as a
 * function's name (report_cut_name), padded but the last, two spaces
 * apart; then a newline.
 */
void report_cells(FILE *out, const char *const *cells, const size_t *w, size_t n, int name_col);

struct report_opts;
/*
 * The width a table that is always cut fits into: o->columns when set, a
 * terminal's width, else COLUMNS, else REPORT_COLUMNS.
 */
int report_table_width(const struct report_opts *o, FILE *out);
/*
 * What such a table leaves its text columns after numbers columns of
 * figures, never under MIN_TEXT_COLUMNS (a narrower table is as wide as
 * its text then needs).
 */
#define MIN_TEXT_COLUMNS 20
size_t report_text_columns(const struct report_opts *o, FILE *out, size_t numbers);

/* The width of UTF-8 text in columns: one per code point. */
size_t report_text_width(const char *s);

/*
 * Appends name cut to at most width columns, for a table cell. A name that
 * fits is appended whole. A C++ name (or any "a::b::f(args) const") loses
 * its middle first, so that the function's own name survives: the
 * qualifiers' template arguments become "<...>", then the qualifiers
 * "...::", then the own name's and parameters' template arguments, then
 * the parameters "(...)"; what still does not fit is cut at the end with
 * "...". The "_[i]" and "_[k]" annotations are always kept.
 */
void report_cut_name(const char *name, size_t width, struct sbuf *b);

/* Appends s cut to width columns keeping its end ("...bits/vector.tcc:439"). */
void report_cut_start(const char *s, size_t width, struct sbuf *b);

/* Appends s cut to width columns keeping its start ("libstdc++.so..."). */
void report_cut_end(const char *s, size_t width, struct sbuf *b);

/*
 * A base count normalized to the reported recording's total:
 * v * to / from, rounded to the nearest; 0 when from is 0.
 */
uint64_t report_normalize(uint64_t v, uint64_t to, uint64_t from);

/* The root frame of each stack in the formats that draw one. */
enum report_root {
	REPORT_ROOT_COMM,   /* the thread's name when sampled */
	REPORT_ROOT_PID,    /* "comm-PID", comm the process's name */
	REPORT_ROOT_TID,    /* "comm-TID", comm the thread's last name */
	REPORT_ROOT_NONE,   /* none: a --diff whose key leaves the thread out */
	REPORT_ROOT_CGROUP, /* the cgroup's path (--sort=cgroup), "[unknown]" when none */
};

/*
 * --diff-key: what two recordings' functions must have in common besides
 * their names to be matched as one (none of these by default).
 */
enum report_diff_key {
	REPORT_KEY_MODULE = 1 << 0, /* the module's base name */
	REPORT_KEY_THREAD = 1 << 1, /* the thread's name: the root frame */
};

struct inline_calls;

/*
 * --series: the files compared one after the other, each with the one
 * before it, the first being the profile reported; read reads one (NULL
 * after saying why: the report stops).
 */
struct report_series {
	const char *const *paths;
	size_t n;
	struct profile *(*read)(void *arg, const char *path);
	void *arg;
};

/*
 * --asm: a function's instructions, which cmd/ disassembles for
 * fmt_annotate (report/ itself reads the data file alone).
 */
struct annotate_insn {
	uint64_t off;	/* file offset in its module, as frames hold addresses */
	uint64_t vaddr; /* its ELF address, as objdump and perf annotate show it */
	char *text;	/* "mnemonic operands", malloc'd */
	char *file;	/* its innermost source file, malloc'd; NULL when unknown */
	uint32_t line;
};

struct annotate_code {
	/*
	 * The instructions of the function named func (its outermost level's
	 * name) that starts at file offset start in the module at path,
	 * whose build-id (lowercase hex, "" when none was recorded) the file
	 * must have, and whose file belonged to owner (pm_module.owner) when
	 * recorded: *insns (malloc'd, annotate_insns_free) and *n. 0, or -1
	 * with one line in why saying what stood in the way.
	 */
	int (*disasm)(void *arg, const char *path, const char *build_id, uint32_t owner,
		      uint64_t start, const char *func, struct annotate_insn **insns, size_t *n,
		      struct sbuf *why);
	void *arg;
};

void annotate_insns_free(struct annotate_insn *v, size_t n);

/* --tree: which way each function's tree goes (-g caller or callee). */
enum report_tree_order {
	REPORT_TREE_DEFAULT, /* as perf: callees with --children, callers with --no-children */
	REPORT_TREE_CALLER,  /* caller order: the function's callees below it */
	REPORT_TREE_CALLEE,  /* callee order: the function's callers below it */
};

/* The options that give the time window (aggregate_parse_window). */
enum report_window_opt {
	REPORT_WINDOW_TIME,  /* --time START,END: seconds from the recording's start */
	REPORT_WINDOW_SINCE, /* --since WHEN: a wall-clock time */
	REPORT_WINDOW_UNTIL, /* --until WHEN */
};

/* --top's order: by self samples (the default) or by total samples. */
enum report_sort {
	REPORT_SORT_SELF,
	REPORT_SORT_TOTAL,
};

/*
 * --sort=KEYS: what a row of --top stands for, as perf report's --sort
 * keys: a row per distinct combination. No key at all is the default,
 * module and symbol.
 */
enum report_row_key {
	REPORT_ROW_COMM = 1 << 0,   /* the thread's name when sampled */
	REPORT_ROW_PID = 1 << 1,    /* the process ("comm-PID") */
	REPORT_ROW_TID = 1 << 2,    /* the thread ("comm-TID") */
	REPORT_ROW_MODULE = 1 << 3, /* the module's base name */
	REPORT_ROW_SYMBOL = 1 << 4, /* the function */
	REPORT_ROW_CGROUP = 1 << 5, /* the cgroup's path */
};
#define REPORT_ROW_THREAD (REPORT_ROW_COMM | REPORT_ROW_PID | REPORT_ROW_TID)

/*
 * What a report weighs (--sample-type). Off-CPU and wall weigh each stack
 * by nanoseconds: its count is then nanoseconds, not samples.
 */
enum report_sample_type {
	REPORT_CPU,	/* the samples, counted (the default) */
	REPORT_OFF_CPU, /* the off-CPU spans, in ns */
	REPORT_WALL,	/* CPU samples' periods (ns for cpu-clock) plus off-CPU spans */
	/* --latency: CPU samples' periods shared among their process's threads on a CPU */
	REPORT_LATENCY,
};

/* Whether a view's stacks hold off-CPU spans (beside its samples, or alone). */
static inline bool report_has_spans(enum report_sample_type t)
{
	return t == REPORT_OFF_CPU || t == REPORT_WALL;
}

/*
 * Which off-CPU spans count (--off-cpu-state): a thread switched out while
 * still runnable was preempted, one that went to sleep was blocked.
 */
enum report_offcpu_state {
	REPORT_STATE_ANY, /* both (the default) */
	REPORT_STATE_BLOCKED,
	REPORT_STATE_PREEMPTED,
	/*
	 * With wake-ups recorded, a span that went to sleep is sleeping until
	 * its wake-up and runnable (waiting for a CPU) from it; a preempted
	 * span is runnable throughout. A sleep whose wake-up was not seen
	 * counts as sleeping.
	 */
	REPORT_STATE_SLEEPING,
	REPORT_STATE_RUNNABLE,
};

struct report_opts {
	const char *input;
	bool no_kernel;	  /* drop kernel frames */
	bool kernel_only; /* keep only kernel frames; drop samples without any */
	struct name_opts names;

	/* Which samples count (aggregate.h); an empty list matches all. */
	uint32_t *pids;
	size_t npids;
	uint32_t *tids;
	size_t ntids;
	char **comms;
	size_t ncomms;
	char **cgroups; /* --cgroup: these paths and those below them */
	size_t ncgroups;
	bool has_start, has_end;
	uint64_t start_ns, end_ns; /* [start, end) from the recording's start */
	/*
	 * --since, --until: the bounds given are wall-clock times, in seconds
	 * since the epoch, until aggregate_place_window makes them start_ns
	 * and end_ns.
	 */
	bool wall_clock;
	long long since, until;
	enum report_root root;
	enum report_sample_type sample_type;
	enum report_offcpu_state offcpu_state;

	/*
	 * --diff: the recording compared with (NULL: no comparison) and its
	 * file's name. Its samples pass the same filters; frames are matched
	 * by name, never by address, and by what diff_key adds; its counts
	 * are normalized to the total of the recording reported.
	 */
	const struct profile *base;
	const char *base_input;
	unsigned diff_key; /* enum report_diff_key */
	/*
	 * The noise bars of a --diff of CPU samples (noise.h): the level of
	 * the marks (0: NOISE_LEVEL), and --diff-significant: only what is
	 * marked (the rows, the stacks holding a function marked on its own
	 * share).
	 */
	double diff_level;
	bool diff_significant;
	const struct report_series *series; /* --series, NULL without */

	/*
	 * The cgroup of each thread, by pid << 32 | tid, for the off-CPU spans
	 * (which have theirs from their thread), of the recording reported and
	 * of base: aggregate_prepare's. Without them spans have none.
	 */
	struct hmap *span_cgroups, *base_span_cgroups;

	/*
	 * --merge-inline: each inlined level counts as the function it is
	 * inlined into, and so does an out-of-line call that either
	 * recording inlines (inlined: those calls, aggregate_prepare's).
	 */
	bool merge_inline;
	struct inline_calls *inlined;

	/* --top */
	int rows; /* -1: 25 on a terminal, all otherwise; 0: all */
	/*
	 * > 0: the table is cut to this width, as on a terminal that wide.
	 * 0: to the terminal's width when out is one; else nothing is cut
	 * (the header wraps at COLUMNS, else 100).
	 */
	int columns;
	enum report_sort sort;
	unsigned row_keys; /* enum report_row_key; 0: module and symbol */

	/* --tree (fmt-tree.c) */
	enum report_tree_order tree_order;
	bool tree_self;	       /* --no-children: rows by their self samples, trees of those */
	double tree_threshold; /* -g's THRESHOLD: branches under this share (%) are folded */
	double percent_limit;  /* --percent-limit: rows under this share (%) are left out */

	/* --annotate: the function (NULL: the rows hottest, 5 by default) */
	const char *annotate;
	bool annotate_given;
	const char **source_dirs; /* --source-dir: where sources are looked for */
	size_t nsource_dirs;
	bool own_sources; /* false: the data file is another user's (--force): sources only under source_dirs */
	const struct annotate_code *code; /* --asm: the disassembler; NULL without */
};

struct aggregate;

/*
 * What a format reads: the recording and the options, and, for a format
 * whose row says it groups samples, the samples o selects grouped
 * (aggregate.h) once by report_write, of the recording and of --diff's
 * base. A format only reads them.
 */
struct report_data {
	const struct profile *p;
	const struct report_opts *o;
	const struct aggregate *a;    /* p's; NULL for a format that does not group */
	const struct aggregate *base; /* o->base's; NULL without --diff */
};

/* A format: a row of driver.c's table, chosen by its option "--NAME". */
struct report_format {
	const char *name; /* its option, without "--" */
	/* Writes the whole report to out: 0, or -errno when something failed. */
	int (*write)(const struct report_data *d, FILE *out);
	bool aggregated;	    /* d->a and d->base are made for it... */
	unsigned agg_flags;	    /* ...with these (enum agg_flags) */
	const char *default_output; /* NULL: standard output */
	bool binary;		    /* never written to a terminal */
	bool diff;		    /* compares with --diff BASE */
};

/* The format named name (its option without "--"); NULL when none is. */
const struct report_format *report_format_find(const char *name);
/*
 * Runs format f on p as o says, into out: the samples grouped for it
 * first (when its row says so), freed after. 0, or -errno: the format's,
 * or -EIO when out has an error.
 */
int report_write(const struct report_format *f, const struct profile *p,
		 const struct report_opts *o, FILE *out);

/*
 * The formats, as the table's rows run them (report_write). Each writes
 * the whole report to out and returns 0, or -errno when something failed
 * (an error on out itself is report_write's to see).
 */
/*
 * --series: a line per file of o->series, its changes beyond the noise
 * since the file before; -ECANCELED when a file could not be read.
 */
int fmt_series(const struct report_data *d, FILE *out);
/* The folded format: "comm;outermost;...;leaf COUNT", sorted, one per stack. */
int fmt_folded(const struct report_data *d, FILE *out);
/* The functions (or modules) with the most samples, as a table. */
int fmt_top(const struct report_data *d, FILE *out);
/* The hottest functions, each with the tree of its callers or callees, as perf report draws it. */
int fmt_tree(const struct report_data *d, FILE *out);
/* pprof's profile.proto, gzipped. */
int fmt_pprof(const struct report_data *d, FILE *out);
/* A self-contained interactive flame graph. */
int fmt_svg(const struct report_data *d, FILE *out);
/* One line per sample: "TIME PID TID CPU PERIOD COMM<TAB>outermost;...;leaf". */
int fmt_script(const struct report_data *d, FILE *out);
/* One JSON object per line and sample, its frames innermost first. */
int fmt_json(const struct report_data *d, FILE *out);
/*
 * --annotate: a function's source, each line with its share of the
 * function's self samples, inlined code under the line that inlined it;
 * with o->code, its instructions too.
 */
int fmt_annotate(const struct report_data *d, FILE *out);
/*
 * --wakers (fmt-wakers.c): the sleeping time of the off-CPU spans o
 * selects, each sleeper's stack with its waker's: folded as offwaketime
 * folds them ("SLEEPER;...;--;...;WAKER NS"), or as a table.
 */
int fmt_wakers_folded(const struct report_data *d, FILE *out);
int fmt_wakers_top(const struct report_data *d, FILE *out);
/*
 * --latency --wakers (fmt-waiting.c): the latency of the samples o
 * selects, each shared among the other threads of its process asleep
 * then, on the stacks they slept at: folded ("RUNNING;...;--;...;WAITER
 * NS") or as a table.
 */
int fmt_waiting_folded(const struct report_data *d, FILE *out);
int fmt_waiting_top(const struct report_data *d, FILE *out);
/*
 * Whether o->annotate names a function with self samples among those o
 * selects: 0, or -1 with one line in why (and the hottest names).
 */
int report_annotate_check(const struct profile *p, const struct report_opts *o, struct sbuf *why);

/*
 * speedscope's JSON file format: a sampled profile per thread, its
 * samples in time order weighed in nanoseconds.
 */
int fmt_speedscope(const struct report_data *d, FILE *out);
/* The Firefox Profiler's processed format: a track per thread, grouped by process. */
int fmt_firefox(const struct report_data *d, FILE *out);

#endif
