/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * alloc.h - allocation that fails loudly.
 *
 * Every wrapper either returns memory or ends the process with a one-line
 * message: out of memory is not a condition callers handle. A request of
 * 0 bytes returns a pointer that may be freed, never NULL.
 */
#ifndef PERFMINI_ALLOC_H
#define PERFMINI_ALLOC_H

#include <stddef.h>

/*
 * Whether a command frees what it kept until its end. Freeing a
 * recording's modules, DWARF and profile just before exit takes
 * milliseconds at the moment the user waits, and returns nothing exit
 * would not; only builds that check for leaks (--enable-sanitizers) do it.
 */
#ifndef FREE_AT_EXIT
#define FREE_AT_EXIT 0
#endif

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
/*
 * Grows the array *pp (of *cap elements of size sz) to hold at least need
 * elements, doubling from 16; *cap is updated. *pp may be NULL with *cap 0.
 */
void xgrow(void *pp, size_t *cap, size_t need, size_t sz);
/*
 * The same for a table indexed by id (a module's, say), whose elements
 * are 0 until set: the elements added are zeroed.
 */
void xgrow_zero(void *pp, size_t *cap, size_t need, size_t sz);
char *xstrdup(const char *s);
/* The first n bytes of s (which need not be NUL-terminated), NUL-terminated. */
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
