/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protobuf.c - the Protocol Buffers wire format, writing side; see
 * protobuf.h.
 */
#include "config.h"

#include <string.h>

#include "report/protobuf.h"

enum { WIRE_VARINT = 0, WIRE_LEN = 2 };

void pb_varint(struct sbuf *b, uint64_t v)
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
	sbuf_addn(b, (const char *)tmp, n);
}

static void tag(struct sbuf *b, uint32_t field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

void pb_uint(struct sbuf *b, uint32_t field, uint64_t v)
{
	tag(b, field, WIRE_VARINT);
	pb_varint(b, v);
}

void pb_bytes(struct sbuf *b, uint32_t field, const void *p, size_t n)
{
	tag(b, field, WIRE_LEN);
	pb_varint(b, n);
	sbuf_addn(b, p, n);
}

void pb_string(struct sbuf *b, uint32_t field, const char *s)
{
	pb_bytes(b, field, s, strlen(s));
}

void pb_message(struct sbuf *b, uint32_t field, const struct sbuf *m)
{
	pb_bytes(b, field, m->buf, m->len);
}
