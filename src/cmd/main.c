/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * main.c - the perfmini command: dispatch to a subcommand from a table.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/opts.h"
#include "util/array.h"
#include "util/msg.h"

static const struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct cmd_spec *spec;
	const char *help;
} commands[] = {
	{"record", cmd_record, &record_spec, "sample call stacks into a data file"},
	{"report", cmd_report, &report_spec,
	 "print a data file: top table, call tree, folded stacks, pprof, SVG"},
	{"script", cmd_script, &script_spec, "print a data file one sample a line"},
	{"annotate", cmd_annotate, &annotate_spec,
	 "print a function's source with the samples of each line"},
	{"top", cmd_top, &top_spec, "show the hottest functions live, refreshed as they run"},
	{"symbolize", cmd_symbolize, &symbolize_spec,
	 "print the functions at addresses of a file or process"},
};

static void print_usage(FILE *f)
{
	fprintf(f, "usage: perfmini [--version] [--help] COMMAND [ARGS]\n\n"
		   "A CPU profiler built on perf_event_open(2).\n\nCommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\nRun 'perfmini COMMAND --help' for a command's options; see perfmini(1).\n");
}

/*
 * "perfmini --complete [COMMAND]", for the bash completion: the commands,
 * one per line, or COMMAND's options as cmd_complete lists them.
 */
static int complete(int argc, char **argv)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		if (argc < 3)
			printf("%s\n", commands[i].name);
		else if (!strcmp(argv[2], commands[i].name))
			cmd_complete(commands[i].spec, stdout);
	}
	return fflush(stdout) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		print_usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("perfmini %s\n", PACKAGE_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "--complete"))
		return complete(argc, argv);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	error("unknown command '%s'", argv[1]);
	print_usage(stderr);
	return 2;
}
