/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * report-opts.c - the options of the commands that report a data file,
 * report, script and annotate: one table, each row saying which of them
 * it belongs to (none: all three), their parsing callbacks, and perf's
 * options they do not have with what to use instead.
 */
#include "config.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/report-int.h"
#include "report/aggregate.h"
#include "report/report.h"
#include "util/alloc.h"

/* --top, --folded, ...: one format, named by its row. */
static int opt_format(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct report_cmd *c = opts;
	const struct report_format *f = report_format_find(row->name);

	(void)arg;
	if (c->f && c->f != f)
		return -1;
	c->f = f;
	return 0;
}

/* --pid and --tid: the filter's ids (aggregate_parse_ids: its range) into the row's list. */
static int opt_ids(void *opts, const struct cmd_opt *row, const char *arg)
{
	char *base = opts;

	return aggregate_parse_ids(arg, (uint32_t **)(void *)(base + row->off),
				   (size_t *)(void *)(base + row->off2));
}

const struct opt_word sort_words[] = {
	{"self", 0},   {"total", 0},  {"comm", 0},   {"pid", 0}, {"tid", 0},
	{"cgroup", 0}, {"module", 0}, {"symbol", 0}, {NULL, 0},
};

/* --annotate[=FUNCTION]: the format, and the function when named. */
static int opt_annotate(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct report_cmd *c = opts;

	if (arg && !*arg)
		return -1;
	c->o.annotate = arg;
	return opt_format(opts, row, arg);
}

static int opt_sort(void *opts, const struct cmd_opt *row, const char *arg)
{
	(void)row;
	return aggregate_parse_sort(arg, &((struct report_cmd *)opts)->o);
}

static int opt_comm(void *opts, const struct cmd_opt *row, const char *arg)
{
	(void)row;
	return aggregate_parse_comms(arg, &((struct report_cmd *)opts)->o);
}

static int opt_cgroup(void *opts, const struct cmd_opt *row, const char *arg)
{
	(void)row;
	return aggregate_parse_cgroups(arg, &((struct report_cmd *)opts)->o);
}

/* --time, --since, --until: the time window (aggregate_parse_window), the row's off saying which. */
static int opt_window(void *opts, const struct cmd_opt *row, const char *arg)
{
	return aggregate_parse_window(arg, (enum report_window_opt)row->off,
				      &((struct report_cmd *)opts)->o);
}

/* -g ORDER,THRESHOLD,...: perf's words for the call tree (--tree). */
static int opt_call_graph(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct report_cmd *c = opts;
	char *copy = xstrdup(arg), *save = NULL, *end;
	int ret = 0;

	for (char *w = strtok_r(copy, ",", &save); w && ret == 0; w = strtok_r(NULL, ",", &save)) {
		double v;

		if (!strcmp(w, "caller") || !strcmp(w, "callee"))
			c->o.tree_order = w[5] == 'r' ? REPORT_TREE_CALLER : REPORT_TREE_CALLEE;
		else if (!strcmp(w, "address"))
			c->o.names.lines = true;
		else if (strcmp(w, "graph") && strcmp(w, "function")) {
			v = strtod(w, &end);
			if (*end || end == w || !(v >= 0 && v <= 100))
				ret = -1;
			else
				c->o.tree_threshold = v;
		}
	}
	free(copy);
	if (!c->tree_opt)
		c->tree_opt = row->name;
	return ret;
}

/* --children, --no-children: what a row of --tree counts. */
static int opt_children(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct report_cmd *c = opts;

	(void)arg;
	c->o.tree_self = row->off;
	if (!c->tree_opt)
		c->tree_opt = row->name;
	return 0;
}

/* --percent-limit PCT: the rows of --tree under PCT% of the samples left out. */
static int opt_percent_limit(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct report_cmd *c = opts;
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || !(v >= 0 && v <= 100))
		return -1;
	c->o.percent_limit = v;
	if (!c->tree_opt)
		c->tree_opt = row->name;
	return 0;
}

static int opt_diff_key(void *opts, const struct cmd_opt *row, const char *arg)
{
	(void)row;
	return aggregate_parse_diff_key(arg, &((struct report_cmd *)opts)->o);
}

#define R      struct report_cmd
#define REPORT .cmds = REPORT_CMD_REPORT
#define FORMAT(name, text)                                                               \
	{                                                                                \
		OPT_CALL, name, .call = opt_format, .what = "choose one format", REPORT, \
				.help = text                                             \
	}

static const struct cmd_opt options[] = {
	{OPT_STRINGS, "input", 'i', "FILE", OPT_LIST(R, inputs, ninputs), .what = "a file name",
	 .complete = COMPLETE_FILE,
	 .help = "the data file (default perfmini.data); given more than once, or a directory "
		 "(its files, as record --switch-output writes them), the files are merged into "
		 "one report"},
	{OPT_STRINGS, "debug-dir", 0, "DIR", OPT_LIST(R, debug_dirs, ndebug_dirs),
	 .what = "a directory", .complete = COMPLETE_DIR,
	 .help = "frames the recording left without a name or a source line are named from a "
		 "file with their module's build-id: its own, or its debug file under DIR "
		 "(DIR/.build-id/XX/REST.debug), then /usr/lib/debug; may be repeated"},
	{OPT_STRING, "output", 'o', "FILE", OPT_AT(R, output), .what = "a file name",
	 .complete = COMPLETE_FILE, .help = "where the report goes; '-' is standard output"},
	{OPT_FLAG, "force", 0, OPT_AT(R, force),
	 .help = "read a data file that belongs to another user"},
	{OPT_STRING, "diff", 0, "BASE", OPT_AT(R, o.base_input), .what = "a file name",
	 .complete = COMPLETE_FILE,
	 .help = "compare with the recording BASE (the -i file is the new one): --top gives each "
		 "function's self and total share in both and the change, largest first; --folded "
		 "two counts per stack, BASE NEW (flamegraph.pl reads them); --svg colours frames "
		 "by change (red grew, blue shrank); --pprof the diff that pprof's -diff_base "
		 "makes. Functions are matched by name alone, whatever their modules' file names "
		 "and threads' names (see --diff-key); BASE's counts are normalized to the -i "
		 "file's total",
	 REPORT},
	{OPT_CALL, "diff-key", 0, "KEYS", .flags = OPTF_EQ, .call = opt_diff_key,
	 .what = "module, thread or module,thread", .complete = COMPLETE_WORDS,
	 .words =
		 (const struct opt_word[]){
			 {"module", 0}, {"thread", 0}, {"module,thread", 0}, {NULL, 0}},
	 .help = "with --diff, what must match besides a function's name, comma-separated: "
		 "'module' its module's base name, 'thread' its thread's name (stacks then keep "
		 "their root frame); by default neither, so that two builds of a program under "
		 "other names compare",
	 REPORT},
	{OPT_SECONDS, "diff-level", 0, "PERCENT", OPT_AT(R, level), OPT_GIVEN(R, level_given),
	 .flags = OPTF_EQ, .min = 50, .max = 99.9999, .what = "a level in percent, 50 to 99.9999",
	 .help = "with --diff or --series, the level of the noise bars (default 95): a change in "
		 "a function's share beyond the interval its sample counts allow is marked: at "
		 "95, two recordings that differ only where their samples fell have no function "
		 "marked in 95 comparisons of 100",
	 REPORT},
	{OPT_FLAG, "diff-significant", 0, OPT_AT(R, o.diff_significant),
	 .help = "with --diff or --series, only the changes beyond the noise: --top and --tree "
		 "the rows marked; --folded and --pprof the stacks that hold a function marked on "
		 "its self share; --svg colours those functions alone; --series the files with a "
		 "change",
	 REPORT},

	{OPT_SECTION, .help = "Formats:", REPORT},
	FORMAT("top", "(the default) a header on the recording, then the functions by self "
		      "share: self %, total %, self and total samples, module; on a terminal, cut "
		      "to its width (C++ names keep their own name); elsewhere never cut"),
	{OPT_NUMBER, "rows", 'n', "N", OPT_SIZE(R, o.rows), OPT_GIVEN(R, rows_given), .min = 0,
	 .max = 1e9, .what = "a number of rows",
	 .help = "--top, --tree: N rows (--top: default 25 on a terminal, all otherwise; 0 for "
		 "all); "
		 "--annotate without a FUNCTION: the N hottest functions (default 5)",
	 REPORT},
	{OPT_CALL, "sort", 's', "KEYS", OPT_GIVEN(R, sort_given), .call = opt_sort,
	 .what = "self, total, or keys among comm, pid, tid, cgroup, module, symbol",
	 .complete = COMPLETE_WORDS, .words = sort_words,
	 .help = "--top: order by 'self' (default) or 'total' samples; or, as perf report's "
		 "--sort, a row per distinct combination of KEYS, comma-separated: comm (the "
		 "thread's name), pid (the process), tid (the thread), cgroup (its v2 path), "
		 "module (or dso), symbol (or sym); the default is module,symbol. --tree: the "
		 "same. --folded: comm, "
		 "pid, tid or cgroup, the root frame",
	 REPORT},
	FORMAT("tree", "the hottest functions, each with the tree of its callees (or, -g callee, "
		       "its callers) and their shares of all samples, drawn as perf report --stdio "
		       "draws its call graphs; branches under -g's threshold folded into one line. "
		       "With --diff, each share's change in points, a row's marked '*' beyond its "
		       "noise. -n, --sort, every filter and "
		       "--sample-type apply"),
	{OPT_CALL, "call-graph", 'g', "WORDS", .call = opt_call_graph,
	 .what = "made of caller or callee, graph, function or address, and a threshold in "
		 "percent; perf's flat, fractal and folded are not drawn here (--tree draws "
		 "graphs, --folded folds stacks)",
	 .help = "--tree as perf report's -g: 'caller' draws each function's callees (the "
		 "default with --children), 'callee' its callers (the default with "
		 "--no-children); a number is the share (%) under which branches are folded "
		 "(default 0.5); 'address' names frames with their lines (--lines); 'graph' and "
		 "'function' are the default. Makes the report a --tree",
	 REPORT},
	{OPT_CALL, "children", 0, .off = false, .call = opt_children,
	 .help = "--tree: a row's share is every sample the function is in (Children), beside "
		 "its own (Self); rows by Children (the default)",
	 REPORT},
	{OPT_CALL, "no-children", 0, .off = true, .call = opt_children,
	 .help = "--tree: rows by their own samples only, each with the tree of those", REPORT},
	{OPT_CALL, "percent-limit", 0, "PCT", .call = opt_percent_limit,
	 .what = "a share in percent, from 0 to 100",
	 .help = "--tree: leave out the functions under PCT% of the samples (their Children, or "
		 "Self with --no-children)",
	 REPORT},
	FORMAT("folded", "folded stacks, comm;outermost;...;leaf COUNT, for flamegraph.pl and "
			 "speedscope"),
	FORMAT("pprof", "gzipped profile.proto for pprof (default output perfmini.pb.gz)"),
	FORMAT("svg", "an interactive flame graph (default output perfmini.svg): hover, click "
		      "to zoom, Ctrl-F to search"),
	FORMAT("script", "one line per sample, as perf script: TIME PID TID CPU PERIOD "
			 "COMM<tab>outermost;...;leaf (folded names)"),
	{OPT_CALL, "json", .call = opt_format, .what = "choose one format",
	 .cmds = REPORT_CMD_REPORT | REPORT_CMD_SCRIPT,
	 .help = "one JSON object per line and sample: time, pid, tid, cpu, period, comm "
		 "and frames (innermost first)"},
	FORMAT("speedscope", "speedscope's JSON (default output perfmini.speedscope.json): a "
			     "profile per thread, its samples in time order, weighed in "
			     "nanoseconds"),
	FORMAT("firefox", "the Firefox Profiler's processed format (default output "
			  "perfmini.firefox.json): a track per thread, grouped by process; Call "
			  "Tree, Flame Graph, Stack Chart"),
	{OPT_CALL, "annotate", 0, "FUNCTION", .flags = OPTF_OPTIONAL, .call = opt_annotate,
	 .what = "a function's name",
	 .help = "FUNCTION's source, each line with its share of the function's own samples, "
		 "inlined code under the line that inlined it at its own file and line; without "
		 "FUNCTION the hottest functions (-n). A C++ name may leave out its parameters",
	 REPORT},
	FORMAT("series", "-i given more than once, or a directory of record --switch-output's "
			 "files: a line per file, the functions whose share changed beyond the "
			 "noise since the file before (see --diff-level, --diff-significant)"),
	{OPT_NUMBER, "rows", 'n', "N", OPT_SIZE(R, o.rows), OPT_GIVEN(R, rows_given), .min = 0,
	 .max = 1e9, .what = "a number of rows", .cmds = REPORT_CMD_ANNOTATE,
	 .help = "without a FUNCTION, the N hottest functions (default 5; 0 for all)"},
	{OPT_FLAG, "asm", 0, OPT_AT(R, asm_view),
	 .help = "the annotated function's instructions too, each with its samples, read "
		 "from the recorded file (which must have the recorded build-id)",
	 .cmds = REPORT_CMD_REPORT | REPORT_CMD_ANNOTATE},
	{OPT_STRINGS, "source-dir", 0, "DIR", OPT_LIST(R, o.source_dirs, o.nsource_dirs),
	 OPT_GIVEN(R, source_given), .what = "a directory", .complete = COMPLETE_DIR,
	 .help = "look for the annotated source files under DIR too (the recorded path below "
		 "it, then less its leading directories); may be given more than once",
	 .cmds = REPORT_CMD_REPORT | REPORT_CMD_ANNOTATE},

	{OPT_STRING, "symbol", 's', "FUNCTION", OPT_AT(R, o.annotate), .cmds = REPORT_CMD_ANNOTATE,
	 .what = "a function's name",
	 .help = "the function to annotate, as the operand FUNCTION names it (perf annotate's "
		 "-s)"},
	{OPT_OPERAND, .arg = "[FUNCTION]", .cmds = REPORT_CMD_ANNOTATE,
	 .help = "the function to annotate: its source, each line with its share of the "
		 "function's own samples; without one, the hottest functions (-n). A C++ name "
		 "may leave out its parameters"},

	{OPT_SECTION, .help = "Filters (every format):"},
	{OPT_CALL, "pid", 0, "LIST", OPT_LIST(R, o.pids, o.npids), .call = opt_ids,
	 .what = "a list of process ids", .complete = COMPLETE_PIDS,
	 .help = "only these processes (comma-separated)"},
	{OPT_CALL, "tid", 0, "LIST", OPT_LIST(R, o.tids, o.ntids), .call = opt_ids,
	 .what = "a list of thread ids", .complete = COMPLETE_PIDS, .help = "only these threads"},
	{OPT_CALL, "comm", 0, "NAMES", .call = opt_comm, .what = "a list of names",
	 .help = "only threads with these names when sampled"},
	{OPT_CALL, "cgroup", 0, "PATHS", .call = opt_cgroup,
	 .what = "a list of cgroup paths, each from the root (/system.slice/x.service)",
	 .help = "only samples in these cgroups (v2 paths, comma-separated) or below them"},
	{OPT_CALL, "since", 0, "WHEN", .off = REPORT_WINDOW_SINCE, OPT_GIVEN(R, since_given),
	 .call = opt_window, .what = "a time: @EPOCH, YYYY-MM-DD HH:MM[:SS] or HH:MM[:SS] (today)",
	 .help = "only samples from WHEN on, a wall-clock time (@EPOCH seconds, YYYY-MM-DD "
		 "HH:MM[:SS], or HH:MM[:SS] today, local time), to the second: across the files "
		 "of a long recording (-i DIR)"},
	{OPT_CALL, "until", 0, "WHEN", .off = REPORT_WINDOW_UNTIL, OPT_GIVEN(R, until_given),
	 .call = opt_window, .what = "a time: @EPOCH, YYYY-MM-DD HH:MM[:SS] or HH:MM[:SS] (today)",
	 .help = "only samples before WHEN, likewise"},
	{OPT_CALL, "time", 0, "START,END", .off = REPORT_WINDOW_TIME, OPT_GIVEN(R, time_given),
	 .call = opt_window, .what = "START,END in seconds, START <= END (e.g. 1.5,3 or 1.5,)",
	 .help = "only samples from START to before END, in seconds from the start of the "
		 "recording; either may be left out: --time 1.5, or --time ,2"},
	{OPT_FLAG, "no-kernel", 0, OPT_AT(R, o.no_kernel), .help = "leave kernel frames out"},
	{OPT_FLAG, "kernel-only", 0, OPT_AT(R, o.kernel_only),
	 .help = "only the kernel frames; drop samples without any"},
	{OPT_FLAG, "per-pid", 0, OPT_AT(R, per_pid),
	 .help = "root frame 'comm-PID' instead of the thread name"},
	{OPT_FLAG, "per-tid", 0, OPT_AT(R, per_tid), .help = "root frame 'comm-TID'"},
	{OPT_FLAG, "wakers", 0, OPT_AT(R, wakers),
	 .help = "who woke the threads that slept, and for how long: the sleeping time of each "
		 "sleeper's stack with its waker's (recorded by record --off-cpu with wake-ups); "
		 "--top: the pairs of sleeper and waker, the longest first, in columns cut to "
		 "the width; --folded: "
		 "SLEEPER;--;WAKER stacks as offwaketime folds them, in ns. With --latency: what "
		 "the other threads were asleep in while the latency was spent",
	 REPORT},
	{OPT_KEYWORD, "sample-type", 0, "TYPE", OPT_AT(R, o.sample_type), OPT_GIVEN(R, type_given),
	 .flags = OPTF_EQ, .complete = COMPLETE_WORDS,
	 .words = (const struct opt_word[]){{"cpu", REPORT_CPU},
					    {"off-cpu", REPORT_OFF_CPU},
					    {"wall", REPORT_WALL},
					    {NULL, 0}},
	 .help = "cpu: the samples (the default); off-cpu: the time threads spent switched out "
		 "(record --off-cpu), in nanoseconds; wall: both, each sample weighing its "
		 "thread's time on the CPU since its previous sample, plus the off-CPU time"},
	{OPT_FLAG, "latency", 0, OPT_AT(R, latency),
	 .help = "weigh each CPU sample by its period shared among its process's threads on a CPU "
		 "at that moment (from record --off-cpu's switch records): code that runs while "
		 "the other threads wait weighs its wall-clock time; --top adds a CPU% column"},
	{OPT_KEYWORD, "off-cpu-state", 0, "STATE", OPT_AT(R, o.offcpu_state), .flags = OPTF_EQ,
	 .complete = COMPLETE_WORDS,
	 .words = (const struct opt_word[]){{"any", REPORT_STATE_ANY},
					    {"sleeping", REPORT_STATE_SLEEPING},
					    {"runnable", REPORT_STATE_RUNNABLE},
					    {"blocked", REPORT_STATE_BLOCKED},
					    {"preempted", REPORT_STATE_PREEMPTED},
					    {NULL, 0}},
	 .help = "with off-cpu or wall, only the time of threads sleeping (from going to sleep "
		 "until woken) or runnable (from the wake-up, or from being preempted, until they "
		 "ran again: waiting for a CPU), where the recording has wake-ups; or whole spans "
		 "that were blocked (went to sleep) or preempted (switched out while runnable); "
		 "any: all of it (the default)"},

	{OPT_SECTION, .help = "Naming:"},
	{OPT_FLAG, "lines", 0, OPT_AT(R, o.names.lines),
	 .help = "name frames FUNCTION:FILE:LINE (--top: a Location column); the sampled line "
		 "for the leaf, the call site for callers"},
	{OPT_FLAG, "full-paths", 0, OPT_AT(R, o.names.full_paths),
	 .help = "with --lines, whole source paths, not base names"},
	{OPT_FLAG, "no-inline", 0, OPT_AT(R, o.names.no_inline),
	 .help = "only the real function of each frame, without the functions inlined into it "
		 "(marked _[i])"},
	{OPT_FLAG, "merge-inline", 0, OPT_AT(R, o.merge_inline),
	 .help = "count an inlined function as the function it is inlined into, as --no-inline "
		 "does, and an out-of-line call as its caller where the compiler inlined that "
		 "call elsewhere (in either recording of a --diff): an -O0 build's callee and "
		 "an -O2 build's inlined copy compare as their caller"},
	{OPT_FLAG, "stdio", 0, OPT_AT(R, stdio), .cmds = REPORT_CMD_REPORT | REPORT_CMD_ANNOTATE,
	 .help = "accepted as perf's: perfmini's reports are text already (perf report "
		 "--stdio's call graph is --tree)"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef FORMAT
#undef REPORT
#undef R

/* What a perf user may type that the three do not take, and what to use instead. */
#define NO_TUI	   "perfmini reports in text: --tree draws perf's call graphs, --top the table"
#define NO_SYMBOLS "there is no symbol filter: --tree and --top give each function a row"
#define NO_DSOS	   "there is no module filter: --sort module,symbol shows each row's module"
#define NO_KSYMS   "kernel functions were named while recording: the data file has their names"
#define NO_SYMFS   "frames were named while recording: the report needs no binaries"
#define NO_FIELDS  "--sort KEYS chooses the columns (comm, pid, tid, cgroup, module, symbol)"
#define NO_SEP	   "--folded and --json are made to be read by programs"
#define NO_BRANCH  "there are no branch records: perfmini samples call stacks"
#define NO_TRACE   "there is no hardware trace: perfmini samples call stacks"

static const struct opt_hint report_hints[] = {
	{"--tui", NO_TUI},
	{"--gtk", NO_TUI},
	{"--stdio2", NO_TUI},
	{"-G", "-g caller draws callees below callers, as perf's --inverted"},
	{"--inverted", "-g caller draws callees below callers"},
	{"-S", NO_SYMBOLS},
	{"--symbols", NO_SYMBOLS},
	{"--symbol-filter", NO_SYMBOLS},
	{"-d", NO_DSOS},
	{"--dsos", NO_DSOS},
	{"-c", "--comm NAMES keeps the threads of these names"},
	{"--comms", "--comm NAMES keeps the threads of these names"},
	{"-T", "--sort tid,symbol gives a row per thread and function"},
	{"--threads", "--sort tid,symbol gives a row per thread and function"},
	{"-p", "--tree -g callee shows each function's callers"},
	{"--parent", "--tree -g callee shows each function's callers"},
	{"-k", NO_KSYMS},
	{"--vmlinux", NO_KSYMS},
	{"--kallsyms", NO_KSYMS},
	{"--symfs", NO_SYMFS},
	{"-F", NO_FIELDS},
	{"--fields", NO_FIELDS},
	{"-t", NO_SEP},
	{"--field-separator", NO_SEP},
	{"--header", "--top prints the recording's header above its table"},
	{"--header-only", "--top prints the recording's header above its table"},
	{"--show-nr-samples", "--top shows the Self and Total samples beside the shares"},
	{"-b", NO_BRANCH},
	{"--branch-stack", NO_BRANCH},
	{"--branch-history", NO_BRANCH},
	{"--itrace", NO_TRACE},
	{"--mem-mode", "there are no memory samples: perfmini samples call stacks"},
	{NULL, NULL},
};

static const struct opt_hint script_hints[] = {
	{"-F", "each line is TIME PID TID CPU PERIOD COMM and the stack; --json has every field"},
	{"--fields", "each line is TIME PID TID CPU PERIOD COMM and the stack; --json has every "
		     "field"},
	{"-s", "there is no script engine: read --json from a program of your own"},
	{"--script", "there is no script engine: read --json from a program of your own"},
	{"-g", "there is no script engine: read --json from a program of your own"},
	{"--gen-script", "there is no script engine: read --json from a program of your own"},
	{"-S", "there is no symbol filter: --json's frames name each sample's functions"},
	{"--symbols", "there is no symbol filter: --json's frames name each sample's functions"},
	{"-k", NO_KSYMS},
	{"--vmlinux", NO_KSYMS},
	{"--itrace", NO_TRACE},
	{NULL, NULL},
};

static const struct opt_hint annotate_hints[] = {
	{"--tui", "perfmini annotates in text, as perf's --stdio"},
	{"--gtk", "perfmini annotates in text, as perf's --stdio"},
	{"--stdio2", "perfmini annotates in text, as perf's --stdio"},
	{"-l", "every source line is printed with its share already"},
	{"--print-line", "every source line is printed with its share already"},
	{"--asm-raw", "--asm adds the instructions, each with its samples"},
	{"--objdump", "--asm reads the recorded binary itself"},
	{"-d", "the function's name chooses it; --pid or --comm narrow the samples"},
	{"--dsos", "the function's name chooses it; --pid or --comm narrow the samples"},
	{"-k", NO_KSYMS},
	{"--vmlinux", NO_KSYMS},
	{"--symfs", NO_SYMFS},
	{NULL, NULL},
};

const struct cmd_spec report_spec = {
	.name = "report",
	.usage = "usage: perfmini report [-i FILE] [FORMAT] [-o FILE] [FILTERS] [NAMING]\n"
		 "\n"
		 "Reads a data file written by 'perfmini record' and reports it.\n"
		 "\n",
	.epilogue =
		"Examples:\n"
		"  perfmini report                          the hottest functions\n"
		"  perfmini report -g callee --percent-limit 5   who calls the hottest\n"
		"  perfmini report --folded | flamegraph.pl > profile.svg\n"
		"  perfmini report --folded > app.folded    then open it in speedscope\n"
		"  perfmini report --svg -o app.svg         then open it in a browser\n"
		"  perfmini report --pprof && go tool pprof -http=: perfmini.pb.gz\n"
		"  perfmini report --speedscope && speedscope perfmini.speedscope.json\n"
		"  perfmini report --firefox                then load it in the Firefox Profiler\n"
		"  perfmini report --pid 42 --time 1.5,3 --no-kernel\n"
		"  perfmini report -i new.data --diff old.data   what changed\n"
		"  perfmini report -i o2.data --diff o0.data --merge-inline\n"
		"  perfmini report --annotate=parse_line --asm   its hot lines and instructions\n"
		"See perfmini-report(1) and, for the file, perfmini-data(5).\n",
	.opts = options,
	.cmd = REPORT_CMD_REPORT,
	.hints = report_hints,
};

const struct cmd_spec script_spec = {
	.name = "script",
	.usage = "usage: perfmini script [-i FILE] [--json] [-o FILE] [FILTERS] [NAMING]\n"
		 "\n"
		 "Prints a data file one sample a line, as perf script does: the same as\n"
		 "'perfmini report --script' (--json: 'perfmini report --json').\n"
		 "\n",
	.epilogue = "Examples:\n"
		    "  perfmini script -i app.data | less\n"
		    "  perfmini script --json --comm app | jq .frames[0]\n"
		    "See perfmini-report(1).\n",
	.opts = options,
	.cmd = REPORT_CMD_SCRIPT,
	.hints = script_hints,
};

const struct cmd_spec annotate_spec = {
	.name = "annotate",
	.usage = "usage: perfmini annotate [-i FILE] [--asm] [-n N] [FILTERS] [NAMING] [FUNCTION]\n"
		 "\n"
		 "Prints a function's source with the share of its samples on each line, as\n"
		 "perf annotate --stdio does: the same as 'perfmini report --annotate'.\n"
		 "\n",
	.epilogue = "Examples:\n"
		    "  perfmini annotate parse_line             its hot lines\n"
		    "  perfmini annotate --asm -i app.data parse_line\n"
		    "  perfmini annotate -n 3                   the 3 hottest functions\n"
		    "See perfmini-report(1).\n",
	.opts = options,
	.cmd = REPORT_CMD_ANNOTATE,
	.hints = annotate_hints,
};
