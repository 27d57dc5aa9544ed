/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-records.c - hand-built perf records; see unit-records.h.
 */
#include "config.h"

#include <linux/perf_event.h>
#include <stddef.h>
#include <string.h>

#include "unit-helpers.h"
#include "unit-records.h"

void rb_bytes(struct rb *r, const void *p, size_t n)
{
	ck_assert_uint_le(r->len + n, sizeof(r->b));
	memcpy(r->b + r->len, p, n);
	r->len += n;
}

void rb_u64(struct rb *r, uint64_t v)
{
	rb_bytes(r, &v, sizeof(v));
}

void rb_u32(struct rb *r, uint32_t v)
{
	rb_bytes(r, &v, sizeof(v));
}

void rb_u32x2(struct rb *r, uint32_t a, uint32_t b)
{
	rb_u32(r, a);
	rb_u32(r, b);
}

void rb_string(struct rb *r, const char *s)
{
	static const unsigned char zeros[8];
	size_t n = strlen(s) + 1;

	rb_bytes(r, s, n);
	rb_bytes(r, zeros, (8 - n % 8) % 8);
}

void rb_begin(struct rb *r, uint32_t type, uint16_t misc)
{
	struct perf_event_header h = {.type = type, .misc = misc, .size = 0};

	r->len = 0;
	rb_bytes(r, &h, sizeof(h));
}

size_t rb_end(struct rb *r)
{
	uint16_t size = (uint16_t)r->len;

	ck_assert_uint_eq(r->len, size);
	memcpy(r->b + offsetof(struct perf_event_header, size), &size, sizeof(size));
	return r->len;
}
