/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbuf.h - a growable string.
 *
 * The buffer belongs to the sbuf: sbuf_release frees it.
 */
#ifndef PERFMINI_SBUF_H
#define PERFMINI_SBUF_H

#include <stddef.h>

/* A growable string; buf is NUL-terminated once anything was added. */
struct sbuf {
	char *buf;
	size_t len, cap;
};

void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_release(struct sbuf *b);

#endif
