/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd-record.c - "perfmini record": options to a record_opts, then run.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/record.h"
#include "util/util.h"

static const char usage[] =
	"usage: perfmini record [options] -- COMMAND [ARG...]\n"
	"       perfmini record [options] -p PID[,PID...] | -t TID[,TID...] | -a\n"
	"\n"
	"Samples call stacks of a command, of running processes or threads, or of the\n"
	"whole system, and writes them to a data file for 'perfmini report'.\n"
	"\n"
	"Targets:\n"
	"  -p, --pid PID[,PID...]     every thread of these processes, and their later\n"
	"                             threads and children\n"
	"  -t, --tid TID[,TID...]     these threads only\n"
	"  -a, --all-cpus             every process on the system\n"
	"  -C, --cpu CPULIST          only these CPUs, such as 0-3,6\n"
	"  COMMAND [ARG...]           run the command and follow its descendants\n"
	"\n"
	"Sampling:\n"
	"  -e, --event EVENT          cpu-clock (default), task-clock, page-faults,\n"
	"                             context-switches, or a hardware event where the\n"
	"                             machine has a PMU: cycles, instructions,\n"
	"                             cache-references, cache-misses, branches,\n"
	"                             branch-misses, ref-cycles\n"
	"  -F, --freq HZ              samples per second per CPU (default 999)\n"
	"  -c, --count PERIOD         one sample every PERIOD events instead of -F\n"
	"  -g                         call chains, in the default mode (hybrid)\n"
	"      --call-graph=MODE      hybrid[,BYTES] (the default): copy BYTES of user\n"
	"                             stack per sample (default 8192) with the user\n"
	"                             registers and the frame-pointer chain, unwind the\n"
	"                             copy with the binaries' unwind tables and go on\n"
	"                             beyond it along the chain where it is verified;\n"
	"                             fp: frame-pointer call chains only (wrong callers\n"
	"                             in code built without frame pointers);\n"
	"                             dwarf[,BYTES]: unwind tables only, over a copy of\n"
	"                             BYTES (default 32768, at most 65528); none: no\n"
	"                             call chains\n"
	"      --no-call-graph        the same as --call-graph=none\n"
	"      --no-kernel            leave kernel code out\n"
	"  -m, --mmap-pages PAGES     ring buffer pages per CPU, a power of two\n"
	"                             (default 128 with fp, 1024 in the hybrid and dwarf\n"
	"                             modes; more above -F 4000)\n"
	"      --debug-dir DIR        also look for debug files under DIR (by build-id\n"
	"                             and by name); may be repeated\n"
	"      --no-lines             name frames from the symbol tables only: no\n"
	"                             source lines and no inlined functions (reads no\n"
	"                             DWARF debug info: less memory and a quicker stop)\n"
	"      --name-timeout SECS    how long the stop may name frames (default 60, 0:\n"
	"                             no limit); a second Control-C also cuts it short:\n"
	"                             what is not named then is written unnamed\n"
	"      --off-cpu              also record each time a target thread is switched\n"
	"                             out: its stack and how long it stays off the CPU\n"
	"                             (a context-switch event and switch records beside\n"
	"                             the samples; costs time at every switch)\n"
	"      --off-cpu-min=DURATION leave out off-CPU spans shorter than DURATION\n"
	"                             (such as 500us, 2ms; a bare number is in\n"
	"                             microseconds; default 0: keep all)\n"
	"\n"
	"Output and control:\n"
	"  -o, --output FILE          the data file (default perfmini.data)\n"
	"  -d, --duration SECONDS     stop after this long\n"
	"  -q, --quiet                no status line and no summary\n"
	"  -h, --help                 this help\n"
	"\n"
	"Recording stops when the command or every target has exited, after -d, or on\n"
	"SIGINT or SIGTERM; what was sampled until then is written. See perfmini-record(1).\n";

enum {
	OPT_NO_KERNEL = 256,
	OPT_NO_CALLGRAPH,
	OPT_DEBUG_DIR,
	OPT_CALLGRAPH,
	OPT_NO_LINES,
	OPT_NAME_TIMEOUT,
	OPT_OFF_CPU,
	OPT_OFF_CPU_MIN
};

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

/* "250us", "2ms", "1s", "800ns"; a bare number is in microseconds. 0 or -EINVAL. */
static int parse_duration_ns(const char *s, uint64_t *ns)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"", 1e3}, {"ns", 1}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9}};
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !(v >= 0))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].unit) == 0 && v * units[i].scale < 1e18) {
			*ns = (uint64_t)(v * units[i].scale);
			return 0;
		}
	}
	return -EINVAL;
}

static const struct option options[] = {
	{"pid", required_argument, NULL, 'p'},
	{"tid", required_argument, NULL, 't'},
	{"all-cpus", no_argument, NULL, 'a'},
	{"cpu", required_argument, NULL, 'C'},
	{"event", required_argument, NULL, 'e'},
	{"freq", required_argument, NULL, 'F'},
	{"count", required_argument, NULL, 'c'},
	{"call-graph", required_argument, NULL, OPT_CALLGRAPH},
	{"no-call-graph", no_argument, NULL, OPT_NO_CALLGRAPH},
	{"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
	{"mmap-pages", required_argument, NULL, 'm'},
	{"debug-dir", required_argument, NULL, OPT_DEBUG_DIR},
	{"no-lines", no_argument, NULL, OPT_NO_LINES},
	{"name-timeout", required_argument, NULL, OPT_NAME_TIMEOUT},
	{"off-cpu", no_argument, NULL, OPT_OFF_CPU},
	{"off-cpu-min", required_argument, NULL, OPT_OFF_CPU_MIN},
	{"output", required_argument, NULL, 'o'},
	{"duration", required_argument, NULL, 'd'},
	{"quiet", no_argument, NULL, 'q'},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static void __attribute__((noreturn)) bad_usage(const char *msg, const char *arg)
{
	exit(cmd_usage_error("record", "%s '%s'", msg, arg));
}

/*
 * The processes or threads of -p and -t: ids 1 to INT32_MAX (pid_t's),
 * each once, so that a process named twice is not sampled twice.
 */
static void parse_ids(const char *s, const char *what, uint32_t **ids, size_t *n)
{
	char bad[64];

	if (parse_id_list(s, 1, INT32_MAX, ids, n, bad, sizeof(bad)) < 0)
		bad_usage(what, bad);
}

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
static unsigned default_ring_pages(const struct event_opts *ev)
{
	unsigned pages = ev->dwarf_stack ? 1024 : 128;

	for (uint64_t f = 4000; ev->period == 0 && ev->freq > f && f < 32000; f *= 2)
		pages *= 2;
	return pages;
}

int cmd_record(int argc, char **argv)
{
	struct record_opts o;
	int c, targets, ret;
	bool pages_given = false;
	uint64_t v;
	char *end;

	memset(&o, 0, sizeof(o));
	o.ev.ev = event_find("cpu-clock");
	o.ev.freq = 999;
	default_call_graph(&o.ev);
	o.output = "perfmini.data";
	o.mmap_pages = 128;
	o.name_timeout = NAME_TIMEOUT_DEFAULT;
	o.argc_shown = argc;
	o.argv_shown = argv;

	/* '+': the first non-option starts the command. */
	while ((c = getopt_long(argc, argv, "+p:t:aC:e:F:c:gm:o:d:qh", options, NULL)) != -1) {
		switch (c) {
		case 'p':
			parse_ids(optarg, "bad process id", &o.pids, &o.npids);
			break;
		case 't':
			parse_ids(optarg, "bad thread id", &o.tids, &o.ntids);
			break;
		case 'a':
			o.system_wide = true;
			break;
		case 'C':
			o.cpulist = optarg;
			break;
		case 'e':
			o.ev.ev = event_find(optarg);
			if (!o.ev.ev)
				bad_usage("unknown event", optarg);
			break;
		case 'F':
			if (parse_u64(optarg, &v) || v == 0 || v > 1000000)
				bad_usage("bad frequency", optarg);
			o.ev.freq = v;
			o.ev.period = 0;
			break;
		case 'c':
			if (parse_u64(optarg, &v) || v == 0)
				bad_usage("bad period", optarg);
			o.ev.period = v;
			break;
		case 'g':
			default_call_graph(&o.ev);
			break;
		case OPT_CALLGRAPH:
			if (parse_call_graph(optarg, &o.ev))
				bad_usage("bad call graph mode (hybrid[,BYTES], fp, dwarf[,BYTES] "
					  "or none)",
					  optarg);
			break;
		case OPT_NO_CALLGRAPH:
			parse_call_graph("none", &o.ev);
			break;
		case OPT_NO_KERNEL:
			o.ev.no_kernel = true;
			break;
		case 'm':
			if (parse_u64(optarg, &v) || v == 0 || v > (1u << 20) || (v & (v - 1)))
				bad_usage("bad page count (a power of two)", optarg);
			o.mmap_pages = (unsigned)v;
			pages_given = true;
			break;
		case OPT_DEBUG_DIR:
			o.debug_dirs = xrealloc(o.debug_dirs, (o.ndebug_dirs + 1) * sizeof(char *));
			o.debug_dirs[o.ndebug_dirs++] = optarg;
			break;
		case OPT_NO_LINES:
			o.no_lines = true;
			break;
		case OPT_NAME_TIMEOUT:
			errno = 0;
			o.name_timeout = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(o.name_timeout >= 0) ||
			    o.name_timeout > 1e7)
				bad_usage("bad naming time limit", optarg);
			break;
		case OPT_OFF_CPU:
			o.off_cpu = true;
			break;
		case OPT_OFF_CPU_MIN:
			if (parse_duration_ns(optarg, &o.off_cpu_min_ns) < 0)
				bad_usage("bad off-CPU threshold", optarg);
			o.off_cpu = true;
			break;
		case 'o':
			if (!*optarg)
				bad_usage("bad output file", optarg);
			o.output = optarg;
			break;
		case 'd':
			errno = 0;
			o.duration = strtod(optarg, &end);
			if (errno || *end || end == optarg || !(o.duration > 0) || o.duration > 1e7)
				bad_usage("bad duration", optarg);
			break;
		case 'q':
			o.quiet = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			return cmd_usage_error("record", NULL);
		}
	}
	if (optind < argc)
		o.argv = argv + optind;
	if (!pages_given)
		o.mmap_pages = default_ring_pages(&o.ev);
	o.pages_given = pages_given;
	targets = (o.npids > 0) + (o.ntids > 0) + o.system_wide + (o.argv != NULL);
	if (targets == 0) {
		return cmd_usage_error("record",
				       "nothing to record: give a command, -p PID, -t TID or -a");
	}
	if (targets > 1) {
		return cmd_usage_error("record", "give only one of a command, -p, -t and -a");
	}
	ret = record_run(&o);
	free(o.pids);
	free(o.tids);
	free(o.debug_dirs);
	return ret;
}
