/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * unit-records.h - perf records built by hand for the unit tests, byte by
 * byte as the kernel lays them out (little-endian x86-64).
 */
#ifndef PERFMINI_UNIT_RECORDS_H
#define PERFMINI_UNIT_RECORDS_H

#include <stddef.h>
#include <stdint.h>

/* A record being built; at most 64 KiB, as the kernel's. */
struct rb {
	unsigned char b[65536];
	size_t len;
};

void rb_bytes(struct rb *r, const void *p, size_t n);
void rb_u64(struct rb *r, uint64_t v);
void rb_u32(struct rb *r, uint32_t v);
void rb_u32x2(struct rb *r, uint32_t a, uint32_t b);
/* A string with its NUL, zero-padded to 8 bytes as the kernel does. */
void rb_string(struct rb *r, const char *s);
/* Starts a record of type with misc; rb_end sets its size and returns it. */
void rb_begin(struct rb *r, uint32_t type, uint16_t misc);
size_t rb_end(struct rb *r);

#endif
