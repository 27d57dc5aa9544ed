/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record-opts.h - what "perfmini record" and "perfmini top" share of
 * their options: the rows of the targets (-p, -t, -a, -C, a command) and
 * of the sampling (-e, -F, -c, the call-graph modes, --no-kernel, -m,
 * --debug-dir, --no-lines), their defaults, and the checks made once
 * they are parsed. A command that shares them keeps its record_opts
 * first in its own options struct: the rows write it by offset.
 */
#ifndef PERFMINI_CMD_RECORD_OPTS_H
#define PERFMINI_CMD_RECORD_OPTS_H

#include "cmd/opts.h"
#include "session/session.h"

/* The rows, each table ended by OPT_END: for an OPT_ROWS row of a command's table. */
extern const struct cmd_opt record_target_rows[];
extern const struct cmd_opt record_sampling_rows[];

/* The defaults: cpu-clock at 999 Hz, hybrid call graphs, perfmini.data. */
void record_opts_init(struct record_opts *o);

/*
 * After the parse of command cmd ("record", "top"), argv[first] the first
 * operand: the command to run, the targets checked (one kind of them),
 * the rings sized when -m was not given. -1 when the command goes on,
 * else the usage error's status (2).
 */
int record_opts_finish(const char *cmd, struct record_opts *o, int argc, char **argv, int first);

#endif
