/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * array.h - plain C arrays: their length, and a binary search over sorted
 * ones.
 */
#ifndef PERFMINI_ARRAY_H
#define PERFMINI_ARRAY_H

#include <stddef.h>
#include <stdint.h>

/* The number of elements of a, an array (not a pointer). */
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * In an array of n elements sorted by key, the number of leading ones
 * whose key is at most key: the index just after the last such element,
 * 0 when there is none. key_at(arr, i) is element i's key. Inline, so
 * that a constant key_at is inlined into the search too.
 */
static inline size_t bsearch_last_le(const void *arr, size_t n, uint64_t key,
				     uint64_t (*key_at)(const void *arr, size_t i))
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (key_at(arr, mid) <= key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

#endif
