/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * protobuf.h - writing the Protocol Buffers wire format: varint (type 0)
 * and length-delimited (type 2) fields appended to a byte buffer (an
 * sbuf), which is all that profile.proto needs. A nested message is
 * built in a buffer of its own and appended with pb_message.
 *
 * Repeated scalars are written unpacked, one tagged value each: every
 * parser must accept that form (the encoding guide requires parsers to
 * take packed and unpacked alike), and it keeps each value visible to a
 * schema-less decoder such as protoc --decode_raw.
 */
#ifndef PERFMINI_PROTOBUF_H
#define PERFMINI_PROTOBUF_H

#include <stddef.h>
#include <stdint.h>

#include "util/sbuf.h"

/* A bare base-128 varint, least significant group first. */
void pb_varint(struct sbuf *b, uint64_t v);
/* Field of wire type 0 (uint64, int64 >= 0, bool). */
void pb_uint(struct sbuf *b, uint32_t field, uint64_t v);
/* Field of wire type 2: the length, then the bytes. */
void pb_bytes(struct sbuf *b, uint32_t field, const void *p, size_t n);
void pb_string(struct sbuf *b, uint32_t field, const char *s);
void pb_message(struct sbuf *b, uint32_t field, const struct sbuf *m);

#endif
