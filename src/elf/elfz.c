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
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <zlib.h>
#include <zstd.h>

#include "elf/elfz.h"
#include "util/io.h"

struct view {
	const uint8_t *p;
	size_t n;
	bool is64, le; /* ELFCLASS64; little-endian */
	uint64_t shoff;
	uint64_t shnum;
	uint64_t shentsize;
	uint64_t stroff, strsize; /* the section names (.shstrtab); size 0 when there are none */
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

/*
 * Finds the section names (e_shstrndx's section, or section 0's sh_link
 * when that is SHN_XINDEX) for section_is_debug; none when they do not
 * fit in the image.
 */
static void names(struct view *v)
{
	uint64_t i = v->is64 ? get(v, 62, 2) : get(v, 50, 2), h;

	if (i == SHN_XINDEX)
		i = get(v, v->shoff + (v->is64 ? 40 : 24), 4);
	if (i == SHN_UNDEF || i >= v->shnum)
		return;
	h = v->shoff + i * v->shentsize;
	v->stroff = v->is64 ? get(v, h + 24, 8) : get(v, h + 16, 4);
	v->strsize = v->is64 ? get(v, h + 32, 8) : get(v, h + 20, 4);
	if (!fits(v, v->stroff, v->strsize))
		v->strsize = 0;
}

/*
 * Whether the section whose header is at h is named .debug_*: the DWARF
 * that libdw reads, the only sections worth expanding. Any other
 * compressed section (a program's own data) is left as it is, so that it
 * cannot make the copy grow (it may claim gigabytes).
 */
static bool section_is_debug(const struct view *v, uint64_t h)
{
	static const char prefix[] = ".debug_";
	uint64_t name = get(v, h, 4);

	return v->strsize > name && v->strsize - name > sizeof(prefix) - 1 &&
	       memcmp(v->p + v->stroff + name, prefix, sizeof(prefix) - 1) == 0;
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
	names(v);
	return 0;
}

/*
 * Section i: 1 and *z when it is a debug section compressed with a method
 * elfz expands, 2 when with another method, 3 when it is another section
 * (left compressed), 0 when not compressed, -ENOEXEC when its header or
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
	return section_is_debug(v, h) ? 1 : 3;
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

/*
 * Rewrites the section header at h (in the output) for z's data expanded
 * at offset at: no longer compressed, its new place, size and alignment.
 */
static void expanded_header(const struct view *v, uint8_t *h, const struct zsec *z, uint64_t at)
{
	if (v->is64) {
		put(v, h, 8, 8, z->flags & ~(uint64_t)SHF_COMPRESSED);
		put(v, h, 24, 8, at);
		put(v, h, 32, 8, z->size);
		put(v, h, 48, 8, z->align);
	} else {
		put(v, h, 8, 4, z->flags & ~(uint64_t)SHF_COMPRESSED);
		put(v, h, 16, 4, at);
		put(v, h, 20, 4, z->size);
		put(v, h, 32, 4, z->align);
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
		expanded_header(&v, o + z.hdr, &z, at);
		done++;
	}
	if (end != out_size)
		return -EINVAL;
	return done;
}

/* Writing to a descriptor: through a small buffer, never the whole image. */
#define CHUNK (256u << 10)

/*
 * Drops the pages of in[off, off + len) from the process (whole pages
 * inside the range only): the input, a file mapping, is read once, front
 * to back, and its pages would otherwise count in the process's memory.
 */
static void done_with(const struct view *v, uint64_t off, uint64_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t a = ((uintptr_t)(v->p + off) + page - 1) & ~(page - 1);
	uintptr_t b = (uintptr_t)(v->p + off + len) & ~(page - 1);

	if (b > a)
		madvise((void *)a, b - a, MADV_DONTNEED);
}

/* Expands section z, streamed through buf, to fd at offset at. */
static int expand_one_fd(const struct view *v, const struct zsec *z, int fd, uint64_t at,
			 uint8_t *buf, bool drop)
{
	uint64_t got = 0;
	int ret = 0;

	if (z->type == ELFCOMPRESS_ZSTD) {
		ZSTD_DCtx *d = ZSTD_createDCtx();
		ZSTD_inBuffer src = {v->p + z->data, z->len, 0};
		size_t left = 1;

		if (!d)
			return -ENOMEM;
		/* Frame after frame, as ZSTD_decompress reads them. */
		while (!ret && (left || src.pos < src.size)) {
			ZSTD_outBuffer dst = {buf, CHUNK, 0};
			size_t from = src.pos;

			left = ZSTD_decompressStream(d, &dst, &src);
			if (ZSTD_isError(left) || got + dst.pos > z->size ||
			    (!dst.pos && src.pos == from))
				ret = -EBADMSG;
			else if (dst.pos && !(ret = pwrite_all(fd, buf, dst.pos, at + got)))
				got += dst.pos;
		}
		ZSTD_freeDCtx(d);
	} else {
		z_stream s;
		int zr = Z_OK;

		memset(&s, 0, sizeof(s));
		if (inflateInit(&s) != Z_OK)
			return -ENOMEM;
		s.next_in = (Bytef *)(uintptr_t)(v->p + z->data);
		/* zlib counts in 32 bits: the input is fed in pieces. */
		s.avail_in = 0;
		while (!ret && zr != Z_STREAM_END) {
			uint64_t used = (uint64_t)(s.next_in - (v->p + z->data));

			if (!s.avail_in && used < z->len)
				s.avail_in = (uInt)(z->len - used < CHUNK ? z->len - used : CHUNK);
			s.next_out = buf;
			s.avail_out = CHUNK;
			zr = inflate(&s, Z_NO_FLUSH);
			if ((zr != Z_OK && zr != Z_STREAM_END) ||
			    got + (CHUNK - s.avail_out) > z->size ||
			    (zr == Z_OK && s.avail_out == CHUNK && !s.avail_in))
				ret = -EBADMSG;
			else if (s.avail_out != CHUNK &&
				 !(ret = pwrite_all(fd, buf, CHUNK - s.avail_out, at + got)))
				got += CHUNK - s.avail_out;
		}
		inflateEnd(&s);
	}
	if (drop)
		done_with(v, z->data, z->len);
	if (!ret && got != z->size)
		ret = -EBADMSG;
	return ret;
}

int elfz_expand_fd(const void *in, size_t n, int fd, uint64_t out_size, bool drop)
{
	struct view v;
	struct zsec z;
	uint64_t end = n, at;
	uint8_t *buf, hdr[sizeof(Elf64_Shdr)];
	int ret, done = 0;

	if ((ret = view_open(&v, in, n)) < 0)
		return ret;
	if (out_size < n)
		return -EINVAL;
	if (ftruncate(fd, (off_t)out_size) < 0)
		return -errno;
	if (!(buf = malloc(CHUNK)))
		return -ENOMEM;
	/* The original bytes, a piece at a time. */
	for (uint64_t off = 0; off < n && !ret; off += CHUNK) {
		size_t len = n - off < CHUNK ? n - off : CHUNK;

		ret = pwrite_all(fd, v.p + off, len, off);
		if (drop)
			done_with(&v, off, len);
	}
	for (uint64_t i = 0; i < v.shnum && !ret; i++) {
		ret = section(&v, i, &z);
		if (ret < 0)
			break;
		if (ret != 1) {
			ret = 0;
			continue;
		}
		if ((ret = place(&v, &end, &z, &at)) < 0)
			break;
		if (end > out_size) {
			ret = -EINVAL;
			break;
		}
		if ((ret = expand_one_fd(&v, &z, fd, at, buf, drop)) < 0)
			break;
		/* Its header, rewritten as elfz_expand does. */
		memcpy(hdr, v.p + z.hdr, v.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr));
		expanded_header(&v, hdr, &z, at);
		ret = pwrite_all(fd, hdr, v.is64 ? sizeof(Elf64_Shdr) : sizeof(Elf32_Shdr), z.hdr);
		done++;
	}
	free(buf);
	if (!ret && end != out_size)
		ret = -EINVAL;
	return ret < 0 ? ret : done;
}
