/*
 * cmd-report.c - "perfmini report": read a data file, print one format.
 */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "datafile.h"
#include "report.h"
#include "util.h"

static const char usage[] =
	"usage: perfmini report [options]\n"
	"\n"
	"Reads a data file written by 'perfmini record' and prints it.\n"
	"\n"
	"  -i, --input FILE     the data file (default perfmini.data)\n"
	"      --folded         folded stacks, one line per distinct stack:\n"
	"                       comm;outermost;...;leaf COUNT (the default); feed it\n"
	"                       to flamegraph.pl or speedscope\n"
	"      --no-kernel      leave kernel frames out\n"
	"      --lines          name frames FUNCTION:FILE:LINE (the sampled line for\n"
	"                       the leaf, the call site for callers)\n"
	"      --full-paths     with --lines, whole source paths, not base names\n"
	"      --no-inline      only the real function of each frame, without the\n"
	"                       functions inlined into it (marked _[i])\n"
	"  -h, --help           this help\n"
	"\n"
	"Example: perfmini report --folded | flamegraph.pl > profile.svg\n"
	"See perfmini-report(1) and, for the file, perfmini-data(5).\n";

enum { OPT_FOLDED = 256, OPT_NO_KERNEL, OPT_LINES, OPT_FULL_PATHS, OPT_NO_INLINE };

static const struct option options[] = {
	{"input", required_argument, NULL, 'i'},
	{"folded", no_argument, NULL, OPT_FOLDED},
	{"no-kernel", no_argument, NULL, OPT_NO_KERNEL},
	{"lines", no_argument, NULL, OPT_LINES},
	{"full-paths", no_argument, NULL, OPT_FULL_PATHS},
	{"no-inline", no_argument, NULL, OPT_NO_INLINE},
	{"help", no_argument, NULL, 'h'},
	{NULL, 0, NULL, 0},
};

int cmd_report(int argc, char **argv)
{
	struct report_opts o = {.input = "perfmini.data"};
	struct profile *p;
	int c, ret;

	while ((c = getopt_long(argc, argv, "i:h", options, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case OPT_FOLDED:
			break;
		case OPT_NO_KERNEL:
			o.no_kernel = true;
			break;
		case OPT_LINES:
			o.names.lines = true;
			break;
		case OPT_FULL_PATHS:
			o.names.full_paths = true;
			break;
		case OPT_NO_INLINE:
			o.names.no_inline = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			fprintf(stderr, "Try 'perfmini report --help'.\n");
			return 2;
		}
	}
	if (optind < argc) {
		error("unexpected argument '%s'", argv[optind]);
		fprintf(stderr, "Try 'perfmini report --help'.\n");
		return 2;
	}
	p = datafile_read(o.input);
	if (!p)
		return 1;
	ret = fmt_folded(p, &o, stdout);
	if (fflush(stdout) != 0 || ret < 0) {
		error("cannot write the report: %s", strerror(errno));
		ret = -1;
	}
	profile_free(p);
	return ret < 0 ? 1 : 0;
}
