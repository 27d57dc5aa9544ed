/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfz.c - expanding the compressed sections of an ELF image; see elfz.h.
 *
 * The ELF structures are read field by field from the bytes (either
 * class, either byte order), never through pointers into the image, so
 * no alignment or size of the image is assumed.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

#include "elf/elfz.h"

struct view {
	const uint8_t *p;
	size_t n;
	bool is64, le; /* ELFCLASS64; little-endian */
	uint64_t shoff;
	uint64_t shnum;
	uint64_t shentsize;
};

/* A compressed section: where its data is, and what it expands to. */
struct zsec {
	uint64_t hdr;	      /* offset of its section header */
	uint32_t type;	      /* ELFCOMPRESS_* */
	uint64_t data, len;   /* the compressed stream, after the header */
	uint64_t size, align; /* expanded */
	uint64_t flags;	      /* sh_flags */
};

/* An unsigned field of width bytes at off, in the file's byte order. */
static uint64_t get(const struct view *v, uint64_t off, unsigned width)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < width; i++)
		x |= (uint64_t)v->p[off + (v->le ? i : width - 1 - i)] << (8 * i);
	return x;
}

static void put(const struct view *v, uint8_t *out, uint64_t off, unsigned width, uint64_t x)
{
	for (unsigned i = 0; i < width; i++)
		out[off + (v->le ? i : width - 1 - i)] = (uint8_t)(x >> (8 * i));
}

/* Is [off, off + len) inside the image? */
static bool fits(const struct view *v, uint64_t off, uint64_t len)
{
	return off <= v->n && len <= v->n - off;
}

static int view_open(struct view *v, const void *in, size_t n)
{
	const uint8_t *p = in;

	memset(v, 0, sizeof(*v));
	v->p = p;
	v->n = n;
	if (n < EI_NIDENT || memcmp(p, ELFMAG, SELFMAG) != 0)
		return -ENOEXEC;
	if (p[EI_CLASS] != ELFCLASS32 && p[EI_CLASS] != ELFCLASS64)
		return -ENOEXEC;
	if (p[EI_DATA] != ELFDATA2LSB && p[EI_DATA] != ELFDATA2MSB)
		return -ENOEXEC;
	v->is64 = p[EI_CLASS] == ELFCLASS64;
	v->le = p[EI_DATA] == ELFDATA2LSB;
	if (n < (v->is64 ? sizeof(Elf64_Ehdr) : sizeof(Elf32_Ehdr)))
		return -ENOEXEC;
	if (v->is64) {
		v->shoff = get(v, 40, 8);
		v->shentsize = get(v, 58, 2);
		v->shnum = get(v, 60, 2);
	} else {
		v->shoff = get(v, 32, 4);
		v->shentsize = get(v, 46, 2);
		v->shnum = get(v, 48, 2);
	}
	if (v->shoff == 0) {
		v->shnum = 0; /* no sections, whatever e_shnum says */
		return 0;
	}
	if (v->shentsize < (v->is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr)) ||
	    !fits(v, v->shoff, v->shentsize))
		return -ENOEXEC;
	if (v->shnum == 0) /* more than SHN_LORESERVE sections: the count is in section 0 */
		v->shnum = v->is64 ? get(v, v->shoff + 32, 8) : get(v, v->shoff + 20, 4);
	if (v->shnum > (v->n - v->shoff) / v->shentsize)
		return -ENOEXEC;
	return 0;
}

/*
 * Section i: 1 and *z when it is compressed with a method elfz expands,
 * 2 when with another, 0 when not compressed, -ENOEXEC when its header or
 * data does not fit in the image.
 */
static int section(const struct view *v, uint64_t i, struct zsec *z)
{
	uint64_t h = v->shoff + i * v->shentsize, type, off, size, chdr;

	memset(z, 0, sizeof(*z));
	z->hdr = h;
	type = get(v, h + 4, 4);
	if (v->is64) {
		z->flags = get(v, h + 8, 8);
		off = get(v, h + 24, 8);
		size = get(v, h + 32, 8);
	} else {
		z->flags = get(v, h + 8, 4);
		off = get(v, h + 16, 4);
		size = get(v, h + 20, 4);
	}
	if (!(z->flags & SHF_COMPRESSED) || (z->flags & SHF_ALLOC) || type == SHT_NOBITS)
		return 0;
	chdr = v->is64 ? sizeof(Elf64_Chdr) : sizeof(Elf32_Chdr);
	if (!fits(v, off, size) || size < chdr)
		return -ENOEXEC;
	z->type = (uint32_t)get(v, off, 4);
	if (v->is64) {
		z->size = get(v, off + 8, 8);
		z->align = get(v, off + 16, 8);
	} else {
		z->size = get(v, off + 4, 4);
		z->align = get(v, off + 8, 4);
	}
	z->data = off + chdr;
	z->len = size - chdr;
	/* Alignment is a hint to readers; only small powers of two are honoured. */
	if (z->align == 0 || (z->align & (z->align - 1)) || z->align > 4096)
		z->align = 1;
	if (z->type != ELFCOMPRESS_ZLIB && z->type != ELFCOMPRESS_ZSTD)
		return 2;
	return 1;
}

/*
 * Where the expanded data of a section goes after an image ending at
 * *end; moves *end past it.
 */
static int place(const struct view *v, uint64_t *end, const struct zsec *z, uint64_t *at)
{
	uint64_t a = (*end + z->align - 1) & ~(z->align - 1);
	uint64_t max = v->is64 ? ELFZ_MAX_OUT : UINT32_MAX; /* what sh_offset can say */

	if (z->size > z->len * ELFZ_MAX_RATIO + (1u << 20) || a > max || z->size > max - a)
		return -EFBIG;
	*at = a;
	*end = a + z->size;
	return 0;
}

int elfz_inspect(const void *in, size_t n, struct elfz_info *info)
{
	struct view v;
	struct zsec z;
	uint64_t end = n, at;
	int ret;

	memset(info, 0, sizeof(*info));
	info->out_size = n;
	if ((ret = view_open(&v, in, n)) < 0)
		return ret;
	for (uint64_t i = 0; i < v.shnum; i++) {
		ret = section(&v, i, &z);
		if (ret < 0)
			return ret;
		if (ret == 2)
			info->unknown++;
		if (ret != 1)
			continue;
		if ((ret = place(&v, &end, &z, &at)) < 0)
			return ret;
		if (z.type == ELFCOMPRESS_ZSTD)
			info->zstd++;
		else
			info->zlib++;
	}
	info->out_size = end;
	return 0;
}

static int expand_one(const struct view *v, const struct zsec *z, uint8_t *dst)
{
	const uint8_t *src = v->p + z->data;

	if (z->type == ELFCOMPRESS_ZSTD) {
		size_t got = ZSTD_decompress(dst, z->size, src, z->len);

		return !ZSTD_isError(got) && got == z->size ? 0 : -EBADMSG;
	} else {
		uLongf got = z->size;
		uLong len = z->len;

		return uncompress2(dst, &got, src, &len) == Z_OK && got == z->size ? 0 : -EBADMSG;
	}
}

int elfz_expand(const void *in, size_t n, void *out, uint64_t out_size)
{
	uint8_t *o = out;
	struct view v;
	struct zsec z;
	uint64_t end = n, at, prev;
	int ret, done = 0;

	if ((ret = view_open(&v, in, n)) < 0)
		return ret;
	if (out_size < n)
		return -EINVAL;
	memcpy(o, in, n);
	for (uint64_t i = 0; i < v.shnum; i++) {
		ret = section(&v, i, &z);
		if (ret < 0)
			return ret;
		if (ret != 1)
			continue;
		prev = end;
		if ((ret = place(&v, &end, &z, &at)) < 0)
			return ret;
		if (end > out_size)
			return -EINVAL;
		memset(o + prev, 0, at - prev);
		if ((ret = expand_one(&v, &z, o + at)) < 0)
			return ret;
		if (v.is64) {
			put(&v, o, z.hdr + 8, 8, z.flags & ~(uint64_t)SHF_COMPRESSED);
			put(&v, o, z.hdr + 24, 8, at);
			put(&v, o, z.hdr + 32, 8, z.size);
			put(&v, o, z.hdr + 48, 8, z.align);
		} else {
			put(&v, o, z.hdr + 8, 4, z.flags & ~(uint64_t)SHF_COMPRESSED);
			put(&v, o, z.hdr + 16, 4, at);
			put(&v, o, z.hdr + 20, 4, z.size);
			put(&v, o, z.hdr + 32, 4, z.align);
		}
		done++;
	}
	if (end != out_size)
		return -EINVAL;
	return done;
}
