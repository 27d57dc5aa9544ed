/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * record.h - "perfmini record" run once its options are parsed.
 */
#ifndef PERFMINI_CMD_RECORD_H
#define PERFMINI_CMD_RECORD_H

#include "session/session.h"

/* Runs a whole recording; returns the process exit status. */
int record_run(const struct record_opts *o);

#endif
