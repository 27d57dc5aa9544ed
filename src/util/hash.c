/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash.c - hashes for tables in memory; see hash.h.
 */
#include "config.h"

#include <string.h>

#include "util/bytes.h"
#include "util/hash.h"

uint64_t hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n;

	while (n >= 8) {
		h = hash_u64(h ^ load_u64(b));
		b += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;

		memcpy(&t, b, n);
		h = hash_u64(h ^ t);
	}
	return h;
}

static inline uint64_t rotl64(uint64_t x, int r)
{
	return x << r | x >> (64 - r);
}

uint64_t hash_fast(const void *p, size_t n)
{
	const uint64_t k0 = 0x9e3779b97f4a7c15ULL, k1 = 0xc2b2ae3d27d4eb4fULL;
	const unsigned char *b = p;
	uint64_t h0 = k1 ^ n, h1 = k0;

	for (; n >= 16; b += 16, n -= 16) {
		h0 = rotl64((h0 ^ load_u64(b)) * k0, 29);
		h1 = rotl64((h1 ^ load_u64(b + 8)) * k1, 29);
	}
	if (n >= 8) {
		h0 = rotl64((h0 ^ load_u64(b)) * k0, 29);
		b += 8;
		n -= 8;
	}
	if (n) {
		uint64_t t = 0;

		memcpy(&t, b, n);
		h1 = rotl64((h1 ^ t) * k1, 29);
	}
	return hash_u64(h0 ^ rotl64(h1, 32));
}
