/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * msg.h - messages to the user on stderr, one line each, prefixed with
 * the program's name. Only the commands (cmd/) speak to the user: library
 * code returns errors to them.
 */
#ifndef PERFMINI_MSG_H
#define PERFMINI_MSG_H

/* The program name used as the prefix of every message. */
extern const char *progname;

/* "perfmini: <message>" on stderr, then exit(1). */
void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
/* "perfmini: <message>" on stderr. */
void error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "perfmini: warning: <message>" on stderr. */
void warning(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
