/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sbuf.h - a growable string, and the byte buffer of whatever is built
 * in memory before it is written (a protobuf message, a data file's
 * records, the records waiting to be put in time order): its bytes may
 * be any, NULs included, and the NUL after them is then only kept.
 *
 * Invariant: once initialized (SBUF_INIT or sbuf_init), buf is a valid
 * NUL-terminated string of len bytes, never NULL: "" before anything is
 * added, so that b.buf may be passed anywhere a string is taken. The
 * empty string then is a shared static one, never written, and cap is 0;
 * the first addition allocates. The buffer belongs to the sbuf:
 * sbuf_release frees it, sbuf_detach hands it over.
 *
 * A zeroed sbuf (a static one, one in a calloc'd or memset struct) has
 * buf NULL: every sbuf_ call accepts it, and leaves it initialized (as
 * sbuf_reset does, allocating nothing), but its buf must not be read
 * before. The rule: initialize each sbuf where it is declared, or, for
 * one of many in a zeroed struct, sbuf_reset it before its first use.
 */
#ifndef PERFMINI_SBUF_H
#define PERFMINI_SBUF_H

#include <stddef.h>
#include <stdint.h>

struct sbuf {
	char *buf; /* len bytes then a NUL; never NULL once initialized */
	size_t len;
	size_t cap; /* bytes allocated at buf; 0 while buf is the shared "" */
};

/* The shared empty string of every sbuf that has not allocated; never written. */
extern const char sbuf_empty[1];

#define SBUF_INIT                                             \
	{                                                     \
		.buf = (char *)sbuf_empty, .len = 0, .cap = 0 \
	}

/* Makes b the empty string, allocating nothing (what SBUF_INIT does). */
void sbuf_init(struct sbuf *b);
/* Empties b (len 0, buf ""), keeping what it allocated for reuse. */
void sbuf_reset(struct sbuf *b);
/* Shortens b to its first len bytes; a len past b->len changes nothing. */
void sbuf_truncate(struct sbuf *b, size_t len);
/*
 * Makes room for extra more bytes (and the NUL) after b's len, which
 * stays: for bytes written in place at b->buf + b->len, then counted in
 * with sbuf_setlen. b->buf may move.
 */
void sbuf_grow(struct sbuf *b, size_t extra);
/*
 * Makes b len bytes long, len within the room sbuf_grow made: the bytes
 * written in place past the old len count from now on.
 */
void sbuf_setlen(struct sbuf *b, size_t len);
/*
 * Hands b's string over: a malloc'd NUL-terminated string of b->len bytes
 * (its length in *len unless len is NULL), which the caller frees; b is
 * left initialized and empty.
 */
char *sbuf_detach(struct sbuf *b, size_t *len);
/* Frees what b allocated; b is left initialized and empty. */
void sbuf_release(struct sbuf *b);

void sbuf_addn(struct sbuf *b, const char *s, size_t n);
void sbuf_adds(struct sbuf *b, const char *s);
void sbuf_addf(struct sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * part's share of whole as a percentage with one decimal ("12.3%"); a
 * share above zero that would show as 0.0% is "<0.1%", none is "0%".
 */
void sbuf_add_share(struct sbuf *b, uint64_t part, uint64_t whole);

#endif
