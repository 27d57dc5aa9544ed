/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cursor.h - reading bytes that may not be trusted (DWARF sections of
 * any file): fixed-size numbers as the host stores them, LEB128 numbers
 * and strings, each checked against the end. A read past the end, or
 * any read after one, yields 0 or NULL and leaves bad set: a parser
 * reads on and looks at bad once, where it is convenient. Inline: the
 * line-table reader calls these for every byte of a program.
 */
#ifndef PERFMINI_CURSOR_H
#define PERFMINI_CURSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "util/bytes.h"

/* The bytes from p to end; bad once a read went past end. */
struct cur {
	const uint8_t *p, *end;
	bool bad;
};

static inline bool cur_avail(struct cur *c, size_t n)
{
	if (c->bad || c->p > c->end || (size_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return false;
	}
	return true;
}

static inline uint64_t cur_fixed(struct cur *c, size_t n)
{
	uint64_t v = 0;

	if (!cur_avail(c, n))
		return 0;
	switch (n) {
	case 1:
		v = c->p[0];
		break;
	case 2:
		v = load_u16(c->p);
		break;
	case 4:
		v = load_u32(c->p);
		break;
	case 8:
		v = load_u64(c->p);
		break;
	}
	c->p += n;
	return v;
}

/* A LEB128 number; bits beyond 64 are dropped, as libdw and LLVM do. */
static inline uint64_t cur_leb(struct cur *c, bool is_signed)
{
	uint64_t v = 0;
	unsigned int shift = 0;
	uint8_t b;

	do {
		if (!cur_avail(c, 1))
			return 0;
		b = *c->p++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (is_signed && shift < 64 && (b & 0x40))
		v |= ~(uint64_t)0 << shift;
	return v;
}

static inline uint64_t cur_uleb(struct cur *c)
{
	return cur_leb(c, false);
}

static inline int64_t cur_sleb(struct cur *c)
{
	return (int64_t)cur_leb(c, true);
}

static inline void cur_skip(struct cur *c, uint64_t n)
{
	if (cur_avail(c, n))
		c->p += n;
}

/* A NUL-terminated string at the cursor. */
static inline const char *cur_cstr(struct cur *c)
{
	const uint8_t *nul;
	const char *s;

	if (c->bad || !(nul = memchr(c->p, 0, (size_t)(c->end - c->p)))) {
		c->bad = true;
		c->p = c->end;
		return NULL;
	}
	s = (const char *)c->p;
	c->p = nul + 1;
	return s;
}

/* A NUL-terminated string at off of a string section, or NULL. */
static inline const char *cur_section_str(const uint8_t *sec, size_t size, uint64_t off)
{
	if (!sec || off >= size || !memchr(sec + off, 0, size - off))
		return NULL;
	return (const char *)(sec + off);
}

#endif
