/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.c - command-line numbers and lists; see parse.h.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/alloc.h"
#include "util/parse.h"

int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-' || *s == '+' || *s == ' ')
		return -EINVAL;
	errno = 0;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		v = s[2] ? strtoull(s + 2, &end, 16) : (end = (char *)s, 0);
	else
		v = strtoull(s, &end, 10);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	static const char units[] = "KMG";
	char num[32];
	size_t len = s ? strlen(s) : 0;
	const char *u;
	uint64_t v;
	unsigned shift = 0;

	if (!len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, s, len + 1);
	if ((u = strchr(units, toupper((unsigned char)num[len - 1]))) && len > 1) {
		shift = 10 * (unsigned)(u - units + 1);
		num[len - 1] = '\0';
	}
	if (num[0] == '0' && (num[1] == 'x' || num[1] == 'X'))
		return -EINVAL;
	if (parse_u64(num, &v) < 0 || v > (1ULL << 60) >> shift)
		return -EINVAL;
	*out = v << shift;
	return 0;
}

void size_text(uint64_t n, char *buf, size_t len)
{
	if (n < 10 * 1024)
		snprintf(buf, len, "%llu bytes", (unsigned long long)n);
	else if (n < 10 * 1024 * 1024)
		snprintf(buf, len, "%llu KiB", (unsigned long long)(n / 1024));
	else
		snprintf(buf, len, "%llu MiB", (unsigned long long)(n / (1024 * 1024)));
}

int parse_id_list(const char *s, uint32_t lo, uint32_t hi, uint32_t **ids, size_t *n, char *bad,
		  size_t badlen)
{
	size_t n0 = *n, cap = *n;

	for (const char *p = s;;) {
		size_t len = strcspn(p, ",");
		char item[32];
		uint64_t v;
		bool seen = false;

		if (len == 0 || len >= sizeof(item)) {
			snprintf(bad, badlen, "%s", len ? p : s);
			if (len)
				bad[len < badlen ? len : badlen - 1] = '\0';
			*n = n0;
			return -EINVAL;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (parse_u64(item, &v) < 0 || v < lo || v > hi) {
			snprintf(bad, badlen, "%s", item);
			*n = n0;
			return -EINVAL;
		}
		for (size_t i = 0; i < *n && !seen; i++)
			seen = (*ids)[i] == (uint32_t)v;
		if (!seen) {
			xgrow(ids, &cap, *n + 1, sizeof(**ids));
			(*ids)[(*n)++] = (uint32_t)v;
		}
		if (!p[len])
			return 0;
		p += len + 1;
	}
}
