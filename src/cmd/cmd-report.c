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
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/aggregate.h"
#include "cmd/cmd.h"
#include "store/datafile.h"
#include "util/outfile.h"
#include "report/report.h"
#include "util/util.h"

/*
 * The formats, each chosen by its option "--NAME". A new format is a
 * function of report.h's shape and a line here (and its lines in the
 * usage text below and in perfmini-report(1)).
 */
static const struct report_format {
	const char *name; /* its option, without "--" */
	int (*fn)(const struct profile *p, const struct report_opts *o, FILE *out);
	const char *default_output; /* NULL: standard output */
	bool binary;		    /* never written to a terminal */
	bool diff;		    /* compares with --diff BASE */
} formats[] = {
	{"top", fmt_top, NULL, false, true}, /* the default */
	{"folded", fmt_folded, NULL, false, true},
	{"pprof", fmt_pprof, "perfmini.pb.gz", true, true},
	{"svg", fmt_svg, "perfmini.svg", false, true},
	{"script", fmt_script, NULL, false, false},
	{"json", fmt_json, NULL, false, false},
	{"speedscope", fmt_speedscope, "perfmini.speedscope.json", false, false},
	{"firefox", fmt_firefox, "perfmini.firefox.json", false, false},
};

static const char usage[] =
	"usage: perfmini report [-i FILE] [FORMAT] [-o FILE] [FILTERS] [NAMING]\n"
	"\n"
	"Reads a data file written by 'perfmini record' and reports it.\n"
	"\n"
	"  -i, --input FILE     the data file (default perfmini.data)\n"
	"  -o, --output FILE    where the report goes; '-' is standard output\n"
	"      --force          read a data file that belongs to another user\n"
	"      --diff BASE      compare with the recording BASE (the -i file is the\n"
	"                       new one): --top gives each function's self and total\n"
	"                       share in both and the change, largest first; --folded\n"
	"                       two counts per stack, BASE NEW (flamegraph.pl reads\n"
	"                       them); --svg colours frames by change (red grew, blue\n"
	"                       shrank); --pprof the diff that pprof's -diff_base\n"
	"                       makes. Frames are matched by name and module; BASE's\n"
	"                       counts are normalized to the -i file's total\n"
	"\n"
	"Formats:\n"
	"      --top            (the default) a header on the recording, then the\n"
	"                       functions by self share: self %, total %, self and\n"
	"                       total samples, module; on a terminal, cut to its\n"
	"                       width (C++ names keep their own name); elsewhere\n"
	"                       never cut\n"
	"  -n, --rows N         --top: N rows (default 25 on a terminal, all\n"
	"                       otherwise; 0 for all)\n"
	"      --sort KEY       --top: order by 'self' (default) or 'total'; or\n"
	"                       'module': a row per module (as perf's --sort dso)\n"
	"      --folded         folded stacks, comm;outermost;...;leaf COUNT, for\n"
	"                       flamegraph.pl and speedscope\n"
	"      --pprof          gzipped profile.proto for pprof (default output\n"
	"                       perfmini.pb.gz)\n"
	"      --svg            an interactive flame graph (default output\n"
	"                       perfmini.svg): hover, click to zoom, Ctrl-F to search\n"
	"      --script         one line per sample, as perf script: TIME PID TID CPU\n"
	"                       PERIOD COMM<tab>outermost;...;leaf (folded names)\n"
	"      --json           one JSON object per line and sample: time, pid, tid,\n"
	"                       cpu, period, comm and frames (innermost first)\n"
	"      --speedscope     speedscope's JSON (default output\n"
	"                       perfmini.speedscope.json): a profile per thread, its\n"
	"                       samples in time order, weighed in nanoseconds\n"
	"      --firefox        the Firefox Profiler's processed format (default\n"
	"                       output perfmini.firefox.json): a track per thread,\n"
	"                       grouped by process; Call Tree, Flame Graph, Stack Chart\n"
	"\n"
	"Filters (every format):\n"
	"      --pid LIST       only these processes (comma-separated)\n"
	"      --tid LIST       only these threads\n"
	"      --comm NAMES     only threads with these names when sampled\n"
	"      --time START,END only samples from START to before END, in seconds\n"
	"                       from the start of the recording; either may be\n"
	"                       left out: --time 1.5, or --time ,2\n"
	"      --no-kernel      leave kernel frames out\n"
	"      --kernel-only    only the kernel frames; drop samples without any\n"
	"      --per-pid        root frame 'comm-PID' instead of the thread name\n"
	"      --per-tid        root frame 'comm-TID'\n"
	"      --sample-type=TYPE cpu: the samples (the default); off-cpu: the time\n"
	"                       threads spent switched out (record --off-cpu), in\n"
	"                       nanoseconds; wall: both, the samples' periods (ns\n"
	"                       with cpu-clock) plus the off-CPU time\n"
	"      --off-cpu-state=STATE with off-cpu or wall, only the spans of\n"
	"                       threads that were blocked (went to sleep) or\n"
	"                       preempted (switched out while runnable); any:\n"
	"                       both (the default)\n"
	"\n"
	"Naming:\n"
	"      --lines          name frames FUNCTION:FILE:LINE (--top: a Location\n"
	"                       column); the sampled line for the leaf, the call\n"
	"                       site for callers\n"
	"      --full-paths     with --lines, whole source paths, not base names\n"
	"      --no-inline      only the real function of each frame, without the\n"
	"                       functions inlined into it (marked _[i])\n"
	"  -h, --help           this help\n"
	"\n"
	"Examples:\n"
	"  perfmini report                          the hottest functions\n"
	"  perfmini report --folded | flamegraph.pl > profile.svg\n"
	"  perfmini report --folded > app.folded    then open it in speedscope\n"
	"  perfmini report --svg -o app.svg         then open it in a browser\n"
	"  perfmini report --pprof && go tool pprof -http=: perfmini.pb.gz\n"
	"  perfmini report --speedscope && speedscope perfmini.speedscope.json\n"
	"  perfmini report --firefox                then load it in the Firefox Profiler\n"
	"  perfmini report --pid 42 --time 1.5,3 --no-kernel\n"
	"  perfmini report -i new.data --diff old.data   what changed\n"
	"See perfmini-report(1) and, for the file, perfmini-data(5).\n";

enum {
	OPT_FORMAT = 256,
	OPT_NO_KERNEL,
	OPT_KERNEL_ONLY,
	OPT_LINES,
	OPT_FULL_PATHS,
	OPT_NO_INLINE,
	OPT_SORT,
	OPT_PID,
	OPT_TID,
	OPT_COMM,
	OPT_TIME,
	OPT_PER_PID,
	OPT_PER_TID,
	OPT_FORCE,
	OPT_SAMPLE_TYPE,
	OPT_OFFCPU_STATE,
	OPT_DIFF,
};

static const struct option options[] = {
	{"input", required_argument, NULL, 'i'},
	{"output", required_argument, NULL, 'o'},
	{"top", no_argument, NULL, OPT_FORMAT},
	{"folded", no_argument, NULL, OPT_FORMAT},
	{"pprof", no_argument, NULL, OPT_FORMAT},
	{"svg", no_argument, NULL, OPT_FORMAT},
	{"script", no_argument, NULL, OPT_FORMAT},
	{"json", no_argument, NULL, OPT_FORMAT},
	{"speedscope", no_argument, NULL, OPT_FORMAT},
	{"firefox", no_argument, NULL, OPT_FORMAT},
	{"rows", required_argument, NULL, 'n'},
	{"sort", required_argument, NULL, OPT_SORT},
	{"pid", required_argument, NULL, OPT_PID},
	{"tid", required_argument, NULL, OPT_TID},
	{"comm", required_argument, NULL, OPT_COMM},
	{"time", required_argument, NULL, OPT_TIME},
	{"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
	{"kernel-only", no_argument, NULL, OPT_KERNEL_ONLY},
	{"per-pid", no_argument, NULL, OPT_PER_PID},
	{"per-tid", no_argument, NULL, OPT_PER_TID},
	{"force", no_argument, NULL, OPT_FORCE},
	{"sample-type", required_argument, NULL, OPT_SAMPLE_TYPE},
	{"off-cpu-state", required_argument, NULL, OPT_OFFCPU_STATE},
	{"diff", required_argument, NULL, OPT_DIFF},
	{"lines", no_argument, NULL, OPT_LINES},
	{"full-paths", no_argument, NULL, OPT_FULL_PATHS},
	{"no-inline", no_argument, NULL, OPT_NO_INLINE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

static const struct report_format *format_find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(formats); i++)
		if (strcmp(formats[i].name, name) == 0)
			return &formats[i];
	return NULL;
}

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
	ret = outfile_open(&file, path, 0666 & ~mask, &why);
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
	ret = f->fn(p, o, out);
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

/* A usage error of report's (cmd_usage_error). */
#define usage_error(...) cmd_usage_error("report", __VA_ARGS__)

int cmd_report(int argc, char **argv)
{
	bool force = false;
	struct report_opts o = {.input = "perfmini.data", .rows = -1};
	const struct report_format *f = NULL;
	const char *output = NULL;
	bool top_opts = false, per_pid = false, per_tid = false;
	struct profile *p, *base = NULL;
	const char *lines_meta;
	char err[512];
	int c, idx, ret = 2;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "i:o:n:h", options, &idx)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_FORMAT:
			if (f && f != format_find(options[idx].name)) {
				ret = usage_error("--%s: choose one format", options[idx].name);
				goto out;
			}
			f = format_find(options[idx].name);
			break;
		case 'n':
			if (parse_u64(optarg, &v) < 0 || v > 1000000000) {
				ret = usage_error("-n: '%s' is not a number of rows", optarg);
				goto out;
			}
			o.rows = (int)v;
			top_opts = true;
			break;
		case OPT_SORT:
			if (strcmp(optarg, "self") == 0) {
				o.sort = REPORT_SORT_SELF;
			} else if (strcmp(optarg, "total") == 0) {
				o.sort = REPORT_SORT_TOTAL;
			} else if (strcmp(optarg, "module") == 0) {
				o.sort = REPORT_SORT_MODULE;
			} else {
				ret = usage_error("--sort: '%s' is not self, total or module",
						  optarg);
				goto out;
			}
			top_opts = true;
			break;
		case OPT_PID:
			if (aggregate_parse_ids(optarg, &o.pids, &o.npids) < 0) {
				ret = usage_error("--pid: '%s' is not a list of process ids",
						  optarg);
				goto out;
			}
			break;
		case OPT_TID:
			if (aggregate_parse_ids(optarg, &o.tids, &o.ntids) < 0) {
				ret = usage_error("--tid: '%s' is not a list of thread ids",
						  optarg);
				goto out;
			}
			break;
		case OPT_COMM:
			if (aggregate_parse_comms(optarg, &o) < 0) {
				ret = usage_error("--comm: '%s' is not a list of names", optarg);
				goto out;
			}
			break;
		case OPT_TIME:
			if (aggregate_parse_time(optarg, &o) < 0) {
				ret = usage_error("--time: '%s' is not START,END in seconds, START "
						  "<= END (e.g. 1.5,3 or 1.5,)",
						  optarg);
				goto out;
			}
			break;
		case OPT_NO_KERNEL:
			o.no_kernel = true;
			break;
		case OPT_KERNEL_ONLY:
			o.kernel_only = true;
			break;
		case OPT_PER_PID:
			per_pid = true;
			o.root = REPORT_ROOT_PID;
			break;
		case OPT_PER_TID:
			per_tid = true;
			o.root = REPORT_ROOT_TID;
			break;
		case OPT_LINES:
			o.names.lines = true;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_SAMPLE_TYPE:
			if (strcmp(optarg, "cpu") == 0) {
				o.sample_type = REPORT_CPU;
			} else if (strcmp(optarg, "off-cpu") == 0) {
				o.sample_type = REPORT_OFF_CPU;
			} else if (strcmp(optarg, "wall") == 0) {
				o.sample_type = REPORT_WALL;
			} else {
				ret = usage_error("--sample-type: '%s' is not cpu, off-cpu or wall",
						  optarg);
				goto out;
			}
			break;
		case OPT_OFFCPU_STATE:
			if (strcmp(optarg, "any") == 0) {
				o.offcpu_state = REPORT_STATE_ANY;
			} else if (strcmp(optarg, "blocked") == 0) {
				o.offcpu_state = REPORT_STATE_BLOCKED;
			} else if (strcmp(optarg, "preempted") == 0) {
				o.offcpu_state = REPORT_STATE_PREEMPTED;
			} else {
				ret = usage_error(
					"--off-cpu-state: '%s' is not any, blocked or preempted",
					optarg);
				goto out;
			}
			break;
		case OPT_DIFF:
			o.base_input = optarg;
			break;
		case OPT_FULL_PATHS:
			o.names.full_paths = true;
			break;
		case OPT_NO_INLINE:
			o.names.no_inline = true;
			break;
		case 'h':
			fputs(usage, stdout);
			ret = 0;
			goto out;
		default:
			ret = cmd_usage_error("report", NULL);
			goto out;
		}
	}
	if (optind < argc) {
		ret = usage_error("unexpected argument '%s'", argv[optind]);
		goto out;
	}
	if (o.no_kernel && o.kernel_only) {
		ret = usage_error("%s and --kernel-only exclude each other", "--no-kernel");
		goto out;
	}
	if (per_pid && per_tid) {
		ret = usage_error("%s and --per-tid exclude each other", "--per-pid");
		goto out;
	}
	if (o.offcpu_state != REPORT_STATE_ANY && o.sample_type == REPORT_CPU) {
		ret = usage_error("--off-cpu-state applies to --sample-type=off-cpu or wall");
		goto out;
	}
	if (!f)
		f = &formats[0];
	if (top_opts && f->fn != fmt_top) {
		ret = usage_error("-n and --sort apply to --top, not --%s", f->name);
		goto out;
	}
	if (o.base_input && !f->diff) {
		ret = usage_error("--diff applies to --top, --folded, --svg and --pprof, not --%s",
				  f->name);
		goto out;
	}
	if (!output)
		output = f->default_output;
	p = datafile_read(o.input, force, err, sizeof(err));
	if (!p) {
		error("%s", err);
		ret = 1;
		goto out;
	}
	if (o.base_input && !(base = datafile_read(o.base_input, force, err, sizeof(err)))) {
		error("%s", err);
		ret = 1;
		if (FREE_AT_EXIT)
			profile_free(p);
		goto out;
	}
	o.base = base;
	lines_meta = profile_get_meta(p, "lines");
	if (o.names.lines && lines_meta && strcmp(lines_meta, "no") == 0)
		warning("%s was recorded with --no-lines: it has no source lines to show", o.input);
	ret = write_output(f, p, &o, output ? output : "-");
	ret = ret < 0 ? 1 : 0;
	if (FREE_AT_EXIT) {
		profile_free(p);
		if (base)
			profile_free(base);
	}
out:
	aggregate_opts_release(&o);
	return ret;
}
