/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-top.c - "perfmini top": record's targets and sampling options and
 * the view's own, to a top_opts, then run.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/record-opts.h"
#include "cmd/top.h"
#include "report/aggregate.h"

_Static_assert(offsetof(struct top_opts, rec) == 0, "record's rows write top's options");

/* -s, --sort: self, total, or perf's keys, as report's --sort. */
static int opt_sort(void *opts, const struct cmd_opt *row, const char *arg)
{
	(void)row;
	return aggregate_parse_sort(arg, &((struct top_opts *)opts)->view);
}

#define T struct top_opts

static const struct cmd_opt options[] = {
	{OPT_SECTION, .help = "Targets:"},
	{OPT_ROWS, .rows = record_target_rows},

	{OPT_SECTION, .help = "Sampling:"},
	{OPT_ROWS, .rows = record_sampling_rows},

	{OPT_SECTION, .help = "The view:"},
	{OPT_SECONDS, "delay", 'd', "SECS", OPT_AT(T, delay), .min = 0.1, .max = 3600,
	 .what = "a number of seconds from 0.1 to 3600",
	 .help = "refresh every SECS seconds (default 1)"},
	{OPT_SECONDS, "window", 'w', "SECS", OPT_AT(T, window), .min = 0.1, .max = 86400,
	 .what = "a number of seconds from 0.1 to 86400",
	 .help = "show the samples of the last SECS seconds (default 5, or the delay when "
		 "longer): the table follows the present"},
	{OPT_CALL, "sort", 's', "KEYS", .call = opt_sort,
	 .what = "self, total, or keys among comm, pid, tid, cgroup, module, symbol",
	 .complete = COMPLETE_WORDS, .words = sort_words,
	 .help = "order by 'self' (default) or 'total' share; or, as report's --sort, a row "
		 "per distinct combination of KEYS, comma-separated: comm, pid, tid, cgroup, "
		 "module (or dso), symbol (or sym); the default is module,symbol. May be given "
		 "twice (--sort total --sort pid,symbol)"},
	{OPT_FLAG, "lines", 0, OPT_AT(T, view.names.lines),
	 .help = "a Location column: each function's source file and line"},
	{OPT_FLAG, "batch", 'b', OPT_AT(T, batch),
	 .help = "print snapshots of the table on stdout instead of a full screen (so does a "
		 "stdout or stdin that is not a terminal)"},
	{OPT_NUMBER, "iterations", 'n', "COUNT", OPT_SIZE(T, iterations), .min = 1, .max = 1e9,
	 .what = "a positive number of refreshes", .help = "end after COUNT refreshes"},
	{OPT_NUMBER, "entries", 'E', "N", OPT_SIZE(T, entries), OPT_GIVEN(T, entries_given),
	 .min = 0, .max = 1e9, .what = "a number of rows",
	 .help = "rows of a snapshot (default 25, 0 for all); the screen shows what fits"},

	{OPT_SECTION, .help = "Output:"},
	{OPT_STRING, "output", 'o', "FILE", OPT_AT(T, rec.output), OPT_GIVEN(T, output_given),
	 .what = "a file name", .complete = COMPLETE_FILE,
	 .help = "also keep the recording as a data file for 'perfmini report' (by default none "
		 "is kept); at the end its frames are named, as record names them"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef T

/* What a perf top user may type that top does not take, and what to use instead. */
#define NO_DECAY "the table counts the samples of the last seconds (-w): nothing to decay or zero"
#define HIDE_K	 "--no-kernel leaves kernel code out"

static const struct opt_hint hints[] = {
	{"--stdio", "-b (--batch) prints plain snapshots; a terminal gets the full screen"},
	{"--tui", "the full screen is the default on a terminal; -b prints snapshots"},
	{"-K", HIDE_K},
	{"--hide_kernel_symbols", HIDE_K},
	{"-U", "-e cpu-clock:k samples the kernel alone"},
	{"--hide_user_symbols", "-e cpu-clock:k samples the kernel alone"},
	{"-z", NO_DECAY},
	{"--zero", NO_DECAY},
	{"-G", "-a -s cgroup,symbol gives a row per cgroup"},
	{"--cgroup", "-a -s cgroup,symbol gives a row per cgroup"},
	{"-r", "run it under chrt: chrt -f 10 perfmini top ..."},
	{"--realtime", "run it under chrt: chrt -f 10 perfmini top ..."},
	{NULL, NULL},
};

const struct cmd_spec top_spec = {
	.name = "top",
	.usage = "usage: perfmini top [options] [-- COMMAND [ARG...]]\n"
		 "       perfmini top [options] -p PID[,PID...] | -t TID[,TID...] | -a\n"
		 "\n"
		 "Samples call stacks as 'perfmini record' does and shows the hottest functions\n"
		 "of the last seconds, refreshed as the recording goes.\n",
	.epilogue =
		"Keys: arrows move, c callers, e callees, p and t zoom into the process or\n"
		"thread, s self or total, r rows, l locations, space pause, ? all keys, q quit.\n"
		"See perfmini-top(1).\n",
	.opts = options,
	.operands_end_options = true,
	.operands = COMPLETE_COMMAND,
	.hints = hints,
};

/* --sort's keys as report checks them: the thread keys and cgroup apart. */
static int check_sort(const struct report_opts *v)
{
	if ((v->row_keys & REPORT_ROW_THREAD) && (v->row_keys & REPORT_ROW_CGROUP))
		return cmd_usage_error("top",
				       "--sort: cgroup and comm, pid or tid cannot be combined");
	return -1;
}

int cmd_top(int argc, char **argv)
{
	struct top_opts o;
	int first, ret;

	memset(&o, 0, sizeof(o));
	record_opts_init(&o.rec);
	o.rec.argc_shown = argc;
	o.rec.argv_shown = argv;
	/* No data file unless -o: the recording goes nowhere. */
	o.rec.output = "/dev/null";
	o.rec.quiet = true;
	o.rec.live_view = true;
	o.delay = 1.0;
	ret = cmd_parse(&top_spec, argc, argv, &o, &first);
	if (ret >= 0)
		goto out;
	if ((ret = record_opts_finish("top", &o.rec, argc, argv, first)) >= 0 ||
	    (ret = check_sort(&o.view)) >= 0)
		goto out;
	if (o.window > 0 && o.window < o.delay) {
		ret = cmd_usage_error("top", "--window (%g s) is shorter than --delay (%g s)",
				      o.window, o.delay);
		goto out;
	}
	/* Keys and a screen need a terminal both ways; else snapshots. */
	if (!isatty(0) || !isatty(1))
		o.batch = true;
	o.rec.command_detached = !o.batch;
	ret = top_run(&o);
out:
	free(o.rec.pids);
	free(o.rec.tids);
	free(o.rec.debug_dirs);
	aggregate_opts_release(&o.view);
	return ret;
}
