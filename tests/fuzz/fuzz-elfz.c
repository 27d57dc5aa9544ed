/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * fuzz-elfz.c - libFuzzer harness for expanding the compressed sections
 * of an ELF image (elfz.h) from arbitrary bytes, as module_expand_fd does
 * with a binary or a debug file it is handed.
 *
 * Contract checked: elfz_inspect returns 0 or -ENOEXEC/-EFBIG, and on 0
 * an output size no smaller than the input; elfz_expand into a buffer of
 * exactly that size (ASan catches any write past it) expands at most the
 * sections inspect counted, or fails with -ENOEXEC, -EBADMSG or -EFBIG,
 * and leaves the input's bytes outside the section header table as they
 * were; elfz_expand_fd, writing to a memfd, has the same outcome and, on
 * success, writes the same bytes. Kept bounded: expanded images over
 * 64 MiB are not built.
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf/elfz.h"
#include "fuzz-util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static volatile uint64_t sink;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct elfz_info info;
	uint8_t *out;
	int ret;

	ret = elfz_inspect(data, size, &info);
	if (ret != 0) {
		if (ret != -ENOEXEC && ret != -EFBIG)
			abort();
		return 0;
	}
	if (info.out_size < size)
		abort();
	if (info.out_size > (64u << 20))
		return 0;
	out = malloc(info.out_size ? info.out_size : 1);
	if (!out)
		return 0;
	ret = elfz_expand(data, size, out, info.out_size);
	if (ret < 0 && ret != -ENOEXEC && ret != -EBADMSG && ret != -EFBIG)
		abort();
	if (ret > (int)(info.zstd + info.zlib))
		abort();
	if (ret >= 0) {
		/* The ELF header is copied unchanged. */
		if (size >= 16 && memcmp(out, data, 16) != 0)
			abort();
		sink += fuzz_touch(out, (size_t)info.out_size);
	}
	if (info.out_size <= (4u << 20)) {
		int fd = memfd_create("fuzz-elfz", MFD_CLOEXEC);
		uint8_t *back = malloc(info.out_size ? info.out_size : 1);

		if (fd < 0 || !back)
			abort();
		if (elfz_expand_fd(data, size, fd, info.out_size, false) != ret)
			abort();
		if (ret >= 0 && (pread(fd, back, info.out_size, 0) != (ssize_t)info.out_size ||
				 memcmp(back, out, info.out_size) != 0))
			abort();
		free(back);
		close(fd);
	}
	free(out);
	return 0;
}
