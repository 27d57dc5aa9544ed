/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protobuf.c - the Protocol Buffers wire format, writing side; see
 * protobuf.h.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "report/protobuf.h"
#include "util/alloc.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

static void put(struct pb *b, const void *p, size_t n)
{
	xgrow(&b->buf, &b->cap, b->len + n, 1);
	memcpy(b->buf + b->len, p, n);
	b->len += n;
}

void pb_varint(struct pb *b, uint64_t v)
{
	unsigned char tmp[10];
	size_t n = 0;

	do {
		tmp[n] = (unsigned char)(v & 0x7f);
		v >>= 7;
		if (v)
			tmp[n] |= 0x80;
		n++;
	} while (v);
	put(b, tmp, n);
}

static void tag(struct pb *b, uint32_t field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct pb *b, uint32_t field, uint64_t v)
{
	tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct pb *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, WIRE_LEN);
	pb_varint(b, n);
	if (n)
		put(b, p, n);
}

void pb_string(struct pb *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct pb *b, uint32_t field, const struct pb *m)
{
	pb_bytes(b, field, m->buf, m->len);
}

void pb_release(struct pb *b)
{
	free(b->buf);
	b->buf = NULL;
	b->len = b->cap = 0;
}
