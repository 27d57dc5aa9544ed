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
#include "cmd/record.h"
#include "util/parse.h"

/* How long the stop may spend naming frames, by default: see perfmini-record(1). */
#define NAME_TIMEOUT_DEFAULT 60.0

/* The default stack copies of DWARF and hybrid modes; see perfmini-record(1) for the choice. */
#define DWARF_STACK_DEFAULT  32768
#define HYBRID_STACK_DEFAULT 8192

/* The default mode: hybrid, with its default copy. */
static void default_call_graph(struct event_opts *ev)
{
	ev->callchain = true;
	ev->hybrid = true;
	ev->dwarf_stack = HYBRID_STACK_DEFAULT;
}

/* "hybrid[,BYTES]", "fp", "dwarf[,BYTES]" or "none" into opts; -EINVAL when malformed. */
static int parse_call_graph(const char *s, struct event_opts *ev)
{
	size_t len = strcspn(s, ",");
	uint64_t v;

	ev->dwarf_stack = 0;
	ev->hybrid = false;
	ev->callchain = strcmp(s, "none") != 0;
	if (!strcmp(s, "fp") || !strcmp(s, "none"))
		return 0;
	if (len == 6 && !strncmp(s, "hybrid", 6)) {
		ev->hybrid = true;
		v = HYBRID_STACK_DEFAULT;
	} else if (len == 5 && !strncmp(s, "dwarf", 5)) {
		v = DWARF_STACK_DEFAULT;
	} else {
		return -EINVAL;
	}
	if (s[len] == ',' && (parse_u64(s + len + 1, &v) || v < 8 || v > 65528))
		return -EINVAL;
	ev->dwarf_stack = (uint32_t)((v + 7) & ~7ULL);
	return 0;
}

/* --call-graph=MODE, -g (the default mode) and --no-call-graph. */
static int opt_call_graph(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct event_opts *ev = &((struct record_opts *)opts)->ev;

	if (row->key == 'g') {
		default_call_graph(ev);
		return 0;
	}
	return parse_call_graph(arg ? arg : "none", ev);
}

/*
 * What the parse of -e, -F and -c leaves for cmd_record, which runs once
 * a process: the event of the last -e, and whether -F or -c gave a rate.
 */
static struct {
	struct event_desc event; /* its name is the -e argument itself */
	const char *spec;	 /* the -e that could not be opened as an event, and why */
	int err;
	bool rate_given;
} parsed;

/*
 * -e EVENT[:MODS], or a tracepoint SYSTEM:NAME[:MODS] (event_parse). A
 * tracepoint that cannot be read is said after the parse, with its cause.
 */
static int opt_event(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct record_opts *o = opts;
	unsigned mods;
	int ret = event_parse(arg, &parsed.event, &mods);

	(void)row;
	o->ev_given = true;
	if (ret == -EINVAL || (ret == -ENOENT && !strchr(arg, ':')))
		return -1;
	parsed.spec = ret < 0 ? arg : NULL;
	parsed.err = ret;
	o->ev.ev = &parsed.event;
	o->ev.no_kernel |= (mods & EVENT_MOD_USER) != 0;
	o->ev.no_user = (mods & EVENT_MOD_KERNEL) != 0;
	return 0;
}

/* Why -e's tracepoint could not be had, as its usage error says it; 2. */
static int event_error(void)
{
	const char *why = parsed.err == -ENODEV	  ? "no tracefs is mounted, and it could not be "
						    "mounted at /sys/kernel/tracing"
			  : parsed.err == -EACCES ? "tracefs is not readable here (run as root)"
			  : parsed.err == -ENOENT ? "no such tracepoint in tracefs (see its "
						    "events/ directory, or perf list tracepoint)"
						  : strerror(-parsed.err);

	return cmd_usage_error("record", "-e %s: %s", parsed.spec, why);
}

/* The name of event i, for the completion. */
static const char *event_at(size_t i)
{
	size_t n;
	const struct event_desc *list = event_list(&n);

	return i < n ? list[i].name : NULL;
}

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

/* -F HZ, or -F max: the kernel's highest (kernel.perf_event_max_sample_rate). */
static int opt_freq(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct record_opts *o = opts;
	uint64_t v;

	(void)row;
	if (!strcmp(arg, "max") ? event_max_frequency(&v) < 0
				: parse_u64(arg, &v) < 0 || v == 0 || v > 1000000)
		return -1;
	parsed.rate_given = true;
	o->ev.freq = v;
	o->ev.period = 0;
	o->ev_given = true;
	return 0;
}

/* -c PERIOD: one sample every PERIOD events, which replaces an earlier -F. */
static int opt_count(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct record_opts *o = opts;
	uint64_t v;

	(void)row;
	if (parse_u64(arg, &v) < 0 || v == 0)
		return -1;
	o->ev.period = v;
	o->ev_given = parsed.rate_given = true;
	return 0;
}

#define R struct record_opts

static const struct cmd_opt options[] = {
	{OPT_SECTION, .help = "Targets:"},
	{OPT_IDS, "pid", 'p', "PID[,PID...]", OPT_LIST(R, pids, npids), .min = 1, .max = INT32_MAX,
	 .what = "a list of process ids", .complete = COMPLETE_PIDS,
	 .help = "every thread of these processes, and their later threads and children"},
	{OPT_IDS, "tid", 't', "TID[,TID...]", OPT_LIST(R, tids, ntids), .min = 1, .max = INT32_MAX,
	 .what = "a list of thread ids", .complete = COMPLETE_PIDS, .help = "these threads only"},
	{OPT_FLAG, "all-cpus", 'a', OPT_AT(R, system_wide),
	 .help = "every process on the system (with a command: until it exits)"},
	{OPT_STRING, "cpu", 'C', "CPULIST", OPT_AT(R, cpulist), .what = "a list of CPUs",
	 .help = "only these CPUs, such as 0-3,6"},
	{OPT_OPERAND, .arg = "COMMAND [ARG...]",
	 .help = "run the command and follow its descendants"},

	{OPT_SECTION, .help = "Sampling:"},
	{OPT_CALL, "event", 'e', "EVENT", .call = opt_event,
	 .what = "a known event or a tracepoint SYSTEM:NAME, then :u or :k if any",
	 .complete = COMPLETE_WORDS, .word_at = event_at,
	 .help = "cpu-clock (default), task-clock, page-faults, context-switches, or a hardware "
		 "event where the machine has a PMU: cycles, instructions, cache-references, "
		 "cache-misses, branches, branch-misses, ref-cycles; or a tracepoint SYSTEM:NAME "
		 "of tracefs (sched:sched_switch, syscalls:sys_enter_write), each hit sampled "
		 "unless -c or -F says otherwise. As perf's, :u samples only user code (as "
		 "--no-kernel), :k only the kernel (cpu-clock:u)"},
	{OPT_CALL, "freq", 'F', "HZ", .call = opt_freq,
	 .what = "a frequency from 1 to 1000000, or max",
	 .help = "samples per second per CPU (default 999); max: the kernel's highest, "
		 "kernel.perf_event_max_sample_rate"},
	{OPT_CALL, "count", 'c', "PERIOD", .call = opt_count, .what = "a positive number of events",
	 .help = "one sample every PERIOD events instead of -F"},
	{OPT_CALL, NULL, 'g', .call = opt_call_graph,
	 .help = "call chains, in the default mode (hybrid)"},
	{OPT_CALL, "call-graph", 0, "MODE", .flags = OPTF_EQ, .call = opt_call_graph,
	 .what = "hybrid[,BYTES], fp, dwarf[,BYTES] or none", .complete = COMPLETE_WORDS,
	 .words =
		 (const struct opt_word[]){
			 {"hybrid", 0}, {"fp", 0}, {"dwarf", 0}, {"none", 0}, {NULL, 0}},
	 .help = "hybrid[,BYTES] (the default): copy BYTES of user stack per sample (default "
		 "8192) with the user registers and the frame-pointer chain, unwind the copy with "
		 "the binaries' unwind tables and go on beyond it along the chain where it is "
		 "verified; fp: frame-pointer call chains only (wrong callers in code built "
		 "without frame pointers); dwarf[,BYTES]: unwind tables only, over a copy of BYTES "
		 "(default 32768, at most 65528); none: no call chains"},
	{OPT_CALL, "no-call-graph", 0, .call = opt_call_graph,
	 .help = "the same as --call-graph=none"},
	{OPT_FLAG, "no-kernel", 0, OPT_AT(R, ev.no_kernel), .help = "leave kernel code out"},
	{OPT_NUMBER, "mmap-pages", 'm', "PAGES", OPT_SIZE(R, mmap_pages), OPT_GIVEN(R, pages_given),
	 .flags = OPTF_POW2, .min = 1, .max = 1 << 20, .what = "a power of two up to 1048576",
	 .help = "ring buffer pages per CPU, a power of two (default 128 with fp, 1024 in the "
		 "hybrid and dwarf modes, 4096 there with --off-cpu; more above -F 4000)"},
	{OPT_STRINGS, "debug-dir", 0, "DIR", OPT_LIST(R, debug_dirs, ndebug_dirs),
	 .complete = COMPLETE_DIR, .help = CMD_DEBUG_DIR_HELP},
	{OPT_FLAG, "no-lines", 0, OPT_AT(R, no_lines),
	 .help = "name frames from the symbol tables only: no source lines and no inlined "
		 "functions (reads no DWARF debug info: less memory and a quicker stop)"},
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

/* The rings' most in all, by default: 256 MiB of 4 KiB pages. */
#define RING_BUDGET_PAGES 65536u

/*
 * The default ring of each CPU: 128 pages (512 KiB), which holds about
 * three seconds of one busy CPU's frame-pointer samples at 999 Hz; 1024 in
 * the hybrid and DWARF modes, whose samples carry 8 and 32 KiB of stack
 * (half and an eighth of a second): a ring woken at a quarter of its
 * size wakes the recorder every 120 hybrid samples, which on a virtual
 * machine's CPUs costs more than the draining. Above 4,000 Hz it
 * doubles with each doubling of the frequency, up to eight times above
 * 16,000 Hz, so that a ring still holds most of a second of samples and
 * the recorder may fall behind for that long without losing any.
 */
static unsigned default_ring_pages(const struct event_opts *ev, bool off_cpu)
{
	unsigned pages = ev->dwarf_stack ? 1024 : 128;
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	for (uint64_t f = 4000; ev->period == 0 && ev->freq > f && f < 32000; f *= 2)
		pages *= 2;
	/*
	 * --off-cpu with stack copies: a switch-out and a wake-up each take
	 * as much room in the ring as the copy may (8 KiB by default), at
	 * tens of thousands a second where threads switch all the time. 4096
	 * pages (16 MiB) hold some 30 ms of pipe round trips pinned to one
	 * CPU, where 1024 lost up to 4% of the switch records when the
	 * recorder was woken late; fewer on a machine of many CPUs, so that
	 * the rings stay within 256 MiB, but never under 1024.
	 */
	while (off_cpu && ev->dwarf_stack && pages < 4096 &&
	       (ncpus <= 0 || (uint64_t)ncpus * pages * 2 <= RING_BUDGET_PAGES))
		pages *= 2;
	return pages;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int first, targets, ret;

	memset(&o, 0, sizeof(o));
	o.ev.ev = event_find("cpu-clock");
	o.ev.freq = 999;
	default_call_graph(&o.ev);
	o.output = "perfmini.data";
	o.name_timeout = NAME_TIMEOUT_DEFAULT;
	o.argc_shown = argc;
	o.argv_shown = argv;
	ret = cmd_parse(&record_spec, argc, argv, &o, &first);
	if (ret >= 0)
		goto out;
	if (parsed.spec) {
		ret = event_error();
		goto out;
	}
	/* A tracepoint: each hit, as perf samples one, unless -c or -F said otherwise. */
	if (o.ev.ev->type == PERF_TYPE_TRACEPOINT && !parsed.rate_given) {
		o.ev.period = 1;
		o.ev.freq = 0;
	}
	if (first < argc)
		o.argv = argv + first;
	if (o.off_cpu_only && !o.ev_given) {
		/* Every switch-out sampled: the span's stack; no CPU samples. */
		o.off_cpu = true;
		o.ev.ev = event_find("context-switches");
		o.ev.period = 1;
		o.ev.freq = 0;
	}
	if (!o.pages_given)
		o.mmap_pages = default_ring_pages(&o.ev, o.off_cpu);
	/* -a with a command: the whole system, for as long as the command runs. */
	targets = (o.npids > 0) + (o.ntids > 0) + (o.system_wide || o.argv != NULL);
	if (targets == 0)
		ret = cmd_usage_error("record",
				      "nothing to record: give a command, -p PID, -t TID or -a");
	else if (targets > 1)
		ret = cmd_usage_error("record",
				      "give only one of a command (with or without -a), -p "
				      "and -t");
	else if (o.off_cpu_only && o.ev_given)
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
