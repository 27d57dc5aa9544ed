/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-report.c - "perfmini report": read a data file, print it in one of
 * the formats of the table below, to standard output or to a file that
 * appears complete or not at all (written under a temporary name, then
 * renamed).
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/aggregate.h"
#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/report-code.h"
#include "cmd/report-inputs.h"
#include "store/datafile.h"
#include "util/outfile.h"
#include "report/report.h"
#include "util/alloc.h"
#include "util/array.h"
#include "util/msg.h"

/*
 * Runs f into path (outfile.h: a regular file replaced whole, a device,
 * FIFO or standard stream written directly); "-" is standard output.
 */
static int write_output(const struct report_format *f, const struct profile *p,
			const struct report_opts *o, const char *path)
{
	struct outfile file;
	const char *why;
	struct stat st;
	mode_t mask;
	FILE *out;
	int fd, ret;

	/* A report is an ordinary file: the umask's mode, not 0600. */
	mask = umask(0);
	umask(mask);
	ret = outfile_open(&file, path, 0666 & ~mask, 0, &why);
	if (ret < 0) {
		error("cannot create '%s': %s", path, why ? why : strerror(-ret));
		return ret;
	}
	if (f->binary && isatty(file.fd)) {
		error("not writing the %s format to a terminal: give -o FILE, or redirect",
		      f->name);
		outfile_abandon(&file);
		return -ENOTTY;
	}
	fd = dup(file.fd);
	out = fd < 0 ? NULL : fdopen(fd, "w");
	if (!out) {
		ret = -errno;
		if (fd >= 0)
			close(fd);
		error("cannot write '%s': %s", path, strerror(-ret));
		outfile_abandon(&file);
		return ret;
	}
	ret = report_write(f, p, o, out);
	/* The flush's errno says more than a format's -EIO (EFBIG, ENOSPC). */
	if (fflush(out) != 0)
		ret = -errno;
	if (fclose(out) != 0 && ret == 0)
		ret = -errno;
	if (ret < 0) {
		error("cannot write '%s': %s", path, strerror(-ret));
		outfile_abandon(&file);
		return ret;
	}
	if (outfile_is_stream(&file)) {
		outfile_abandon(&file); /* nothing to rename: closes it */
		return 0;
	}
	ret = outfile_commit(&file);
	if (ret < 0) {
		error("cannot write '%s': %s", path, strerror(-ret));
		return ret;
	}
	if (stat(path, &st) == 0)
		fprintf(stderr, "%s: wrote %s (%lld KiB)\n", progname, path,
			(long long)(st.st_size + 1023) / 1024);
	return 0;
}

/* report's options: the report's own, and what the command decides with them. */
struct report_cmd {
	struct report_opts o;
	const struct report_format *f; /* NULL: the first, --top */
	const char *output;	       /* NULL: the format's default */
	bool force, rows_given, sort_given, per_pid, per_tid, asm_view, source_given;
	bool wakers, type_given;
	const char **inputs; /* -i */
	size_t ninputs;
	bool time_given, since_given, until_given;
	const char *tree_opt; /* the first option that makes a tree (-g, --children...) */
};

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

#define R struct report_cmd
#define FORMAT(name, text)                                                                    \
	{                                                                                     \
		OPT_CALL, name, .call = opt_format, .what = "choose one format", .help = text \
	}

static const struct cmd_opt options[] = {
	{OPT_STRINGS, "input", 'i', "FILE", OPT_LIST(R, inputs, ninputs), .what = "a file name",
	 .complete = COMPLETE_FILE,
	 .help = "the data file (default perfmini.data); given more than once, or a directory "
		 "(its files, as record --switch-output writes them), the files are merged into "
		 "one report"},
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
		 "file's total"},
	{OPT_CALL, "diff-key", 0, "KEYS", .flags = OPTF_EQ, .call = opt_diff_key,
	 .what = "module, thread or module,thread", .complete = COMPLETE_WORDS,
	 .words =
		 (const struct opt_word[]){
			 {"module", 0}, {"thread", 0}, {"module,thread", 0}, {NULL, 0}},
	 .help = "with --diff, what must match besides a function's name, comma-separated: "
		 "'module' its module's base name, 'thread' its thread's name (stacks then keep "
		 "their root frame); by default neither, so that two builds of a program under "
		 "other names compare"},

	{OPT_SECTION, .help = "Formats:"},
	FORMAT("top", "(the default) a header on the recording, then the functions by self "
		      "share: self %, total %, self and total samples, module; on a terminal, cut "
		      "to its width (C++ names keep their own name); elsewhere never cut"),
	{OPT_NUMBER, "rows", 'n', "N", OPT_SIZE(R, o.rows), OPT_GIVEN(R, rows_given), .min = 0,
	 .max = 1e9, .what = "a number of rows",
	 .help = "--top, --tree: N rows (--top: default 25 on a terminal, all otherwise; 0 for "
		 "all); "
		 "--annotate without a FUNCTION: the N hottest functions (default 5)"},
	{OPT_CALL, "sort", 0, "KEYS", OPT_GIVEN(R, sort_given), .call = opt_sort,
	 .what = "self, total, or keys among comm, pid, tid, cgroup, module, symbol",
	 .complete = COMPLETE_WORDS,
	 .words = (const struct opt_word[]){{"self", 0},
					    {"total", 0},
					    {"comm", 0},
					    {"pid", 0},
					    {"tid", 0},
					    {"cgroup", 0},
					    {"module", 0},
					    {"symbol", 0},
					    {NULL, 0}},
	 .help = "--top: order by 'self' (default) or 'total' samples; or, as perf report's "
		 "--sort, a row per distinct combination of KEYS, comma-separated: comm (the "
		 "thread's name), pid (the process), tid (the thread), cgroup (its v2 path), "
		 "module (or dso), symbol (or sym); the default is module,symbol. --tree: the "
		 "same. --folded: comm, "
		 "pid, tid or cgroup, the root frame"},
	FORMAT("tree", "the hottest functions, each with the tree of its callees (or, -g callee, "
		       "its callers) and their shares of all samples, drawn as perf report --stdio "
		       "draws its call graphs; branches under -g's threshold folded into one line. "
		       "With --diff, each share's change in points. -n, --sort, every filter and "
		       "--sample-type apply"),
	{OPT_CALL, "call-graph", 'g', "WORDS", .call = opt_call_graph,
	 .what = "made of caller or callee, graph, function or address, and a threshold in "
		 "percent; perf's flat, fractal and folded are not drawn here (--tree draws "
		 "graphs, --folded folds stacks)",
	 .help = "--tree as perf report's -g: 'caller' draws each function's callees (the "
		 "default with --children), 'callee' its callers (the default with "
		 "--no-children); a number is the share (%) under which branches are folded "
		 "(default 0.5); 'address' names frames with their lines (--lines); 'graph' and "
		 "'function' are the default. Makes the report a --tree"},
	{OPT_CALL, "children", 0, .off = false, .call = opt_children,
	 .help = "--tree: a row's share is every sample the function is in (Children), beside "
		 "its own (Self); rows by Children (the default)"},
	{OPT_CALL, "no-children", 0, .off = true, .call = opt_children,
	 .help = "--tree: rows by their own samples only, each with the tree of those"},
	{OPT_CALL, "percent-limit", 0, "PCT", .call = opt_percent_limit,
	 .what = "a share in percent, from 0 to 100",
	 .help = "--tree: leave out the functions under PCT% of the samples (their Children, or "
		 "Self with --no-children)"},
	FORMAT("folded", "folded stacks, comm;outermost;...;leaf COUNT, for flamegraph.pl and "
			 "speedscope"),
	FORMAT("pprof", "gzipped profile.proto for pprof (default output perfmini.pb.gz)"),
	FORMAT("svg", "an interactive flame graph (default output perfmini.svg): hover, click "
		      "to zoom, Ctrl-F to search"),
	FORMAT("script", "one line per sample, as perf script: TIME PID TID CPU PERIOD "
			 "COMM<tab>outermost;...;leaf (folded names)"),
	FORMAT("json", "one JSON object per line and sample: time, pid, tid, cpu, period, comm "
		       "and frames (innermost first)"),
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
		 "FUNCTION the hottest functions (-n). A C++ name may leave out its parameters"},
	{OPT_FLAG, "asm", 0, OPT_AT(R, asm_view),
	 .help = "--annotate: the function's instructions too, each with its samples, read "
		 "from the recorded file (which must have the recorded build-id)"},
	{OPT_STRINGS, "source-dir", 0, "DIR", OPT_LIST(R, o.source_dirs, o.nsource_dirs),
	 OPT_GIVEN(R, source_given), .what = "a directory", .complete = COMPLETE_DIR,
	 .help = "--annotate: look for source files under DIR too (the recorded path below it, "
		 "then less its leading directories); may be given more than once"},

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
		 "--top: the stacks that slept longest, each with its wakers' shares; --folded: "
		 "SLEEPER;--;WAKER stacks as offwaketime folds them, in ns"},
	{OPT_KEYWORD, "sample-type", 0, "TYPE", OPT_AT(R, o.sample_type), OPT_GIVEN(R, type_given),
	 .flags = OPTF_EQ, .complete = COMPLETE_WORDS,
	 .words = (const struct opt_word[]){{"cpu", REPORT_CPU},
					    {"off-cpu", REPORT_OFF_CPU},
					    {"wall", REPORT_WALL},
					    {NULL, 0}},
	 .help = "cpu: the samples (the default); off-cpu: the time threads spent switched out "
		 "(record --off-cpu), in nanoseconds; wall: both, each sample weighing its "
		 "thread's time on the CPU since its previous sample, plus the off-CPU time"},
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
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef FORMAT
#undef R

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
};

/* A usage error of report's (cmd_usage_error). */
#define usage_error(...) cmd_usage_error("report", __VA_ARGS__)

/*
 * --sort against the format and the other options; its thread keys make
 * the root frames (the finest of them). 0 or the usage error's status.
 */
static int check_sort(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	unsigned threads = o->row_keys & REPORT_ROW_THREAD;
	unsigned roots = o->row_keys & (REPORT_ROW_THREAD | REPORT_ROW_CGROUP);

	if (!c->sort_given)
		return 0;
	if (c->f->write == fmt_folded && (!roots || o->row_keys != roots))
		return usage_error(
			"--sort with --folded takes comm, pid, tid or cgroup (the root frame)");
	if (threads && (o->row_keys & REPORT_ROW_CGROUP))
		return usage_error("--sort: cgroup and comm, pid or tid cannot be combined");
	threads = roots;
	if (c->f->write != fmt_top && c->f->write != fmt_folded && c->f->write != fmt_tree)
		return usage_error("--sort applies to --top, --tree and --folded, not --%s",
				   c->f->name);
	if (threads && (c->per_pid || c->per_tid))
		return usage_error("--sort's comm, pid, tid and cgroup and --per-%s: give one",
				   c->per_pid ? "pid" : "tid");
	if (threads && o->base_input)
		return usage_error("--sort's comm, pid, tid and cgroup do not apply to --diff "
				   "(--diff-key=thread keeps threads apart)");
	if (threads & REPORT_ROW_CGROUP)
		o->root = REPORT_ROOT_CGROUP;
	else if (threads & REPORT_ROW_TID)
		o->root = REPORT_ROOT_TID;
	else if (threads & REPORT_ROW_PID)
		o->root = REPORT_ROOT_PID;
	return 0;
}

/* --wakers: its formats, the off-CPU time; 0 or the usage error's status. */
static int check_wakers(struct report_cmd *c)
{
	if (!c->wakers)
		return 0;
	if (c->f->write != fmt_top && c->f->write != fmt_folded)
		return usage_error("--wakers applies to --top and --folded, not --%s", c->f->name);
	if (c->type_given || c->o.base_input || c->sort_given)
		return usage_error("--wakers weighs sleeping time: %s does not apply",
				   c->type_given   ? "--sample-type"
				   : c->sort_given ? "--sort"
						   : "--diff");
	c->o.sample_type = REPORT_OFF_CPU;
	return 0;
}

/* What the options together say against each other; 0 or the usage error's status. */
static int check_options(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	int ret;

	if (o->no_kernel && o->kernel_only)
		return usage_error("%s and --kernel-only exclude each other", "--no-kernel");
	if (c->per_pid && c->per_tid)
		return usage_error("%s and --per-tid exclude each other", "--per-pid");
	if (o->diff_key && !o->base_input)
		return usage_error("--diff-key applies to --diff");
	/* Two recordings' ids differ: their roots would never match. */
	if (o->base_input && (c->per_pid || c->per_tid))
		return usage_error(
			"--%s does not apply to --diff (--diff-key=thread matches threads "
			"by name)",
			c->per_pid ? "per-pid" : "per-tid");
	o->root = c->per_pid ? REPORT_ROOT_PID : c->per_tid ? REPORT_ROOT_TID : REPORT_ROOT_COMM;
	if (!c->f)
		c->f = report_format_find(c->tree_opt ? "tree" : "top");
	if (c->tree_opt && c->f->write != fmt_tree)
		return usage_error("--%s applies to --tree, not --%s", c->tree_opt, c->f->name);
	/* As perf: --children orders by Children, unless --sort says self. */
	if (c->f->write == fmt_tree && !o->tree_self && !(c->sort_given && !o->row_keys))
		o->sort = REPORT_SORT_TOTAL;
	if ((ret = check_sort(c)) != 0)
		return ret;
	if ((ret = check_wakers(c)) != 0)
		return ret;
	if ((c->since_given || c->until_given) && c->time_given)
		return usage_error("--time and --since or --until exclude each other");
	if (c->rows_given && c->f->write != fmt_top && c->f->write != fmt_annotate &&
	    c->f->write != fmt_tree)
		return usage_error("-n applies to --top, --tree and --annotate, not --%s",
				   c->f->name);
	if ((c->asm_view || c->source_given) && c->f->write != fmt_annotate)
		return usage_error("--%s applies to --annotate",
				   c->asm_view ? "asm" : "source-dir");
	o->own_sources = !c->force;
	if (o->base_input && !c->f->diff)
		return usage_error("--diff applies to --top, --folded, --svg and --pprof, not --%s",
				   c->f->name);
	if (!c->output)
		c->output = c->f->default_output;
	return 0;
}

/*
 * Whether p (NULL: none) has off-CPU spans to show, as far as its file
 * says (files written before perfmini said so count as having them). For
 * a --diff base (its file name in base_name), one without says so: every
 * span of the new recording would look new.
 */
static bool off_cpu_recorded(const struct profile *p, const char *base_name)
{
	const char *v = p ? profile_get_meta(p, "off-cpu") : NULL;

	if (!v || strcmp(v, "no"))
		return true;
	if (base_name)
		error("%s was recorded without --off-cpu: an off-CPU or wall diff against it would "
		      "show every span as new; record the base with --off-cpu",
		      base_name);
	return false;
}

/*
 * --annotate: the function named must have samples (else one line, 1);
 * --asm gets its disassembler in code. 0 otherwise.
 */
static int annotate_ready(struct report_cmd *c, const struct profile *p, struct report_code *code)
{
	struct sbuf why = SBUF_INIT;

	if (c->f->write != fmt_annotate)
		return 0;
	if (report_annotate_check(p, &c->o, &why) < 0) {
		error("%s", why.buf);
		sbuf_release(&why);
		return 1;
	}
	if (c->asm_view) {
		report_code_init(code);
		c->o.code = &code->code;
	}
	return 0;
}

/*
 * --wakers: the file must have wake-ups (else one line, 1); wf gets the
 * format that shows them. 0 otherwise.
 */
static int wakers_ready(const struct report_cmd *c, const struct profile *p,
			struct report_format *wf)
{
	const char *v = profile_get_meta(p, "wake-ups");

	if (!v || strcmp(v, "yes")) {
		error("%s has no wake-ups: record with --off-cpu, where the kernel lets the "
		      "sched_waking tracepoint be sampled (record says when it does not)",
		      c->o.input);
		return 1;
	}
	*wf = *c->f;
	wf->write = c->f->write == fmt_top ? fmt_wakers_top : fmt_wakers_folded;
	wf->aggregated = false; /* the wakers' formats group the spans themselves */
	return 0;
}

/*
 * What the recordings read say against the options, before any output:
 * 0, or the exit status after one line.
 */
static int check_recordings(struct report_cmd *c, const struct profile *p)
{
	struct report_opts *o = &c->o;
	const char *lines_meta;
	int ret;

	ret = report_check_view(p, o->input, &o->sample_type, c->type_given,
				o->offcpu_state != REPORT_STATE_ANY, c->f->write == fmt_annotate);
	if (ret != 0)
		return ret;
	if (aggregate_place_window(o, p) < 0) {
		error("%s has no start time: --since and --until cannot be placed in it", o->input);
		return 1;
	}
	if (o->sample_type != REPORT_CPU && o->base && !off_cpu_recorded(o->base, o->base_input))
		return 1;
	if ((o->ncgroups || (o->row_keys & REPORT_ROW_CGROUP)) && !profile_get_meta(p, "cgroups")) {
		error("%s was recorded without cgroups (by an older perfmini): --%s does not apply",
		      o->input, o->ncgroups ? "cgroup" : "sort=cgroup");
		return 1;
	}
	if (o->sample_type != REPORT_CPU && !off_cpu_recorded(p, NULL))
		warning("%s was recorded without --off-cpu: it has no off-CPU time to show",
			o->input);
	lines_meta = profile_get_meta(p, "lines");
	if (o->names.lines && lines_meta && strcmp(lines_meta, "no") == 0)
		warning("%s was recorded with --no-lines: it has no source lines to show",
			o->input);
	return 0;
}

/* Reads the data files and writes the report: the exit status. */
static int report(struct report_cmd *c)
{
	struct report_opts *o = &c->o;
	bool wall = o->sample_type == REPORT_WALL;
	struct profile *p, *base = NULL;
	struct report_code code;
	struct report_format wf;
	int ret = 1;

	p = report_read_inputs(c->inputs, c->ninputs, o->input, c->force, wall);
	if (!p)
		return 1;
	if (o->base_input && !(base = report_read_one(o->base_input, c->force, wall)))
		goto out;
	o->base = base;
	if ((ret = check_recordings(c, p)) != 0)
		goto out;
	aggregate_prepare(o, p);
	ret = annotate_ready(c, p, &code);
	if (ret == 0 && c->wakers)
		ret = wakers_ready(c, p, &wf);
	if (ret == 0)
		ret = write_output(c->wakers ? &wf : c->f, p, o, c->output ? c->output : "-") < 0
			      ? 1
			      : 0;
	if (o->code)
		report_code_release(&code);
out:
	if (FREE_AT_EXIT) {
		profile_free(p);
		profile_free(base);
	}
	return ret;
}

int cmd_report(int argc, char **argv)
{
	struct report_cmd c = {.o = {.input = "perfmini.data", .rows = -1, .tree_threshold = 0.5}};
	int first, ret;

	ret = cmd_parse(&report_spec, argc, argv, &c, &first);
	if (c.ninputs)
		c.o.input = c.inputs[0];
	if (ret >= 0)
		goto out;
	if (first < argc)
		ret = usage_error("unexpected argument '%s'", argv[first]);
	else if ((ret = check_options(&c)) == 0)
		ret = report(&c);
out:
	free(c.inputs);
	aggregate_opts_release(&c.o);
	return ret;
}
