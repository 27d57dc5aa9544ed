/*
 * report.h - what every report format shares: how a frame is named, and
 * which samples a report counts.
 *
 * Frame names never contain ';' or control characters (they would break
 * the folded format); annotations come last: "_[i]" on inlined levels,
 * "_[k]" on kernel frames.
 */
#ifndef PERFMINI_REPORT_H
#define PERFMINI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile.h"

/* A growable string. */
struct sbuf {
	char *buf;
	size_t len, cap;
};

void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbuf_release(struct sbuf *b);

/* Appends s with ';' turned into ':' and control characters into '?'. */
void sbuf_add_sanitized(struct sbuf *b, const char *s);

/* How frames are named. */
struct name_opts {
	bool lines;	 /* FUNCTION:FILE:LINE */
	bool full_paths; /* FILE as recorded, not its base name */
	bool no_inline;	 /* only the real function of each frame */
};

/*
 * Appends the names of frame f, outermost inlined level first, each level
 * followed by sep except the last. An unresolved frame reads
 * "[module+0xOFFSET]" (module by base name), or "[unknown+0xADDRESS]".
 */
void report_frame_names(const struct profile *p, uint32_t f, const struct name_opts *o,
			const char *sep, struct sbuf *b);

struct report_opts {
	const char *input;
	bool no_kernel; /* drop kernel frames */
	struct name_opts names;
};

/* The folded format: "comm;outermost;...;leaf COUNT", sorted, one per stack. */
int fmt_folded(const struct profile *p, const struct report_opts *o, FILE *out);

#endif
