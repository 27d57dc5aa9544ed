/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-opts.c - the options "perfmini record" and "perfmini top" share:
 * their rows, defaults and checks; see record-opts.h.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "cmd/record-opts.h"
#include "util/memlevel.h"
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
 * What the parse of -e, -F and -c leaves for record_opts_finish, which runs once
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

/* Why -e's tracepoint could not be had, as cmd's usage error says it; 2. */
static int event_error(const char *cmd)
{
	const char *why = parsed.err == -ENODEV	  ? "no tracefs is mounted, and it could not be "
						    "mounted at /sys/kernel/tracing"
			  : parsed.err == -EACCES ? "tracefs is not readable here (run as root)"
			  : parsed.err == -ENOENT ? "no such tracepoint in tracefs (see its "
						    "events/ directory, or perf list tracepoint)"
						  : strerror(-parsed.err);

	return cmd_usage_error(cmd, "-e %s: %s", parsed.spec, why);
}

/* The name of event i, for the completion. */
static const char *event_at(size_t i)
{
	size_t n;
	const struct event_desc *list = event_list(&n);

	return i < n ? list[i].name : NULL;
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

/* --max-memory=SIZE: bytes, or with K, M or G; 0 for no budget, else at least 1 MiB. */
static int opt_max_memory(void *opts, const struct cmd_opt *row, const char *arg)
{
	struct record_opts *o = opts;
	uint64_t v;

	(void)row;
	if (parse_size(arg, &v) < 0 || (v && v < (1u << 20)))
		return -1;
	o->max_memory = v;
	return 0;
}

#define R struct record_opts

const struct cmd_opt record_target_rows[] = {
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
	{OPT_END},
};

const struct cmd_opt record_sampling_rows[] = {
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
	{OPT_CALL, "max-memory", 0, "SIZE", .flags = OPTF_EQ, .call = opt_max_memory,
	 .what = "a size such as 64M or 1G, or 0",
	 .help = "keep the recorder's own memory (its heap, not the files it maps) within "
		 "SIZE (default 256M; 0: no budget): at three quarters of it source lines are "
		 "let go and frames named from the symbol tables alone, at all of it frames are "
		 "left with their build-id and offset for report to name; samples are never "
		 "dropped"},
	{OPT_FLAG, "no-lines", 0, OPT_AT(R, no_lines),
	 .help = "name frames from the symbol tables only: no source lines and no inlined "
		 "functions (reads no DWARF debug info: less memory and a quicker stop)"},
	{OPT_END},
};

#undef R

void record_opts_init(struct record_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ev.ev = event_find("cpu-clock");
	o->ev.freq = 999;
	default_call_graph(&o->ev);
	o->output = "perfmini.data";
	o->name_timeout = NAME_TIMEOUT_DEFAULT;
	o->max_memory = MEM_DEFAULT_BUDGET;
}

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

int record_opts_finish(const char *cmd, struct record_opts *o, int argc, char **argv, int first)
{
	int targets;

	if (parsed.spec)
		return event_error(cmd);
	/* A tracepoint: each hit, as perf samples one, unless -c or -F said otherwise. */
	if (o->ev.ev->type == PERF_TYPE_TRACEPOINT && !parsed.rate_given) {
		o->ev.period = 1;
		o->ev.freq = 0;
	}
	if (first < argc)
		o->argv = argv + first;
	if (!o->pages_given)
		o->mmap_pages = default_ring_pages(&o->ev, o->off_cpu);
	/* -a with a command: the whole system, for as long as the command runs. */
	targets = (o->npids > 0) + (o->ntids > 0) + (o->system_wide || o->argv != NULL);
	if (targets == 0)
		return cmd_usage_error(cmd,
				       "nothing to record: give a command, -p PID, -t TID or -a");
	if (targets > 1)
		return cmd_usage_error(cmd, "give only one of a command (with or without -a), -p "
					    "and -t");
	return -1;
}
