/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * addr.c - file offset and ELF address conversions; see addr.h.
 */
#include "config.h"

#include <elf.h>
#include <errno.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "elf/addr.h"

int addr_file_offset_to_vaddr(const struct load_seg *segs, size_t n, uint64_t off, uint64_t *vaddr)
{
	/*
	 * Segments may share a page of the file (the end of one and the start
	 * of the next), so the file ranges, not the pages, decide.
	 */
	for (size_t i = 0; i < n; i++) {
		const struct load_seg *s = &segs[i];

		if (off >= s->offset && off - s->offset < s->filesz) {
			*vaddr = off - s->offset + s->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int addr_vaddr_to_file_offset(const struct load_seg *segs, size_t n, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < n; i++) {
		const struct load_seg *s = &segs[i];

		if (vaddr >= s->vaddr && vaddr - s->vaddr < s->filesz) {
			*off = vaddr - s->vaddr + s->offset;
			return 0;
		}
	}
	return -ENOENT;
}

int addr_load_bias(const struct load_seg *segs, size_t n, uint64_t start, uint64_t end,
		   uint64_t pgoff, uint32_t prot, uint64_t *bias)
{
	uint64_t len = end - start;
	bool want_x = (prot & PROT_EXEC) != 0;
	const struct load_seg *best = NULL;

	for (size_t i = 0; i < n; i++) {
		const struct load_seg *s = &segs[i];

		/* [pgoff, pgoff + len) meets [p_offset, p_offset + p_filesz)? */
		if (!s->filesz || pgoff >= s->offset + s->filesz || s->offset >= pgoff + len)
			continue;
		if (((s->flags & PF_X) != 0) == want_x) {
			best = s;
			break;
		}
		if (!best)
			best = s;
	}
	if (!best)
		return -ENOENT;
	*bias = start - pgoff + best->offset - best->vaddr;
	return 0;
}

int addr_moved_text(const struct load_seg *segs, size_t n, uint64_t start, uint64_t end,
		    uint64_t pgoff, uint32_t prot, uint64_t lo, uint64_t hi, uint64_t *off)
{
	const uint64_t page = 4096;
	uint64_t bias;

	if (hi <= lo || addr_load_bias(segs, n, start, end, pgoff, prot, &bias) < 0)
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		const struct load_seg *s = &segs[i];
		uint64_t at = bias + s->vaddr, first = at & ~(page - 1);
		uint64_t last = (at + s->filesz + page - 1) & ~(page - 1);

		if (!(s->flags & PF_X) || !s->filesz || lo < first || hi > last)
			continue;
		/* lo may lie below the segment's start, on its first page. */
		if (lo < at && at - lo > s->offset)
			continue;
		*off = s->offset + lo - at;
		return 0;
	}
	return -ENOENT;
}
