/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bytes.h - numbers read from and written to bytes at any alignment: in
 * the host's order (what the kernel's records and ELF files of this host
 * hold), or little-endian whatever the host (what the data file holds).
 */
#ifndef PERFMINI_BYTES_H
#define PERFMINI_BYTES_H

#include <stdint.h>
#include <string.h>

/* Unaligned loads and stores in the host's byte order. */
static inline uint16_t load_u16(const void *p)
{
	uint16_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline uint32_t load_u32(const void *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline uint64_t load_u64(const void *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return v;
}
static inline void store_u16(void *p, uint16_t v)
{
	memcpy(p, &v, sizeof(v));
}
static inline void store_u64(void *p, uint64_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * Little-endian whatever the host: the byte order of files perfmini
 * writes (the data file's integers).
 */
static inline void put_le32(void *p, uint32_t v)
{
	unsigned char *b = p;

	for (int i = 0; i < 4; i++)
		b[i] = (unsigned char)(v >> (8 * i));
}
static inline void put_le64(void *p, uint64_t v)
{
	put_le32(p, (uint32_t)v);
	put_le32((unsigned char *)p + 4, (uint32_t)(v >> 32));
}
static inline uint32_t get_le32(const void *p)
{
	const unsigned char *b = p;

	return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}
static inline uint64_t get_le64(const void *p)
{
	return (uint64_t)get_le32(p) | (uint64_t)get_le32((const unsigned char *)p + 4) << 32;
}

#endif
