/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * usage.c - the one way a command says its command line is wrong.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>

#include "cmd/cmd.h"
#include "util/msg.h"

int cmd_usage_error(const char *cmd, const char *fmt, ...)
{
	if (fmt) {
		char msg[512];
		va_list ap;

		va_start(ap, fmt);
		vsnprintf(msg, sizeof(msg), fmt, ap);
		va_end(ap);
		error("%s", msg);
	}
	fprintf(stderr, "Try 'perfmini %s --help'.\n", cmd);
	return 2;
}
