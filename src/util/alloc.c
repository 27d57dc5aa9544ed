/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alloc.c - allocation that fails loudly; see alloc.h.
 */
#include "config.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/msg.h"

static void __attribute__((noreturn)) oom(size_t size)
{
	fprintf(stderr, "%s: out of memory allocating %zu bytes\n", progname, size);
	exit(1);
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);

	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);

	if (!q)
		oom(size);
	return q;
}

void xgrow(void *pp, size_t *cap, size_t need, size_t sz)
{
	void **p = pp;
	size_t n = *cap;

	if (need <= n)
		return;
	if (n < 16)
		n = 16;
	while (n < need) {
		if (n > SIZE_MAX / 2 / sz)
			oom(SIZE_MAX);
		n *= 2;
	}
	*p = xrealloc(*p, n * sz);
	*cap = n;
}

void xgrow_zero(void *pp, size_t *cap, size_t need, size_t sz)
{
	size_t old = *cap;

	xgrow(pp, cap, need, sz);
	if (*cap > old)
		memset((char *)*(void **)pp + old * sz, 0, (*cap - old) * sz);
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		oom(strlen(fmt));
	return s;
}
