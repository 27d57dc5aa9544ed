/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbuf.c - the growable string; see sbuf.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/sbuf.h"

const char sbuf_empty[1];

void sbuf_init(struct sbuf *b)
{
	b->buf = (char *)sbuf_empty;
	b->len = 0;
	b->cap = 0;
}

/* The shared "" is never realloc'd. */
void sbuf_grow(struct sbuf *b, size_t extra)
{
	if (b->len + extra < b->cap)
		return; /* room enough: what runs for each sample recorded */
	if (!b->cap)
		b->buf = NULL;
	xgrow(&b->buf, &b->cap, b->len + extra + 1, 1);
}

void sbuf_reset(struct sbuf *b)
{
	if (b->cap) {
		b->len = 0;
		b->buf[0] = '\0';
	} else {
		sbuf_init(b);
	}
}

void sbuf_truncate(struct sbuf *b, size_t len)
{
	if (len < b->len) {
		b->len = len;
		b->buf[len] = '\0';
	}
}

void sbuf_setlen(struct sbuf *b, size_t len)
{
	b->len = len;
	b->buf[len] = '\0';
}

char *sbuf_detach(struct sbuf *b, size_t *len)
{
	char *s = b->cap ? b->buf : xstrdup("");

	if (len)
		*len = b->cap ? b->len : 0;
	sbuf_init(b);
	return s;
}

void sbuf_release(struct sbuf *b)
{
	if (b->cap)
		free(b->buf);
	sbuf_init(b);
}

void sbuf_addn(struct sbuf *b, const char *s, size_t n)
{
	if (!n) {
		if (!b->buf)
			sbuf_init(b);
		return;
	}
	sbuf_grow(b, n);
	memcpy(b->buf + b->len, s, n);
	b->len += n;
	b->buf[b->len] = '\0';
}

void sbuf_adds(struct sbuf *b, const char *s)
{
	sbuf_addn(b, s, strlen(s));
}

void sbuf_addf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n <= 0) {
		sbuf_addn(b, "", 0);
		return;
	}
	sbuf_grow(b, (size_t)n);
	va_start(ap, fmt);
	vsnprintf(b->buf + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

void sbuf_add_share(struct sbuf *b, uint64_t part, uint64_t whole)
{
	double pct = whole ? 100.0 * (double)part / (double)whole : 0.0;

	if (part == 0 || whole == 0)
		sbuf_adds(b, "0%");
	else if (pct < 0.05)
		sbuf_adds(b, "<0.1%");
	else
		sbuf_addf(b, "%.1f%%", pct);
}
