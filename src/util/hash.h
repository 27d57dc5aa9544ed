/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * hash.h - hashes of numbers and bytes, for hash tables in memory.
 */
#ifndef PERFMINI_HASH_H
#define PERFMINI_HASH_H

#include <stddef.h>
#include <stdint.h>

/* A 64-bit mix (splitmix64 finalizer). */
static inline uint64_t hash_u64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ULL;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebULL;
	x ^= x >> 31;
	return x;
}
/* A hash of n bytes, each word mixed by hash_u64 in turn. */
uint64_t hash_bytes(const void *p, size_t n);
/*
 * A hash of n bytes for the per-sample paths (call chains, stacks): one
 * multiply a word on two independent lanes, mixed by hash_u64 at the end;
 * about four times as fast as hash_bytes on long inputs. Not stable across
 * versions: nothing stored may depend on it.
 */
uint64_t hash_fast(const void *p, size_t n);

#endif
