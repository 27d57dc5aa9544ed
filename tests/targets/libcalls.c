/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * libcalls.c - a program built with frame pointers whose time goes into
 * the C library, which Debian builds without them: copy_part calls
 * memcpy, len_part strlen, sort_part qsort with cmp_keys as its
 * comparator. A frame-pointer walk from inside libc skips the direct
 * caller (copy_part, len_part) and loses qsort's caller; the default call
 * graph must give main;copy_part;memcpy and main;sort_part;qsort...;cmp_keys.
 *
 * Usage: libcalls [SECONDS]   (CPU seconds, default 1)
 */
#include <string.h>

#include "hot.h"

#define BUF (1 << 20)

static char src[BUF], dst[BUF];
static uint32_t keys[1 << 14];
static volatile size_t sink;

HOT void copy_part(void)
{
	for (int i = 0; i < 64; i++) {
		memcpy(dst, src, sizeof(dst));
		src[i] = (char)('a' + (dst[i + 1] & 7));
	}
}

HOT void len_part(void)
{
	size_t n = 0;

	for (int i = 0; i < 64; i++)
		n += strlen(src + (i & 7));
	sink += n;
}

HOT int cmp_keys(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

HOT void sort_part(void)
{
	uint64_t x = sink | 1;

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		HOT_STEP(x);
		keys[i] = (uint32_t)(x >> 32);
	}
	qsort(keys, sizeof(keys) / sizeof(keys[0]), sizeof(keys[0]), cmp_keys);
	sink += keys[0];
}

int main(int argc, char **argv)
{
	double secs = hot_seconds(argc, argv, 1, 1.0);

	memset(src, 'x', sizeof(src) - 1);
	while (hot_thread_cpu() < secs) {
		copy_part();
		len_part();
		sort_part();
	}
	return 0;
}
