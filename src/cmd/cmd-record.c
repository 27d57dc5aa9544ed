/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-record.c - "perfmini record": options to a record_opts, then run.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "cmd/record-opts.h"
#include "cmd/record.h"
#include "util/parse.h"

/*
 * --switch-output=SPEC: a time ("30s", "10m", "1h", "1d") or a size
 * ("512K", "100M", "1G", "4096B"), as perf's; at least 1 s or 64 KiB.
 */
static int opt_switch_output(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct record_opts *o = opts;
	char *end;
	double v = strtod(arg, &end);
	double ns = 0, bytes = 0;

	(void)row;
	if (end == arg || !(v > 0) || !end[0] || end[1])
		return -1;
	switch (end[0]) {
	case 's':
		ns = v * 1e9;
		break;
	case 'm':
		ns = v * 60e9;
		break;
	case 'h':
		ns = v * 3600e9;
		break;
	case 'd':
		ns = v * 86400e9;
		break;
	case 'B':
		bytes = v;
		break;
	case 'K':
		bytes = v * 1024;
		break;
	case 'M':
		bytes = v * 1048576;
		break;
	case 'G':
		bytes = v * 1073741824.0;
		break;
	default:
		return -1;
	}
	if ((ns && (ns < 1e9 || ns > 1e16)) || (bytes && (bytes < 65536 || bytes > 1e15)))
		return -1;
	o->switch_ns = (uint64_t)ns;
	o->switch_bytes = (uint64_t)bytes;
	return 0;
}

#define R struct record_opts

static const struct cmd_opt options[] = {
	{OPT_SECTION, .help = "Targets:"},
	{OPT_ROWS, .rows = record_target_rows},

	{OPT_SECTION, .help = "Sampling:"},
	{OPT_ROWS, .rows = record_sampling_rows},
	{OPT_SECONDS, "name-timeout", 0, "SECS", OPT_AT(R, name_timeout), .min = 0, .max = 1e7,
	 .what = "a number of seconds",
	 .help = "how long the stop may name frames (default 60, 0: no limit); a Control-C "
		 "during it (a second one, or the first once the command has ended) also cuts "
		 "it short: what is not named then is written unnamed"},
	{OPT_FLAG, "off-cpu", 0, OPT_AT(R, off_cpu),
	 .help = "also record each time a target thread is switched out: its stack and how "
		 "long it stays off the CPU (a context-switch event and switch records beside "
		 "the samples; costs time at every switch)"},
	{OPT_DURATION, "off-cpu-min", 0, "DURATION", OPT_AT(R, off_cpu_min_ns),
	 OPT_GIVEN(R, off_cpu), .flags = OPTF_EQ, .min = 0, .max = 1e18,
	 .what = "a duration such as 500us or 2ms",
	 .help = "leave out off-CPU spans shorter than DURATION (such as 500us, 2ms; a bare "
		 "number is in microseconds; default 0: keep all); implies --off-cpu"},
	{OPT_FLAG, "off-cpu-only", 0, OPT_AT(R, off_cpu_only),
	 .help = "record the off-CPU spans alone, without CPU samples: the context-switch "
		 "event is the only sampling event (no CPU timer per thread to restart at each "
		 "switch), so this costs the least of the off-CPU modes; -e, -F and -c do not "
		 "apply"},

	{OPT_SECTION, .help = "Output and control:"},
	{OPT_STRING, "output", 'o', "FILE", OPT_AT(R, output), .what = "a file name",
	 .complete = COMPLETE_FILE, .help = "the data file (default perfmini.data)"},
	{OPT_SECONDS, "duration", 'd', "SECONDS", OPT_AT(R, duration), .flags = OPTF_MIN_OPEN,
	 .min = 0, .max = 1e7, .what = "a positive number of seconds",
	 .help = "stop after this long"},
	{OPT_CALL, "switch-output", 0, "SPEC", .flags = OPTF_EQ, .call = opt_switch_output,
	 .what = "a time (30s, 10m, 1h, 1d) or a size (512K, 100M, 1G), at least 1s or 64K",
	 .help = "continuous recording: close the data file every SPEC of time (30s, 10m, 1h, "
		 "1d) or when it reaches SPEC bytes (512K, 100M, 1G), and go on in the next; each "
		 "a complete file named OUTPUT.YYYYMMDDhhmmssSSS (the time it starts), names "
		 "included"},
	{OPT_NUMBER, "switch-max-files", 0, "N", OPT_SIZE(R, switch_max_files), .min = 1,
	 .max = 1e6, .what = "a number of files",
	 .help = "with --switch-output, keep the newest N files: the oldest is removed when "
		 "one more is started"},
	{OPT_FLAG, "quiet", 'q', OPT_AT(R, quiet), .help = "no status line and no summary"},
	{OPT_HELP, "help", 'h', .help = "this help"},
	{OPT_END},
};

#undef R

/* What a perf user may type that record does not take, and what to use instead. */
#define NO_BRANCH "there are no branch records: perfmini samples call stacks (--call-graph)"
#define NO_REGS	  "no registers are kept: --call-graph=dwarf copies what unwinding needs"

static const struct opt_hint hints[] = {
	{"-b", NO_BRANCH},
	{"--branch-any", NO_BRANCH},
	{"-j", NO_BRANCH},
	{"--branch-filter", NO_BRANCH},
	{"-s", "perfmini samples stacks; perf stat counts events"},
	{"--stat", "perfmini samples stacks; perf stat counts events"},
	{"-R", "tracepoints' raw data is not kept: each hit's stack is"},
	{"--raw-samples", "tracepoints' raw data is not kept: each hit's stack is"},
	{"--data", "there are no data addresses: perfmini samples call stacks"},
	{"-z", "data files are not compressed: --switch-output keeps each one small"},
	{"--compression-level",
	 "data files are not compressed: --switch-output keeps each one small"},
	{"-i", "threads and children are always followed: -t TID records only those threads"},
	{"--no-inherit", "threads and children are always followed: -t TID records only those "
			 "threads"},
	{"-G", "each sample keeps its cgroup: record -a, then report --cgroup PATHS"},
	{"--cgroup", "each sample keeps its cgroup: record -a, then report --cgroup PATHS"},
	{"-T", "every sample keeps its time already (report --time, --script)"},
	{"--timestamp", "every sample keeps its time already (report --time, --script)"},
	{"--user-regs", NO_REGS},
	{"--intr-regs", NO_REGS},
	{"--per-thread", "events are opened per CPU, or per thread for -t: nothing to choose"},
	{"-N", "names are read while recording, from the binaries: no build-id cache is kept"},
	{"--no-buildid-cache", "names are read while recording: no build-id cache is kept"},
	{"-B", "names are read while recording: no build-id cache is kept"},
	{"--no-buildid", "names are read while recording: no build-id cache is kept"},
	{"-r", "run it under chrt: chrt -f 10 perfmini record ..."},
	{"--realtime", "run it under chrt: chrt -f 10 perfmini record ..."},
	{"-D", "start it later: sleep N; perfmini record -p PID"},
	{"--delay", "start it later: sleep N; perfmini record -p PID"},
	{NULL, NULL},
};

const struct cmd_spec record_spec = {
	.name = "record",
	.usage = "usage: perfmini record [options] -- COMMAND [ARG...]\n"
		 "       perfmini record [options] -p PID[,PID...] | -t TID[,TID...] | -a\n"
		 "\n"
		 "Samples call stacks of a command, of running processes or threads, or of the\n"
		 "whole system, and writes them to a data file for 'perfmini report'.\n",
	.epilogue = "Recording stops when the command or every target has exited, after -d, or "
		    "on\nSIGINT or SIGTERM; what was sampled until then is written. See "
		    "perfmini-record(1).\n",
	.opts = options,
	.operands_end_options = true,
	.operands = COMPLETE_COMMAND,
	.hints = hints,
};

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int first, ret;

	record_opts_init(&o);
	o.argc_shown = argc;
	o.argv_shown = argv;
	ret = cmd_parse(&record_spec, argc, argv, &o, &first);
	if (ret >= 0)
		goto out;
	if (o.off_cpu_only && !o.ev_given) {
		/* Every switch-out sampled: the span's stack; no CPU samples. */
		o.off_cpu = true;
		o.ev.ev = event_find("context-switches");
		o.ev.period = 1;
		o.ev.freq = 0;
	}
	if ((ret = record_opts_finish("record", &o, argc, argv, first)) >= 0)
		goto out;
	if (o.off_cpu_only && o.ev_given)
		ret = cmd_usage_error("record",
				      "--off-cpu-only takes no CPU samples: -e, -F and -c "
				      "do not apply");
	else if (o.switch_max_files && !o.switch_ns && !o.switch_bytes)
		ret = cmd_usage_error("record", "--switch-max-files applies to --switch-output");
	else if ((o.switch_ns || o.switch_bytes) && !strcmp(o.output, "-"))
		ret = cmd_usage_error("record", "--switch-output writes files: not with -o -");
	else
		ret = record_run(&o);
out:
	free(o.pids);
	free(o.tids);
	free(o.debug_dirs);
	return ret;
}
