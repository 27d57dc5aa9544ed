/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * parse.h - numbers and lists of numbers in text (options, metadata). A
 * string is taken whole or refused whole: nothing is half-parsed.
 */
#ifndef PERFMINI_PARSE_H
#define PERFMINI_PARSE_H

#include <stddef.h>
#include <stdint.h>

/* Parses a whole string as unsigned decimal (leading zeros allowed) or 0x-hex; -EINVAL otherwise. */
int parse_u64(const char *s, uint64_t *out);
/*
 * Parses a size: a decimal number of bytes, or followed by K, M or G
 * (KiB, MiB, GiB; lowercase too), "64M"; -EINVAL otherwise, or when it
 * passes 2^60 bytes.
 */
int parse_size(const char *s, uint64_t *out);
/* Size n for a reader, into buf: "812 bytes", "37 KiB" (from 10 KiB), "24 MiB" (from 10 MiB). */
void size_text(uint64_t n, char *buf, size_t len);
/*
 * Appends the ids of s, a comma-separated list of numbers (parse_u64's),
 * each from lo to hi, to the *n of *ids, each once: an id listed twice,
 * or already there, is not added again. A list with an empty item or a
 * bad number adds nothing: -EINVAL, with the item at fault (the whole
 * list when an item is empty) in bad.
 */
int parse_id_list(const char *s, uint32_t lo, uint32_t hi, uint32_t **ids, size_t *n, char *bad,
		  size_t badlen);

#endif
