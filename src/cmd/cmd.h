/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd.h - the subcommands; main() picks one from its table.
 */
#ifndef PERFMINI_CMD_H
#define PERFMINI_CMD_H

int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_symbolize(int argc, char **argv);

#endif
