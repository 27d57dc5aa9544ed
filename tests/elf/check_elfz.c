/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * check_elfz.c - expanding compressed ELF sections (elfz.h) on ELF images
 * built here byte by byte: both classes and both byte orders, zstd, zlib
 * and an unknown method side by side, extended section numbering, and
 * damaged images (truncated, sizes that lie, headers out of bounds). The
 * expanded images are read back by libelf as a second opinion.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <gelf.h>
#include <zlib.h>
#include <zstd.h>

#include "elf/elfz.h"
#include "unit-helpers.h"
#include "util/alloc.h"

struct img {
	uint8_t *p;
	size_t n, cap;
	bool is64, le;
};

static void img_put(struct img *g, size_t off, unsigned width, uint64_t x)
{
	for (unsigned i = 0; i < width; i++)
		g->p[off + (g->le ? i : width - 1 - i)] = (uint8_t)(x >> (8 * i));
}

static uint64_t img_get(const struct img *g, const uint8_t *p, size_t off, unsigned width)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < width; i++)
		x |= (uint64_t)p[off + (g->le ? i : width - 1 - i)] << (8 * i);
	return x;
}

/* Appends n bytes (zeros when data is NULL) at an offset aligned to align. */
static size_t img_add(struct img *g, const void *data, size_t n, size_t align)
{
	size_t off = (g->n + align - 1) / align * align;

	xgrow(&g->p, &g->cap, off + n, 1);
	memset(g->p + g->n, 0, off - g->n);
	if (data)
		memcpy(g->p + off, data, n);
	else
		memset(g->p + off, 0, n);
	g->n = off + n;
	return off;
}

/* The payloads that the sections expand to. */
static uint8_t *payload_a, *payload_b;
static size_t payload_a_len, payload_b_len;

struct sec {
	const char *name;
	uint32_t type;
	uint64_t flags;
	uint32_t ctype; /* ELFCOMPRESS_*, or 0: stored as is */
	uint64_t align; /* ch_addralign */
	const uint8_t *data;
	size_t len;
};

#define NSEC 6
static const char shstrtab[] = "\0.shstrtab\0.debug_a\0.debug_b\0.debug_c\0.text";
static const uint32_t name_off[NSEC] = {0, 1, 11, 20, 29, 38};

struct layout {
	size_t shoff, shentsize;
	size_t off[NSEC], size[NSEC];
};

/*
 * An ELF image: null, .shstrtab, .debug_a (zstd), .debug_b (zlib),
 * .debug_c (an unknown method), .text. ext: section count in section 0.
 */
static struct img build(bool is64, bool le, bool ext, struct layout *lay)
{
	struct img g = {.is64 = is64, .le = le};
	size_t ehsize = is64 ? 64 : 52, shent = is64 ? 64 : 40, chsz = is64 ? 24 : 12;
	static const uint8_t text[] = {0x90, 0x90, 0xc3};
	static const uint8_t other[] = "not a stream any method knows";
	struct sec secs[NSEC] = {
		{"", SHT_NULL, 0, 0, 0, NULL, 0},
		{".shstrtab", SHT_STRTAB, 0, 0, 0, (const uint8_t *)shstrtab, sizeof(shstrtab)},
		{".debug_a", SHT_PROGBITS, SHF_COMPRESSED, ELFCOMPRESS_ZSTD, 8, payload_a,
		 payload_a_len},
		{".debug_b", SHT_PROGBITS, SHF_COMPRESSED, ELFCOMPRESS_ZLIB, 16, payload_b,
		 payload_b_len},
		{".debug_c", SHT_PROGBITS, SHF_COMPRESSED, 0x63, 1, other, sizeof(other)},
		{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, text, sizeof(text)},
	};

	memset(lay, 0, sizeof(*lay));
	img_add(&g, NULL, ehsize, 1);
	memcpy(g.p, ELFMAG, SELFMAG);
	g.p[EI_CLASS] = is64 ? ELFCLASS64 : ELFCLASS32;
	g.p[EI_DATA] = le ? ELFDATA2LSB : ELFDATA2MSB;
	g.p[EI_VERSION] = EV_CURRENT;
	for (int i = 1; i < NSEC; i++) {
		const struct sec *s = &secs[i];
		uint8_t *buf;
		size_t len;

		if (!s->ctype) {
			lay->off[i] = img_add(&g, s->data, s->len, 1);
			lay->size[i] = s->len;
			continue;
		}
		if (s->ctype == ELFCOMPRESS_ZSTD) {
			size_t cap = ZSTD_compressBound(s->len);

			buf = xmalloc(cap);
			len = ZSTD_compress(buf, cap, s->data, s->len, 3);
			ck_assert(!ZSTD_isError(len));
		} else if (s->ctype == ELFCOMPRESS_ZLIB) {
			uLongf cap = compressBound(s->len);

			buf = xmalloc(cap);
			ck_assert_int_eq(compress2(buf, &cap, s->data, s->len, 6), Z_OK);
			len = cap;
		} else {
			buf = xmalloc(s->len);
			memcpy(buf, s->data, s->len);
			len = s->len;
		}
		lay->off[i] = img_add(&g, NULL, chsz + len, is64 ? 8 : 4);
		img_put(&g, lay->off[i], 4, s->ctype);
		if (is64) {
			img_put(&g, lay->off[i] + 8, 8, s->len);
			img_put(&g, lay->off[i] + 16, 8, s->align);
		} else {
			img_put(&g, lay->off[i] + 4, 4, s->len);
			img_put(&g, lay->off[i] + 8, 4, s->align);
		}
		memcpy(g.p + lay->off[i] + chsz, buf, len);
		lay->size[i] = chsz + len;
		free(buf);
	}
	lay->shoff = img_add(&g, NULL, NSEC * shent, 8);
	lay->shentsize = shent;
	for (int i = 0; i < NSEC; i++) {
		size_t h = lay->shoff + (size_t)i * shent;

		img_put(&g, h, 4, name_off[i]);
		img_put(&g, h + 4, 4, secs[i].type);
		if (is64) {
			img_put(&g, h + 8, 8, secs[i].flags);
			img_put(&g, h + 24, 8, lay->off[i]);
			img_put(&g, h + 32, 8, lay->size[i]);
			img_put(&g, h + 48, 8, 1);
		} else {
			img_put(&g, h + 8, 4, secs[i].flags);
			img_put(&g, h + 16, 4, lay->off[i]);
			img_put(&g, h + 20, 4, lay->size[i]);
			img_put(&g, h + 32, 4, 1);
		}
	}
	if (ext) /* the count in section 0's sh_size */
		img_put(&g, lay->shoff + (is64 ? 32 : 20), is64 ? 8 : 4, NSEC);
	img_put(&g, 16, 2, ET_REL);
	img_put(&g, 18, 2, EM_X86_64);
	img_put(&g, 20, 4, EV_CURRENT);
	if (is64) {
		img_put(&g, 40, 8, lay->shoff);
		img_put(&g, 52, 2, ehsize);
		img_put(&g, 58, 2, shent);
		img_put(&g, 60, 2, ext ? 0 : NSEC);
		img_put(&g, 62, 2, 1);
	} else {
		img_put(&g, 32, 4, lay->shoff);
		img_put(&g, 40, 2, ehsize);
		img_put(&g, 46, 2, shent);
		img_put(&g, 48, 2, ext ? 0 : NSEC);
		img_put(&g, 50, 2, 1);
	}
	return g;
}

/* Payloads of a and b bytes (more than elfz's 256 KiB buffer: streamed in pieces). */
static void fill_payloads(size_t a, size_t b)
{
	uint64_t st = 42;

	free(payload_a);
	free(payload_b);
	payload_a = xmalloc(payload_a_len = a);
	payload_b = xmalloc(payload_b_len = b);
	for (size_t i = 0; i < payload_a_len; i++)
		payload_a[i] = (uint8_t)(i % 7 == 0 ? unit_rand(&st) : i / 64);
	for (size_t i = 0; i < payload_b_len; i++)
		payload_b[i] = (uint8_t)(i * 13);
}

/* The expanded image of g; checks inspect's counts. */
static uint8_t *expand(const struct img *g, struct elfz_info *info)
{
	uint8_t *out;

	ck_assert_int_eq(elfz_inspect(g->p, g->n, info), 0);
	ck_assert_uint_eq(info->zstd, 1);
	ck_assert_uint_eq(info->zlib, 1);
	ck_assert_uint_eq(info->unknown, 1);
	ck_assert_uint_gt(info->out_size, g->n + payload_a_len + payload_b_len - 1);
	out = xmalloc(info->out_size);
	memset(out, 0xaa, info->out_size);
	ck_assert_int_eq(elfz_expand(g->p, g->n, out, info->out_size), 2);
	return out;
}

/* elfz_expand_fd's copy of in[0, n) (into a memfd): its return; the bytes in *out. */
static int expand_to_fd(const uint8_t *in, size_t n, uint64_t out_size, bool drop, uint8_t **out)
{
	int fd = memfd_create("check-elfz", MFD_CLOEXEC), ret;

	ck_assert_int_ge(fd, 0);
	ret = elfz_expand_fd(in, n, fd, out_size, drop);
	*out = xcalloc(1, out_size ? out_size : 1);
	if (ret >= 0)
		ck_assert_int_eq(pread(fd, *out, out_size, 0), (ssize_t)out_size);
	close(fd);
	return ret;
}

/* Section i's header of an image laid out as lay, read from p. */
static void shdr(const struct img *g, const uint8_t *p, const struct layout *lay, int i,
		 uint64_t *flags, uint64_t *off, uint64_t *size, uint64_t *align)
{
	size_t h = lay->shoff + (size_t)i * lay->shentsize;

	if (g->is64) {
		*flags = img_get(g, p, h + 8, 8);
		*off = img_get(g, p, h + 24, 8);
		*size = img_get(g, p, h + 32, 8);
		*align = img_get(g, p, h + 48, 8);
	} else {
		*flags = img_get(g, p, h + 8, 4);
		*off = img_get(g, p, h + 16, 4);
		*size = img_get(g, p, h + 20, 4);
		*align = img_get(g, p, h + 32, 4);
	}
}

/* What libelf reads of section i of the image out. */
static void libelf_section(uint8_t *out, size_t n, int i, const void *want, size_t len)
{
	Elf *e;
	Elf_Scn *scn;
	Elf_Data *d;
	GElf_Shdr sh;

	elf_version(EV_CURRENT);
	e = elf_memory((char *)out, n);
	ck_assert_ptr_nonnull(e);
	scn = elf_getscn(e, (size_t)i);
	ck_assert_ptr_nonnull(scn);
	ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
	ck_assert_uint_eq(sh.sh_flags & SHF_COMPRESSED, 0);
	d = elf_rawdata(scn, NULL);
	ck_assert_ptr_nonnull(d);
	ck_assert_uint_eq(d->d_size, len);
	ck_assert_mem_eq(d->d_buf, want, len);
	elf_end(e);
}

static void check_image(bool is64, bool le, bool ext)
{
	struct layout lay;
	struct img g = build(is64, le, ext, &lay);
	struct elfz_info info;
	uint8_t *out = expand(&g, &info);
	uint64_t flags, off, size, align, prev_end = g.n;

	/* Everything before the appended data is the original but two headers. */
	for (size_t i = 0; i < g.n; i++) {
		size_t h2 = lay.shoff + 2 * lay.shentsize, h3 = lay.shoff + 3 * lay.shentsize;

		if ((i >= h2 && i < h2 + lay.shentsize) || (i >= h3 && i < h3 + lay.shentsize))
			continue;
		ck_assert_msg(out[i] == g.p[i], "byte %zu changed", i);
	}
	/* .debug_a and .debug_b: expanded, aligned, flag cleared, padding zero. */
	for (int i = 2; i <= 3; i++) {
		const uint8_t *want = i == 2 ? payload_a : payload_b;
		size_t len = i == 2 ? payload_a_len : payload_b_len;

		shdr(&g, out, &lay, i, &flags, &off, &size, &align);
		ck_assert_uint_eq(flags & SHF_COMPRESSED, 0);
		ck_assert_uint_eq(size, len);
		ck_assert_uint_eq(align, i == 2 ? 8 : 16);
		ck_assert_uint_eq(off % align, 0);
		ck_assert_uint_ge(off, prev_end);
		for (uint64_t k = prev_end; k < off; k++)
			ck_assert_uint_eq(out[k], 0);
		ck_assert_mem_eq(out + off, want, len);
		prev_end = off + size;
		libelf_section(out, info.out_size, i, want, len);
	}
	ck_assert_uint_eq(prev_end, info.out_size);
	/* .debug_c (unknown method) and .text: untouched. */
	shdr(&g, out, &lay, 4, &flags, &off, &size, &align);
	ck_assert_uint_ne(flags & SHF_COMPRESSED, 0);
	ck_assert_uint_eq(off, lay.off[4]);
	shdr(&g, out, &lay, 5, &flags, &off, &size, &align);
	ck_assert_uint_eq(off, lay.off[5]);
	ck_assert_uint_eq(size, 3);
	free(out);
	free(g.p);
}

START_TEST(test_expand_64le)
{
	check_image(true, true, false);
}
END_TEST

START_TEST(test_expand_other_layouts)
{
	check_image(true, false, false);
	check_image(false, true, false);
	check_image(false, false, false);
	check_image(true, true, true);
	check_image(false, false, true);
}
END_TEST

START_TEST(test_nothing_compressed)
{
	struct layout lay;
	struct img g = build(true, true, false, &lay);
	struct elfz_info info;
	uint8_t *out;

	/* Clear SHF_COMPRESSED everywhere: nothing to expand. */
	for (int i = 2; i <= 4; i++)
		img_put(&g, lay.shoff + (size_t)i * lay.shentsize + 8, 8, 0);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), 0);
	ck_assert_uint_eq(info.zstd + info.zlib + info.unknown, 0);
	ck_assert_uint_eq(info.out_size, g.n);
	out = xmalloc(g.n);
	ck_assert_int_eq(elfz_expand(g.p, g.n, out, g.n), 0);
	ck_assert_mem_eq(out, g.p, g.n);
	free(out);
	free(g.p);
}
END_TEST

/*
 * A compressed section that is not .debug_* (named .text here: a program's
 * own data, which libdw never reads) is left compressed: not counted, not
 * expanded, its bytes and header unchanged in the copy.
 */
START_TEST(test_non_debug_left_compressed)
{
	struct layout lay;
	struct img g;
	struct elfz_info info;
	uint8_t *out;
	size_t h;

	fill_payloads(1000, 300000);
	g = build(true, true, false, &lay);
	h = lay.shoff + 3 * lay.shentsize;
	img_put(&g, h, 4, name_off[5]); /* .debug_b (zlib, 300 KB) renamed .text */
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), 0);
	ck_assert_uint_eq(info.zstd, 1);
	ck_assert_uint_eq(info.zlib, 0);
	ck_assert_uint_lt(info.out_size, g.n + 2000);
	out = xmalloc(info.out_size);
	ck_assert_int_eq(elfz_expand(g.p, g.n, out, info.out_size), 1);
	ck_assert_mem_eq(out + h, g.p + h, lay.shentsize);
	ck_assert_mem_eq(out + lay.off[3], g.p + lay.off[3], lay.size[3]);
	free(out);
	free(g.p);
}
END_TEST

START_TEST(test_not_elf)
{
	static const uint8_t junk[] = "\177ELX this is not an ELF file at all, not even close";
	struct elfz_info info;
	uint8_t out[64];

	ck_assert_int_eq(elfz_inspect(junk, sizeof(junk), &info), -ENOEXEC);
	ck_assert_int_eq(elfz_inspect(junk, 0, &info), -ENOEXEC);
	ck_assert_int_eq(elfz_expand(junk, sizeof(junk), out, sizeof(out)), -ENOEXEC);
}
END_TEST

/* Every prefix of a valid image: an error or a consistent answer, never a crash. */
/*
 * Written to a file, the copy is the one made in memory, byte for byte,
 * in every layout; from _i 8 on, with sections that expand to more than
 * elfz's buffer (streamed through it in pieces).
 */
START_TEST(test_expand_fd)
{
	struct layout lay;
	struct elfz_info info;
	struct img g;
	uint8_t *mem, *viafd;

	if (_i & 8)
		fill_payloads(700000, 300000);
	g = build(_i & 1, _i & 2, _i & 4, &lay);
	mem = expand(&g, &info);
	ck_assert_int_eq(expand_to_fd(g.p, g.n, info.out_size, false, &viafd), 2);
	ck_assert_mem_eq(viafd, mem, info.out_size);
	free(viafd);
	free(mem);
	free(g.p);
}
END_TEST

/*
 * From a private mapping of a file, its pages dropped as they are read:
 * the same copy, and the mapping reads as before (from the file again).
 */
START_TEST(test_expand_fd_drop)
{
	struct layout lay;
	struct elfz_info info;
	struct img g;
	uint8_t *mem, *viafd, *in;
	int fd;

	fill_payloads(700000, 300000);
	g = build(true, true, false, &lay);
	mem = expand(&g, &info);
	fd = memfd_create("check-elfz-in", MFD_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, g.p, g.n, 0), (ssize_t)g.n);
	in = mmap(NULL, g.n, PROT_READ, MAP_PRIVATE, fd, 0);
	ck_assert(in != MAP_FAILED);
	ck_assert_int_eq(expand_to_fd(in, g.n, info.out_size, true, &viafd), 2);
	ck_assert_mem_eq(viafd, mem, info.out_size);
	ck_assert_mem_eq(in, g.p, g.n);
	munmap(in, g.n);
	close(fd);
	free(viafd);
	free(mem);
	free(g.p);
}
END_TEST

START_TEST(test_truncated)
{
	struct layout lay;
	struct img g = build(_i & 1, _i & 2, _i & 4, &lay);

	for (size_t n = 0; n <= g.n; n++) {
		uint8_t *in = unit_exact_copy(g.p, n);
		struct elfz_info info;
		int ret = elfz_inspect(in, n, &info);

		if (ret == 0 && info.out_size <= (64u << 20)) {
			uint8_t *out = xmalloc(info.out_size ? info.out_size : 1);
			int x = elfz_expand(in, n, out, info.out_size);
			uint8_t *viafd;

			ck_assert(x >= 0 || x == -EBADMSG);
			ck_assert(x <= (int)(info.zstd + info.zlib));
			/* Written to a file, the same outcome. */
			ck_assert_int_eq(expand_to_fd(in, n, info.out_size, false, &viafd), x);
			if (x >= 0)
				ck_assert_mem_eq(viafd, out, info.out_size);
			free(viafd);
			free(out);
		} else {
			ck_assert(ret == 0 || ret == -ENOEXEC || ret == -EFBIG);
		}
		free(in);
	}
	free(g.p);
}
END_TEST

/* The size a compression header claims, made to lie. */
static int expand_with_size(uint64_t size, int *inspect_ret)
{
	struct layout lay;
	struct img g = build(true, true, false, &lay);
	struct elfz_info info;
	uint8_t *out;
	int ret;

	img_put(&g, lay.off[2] + 8, 8, size);
	*inspect_ret = elfz_inspect(g.p, g.n, &info);
	if (*inspect_ret < 0) {
		free(g.p);
		return *inspect_ret;
	}
	out = xmalloc(info.out_size);
	ret = elfz_expand(g.p, g.n, out, info.out_size);
	free(out);
	ck_assert_int_eq(expand_to_fd(g.p, g.n, info.out_size, false, &out), ret);
	free(out);
	free(g.p);
	return ret;
}

START_TEST(test_lying_sizes)
{
	int in;

	ck_assert_int_eq(expand_with_size(payload_a_len + 1, &in), -EBADMSG);
	ck_assert_int_eq(expand_with_size(payload_a_len - 1, &in), -EBADMSG);
	ck_assert_int_eq(expand_with_size(0, &in), -EBADMSG);
	/* A bomb: far more than the stored size can expand to is refused up front. */
	ck_assert_int_eq(expand_with_size((uint64_t)1 << 40, &in), -EFBIG);
	ck_assert_int_eq(in, -EFBIG);
	ck_assert_int_eq(expand_with_size(UINT64_MAX, &in), -EFBIG);
}
END_TEST

START_TEST(test_out_of_bounds)
{
	struct layout lay;
	struct img g = build(true, true, false, &lay);
	struct elfz_info info;
	uint8_t *out;

	/* The expanded image given a size other than inspect's. */
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), 0);
	out = xmalloc(info.out_size + 64);
	ck_assert_int_eq(elfz_expand(g.p, g.n, out, info.out_size + 64), -EINVAL);
	ck_assert_int_eq(elfz_expand(g.p, g.n, out, info.out_size - 1), -EINVAL);
	ck_assert_int_eq(elfz_expand(g.p, g.n, out, g.n - 1), -EINVAL);
	free(out);

	/* A compressed section past the end of the image. */
	img_put(&g, lay.shoff + 2 * lay.shentsize + 24, 8, g.n - 4);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), -ENOEXEC);
	img_put(&g, lay.shoff + 2 * lay.shentsize + 24, 8, UINT64_MAX - 8);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), -ENOEXEC);
	/* No section header table, but a count of sections: nothing to read. */
	img_put(&g, 40, 8, 0);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), 0);
	ck_assert_uint_eq(info.zstd + info.zlib + info.unknown, 0);
	ck_assert_uint_eq(info.out_size, g.n);
	/* Section headers past the end, and too many of them. */
	img_put(&g, 40, 8, g.n);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), -ENOEXEC);
	img_put(&g, 40, 8, lay.shoff);
	img_put(&g, 60, 2, 0xffff);
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), -ENOEXEC);
	img_put(&g, 60, 2, NSEC);
	img_put(&g, 58, 2, 16); /* entries smaller than a section header */
	ck_assert_int_eq(elfz_inspect(g.p, g.n, &info), -ENOEXEC);
	free(g.p);
}
END_TEST

static Suite *elfz_suite(void)
{
	Suite *s = suite_create("elfz");
	TCase *tc = tcase_create("expand");

	fill_payloads(3000, 777);
	tcase_add_test(tc, test_expand_64le);
	tcase_add_test(tc, test_expand_other_layouts);
	tcase_add_test(tc, test_nothing_compressed);
	tcase_add_test(tc, test_non_debug_left_compressed);
	tcase_add_loop_test(tc, test_expand_fd, 0, 16);
	tcase_add_test(tc, test_expand_fd_drop);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_add_test(tc, test_not_elf);
	tcase_add_loop_test(tc, test_truncated, 0, 8);
	tcase_add_test(tc, test_lying_sizes);
	tcase_add_test(tc, test_out_of_bounds);
	tcase_set_timeout(tc, 120);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return unit_run(elfz_suite());
}
