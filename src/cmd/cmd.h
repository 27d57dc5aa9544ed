/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the subcommands; main() picks one from its table.
 */
#ifndef PERFMINI_CMD_H
#define PERFMINI_CMD_H

struct cmd_spec;

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_script(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);
int cmd_top(int argc, char **argv);

/* The help of --debug-dir, an option of record and of symbolize. */
#define CMD_DEBUG_DIR_HELP \
	"also look for debug files under DIR (by build-id and by name); may be repeated"

/* Their options (opts.h), for main's completion listing. */
extern const struct cmd_spec record_spec, report_spec, script_spec, annotate_spec, symbolize_spec,
	top_spec;

/*
 * A command line that command cmd cannot take: "perfmini: MESSAGE" (none
 * when fmt is NULL: getopt has said what was wrong), then the line that
 * names where its options are listed. Returns 2, the exit status of
 * every usage error.
 */
int cmd_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
