/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * elfz.h - ELF images with their compressed sections expanded.
 *
 * Debug sections may be compressed in place (SHF_COMPRESSED, a
 * compression header before the data) with zlib or zstd. libelf 0.188
 * reads only zlib; for a file with zstd sections, perfmini hands libdw a
 * copy of the image in which every compressed debug section (.debug_*,
 * zstd and zlib) is stored expanded; other compressed sections, which
 * libdw does not read, stay as they are. The copy is the original bytes unchanged, followed by
 * each expanded section at its alignment; only those sections' headers
 * change (offset, size, alignment, the SHF_COMPRESSED flag cleared).
 * Program headers, loadable contents and every other section stay where
 * they were, so addresses and build-id are those of the original.
 *
 * Both functions take the image as bytes and trust nothing in it: every
 * offset and size is checked against the image, and the sizes the
 * compression headers claim are bounded (ELFZ_MAX_RATIO, ELFZ_MAX_OUT),
 * so a hostile file costs at most that much memory.
 */
#ifndef PERFMINI_ELFZ_H
#define PERFMINI_ELFZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef ELFCOMPRESS_ZSTD
#define ELFCOMPRESS_ZSTD 2
#endif

/* A section may expand to at most this many times its stored size, plus 1 MiB. */
#define ELFZ_MAX_RATIO 1024
/* The expanded image is at most this large. */
#define ELFZ_MAX_OUT ((uint64_t)16 << 30)

struct elfz_info {
	size_t zlib, zstd; /* compressed debug sections that elfz_expand would expand */
	size_t unknown;	   /* compressed with another method: left as they are */
	uint64_t out_size; /* size of the expanded image */
};

/*
 * Counts the compressed sections of the ELF image in[0, n) and the size
 * of its expanded copy. Returns 0, or -ENOEXEC when the image is not ELF
 * or its section headers do not fit in it, -EFBIG when the expanded
 * image would exceed the bounds above.
 */
int elfz_inspect(const void *in, size_t n, struct elfz_info *info);

/*
 * Writes the expanded copy of in[0, n) to out, whose size out_size must
 * be the one elfz_inspect gave. Returns the number of sections expanded,
 * or -ENOEXEC (as above), -EINVAL (out_size is not that size), -EBADMSG
 * (a section's data does not expand to the size its header says), with
 * out's contents then unspecified.
 */
int elfz_expand(const void *in, size_t n, void *out, uint64_t out_size);

/*
 * The same copy, written to the file fd (sized to out_size first) through
 * a buffer of 256 KiB: the expanded sections are never whole in memory.
 * With drop, the pages of in are dropped from the process once read
 * (madvise MADV_DONTNEED): in must then be a private mapping of a file
 * (whose pages come back from the file if touched again). Returns as
 * elfz_expand, or -errno when writing fails.
 */
int elfz_expand_fd(const void *in, size_t n, int fd, uint64_t out_size, bool drop);

#endif
